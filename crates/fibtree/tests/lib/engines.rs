//! The library's engines: the exact engine (`count`, `distribution`) against the brute-force
//! oracles, against the modular engine (`count_mod`), against the sum invariant and the public
//! values, and across thread counts; and their refusals of a bad modulus, an N beyond them and a
//! run beyond the memory limit. (The verification ladder's rungs, which `self-test` runs, are
//! tested beside them, in `src/ladder.rs`, with the ranges these tests used to give them.)
//!
//! The public values are those of `docs/math.md` in this repository ("Known values (public)"): f(1..7) = 0, 1, 1, 1, 1,
//! 3, 0; f(10) = 17; f(10000) mod 10^18 = 438505383468410633, f(10000) mod 998244353 = 163314502,
//! and f(10000) has 2087 digits.

use fibtree::{Counting, Error, Options, Report, count, count_mod, distribution, grundy};
use fibtree_oracles::{explicit_tree_counts, first_principles_counts};
use num_bigint::BigUint;

use crate::common::*;

// ---------------------------------------------------------------------------------------------
// Public values (docs/math.md, "Known values (public)").
// ---------------------------------------------------------------------------------------------

/// The report of c(n, g) from a counting run of that one target.
fn count_report(n: u64, g: u64, options: &Options) -> fibtree::Result<Report> {
    Ok(Counting::new(&[(n, g)], options)?.reports()?.remove(0))
}

#[test]
fn public_small_values() {
    let want = [0u32, 1, 1, 1, 1, 3, 0];
    for (k, &w) in (1..=7u64).zip(want.iter()) {
        assert_eq!(count(k, 0).unwrap(), BigUint::from(w), "f({k})");
    }
    assert_eq!(count(10, 0).unwrap(), BigUint::from(17u32), "f(10)");
    assert_eq!(count(0, 0).unwrap(), BigUint::ZERO, "T(0) has no move");
}

#[test]
fn public_f10000_projections() {
    // docs/math.md: f(10000) mod 10^18 = 438505383468410633, mod 998244353 = 163314502, 2087 digits.
    let report = count_report(10_000, 0, &Options::default()).unwrap();
    assert!(report.ok(), "{:?}", report.projections);
    assert_eq!(report.digits(), 2087);
    assert_eq!(report.value.to_str_radix(10).len(), 2087);
    assert_eq!(residue(&report.value, LAST18), 438_505_383_468_410_633);
    assert_eq!(residue(&report.value, P998244353), 163_314_502);
    let p18 = report.projection(LAST18).unwrap();
    assert_eq!((p18.residue, p18.independent), (438_505_383_468_410_633, 438_505_383_468_410_633));
    let p998 = report.projection(P998244353).unwrap();
    assert_eq!((p998.residue, p998.independent), (163_314_502, 163_314_502));
    assert_eq!(report.projections.len(), 2);
    // The modular engine alone, without the exact one.
    assert_eq!(count_mod(10_000, 0, P998244353).unwrap(), 163_314_502);
    assert_eq!(count_mod(10_000, 0, LAST18).unwrap(), 438_505_383_468_410_633);
}

// ---------------------------------------------------------------------------------------------
// The oracles.
// ---------------------------------------------------------------------------------------------

#[test]
fn exact_engine_matches_explicit_oracle_up_to_25() {
    // every distribution up to 25, and each count on its own, up to 8 values of g past the support
    for k in 0..=25u32 {
        let oracle = explicit_tree_counts(k).unwrap();
        let want: Vec<(u64, BigUint)> =
            oracle.iter().enumerate().filter(|e| *e.1 > 0).map(|(g, &c)| (g as u64, BigUint::from(c))).collect();
        assert_eq!(distribution(u64::from(k)).unwrap(), want, "the distribution of T({k})");
        for g in 0..oracle.len() as u64 + 8 {
            assert_eq!(count(u64::from(k), g).unwrap(), oracle_at(&oracle, g), "c({k}, {g})");
        }
    }
}

