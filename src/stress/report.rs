//! The report of `stress`: what ran and what was assumed, the stretches of n by verdict, the first
//! run not OK, each run's time and memory (the slowest, the largest peak, how the time grows with
//! n) beside fibtree's own time, in words or in JSON.

use std::io::Write;

use fibtree_util::human_bytes;
use serde::Serialize;

use super::super::args::StressArgs;
use super::forms;
use super::growth::{Growth, fit};
use super::library::OwnTimes;
use super::stretches::{Stretch, stretches, written};
use super::verdict::{Judged, Limits, Verdict};
use crate::messages::escaped;
use crate::session::Outcome;

/// The first run not OK, for the report: its verdict, the first lines of its standard error and the
/// last of its standard output.
#[derive(Debug, Serialize)]
struct Failure {
    #[serde(flatten)]
    run: Judged,
    stderr_head: Vec<String>,
    stdout_tail: Vec<String>,
}

/// How many runs got each verdict.
#[derive(Debug, Default, Serialize)]
struct Counts {
    crash: usize,
    memory_limit: usize,
    mismatch: usize,
    no_answer: usize,
    ok: usize,
    time_limit: usize,
    timeout: usize,
}

/// The run with the most CPU time (the most wall time where none was measured).
#[derive(Debug, Serialize)]
struct Slowest {
    cpu_seconds: Option<f64>,
    n: u64,
    seconds: f64,
}

/// The run with the largest peak memory.
#[derive(Debug, Serialize)]
struct Largest {
    n: u64,
    #[serde(serialize_with = "crate::json::int")]
    peak_memory_bytes: u64,
}

/// How `--bisect` chose its first runs.
#[derive(Debug)]
pub(super) struct Spread {
    pub(super) seed: u64,
    /// The n of the spread.
    pub(super) ns: Vec<u64>,
}

/// The report of a `stress` run (fields in alphabetical order, as the JSON lists them).
#[derive(Debug, Serialize)]
pub(super) struct Report {
    bisect: bool,
    command: String,
    counts: Counts,
    fibtree_times: Option<OwnTimes>,
    first_failure: Option<Failure>,
    form: forms::Taken,
    #[serde(serialize_with = "crate::json::int")]
    g: u64,
    /// How the CPU time grows with n (null before any run).
    growth: Option<Growth>,
    interrupted: bool,
    largest: Option<Largest>,
    limits: Limits,
    /// The n asked for.
    n_asked: usize,
    /// The n not run and taken as OK by `--bisect`'s assumption: those below the first n not OK
    /// (every n not run where all runs were OK); none where interrupted.
    n_assumed: usize,
    /// The n neither run nor assumed.
    n_not_run: usize,
    n_run: usize,
    pub(super) ok: bool,
    ranges: Vec<Stretch>,
    runs: Vec<Judged>,
    /// `--bisect`'s seed, as it is printed and read (`0x` and hexadecimal digits).
    #[serde(serialize_with = "hexadecimal")]
    seed: Option<u64>,
    slowest: Option<Slowest>,
    /// The n `--bisect` ran first.
    spread: Vec<u64>,
    /// The bounds of the n asked, for the report's first line.
    #[serde(skip)]
    asked: (u64, u64),
}

/// What a report is made of, beside the arguments.
pub(super) struct Made {
    pub(super) form: forms::Taken,
    pub(super) runs: Vec<Judged>,
    pub(super) interrupted: bool,
    pub(super) limits: Limits,
    pub(super) spread: Option<Spread>,
    pub(super) own: Option<OwnTimes>,
}

