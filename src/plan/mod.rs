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
//! - the plan is closed under the recurrence: every state a marked state reads is marked.
//!
//! - [`layer_set`]: the bitsets and their images under a step, on whole words;
//! - [`backward`]: the backward pass, one loop that the plan and the census share;
//! - [`census`]: the plan's sizes counted without keeping it (what `fibtree estimate` reports);
//! - [`support`]: the forward pass of the g a move can leave, and the counts known to be zero.

mod backward;
mod census;
mod layer_set;
mod support;

pub(crate) use census::census;
pub use layer_set::LayerSet;
pub(crate) use layer_set::Step;
pub use support::known_zero;
pub(crate) use support::{known_zeros, support};

use crate::cost::check;
use crate::error::Result;
use crate::hooks::Hooks;
use crate::limits::Limit;
use crate::targets::Targets;
use backward::{Keep, backward};
use layer_set::EMPTY;

/// What a run's memory estimate depends on in its plan: what the memory guard's estimate of a run
/// takes ([`crate::budget::Run::bytes`]), from a prediction before the plan exists and from the plan
/// itself afterwards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Sizes {
    /// The plan's bytes.
    pub(crate) plan: u64,
    /// The states of its widest layer.
    pub(crate) widest: u64,
    /// The highest g of any layer's window, or edge value.
    pub(crate) highest: u64,
}

/// The bytes of a plan's bookkeeping per layer: one edge value and one (empty) set.
const PER_LAYER_BYTES: u64 = 4 + std::mem::size_of::<LayerSet>() as u64;

/// The bytes of a plan up to layer `top` whose layers are `window` values of g wide: its
/// bookkeeping a layer and one bit per g of each window. Cost O(1).
pub(crate) fn bytes_at(top: u64, window: u64) -> u64 {
    (top + 1).saturating_mul(PER_LAYER_BYTES + window / 8)
}

/// The share of `bytes`, the size of a plan up to layer `top`, that the plan holds when it keeps its
/// sets up to layer `keep` only ([`Plan::below`]): (keep + 1) / (top + 1) of it, the lower layers'
/// windows being no wider than the upper ones'. Cost O(1).
pub(crate) fn kept_share(bytes: u64, top: u64, keep: usize) -> u64 {
    let kept = keep.min(top as usize) as u128 + 1;
    (bytes as u128 * kept / (top as u128 + 1)) as u64
}

/// The states a set of targets needs, layer by layer, with the edge values `1 + G(k)` the
/// recurrence uses.
#[derive(Debug)]
pub struct Plan {
    edge: Vec<u32>,
    layers: Vec<LayerSet>,
    /// The number of states of each layer.
    lens: Vec<u32>,
}

