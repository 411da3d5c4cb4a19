//! `fibtree verify`: is another program's residue right? One claim, or a CSV file of them.

use std::io::{BufRead, Read, Write};
use std::path::Path;
use std::process::ExitCode;

use fibtree::claims::{CLAIMS_HEADER, Checked, Claim, Judged, MAX_LINE, Malformed, check_claims, parse_claims};
use fibtree::{Counting, Error, Options, Param};
use num_bigint::BigUint;
use serde::Serialize;

use super::args::VerifyArgs;
use super::messages::{escaped, one_line};
use super::output::distinct;
use super::session::{Outcome, OutputForm, Session};
use super::{flag, say, usage};

pub(super) fn verify(args: VerifyArgs) -> anyhow::Result<ExitCode> {
    match &args.claims {
        Some(path) => verify_claims(path, &args),
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
    true_last_digits: Option<String>,
    verdict: &'static str,
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
        true_last_digits: args.last_digits.map(|d| format!("{:0width$}", checked.expected, width = d as usize)),
        verdict: word(&checked),
    };
    let status = if checked.ok() { ExitCode::SUCCESS } else { ExitCode::from(1) };
    session.emit_verdict(&verdict, OutputForm::of(args.json, false), status)
}

/// A claim of the whole count c(n, g) (no modulus): compared with the exact count, which is
/// checked against the modular engine as `count` checks it.
fn verify_whole(args: &VerifyArgs, n: u64, answer: &BigUint) -> anyhow::Result<ExitCode> {
    let mut session = Session::new(args.run.output.output.as_deref(), args.run.threads.threads, !args.json)?;
    let (engine, memory_limit) = (args.run.engine, Some(args.run.memory_limit()));
    let targets = [(n, args.g)];
    let report = session.compute(|hooks, _| {
        let options = Options { hooks, engine, memory_limit, ..Options::default() };
        Ok(Counting::new(&targets, &options)?.reports()?.remove(0))
    })?;
    if let Some(p) = report.projections.iter().find(|p| !p.agrees()) {
        return Err(Error::cross_check(n, args.g, p.modulus, p.residue, p.independent).into());
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

/// A claims file's verdicts (fields in alphabetical order, as the JSON lists them).
#[derive(Serialize)]
struct Verdicts {
    counts: Counts,
    malformed: Vec<MalformedOut>,
    verdicts: Vec<ClaimVerdict>,
}

#[derive(Serialize)]
struct Counts {
    malformed: usize,
    mismatch: usize,
    ok: usize,
}

#[derive(Serialize)]
struct MalformedOut {
    error: String,
    line: usize,
}

#[derive(Serialize)]
struct ClaimVerdict {
    answer: String,
    expected: String,
    #[serde(serialize_with = "super::json::int")]
    g: u64,
    judged_by: &'static str,
    line: usize,
    modulus: String,
    n: u64,
    verdict: &'static str,
}

impl Verdicts {
    fn new(checked: &[Checked], malformed: &[Malformed]) -> Verdicts {
        let ok = checked.iter().filter(|c| c.ok()).count();
        Verdicts {
            counts: Counts { malformed: malformed.len(), mismatch: checked.len() - ok, ok },
            // a reason quotes the line: one line, its control characters escaped and long numbers cut
            malformed: malformed.iter().map(|m| MalformedOut { error: one_line(&m.error), line: m.line }).collect(),
            verdicts: checked
                .iter()
                .map(|c| ClaimVerdict {
                    answer: c.claim.answer.to_string(),
                    expected: c.expected.to_string(),
                    g: c.claim.g,
                    judged_by: c.judged.name(),
                    line: c.claim.line,
                    modulus: c.claim.modulus.to_string(),
                    n: c.claim.n,
                    verdict: word(c),
                })
                .collect(),
        }
    }
}

impl Outcome for Verdicts {
    /// Every line in file order, claims and malformed lines together, then the counts.
    fn human(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let mut lines: Vec<(usize, String)> = self
            .verdicts
            .iter()
            .map(|c| {
                let ClaimVerdict { line, n, g, modulus, answer, expected, verdict, judged_by } = c;
                let by = if *judged_by == "modular" { " (judged by the modular engine)" } else { "" };
                let claim = format!("c({n}, {g}) mod {modulus}: claimed {answer}, true {expected}");
                (*line, format!("line {line}: {claim}: {verdict}{by}"))
            })
            .chain(self.malformed.iter().map(|m| (m.line, format!("line {}: malformed: {}", m.line, m.error))))
            .collect();
        lines.sort_by_key(|l| l.0);
        for (_, line) in lines {
            writeln!(out, "{}", escaped(&line))?;
        }
        let Counts { ok, mismatch, malformed } = self.counts;
        writeln!(out, "{ok} OK, {mismatch} MISMATCH, {malformed} malformed")
    }
}

/// The text of a claims file, read line by line: a line longer than [`MAX_LINE`] bytes stops the
/// reading with a usage error (no claims file has one: `/dev/zero` or a binary file is refused at
/// once, without reading it whole). What cannot be read (a directory, say) is bad input, as a path
/// that does not exist. Cost O(bytes); memory the text.
fn read_claims(reader: &mut impl BufRead, source: &str) -> anyhow::Result<Vec<u8>> {
    let mut text = Vec::new();
    for line in 1.. {
        let start = text.len();
        let read = reader
            .by_ref()
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut text)
            .map_err(|e| usage("--claims", format!("cannot read {source}: {e}")))?;
        if read == 0 {
            break;
        }
        if read - usize::from(text[start..].ends_with(b"\n")) > MAX_LINE {
            return Err(usage(
                "--claims",
                format!("line {line} of {source} is longer than {MAX_LINE} bytes, the most a claims line may hold"),
            ));
        }
    }
    Ok(text)
}

fn verify_claims(path: &Path, args: &VerifyArgs) -> anyhow::Result<ExitCode> {
    distinct(&[("--claims", Some(path)), ("--output", args.run.output.output.as_deref())])?;
    let source = if path.as_os_str() == "-" { "standard input" } else { "the file" };
    let text = if path.as_os_str() == "-" {
        read_claims(&mut std::io::stdin().lock(), source)?
    } else {
        let name = format!("'{}'", path.display());
        let file = std::fs::File::open(path).map_err(|e| usage("--claims", format!("cannot read {name}: {e}")))?;
        read_claims(&mut std::io::BufReader::new(file), &name)?
    };
    let name = if path.as_os_str() == "-" { "standard input".to_string() } else { format!("'{}'", path.display()) };
    if text.iter().all(u8::is_ascii_whitespace) {
        return Err(usage("--claims", format!("{source} is empty; expected the header '{CLAIMS_HEADER}' and claims")));
    }
    let (claims, malformed) = parse_claims(&text).map_err(|e| match e {
        Error::InvalidArgument { expected, .. } => usage("--claims", format!("{name}: {expected}")),
        other => other.into(),
    })?;
    if claims.is_empty() && malformed.is_empty() {
        return Err(usage("--claims", format!("{source} has no claims, only its header")));
    }
    // A run too large for memory: the file is what asks for it.
    let claims_flags = |param| if param == Param::N { "--claims" } else { flag(param) };
    let mut session =
        Session::new(args.run.output.output.as_deref(), args.run.threads.threads, !args.json)?.naming(claims_flags);
    let (checked, refused) = if claims.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        let (engine, memory_limit) = (args.run.engine, Some(args.run.memory_limit()));
        session.compute(|hooks, _| {
            Ok(check_claims(&claims, &Options { hooks, engine, memory_limit, ..Options::default() })?)
        })?
    };
    // a claim whose own run does not fit is a bad line like any other, with its reason
    let mut malformed = malformed;
    malformed.extend(refused.into_iter().map(|r| Malformed { line: r.claim.line, error: r.error.to_string() }));
    malformed.sort_by_key(|m| m.line);
    if let Some(bad) = checked.iter().find(|c| !c.engines_agree()) {
        return Err(cross_check_failed(bad).into());
    }
    // each (n, g) the modular engine judged alone, once
    let mut said = Vec::new();
    for c in &checked {
        if let Some(note) = c.judged.note()
            && !said.contains(&(c.claim.n, c.claim.g))
        {
            said.push((c.claim.n, c.claim.g));
            say(&format!("note: c({}, {}) {note}", c.claim.n, c.claim.g));
        }
    }
    let verdicts = Verdicts::new(&checked, &malformed);
    let Counts { mismatch, malformed, .. } = verdicts.counts;
    let status = ExitCode::from(if malformed > 0 { 2 } else { u8::from(mismatch > 0) });
    session.emit_verdict(&verdicts, OutputForm::of(args.json, false), status)
}