impl Report {
    pub(super) fn new(args: &StressArgs, made: Made) -> Report {
        let Made { form, mut runs, interrupted, limits, spread, own } = made;
        runs.sort_by_key(|j| j.n);
        let asked = &args.ns.0;
        let mut counts = Counts::default();
        for j in &runs {
            *match j.verdict {
                Verdict::Ok => &mut counts.ok,
                Verdict::Mismatch => &mut counts.mismatch,
                Verdict::Crash => &mut counts.crash,
                Verdict::Timeout => &mut counts.timeout,
                Verdict::NoAnswer => &mut counts.no_answer,
                Verdict::TimeLimit => &mut counts.time_limit,
                Verdict::MemoryLimit => &mut counts.memory_limit,
            } += 1;
        }
        let first_failure = runs.iter().find(|j| j.verdict != Verdict::Ok).map(|j| Failure {
            run: j.clone(),
            stderr_head: j.stderr_head.clone(),
            stdout_tail: j.stdout_tail.clone(),
        });
        let n_run = runs.len();
        // under --bisect's assumption, every n not run below the first not OK is OK
        let below = |n: u64| asked.partition_point(|&a| a < n) - runs.partition_point(|j| j.n < n);
        let n_assumed = match (&spread, interrupted, &first_failure) {
            (Some(_), false, Some(f)) => below(f.run.n),
            (Some(_), false, None) => asked.len() - n_run,
            _ => 0,
        };
        let measured: Vec<(u64, f64)> = runs.iter().filter_map(|j| Some((j.n, j.cpu_seconds?))).collect();
        let slowest = runs
            .iter()
            .max_by(|a, b| (a.cpu_seconds, a.seconds).partial_cmp(&(b.cpu_seconds, b.seconds)).expect("no NaN"))
            .map(|j| Slowest { cpu_seconds: j.cpu_seconds, n: j.n, seconds: j.seconds });
        let largest = runs
            .iter()
            .filter_map(|j| Some((j.peak_memory_bytes?, j.n)))
            .max_by_key(|&(peak, n)| (peak, std::cmp::Reverse(n)))
            .map(|(peak_memory_bytes, n)| Largest { n, peak_memory_bytes });
        Report {
            bisect: args.bisect,
            command: args.command.clone(),
            ok: first_failure.is_none() && !interrupted,
            counts,
            fibtree_times: own,
            first_failure,
            form,
            g: args.g,
            growth: (!measured.is_empty()).then(|| fit(&measured)),
            interrupted,
            largest,
            limits,
            n_asked: asked.len(),
            n_assumed,
            n_not_run: asked.len() - n_run - n_assumed,
            n_run,
            ranges: stretches(asked, &runs),
            runs,
            seed: spread.as_ref().map(|s| s.seed),
            slowest,
            spread: spread.map_or(Vec::new(), |s| s.ns),
            asked: (asked.first().copied().unwrap_or(0), asked.last().copied().unwrap_or(0)),
        }
    }

    /// The plot of the runs' time and memory against n, as an SVG document ([`super::svg`]).
    pub(super) fn svg(&self) -> String {
        super::svg::stress_svg(&self.command, &self.runs, self.fibtree_times.as_ref(), &self.limits)
    }

    /// The n asked for, in words: `n from 1 to 40`, `n = 5`.
    fn asked(&self) -> String {
        match self.asked {
            (a, b) if a == b => format!("n = {a}"),
            (a, b) => format!("from {a} to {b}"),
        }
    }

    /// The first run not OK in words, with its standard error's first lines and, where its answer
    /// was taken from a line that holds other numbers too, its standard output's last lines.
    fn failure(&self, out: &mut dyn Write, failure: &Failure) -> std::io::Result<()> {
        let Failure { run, stderr_head, stdout_tail } = failure;
        let word = if self.n_run < self.n_asked { "first n not OK of those run" } else { "first n not OK" };
        let (verdict, detail) = (run.verdict.word(), self.detail(run));
        writeln!(out, "{word}: {}: {verdict}{}: {detail}", run.n, qualifier(run))?;
        if run.n == self.asked.0 {
            // the first n asked: where the program first goes wrong may lie below what was asked
            writeln!(
                out,
                "  ({} is the first n asked: whether the program is wrong below it too is not known)",
                run.n
            )?;
        }
        if run.stdout_cut {
            writeln!(out, "  (its standard output was longer than 1 MiB: the answer was taken from its last 1 MiB)")?;
        }
        if run.answer_line_has_other_numbers && !stdout_tail.is_empty() {
            writeln!(
                out,
                "  (its answer was taken as the last integer of its output, on a line that holds other numbers)"
            )?;
            writeln!(out, "its standard output, last lines:")?;
            for line in stdout_tail {
                // escaped as fibtree's own messages are: the program's ESC, \r and \b reach no terminal
                writeln!(out, "  | {}", escaped(line))?;
            }
        }
        if !stderr_head.is_empty() {
            writeln!(out, "its standard error, first lines:")?;
            for line in stderr_head {
                writeln!(out, "  | {}", escaped(line))?;
            }
        }
        Ok(())
    }

