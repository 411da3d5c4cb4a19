//! The verdict of one run of `stress`: its answer against the true value and how it ended, then its
//! CPU time and peak memory against the limits asked for.

use serde::Serialize;

use super::super::runner::{Ending, ProgramRun};
use super::forms::last_integer;

/// The lines of a failing run's standard error (its first) and standard output (its last) that the
/// report shows.
pub(super) const SHOWN_LINES: usize = 10;

/// The characters of such a line that are shown.
const SHOWN_WIDTH: usize = 200;

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
    #[serde(rename = "TIME LIMIT")]
    TimeLimit,
    #[serde(rename = "MEMORY LIMIT")]
    MemoryLimit,
}

impl Verdict {
    /// The word the report uses.
    pub(super) fn word(self) -> &'static str {
        match self {
            Verdict::Ok => "OK",
            Verdict::Mismatch => "MISMATCH",
            Verdict::Crash => "CRASH",
            Verdict::Timeout => "TIMEOUT",
            Verdict::NoAnswer => "NO ANSWER",
            Verdict::TimeLimit => "TIME LIMIT",
            Verdict::MemoryLimit => "MEMORY LIMIT",
        }
    }
}

/// The limits a run is judged against (none unless asked for).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub(super) struct Limits {
    /// `--memory-limit`: the address space of each of its processes, in bytes.
    #[serde(serialize_with = "crate::json::opt_int")]
    pub(super) memory_bytes: Option<u64>,
    /// `--time-limit`: its CPU time, in seconds.
    pub(super) time_seconds: Option<f64>,
    /// `--timeout`: the wall time past which it is killed, in seconds.
    pub(super) timeout_seconds: f64,
}

/// One run judged (fields in alphabetical order, as the JSON lists them).
#[derive(Clone, Debug, Serialize)]
pub(super) struct Judged {
    /// The last integer the program printed, without leading zeros.
    pub(super) answer: Option<String>,
    /// Whether the line the answer was taken from holds other numbers too (`9155 (took 3 ms)`).
    pub(super) answer_line_has_other_numbers: bool,
    /// The CPU time of its process and of the children it waited for, or of its process group as
    /// read while it ran where more, where it was reaped.
    pub(super) cpu_seconds: Option<f64>,
    /// The true value, in the program's form.
    pub(super) expected: String,
    pub(super) n: u64,
    /// What `wait4` gives for it (`ru_maxrss`), at least the peak: the peak, or the copy of
    /// fibtree's memory that the run began as, where larger.
    #[serde(serialize_with = "crate::json::opt_int")]
    pub(super) peak_memory_at_most_bytes: Option<u64>,
    /// The peak resident memory of the largest of those processes, in bytes, where it is told
    /// apart from the copy of fibtree's memory that the run began as.
    #[serde(serialize_with = "crate::json::opt_int")]
    pub(super) peak_memory_bytes: Option<u64>,
    /// Its wall time.
    pub(super) seconds: f64,
    /// How the run ended: `exit status 0`, `killed by signal 11 (SIGSEGV)`, ...
    pub(super) status: String,
    /// Whether its standard output was longer than the 1 MiB kept (its answer taken from the last 1 MiB).
    pub(super) stdout_cut: bool,
    pub(super) verdict: Verdict,
    /// The verdict of its answer and its ending alone, the limits aside: `verdict` but for TIME
    /// LIMIT and MEMORY LIMIT, where it says whether the answer was right; TIME LIMIT for a run
    /// killed past the CPU time limit, which gave no answer to judge.
    pub(super) verdict_without_limits: Verdict,
    /// Whether its standard error says that an allocation failed.
    #[serde(skip)]
    pub(super) allocation_failed: bool,
    /// The first lines of its standard error.
    #[serde(skip)]
    pub(super) stderr_head: Vec<String>,
    /// The last lines of its standard output.
    #[serde(skip)]
    pub(super) stdout_tail: Vec<String>,
}

