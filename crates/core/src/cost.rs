//! The cost formulas, written once: what the engines' work and a run's memory come to from the game
//! and the plan's layer sizes alone. The limbs of a count ([`limbs`]); the limb additions of a count
//! bottom-up ([`limb_additions`]) and from both ends ([`both_ends_limb_additions`]); the blocks of a
//! walk over the moves ([`block_of`], [`CACHED_BLOCKS`]); and the memory guard's one rule, the
//! refusal of an estimate past its limit ([`check`], [`refuse`]). The engines, the plan and the
//! guard read them; none of them is read here.

use crate::error::{Error, Param, Result};
use crate::game::count_bits_bound;
use crate::limit::Limit;

/// Limbs per value of layer `k`: enough for every count c(k, g) <= |T(k)| - 1. Cost O(1).
pub(crate) fn limbs(k: usize) -> usize {
    count_bits_bound(k as u64).div_ceil(64) as usize
}

/// The 64-bit limb additions of the exact engine over layers of `lens[k]` states (k from 0 to the top
/// layer): the sum over the layers k from 2 up of the states times the limbs of a count of layer k.
/// 620,736,444 for the plan of (10000, 0), over its 10.4 million states. Cost O(n).
pub(crate) fn limb_additions(lens: &[u32]) -> u128 {
    lens.iter().enumerate().skip(2).map(|(k, &len)| len as u128 * limbs(k) as u128).sum()
}

/// The limb additions of a count from both ends over layers of `lens[k]` states (k from 0 to the top
/// layer n), cut at `cut`: the states of each layer k <= cut times limbs(k), as the bottom-up engine
/// runs them, and of each layer k > cut times limbs(n - k + 1), the widest N can be there. `cut` = n
/// gives the bottom-up run's ([`limb_additions`]). Cost O(n).
pub(crate) fn both_ends_limb_additions(lens: &[u32], cut: usize) -> u128 {
    both_ends_layers(lens, cut).map(|(len, limbs)| len * limbs).sum()
}

/// Each layer k from 2 up of a count from both ends over layers of `lens[k]` states, cut at `cut`:
/// its states and the limbs of each (limbs(k) up to the cut, limbs(n - k + 1) above it). Cost O(1)
/// a layer.
fn both_ends_layers(lens: &[u32], cut: usize) -> impl Iterator<Item = (u128, u128)> + '_ {
    let n = lens.len().saturating_sub(1);
    let width = move |k: usize| if k <= cut { limbs(k) } else { limbs(n - k + 1).max(1) };
    lens.iter().enumerate().skip(2).map(move |(k, &len)| (len as u128, width(k) as u128))
}

/// The width at which the limb additions of a count from both ends (as [`both_ends_limb_additions`])
/// are made, on average: the states of each layer weighted by the layer's limb additions. The level
/// of the cache a run's layers fall in follows it more closely than the widest layer's (f(100000)'s
/// widest layer has 24574 states, its limb additions are made at 16,623 on average). Cost O(n).
pub(crate) fn working_width(lens: &[u32], cut: usize) -> u64 {
    let (weighted, work) = both_ends_layers(lens, cut)
        .fold((0u128, 0u128), |(weighted, work), (len, limbs)| (weighted + len * limbs * len, work + len * limbs));
    weighted.checked_div(work).unwrap_or(0) as u64
}

/// Blocks of layers a walk over the moves keeps recomputed at once (`moves::Counts`): a walk
/// downwards needs one, a preorder listing that climbs back up a little needs a few.
pub(crate) const CACHED_BLOCKS: usize = 3;

/// The layers of a block of a walk over the moves of T(n) (`moves::Counts`): about sqrt(n). Cost
/// O(1).
pub(crate) fn block_of(n: u64) -> usize {
    ((n as f64).sqrt().ceil() as usize).max(2)
}

/// The refusal of a run whose `estimate` (bytes) exceeds `limit`: the one place it is made. It names
/// [`Param::N`], the parameter that makes a run this large.
pub(crate) fn refuse(estimate: u64, limit: Limit) -> Error {
    Error::OutOfMemory { param: Param::N, estimate, limit }
}

/// The memory guard's one rule: refuses a run whose `estimate` (bytes) exceeds `limit`. Cost O(1).
///
/// # Errors
/// [`Error::OutOfMemory`] ([`refuse`]) when `estimate > limit`.
pub(crate) fn check(estimate: u64, limit: Limit) -> Result<()> {
    if estimate > limit.bytes { Err(refuse(estimate, limit)) } else { Ok(()) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::Hooks;
    use crate::plan::Plan;

    #[test]
    fn limb_additions_of_t6_by_hand() {
        // From (6, 0), with 1 + G(k) = 0, 1, 2, 4, 7, 4, 4 for k = 0..6 and layer k reading
        // (k-1, (g xor (1 + G(k-2))) - 1) and (k-2, (g xor (1 + G(k-1))) - 1):
        // (6,0) -> (5,6), (4,3); (5,6) -> (4,1), (3,0); (4,3) -> (3,0), (2,6); (4,1) -> (3,2), (2,4);
        // (3,0) -> (2,0); (3,2) -> (2,2); layers 0 and 1 are never marked. T(2)'s one move leaves 0,
        // so (2, 2), (2, 4) and (2, 6) count zero and the plan leaves them out.
        let targets = crate::targets::Targets::new(&[(6, 0)]);
        let plan = Plan::new(&[(6, 0)], u64::MAX, Hooks::default()).unwrap();
        let layers = |plan: &Plan| -> Vec<Vec<u64>> { (2..=6).map(|k| plan.layer(k).iter().collect()).collect() };
        assert_eq!(layers(&Plan::unthinned(&targets)), [vec![0, 2, 4, 6], vec![0, 2], vec![1, 3], vec![6], vec![0]]);
        assert_eq!(layers(&plan), [vec![0], vec![0, 2], vec![1, 3], vec![6], vec![0]]);
        assert!((2..=6).all(|k| limbs(k) == 1), "every count of T(6) fits one limb");
        assert_eq!(limb_additions(plan.lens()), 1 + 2 + 2 + 1 + 1);
        // T(0) and T(1) have no layers to compute
        assert_eq!(limb_additions(Plan::new(&[(1, 0)], u64::MAX, Hooks::default()).unwrap().lens()), 0);
    }

    #[test]
    fn limb_additions_weighs_wide_layers_by_their_limbs() {
        let plan = Plan::new(&[(300, 0)], u64::MAX, Hooks::default()).unwrap();
        // |T(300)| - 1 < 2^211: 4 limbs at the top, 1 at the bottom
        assert_eq!((limbs(2), limbs(300)), (1, 4));
        let states = plan.states() as u128;
        let w = limb_additions(plan.lens());
        assert!(w > states && w < 4 * states, "{w} against {states} states");
    }

    #[test]
    fn the_working_width_weighs_layers_by_their_limb_additions() {
        // by hand: layers 2 and 3 of 10 and 30 states, one limb each (layers 0 and 1 hold no moves)
        assert_eq!(working_width(&[99, 99, 10, 30], 3), (10 * 10 + 30 * 30) / 40);
        // a plan's lies between its narrowest and widest layers that hold work
        let plan = Plan::new(&[(3000, 0)], u64::MAX, Hooks::default()).unwrap();
        let w = working_width(plan.lens(), 1500);
        let widest = *plan.lens().iter().max().unwrap() as u64;
        assert!(w > widest / 4 && w <= widest, "{w} against the widest {widest}");
        assert_eq!(working_width(&[], 0), 0);
    }
}
