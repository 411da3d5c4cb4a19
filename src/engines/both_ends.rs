//! Counting from both ends, in whole big integers: the reference form of the join (docs/math.md,
//! "Counting from both ends").
//!
//! Bottom-up, c(k, h) for the plan's states of layers 2 to m; top-down, N(k, g), the number of paths
//! of the recurrence's edges from the target (n, G) to (k, g), for the layers above m; joined at the
//! cut m:
//!
//! ```text
//! c(n, G) = sum over k > m, g of N(k, g) d(k, g)
//!         + sum over h of N_in(m, h) c(m, h) + sum over h of N_in(m - 1, h) c(m - 1, h)
//! ```
//!
//! with d(k, g) = [g == R] + [k >= 3][g == L] the direct moves, N_in(m, .) what layers m + 1 and
//! m + 2 pass to layer m, and N_in(m - 1, .) what layer m + 1 alone passes to layer m - 1. Every
//! cut gives the same value; this module is what a faster form of it is checked against (and what
//! `fibtree self-test` checks against the bottom-up count at every cut), and its cost model (the
//! limb additions of each half) says where the cut pays.

use std::collections::HashMap;

use num_bigint::BigUint;

use super::recurrence::{self, Layer};
#[cfg(test)]
use super::reference::limbs;
use super::reference::{Limbs, to_biguint};
use crate::error::{Error, Param, Result};
use crate::hooks::Hooks;
use crate::plan::Plan;

/// The exact c(n, g) for the one target (n, g) of `plan` (whose top layer is n), counted bottom-up
/// to layer `cut` and top-down from n to `cut + 1`, joined at the cut (1 <= cut <= n; n alone for
/// n < 2): `cut` = n is the bottom-up count, `cut` = 1 the top-down sum alone.
///
/// Cost: the reference engine's limb additions over layers 2 to `cut`, and over the layers above
/// it the same for N, whose values have at most limbs(n - k + 1) limbs at layer k; memory three
/// layers of each half, the top half's in hash maps of the states they reach.
///
/// # Errors
/// [`Error::InvalidArgument`] naming [`Param::N`] for a cut outside 1..=n;
/// [`Error::Interrupted`] when cancelled.
pub(crate) fn count(plan: &Plan, (n, g): (u64, u64), cut: u64, hooks: Hooks) -> Result<BigUint> {
    debug_assert_eq!(plan.top() as u64, n, "the plan's top layer is the target's");
    if n < 2 {
        return Ok(BigUint::ZERO);
    }
    if !(1..=n).contains(&cut) {
        return Err(Error::invalid(Param::N, format!("a cut from 1 to {n}, got {cut}")));
    }
    let (cut, n) = (cut as usize, n as usize);
    // top-down: N of the layers above the cut, handed down; what reaches layers cut and cut - 1 is kept
    let mut down: HashMap<usize, HashMap<u64, BigUint>> = HashMap::new();
    down.entry(n).or_default().insert(g, BigUint::from(1u32));
    let mut total = BigUint::ZERO;
    for k in (cut + 1..=n).rev() {
        hooks.check()?;
        let Some(layer) = down.remove(&k) else { continue };
        let (r, l) = (plan.edge_value(k - 2) as u64, plan.edge_value(k - 1) as u64);
        for (state, paths) in layer {
            let direct = u32::from(state == r) + u32::from(k >= 3 && state == l);
            if direct > 0 {
                total += &paths * direct;
            }
            for (to, e) in [(k - 1, r), (k - 2, l)] {
                if let Some(h) = (state ^ e).checked_sub(1).filter(|_| to >= 2) {
                    *down.entry(to).or_default().entry(h).or_default() += &paths;
                }
            }
        }
    }
    // bottom-up to the cut, keeping its two last layers
    let mut kept: [Option<Layer>; 2] = [None, None];
    if cut >= 2 {
        let [older, old] = recurrence::run_range(plan, &Limbs, Default::default(), 2..=cut, hooks, |_| {})?;
        kept = [Some(older).filter(|l| l.k + 1 == cut), Some(old).filter(|l| l.k == cut)];
    }
    // the join: what reached layers cut and cut - 1 from above, times their counts
    for (layer, at) in kept.iter().zip([cut - 1, cut]) {
        let (Some(layer), Some(reached)) = (layer, down.get(&at)) else { continue };
        for (h, paths) in reached {
            let value = layer.value(*h).expect("the plan holds every state a path reaches");
            total += paths * to_biguint(value);
        }
    }
    Ok(total)
}