/// `run` judged against `expected` and `limits`; `shell`: it ran through `sh -c`, whose exit
/// status 128 + S says that the program ended by signal S.
///
/// TIMEOUT where it was killed past its wall time, TIME LIMIT where it was killed past its CPU time
/// limit (its answer then not judged: `verdict_without_limits` TIME LIMIT too); else MEMORY LIMIT
/// where a memory limit was set and it failed (exit
/// status not 0, a signal, or not started) with its standard error (or the reason it could not
/// start) saying that an allocation failed, or with its peak at the limit; else TIME LIMIT where
/// its CPU time is past the time limit; else MEMORY LIMIT where its peak is past the memory limit;
/// else its answer's verdict.
pub(super) fn judge(run: &ProgramRun, expected: &str, shell: bool, limits: &Limits) -> Judged {
    let (answer, others) = match last_integer(&run.stdout) {
        Some(answer) => (Some(answer), other_numbers_on_last_line(&run.stdout)),
        None => (None, false),
    };
    let answered = match (&run.ending, &answer) {
        (Ending::TimedOut, _) => Verdict::Timeout,
        (Ending::CpuLimit, _) => Verdict::TimeLimit,
        (Ending::Exited(0), None) => Verdict::NoAnswer,
        (Ending::Exited(0), Some(a)) if a == expected => Verdict::Ok,
        (Ending::Exited(0), Some(_)) => Verdict::Mismatch,
        _ => Verdict::Crash,
    };
    let (cpu, peak) = (run.usage.map(|u| u.cpu_seconds), run.usage.and_then(|u| u.peak_bytes));
    let allocation_failed = allocation_failed(&run.stderr)
        || matches!(&run.ending, Ending::NotStarted(why) if allocation_failed(why.as_bytes()));
    let memory = limits.memory_bytes;
    let out_of_memory = answered == Verdict::Crash
        && memory.is_some()
        && (allocation_failed || peak.zip(memory).is_some_and(|(p, m)| p >= m));
    let verdict = match answered {
        Verdict::Timeout | Verdict::TimeLimit => answered,
        _ if out_of_memory => Verdict::MemoryLimit,
        _ if cpu.zip(limits.time_seconds).is_some_and(|(c, l)| c > l) => Verdict::TimeLimit,
        _ if peak.zip(memory).is_some_and(|(p, m)| p > m) => Verdict::MemoryLimit,
        answered => answered,
    };
    Judged {
        answer,
        answer_line_has_other_numbers: others,
        cpu_seconds: cpu.map(|c| (c * 1e6).round() / 1e6),
        expected: expected.to_string(),
        n: run.n,
        peak_memory_bytes: peak,
        peak_memory_at_most_bytes: run.usage.map(|u| u.max_resident_bytes),
        seconds: (run.seconds * 1000.0).round() / 1000.0,
        status: status_of(&run.ending, shell),
        stdout_cut: run.stdout_cut,
        verdict,
        verdict_without_limits: answered,
        allocation_failed,
        stderr_head: String::from_utf8_lossy(&run.stderr).lines().take(SHOWN_LINES).map(shown_line).collect(),
        stdout_tail: last_lines(&run.stdout),
    }
}

/// A line of a program's output as the report shows it: its first [`SHOWN_WIDTH`] characters.
fn shown_line(line: &str) -> String {
    line.chars().take(SHOWN_WIDTH).collect()
}

/// The last [`SHOWN_LINES`] lines of `bytes` that hold anything but blanks.
fn last_lines(bytes: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(SHOWN_LINES)..].iter().map(|l| shown_line(l)).collect()
}

/// Whether the line of `bytes` that holds the last integer (the answer) holds another run of
/// digits before it. Cost O(that line).
fn other_numbers_on_last_line(bytes: &[u8]) -> bool {
    let Some(end) = bytes.iter().rposition(u8::is_ascii_digit) else { return false };
    let line_start = bytes[..end].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let before = bytes[line_start..=end].iter().rposition(|b| !b.is_ascii_digit()).map_or(0, |i| i + 1);
    bytes[line_start..line_start + before].iter().any(u8::is_ascii_digit)
}

/// What programs and their runtimes print when an allocation fails (compared without case): C's
/// `strerror(ENOMEM)`, coreutils, C++, Python, Rust, Go, Java, the shells.
const ALLOCATION_FAILURES: [&str; 12] = [
    "cannot allocate memory",
    "memory exhausted",
    "out of memory",
    "bad_alloc",
    "memoryerror",
    "memory allocation of",
    "allocation failed",
    "failed to allocate",
    "outofmemoryerror",
    "not enough memory",
    "cannot allocate",
    "can't allocate",
];

/// Whether `stderr` (the first 1 MiB kept of it) says that an allocation failed. Cost O(bytes).
pub(super) fn allocation_failed(stderr: &[u8]) -> bool {
    let text = String::from_utf8_lossy(stderr).to_lowercase();
    ALLOCATION_FAILURES.iter().any(|p| text.contains(p))
}

