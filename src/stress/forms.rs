//! What another program's answers are (`stress`): the last integer it prints, read as the exact
//! c(n, G), its last D digits, or its residue modulo M; given, or found from its first answers at
//! the n where those forms differ; and the true values in that form for every n, from one run of
//! the library over them all.

use std::collections::HashMap;

use num_bigint::BigUint;
use serde::Serialize;

use fibtree::{Counting, LAST18, Options, P998244353};

use crate::runner::{Ending, ProgramRun};

/// The other prime modulus contest problems ask for.
const P1000000007: u64 = 1_000_000_007;

/// The forms the answers are matched against when none is given, in the order they are tried.
const CANDIDATES: [AnswerForm; 4] =
    [AnswerForm::Exact, AnswerForm::LastDigits(18), AnswerForm::Modulo(P998244353), AnswerForm::Modulo(P1000000007)];

/// The n at which the program's answers decide its form: the smallest of those where the forms all
/// differ, at most this many.
const PROBES: usize = 3;

/// How many of the smallest n are searched for n where the forms differ (with the largest n).
const SEARCHED: usize = 256;

/// What a program prints for c(n, G).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum AnswerForm {
    /// The exact value.
    Exact,
    /// Its residue modulo M.
    Modulo(u64),
    /// Its last D digits: its residue modulo 10^D.
    LastDigits(u32),
}

impl AnswerForm {
    /// The modulus of a residue (`None` for the exact value).
    fn modulus(self) -> Option<u64> {
        match self {
            AnswerForm::Exact => None,
            AnswerForm::Modulo(m) => Some(m),
            AnswerForm::LastDigits(d) if d <= 18 => Some(10u64.pow(d)),
            // past 10^18, beyond the modular engine: the exact value's last digits
            AnswerForm::LastDigits(_) => None,
        }
    }

    /// `value` in this form, in decimal.
    fn of(self, value: &BigUint) -> String {
        match self {
            AnswerForm::Exact => value.to_string(),
            AnswerForm::Modulo(m) => (value % m).to_string(),
            AnswerForm::LastDigits(d) => (value % BigUint::from(10u32).pow(d)).to_string(),
        }
    }

    /// The form in words: `the exact value`, `mod 998244353`, `the last 18 digits`.
    pub(super) fn name(self) -> String {
        match self {
            AnswerForm::Exact => "the exact value".into(),
            AnswerForm::Modulo(m) => format!("mod {m}"),
            AnswerForm::LastDigits(1) => "the last digit".into(),
            AnswerForm::LastDigits(d) => format!("the last {d} digits"),
        }
    }
}

/// The form the answers are taken in, and how it was chosen (fields in alphabetical order, as the
/// JSON lists them).
#[derive(Debug, Serialize)]
pub(super) struct Taken {
    /// Whether it was found from the answers (`false`: given by --mod, --last-digits or --exact).
    pub(super) detected: bool,
    /// How it was found.
    pub(super) how: String,
    /// The modulus of a residue (`null` for the exact value), in decimal.
    modulus: Option<String>,
    /// The form in words.
    pub(super) name: String,
    #[serde(skip)]
    pub(super) form: AnswerForm,
}

impl Taken {
    /// `form`, as the arguments gave it.
    pub(super) fn given(form: AnswerForm) -> Taken {
        Taken::new(form, false, "given".into())
    }

    fn new(form: AnswerForm, detected: bool, how: String) -> Taken {
        Taken { detected, how, modulus: form.modulus().map(|m| m.to_string()), name: form.name(), form }
    }
}

