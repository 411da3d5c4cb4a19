//! The verdicts of `stress`'s runs and its report: each run judged against its true value, the
//! stretches of n by verdict, the first run not OK, in words or in JSON.

use std::io::Write;

use serde::Serialize;

use super::super::args::StressArgs;
use super::super::forms::{self, last_integer};
use super::super::runner::{Ending, ProgramRun};
use super::super::session::Outcome;

/// The lines of a failing run's standard error that the report shows.
const STDERR_LINES: usize = 10;

/// The verdict of one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub(super) enum Verdict {
    #[serde(rename = "OK")]
    Ok,
    #[serde(rename = "MISMATCH")]
    Mismatch,
    #[serde(rename = "CRASH")]
    Crash,
    #[serde(rename = "TIMEOUT")]
    Timeout,
    #[serde(rename = "NO ANSWER")]
    NoAnswer,
}

impl Verdict {
    /// The word the report uses.
    fn word(self) -> &'static str {
        match self {
            Verdict::Ok => "OK",
            Verdict::Mismatch => "MISMATCH",
            Verdict::Crash => "CRASH",
            Verdict::Timeout => "TIMEOUT",
            Verdict::NoAnswer => "NO ANSWER",
        }
    }
}

/// One run judged (fields in alphabetical order, as the JSON lists them).
#[derive(Clone, Debug, Serialize)]
pub(super) struct Judged {
    /// The last integer the program printed, without leading zeros.
    pub(super) answer: Option<String>,
    /// The true value, in the program's form.
    pub(super) expected: String,
    pub(super) n: u64,
    pub(super) seconds: f64,
    /// How the run ended: `exit status 0`, `killed by signal 11 (SIGSEGV)`, ...
    pub(super) status: String,
    /// Whether its standard output was longer than the 1 MiB kept (its answer taken from the last 1 MiB).
    pub(super) stdout_cut: bool,
    pub(super) verdict: Verdict,
    #[serde(skip)]
    pub(super) stderr: Vec<u8>,
}

/// `run` judged against `expected`; `shell`: it ran through `sh -c`, whose exit status 128 + S
/// says that the program ended by signal S.
pub(super) fn judge(run: &ProgramRun, expected: &str, shell: bool) -> Judged {
    let answer = last_integer(&run.stdout);
    let verdict = match (&run.ending, &answer) {
        (Ending::TimedOut, _) => Verdict::Timeout,
        (Ending::Exited(0), None) => Verdict::NoAnswer,
        (Ending::Exited(0), Some(a)) if a == expected => Verdict::Ok,
        (Ending::Exited(0), Some(_)) => Verdict::Mismatch,
        _ => Verdict::Crash,
    };
    Judged {
        answer,
        expected: expected.to_string(),
        n: run.n,
        seconds: (run.seconds * 1000.0).round() / 1000.0,
        status: status_of(&run.ending, shell),
        stdout_cut: run.stdout_cut,
        verdict,
        stderr: run.stderr.clone(),
    }
}

/// How a run ended, in words.
fn status_of(ending: &Ending, shell: bool) -> String {
    match ending {
        Ending::Exited(code @ 129..=192) if shell && !signal_name(code - 128).is_empty() => {
            format!("exit status {code}: signal {}{}, as the shell says", code - 128, signal_name(code - 128))
        }
        Ending::Exited(code) => format!("exit status {code}"),
        Ending::Signalled(signal) => format!("killed by signal {signal}{}", signal_name(*signal)),
        Ending::TimedOut => "past the time limit (killed)".into(),
        Ending::Stopped => "stopped".into(),
        Ending::NotStarted(why) => format!("could not be started: {why}"),
        Ending::NoProcess(why) => format!("not run: {why}"),
    }
}

/// ` (SIGSEGV)` and the like for the signals a crash comes with, else nothing.
fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGSEGV => " (SIGSEGV)",
        libc::SIGABRT => " (SIGABRT)",
        libc::SIGBUS => " (SIGBUS)",
        libc::SIGFPE => " (SIGFPE)",
        libc::SIGILL => " (SIGILL)",
        libc::SIGKILL => " (SIGKILL)",
        libc::SIGTERM => " (SIGTERM)",
        libc::SIGINT => " (SIGINT)",
        libc::SIGPIPE => " (SIGPIPE)",
        _ => "",
    }
}

/// A stretch of n in a row (in the order of the n run) with one verdict.
#[derive(Debug, Serialize)]
struct Stretch {
    from: u64,
    runs: usize,
    to: u64,
    verdict: Verdict,
}

/// The stretches of `judged` (ascending n).
fn stretches(judged: &[Judged]) -> Vec<Stretch> {
    let mut out: Vec<Stretch> = Vec::new();
    for j in judged {
        match out.last_mut() {
            Some(s) if s.verdict == j.verdict => (s.to, s.runs) = (j.n, s.runs + 1),
            _ => out.push(Stretch { from: j.n, runs: 1, to: j.n, verdict: j.verdict }),
        }
    }
    out
}

/// The first run not OK, for the report: its verdict and the first lines of its standard error.
#[derive(Debug, Serialize)]
struct Failure {
    #[serde(flatten)]
    run: Judged,
    stderr_head: Vec<String>,
}

/// How many runs got each verdict.
#[derive(Debug, Default, Serialize)]
struct Counts {
    crash: usize,
    mismatch: usize,
    no_answer: usize,
    ok: usize,
    timeout: usize,
}

