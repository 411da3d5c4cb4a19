//! Which states (k, g) a set of targets needs, and the sets of g that hold them.
//!
//! The recurrence: c(k, g) = [g = R] + [k >= 3][g = L] + c(k - 1, (g xor R) - 1) + c(k - 2, (g xor L) - 1)
//! with L = 1 + G(k - 1) and R = 1 + G(k - 2) (docs/math.md). Walking its two edges backwards from the
//! targets marks every state (k, h) the forward pass must compute: the plan.
//!
//! Invariants the engines rely on:
//! - layers 0 and 1 hold no moves and are never marked; a layer reads only the two below it;
//! - every state of a target (n, g) differs from g only in bits below W ([`crate::game::window`]),
//!   so a layer is a bitset over a window about W wide, whatever g is (a target far above every
//!   Grundy value costs no more than g = 0), and every state of a target below W is below W;
//! - the plan holds no state below W whose count is zero, but the targets themselves (docs/math.md,
//!   "Zero states"; [`thinning`]): every state a marked state reads is marked or counts zero, so an
//!   engine reads a state outside the plan as 0, and every state that reads a marked state of
//!   non-zero count is marked (a count is at least each count it reads).
//!
//! - [`layer_set`]: the bitsets and their images under a step, on whole words;
//! - [`packed`]: a layer as the plan keeps it, its words or runs of equal words;
//! - [`arrays`]: bitsets from g = 0 as whole arrays, and their images in vectorised passes;
//! - [`backward`]: the backward pass, one loop that the plan and the census share;
//! - [`census`]: the plan's sizes counted without keeping it (what `fibtree estimate` reports);
//! - [`support`]: the forward pass of the g a move can leave, and the counts known to be zero;
//! - [`thinning`]: the support below W in checkpoints, walked down as the plan is made.

mod arrays;
mod backward;
mod census;
mod layer_set;
mod packed;
mod support;
mod thinning;

pub(crate) use census::census;
pub(crate) use layer_set::LayerSet;
pub(crate) use layer_set::Step;
pub(crate) use packed::Packed;
pub use support::known_zeros;
pub(crate) use support::support_set;
pub(crate) use thinning::Support;

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::cost::check;
use crate::error::Result;
use crate::hooks::Hooks;
use crate::limit::Limit;
use crate::targets::Targets;
use backward::{Keep, backward};
use layer_set::EMPTY;
use thinning::Walk;

/// What a run's memory estimate depends on in its plan: what the memory guard's estimate of a run
/// takes ([`crate::guard::Run::bytes`]), from a prediction before the plan exists and from the plan
/// itself afterwards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Sizes {
    /// The plan's bytes.
    pub(crate) plan: u64,
    /// The states of its widest layer.
    pub(crate) widest: u64,
    /// The highest g of any layer's window, or edge value.
    pub(crate) highest: u64,
    /// What the blocked engine's sweeps of a count over the plan hold, where that engine runs and
    /// its route is known (the layers' sizes and the cut): [`Held`]. `None`: bounded by the widest
    /// layer at the top layer's lanes, for whichever exact engine runs.
    pub(crate) held: Option<Held>,
}

/// What the sweeps of the exact engine hold at once over a plan whose layers' sizes are known, for
/// one route (bottom-up alone, or from both ends with both sweeps at the same time): where each
/// sweep holds most, summed over the sweeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Held {
    /// For each sweep, the largest of its layers' states times the lanes of a value of that layer.
    pub(crate) lane_states: u64,
    /// For each sweep, the states of its widest layer.
    pub(crate) states: u64,
    /// The fewest lanes of any sweep's last step (its values' widest), by which its chunks are cut.
    pub(crate) top_lanes: u64,
}

/// The bytes of a plan's bookkeeping per layer: one edge value and one (empty) set.
const PER_LAYER_BYTES: u64 = 4 + std::mem::size_of::<LayerSet>() as u64;

/// The bytes of a plan up to layer `top` whose layers are `window` values of g wide: its
/// bookkeeping a layer and one bit per g of each window. Cost O(1).
pub(crate) fn bytes_at(top: u64, window: u64) -> u64 {
    (top + 1).saturating_mul(PER_LAYER_BYTES + window / 8)
}

/// The bytes of the support below W that the plan of `targets` keeps to thin its layers
/// ([`Support::bytes_for`]): none where every target's g is at or above `w` (W), whose states are
/// left in. Cost O(1).
pub(crate) fn support_bytes(targets: &Targets, w: u64) -> u64 {
    if thins(targets, w) { Support::bytes_for(targets.top(), w) } else { 0 }
}

