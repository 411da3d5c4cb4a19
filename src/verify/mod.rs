//! `fibtree verify`: is another program's answer right? One claim, or a CSV file of them.

use std::io::Write;
use std::process::ExitCode;

use fibtree::Options;
use fibtree::claims::{Checked, Claim, Route, check_claims};
use serde::Serialize;

use super::args::VerifyArgs;
use super::session::{Outcome, OutputForm, Session};
use crate::error::refused;

mod claims;
mod words;

use words::ClaimedParity;

pub(super) fn verify(args: VerifyArgs) -> crate::error::Result<ExitCode> {
    match &args.claims {
        Some(path) => claims::verify_claims(path, &args),
        None => verify_one(&args),
    }
}

/// The route `--exact` asks for.
fn route(args: &VerifyArgs) -> Route {
    if args.exact { Route::Exact } else { Route::Residues }
}

/// One claim's verdict (fields in alphabetical order, as the JSON lists them). A claim of the whole
/// count (no modulus) has `modulus` null, and `expected` the whole count.
#[derive(Serialize)]
struct Verdict {
    answer: String,
    checked_by: Vec<&'static str>,
    exact_memory_estimate_bytes: Option<u64>,
    expected: String,
    #[serde(serialize_with = "super::json::int")]
    g: u64,
    independent: Option<String>,
    independent_modulus: Option<String>,
    judged_by: &'static str,
    last_digits: Option<u32>,
    meant_modulus: Option<String>,
    modulus: Option<String>,
    n: u64,
    parity: Option<ClaimedParity>,
    true_last_digits: Option<String>,
    verdict: &'static str,
    /// The route in words (not in the JSON).
    #[serde(skip)]
    route: String,
    /// Whether people are shown the numbers whole (`--show-value`; not in the JSON).
    #[serde(skip)]
    whole: bool,
}

impl Outcome for Verdict {
    fn human(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let Verdict { n, g, verdict, route, .. } = self;
        let (answer, expected) = (words::shown(&self.answer, self.whole), words::shown(&self.expected, self.whole));
        let modulus = self.modulus.as_ref().map_or(String::new(), |m| format!(" mod {m}"));
        writeln!(out, "{verdict}: c({n}, {g}){modulus}: claimed {answer}, true {expected} ({route})")?;
        if let (Some(d), Some(digits)) = (self.last_digits, &self.true_last_digits) {
            let noun = if d == 1 { "digit" } else { "digits" };
            writeln!(out, "the true last {d} {noun}: {digits}")?;
        }
        if let Some(parity) = self.parity.as_ref().filter(|p| !p.agrees) {
            writeln!(out, "{}", parity.why)?;
        }
        if let Some(meant) = &self.meant_modulus {
            writeln!(out, "{}", words::hint(meant.parse().expect("a modulus we wrote"), false))?;
        }
        Ok(())
    }
}

fn word(checked: &Checked) -> &'static str {
    if checked.ok() { "OK" } else { "MISMATCH" }
}

/// `verify N --answer A`: a claimed residue (`--mod`, `--last-digits`) judged by the modular engine
/// (by the exact count with `--exact`, or where the modulus is 2^63 or more), or a claimed whole
/// count by the exact count; checked as [`fibtree::claims::answer`] checks it.
fn verify_one(args: &VerifyArgs) -> crate::error::Result<ExitCode> {
    let (n, answer) = (args.n.expect("clap requires N"), args.answer.as_ref().expect("clap requires --answer"));
    let modulus = match (args.modulus, args.last_digits) {
        (Some(m), _) => Some(m),
        (None, Some(d)) => Some(10u128.pow(d)),
        (None, None) => None,
    };
    if let Some(m) = modulus
        && *answer >= m.into()
    {
        return Err(refused("--answer", format!("expected a residue below the modulus {m}, got {answer}")));
    }
    let claim = Claim { line: 0, n, g: args.g, modulus, answer: answer.clone() };
    let mut session = Session::new(args.run.output.output.as_deref(), args.run.threads.threads, !args.json)?;
    let (engine, memory_limit) = (args.run.engine, Some(args.run.memory_limit()));
    let checked = session.compute(|hooks, _| {
        let options = Options { hooks, engine, memory_limit, ..Options::default() };
        let (mut checked, mut refused) = check_claims(&[claim], &options, route(args))?;
        match refused.pop() {
            Some(refused) => Err(refused.error.into()),
            None => Ok(checked.remove(0)),
        }
    })?;
    if let Some(note) = checked.judged.note() {
        crate::messages::note(&format!("note: c({n}, {}) {note}", args.g));
    }
    let exact_memory_estimate_bytes = match checked.judged {
        fibtree::claims::Judged::ModularInstead { exact_estimate, .. } => Some(exact_estimate),
        _ => None,
    };
    let verdict = Verdict {
        answer: answer.to_string(),
        checked_by: words::checked_by(&checked),
        exact_memory_estimate_bytes,
        expected: checked.expected.to_string(),
        g: args.g,
        independent: checked.independent.map(|r| r.to_string()),
        independent_modulus: words::independent_modulus(&checked),
        judged_by: checked.judged.name(),
        last_digits: args.last_digits,
        meant_modulus: words::meant(&checked, &[]).map(|m| m.to_string()),
        modulus: modulus.map(|m| m.to_string()),
        n,
        parity: ClaimedParity::of(n, args.g, modulus, answer),
        true_last_digits: args.last_digits.map(|d| format!("{:0width$}", checked.expected, width = d as usize)),
        verdict: word(&checked),
        route: words::how_judged(&checked),
        whole: args.show_value,
    };
    let status = if checked.ok() { ExitCode::SUCCESS } else { ExitCode::from(1) };
    session.emit_verdict(&verdict, OutputForm::of(args.json, false), status)
}
