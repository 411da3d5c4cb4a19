//! The modular route of a set of claims: the residues of each (n, g) modulo its claims' moduli (each
//! below 2^63) by the modular engine alone, as `count --mod-only` computes them, each checked by a
//! second computation where one is cheap:
//!
//! - its residue modulo a multiple of the modulus, M = m 2^j, the largest in the lanes m runs in
//!   (below 2^31 where m < 2^30, in 32-bit lanes; else below 2^63, where m < 2^62), from the same
//!   run of the engine: the arithmetic of another modulus, at no more than twice the cost of m
//!   alone; reduced modulo m it must be the residue;
//! - the parity the closed form of G gives (c(n, g) is odd exactly where g < G(n)), which needs no
//!   engine: the residue modulo an even m, or modulo the multiple (always even), has the count's
//!   parity.
//!
//! An odd m of 2^62 or more has neither; its residue is the engine's alone.

use std::collections::{BTreeMap, BTreeSet};

use super::{Answer, Asked, Found, ModularResidue};
use crate::claims::Judged;
use crate::error::{Error, Result};
use fibtree_core::{MODULUS_LIMIT, count_parity};

/// The moduli the modular engine runs in narrow (`u32`) lanes: those below 2^31, whose sums fit.
const NARROW_LIMIT: u64 = 1 << 31;
use crate::options::Options;
use crate::run::residues_each;

/// The multiple of `m` its residue is computed modulo a second time: m 2^j (j >= 1), the largest in
/// the lanes m runs in: below 2^31 (the engine's 32-bit lanes) where m < 2^30, else below 2^63; or
/// `None` where m >= 2^62 (2 m would not fit). Cost O(1).
pub(crate) fn multiple_of(m: u64) -> Option<u64> {
    let below = if m < NARROW_LIMIT / 2 { NARROW_LIMIT } else { MODULUS_LIMIT };
    // m 2^j < below = 2^b exactly where j <= b - 1 - floor(log2 m)
    let j = below.trailing_zeros() - (64 - m.leading_zeros());
    (2..MODULUS_LIMIT / 2).contains(&m).then(|| m << j)
}

/// The residues of each of `targets` (all of whose moduli are below 2^63), by the modular engine, as
/// [`Found::Modular`] with its route into `answers`: one run over them all where it fits in
/// memory; else a run for each, and a target whose own run does not fit is refused with the reason.
///
/// # Errors
/// [`Error::ResidueCheck`] where a residue and its second computation disagree; the engine's
/// errors other than for memory.
pub(super) fn residues(
    asked: &Asked,
    targets: &[((u64, u64), Judged)],
    options: &Options,
    answers: &mut BTreeMap<(u64, u64), Answer>,
) -> Result<()> {
    if targets.is_empty() {
        return Ok(());
    }
    let all: Vec<(u64, u64)> = targets.iter().map(|t| t.0).collect();
    let found = match checked_residues(asked, &all, options) {
        Ok(found) => found.into_iter().map(Ok).collect(),
        Err(Error::OutOfMemory { .. }) => {
            let mut found = Vec::new();
            for &t in &all {
                match checked_residues(asked, &[t], options) {
                    Ok(mut one) => found.push(Ok(one.remove(0))),
                    Err(e @ (Error::OutOfMemory { .. } | Error::InvalidArgument { .. })) => found.push(Err(e)),
                    Err(e) => return Err(e),
                }
            }
            found
        }
        Err(e) => return Err(e),
    };
    for (&(t, judged), found) in targets.iter().zip(found) {
        let found = match found {
            Ok(residues) => Found::Modular { judged, residues },
            Err(e) => Found::Refused(e),
        };
        answers.insert(t, Answer { first_line: asked.targets[&t].first_line, found });
    }
    Ok(())
}

/// For each of `targets`, c(n, g) modulo each modulus m of its claims, by modulus, with c(n, g)
/// modulo the multiple of m where it has one: one run of the modular engine over them all, modulo
/// every m and multiple; each checked ([`check`]).
///
/// # Errors
/// As [`residues`], and the refusals for memory.
fn checked_residues(asked: &Asked, targets: &[(u64, u64)], options: &Options) -> Result<Vec<Vec<ModularResidue>>> {
    let claimed = |t: &(u64, u64)| -> Vec<u64> {
        asked.targets[t].moduli.iter().map(|&m| u64::try_from(m).expect("a modulus below 2^63")).collect()
    };
    let moduli: BTreeSet<u64> =
        targets.iter().flat_map(claimed).flat_map(|m| [Some(m), multiple_of(m)]).flatten().collect();
    let moduli: Vec<u64> = moduli.into_iter().collect();
    let (residues, _) = residues_each(targets, &moduli, options)?;
    let mut all = Vec::with_capacity(targets.len());
    for (&(n, g), residues) in targets.iter().zip(residues) {
        let of = |m: u64| residues[moduli.binary_search(&m).expect("every modulus ran")];
        let mut found = Vec::new();
        for m in claimed(&(n, g)) {
            let second = multiple_of(m).map(|multiple| (multiple, of(multiple)));
            check((n, g), m, of(m), second)?;
            found.push(ModularResidue { modulus: m, residue: of(m), second });
        }
        all.push(found);
    }
    Ok(all)
}

/// `multiple`, a multiple m 2^j of `m`, written so: `998244353 * 2`, `1000 * 2^21`. Cost O(1).
pub(crate) fn times_power_of_two(m: u64, multiple: u64) -> String {
    match (multiple / m).trailing_zeros() {
        1 => format!("{m} * 2"),
        j => format!("{m} * 2^{j}"),
    }
}

