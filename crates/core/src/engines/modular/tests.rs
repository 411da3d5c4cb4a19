use std::sync::Mutex;
use std::sync::atomic::AtomicBool;

use num_bigint::BigUint;
use num_traits::ToPrimitive;

use super::dense::Shape;
use super::*;
use crate::kernels::Isa;
use crate::targets::Targets;

/// Small, prime, either side of the `u32` lanes' limit, 10^18 and a prime just below 2^63.
const MODULI: [u64; 8] =
    [2, 3, 998_244_353, (1 << 31) - 1, 1 << 31, 1_000_000_007, 1_000_000_000_000_000_000, (1 << 63) - 25];

/// Every dense variant (scalar and SIMD, `u64` and `u32` lanes) and `count_mod_with_plan` against
/// the generic engine over the targets' plan; returns the residues.
fn all_agree(targets: &[(u64, u64)]) -> Vec<Vec<u64>> {
    let targets = &Targets::new(targets);
    let plan = Plan::new(targets, u64::MAX, Hooks::default()).unwrap();
    let want = generic::run(&plan, targets, &MODULI, Hooks::default()).unwrap();
    assert_eq!(count_mod_with_plan(&plan, targets, &MODULI, Hooks::default()).unwrap(), want);
    // over the plan with its states of count zero (docs/math.md, "Zero states")
    let unthinned = Plan::unthinned(targets);
    assert_eq!(generic::run(&unthinned, targets, &MODULI, Hooks::default()).unwrap(), want, "{targets:?}");
    assert_eq!(count_mod_with_plan(&unthinned, targets, &MODULI, Hooks::default()).unwrap(), want, "{targets:?}");
    if let Some(got) = count_mod_unplanned(targets, &MODULI, Hooks::default()).unwrap() {
        assert_eq!(got, want, "unplanned, targets {targets:?}");
    }
    let Some(w) = dense_width(&plan, MODULI.len()) else {
        assert!(plan.top() < 2, "only a plan without layers above 1 is not dense: {targets:?}");
        return want;
    };
    for isa in Isa::available() {
        for narrow in [false, true] {
            let got = dense::run(&Shape::of_plan(&plan), targets, &MODULI, Hooks::default(), w, isa, narrow).unwrap();
            assert_eq!(got, want, "{isa:?}, narrow {narrow}, targets {targets:?}");
        }
    }
    want
}

fn residue(v: &BigUint, m: u64) -> u64 {
    (v % m).to_u64().unwrap()
}

#[test]
fn small_trees_match_the_explicit_tree() {
    for n in 0..=16u64 {
        let counts = fibtree_oracles::explicit_tree_counts(n as u32).unwrap();
        // every g with a move, and as many again above the support
        let targets: Vec<(u64, u64)> = (0..2 * counts.len() as u64 + 3).map(|g| (n, g)).collect();
        let got = all_agree(&targets);
        for (&(_, g), residues) in targets.iter().zip(&got) {
            let c = counts.get(g as usize).copied().unwrap_or(0);
            let want: Vec<u64> = MODULI.iter().map(|&m| c % m).collect();
            assert_eq!(residues, &want, "c({n}, {g})");
        }
    }
}

#[test]
fn one_target_at_a_time_for_n_2_3_4() {
    for n in 2..=4u64 {
        let counts = fibtree_oracles::explicit_tree_counts(n as u32).unwrap();
        assert_eq!(counts.iter().sum::<u64>(), [1, 3, 6][n as usize - 2], "|T(n)| - 1 moves");
        for g in 0..8 {
            let c = counts.get(g as usize).copied().unwrap_or(0);
            assert_eq!(all_agree(&[(n, g)]), [MODULI.map(|m| c % m)], "c({n}, {g})");
        }
    }
}

