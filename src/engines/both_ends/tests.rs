//! The counts from both ends against the bottom-up count, at every cut.

use num_bigint::BigUint;

use super::cut::best_cut;
use super::*;
use crate::cost::{both_ends_limb_additions, limb_additions};
use crate::engines::Engine;
use crate::engines::blocked::sweeps::Tuning;
use crate::error::{Error, Param};
use crate::hooks::Hooks;
use crate::plan::Plan;
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
    let mut rng = fibtree_util::SplitMix64(seed);
    let mut cases: Vec<(u64, u64)> = (0..=12).flat_map(|n| (0..12).map(move |g| (n, g))).collect();
    cases.extend((0..12).map(|_| (2 + rng.below(400), rng.below(48))));
    cases.extend([(300, 1 << 40), (500, 0), (64, 5)]);
    for (n, g) in cases {
        let plan = plan_of(n, g);
        let want = crate::engines::count_exact(Engine::Reference, &plan, &Targets::one(n, g), Hooks::default())
            .unwrap()
            .remove(0);
        for cut in 1..=n.max(1) {
            let got = count(&plan, (n, g), cut, Hooks::default()).unwrap();
            assert_eq!(got, want, "c({n}, {g}) cut at {cut}, seed {seed:#x}");
        }
    }
}

/// The blocked engine's halves give the reference's value at every cut, ends included, for
/// random (n, g) from a fixed, printed seed, on every kernel set the CPU has and chunks of every
/// size.
#[test]
fn the_blocked_halves_agree_at_every_cut() {
    let seed = 0x5eed_b0e5;
    println!("SplitMix64 seed {seed:#x}");
    let mut rng = fibtree_util::SplitMix64(seed);
    let mut cases: Vec<(u64, u64)> = vec![(3, 0), (4, 1), (5, 0), (40, 0), (64, 5), (300, 1 << 40), (700, 0)];
    cases.extend((0..8).map(|_| (3 + rng.below(500), rng.below(40))));
    for (n, g) in cases {
        let plan = plan_of(n, g);
        let want = count(&plan, (n, g), n, Hooks::default()).unwrap();
        let cuts: Vec<u64> = if n <= 64 { (2..=n).collect() } else { vec![2, 3, 4, n / 3, n / 2, n - 2, n - 1, n] };
        for cut in cuts {
            for isa in crate::arch::Kernel::available() {
                for chunk_lanes in [1, 4, 16] {
                    let tune = |t| Tuning { isa, chunk_lanes, ..t };
                    let got = count_blocked(&plan, (n, g), cut, Hooks::default(), tune).unwrap();
                    assert_eq!(got, want, "c({n}, {g}) cut at {cut}, {isa:?}, {chunk_lanes} lanes, seed {seed:#x}");
                }
            }
        }
    }
}

/// The same count from both ends on 1, 2, 3 and 8 threads (chunks cut smaller for more
/// threads, the halves' tasks interleaved differently).
#[test]
fn the_halves_give_the_same_count_on_any_threads() {
    let (n, g) = (900, 3);
    let plan = plan_of(n, g);
    let want = count(&plan, (n, g), n, Hooks::default()).unwrap();
    let (cut, _) = best_cut(plan.lens());
    for threads in [1, 2, 3, 8] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let got = pool.install(|| count_blocked(&plan, (n, g), cut as u64, Hooks::default(), |t| t)).unwrap();
        assert_eq!(got, want, "{threads} threads, cut at {cut}");
    }
}

/// A cancelled count from both ends stops with [`Error::Interrupted`], not a value.
#[test]
fn a_cancelled_count_from_both_ends_is_interrupted() {
    let plan = plan_of(2000, 0);
    let cancel = std::sync::atomic::AtomicBool::new(true);
    let hooks = Hooks::default().cancel_on(&cancel);
    let got = count_blocked(&plan, (2000, 0), 1000, hooks, |t| t);
    assert!(matches!(got, Err(Error::Interrupted)), "{got:?}");
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

/// The cost model at n = 10000: the bottom-up run's additions at the top cut, and a best cut near
/// n / 2 with at most 0.70 of them (6.21e8 bottom-up over the plan, 3.73e8 from both ends; over
/// the plan with its states of count zero, 7.64e8 and 5.15e8: docs/math.md, "Zero states").
#[test]
fn the_best_cut_halves_the_work_where_the_layers_are_wide() {
    let plan = plan_of(10_000, 0);
    let lens = plan.lens();
    assert_eq!(both_ends_limb_additions(lens, 10_000), limb_additions(lens));
    assert_eq!(limb_additions(lens), 620_736_444);
    let (cut, work) = best_cut(lens);
    assert_eq!(work, both_ends_limb_additions(lens, cut));
    assert!((1..=10_000).all(|m| both_ends_limb_additions(lens, m) >= work));
    assert!((4000..6000).contains(&cut), "cut {cut}");
    let ratio = work as f64 / 620_736_444.0;
    assert!(ratio <= 0.70, "{work} limb additions from both ends, {ratio:.3} of bottom-up");
    println!("n = 10000: best cut {cut}, {work} limb additions, {ratio:.3} of bottom-up");
    let unthinned = Plan::unthinned(&Targets::one(10_000, 0));
    assert_eq!(limb_additions(unthinned.lens()), 763_862_076);
    assert_eq!(best_cut(unthinned.lens()).1, 514_742_749);
    assert!(work <= 514_742_749 * 78 / 100, "{work}: the states of count zero left out");
}