    /// What a run not OK did, in words.
    fn detail(&self, run: &Judged) -> String {
        let claimed =
            || format!("claimed {}, true {}", shown(run.answer.as_deref().unwrap_or_default()), shown(&run.expected));
        let answered = match run.verdict_without_limits {
            Verdict::Mismatch => claimed(),
            Verdict::NoAnswer => format!("no integer on standard output ({})", run.status),
            Verdict::Timeout => format!("ran past the time limit, true {}", shown(&run.expected)),
            Verdict::Crash | Verdict::Ok | Verdict::TimeLimit | Verdict::MemoryLimit => {
                format!("{}, true {}", run.status, shown(&run.expected))
            }
        };
        let cpu = run.cpu_seconds.unwrap_or_default();
        let peak = run
            .peak_memory_bytes
            .map_or("peak not measured".to_string(), |p| format!("peak {} resident", human_bytes(p)));
        let memory = self.limits.memory_bytes.map_or(String::new(), human_bytes);
        match run.verdict {
            Verdict::TimeLimit => {
                let limit = self.limits.time_seconds.unwrap_or_default();
                let mut line = format!("{} of CPU time, past the limit of {limit} s", time(cpu));
                // killed for the limit (`(killed)`), it gave no answer to say anything of
                if !matches!(run.verdict_without_limits, Verdict::Ok | Verdict::TimeLimit) {
                    line += &format!("; {answered}");
                }
                line
            }
            Verdict::MemoryLimit if run.verdict_without_limits == Verdict::Crash => {
                let how = match run.allocation_failed {
                    true => "an allocation failed, as it says",
                    false => "its peak reached the limit",
                };
                format!("{} under the memory limit of {memory}: {how} ({peak})", run.status)
            }
            Verdict::MemoryLimit => {
                let mut line = format!("{peak}, past the limit of {memory}");
                if run.verdict_without_limits != Verdict::Ok {
                    line += &format!("; {answered}");
                }
                line
            }
            _ => answered,
        }
    }

    /// The lines after the first failure (or in its place): what was not run, and what is assumed.
    fn coverage(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let assumption = "taken as OK by --bisect's assumption (right up to some n, wrong from it on)";
        match &self.first_failure {
            Some(f) if self.bisect && !self.interrupted => {
                let n = f.run.n;
                let mut parts = Vec::new();
                if self.n_assumed > 0 {
                    parts.push(format!("{} n not run below {n}: {assumption}", self.n_assumed));
                }
                match (self.n_not_run, parts.is_empty()) {
                    (0, _) => {}
                    (k, false) => parts.push(format!("{k} n not run above it")),
                    (k, true) => parts.push(format!("{k} n not run above {n}")),
                }
                if parts.is_empty() { Ok(()) } else { writeln!(out, "{}", parts.join("; ")) }
            }
            Some(_) => Ok(()),
            None if self.n_run == self.n_asked => writeln!(out, "every run OK"),
            None if self.n_assumed > 0 => {
                writeln!(out, "the {} n run are OK; {} n not run: {assumption}", self.n_run, self.n_assumed)
            }
            // interrupted: said already
            None => Ok(()),
        }
    }