/// Whether the plan of `targets` is thinned by the support below `w` (W): where some target's g is
/// below W, in a tree with moves (docs/math.md, "Zero states"). Cost O(1).
fn thins(targets: &Targets, w: u64) -> bool {
    targets.top() >= 2 && targets.g_range().0 < w
}

/// The bytes of the layers of the plan of `targets` up to layer `top` kept up to layer `keep`, as
/// far as they are known before it is made, its layers `window` values of g wide: one target's
/// pack into runs ([`Packed`]), taken at a word a layer and watched as they are made
/// ([`Kept::keep`]); several targets' at their windows' bits. Cost O(1).
pub(crate) fn layers_before(targets: &Targets, top: u64, window: u64, keep: usize) -> u64 {
    match targets.len() {
        1 => bytes_at(top, 64),
        _ => kept_share(bytes_at(top, window), top, keep),
    }
}

/// The share of `bytes`, the size of a plan up to layer `top`, that the plan holds when it keeps its
/// sets up to layer `keep` only ([`Plan::below`]): (keep + 1) / (top + 1) of it, the lower layers'
/// windows being no wider than the upper ones'. Cost O(1).
pub(crate) fn kept_share(bytes: u64, top: u64, keep: usize) -> u64 {
    let kept = keep.min(top as usize) as u128 + 1;
    (bytes as u128 * kept / (top as u128 + 1)) as u64
}

/// The support of c(n, .): every g with c(n, g) > 0, ascending (about 6.5 n of them, below about
/// 11 n).
///
/// Cost: a forward pass over n layers of whole-word set operations; two layers of memory.
///
/// # Errors
/// [`crate::Error::InvalidArgument`] for n above [`crate::MAX_N`]; [`crate::Error::Interrupted`]
/// once cancelled.
///
/// # Examples
///
/// ```
/// let support = fibtree_core::support(10, fibtree_core::Hooks::default())?;
/// assert_eq!(support, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 18, 26]);
/// # Ok::<(), fibtree_core::Error>(())
/// ```
pub fn support(n: u64, hooks: Hooks) -> Result<Vec<u64>> {
    Ok(support_set(n, hooks)?.iter().collect())
}

/// The states a set of targets needs, layer by layer, with the edge values `1 + G(k)` the
/// recurrence uses: those whose count is not zero, and the targets themselves (docs/math.md,
/// "Zero states").
#[derive(Debug)]
pub struct Plan {
    edge: Vec<u32>,
    /// The sets of the layers, packed ([`Packed`]).
    layers: Vec<Packed>,
    /// The number of states of each layer.
    lens: Vec<u32>,
    /// The support below W that thinned the layers (where some target is below W), kept for the
    /// top-down sweeps, which thin their own layers by it (shared with a sweep that starts before
    /// the plan is made: [`Plan::below_alongside`]).
    support: Option<Arc<Support>>,
}