impl Plan {
    /// The states needed to compute c(n, g) for every `(n, g)` in `targets`, checking `hooks`'
    /// cancel flags every layer.
    ///
    /// Cost: the backward pass, O(the layers' windows / 64) word operations (the sources' words,
    /// twice for the memory guard's projection; at most n x W / 64 for one target), after O(top n)
    /// for the Grundy values; memory one bit per g of each layer's window (for g = 0 the window is
    /// the smallest power of two above every G(k) + 1, 8192 at n = 10000: 10 MB in all) plus 4 bytes
    /// per layer for the Grundy values.
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] for an n above [`crate::game::MAX_N`];
    /// [`crate::Error::OutOfMemory`] as soon as the bitsets are projected to exceed `memory_limit`
    /// bytes; [`crate::Error::Interrupted`] once cancelled.
    pub fn new(targets: &Targets, memory_limit: impl Into<Limit>, hooks: Hooks) -> Result<Plan> {
        Plan::below(targets, usize::MAX, memory_limit, hooks)
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
        let memory_limit = memory_limit.into();
        let top = targets.top();
        crate::game::check_n(top)?;
        // Before allocating anything: the Grundy values, one set per layer and at least one word in
        // each are a floor under the plan's size; windows W wide, the size of a plan of one target.
        check(bytes_at(top, 64), memory_limit)?;
        let edge = crate::game::edge_values(top)?;
        let w = crate::game::window_of_edge(edge.iter().copied().max().unwrap_or(0));
        check(kept_share(bytes_at(top, w), top, keep), memory_limit)?;
        let layers = vec![LayerSet::default(); top as usize + 1];
        let lens = vec![0; top as usize + 1];
        let mut kept = Kept { layers, lens, used: bytes_at(top, 0), limit: memory_limit, keep };
        backward(targets, &edge, hooks, &mut kept)?;
        let Kept { layers, lens, .. } = kept;
        Ok(Plan { edge, layers, lens })
    }

    /// Frees the sets of the layers above `cut` and hands over those up to it, one lock each, to a
    /// count from both ends: its top-down half makes its own layers, and its bottom-up half frees
    /// each layer once it has read it. The plan keeps the layers' sizes and the edge values.
    /// Cost O(n).
    pub(crate) fn hand_over(&mut self, cut: usize) -> Vec<std::sync::Mutex<LayerSet>> {
        let mut handed = Vec::with_capacity(cut + 1);
        for (k, layer) in self.layers.iter_mut().enumerate() {
            let layer = std::mem::take(layer);
            if k <= cut {
                handed.push(std::sync::Mutex::new(layer));
            }
        }
        handed
    }

    /// The highest layer.
    pub fn top(&self) -> usize {
        self.layers.len() - 1
    }

    /// The states of layer `k`.
    pub fn layer(&self, k: usize) -> &LayerSet {
        &self.layers[k]
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

    /// The number of states of layer `k`. Cost O(1).
    pub fn layer_len(&self, k: usize) -> usize {
        self.lens[k] as usize
    }

    /// The largest number of states in one layer. Cost O(n).
    pub fn widest_layer(&self) -> usize {
        self.lens.iter().copied().max().unwrap_or(0) as usize
    }

    /// Bytes held by the plan.
    pub fn bytes(&self) -> u64 {
        4 * self.edge.len() as u64 + self.layers.iter().map(LayerSet::bytes).sum::<u64>()
    }

    /// The plan's [`Sizes`]: its bytes, its widest layer and the highest g of a window or edge.
    /// Cost O(n).
    pub(crate) fn sizes(&self) -> Sizes {
        let edges = self.edge.iter().copied().max().unwrap_or(0) as u64;
        let windows = self.layers.iter().filter(|l| l.window() > 0).map(|l| l.base() + l.window() as u64 - 1);
        Sizes { plan: self.bytes(), widest: self.widest_layer() as u64, highest: windows.fold(edges, u64::max) }
    }
}

/// The keeper of [`Plan::new`]: every layer (or those up to `keep`), and the memory guard's watch
/// over their bytes.
struct Kept {
    layers: Vec<LayerSet>,
    /// The number of states of every layer made.
    lens: Vec<u32>,
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
        [i + 1, i + 2].map(|k| self.layers.get(k).unwrap_or(&EMPTY))
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

    /// Past the limit once every layer below is projected as large as this one (those to be kept).
    fn keep(&mut self, i: usize, set: LayerSet) -> Result<()> {
        self.used += set.bytes();
        let below = (i.min(self.keep.saturating_add(1)) as u64).saturating_sub(2);
        check(self.used + set.bytes() * below, self.limit)?;
        self.lens[i] = set.len() as u32;
        self.layers[i] = set;
        // layer i + 2 is read by no layer below i: freed unless kept
        if i + 2 > self.keep
            && let Some(done) = self.layers.get_mut(i + 2)
        {
            self.used -= done.bytes();
            *done = LayerSet::default();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_count_at_10000_matches_math_md() {
        let plan = Plan::new(&crate::targets::Targets::new(&[(10_000, 0)]), u64::MAX, Hooks::default()).unwrap();
        let states = plan.states();
        assert!((16_600_000..16_800_000).contains(&states), "{states}");
        assert_eq!(plan.widest_layer(), 2048);
        assert!(plan.layers.iter().all(|l| l.iter().all(|g| g < 8192)));
    }

    #[test]
    fn plan_is_closed_under_the_recurrence() {
        for (n, g) in [(40u64, 0u64), (57, 9), (30, 1 << 40)] {
            let plan = Plan::new(&crate::targets::Targets::new(&[(n, g)]), u64::MAX, Hooks::default()).unwrap();
            assert!(plan.layer(n as usize).contains(g));
            for i in 3..=n as usize {
                for j in plan.layer(i).iter() {
                    let r = plan.edge_value(i - 2) as u64;
                    let l = plan.edge_value(i - 1) as u64;
                    if let Some(a) = (j ^ r).checked_sub(1) {
                        assert!(i - 1 < 2 || plan.layer(i - 1).contains(a));
                    }
                    if let Some(b) = (j ^ l).checked_sub(1) {
                        assert!(i - 2 < 2 || plan.layer(i - 2).contains(b));
                    }
                }
            }
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
            assert!(
                n < 10_000 || below.bytes() < full.bytes() * 6 / 10,
                "n = {n}: {} of {}",
                below.bytes(),
                full.bytes()
            );
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