/// The report of a `stress` run (fields in alphabetical order, as the JSON lists them).
#[derive(Debug, Serialize)]
pub(super) struct Report {
    bisect: bool,
    command: String,
    counts: Counts,
    first_failure: Option<Failure>,
    form: forms::Taken,
    #[serde(serialize_with = "crate::cli::json::int")]
    g: u64,
    interrupted: bool,
    /// The n asked for.
    n_asked: usize,
    pub(super) ok: bool,
    ranges: Vec<Stretch>,
    runs: Vec<Judged>,
}

impl Report {
    pub(super) fn new(args: &StressArgs, form: forms::Taken, mut runs: Vec<Judged>, interrupted: bool) -> Report {
        runs.sort_by_key(|j| j.n);
        let mut counts = Counts::default();
        for j in &runs {
            *match j.verdict {
                Verdict::Ok => &mut counts.ok,
                Verdict::Mismatch => &mut counts.mismatch,
                Verdict::Crash => &mut counts.crash,
                Verdict::Timeout => &mut counts.timeout,
                Verdict::NoAnswer => &mut counts.no_answer,
            } += 1;
        }
        let first_failure = runs.iter().find(|j| j.verdict != Verdict::Ok).map(|j| Failure {
            run: j.clone(),
            stderr_head: String::from_utf8_lossy(&j.stderr).lines().take(STDERR_LINES).map(str::to_string).collect(),
        });
        Report {
            bisect: args.bisect,
            command: args.command.clone(),
            ok: first_failure.is_none() && !interrupted,
            counts,
            first_failure,
            form,
            g: args.g,
            interrupted,
            n_asked: args.ns.0.len(),
            ranges: stretches(&runs),
            runs,
        }
    }
}

/// A long number shortened for people, as every message cuts one.
fn shown(value: &str) -> String {
    super::super::messages::cut(value)
}

impl Outcome for Report {
    fn human(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let how = if self.bisect { ", by bisection" } else { "" };
        let (Some(first), Some(last)) = (self.runs.first().map(|j| j.n), self.runs.last().map(|j| j.n)) else {
            // stopped before any run ended: nothing was checked
            let when = if self.interrupted { "interrupted before any" } else { "no" };
            return writeln!(
                out,
                "{when} run of c(n, {}) completed{how}: 0 of the {} n were run",
                self.g, self.n_asked
            );
        };
        writeln!(
            out,
            "{} runs of c(n, {}) for n from {first} to {last}{how}, answers taken as {}",
            self.runs.len(),
            self.g,
            self.form.name
        )?;
        let ranges: Vec<String> = self
            .ranges
            .iter()
            .map(|s| match s.from == s.to {
                true => format!("{} {} ({})", s.verdict.word(), s.from, s.runs),
                false => format!("{} {}..{} ({})", s.verdict.word(), s.from, s.to, s.runs),
            })
            .collect();
        writeln!(out, "{}", ranges.join(", "))?;
        if self.interrupted {
            writeln!(out, "interrupted: {} of the {} n were run", self.runs.len(), self.n_asked)?;
        }
        let Some(Failure { run, stderr_head }) = &self.first_failure else {
            return writeln!(out, "every run OK");
        };
        let detail = match run.verdict {
            Verdict::Mismatch => {
                format!("claimed {}, true {}", shown(run.answer.as_deref().unwrap_or_default()), shown(&run.expected))
            }
            Verdict::NoAnswer => format!("no integer on standard output ({})", run.status),
            Verdict::Timeout => format!("ran past the time limit, true {}", shown(&run.expected)),
            Verdict::Crash | Verdict::Ok => format!("{}, true {}", run.status, shown(&run.expected)),
        };
        let word = if self.bisect { "first n not OK (assuming right, then wrong)" } else { "first n not OK" };
        writeln!(out, "{word}: {}: {}: {detail}", run.n, run.verdict.word())?;
        if run.stdout_cut {
            writeln!(out, "  (its standard output was longer than 1 MiB: the answer was taken from its last 1 MiB)")?;
        }
        if !stderr_head.is_empty() {
            writeln!(out, "its standard error, first lines:")?;
            for line in stderr_head {
                // escaped as fibtree's own messages are: the program's ESC, \r and \b reach no terminal
                writeln!(out, "  | {}", crate::cli::messages::escaped(&line.chars().take(200).collect::<String>()))?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A run of n judged `verdict`, with nothing else to say.
    pub(in crate::cli::stress) fn judged(n: u64, verdict: Verdict) -> Judged {
        let status = String::new();
        Judged {
            answer: None,
            expected: String::new(),
            n,
            seconds: 0.0,
            status,
            stdout_cut: false,
            verdict,
            stderr: vec![],
        }
    }

    #[test]
    fn stretches_of_one_verdict() {
        let runs = [judged(1, Verdict::Ok), judged(2, Verdict::Ok), judged(5, Verdict::Crash), judged(9, Verdict::Ok)];
        let s = stretches(&runs);
        let s: Vec<(u64, u64, usize, Verdict)> = s.iter().map(|s| (s.from, s.to, s.runs, s.verdict)).collect();
        assert_eq!(s, [(1, 2, 2, Verdict::Ok), (5, 5, 1, Verdict::Crash), (9, 9, 1, Verdict::Ok)]);
    }
}
