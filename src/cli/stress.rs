//! `fibtree stress`: another program run once for each n of a range, each answer checked against
//! c(n, G), and the n from which it goes wrong. The true values come from one run of the library
//! over every n at once (the modular engine for residues, the exact engine for exact values); the
//! program's runs are [`super::runner`]'s; what the program prints (its form) is given, or found
//! from its first answers ([`super::forms`]).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;

use fibtree::{Hooks, Options, Param};
use fibtree_util::{probe_folder, write_atomically};
use serde::Serialize;

use super::args::StressArgs;
use super::forms::{self, AnswerForm, Truth, last_integer};
use super::runner::{Ending, Program, ProgramRun, run_all, split_words};
use super::session::{Outcome, OutputForm, Session};
use super::{flag, usage};

/// The lines of a failing run's standard error that the report shows.
const STDERR_LINES: usize = 10;

/// The verdict of one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
enum Verdict {
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
struct Judged {
    /// The last integer the program printed, without leading zeros.
    answer: Option<String>,
    /// The true value, in the program's form.
    expected: String,
    n: u64,
    seconds: f64,
    /// How the run ended: `exit status 0`, `killed by signal 11 (SIGSEGV)`, ...
    status: String,
    /// Whether its standard output was longer than the 1 MiB kept (its answer taken from the last 1 MiB).
    stdout_cut: bool,
    verdict: Verdict,
    #[serde(skip)]
    stderr: Vec<u8>,
}

/// `run` judged against `expected`; `shell`: it ran through `sh -c`, whose exit status 128 + S
/// says that the program ended by signal S.
fn judge(run: &ProgramRun, expected: &str, shell: bool) -> Judged {
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
struct Report {
    bisect: bool,
    command: String,
    counts: Counts,
    first_failure: Option<Failure>,
    form: forms::Taken,
    #[serde(serialize_with = "super::json::int")]
    g: u64,
    interrupted: bool,
    /// The n asked for.
    n_asked: usize,
    ok: bool,
    ranges: Vec<Stretch>,
    runs: Vec<Judged>,
}

impl Report {
    fn new(args: &StressArgs, form: forms::Taken, mut runs: Vec<Judged>, interrupted: bool) -> Report {
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

/// A long number shortened for people: its first and last 20 digits and its length.
fn shown(value: &str) -> String {
    if value.len() <= 60 {
        value.to_string()
    } else {
        format!("{}...{} ({} digits)", &value[..20], &value[value.len() - 20..], value.len())
    }
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
                writeln!(out, "  | {}", super::messages::escaped(&line.chars().take(200).collect::<String>()))?;
            }
        }
        Ok(())
    }
}

/// The checks of the arguments that need no run: the program's words, the folder for the outputs.
///
/// # Errors
/// A usage error naming the argument.
fn checked_program(args: &StressArgs) -> anyhow::Result<Program> {
    if args.command.trim().is_empty() {
        return Err(usage("CMD", "expected a command, got an empty one"));
    }
    let words = match args.no_shell {
        true => Some(split_words(&args.command).map_err(|e| usage("CMD", e))?),
        false => None,
    };
    if let Some(program) = words.as_ref().map(|w| &w[0]) {
        runnable(program).map_err(|why| usage("CMD", why))?;
    }
    if let Some(dir) = &args.keep_output {
        std::fs::create_dir_all(dir)
            .and_then(|()| probe_folder(&dir.join("0.stdout")))
            .map_err(|e| usage("--keep-output", format!("cannot write in the folder '{}': {e}", dir.display())))?;
        check_kept_names(dir, &args.ns.0, args.run.output.output.as_deref())?;
    }
    Ok(Program { command: args.command.clone(), words, timeout: args.timeout })
}

/// Whether `program` names an executable file: as a path where it has a `/`, else on `PATH`.
///
/// # Errors
/// Why not, in words: no such file, or a file that is not executable (with its mode), or not a
/// file.
fn runnable(program: &str) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let candidates: Vec<std::path::PathBuf> = match program.contains('/') {
        true => vec![program.into()],
        false => {
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).map(|d| d.join(program)).collect()
        }
    };
    let mut refused = None;
    for path in &candidates {
        let Ok(meta) = std::fs::metadata(path) else { continue };
        let mode = meta.permissions().mode();
        match (meta.is_file(), mode & 0o111 != 0) {
            (true, true) => return Ok(()),
            (true, false) => {
                let why =
                    format!("'{}' is not executable (mode {:o}; chmod +x makes it so)", path.display(), mode & 0o7777);
                refused.get_or_insert(why);
            }
            (false, _) => {
                refused.get_or_insert(format!("'{}' is not a file", path.display()));
            }
        }
    }
    Err(refused.unwrap_or_else(|| format!("no program '{program}' found (a path, or a name on PATH)")))
}