#[test]
fn table_of_f_up_to_300() {
    let targets: Vec<(u64, u64)> = (0..=300).map(|k| (k, 0)).collect();
    let got = all_agree(&targets);
    assert!(got[0].iter().chain(&got[1]).all(|&r| r == 0), "layers 0 and 1 have no moves");
    let f = |k: usize| got[k][2]; // mod 998244353: the small values themselves
    assert_eq!((1..=7).map(f).collect::<Vec<_>>(), [0, 1, 1, 1, 1, 3, 0]);
    assert_eq!(f(10), 17);
}

#[test]
fn other_grundy_values() {
    all_agree(&[(300, 5)]);
    all_agree(&[(1000, 5), (999, 0), (700, 3), (2, 1)]);
}

#[test]
fn whole_distribution_sums_to_the_moves() {
    let n = 200;
    let targets: Vec<(u64, u64)> =
        crate::plan::support_set(n, Hooks::default()).unwrap().iter().map(|g| (n, g)).collect();
    let got = all_agree(&targets);
    let moves = crate::tree_size(n) - 1u32;
    for (j, &m) in MODULI.iter().enumerate() {
        let sum = got.iter().fold(0, |s, r| add_mod(s, r[j], m));
        assert_eq!(sum, residue(&moves, m), "mod {m}");
    }
}

#[test]
fn public_values_at_10000() {
    let targets = Targets::new(&[(10_000, 0)]);
    let plan = Plan::new(&targets, u64::MAX, Hooks::default()).unwrap();
    let moduli = [1_000_000_000_000_000_000, 998_244_353];
    let w = dense_width(&plan, 2).unwrap();
    assert_eq!(w, 8192, "docs/math.md: every g below 8192");
    for isa in Isa::available() {
        for narrow in [false, true] {
            let got = dense::run(&Shape::of_plan(&plan), &targets, &moduli, Hooks::default(), w, isa, narrow).unwrap();
            assert_eq!(got, [[438_505_383_468_410_633, 163_314_502]], "{isa:?}, narrow {narrow}");
        }
    }
}

#[test]
fn a_target_far_above_every_grundy_value_runs_the_generic_engine() {
    // (A plan mixing such a target with g = 0 would need a window from 0 to 2^40.)
    for targets in [[(30, 1 << 40)], [(1000, (1 << 40) + 5)], [(10, u64::MAX)]] {
        let targets = Targets::new(&targets);
        let plan = Plan::new(&targets, u64::MAX, Hooks::default()).unwrap();
        assert_eq!(dense_width(&plan, MODULI.len()), None, "{targets:?}");
        let got = count_mod_with_plan(&plan, &targets, &MODULI, Hooks::default()).unwrap();
        assert_eq!(got, generic::run(&plan, &targets, &MODULI, Hooks::default()).unwrap());
        assert_eq!(got, [[0; MODULI.len()]], "no move of T(n) leaves such a value");
        let bytes = memory_bytes(&plan, MODULI.len(), targets.len());
        assert!(bytes < 1 << 20, "{bytes}");
    }
}

#[test]
fn dense_width_and_memory() {
    let plan = Plan::new(&crate::targets::Targets::new(&[(10, 0)]), u64::MAX, Hooks::default()).unwrap();
    assert_eq!(dense_width(&plan, 1), Some(64));
    assert_eq!(memory_bytes(&plan, 2, 1), dense_bytes(64, 2) + 16);
    for trivial in [[(0, 0)], [(1, 5)]] {
        let trivial = Targets::new(&trivial);
        let plan = Plan::new(&trivial, u64::MAX, Hooks::default()).unwrap();
        assert_eq!(dense_width(&plan, 1), None);
        assert_eq!(count_mod_with_plan(&plan, &trivial, &[7, 11], Hooks::default()).unwrap(), [[0, 0]]);
    }
    // 2^25 lanes of three arrays for one modulus is 768 MiB: too much.
    let plan = Plan::new(&crate::targets::Targets::new(&[(40, 1 << 25)]), u64::MAX, Hooks::default()).unwrap();
    assert_eq!(dense_width(&plan, 1), None);
    let plan = Plan::new(&crate::targets::Targets::new(&[(40, 1 << 20)]), u64::MAX, Hooks::default()).unwrap();
    assert_eq!(dense_width(&plan, 1), Some(1 << 21));
    assert_eq!(dense_width(&plan, 6), None);
}

