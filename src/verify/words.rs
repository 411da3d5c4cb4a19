//! The words of a verdict, shared by one claim and a claims file: the route that judged it and what
//! checked it, the claim's parity beside the closed form's, the option a wrong whole value may have
//! meant, and its numbers as people are shown them.

use fibtree::claims::{Checked, Judged, residue};
use fibtree::{P998244353, Parity};
use num_bigint::BigUint;
use serde::Serialize;

use super::super::messages::cut;

/// The smallest modulus a hint names: below it a wrong claim matches the true residue by chance
/// too often (one time in 10^6 here) for the match to mean anything.
const HINT_FROM: u128 = 1_000_000;

/// The route that judged `c` and what checked it, as its verdict says it.
pub(super) fn how_judged(c: &Checked) -> String {
    match (c.judged, c.claim.modulus, c.multiple) {
        (Judged::Exact, ..) => {
            "judged by the exact count, checked by the modular engine and the closed form's parity".into()
        }
        (_, Some(m), Some(multiple)) => {
            let power = match (multiple / m as u64).trailing_zeros() {
                1 => "2".to_string(),
                j => format!("2^{j}"),
            };
            format!("judged by the modular engine, checked modulo {m} * {power} and by the closed form's parity")
        }
        _ if c.parity_checked() => "judged by the modular engine, checked by the closed form's parity".into(),
        _ => "judged by the modular engine alone, the modulus having no multiple below 2^63".into(),
    }
}

/// What checked the true value, as the JSON's `checked_by` lists it: `modular` (beside the exact
/// count, the modular engine's residues of the value; on the modular route, its run modulo a
/// multiple of the modulus) and `parity` (the closed form of G).
pub(super) fn checked_by(c: &Checked) -> Vec<&'static str> {
    let modular = c.judged == Judged::Exact || c.multiple.is_some();
    [(modular, "modular"), (c.parity_checked(), "parity")].into_iter().filter(|p| p.0).map(|p| p.1).collect()
}

/// The modulus of the second residue (`independent`): the claim's own beside the exact count, its
/// multiple on the modular route.
pub(super) fn independent_modulus(c: &Checked) -> Option<String> {
    match c.judged {
        Judged::Exact => c.independent.and(c.claim.modulus).map(|m| m.to_string()),
        _ => c.multiple.map(|m| m.to_string()),
    }
}

/// A claim's parity beside the one the closed form of G gives (fields in alphabetical order).
#[derive(Serialize)]
pub(super) struct ClaimedParity {
    pub(super) agrees: bool,
    claimed: u8,
    closed_form: u8,
    /// The words that tell a claim of the wrong parity (not in the JSON; empty where it agrees).
    #[serde(skip)]
    pub(super) why: String,
}

impl ClaimedParity {
    /// The parity of `answer`, claimed to be c(n, g) or its residue modulo `modulus`, and the closed
    /// form's, with the reason: where the claim has one, a whole value or a residue modulo an even
    /// modulus (which keeps the parity of the count); `None` modulo an odd one.
    pub(super) fn of(n: u64, g: u64, modulus: Option<u128>, answer: &BigUint) -> Option<ClaimedParity> {
        if modulus.is_some_and(|m| m % 2 == 1) {
            return None;
        }
        let Parity { residue: claimed, closed_form } = Parity::of(n, g, answer);
        if claimed == closed_form {
            return Some(ClaimedParity { agrees: true, claimed, closed_form, why: String::new() });
        }
        let mut reason = match fibtree::grundy(n) {
            None => "T(0) has no move".to_string(),
            Some(value) if g < value => format!("{g} < G({n}) = {value}"),
            Some(value) => format!("{g} >= G({n}) = {value}"),
        };
        let what = match modulus {
            None => format!("c({n}, {g})"),
            Some(m) => {
                reason.push_str("; an even modulus keeps the parity");
                format!("c({n}, {g}) mod {m}")
            }
        };
        let word = |p: u8| if p == 1 { "odd" } else { "even" };
        let why = format!(
            "the claim is {}, and {what} is {} by the closed form of G ({reason}): it cannot be right",
            word(claimed),
            word(closed_form)
        );
        Some(ClaimedParity { agrees: false, claimed, closed_form, why })
    }
}

/// The modulus a wrong claim of a whole value is the true residue modulo, the hint of what it may
/// have meant: 10^D for the claim's D digits (D <= 38: it is the true last D digits), then
/// 998244353, then each of `also` (the moduli asked before it), the first that fits; none below
/// [`HINT_FROM`]. `None` for a right claim or a claimed residue. Cost O(the value's limbs) a
/// modulus tried.
pub(super) fn meant(c: &Checked, also: &[u128]) -> Option<u128> {
    if c.ok() || c.claim.modulus.is_some() {
        return None;
    }
    let answer = &c.claim.answer;
    let digits = fibtree_util::decimal_digits(answer) as u32;
    let last = (digits <= 38).then(|| 10u128.pow(digits));
    last.into_iter()
        .chain([u128::from(P998244353)])
        .chain(also.iter().copied())
        .filter(|&m| m >= HINT_FROM && *answer < BigUint::from(m))
        .find(|&m| BigUint::from(residue(&c.expected, m)) == *answer)
}

/// The hint for a claim that is the true residue modulo `meant`, naming the option of one claim, or
/// with `file` the modulus of a claims line.
pub(super) fn hint(meant: u128, file: bool) -> String {
    match ((1..=38).find(|&d| 10u128.pow(d) == meant), file) {
        (Some(d), false) => format!("the claim is the true last {d} digits: did you mean --last-digits {d}?"),
        (Some(d), true) => format!("the claim is the true last {d} digits: did you mean the modulus 10^{d}?"),
        (None, false) => format!("the claim is the true residue modulo {meant}: did you mean --mod {meant}?"),
        (None, true) => format!("the claim is the true residue modulo {meant}: did you mean the modulus {meant}?"),
    }
}

/// A number of a verdict as people are shown it: whole with `whole` (`--show-value`), else cut
/// as every message cuts one.
pub(super) fn shown(value: &str, whole: bool) -> String {
    if whole { value.to_string() } else { cut(value) }
}