impl Plan {
    /// The states needed to compute c(n, g) for every `(n, g)` in `targets`, those of count zero
    /// left out (but the targets), checking `hooks`' cancel flags every layer.
    ///
    /// Cost: the backward pass, O(the layers' windows / 64) word operations (the sources' words,
    /// twice for the memory guard's projection; at most n x W / 64 for one target), after O(top n)
    /// for the Grundy values; where a target is below W, the support's forward pass twice (once for
    /// its checkpoints, once walked down), O(n x W / 64) each, and a pass over each layer's words to
    /// pack it. Memory: each layer packed (as runs of equal words where smaller: at most one bit
    /// per g of its window; for g = 0 the window is the smallest power of two above every
    /// G(k) + 1, 8192 at n = 10000, and the plan of f(10000) takes 0.87 MB with its support where
    /// its bitsets took 5.8 MB), two layers' bitsets while the next is made, 4 bytes per layer for
    /// the Grundy values, and the support's checkpoints (about 2 sqrt(n) layers of W / 8 bytes).
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] for an n above [`crate::game::MAX_N`];
    /// [`crate::Error::OutOfMemory`] as soon as the bitsets are projected to exceed `memory_limit`
    /// bytes; [`crate::Error::Interrupted`] once cancelled.
    ///
    /// # Examples
    ///
    /// ```
    /// use fibtree_core::{Hooks, Plan};
    /// let plan = Plan::new(&[(300, 0)], u64::MAX, Hooks::default())?;
    /// assert_eq!((plan.top(), plan.states()), (300, 27_680));
    /// # Ok::<(), fibtree_core::Error>(())
    /// ```
    pub fn new(targets: &[(u64, u64)], memory_limit: impl Into<Limit>, hooks: Hooks) -> Result<Plan> {
        Plan::below(&Targets::new(targets), usize::MAX, memory_limit, hooks)
    }

    /// [`Plan::new`], keeping the sets of the layers up to `keep` only (each layer above is freed
    /// once the two below it are made), with every layer's size and the edge values: the plan of a
    /// count from both ends, whose top-down half makes its own layers
    /// ([`crate::engines::both_ends::keep_for_both_ends`]).
    /// Cost: [`Plan::new`]'s time; memory the kept layers' and two more.
    ///
    /// # Errors
    /// As [`Plan::new`].
    pub(crate) fn below(targets: &Targets, keep: usize, memory_limit: impl Into<Limit>, hooks: Hooks) -> Result<Plan> {
        Plan::made(targets, keep, memory_limit.into(), hooks, true, |_, _| ()).map(|(plan, ())| plan)
    }

    /// [`Plan::below`], running `alongside` meanwhile (on another thread of the current pool where
    /// one is free, else after the backward pass) with the plan's skeleton: its edge values and the
    /// support its layers are thinned by, but no layers ([`Plan::top_down`]); the flag it is
    /// handed is set once the backward pass is done (or has failed), when it should stop. Where the
    /// memory guard refuses the plan before its support is made, `alongside` is not run.
    ///
    /// Cost: [`Plan::new`]'s, and `alongside`'s.
    ///
    /// # Errors
    /// As [`Plan::new`]; what `alongside` returns is dropped then.
    pub(crate) fn below_alongside<T: Send>(
        targets: &Targets,
        keep: usize,
        memory_limit: impl Into<Limit>,
        hooks: Hooks,
        alongside: impl FnOnce(&Plan, &AtomicBool) -> T + Send,
    ) -> Result<(Plan, T)> {
        Plan::made(targets, keep, memory_limit.into(), hooks, true, alongside)
    }

    /// The plan of `targets` with every state the backward pass reaches, those of count zero
    /// included: what the tests compare the thinned plans with. Cost as [`Plan::new`], without the
    /// support.
    #[cfg(test)]
    pub(crate) fn unthinned(targets: &Targets) -> Plan {
        let plan = Plan::made(targets, usize::MAX, Limit::from(u64::MAX), Hooks::default(), false, |_, _| ());
        plan.expect("no limit").0
    }

    /// [`Plan::below_alongside`], thinned by the support where `thin` says so and some target is
    /// below W.
    fn made<T: Send>(
        targets: &Targets,
        keep: usize,
        memory_limit: Limit,
        hooks: Hooks,
        thin: bool,
        alongside: impl FnOnce(&Plan, &AtomicBool) -> T + Send,
    ) -> Result<(Plan, T)> {
        let top = targets.top();
        crate::game::check_n(top)?;
        // Before allocating anything: the Grundy values, one set per layer and at least one word in
        // each are a floor under the plan's size; windows W wide, the size of a plan of one target.
        check(bytes_at(top, 64), memory_limit)?;
        let edge = crate::game::edge_values(top)?;
        let w = crate::game::window_of_edge(edge.iter().copied().max().unwrap_or(0));
        let support_bytes = if thin { support_bytes(targets, w) } else { 0 };
        check(layers_before(targets, top, w, keep).saturating_add(support_bytes), memory_limit)?;
        let support = match thin && thins(targets, w) {
            true => Some(Arc::new(Support::new(&edge, w, crate::kernels::chosen::dense_isa(), hooks)?)),
            false => None,
        };
        let layers = vec![Packed::default(); top as usize + 1];
        let lens = vec![0; top as usize + 1];
        let used = bytes_at(top, 0) + support_bytes;
        let recent = Default::default();
        let mut kept = Kept { layers, lens, recent, last: top as usize + 1, used, limit: memory_limit, keep };
        let skeleton = Plan::top_down(edge, support);
        let done = AtomicBool::new(false);
        let made = || {
            let mut walk = skeleton.support.as_deref().map(Walk::new);
            let made = backward(targets, &skeleton.edge, hooks, walk.as_mut(), &mut kept);
            done.store(true, Ordering::Relaxed);
            made
        };
        let (made, beside) = rayon::join(made, || alongside(&skeleton, &done));
        made?;
        let (layers, lens) = kept.finish();
        Ok((Plan { layers, lens, ..skeleton }, beside))
    }

    /// A plan of the edge values `edge` (0 to the top layer) and the support that thins its layers,
    /// holding no layer: what a top-down sweep reads (it makes its own layers) while the plan is
    /// made. Cost O(1).
    fn top_down(edge: Vec<u32>, support: Option<Arc<Support>>) -> Plan {
        Plan { edge, layers: Vec::new(), lens: Vec::new(), support }
    }

    /// Frees the sets of the layers above `cut` and hands over those up to it, one lock each, to a
    /// count from both ends: its top-down half makes its own layers, and its bottom-up half frees
    /// each layer once it has read it (unpacking it then). The plan keeps the layers' sizes and the
    /// edge values. Cost O(n).
    pub(crate) fn hand_over(&mut self, cut: usize) -> Vec<std::sync::Mutex<Packed>> {
        let mut handed = Vec::with_capacity(cut + 1);
        for (k, layer) in self.layers.iter_mut().enumerate() {
            let layer = std::mem::take(layer);
            if k <= cut {
                handed.push(std::sync::Mutex::new(layer));
            }
        }
        handed
    }

    /// The support of layer `k` below W as a set over [0, W) (the words of
    /// [`LayerSet::retain_below`]), by which the top-down sweeps thin their layers as the plan's
    /// were thinned; the empty set (which thins nothing) where the plan was not thinned. Cost as
    /// [`Support::layer_set`].
    pub(crate) fn support_below(&self, k: usize) -> LayerSet {
        match &self.support {
            Some(support) if (2..=self.top()).contains(&k) => support.layer_set(k),
            _ => LayerSet::default(),
        }
    }

    /// The highest layer.
    pub fn top(&self) -> usize {
        self.edge.len() - 1
    }

    /// The states of layer `k` (none above the top). Cost O(1) where the plan keeps the layer as
    /// its words, else O(window / 64) to unpack it from its runs of equal words.
    pub fn layer(&self, k: usize) -> Cow<'_, LayerSet> {
        self.layers.get(k).map_or(Cow::Borrowed(&EMPTY), Packed::set)
    }

    /// Whether layer `k` holds `g` (none above the top). Cost O(1), or O(log n) for a layer kept
    /// as runs ([`Packed`]): no layer is unpacked.
    pub(crate) fn contains(&self, k: usize, g: u64) -> bool {
        self.layers.get(k).is_some_and(|layer| layer.contains(g))
    }

    /// The window of layer `k`: the g of its first bit and its width in values of g, as
    /// [`LayerSet::base`] and [`LayerSet::window`] (a width of 0 for an empty layer or one above
    /// the top). Cost O(1): no layer is unpacked.
    pub(crate) fn window(&self, k: usize) -> (u64, usize) {
        self.layers.get(k).map_or((0, 0), |layer| (layer.base(), layer.window()))
    }

    /// The union of layer `k`'s words ([`Packed::word_union`]; 0 above the top), for the classes of
    /// g mod 4 it holds where its base is a multiple of 4. Cost O(the layer's words or runs).
    pub(crate) fn word_union(&self, k: usize) -> u64 {
        self.layers.get(k).map_or(0, Packed::word_union)
    }

    /// The edge value `1 + G(k)`: what T(k) contributes hung under a root edge (0 for k = 0).
    pub fn edge_value(&self, k: usize) -> u32 {
        self.edge[k]
    }

    /// The number of states in all layers. Cost O(n).
    pub fn states(&self) -> u64 {
        self.lens.iter().map(|&l| l as u64).sum()
    }

    /// The number of states of each layer, 0 to the top. Cost O(1).
    pub(crate) fn lens(&self) -> &[u32] {
        &self.lens
    }

    /// The number of states of layer `k` (none above the top). Cost O(1).
    pub fn layer_len(&self, k: usize) -> usize {
        self.lens.get(k).map_or(0, |&l| l as usize)
    }

    /// The largest number of states in one layer. Cost O(n).
    pub fn widest_layer(&self) -> usize {
        self.lens.iter().copied().max().unwrap_or(0) as usize
    }

    /// Bytes held by the plan: its edge values, its sets and the support's checkpoints.
    pub fn bytes(&self) -> u64 {
        let support = self.support.as_deref().map_or(0, Support::bytes);
        4 * self.edge.len() as u64 + self.layers.iter().map(Packed::bytes).sum::<u64>() + support
    }

    /// The plan's [`Sizes`]: its bytes, its widest layer and the highest g of a window or edge.
    /// Cost O(n).
    pub(crate) fn sizes(&self) -> Sizes {
        let edges = self.edge.iter().copied().max().unwrap_or(0) as u64;
        let windows = self.layers.iter().filter(|l| l.window() > 0).map(|l| l.base() + l.window() as u64 - 1);
        let highest = windows.fold(edges, u64::max);
        Sizes { plan: self.bytes(), widest: self.widest_layer() as u64, highest, held: None }
    }
}

