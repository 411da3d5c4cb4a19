//! The parity of every count against the closed form, c(n, g) mod 2 = [g < G(n)] (docs/math.md, "The
//! parity of a count"; `count_parity`): the exact and the modular engine over random (n, g) from fixed,
//! printed seeds, where the parity changes (g at G(n) - 1, G(n), G(n) + 1) and elsewhere; every g of a
//! whole distribution; the reports' own check, for counts known to be 0 too; and a perturbed parity,
//! which must fail the report. (The closed form against the recurrence mod 2, the oracles and random
//! rooted trees is tested beside it, in `src/game.rs`.)

use fibtree::{Counting, Error, Options, Parity, count, count_parity, distribution, grundy, mod_only};
use fibtree_util::SplitMix64;

/// Random (n, g) from `seed`, n below `max_n`, g in turn at G(n) - 1, G(n), G(n) + 1 and below
/// 2 G(n) + 2.
fn targets_near_g(seed: u64, cases: usize, max_n: u64) -> Vec<(u64, u64)> {
    let mut rng = SplitMix64(seed);
    (0..cases)
        .map(|case| {
            let n = rng.below(max_n);
            let value = grundy(n).unwrap_or(0);
            let g = [value.saturating_sub(1), value, value + 1, rng.below(2 * value + 2)][case % 4];
            (n, g)
        })
        .collect()
}

#[test]
fn exact_and_modular_counts_have_the_closed_forms_parity() {
    let seed = 0x09a1_7e5e_ed00_u64;
    println!("seed = {seed:#x}");
    let targets = targets_near_g(seed, 64, 6000);
    let reports = Counting::new(&targets, &Options::default()).unwrap().reports().unwrap();
    let residues = mod_only(&targets, &Options { moduli: vec![2], ..Options::default() }).unwrap();
    let mut odd = 0;
    for ((&(n, g), report), residues) in targets.iter().zip(&reports).zip(&residues) {
        let want = count_parity(n, g);
        assert_eq!(u8::from(report.value.bit(0)), want, "seed {seed:#x}: c({n}, {g}) = {}", report.value);
        assert_eq!(residues.residues[2], (2, u64::from(want)), "seed {seed:#x}: c({n}, {g}) mod 2, modular");
        assert_eq!(report.parity, Parity { residue: want, closed_form: want }, "c({n}, {g})");
        assert!(report.ok() && report.failures().is_empty(), "c({n}, {g})");
        odd += usize::from(want);
    }
    // both parities seen often, or the agreement would say little
    assert!((16..=48).contains(&odd), "seed {seed:#x}: {odd} of 64 odd");
}

/// Every g of c(2000, .): odd exactly below G(2000), so every g below it is in the support.
#[test]
fn every_g_of_a_distribution_has_the_closed_forms_parity() {
    let n = 2000;
    let dist = distribution(n).unwrap();
    let top = dist.last().unwrap().0;
    let value = grundy(n).unwrap();
    assert!(value > 64 && top > value, "G({n}) = {value}, the support's top {top}");
    let mut entries = dist.iter().peekable();
    for g in 0..=top + 64 {
        let parity = entries.next_if(|e| e.0 == g).map_or(0, |e| u8::from(e.1.bit(0)));
        assert_eq!(parity, count_parity(n, g), "c({n}, {g})");
    }
    assert!(entries.next().is_none());
}

/// A count of 0, known without counting (g above every value a move can leave) or counted, is still
/// checked: the closed form says even there.
#[test]
fn counts_of_zero_are_even() {
    let targets = [(3000, 1 << 40), (3000, u64::MAX), (0, 0), (1, 0), (7, 0), (10, 14)];
    let reports = Counting::new(&targets, &Options::default()).unwrap().reports().unwrap();
    for (&(n, g), report) in targets.iter().zip(&reports) {
        assert_eq!(report.value, 0u32.into(), "c({n}, {g})");
        assert_eq!(report.parity, Parity { residue: 0, closed_form: 0 }, "c({n}, {g})");
        assert!(report.ok());
    }
    assert!(count(10, 13).unwrap().bit(0), "the last g below G(10) = 14 counts an odd number of moves");
}

/// The parity flipped as `count --test-perturb 2` flips it: the report fails, with the one error that
/// says so, and the projections still agree.
#[test]
fn a_perturbed_parity_fails_the_report() {
    let mut report = Counting::new(&[(50, 0)], &Options::default()).unwrap().reports().unwrap().remove(0);
    report.parity.closed_form ^= 1;
    assert!(!report.ok() && !report.parity.agrees());
    assert!(report.projections.iter().all(|p| p.agrees()));
    let failures = report.failures();
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(matches!(failures[0], Error::ParityCheck { n: 50, g: 0, exact: 1, closed_form: 0 }), "{failures:?}");
    let message = failures[0].to_string();
    assert!(message.starts_with("CROSS-CHECK FAILED for c(50, 0) mod 2: the exact value gives 1"), "{message}");
    assert!(message.contains("the closed form of G gives 0"), "{message}");
    // a projection off too: both said, the projection first
    report.projections[1].independent += 1;
    let failures = report.failures();
    assert!(matches!(failures[..], [Error::CrossCheck { .. }, Error::ParityCheck { .. }]), "{failures:?}");
}