/// The limb additions of a count from both ends over layers of `lens[k]` states (k from 0 to the top
/// layer n), cut at `cut`: the states of each layer k <= cut times limbs(k), as the bottom-up engine
/// runs them, and of each layer k > cut times limbs(n - k + 1), the widest N can be there. `cut` = n
/// gives the bottom-up run's ([`super::limb_additions`]). Cost O(n). (The tests hold the model to
/// the work it predicts; an engine from both ends in the blocked engine's lanes will choose its cut
/// by it.)
#[cfg(test)]
pub(crate) fn limb_additions(lens: &[u32], cut: usize) -> u128 {
    let n = lens.len().saturating_sub(1);
    let width = |k: usize| if k <= cut { limbs(k) } else { limbs(n - k + 1).max(1) };
    lens.iter().enumerate().skip(2).map(|(k, &len)| len as u128 * width(k) as u128).sum()
}

/// The cut with the least [`limb_additions`] over layers of `lens[k]` states, and those additions.
/// Cost O(n): the sums from both ends, each once.
#[cfg(test)]
pub(crate) fn best_cut(lens: &[u32]) -> (usize, u128) {
    let n = lens.len().saturating_sub(1);
    if n < 2 {
        return (n.max(1), 0);
    }
    // below[m]: the bottom half's additions over layers 2..=m; above[m]: the top half's over m+1..=n
    let mut below = vec![0u128; n + 1];
    for k in 2..=n {
        below[k] = below[k - 1] + lens[k] as u128 * limbs(k) as u128;
    }
    let mut above = vec![0u128; n + 2];
    for k in (2..=n).rev() {
        above[k - 1] = above[k] + lens[k] as u128 * limbs(n - k + 1).max(1) as u128;
    }
    (1..=n).map(|m| (m, below[m] + above[m])).min_by_key(|&(m, work)| (work, std::cmp::Reverse(m))).expect("a cut")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::targets::Targets;

    fn plan_of(n: u64, g: u64) -> Plan {
        Plan::new(&Targets::one(n, g), u64::MAX, Hooks::default()).unwrap()
    }

    /// Every cut, the ends and the layers next to 0, 1 and 2 among them, gives the bottom-up count,
    /// for small trees in full and for random (n, g) from a fixed, printed seed.
    #[test]
    fn every_cut_gives_the_bottom_up_count() {
        let seed = 0xb07e_4e4d;
        println!("SplitMix64 seed {seed:#x}");
        let mut rng = crate::rng::SplitMix64(seed);
        let mut cases: Vec<(u64, u64)> = (0..=12).flat_map(|n| (0..12).map(move |g| (n, g))).collect();
        cases.extend((0..12).map(|_| (2 + rng.below(400), rng.below(48))));
        cases.extend([(300, 1 << 40), (500, 0), (64, 5)]);
        for (n, g) in cases {
            let plan = plan_of(n, g);
            let want = crate::engines::count_exact(
                super::super::Engine::Reference,
                &plan,
                &Targets::one(n, g),
                Hooks::default(),
            )
            .unwrap()
            .remove(0);
            for cut in 1..=n.max(1) {
                let got = count(&plan, (n, g), cut, Hooks::default()).unwrap();
                assert_eq!(got, want, "c({n}, {g}) cut at {cut}, seed {seed:#x}");
            }
        }
    }

    #[test]
    fn the_oracle_agrees_from_both_ends() {
        for k in 2..=16u64 {
            let oracle = crate::oracles::explicit_tree_counts(k as u32).unwrap();
            for (g, &want) in oracle.iter().enumerate() {
                let plan = plan_of(k, g as u64);
                let got = count(&plan, (k, g as u64), k.div_ceil(2), Hooks::default()).unwrap();
                assert_eq!(got, BigUint::from(want), "c({k}, {g})");
            }
        }
    }

    #[test]
    fn a_cut_outside_the_layers_is_refused() {
        let plan = plan_of(30, 0);
        for cut in [0, 31, u64::MAX] {
            let got = count(&plan, (30, 0), cut, Hooks::default());
            assert!(matches!(got, Err(Error::InvalidArgument { param: Param::N, .. })), "{cut}: {got:?}");
        }
    }

    /// The cost model at the issue's sizes: the bottom-up run's additions at the top cut, and at
    /// n = 10000 a best cut near n / 2 with at most 0.70 of them (7.64e8 bottom-up).
    #[test]
    fn the_best_cut_halves_the_work_where_the_layers_are_wide() {
        let plan = plan_of(10_000, 0);
        let lens = plan.lens();
        assert_eq!(limb_additions(lens, 10_000), crate::engines::limb_additions(lens));
        assert_eq!(crate::engines::limb_additions(lens), 763_862_076);
        let (cut, work) = best_cut(lens);
        assert_eq!(work, limb_additions(lens, cut));
        assert!((1..=10_000).all(|m| limb_additions(lens, m) >= work));
        assert!((4000..6000).contains(&cut), "cut {cut}");
        let ratio = work as f64 / 763_862_076.0;
        assert!(ratio <= 0.70, "{work} limb additions from both ends, {ratio:.3} of bottom-up");
        println!("n = 10000: best cut {cut}, {work} limb additions, {ratio:.3} of bottom-up");
    }
}