    /// The limits, the time and the memory of the runs, and fibtree's own time.
    fn measures(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let limits = &self.limits;
        if limits.time_seconds.is_some() || limits.memory_bytes.is_some() {
            let mut parts = Vec::new();
            if let Some(t) = limits.time_seconds {
                parts.push(format!("{t} s of CPU time"));
            }
            if let Some(m) = limits.memory_bytes {
                parts.push(format!("{} of address space", human_bytes(m)));
            }
            writeln!(out, "limits: {} a run; killed past {} s (--timeout)", parts.join(", "), limits.timeout_seconds)?;
        }
        if let Some(slowest) = &self.slowest {
            let cpu = slowest.cpu_seconds.map_or(String::new(), |c| format!("{} of CPU, ", time(c)));
            let growth = self.growth.as_ref().map_or(String::new(), |g| format!("; {}", g.note));
            writeln!(out, "time: the slowest n = {}: {cpu}{} wall{growth}", slowest.n, time(slowest.seconds))?;
        }
        // a peak within the copy of fibtree's own memory that the run began as is not told apart:
        // what wait4 gives is then a bound
        let within = "within the copy of fibtree's memory each run began as";
        let bounds =
            self.runs.iter().filter(|j| j.peak_memory_bytes.is_none()).filter_map(|j| j.peak_memory_at_most_bytes);
        let (unmeasured, bound) = bounds.fold((0, 0), |(k, most), b| (k + 1, most.max(b)));
        let bound = human_bytes(bound);
        match (&self.largest, unmeasured) {
            (Some(largest), 0) => {
                let peak = human_bytes(largest.peak_memory_bytes);
                writeln!(out, "memory: the largest peak n = {}: {peak} resident", largest.n)?;
            }
            (Some(largest), k) => {
                let (n, peak) = (largest.n, human_bytes(largest.peak_memory_bytes));
                writeln!(
                    out,
                    "memory: the largest peak n = {n}: {peak} resident; {k} more at most {bound} each ({within})"
                )?;
            }
            (None, 0) => writeln!(out, "memory: not measured")?,
            (None, _) => writeln!(out, "memory: each peak at most {bound} resident ({within})")?,
        }
        if let Some(own) = self.fibtree_times.as_ref().filter(|o| !o.times.is_empty()) {
            let times: Vec<String> = own.times.iter().map(|t| format!("n = {}: {}", t.n, time(t.seconds))).collect();
            writeln!(out, "fibtree: {} ({})", times.join(", "), own.how)?;
        }
        Ok(())
    }
}

/// A seed as it is printed and read (`0x` and hexadecimal digits), `null` where there is none (for
/// `serialize_with`).
fn hexadecimal<S: serde::Serializer>(seed: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
    match seed {
        Some(seed) => s.collect_str(&format_args!("{seed:#x}")),
        None => s.serialize_none(),
    }
}

/// `(answer right)` and the like after TIME LIMIT and MEMORY LIMIT: what the answer was, or
/// `(killed)` where the run was killed for the CPU time limit before it answered.
fn qualifier(run: &Judged) -> &'static str {
    match (run.verdict, run.verdict_without_limits) {
        (Verdict::TimeLimit, Verdict::TimeLimit) => " (killed)",
        (Verdict::TimeLimit | Verdict::MemoryLimit, Verdict::Ok) => " (answer right)",
        (Verdict::TimeLimit | Verdict::MemoryLimit, Verdict::Mismatch) => " (answer wrong)",
        (Verdict::TimeLimit | Verdict::MemoryLimit, Verdict::NoAnswer) => " (no answer)",
        (Verdict::TimeLimit | Verdict::MemoryLimit, Verdict::Crash) => " (crashed)",
        _ => "",
    }
}

/// Seconds as people read them, to about three figures: `2.41 s`, `12 ms`, `1.2 ms`, `0.041 ms`.
fn time(seconds: f64) -> String {
    match seconds {
        s if s >= 1.0 => format!("{s:.2} s"),
        s if s >= 0.01 => format!("{:.0} ms", s * 1e3),
        s if s >= 0.001 => format!("{:.1} ms", s * 1e3),
        s => format!("{:.3} ms", s * 1e3),
    }
}

/// A long number shortened for people, as every message cuts one.
fn shown(value: &str) -> String {
    super::super::messages::cut(value)
}

impl Outcome for Report {
    fn human(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let how = match self.seed {
            Some(seed) => format!(", by bisection after a spread of {} (seed {seed:#x})", self.spread.len()),
            None => String::new(),
        };
        if self.runs.is_empty() {
            // stopped before any run ended: nothing was checked
            let when = if self.interrupted { "interrupted before any" } else { "no" };
            return writeln!(
                out,
                "{when} run of c(n, {}) completed{how}: 0 of the {} n were run",
                self.g, self.n_asked
            );
        }
        let asked = self.asked();
        let (runs, g, form) = (fibtree_util::counted(self.n_run as u64, "run"), self.g, &self.form.name);
        writeln!(out, "{runs} of c(n, {g}) of the {} n asked ({asked}){how}, answers taken as {form}", self.n_asked)?;
        writeln!(out, "{}", written(&self.ranges))?;
        if self.interrupted {
            writeln!(out, "interrupted: {} of the {} n were run", self.n_run, self.n_asked)?;
        }
        if let Some(failure) = &self.first_failure {
            self.failure(out, failure)?;
        }
        self.coverage(out)?;
        self.measures(out)
    }
}
