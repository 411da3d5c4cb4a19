//! A block's description, made before its passes: which states of each layer are non-zero, and
//! where each reads from.
//!
//! The non-zero states are found layer after layer by whole-word set operations on the plan (cheap,
//! [`nonzero_sets`]); the source positions, one rank lookup each, layer by layer, in tasks of
//! their own ([`layer_sources`]).

use crate::arch::{self, Isa, Vectorised};
use crate::plan::{LayerSet, Plan, Step};

/// A layer as the layers after it read it: its non-zero states (a subset of the plan's), with the
/// rank of each word's first member, so that the position of a state among them is O(1).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct NonZeroSet {
    pub(crate) set: LayerSet,
    rank: Vec<u32>,
    pub(crate) len: u32,
}

impl NonZeroSet {
    /// The set with its ranks. Cost O(window / 64).
    pub(crate) fn new(set: LayerSet) -> NonZeroSet {
        let mut len = 0u32;
        let rank = set
            .words()
            .iter()
            .map(|w| {
                let r = len;
                len += w.count_ones();
                r
            })
            .collect();
        NonZeroSet { set, rank, len }
    }

    /// The position of `g` among the non-zero states, or `len` (the layer's zero chunk) where the
    /// count is zero or g is no state (g = u64::MAX stands for a negative g).
    #[inline(always)]
    pub(crate) fn index(&self, g: u64) -> u32 {
        let off = g.wrapping_sub(self.set.base());
        let (w, bit) = ((off / 64) as usize, off % 64);
        let (word, rank) = match (self.set.words().get(w), self.rank.get(w)) {
            (Some(&word), Some(&rank)) => (word, rank),
            _ => (0, 0),
        };
        // branch-free: membership is as good as random
        let member = 0u32.wrapping_sub(((word >> bit) & 1) as u32);
        let position = rank + (word & ((1 << bit) - 1)).count_ones();
        (position & member) | (self.len & !member)
    }
}

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

/// The non-zero states of the layers `range` of a block (as the layers after them read them), from
/// the plan and the block's two edge layers (the older first).
///
/// Cost: O(window / 64) per layer.
pub(crate) fn nonzero_sets(
    plan: &Plan,
    range: std::ops::RangeInclusive<usize>,
    edges: &[NonZeroSet; 2],
) -> Vec<NonZeroSet> {
    let k0 = *range.start();
    let mut new_edges: Vec<NonZeroSet> = Vec::with_capacity(range.clone().count());
    for k in range {
        let (r, l) = (plan.edge_value(k - 2) as u64, plan.edge_value(k - 1) as u64);
        let before = |back| layer_before(&new_edges, edges, k0, k - back);
        let direct: &[u64] = if k >= 3 { &[r, l] } else { &[r] };
        let mut set = LayerSet::image(&[(&before(1).set, r), (&before(2).set, l)], Step::Forward, direct);
        set.retain_in(plan.layer(k));
        new_edges.push(NonZeroSet::new(set));
    }
    new_edges
}

/// Where each non-zero state of layer `k` of a block starting at layer `k0` reads from, and its
/// direct moves, given the block's non-zero sets `new_edges` ([`nonzero_sets`]) and its two edge
/// layers `edges`; the rank lookups compiled for `isa`.
///
/// Cost: two rank lookups a state.
pub(crate) fn layer_sources(
    plan: &Plan,
    k0: usize,
    k: usize,
    new_edges: &[NonZeroSet],
    edges: &[NonZeroSet; 2],
    isa: Isa,
) -> Sources {
    let (r, l) = (plan.edge_value(k - 2) as u64, plan.edge_value(k - 1) as u64);
    let before = |back| layer_before(new_edges, edges, k0, k - back);
    let me = &new_edges[k - k0];
    arch::compiled(isa, Positions { me, old: before(1), older: before(2), k, r, l })
}

/// Layer `k` (at least k0 - 2) as the layers after it read it: one of the block's layers from k0 on
/// (`new_edges`), else one of the two before the block (`edges`, the older first).
fn layer_before<'e>(new_edges: &'e [NonZeroSet], edges: &'e [NonZeroSet; 2], k0: usize, k: usize) -> &'e NonZeroSet {
    if k >= k0 { &new_edges[k - k0] } else { &edges[2 - (k0 - k)] }
}

/// Where each non-zero state `me` of layer k reads from in the layers `old` (k - 1) and `older`
/// (k - 2), and its direct moves, with r = 1 + G(k-2) and l = 1 + G(k-1). Cost: two rank lookups a
/// state (a population count each).
struct Positions<'a> {
    me: &'a NonZeroSet,
    old: &'a NonZeroSet,
    older: &'a NonZeroSet,
    k: usize,
    r: u64,
    l: u64,
}

impl Vectorised for Positions<'_> {
    type Output = Sources;

    #[inline(always)]
    fn run(self) -> Sources {
        let Positions { me, old, older, k, r, l } = self;
        let states = me.len as usize;
        let (mut left, mut right) = (vec![0u32; states], vec![0u32; states]);
        let mut s = 0;
        let base = me.set.base();
        for (w, &word) in me.set.words().iter().enumerate() {
            let mut rest = word;
            while rest != 0 {
                let g = base + 64 * w as u64 + rest.trailing_zeros() as u64;
                rest &= rest - 1;
                // a negative source (g xor e = 0) wraps to u64::MAX, which no layer holds
                left[s] = old.index((g ^ r).wrapping_sub(1));
                right[s] = older.index((g ^ l).wrapping_sub(1));
                s += 1;
            }
        }
        // the direct moves: deleting the right child leaves R, deleting the left child (k >= 3) L
        let mut direct: Vec<(u32, u8)> = Vec::with_capacity(2);
        for g in std::iter::once(r).chain((k >= 3).then_some(l)) {
            let s = me.index(g);
            debug_assert!(s < me.len || !me.set.contains(g), "a direct move's state is not zero");
            match direct.iter_mut().find(|d| d.0 == s) {
                Some(d) => d.1 += 1,
                None if s < me.len => direct.push((s, 1)),
                None => {} // not a state of the plan: nothing reads it
            }
        }
        Sources { left, right, direct, targets: Vec::new() }
    }
}