/// Checks `residue`, c(n, g) modulo `m` by the modular engine, against its second computations:
/// `second`, the multiple M of m and c(n, g) mod M, which reduced modulo m must be the residue; and
/// the closed form's parity, which the residue modulo M (even), or modulo m where m is even, must
/// have. Cost O(1).
///
/// # Errors
/// [`Error::ResidueCheck`] for the first that disagrees.
pub(crate) fn check((n, g): (u64, u64), m: u64, residue: u64, second: Option<(u64, u64)>) -> Result<()> {
    if let Some((multiple, of_multiple)) = second
        && of_multiple % m != residue
    {
        return Err(Error::ResidueCheck {
            what: format!("c({n}, {g}) mod {m}"),
            residue: residue.to_string(),
            by: format!("its run modulo {}", times_power_of_two(m, multiple)),
            independent: (of_multiple % m).to_string(),
        });
    }
    let parity = match second {
        Some((multiple, of_multiple)) => Some((multiple, of_multiple)),
        None if m.is_multiple_of(2) => Some((m, residue)),
        None => None,
    };
    let closed_form = count_parity(n, g);
    if let Some((modulus, of)) = parity
        && (of % 2) as u8 != closed_form
    {
        return Err(Error::ResidueCheck {
            what: format!("c({n}, {g}) mod 2"),
            residue: format!("{} (of {of} modulo {modulus})", of % 2),
            by: "the closed form of G".into(),
            independent: format!("{closed_form} (c(n, g) is odd exactly where g < G(n))"),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_multiple_is_the_largest_in_the_lanes_of_the_modulus() {
        assert_eq!(multiple_of(998_244_353), Some(998_244_353 << 1));
        assert_eq!(multiple_of(1_000_000_007), Some(2_000_000_014));
        assert_eq!(multiple_of(2), Some(1 << 30));
        assert_eq!(multiple_of(3), Some(3 << 29));
        assert_eq!(multiple_of((1 << 30) - 1), Some((1 << 31) - 2));
        assert_eq!(multiple_of(1 << 30), Some(1 << 62));
        assert_eq!(multiple_of(1_000_000_000_000_000_000), Some(8_000_000_000_000_000_000));
        assert_eq!(multiple_of((1 << 62) - 1), Some((1 << 63) - 2));
        assert_eq!(multiple_of(1 << 62), None);
        assert_eq!(multiple_of((1 << 63) - 25), None);
        for m in [2u64, 3, 7, 1000, 998_244_353, (1 << 30) - 1, 1 << 30, (1 << 31) + 1, (1 << 62) - 1] {
            let multiple = multiple_of(m).unwrap();
            let (low, high) = if m < 1 << 30 { (1 << 30, 1 << 31) } else { (1 << 62, 1 << 63) };
            assert!(multiple.is_multiple_of(m) && (multiple / m).is_power_of_two() && multiple / m >= 2, "{m}");
            assert!(multiple >= low && multiple < high, "{m}: {multiple}");
        }
    }

    /// The second computations catch a residue that is off: its multiple's residue, reduced, and
    /// the closed form's parity, each alone; the true residues pass.
    #[test]
    fn a_perturbed_residue_is_caught() {
        let (n, g) = (300, 0);
        let p = crate::P998244353;
        let multiple = multiple_of(p).unwrap();
        let (residue, of_multiple) = (crate::count_mod(n, g, p).unwrap(), crate::count_mod(n, g, multiple).unwrap());
        check((n, g), p, residue, Some((multiple, of_multiple))).unwrap();
        // the residue off by one, or the multiple's: their reductions disagree
        for (r, m) in [((residue + 1) % p, of_multiple), (residue, of_multiple + 1)] {
            let error = check((n, g), p, r, Some((multiple, m))).unwrap_err();
            assert!(matches!(&error, Error::ResidueCheck { what, .. } if what == "c(300, 0) mod 998244353"), "{error}");
            assert!(error.to_string().contains("its run modulo 998244353 * 2 gives"), "{error}");
        }
        // both off by the same multiple of p: they agree with each other, not with the parity
        let error = check((n, g), p, residue, Some((multiple, (of_multiple + p) % multiple))).unwrap_err();
        assert!(error.to_string().starts_with("CROSS-CHECK FAILED for c(300, 0) mod 2:"), "{error}");
        // an even modulus with no multiple: its own residue's parity
        let m = 1 << 62;
        let r = crate::count_mod(n, g, m).unwrap();
        check((n, g), m, r, None).unwrap();
        assert!(check((n, g), m, r ^ 1, None).unwrap_err().to_string().contains("the closed form of G gives"));
        // an odd one with none: nothing to check it by
        check((n, g), (1 << 63) - 25, 12345, None).unwrap();
    }

    /// The route as a whole: a claims run's residues agree with `count_mod`, and name their multiple.
    #[test]
    fn the_modular_route_computes_and_checks_every_modulus() {
        let mut asked = Asked::default();
        for (n, m) in [(300u64, 7u128), (300, 1_000_000_007), (200, 1 << 62), (200, (1 << 63) - 25)] {
            asked.add(&crate::claims::Claim { line: 1, n, g: 0, modulus: Some(m), answer: 0u32.into() });
        }
        let targets = [(200, 0), (300, 0)];
        let found = checked_residues(&asked, &targets, &Options::default()).unwrap();
        for (&(n, g), found) in targets.iter().zip(&found) {
            for &ModularResidue { modulus: m, residue, second } in found {
                assert_eq!(residue, crate::count_mod(n, g, m).unwrap(), "c({n}, {g}) mod {m}");
                assert_eq!(second.map(|s| s.0), multiple_of(m));
                assert_eq!(
                    second.map(|s| s.1),
                    multiple_of(m).map(|multiple| crate::count_mod(n, g, multiple).unwrap())
                );
            }
        }
    }
}