#[test]
fn explicit_oracle_matches_first_principles_up_to_7() {
    for k in 0..=7 {
        assert_eq!(first_principles_counts(k).unwrap(), explicit_tree_counts(k).unwrap(), "every g of T({k})");
    }
    assert!(
        matches!(first_principles_counts(8), Err(fibtree_oracles::TooLarge { k: 8, max: 7, .. })),
        "first principles stop at 7"
    );
    // a disagreement would be seen: the two oracles do differ on a tree where the theory says they must not
    assert_ne!(explicit_tree_counts(7).unwrap(), first_principles_counts(6).unwrap());
}

#[test]
fn winning_moves_exist_iff_grundy_is_nonzero() {
    // Sprague-Grundy: a position of value 0 has no move to 0, any other has at least one.
    for k in 1..=300u64 {
        let f = count(k, 0).unwrap();
        let g = grundy(k).unwrap();
        assert_eq!(f == BigUint::ZERO, g == 0, "f({k}) = {f}, G({k}) = {g}");
    }
}

// ---------------------------------------------------------------------------------------------
// Invariants.
// ---------------------------------------------------------------------------------------------

#[test]
fn distribution_sums_to_the_number_of_moves() {
    for k in (0..=25u64).chain([100, 500, 1000]) {
        let dist = distribution(k).unwrap();
        let total: BigUint = dist.iter().map(|(_, c)| c).sum();
        assert_eq!(total, moves(k), "sum over g of c({k}, g)");
        assert!(dist.windows(2).all(|w| w[0].0 < w[1].0), "ascending g at k = {k}");
        assert!(dist.iter().all(|(_, c)| *c != BigUint::ZERO), "no zero entry at k = {k}");
    }
}

#[test]
fn support_at_2000_matches_math_md() {
    // docs/math.md: at N = 2000 the support has 13,084 entries and its largest g is 22,526.
    let dist = distribution(2000).unwrap();
    assert_eq!(dist.len(), 13_084);
    assert_eq!(dist.last().map(|e| e.0), Some(22_526));
    let total: BigUint = dist.iter().map(|(_, c)| c).sum();
    assert_eq!(total, moves(2000));
}

