//! A block's description, made before its passes: which states of each layer are non-zero, and
//! where each reads from.
//!
//! The non-zero states are found layer after layer by whole-word set operations on the plan (cheap,
//! [`nonzero_sets`]); the source positions, one rank lookup each (or derived, where words repeat a
//! nibble), layer by layer, in tasks of their own ([`layer_sources`]).

use super::nonzero::NonZeroSet;
use super::sweep::Sweep;
use crate::kernels::{self, Isa, Kernel};
use crate::plan::Plan;

/// The non-zero counts of one layer of a block: where each reads from, and the direct moves.
pub(crate) struct Sources {
    /// The position of each state's left source in layer k - 1 (the zero chunk's where none).
    pub(crate) left: Vec<u32>,
    /// The position of each state's right source in layer k - 2.
    pub(crate) right: Vec<u32>,
    /// (position, 1 or 2): the states that a whole child's deletion leads to.
    pub(crate) direct: Vec<(u32, u8)>,
    /// (target index, position among the non-zero counts, or the zero chunk's) of the targets in
    /// this layer.
    pub(crate) targets: Vec<(usize, u32)>,
}

impl Sources {
    /// The number of non-zero states.
    pub(crate) fn len(&self) -> usize {
        self.left.len()
    }
}

/// The non-zero states of the steps `range` of a block of `sweep` (as the steps after them read
/// them), from the plan (or its layers `handed` over, each taken and freed here; top-down, the
/// support the plan was thinned by) and the block's two edge steps (the older first).
///
/// Cost: O(window / 64) per step.
pub(crate) fn nonzero_sets(
    plan: &Plan,
    sweep: Sweep,
    range: std::ops::RangeInclusive<usize>,
    edges: &[NonZeroSet; 2],
    handed: Option<&Handed>,
) -> Vec<NonZeroSet> {
    let k0 = *range.start();
    let mut new_edges: Vec<NonZeroSet> = Vec::with_capacity(range.clone().count());
    for k in range {
        let before = |back| layer_before(&new_edges, edges, k0, k - back);
        let layer = sweep.layer(k);
        let taken = match (sweep, handed) {
            (Sweep::Up { .. }, Some(handed)) => {
                Some(std::mem::take(&mut *handed[layer].lock().expect("not poisoned")).into_set())
            }
            _ => None,
        };
        // top-down: the support of the layer below W, which thins it as the plan's layers are thinned
        let support = matches!(sweep, Sweep::Down { .. }).then(|| plan.support_below(layer));
        let within = match support.or(taken) {
            Some(set) => std::borrow::Cow::Owned(set),
            None => plan.layer(layer),
        };
        let set = sweep.nonzero_set(plan, k, before(1), before(2), &within);
        new_edges.push(set);
    }
    new_edges
}

/// The plan's layers handed over to a run ([`Plan::hand_over`]), which frees each once it has read it.
pub(crate) type Handed = [std::sync::Mutex<crate::plan::Packed>];

/// Where each non-zero state of step `k` of a block of `sweep` starting at step `k0` reads from,
/// and its direct moves, given the block's non-zero sets `new_edges` ([`nonzero_sets`]) and its two
/// edge steps `edges`; the rank lookups compiled for `isa`.
///
/// Cost: two rank lookups a state, or a few additions where the words repeat a nibble.
pub(crate) fn layer_sources(
    plan: &Plan,
    sweep: Sweep,
    k0: usize,
    k: usize,
    new_edges: &[NonZeroSet],
    edges: &[NonZeroSet; 2],
    isa: Isa,
) -> Sources {
    let (r, l) = sweep.edges(plan, k);
    let before = |back| layer_before(new_edges, edges, k0, k - back);
    let me = &new_edges[k - k0];
    let direct = sweep.direct(plan, k);
    let mut sources =
        kernels::compiled(isa, Positions { me, old: before(1), older: before(2), sweep, direct: &direct, r, l });
    if !sweep.reads_old(k) {
        sources.left.fill(before(1).len); // the zero chunk of the step before
    }
    sources
}

/// Layer `k` (at least k0 - 2) as the layers after it read it: one of the block's layers from k0 on
/// (`new_edges`), else one of the two before the block (`edges`, the older first).
fn layer_before<'e>(new_edges: &'e [NonZeroSet], edges: &'e [NonZeroSet; 2], k0: usize, k: usize) -> &'e NonZeroSet {
    if k >= k0 { &new_edges[k - k0] } else { &edges[2 - (k0 - k)] }
}

/// Where each non-zero state `me` of step t of `sweep` reads from in the steps `old` (t - 1) and
/// `older` (t - 2), through the edge values `r` and `l`, and its `direct` states. Cost: two rank
/// lookups a state (a population count each, within words looked up once per 64 states), or a few
/// additions a state where a word of states and the word of its sources repeat a nibble
/// ([`super::sweep::WordSources::extend`]).
struct Positions<'a> {
    me: &'a NonZeroSet,
    old: &'a NonZeroSet,
    older: &'a NonZeroSet,
    sweep: Sweep,
    direct: &'a [u64],
    r: u64,
    l: u64,
}

impl Kernel for Positions<'_> {
    type Output = Sources;

    #[inline(always)]
    fn run(self) -> Sources {
        let Positions { me, old, older, sweep, direct: named, r, l } = self;
        let states = me.len as usize;
        let (mut left, mut right) = (Vec::with_capacity(states), Vec::with_capacity(states));
        let base = me.set.base();
        for (w, &word) in me.set.words().iter().enumerate().filter(|(_, w)| **w != 0) {
            // the 64 states of a word read from at most two words of each source layer: each
            // pair of words and ranks is read once a word, not once a state
            let g0 = base + 64 * w as u64;
            let (to_left, to_right) = (sweep.sources_of_word(g0, r, old), sweep.sources_of_word(g0, l, older));
            to_left.extend(word, &mut left);
            to_right.extend(word, &mut right);
        }
        debug_assert_eq!(left.len(), states);
        // bottom-up the direct moves (deleting the right child leaves R, the left child (k >= 3) L);
        // top-down the target
        debug_assert!(named.iter().all(|&g| me.index(g) < me.len || !me.set.contains(g)), "a direct move is not zero");
        let direct = me.named(named).into_iter().map(|(s, times)| (s, times as u8)).collect();
        Sources { left, right, direct, targets: Vec::new() }
    }
}
