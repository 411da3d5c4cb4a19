//! The limit on the user's processes (RLIMIT_NPROC) that fibtree runs under is fibtree's to manage,
//! not the program's to be judged by. fibtree cannot see inside the program, so under a finite
//! limit a run that failed (an exit status not 0, a signal, or not started), or whose standard
//! error shows a failed fork, is run again alone: with no other run under way, what the runs
//! before left running ended, fibtree holding one thread, and half as many runs at a time from
//! then on (as long as the answer is right, a failed fork shown is no matter: a program that warns
//! of threads it could not start and goes on). Where the run alone still goes wrong showing a
//! failed fork, three times, the command is refused naming the limit (exit 2): no verdict on the
//! program. Otherwise the run alone is the one judged. Once a run alone has failed showing no
//! failed fork (the program's failures are its own), failures that show none are not run again.

use std::sync::atomic::{AtomicBool, Ordering};

use super::super::runner::{Ending, ProgramRun};
use super::forms::last_integer;
use crate::error::refused;

/// What the standard error of a program, or of a shell or runtime it uses, says when a fork or a
/// new thread fails for the process limit (compared without case): dash's `Cannot fork`, bash's
/// `fork: retry: Resource temporarily unavailable`, `strerror(EAGAIN)`, Python's `BlockingIOError`,
/// the JVM's `unable to create native thread`.
const FAILED_FORKS: [&str; 8] = [
    "cannot fork",
    "can't fork",
    "fork: ",
    "fork failed",
    "resource temporarily unavailable",
    "eagain",
    "unable to create native thread",
    "blockingioerror",
];

/// The first line of `stderr` that shows a failed fork, where one does. Cost O(bytes).
pub(super) fn failed_fork(stderr: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(stderr);
    let line = text.lines().find(|line| {
        let line = line.to_lowercase();
        FAILED_FORKS.iter().any(|p| line.contains(p))
    })?;
    Some(line.chars().take(200).collect())
}

/// Whether a run failed: an exit status not 0, a signal, or not started (a CRASH, limits aside).
fn failed(ending: &Ending) -> bool {
    matches!(ending, Ending::Exited(1..) | Ending::Exited(..=-1) | Ending::Signalled(_) | Ending::NotStarted(_))
}

/// What to do with a run handed on.
#[derive(Debug)]
pub(super) enum Next {
    /// Judge it.
    Keep,
    /// Run it again, alone.
    Again,
    /// Refuse the command, with this error: the limit left the program no room even alone.
    Refuse(crate::error::Error),
}

/// How many times a run is made alone (after its first) before its failed forks refuse the command:
/// the first time may still find what other runs left ending.
const ALONE_TRIES: u32 = 3;

/// The process limit, where one is set, and whether a run alone has shown the program's failures
/// to be its own.
pub(super) struct ProcessLimit {
    limit: Option<u64>,
    /// A run alone failed with no failed fork shown: a failure showing none is not run again.
    own_failure: AtomicBool,
}

impl ProcessLimit {
    /// This process's limit (RLIMIT_NPROC), where finite.
    pub(super) fn of_this_process() -> ProcessLimit {
        ProcessLimit::new(super::super::os::process_limit())
    }

    pub(super) fn new(limit: Option<u64>) -> ProcessLimit {
        ProcessLimit { limit, own_failure: AtomicBool::new(false) }
    }

