//! `fibtree verify`: is another program's residue right? One claim, or a CSV file of them.

use std::io::Write;
use std::process::ExitCode;

use fibtree::claims::{Checked, Claim, Judged, check_claims};
use fibtree::{Counting, Error, Options, Parity};
use num_bigint::BigUint;
use serde::Serialize;

use super::args::VerifyArgs;
use super::session::{Outcome, OutputForm, Session};
use super::{say, usage};

mod claims;

pub(super) fn verify(args: VerifyArgs) -> anyhow::Result<ExitCode> {
    match &args.claims {
        Some(path) => claims::verify_claims(path, &args),
        None => verify_one(&args),
    }
}

/// One claim's verdict (fields in alphabetical order, as the JSON lists them). An exact claim (no
/// modulus) has `modulus` null, and `expected` the whole count.
#[derive(Serialize)]
struct Verdict {
    answer: String,
    exact_memory_estimate_bytes: Option<u64>,
    expected: String,
    #[serde(serialize_with = "super::json::int")]
    g: u64,
    independent: Option<String>,
    judged_by: &'static str,
    last_digits: Option<u32>,
    modulus: Option<String>,
    n: u64,
    parity: Option<ClaimedParity>,
    true_last_digits: Option<String>,
    verdict: &'static str,
}

/// A whole claim's parity beside the one the closed form of G gives (fields in alphabetical order).
#[derive(Serialize)]
struct ClaimedParity {
    agrees: bool,
    claimed: u8,
    closed_form: u8,
    /// The line that tells a claim of the wrong parity (not in the JSON).
    #[serde(skip)]
    why: String,
}

impl ClaimedParity {
    /// The parity of `answer`, claimed to be c(n, g), and the closed form's, with the reason.
    fn of(n: u64, g: u64, answer: &BigUint) -> ClaimedParity {
        let Parity { residue: claimed, closed_form } = Parity::of(n, g, answer);
        let reason = match fibtree::grundy(n) {
            None => "T(0) has no move".to_string(),
            Some(value) if g < value => format!("{g} < G({n}) = {value}"),
            Some(value) => format!("{g} >= G({n}) = {value}"),
        };
        let word = |p: u8| if p == 1 { "odd" } else { "even" };
        let why = format!(
            "the claim is {}, and c({n}, {g}) is {} by the closed form of G ({reason}): it cannot be right",
            word(claimed),
            word(closed_form)
        );
        ClaimedParity { agrees: claimed == closed_form, claimed, closed_form, why }
    }
}

impl Outcome for Verdict {
    fn human(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let Verdict { n, g, answer, expected, verdict, .. } = self;
        let modulus = self.modulus.as_ref().map_or(String::new(), |m| format!(" mod {m}"));
        let by = if self.judged_by == "modular" { " (judged by the modular engine)" } else { "" };
        writeln!(out, "{verdict}: c({n}, {g}){modulus}: claimed {answer}, true {expected}{by}")?;
        if let (Some(d), Some(digits)) = (self.last_digits, &self.true_last_digits) {
            let noun = if d == 1 { "digit" } else { "digits" };
            writeln!(out, "the true last {d} {noun}: {digits}")?;
        }
        if let Some(parity) = self.parity.as_ref().filter(|p| !p.agrees) {
            writeln!(out, "{}", parity.why)?;
        }
        Ok(())
    }
}

fn word(checked: &Checked) -> &'static str {
    if checked.ok() { "OK" } else { "MISMATCH" }
}

/// The memory estimate of the exact count that did not fit, where the modular engine judged alone.
fn exact_estimate(judged: Judged) -> Option<u64> {
    match judged {
        Judged::Modular { exact_estimate, .. } => Some(exact_estimate),
        Judged::Exact => None,
    }
}

fn verify_one(args: &VerifyArgs) -> anyhow::Result<ExitCode> {
    let (n, answer) = (args.n.expect("clap requires N"), args.answer.as_ref().expect("clap requires --answer"));
    let modulus = match (args.modulus, args.last_digits) {
        (Some(m), _) => m,
        (None, Some(d)) => 10u128.pow(d),
        (None, None) => return verify_whole(args, n, answer),
    };
    let answer = match u128::try_from(answer) {
        Ok(a) if a < modulus => a,
        _ => return Err(usage("--answer", format!("expected a residue below the modulus {modulus}, got {answer}"))),
    };
    let claim = Claim { line: 0, n, g: args.g, modulus, answer };
    let mut session = Session::new(args.run.output.output.as_deref(), args.run.threads.threads, !args.json)?;
    let (engine, memory_limit) = (args.run.engine, Some(args.run.memory_limit()));
    let checked = session.compute(|hooks, _| {
        let (mut checked, mut refused) =
            check_claims(&[claim], &Options { hooks, engine, memory_limit, ..Options::default() })?;
        match refused.pop() {
            Some(refused) => Err(refused.error.into()),
            None => Ok(checked.remove(0)),
        }
    })?;
    if !checked.engines_agree() {
        return Err(cross_check_failed(&checked).into());
    }
    if let Some(note) = checked.judged.note() {
        say(&format!("note: c({n}, {}) {note}", args.g));
    }
    let verdict = Verdict {
        answer: answer.to_string(),
        exact_memory_estimate_bytes: exact_estimate(checked.judged),
        expected: checked.expected.to_string(),
        g: args.g,
        independent: checked.independent.map(|r| r.to_string()),
        judged_by: checked.judged.name(),
        last_digits: args.last_digits,
        modulus: Some(modulus.to_string()),
        n,
        parity: None,
        true_last_digits: args.last_digits.map(|d| format!("{:0width$}", checked.expected, width = d as usize)),
        verdict: word(&checked),
    };
    let status = if checked.ok() { ExitCode::SUCCESS } else { ExitCode::from(1) };
    session.emit_verdict(&verdict, OutputForm::of(args.json, false), status)
}

/// A claim of the whole count c(n, g) (no modulus): compared with the exact count, which is
/// checked against the modular engine and the closed form's parity as `count` checks it; the claim's
/// own parity is compared with the closed form's, and a claim of the wrong parity is told so.
fn verify_whole(args: &VerifyArgs, n: u64, answer: &BigUint) -> anyhow::Result<ExitCode> {
    let mut session = Session::new(args.run.output.output.as_deref(), args.run.threads.threads, !args.json)?;
    let (engine, memory_limit) = (args.run.engine, Some(args.run.memory_limit()));
    let targets = [(n, args.g)];
    let report = session.compute(|hooks, _| {
        let options = Options { hooks, engine, memory_limit, ..Options::default() };
        Ok(Counting::new(&targets, &options)?.reports()?.remove(0))
    })?;
    if let Some(failure) = report.failures().into_iter().next() {
        return Err(failure.into());
    }
    let right = report.value == *answer;
    let verdict = Verdict {
        answer: answer.to_string(),
        exact_memory_estimate_bytes: None,
        expected: report.value.to_string(),
        g: args.g,
        independent: None,
        judged_by: Judged::Exact.name(),
        last_digits: None,
        modulus: None,
        n,
        parity: Some(ClaimedParity::of(n, args.g, answer)),
        true_last_digits: None,
        verdict: if right { "OK" } else { "MISMATCH" },
    };
    let status = if right { ExitCode::SUCCESS } else { ExitCode::from(1) };
    session.emit_verdict(&verdict, OutputForm::of(args.json, false), status)
}

fn cross_check_failed(c: &Checked) -> Error {
    let modular = c.independent.map_or("-".into(), |r| r.to_string());
    Error::cross_check(c.claim.n, c.claim.g, c.claim.modulus, c.expected, modular)
}
