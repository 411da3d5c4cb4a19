//! The census of a plan: its sizes counted layer by layer without keeping it (what `fibtree
//! estimate` reports), by the backward pass with two layers kept, or, for targets below W, by
//! whole-array passes compiled for the instruction set.

use super::arrays::{back_image_into, words_below};
use super::backward::{Keep, backward};
use super::layer_set::LayerSet;
use super::packed::Packed;
use super::thinning::{Support, Walk};
use super::{Sizes, support_bytes};
use crate::error::Result;
use crate::hooks::Hooks;
use crate::targets::Targets;

/// The sizes of the plan of a set of targets, counted layer by layer without keeping the plan:
/// what [`Plan::new`] would hold, in two layers' memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Census {
    /// The number of states of each layer, 0 to the top.
    pub(crate) lens: Vec<u32>,
    /// The bytes [`Plan::bytes`] would give.
    pub(crate) plan_bytes: u64,
    /// The highest g of any layer's window, or edge value (as in [`Sizes::highest`]).
    pub(crate) highest: u64,
}

impl Census {
    /// The largest number of states in one layer. Cost O(n).
    pub(crate) fn widest_layer(&self) -> u64 {
        self.lens.iter().copied().max().unwrap_or(0) as u64
    }

    /// The plan's [`Sizes`], as [`Plan::sizes`] would give them.
    pub(crate) fn sizes(&self) -> Sizes {
        Sizes { plan: self.plan_bytes, widest: self.widest_layer(), highest: self.highest, held: None }
    }
}

/// The [`Census`] of the plan of `targets`: every layer of [`Plan::new`] made in turn, from the top
/// down, thinned as the plan thins it (by the support below W, in its checkpoints), counted and
/// dropped once the two layers below it are made.
///
/// Cost: the time of [`Plan::new`], O(n x window / 64) word operations (for targets below W, as for
/// g = 0, whole-array passes of n x W / 64 words, and the support's two forward passes), without
/// its memory: two layers' bitsets (W / 8 bytes each), the support's checkpoints (about 2 sqrt(n)
/// layers, [`Support::bytes_for`]) and 8 bytes a layer for the edge values and the counts.
///
/// # Errors
/// [`crate::Error::InvalidArgument`] for an n above [`crate::game::MAX_N`];
/// [`crate::Error::Interrupted`] once cancelled (checked every layer).
pub(crate) fn census(targets: &Targets, hooks: Hooks) -> Result<Census> {
    census_in(targets, crate::kernels::chosen::dense_isa(), hooks)
}

/// [`census`] with its kernel compiled for `isa`.
fn census_in(targets: &Targets, isa: crate::kernels::Isa, hooks: Hooks) -> Result<Census> {
    let top = targets.top();
    crate::game::check_n(top)?;
    let edge = crate::game::edge_values(top)?;
    let max_edge = edge.iter().copied().max().unwrap_or(0);
    let w = crate::game::window_of_edge(max_edge);
    // the plan's thinning: the support below W where it is kept, with its bytes
    let kept = support_bytes(targets, w);
    let support = if kept > 0 { Some(Support::new(&edge, w, isa, hooks)?) } else { None };
    let mut walk = support.as_ref().map(Walk::new);
    if targets.g_range().1 < w {
        let below = CensusBelow { targets: targets.to_vec(), edge: &edge, w: w as usize, support: walk, hooks };
        let mut census = crate::kernels::compiled(isa, below)?;
        census.plan_bytes += kept;
        return Ok(census);
    }
    let plan_bytes = 4 * (top + 1) + kept;
    let census = Census { lens: vec![0u32; top as usize + 1], plan_bytes, highest: max_edge as u64 };
    let mut counted = Counted { census, above: [LayerSet::default(), LayerSet::default()] };
    backward(targets, &edge, hooks, walk.as_mut(), &mut counted)?;
    Ok(counted.census)
}

/// The keeper of the census: the sizes of every layer, and the last two layers.
struct Counted {
    census: Census,
    /// Layers i + 1 and i + 2 as layer i is made.
    above: [LayerSet; 2],
}

impl Keep for Counted {
    fn above(&self, _i: usize) -> [&LayerSet; 2] {
        [&self.above[0], &self.above[1]]
    }

    fn keep(&mut self, i: usize, set: LayerSet) -> Result<()> {
        let census = &mut self.census;
        census.lens[i] = set.len() as u32;
        census.plan_bytes += Packed::bytes_of(set.words());
        if set.window() > 0 {
            census.highest = census.highest.max(set.base() + set.window() as u64 - 1);
        }
        let [above1, _] = std::mem::take(&mut self.above);
        self.above = [set, above1];
        Ok(())
    }
}