/// What the program prints, from its `runs` at the `probes` (as [`probes`] gives them): the form
/// taken is the first that every such answer matching some form matches (forms that agree at every
/// n asked for are all right); where no answer matches a form, the smallest form its answers fit
/// in; where there is no probe, the exact value. Why it took that form is in [`Taken::how`].
pub(super) fn decide(g: u64, probes: &[(u64, BigUint)], runs: &[ProgramRun]) -> Taken {
    if probes.is_empty() {
        let how = "no n run tells the forms apart (each gives one value in every form): taken as the exact value";
        Taken::new(AnswerForm::Exact, true, how.into())
    } else {
        let values: HashMap<u64, &BigUint> = probes.iter().map(|(n, v)| (*n, v)).collect();
        let answers: Vec<(u64, String)> = runs
            .iter()
            .filter(|r| r.ending == Ending::Exited(0) && values.contains_key(&r.n))
            .filter_map(|r| last_integer(&r.stdout).map(|a| (r.n, a)))
            .collect();
        // the forms each answer matches, where it matches one
        let matching: Vec<(u64, Vec<AnswerForm>)> = answers
            .iter()
            .map(|(n, answer)| (*n, CANDIDATES.into_iter().filter(|f| f.of(values[n]) == *answer).collect::<Vec<_>>()))
            .filter(|(_, forms)| !forms.is_empty())
            .collect();
        let common = CANDIDATES.into_iter().find(|f| !matching.is_empty() && matching.iter().all(|m| m.1.contains(f)));
        let at = |ns: &mut dyn Iterator<Item = u64>| ns.map(|n| n.to_string()).collect::<Vec<_>>().join(", ");
        match common {
            Some(form) => {
                let how = format!("its answers at n = {} are {}", at(&mut matching.iter().map(|m| m.0)), form.name());
                Taken::new(form, true, how)
            }
            None => {
                let form = by_size(answers.iter().map(|a| a.1.as_str()));
                let how = format!(
                    "no answer at n = {} is c(n, {g}) in any form; by the size of its answers, taken as {}",
                    at(&mut probes.iter().map(|p| p.0)),
                    form.name()
                );
                Taken::new(form, true, how)
            }
        }
    }
}

/// The last integer in `bytes` (a run of decimal digits, with a `-` right before it if there is
/// one), without leading zeros.
pub(super) fn last_integer(bytes: &[u8]) -> Option<String> {
    let end = bytes.iter().rposition(u8::is_ascii_digit)? + 1;
    let start = bytes[..end].iter().rposition(|b| !b.is_ascii_digit()).map_or(0, |i| i + 1);
    let digits = std::str::from_utf8(&bytes[start..end]).expect("ASCII digits");
    let digits = digits.trim_start_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    let negative = start > 0 && bytes[start - 1] == b'-' && digits != "0";
    Some(if negative { format!("-{digits}") } else { digits.to_string() })
}

/// The smallest form whose values hold every one of `answers` (decimal, no leading zeros): mod
/// 998244353, mod 10^9 + 7, the last 18 digits, else (or with no answer) the exact value.
fn by_size<'a>(answers: impl Iterator<Item = &'a str>) -> AnswerForm {
    let largest =
        answers.filter(|a| !a.starts_with('-')).filter_map(|a| a.parse::<u64>().ok().or(Some(u64::MAX))).max();
    match largest {
        Some(a) if a < P998244353 => AnswerForm::Modulo(P998244353),
        Some(a) if a < P1000000007 => AnswerForm::Modulo(P1000000007),
        Some(a) if a < LAST18 => AnswerForm::LastDigits(18),
        _ => AnswerForm::Exact,
    }
}

/// The n of `ns` (ascending) at which the program's answers decide its form, with the exact
/// c(n, g) of each: up to [`PROBES`] n (among the first [`SEARCHED`] and the last [`PROBES`]), the
/// smallest where the four forms ([`CANDIDATES`]) all differ, or else those where most of them do
/// (at least two), the largest n first; none where no n tells them apart. The program runs at
/// those n, then [`decide`] takes its form from its answers.
///
/// Cost: the exact c(n, g) of up to those n, in batches of 16, until [`PROBES`] n where all four
/// forms differ are found.
///
/// # Errors
/// As [`Counting::new`].
pub(super) fn probes(ns: &[u64], g: u64, options: &Options) -> crate::error::Result<Vec<(u64, BigUint)>> {
    let mut searched: Vec<u64> = ns.iter().copied().take(SEARCHED).collect();
    searched.extend(ns.iter().skip(SEARCHED.max(ns.len().saturating_sub(PROBES))));
    // (distinct forms, n, value) of every n searched
    let mut seen: Vec<(usize, u64, BigUint)> = Vec::new();
    for batch in searched.chunks(16) {
        for (n, value) in batch.iter().copied().zip(exact(batch, g, options)?) {
            let forms: Vec<String> = CANDIDATES.iter().map(|f| f.of(&value)).collect();
            let distinct = (0..forms.len()).filter(|&i| !forms[..i].contains(&forms[i])).count();
            seen.push((distinct, n, value));
        }
        if seen.iter().filter(|s| s.0 == CANDIDATES.len()).count() >= PROBES {
            break;
        }
    }
    let all_differ: Vec<(u64, BigUint)> =
        seen.iter().filter(|s| s.0 == CANDIDATES.len()).take(PROBES).map(|s| (s.1, s.2.clone())).collect();
    if !all_differ.is_empty() {
        return Ok(all_differ);
    }
    seen.retain(|s| s.0 >= 2);
    seen.sort_by_key(|s| std::cmp::Reverse((s.0, s.1)));
    Ok(seen.into_iter().take(PROBES).map(|s| (s.1, s.2)).collect())
}