/// The runs of one `stress` command: the program, where its outputs are kept, the runs done.
struct Runs<'a> {
    program: Program,
    jobs: usize,
    keep: Option<&'a Path>,
    stop: &'a AtomicBool,
    hooks: Hooks<'a>,
    done: Mutex<BTreeMap<u64, ProgramRun>>,
    /// The first error keeping a run's output.
    failed: Mutex<Option<anyhow::Error>>,
    total: u64,
}

impl Runs<'_> {
    /// Runs the program for each of `ns` not run yet; the runs of `ns` afterwards.
    fn run(&self, ns: &[u64]) -> Vec<ProgramRun> {
        let todo: Vec<u64> = {
            let done = self.done.lock().expect("never poisoned");
            // the runs start: the bar's rate is measured from here
            self.hooks.progress("runs", done.len() as u64, self.total.max(done.len() as u64));
            ns.iter().copied().filter(|n| !done.contains_key(n)).collect()
        };
        let record = |run: ProgramRun| {
            if let Some(dir) = self.keep
                && let Err(e) = keep(dir, &run)
            {
                self.failed.lock().expect("never poisoned").get_or_insert(e);
            }
            let mut done = self.done.lock().expect("never poisoned");
            done.insert(run.n, run);
            self.hooks.progress("runs", done.len() as u64, self.total.max(done.len() as u64));
        };
        run_all(&self.program, &todo, self.jobs, self.stop, &record);
        let done = self.done.lock().expect("never poisoned");
        ns.iter().filter_map(|n| done.get(n).cloned()).collect()
    }

    /// Every run done.
    fn all(&self) -> Vec<ProgramRun> {
        self.done.lock().expect("never poisoned").values().cloned().collect()
    }
}

/// Whether the file name `name` is one that `--keep-output` writes for one of `ns` (`N.stdout` or
/// `N.stderr`). Cost O(log ns).
fn kept_for(name: &str, ns: &[u64]) -> bool {
    let n = name.strip_suffix(".stdout").or_else(|| name.strip_suffix(".stderr"));
    n.and_then(|n| fibtree_util::parse_whole::<u64>(n).ok()).is_some_and(|n| ns.binary_search(&n).is_ok())
}