/// The census where every target's g is below `w`, the smallest power of two (at least 64) above
/// every edge value (`edge`, 0 to the top layer): every state of the plan is then below `w` too
/// (xor with a value below `w` and subtracting one cannot leave [0, w)), so each layer is a bitset
/// of w / 64 words at fixed places, and its image a few passes over whole arrays that the compiler
/// vectorises (the swaps of [`xor_bits`](super::layer_set::xor_bits) over blocks of eight words at
/// once), where [`LayerSet::image`] goes word by word. Each layer is thinned by the support's
/// `walk`, where given, as the plan's is (the targets kept). `targets` is sorted.
///
/// Cost: O(n x w / 64) word operations, seven passes of w / 64 words a layer (clearing, the xor and
/// the shift of each of two images, the thinning, counting) and the support's walk down; memory
/// four arrays of w / 64 words, and 4 bytes a layer. Compiled for the instruction set in use
/// ([`crate::kernels::compiled`]), for its vectors and `popcnt`.
struct CensusBelow<'a> {
    targets: Vec<(u64, u64)>,
    edge: &'a [u32],
    w: usize,
    support: Option<Walk<'a>>,
    hooks: Hooks<'a>,
}

impl crate::kernels::Kernel for CensusBelow<'_> {
    type Output = Result<Census>;

    #[inline(always)]
    fn run(self) -> Result<Census> {
        census_below(self.targets, self.edge, self.w, self.support, self.hooks)
    }
}

/// The loop of [`CensusBelow`].
#[inline(always)]
fn census_below(
    mut targets: Vec<(u64, u64)>,
    edge: &[u32],
    w: usize,
    mut support: Option<Walk>,
    hooks: Hooks,
) -> Result<Census> {
    let n = edge.len() - 1;
    // at least a block of back_image_into: the words above w stay empty
    let words = words_below(w as u64);
    let mut lens = vec![0u32; n + 1];
    let mut plan_bytes = 4 * (n as u64 + 1);
    let mut highest = edge.iter().copied().max().unwrap_or(0) as u64;
    // layers i + 1 and i + 2 (and whether they have a member) as layer i is made, and scratch
    let (mut above1, mut above2) = ((vec![0u64; words], false), (vec![0u64; words], false));
    let mut cur = vec![0u64; words];
    let mut image = vec![0u64; words + 1];
    for i in (2..=n).rev() {
        hooks.check()?;
        cur.fill(0);
        for ((set, any), e) in [(&above1, i - 1), (&above2, i + 1)] {
            if *any {
                back_image_into(&mut cur, set, edge[e] as usize, &mut image);
            }
        }
        if let Some(walk) = &mut support {
            cur.iter_mut().zip(walk.layer(i, hooks)?).for_each(|(c, &s)| *c &= s);
        }
        while let Some((_, g)) = targets.pop_if(|t| t.0 as usize == i) {
            cur[g as usize / 64] |= 1 << (g % 64);
        }
        let count: u64 = cur.iter().map(|w| w.count_ones() as u64).sum();
        lens[i] = count as u32;
        if count > 0 {
            let first = cur.iter().position(|&w| w != 0).expect("a member");
            let last = cur.iter().rposition(|&w| w != 0).expect("a member");
            plan_bytes += Packed::bytes_of(&cur[first..=last]);
            highest = highest.max(64 * (last as u64 + 1) - 1);
        }
        // roll: layer i + 2 <- i + 1 <- i, the oldest buffer reused
        std::mem::swap(&mut above2, &mut above1);
        std::mem::swap(&mut above1.0, &mut cur);
        above1.1 = count > 0;
    }
    Ok(Census { lens, plan_bytes, highest })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_census_counts_what_the_plan_holds() {
        let cases: Vec<Vec<(u64, u64)>> = vec![
            vec![(0, 0)],
            vec![(2, 0), (3, 1)],
            vec![(3000, 0)],
            vec![(12_000, 0), (11_999, 3)],
            vec![(1200, 5), (1100, 0), (1200, 7), (40, 9)],
            vec![(333, 1 << 40)],
            (0..=300).map(|k| (k, k % 5)).collect(),
        ];
        for targets in &cases {
            let plan = crate::plan::Plan::new(&Targets::new(targets), u64::MAX, Hooks::default()).unwrap();
            for isa in crate::kernels::Isa::available() {
                let census = census_in(&Targets::new(targets), isa, Hooks::default()).unwrap();
                assert_eq!(census.lens, plan.lens(), "{targets:?} with {isa:?}");
                assert_eq!(census.lens.iter().map(|&l| l as u64).sum::<u64>(), plan.states());
                assert_eq!(census.sizes(), plan.sizes(), "{targets:?} with {isa:?}");
            }
        }
    }
}