/// The keeper of [`Plan::new`]: every layer (or those up to `keep`), packed once no layer still to
/// be made reads it, and the memory guard's watch over their bytes.
struct Kept {
    layers: Vec<Packed>,
    /// The number of states of every layer made.
    lens: Vec<u32>,
    /// The last two layers taken, as words (the newer first): what the next layer reads.
    recent: [LayerSet; 2],
    /// The last layer taken (the top + 1 before the first).
    last: usize,
    /// The bytes held so far: the bookkeeping of every layer and the sets kept.
    used: u64,
    limit: Limit,
    /// The highest layer whose set is kept to the end (the others only while the two layers
    /// below them are made).
    keep: usize,
}

impl Keep for Kept {
    const PROJECTS: bool = true;

    fn above(&self, i: usize) -> [&LayerSet; 2] {
        debug_assert_eq!(self.last, i + 1, "the layers are taken from the top down");
        [&self.recent[0], &self.recent[1]]
    }

    /// A window that would pass the limit refuses the plan with the projection of every layer
    /// below as wide as it.
    fn before(&mut self, i: usize, window_bytes: u64) -> Result<()> {
        if self.used.saturating_add(window_bytes) > self.limit.bytes {
            let estimate = self.used.saturating_add(window_bytes.saturating_mul(i as u64 - 1));
            check(estimate, self.limit)?;
        }
        Ok(())
    }