/// Refuses, before any run, what would make a kept output fail or be lost after the runs: `-o`
/// naming one of the files kept in `dir`, and a name of those files already taken by something
/// other than a file (a folder, say). Cost: one listing of `dir`.
///
/// # Errors
/// A usage error naming `--output` or `--keep-output`.
fn check_kept_names(dir: &Path, ns: &[u64], output: Option<&Path>) -> anyhow::Result<()> {
    let same_folder = |path: &Path| {
        let folder = fibtree_util::folder_of(path);
        matches!((folder.canonicalize(), dir.canonicalize()), (Ok(a), Ok(b)) if a == b)
    };
    if let Some(output) = output
        && output.file_name().and_then(|n| n.to_str()).is_some_and(|n| kept_for(n, ns))
        && same_folder(output)
    {
        let why =
            format!("'{}' is a file --keep-output writes a run's output to; expected another file", output.display());
        return Err(usage("--output", why));
    }
    let entries = std::fs::read_dir(dir)
        .map_err(|e| usage("--keep-output", format!("cannot read the folder '{}': {e}", dir.display())))?;
    for entry in entries.flatten() {
        if !entry.file_name().to_str().is_some_and(|n| kept_for(n, ns)) {
            continue;
        }
        if !std::fs::metadata(entry.path()).is_ok_and(|m| m.is_file()) {
            let why = format!("'{}' is not a file, so a run's output cannot be kept there", entry.path().display());
            return Err(usage("--keep-output", why));
        }
    }
    Ok(())
}

/// Writes `run`'s standard output and error into `dir` as `N.stdout` and `N.stderr`.
///
/// # Errors
/// A write that failed, naming the file and `--keep-output`.
fn keep(dir: &Path, run: &ProgramRun) -> anyhow::Result<()> {
    for (suffix, bytes) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
        let path = dir.join(format!("{}.{suffix}", run.n));
        write_atomically(&path, bytes)
            .map_err(|e| anyhow::anyhow!("writing '{}' (--keep-output): {e}", path.display()))?;
    }
    Ok(())
}