/// How a run ended, in words; `shell`: it ran through `sh -c`.
pub(super) fn status_of(ending: &Ending, shell: bool) -> String {
    match ending {
        Ending::Exited(code @ 129..=192) if shell && !signal_name(code - 128).is_empty() => {
            format!("exit status {code}: signal {}{}, as the shell says", code - 128, signal_name(code - 128))
        }
        Ending::Exited(code) => format!("exit status {code}"),
        Ending::Signalled(signal) => format!("killed by signal {signal}{}", signal_name(*signal)),
        Ending::TimedOut => "past the time limit (killed)".into(),
        Ending::CpuLimit => "past the CPU time limit (killed)".into(),
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
        libc::SIGXCPU => " (SIGXCPU)",
        _ => "",
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::super::runner::Usage;
    use super::*;

    /// A run of n judged `verdict`, with nothing else to say.
    pub(in crate::stress) fn judged(n: u64, verdict: Verdict) -> Judged {
        Judged {
            answer: None,
            answer_line_has_other_numbers: false,
            cpu_seconds: None,
            expected: String::new(),
            n,
            peak_memory_bytes: None,
            peak_memory_at_most_bytes: None,
            seconds: 0.0,
            status: String::new(),
            stdout_cut: false,
            verdict,
            verdict_without_limits: verdict,
            allocation_failed: false,
            stderr_head: vec![],
            stdout_tail: vec![],
        }
    }

    /// A run of 5 that ended so, printed `stdout` and `stderr`, and used `cpu` seconds and `peak` bytes.
    fn run(ending: Ending, stdout: &str, stderr: &str, cpu: f64, peak: u64) -> ProgramRun {
        ProgramRun {
            n: 5,
            ending,
            stdout: stdout.into(),
            stderr: stderr.into(),
            stdout_cut: false,
            seconds: cpu,
            usage: Some(Usage { cpu_seconds: cpu, max_resident_bytes: peak, peak_bytes: Some(peak) }),
            alone: 0,
        }
    }

    #[test]
    fn limits_judged_after_the_answer() {
        let limits = Limits { memory_bytes: Some(64 << 20), time_seconds: Some(0.5), timeout_seconds: 10.0 };
        let verdicts = |r: &ProgramRun| {
            let j = judge(r, "3", true, &limits);
            (j.verdict, j.verdict_without_limits)
        };
        let ok = run(Ending::Exited(0), "3\n", "", 0.1, 1 << 20);
        assert_eq!(verdicts(&ok), (Verdict::Ok, Verdict::Ok));
        let slow = run(Ending::Exited(0), "3\n", "", 2.0, 1 << 20);
        assert_eq!(verdicts(&slow), (Verdict::TimeLimit, Verdict::Ok));
        let slow_wrong = run(Ending::Exited(0), "4\n", "", 2.0, 1 << 20);
        assert_eq!(verdicts(&slow_wrong), (Verdict::TimeLimit, Verdict::Mismatch));
        let failed = run(Ending::Exited(1), "", "tail: memory exhausted\n", 0.1, 3 << 20);
        assert_eq!(verdicts(&failed), (Verdict::MemoryLimit, Verdict::Crash));
        let crashed = run(Ending::Signalled(11), "", "", 0.1, 3 << 20);
        assert_eq!(verdicts(&crashed), (Verdict::Crash, Verdict::Crash));
        let at_the_limit = run(Ending::Signalled(9), "", "", 0.1, 64 << 20);
        assert_eq!(verdicts(&at_the_limit), (Verdict::MemoryLimit, Verdict::Crash));
        let big = run(Ending::Exited(0), "3\n", "", 0.1, 65 << 20);
        assert_eq!(verdicts(&big), (Verdict::MemoryLimit, Verdict::Ok));
        let killed = run(Ending::TimedOut, "", "", 20.0, 1 << 20);
        assert_eq!(verdicts(&killed), (Verdict::Timeout, Verdict::Timeout));
        // killed past the CPU time limit: no answer judged, whatever it printed or its peak
        let stopped = run(Ending::CpuLimit, "3\n", "out of memory", 0.6, 65 << 20);
        assert_eq!(verdicts(&stopped), (Verdict::TimeLimit, Verdict::TimeLimit));
        assert_eq!(judge(&stopped, "3", true, &limits).status, "past the CPU time limit (killed)");
        // without limits, an allocation that failed is the program's crash
        let free = judge(&failed, "3", true, &Limits::default());
        assert_eq!((free.verdict, free.allocation_failed), (Verdict::Crash, true));
    }

    #[test]
    fn an_answer_among_other_numbers() {
        let j = |out: &str| judge(&run(Ending::Exited(0), out, "", 0.0, 0), "3", true, &Limits::default());
        let among = j("9155 (took 3 ms)\n");
        assert_eq!((among.answer.as_deref(), among.answer_line_has_other_numbers), (Some("3"), true));
        assert_eq!(among.stdout_tail, ["9155 (took 3 ms)"]);
        assert!(!j("took 7 ms\n3\n").answer_line_has_other_numbers);
        assert!(!j("f(5) =\n 3").answer_line_has_other_numbers);
        assert!(j("f(5) = 3").answer_line_has_other_numbers);
        assert!(!j("answer: 3").answer_line_has_other_numbers);
    }
}