    /// Past the limit once every layer below is projected as large as this one packed (those to
    /// be kept).
    fn keep(&mut self, i: usize, set: LayerSet) -> Result<()> {
        self.used += set.bytes();
        let below = (i.min(self.keep.saturating_add(1)) as u64).saturating_sub(2);
        check(self.used + Packed::bytes_of(set.words()) * below, self.limit)?;
        self.lens[i] = set.len() as u32;
        // layer i + 2 is read by no layer below i: packed where kept, else freed
        let [newer, older] = std::mem::take(&mut self.recent);
        self.used -= older.bytes();
        self.store(i + 2, older);
        self.recent = [set, newer];
        self.last = i;
        Ok(())
    }
}

impl Kept {
    /// Keeps layer `k`, packed, where it is kept at all.
    fn store(&mut self, k: usize, set: LayerSet) {
        if k <= self.keep
            && let Some(slot) = self.layers.get_mut(k)
        {
            let packed = Packed::new(set);
            self.used += packed.bytes();
            *slot = packed;
        }
    }

    /// The layers and their sizes, once the backward pass is done: the last two stored too.
    fn finish(mut self) -> (Vec<Packed>, Vec<u32>) {
        let [newer, older] = std::mem::take(&mut self.recent);
        let last = self.last;
        self.store(last, newer);
        self.store(last + 1, older);
        (self.layers, self.lens)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/math.md: (10000, 0) reaches 16.7 million states backwards, at most 2048 a layer, all
    /// below 8192; 10.4 million of them count more than zero ("Zero states").
    #[test]
    fn state_count_at_10000_matches_math_md() {
        let targets = crate::targets::Targets::one(10_000, 0);
        let plan = Plan::new(&targets, u64::MAX, Hooks::default()).unwrap();
        let unthinned = Plan::unthinned(&targets);
        assert_eq!((unthinned.states(), unthinned.widest_layer()), (16_736_820, 2048));
        assert_eq!(plan.states(), 10_449_460);
        assert!(plan.widest_layer() <= 2048);
        assert!((0..=unthinned.top()).all(|k| unthinned.layer(k).iter().all(|g| g < 8192)));
    }

    /// The plan is the backward pass's states less those of count zero below W (the targets kept):
    /// each layer that of the unthinned plan within the support (c(k, g) > 0, by the support's own
    /// forward pass) or at or above W; and closed as docs/math.md, "Zero states" says: a marked
    /// state reads marked states or states of count zero.
    #[test]
    fn the_plan_leaves_out_the_states_of_count_zero() {
        let cases: Vec<Vec<(u64, u64)>> = vec![
            vec![(40, 0)],
            vec![(57, 9)],
            vec![(30, 1 << 40)],
            vec![(7, 0)], // f(7) = 0: the target alone is left
            vec![(600, 0)],
            vec![(301, 5), (300, 0), (120, 2), (9, 0)],
        ];
        // targets below W and above it in one plan: the layers thinned below W only
        let w = crate::game::window(200, Hooks::default()).unwrap();
        let cases = [cases, vec![vec![(200, 0), (200, w + 3), (150, 2 * w + 1)]]].concat();
        for targets in cases.iter().map(|t| crate::targets::Targets::new(t)) {
            let (plan, unthinned) =
                (Plan::new(&targets, u64::MAX, Hooks::default()).unwrap(), Plan::unthinned(&targets));
            let top = targets.top();
            let w = crate::game::window(top, Hooks::default()).unwrap();
            assert_eq!(plan.support.is_some(), targets.g_range().0 < w && top >= 2);
            let supports: Vec<LayerSet> = (0..=top).map(|k| support_set(k, Hooks::default()).unwrap()).collect();
            let mut left_out = 0;
            for k in 2..=top as usize {
                let counts =
                    |g: u64| supports[k].contains(g) || g >= w || targets.at_layer(k as u64).iter().any(|t| t.1 == g);
                let want: Vec<u64> = unthinned.layer(k).iter().filter(|&g| counts(g)).collect();
                assert_eq!(plan.layer(k).iter().collect::<Vec<_>>(), want, "layer {k} of {targets:?}");
                assert_eq!(plan.layer_len(k), want.len());
                left_out += unthinned.layer_len(k) - want.len();
                for j in plan.layer(k).iter() {
                    let reads = [(k - 1, plan.edge_value(k - 2)), (k - 2, plan.edge_value(k - 1))];
                    for (i, e) in reads.into_iter().filter(|r| r.0 >= 2) {
                        if let Some(a) = (j ^ e as u64).checked_sub(1) {
                            let zero = a < w && !supports[i].contains(a);
                            assert!(plan.layer(i).contains(a) || zero, "({k}, {j}) reads ({i}, {a}) of {targets:?}");
                        }
                    }
                }
            }
            assert!(left_out > 0 || top < 40 || targets.g_range().0 >= w, "{targets:?}: no state of count zero");
            assert!(plan.layer(top as usize).iter().any(|g| targets.at_layer(top).iter().any(|t| t.1 == g)));
        }
    }

    /// The best cut of a count from both ends is never above
    /// [`crate::engines::both_ends::keep_for_both_ends`], and a plan that
    /// keeps its sets up to there has the full plan's sizes and the same sets below.
    #[test]
    fn a_plan_below_the_cut_keeps_what_both_ends_read() {
        for (n, g) in [(3u64, 0u64), (40, 1), (300, 0), (1000, 7), (10_000, 0)] {
            let targets = crate::targets::Targets::one(n, g);
            let full = Plan::new(&targets, u64::MAX, Hooks::default()).unwrap();
            let keep = crate::engines::both_ends::keep_for_both_ends(n as usize);
            let (best, _) = crate::engines::both_ends::cut::best_cut(full.lens());
            assert!(best <= keep, "n = {n}: best cut {best}, kept to {keep}");
            let below = Plan::below(&targets, keep, u64::MAX, Hooks::default()).unwrap();
            assert_eq!(below.lens(), full.lens(), "n = {n}");
            assert!((0..=keep.min(n as usize)).all(|k| below.layer(k) == full.layer(k)), "n = {n}");
            assert!((keep + 1..=n as usize).all(|k| below.layer(k).is_empty()), "n = {n}");
            // the layers' sets (the support's checkpoints are the same in both)
            let sets = |plan: &Plan| plan.layers.iter().map(Packed::bytes).sum::<u64>();
            assert!(n < 10_000 || sets(&below) < sets(&full) * 6 / 10, "n = {n}: {} of {}", sets(&below), sets(&full));
            assert_eq!(full.bytes() - sets(&full), below.bytes() - sets(&below), "n = {n}");
        }
    }

    #[test]
    fn memory_limit_is_enforced() {
        assert!(matches!(
            Plan::new(&crate::targets::Targets::new(&[(5_000, 0)]), 100_000, Hooks::default()),
            Err(crate::Error::OutOfMemory { .. })
        ));
    }
}