    /// What to do with `run`, whose answer `ok` says is right or not (`None`: not known yet, a
    /// run that ended well with an integer on its standard output is taken as answered): see the
    /// module's notes.
    pub(super) fn next(&self, run: &ProgramRun, ok: Option<bool>) -> Next {
        let Some(limit) = self.limit else { return Next::Keep };
        let (fork, failed) = (failed_fork(&run.stderr), failed(&run.ending));
        // a run that failed, or whose answer is not right; one right with a failed fork shown
        // (a warning of threads it could not start, and it went on) is no matter
        let wrong = failed || ok.map_or_else(|| last_integer(&run.stdout).is_none(), |ok| !ok);
        match (wrong, fork) {
            (false, _) => Next::Keep,
            (true, Some(_)) if run.alone < ALONE_TRIES => Next::Again,
            (true, Some(line)) => {
                let line = crate::messages::escaped(&line);
                let (n, threads) = (run.n, super::super::os::threads());
                let threads = fibtree_util::counted(threads as u64, "thread");
                let why = format!(
                    "for n = {n}, run alone, the program could not start its processes under the process limit \
                     RLIMIT_NPROC of {limit}, fibtree holding {threads} (its standard error: {line}); \
                     a higher limit (ulimit -u) lets it run"
                );
                Next::Refuse(refused("CMD", why))
            }
            (true, None) if !failed => Next::Keep,
            (true, None) if run.alone == 0 => match self.own_failure.load(Ordering::Relaxed) {
                true => Next::Keep,
                false => Next::Again,
            },
            (true, None) => {
                self.own_failure.store(true, Ordering::Relaxed);
                Next::Keep
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(ending: Ending, stderr: &str, alone: u32) -> ProgramRun {
        let (stdout, stderr) = (Vec::new(), stderr.as_bytes().to_vec());
        ProgramRun { n: 3, ending, stdout, stderr, stdout_cut: false, seconds: 0.0, usage: None, alone }
    }

    #[test]
    fn failed_forks_as_shells_and_runtimes_say_them() {
        for line in [
            "sh: 1: Cannot fork",
            "bash: fork: retry: Resource temporarily unavailable",
            "bash: fork: Resource temporarily unavailable",
            "BlockingIOError: [Errno 11] Resource temporarily unavailable",
            "java.lang.OutOfMemoryError: unable to create native thread",
        ] {
            assert_eq!(failed_fork(format!("x\n{line}\n").as_bytes()), Some(line.to_string()));
        }
        assert_eq!(failed_fork(b"Segmentation fault\n"), None);
    }

    #[test]
    fn runs_again_alone_then_refused_or_judged() {
        let crash = || Ending::Exited(2);
        let fork = "sh: 1: Cannot fork";
        // no limit: every run as it is
        assert!(matches!(ProcessLimit::new(None).next(&run(crash(), fork, 0), None), Next::Keep));
        let limit = ProcessLimit::new(Some(4));
        assert!(matches!(limit.next(&run(Ending::Exited(0), "", 0), Some(true)), Next::Keep));
        assert!(matches!(limit.next(&run(crash(), fork, 0), None), Next::Again));
        // a failed fork and no answer though it ended well, as dash's $(...) leaves it
        assert!(matches!(limit.next(&run(Ending::Exited(0), fork, 0), Some(false)), Next::Again));
        assert!(matches!(limit.next(&run(Ending::Exited(0), fork, 0), None), Next::Again));
        // alone, three times, still no fork: refused, naming the limit
        for time in 1..ALONE_TRIES {
            assert!(matches!(limit.next(&run(crash(), fork, time), None), Next::Again));
        }
        match limit.next(&run(crash(), fork, ALONE_TRIES), None) {
            Next::Refuse(e) => assert!(e.to_string().contains("RLIMIT_NPROC of 4"), "{e}"),
            other => panic!("{other:?}"),
        }
        // a warning of threads not started in a run whose answer is right: no matter
        let warning = "warning: could not start 2 threads (Resource temporarily unavailable (os error 11))";
        assert!(matches!(limit.next(&run(Ending::Exited(0), warning, 0), Some(true)), Next::Keep));
        // a crash of its own: judged; after one, other crashes without a failed fork are not run again
        assert!(matches!(limit.next(&run(crash(), "", 0), None), Next::Again));
        assert!(matches!(limit.next(&run(crash(), "", 1), None), Next::Keep));
        assert!(matches!(limit.next(&run(crash(), "", 0), None), Next::Keep));
        assert!(matches!(limit.next(&run(crash(), fork, 0), None), Next::Again));
        // a wrong answer with no failed fork is the program's
        assert!(matches!(limit.next(&run(Ending::Exited(0), "", 0), Some(false)), Next::Keep));
    }
}