#[test]
fn distribution_agrees_with_count_and_count_mod() {
    let seed = 0x5EED_0D15_7000_0300u64;
    println!("seed = {seed:#x}");
    let mut rng = SplitMix64(seed);
    let n = 300;
    let dist = distribution(n).unwrap();
    for _ in 0..30 {
        let (g, c) = &dist[rng.range(0, dist.len() as u64) as usize];
        assert_eq!(&count(n, *g).unwrap(), c, "c({n}, {g})");
        assert_eq!(count_mod(n, *g, P998244353).unwrap(), residue(c, P998244353), "c({n}, {g})");
    }
    // A g just past the support, and every gap below it, counts 0.
    let top = dist.last().unwrap().0;
    assert_eq!(count(n, top + 1).unwrap(), BigUint::ZERO);
    let mut present = dist.iter().map(|e| e.0).peekable();
    for g in 0..=top {
        if present.peek() == Some(&g) {
            present.next();
        } else if g % 7 == 0 {
            assert_eq!(count(n, g).unwrap(), BigUint::ZERO, "c({n}, {g}) off the support");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Exact against modular.
// ---------------------------------------------------------------------------------------------

#[test]
fn counts_far_above_every_grundy_value_are_zero() {
    for g in [1u64 << 40, (1 << 62) + 12345, u64::MAX] {
        assert_eq!(count(3000, g).unwrap(), BigUint::ZERO, "c(3000, {g})");
    }
}

#[test]
fn report_projections_agree_for_extra_moduli() {
    let options = Options { moduli: vec![7, 1_000_000_007, P998244353, MERSENNE61, 7], ..Default::default() };
    let report = count_report(2000, 3, &options).unwrap();
    assert!(report.ok());
    let moduli: Vec<u64> = report.projections.iter().map(|p| p.modulus).collect();
    assert_eq!(moduli, vec![LAST18, P998244353, 7, 1_000_000_007, MERSENNE61], "order kept, repeats removed");
    for p in &report.projections {
        assert_eq!(p.residue, residue(&report.value, p.modulus));
        assert!(p.agrees());
    }
    assert_eq!(report.value, count(2000, 3).unwrap());
    assert_eq!((report.n, report.g), (2000, 3));
}

#[test]
fn perturbed_report_disagrees() {
    let mut report = count_report(50, 0, &Options::default()).unwrap();
    assert!(report.ok());
    // one independent residue off by one, as `count --test-perturb` makes it
    report.projections.iter_mut().filter(|p| p.modulus == P998244353).for_each(|p| p.independent += 1);
    assert!(!report.ok());
    assert!(report.projection(LAST18).unwrap().agrees());
    assert!(!report.projection(P998244353).unwrap().agrees());
}

// ---------------------------------------------------------------------------------------------
// Threads.
// ---------------------------------------------------------------------------------------------

#[test]
fn same_answer_with_1_2_and_4_threads() {
    let cases = [(3000u64, 0u64), (2500, 7), (1999, 5)];
    let mut answers: Vec<Vec<(BigUint, u64)>> = Vec::new();
    for threads in [1, 2, 4] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let got = cases
            .iter()
            .map(|&(n, g)| pool.install(|| (count(n, g).unwrap(), count_mod(n, g, MERSENNE61).unwrap())))
            .collect();
        answers.push(got);
    }
    for (i, &(n, g)) in cases.iter().enumerate() {
        assert_eq!(answers[0][i], answers[1][i], "c({n}, {g}): 1 thread against 2");
        assert_eq!(answers[0][i], answers[2][i], "c({n}, {g}): 1 thread against 4");
        assert_eq!(answers[0][i].1, residue(&answers[0][i].0, MERSENNE61));
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    assert_eq!(pool.install(|| distribution(400).unwrap()), distribution(400).unwrap());
}

// ---------------------------------------------------------------------------------------------
// Errors.
// ---------------------------------------------------------------------------------------------

#[test]
fn bad_moduli_are_invalid_arguments() {
    for m in [0u64, 1, 1 << 63, u64::MAX] {
        match count_mod(10, 0, m) {
            Err(Error::InvalidArgument { .. }) => {}
            other => panic!("count_mod(10, 0, {m}) gave {other:?}"),
        }
        let options = Options { moduli: vec![m], ..Default::default() };
        assert!(
            matches!(count_report(10, 0, &options), Err(Error::InvalidArgument { .. })),
            "count_report with modulus {m}"
        );
    }
    assert_eq!(count_mod(10, 0, 2).unwrap(), 1);
    assert_eq!(count_mod(10, 0, (1 << 63) - 1).unwrap(), 17);
}

#[test]
fn too_large_n_is_an_invalid_argument() {
    let n = fibtree::MAX_N + 1;
    assert!(matches!(count(n, 0), Err(Error::InvalidArgument { .. })));
    assert!(matches!(count_mod(n, 0, 7), Err(Error::InvalidArgument { .. })));
    assert!(matches!(distribution(n), Err(Error::InvalidArgument { .. })));
    assert_eq!(grundy(n), Some(1_431_655_765), "G takes any k: (2^31 = 6m + 2) 4m + 1");
    assert!(matches!(count_report(u64::MAX, 0, &Options::default()), Err(Error::InvalidArgument { .. })));
}

#[test]
fn memory_limit_gives_out_of_memory() {
    let options = Options { memory_limit: Some(1_000_000.into()), ..Default::default() };
    match count_report(10_000, 0, &options) {
        Err(Error::OutOfMemory { estimate, limit, .. }) => {
            let limit = limit.bytes();
            assert_eq!(limit, 1_000_000);
            assert!(estimate > limit, "estimate {estimate} should exceed the limit");
        }
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    // A limit that is ample for a small run.
    let options = Options { memory_limit: Some(100_000_000.into()), ..Default::default() };
    let report = count_report(100, 0, &options).unwrap();
    assert!(report.memory_estimate_bytes <= 100_000_000);
    assert_eq!(report.value, count(100, 0).unwrap());
}