pub(super) fn stress(args: StressArgs) -> anyhow::Result<ExitCode> {
    let program = checked_program(&args)?;
    let ns = args.ns.0.clone();
    let given = match (args.modulus, args.last_digits, args.exact) {
        (Some(m), ..) => Some(AnswerForm::Modulo(m)),
        (_, Some(d), _) => Some(AnswerForm::LastDigits(d)),
        (.., true) => Some(AnswerForm::Exact),
        _ => None,
    };
    // the library's N is one of the n asked for
    let stress_flags = |param| if param == Param::N { "--n" } else { flag(param) };
    let mut session =
        Session::new(args.run.output.output.as_deref(), args.run.threads.threads, !args.json)?.naming(stress_flags);
    let stop = session.cancel_flag();
    // the bar counts the runs, not the work of the true values counted before them
    session.count_runs("runs");
    let jobs = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let (engine, memory_limit) = (args.run.engine, Some(args.run.memory_limit()));
    let total = if args.bisect { ns.len().max(2).ilog2() as u64 + 3 } else { ns.len() as u64 };
    let (taken, judged) = session.compute(|hooks, _| {
        let options = Options { hooks, engine, memory_limit, ..Options::default() };
        let runs = Runs {
            program,
            jobs,
            keep: args.keep_output.as_deref(),
            stop: &stop,
            hooks,
            done: Mutex::new(BTreeMap::new()),
            failed: Mutex::new(None),
            total,
        };
        let taken = match given {
            Some(form) => forms::Taken::given(form),
            None => forms::detect(&ns, args.g, &options, |probes| runs.run(probes))?,
        };
        let truth = Truth::of(taken.form, &ns, args.g, &options)?;
        let judge_one = |run: &ProgramRun| judge(run, truth.of_n(run.n), !args.no_shell);
        if args.bisect {
            let known: Vec<u64> = runs.all().iter().map(|r| r.n).collect();
            bisect(&ns, &known, |n| runs.run(&[n]).first().map(judge_one));
        } else {
            runs.run(&ns);
        }
        if let Some(e) = runs.failed.lock().expect("never poisoned").take() {
            return Err(e);
        }
        Ok((taken, runs.all().iter().map(judge_one).collect::<Vec<_>>()))
    })?;
    let interrupted = stop.load(std::sync::atomic::Ordering::Relaxed);
    let report = Report::new(&args, taken, judged, interrupted);
    if interrupted {
        // what was done is written all the same; a second signal still ends the process
        super::os::forget_signals();
    }
    session.emit(&report, OutputForm::of(args.json, false))?;
    if interrupted {
        return Err(session.stopped());
    }
    Ok(if report.ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// The first n of `ns` (ascending) whose run is not OK, assuming every run is OK before it and none
/// after; `known` are the n already run (as the probes of the form), whose verdicts bound it first,
/// then the ends, then halves. `judge(n)` runs the program for n, or gives the verdict of a run
/// done (`None` once stopped). Runs about log2(ns.len()) + 2 times.
fn bisect(ns: &[u64], known: &[u64], judge: impl Fn(u64) -> Option<Judged>) -> Option<u64> {
    let ok = |i: usize| judge(ns[i]).map(|j| j.verdict == Verdict::Ok);
    let mut known: Vec<usize> = known.iter().filter_map(|n| ns.binary_search(n).ok()).collect();
    known.sort_unstable();
    // the smallest n known wrong, else the last if it is wrong
    let mut wrong = None;
    for &i in &known {
        if !ok(i)? {
            wrong = Some(i);
            break;
        }
    }
    let wrong = match wrong {
        Some(i) => i,
        None if ok(ns.len().checked_sub(1)?)? => return None,
        None => ns.len() - 1,
    };
    // the largest n known right below it, else the first if it is right
    let right = match known.iter().copied().filter(|&i| i < wrong).max() {
        Some(i) => i,
        None if wrong > 0 && ok(0)? => 0,
        None => return Some(ns[0]),
    };
    let (mut right, mut wrong) = (right, wrong);
    while wrong - right > 1 {
        let mid = right + (wrong - right) / 2;
        if ok(mid)? {
            right = mid;
        } else {
            wrong = mid;
        }
    }
    Some(ns[wrong])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run of n judged `verdict`, with nothing else to say.
    fn judged(n: u64, verdict: Verdict) -> Judged {
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
    fn bisection_finds_the_first_wrong_n_in_few_runs() {
        let ns: Vec<u64> = (1..=20000).collect();
        for first_wrong in [1, 2, 777, 10001, 19999, 20000, 20001] {
            for known in [&[][..], &[90, 91, 92], &[15000]] {
                let calls = std::cell::RefCell::new(std::collections::BTreeSet::new());
                let judge = |n: u64| {
                    calls.borrow_mut().insert(n);
                    Some(judged(n, if n < first_wrong { Verdict::Ok } else { Verdict::Mismatch }))
                };
                let found = bisect(&ns, known, judge);
                assert_eq!(found, (first_wrong <= 20000).then_some(first_wrong), "{known:?}");
                let runs = calls.borrow().iter().filter(|n| !known.contains(n)).count();
                assert!(runs <= 17, "{first_wrong}, {known:?}: {runs} runs");
            }
        }
        // a run known wrong bounds the search: no other run above it
        let judge = |n: u64| Some(judged(n, if (50..=100).contains(&n) { Verdict::Crash } else { Verdict::Ok }));
        assert_eq!(bisect(&ns, &[20, 60], judge), Some(50));
        assert_eq!(bisect(&[7], &[], |n| Some(judged(n, Verdict::Timeout))), Some(7));
        assert_eq!(bisect(&[7], &[], |n| Some(judged(n, Verdict::Ok))), None);
        assert_eq!(bisect(&ns, &[], |_| None), None);
    }

    #[test]
    fn stretches_of_one_verdict() {
        let runs = [judged(1, Verdict::Ok), judged(2, Verdict::Ok), judged(5, Verdict::Crash), judged(9, Verdict::Ok)];
        let s = stretches(&runs);
        let s: Vec<(u64, u64, usize, Verdict)> = s.iter().map(|s| (s.from, s.to, s.runs, s.verdict)).collect();
        assert_eq!(s, [(1, 2, 2, Verdict::Ok), (5, 5, 1, Verdict::Crash), (9, 9, 1, Verdict::Ok)]);
    }
}