/// The exact c(n, g) of every n of `ns`, from one counting run over them all, each checked against
/// the modular engine and the closed form's parity.
///
/// # Errors
/// As [`Counting::new`]; a cross-check that fails.
fn exact(ns: &[u64], g: u64, options: &Options) -> crate::error::Result<Vec<BigUint>> {
    let targets: Vec<(u64, u64)> = ns.iter().map(|&n| (n, g)).collect();
    let mut values = vec![BigUint::ZERO; ns.len()];
    Counting::new(&targets, options)?.for_each(|i, report| {
        if let Some(failure) = report.failures().into_iter().next() {
            return Err(failure);
        }
        values[i] = report.value;
        Ok(())
    })?;
    Ok(values)
}

/// The true values of c(n, g) for the n of a `stress` run, in the program's form.
pub(super) struct Truth(HashMap<u64, String>);

impl Truth {
    /// The values of every n of `ns` in `form`: from the exact engine (checked by the modular one)
    /// for the exact value, else from the modular engine alone, in one run over every n.
    ///
    /// # Errors
    /// As [`Counting::new`].
    pub(super) fn of(form: AnswerForm, ns: &[u64], g: u64, options: &Options) -> crate::error::Result<Truth> {
        let values: Vec<String> = match form.modulus() {
            None => exact(ns, g, options)?.iter().map(|v| form.of(v)).collect(),
            Some(m) => {
                let targets: Vec<(u64, u64)> = ns.iter().map(|&n| (n, g)).collect();
                let options = Options { moduli: vec![m], ..options.clone() };
                let reports = fibtree::mod_only(&targets, &options)?;
                let residue = |r: &fibtree::ModReport| r.residues.iter().find(|p| p.0 == m).expect("asked for").1;
                reports.iter().map(|r| residue(r).to_string()).collect()
            }
        };
        Ok(Truth(ns.iter().copied().zip(values).collect()))
    }

    /// The true value for `n`, one of the n it was made for.
    pub(super) fn of_n(&self, n: u64) -> &str {
        &self.0[&n]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_of_a_value() {
        let f100: BigUint = "29580893155023212545".parse().unwrap();
        let forms: Vec<String> = CANDIDATES.iter().map(|f| f.of(&f100)).collect();
        let mod_p1 = (&f100 % P1000000007).to_string();
        assert_eq!(forms, ["29580893155023212545", "580893155023212545", "783211951", &mod_p1]);
        assert_eq!(AnswerForm::LastDigits(3).of(&BigUint::from(17u32)), "17");
        assert_eq!(AnswerForm::LastDigits(1).name(), "the last digit");
    }

    #[test]
    fn the_last_integer_printed() {
        assert_eq!(last_integer(b"f(100) = 0029580893155023212545\n"), Some("29580893155023212545".into()));
        assert_eq!(last_integer(b"answer: -12 (mod 7)\nok"), Some("7".into()));
        assert_eq!(last_integer(b"-12\n"), Some("-12".into()));
        assert_eq!(last_integer(b"-000\n"), Some("0".into()));
        assert_eq!(last_integer(b"12 34"), Some("34".into()));
        assert_eq!(last_integer(b"no number\n"), None);
        assert_eq!(last_integer(b""), None);
        assert_eq!(last_integer(b"\xff\xfe7\xff"), Some("7".into()));
    }

    #[test]
    fn the_smallest_form_that_holds_the_answers() {
        assert_eq!(by_size(["5", "998244352"].into_iter()), AnswerForm::Modulo(P998244353));
        assert_eq!(by_size(["998244353"].into_iter()), AnswerForm::Modulo(P1000000007));
        assert_eq!(by_size(["1000000007"].into_iter()), AnswerForm::LastDigits(18));
        assert_eq!(by_size(["1000000000000000000"].into_iter()), AnswerForm::Exact);
        assert_eq!(by_size(["123456789012345678901234567890"].into_iter()), AnswerForm::Exact);
        assert_eq!(by_size(std::iter::empty()), AnswerForm::Exact);
    }
}