#[test]
fn bad_moduli_are_refused() {
    let plan = Plan::new(&crate::targets::Targets::new(&[(10, 0)]), u64::MAX, Hooks::default()).unwrap();
    for m in [0, 1, 1 << 63, u64::MAX] {
        let result = count_mod_with_plan(&plan, &Targets::one(10, 0), &[7, m], Hooks::default());
        assert!(matches!(result, Err(Error::InvalidArgument { param: Param::Modulus, .. })), "{m}: {result:?}");
    }
}

#[test]
fn cancel_and_progress() {
    let targets = Targets::new(&[(2000, 0)]);
    let plan = Plan::new(&targets, u64::MAX, Hooks::default()).unwrap();
    let cancel = AtomicBool::new(true);
    let hooks = Hooks::default().cancel_on(&cancel);
    assert!(matches!(count_mod_with_plan(&plan, &targets, &[7, 11], hooks), Err(Error::Interrupted)));

    let calls = Mutex::new(Vec::new());
    let record = |name: &str, done: u64, total: u64| calls.lock().unwrap().push((name.to_string(), done, total));
    let hooks = Hooks::default().progress_to(&record);
    count_mod_with_plan(&plan, &targets, &[7, 11], hooks).unwrap();
    let calls = calls.into_inner().unwrap();
    // the work is told in lanes: at least every state, at most every g of the windows (in blocks of
    // 64 lanes of each class's array)
    let total = calls[0].2;
    let windows: u64 = (2..=2000).map(|k| plan.layer(k).window() as u64 + 4 * 128).sum();
    assert!((2 * plan.states()..=2 * windows).contains(&total), "{total} lanes, {} states", plan.states());
    assert!(calls.iter().all(|c| c.0 == "modular" && c.2 == total), "{calls:?}");
    assert_eq!(calls.iter().map(|c| c.1).max(), Some(total), "the last call says all is done");
}

/// The classes of g modulo 4 kept per layer hold every class of the plan's members (so that the
/// sweep over them is closed under the recurrence); for f(n) exactly the classes of the plan with
/// its states of count zero, at most one a layer at n = 10000 (a quarter of the lanes of every g),
/// two at n = 2000.
#[test]
fn classes_cover_the_plan() {
    let cases =
        [vec![(2000u64, 0u64)], vec![(10_000, 0)], vec![(300, 5), (299, 2), (10, 3)], vec![(500, 1 << 20), (400, 7)]];
    for targets in cases.iter().map(|t| Targets::new(t)) {
        let (plan, unthinned) = (Plan::new(&targets, u64::MAX, Hooks::default()).unwrap(), Plan::unthinned(&targets));
        let edge: Vec<u32> = (0..=plan.top()).map(|k| plan.edge_value(k)).collect();
        let kept = dense::classes(&edge, &targets);
        for (k, &kept) in kept.iter().enumerate().skip(2) {
            let thinned = plan.layer(k).iter().fold(0u8, |c, g| c | 1 << (g % 4));
            let members = unthinned.layer(k).iter().fold(0u8, |c, g| c | 1 << (g % 4));
            assert_eq!(members & thinned, thinned, "layer {k} of {targets:?}");
            assert_eq!(kept & members, members, "layer {k} of {targets:?}");
            if let [(n, 0)] = targets[..] {
                assert_eq!(kept, members, "layer {k} of {targets:?}");
                assert!(members.count_ones() <= if n == 10_000 { 1 } else { 2 }, "layer {k} of {targets:?}");
            }
        }
    }
}
