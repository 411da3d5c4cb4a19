//! Running another program once per n, as `fibtree stress` does: each run in a process group of its
//! own, with a time limit and a limit on the output kept, some runs at a time, all watched from the
//! calling thread (no thread is started), all of them ended (their groups killed) when the session
//! is stopped. A run ends when its program exits, runs past the time limit or is stopped; its pipes
//! are read as they come ([`pipes`]), for a short grace after it exited ([`GRACE`]), never waited
//! on, so that what a program leaves running (in its group or out of it) cannot hold the run.

mod pipes;

use std::collections::VecDeque;
use std::io::Write;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use pipes::Pipes;

/// The most bytes of a run's standard output, and of its standard error, that are kept: the last
/// 1 MiB of its standard output (where its answer is), the first 1 MiB of its standard error (where
/// its first complaint is). The rest is read and dropped.
pub(super) const KEPT_BYTES: usize = 1 << 20;

/// How a program is started for one n: `{}` in its command replaced by n, or n written to its
/// standard input as `n\n` where the command has no `{}`.
#[derive(Clone, Debug)]
pub(super) struct Program {
    /// The command as given.
    pub(super) command: String,
    /// Its words, where it runs without a shell (`None`: `sh -c COMMAND`).
    pub(super) words: Option<Vec<String>>,
    /// The time a run may take.
    pub(super) timeout: Duration,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Ending {
    /// It exited with this status.
    Exited(i32),
    /// A signal ended it.
    Signalled(i32),
    /// It ran past the time limit and was killed.
    TimedOut,
    /// The session was stopped while it ran, and it was killed.
    Stopped,
    /// It could not be started, for this reason.
    NotStarted(String),
    /// The user's process limit left no room for its process, for this reason: the runs were given
    /// up (no verdict on the program).
    NoProcess(String),
}

/// One run of the program.
#[derive(Clone, Debug)]
pub(super) struct ProgramRun {
    /// The n it was given.
    pub(super) n: u64,
    /// How it ended.
    pub(super) ending: Ending,
    /// The last [`KEPT_BYTES`] of its standard output.
    pub(super) stdout: Vec<u8>,
    /// The first [`KEPT_BYTES`] of its standard error.
    pub(super) stderr: Vec<u8>,
    /// Whether its standard output was longer than what is kept.
    pub(super) stdout_cut: bool,
    /// The wall time it took, in seconds.
    pub(super) seconds: f64,
}

impl Program {
    /// Whether n goes in place of `{}` (else on standard input).
    fn takes_argument(&self) -> bool {
        self.command.contains("{}")
    }

    /// The command for `n`, in a process group of its own.
    fn command_for(&self, n: u64) -> Command {
        let n = n.to_string();
        let mut command = match &self.words {
            Some(words) => {
                let mut words = words.iter().map(|w| w.replace("{}", &n));
                let mut command = Command::new(words.next().expect("a command has a first word"));
                command.args(words);
                command
            }
            None => {
                let mut command = Command::new("sh");
                command.arg("-c").arg(self.command.replace("{}", &n));
                command
            }
        };
        command.process_group(0).stdout(Stdio::piped()).stderr(Stdio::piped());
        command.stdin(if self.takes_argument() { Stdio::null() } else { Stdio::piped() });
        command
    }

    /// Starts the program for `n`, writing n to its standard input where it takes it there. Where
    /// the user's process limit leaves no room (EAGAIN), `Err(Err(why))`: the caller waits for a
    /// run to end, or gives up; any other failure is the run's ending, `Err(Ok(run))`.
    fn start(&self, n: u64) -> Result<Active, Result<ProgramRun, std::io::Error>> {
        let start = Instant::now();
        let mut child = match self.command_for(n).spawn() {
            Ok(child) => child,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return Err(Err(e)),
            Err(e) => return Err(Ok(ProgramRun::not_run(n, Ending::NotStarted(e.to_string()), start))),
        };
        if let Some(mut stdin) = child.stdin.take() {
            // a program that exits without reading it is no error of ours
            let _ = writeln!(stdin, "{n}");
        }
        let pipes = Pipes::new(child.stdout.take(), child.stderr.take());
        Ok(Active { n, child, start, deadline: start + self.timeout, pipes, ended: None })
    }
}

/// How long the pipes of a program that exited are still read, for what it left running to write
/// (never past the time limit); then what it left is killed and the run judged.
pub(super) const GRACE: Duration = Duration::from_millis(250);

/// How many times, with no run under way, a run whose process the user's process limit refuses is
/// tried again (waiting 20, 40, 80, 100 and 100 ms) before the runs are given up.
const NO_ROOM_TRIES: u32 = 5;

/// A run under way: its process until it ends, then its pipes until their end, the grace or a stop.
struct Active {
    n: u64,
    child: std::process::Child,
    start: Instant,
    deadline: Instant,
    pipes: Pipes,
    /// Once its process has ended (not reaped yet) or been killed: how it ended where it was killed
    /// (`None`: as its status says, once reaped), and until when its pipes are read.
    ended: Option<(Option<Ending>, Instant)>,
}

impl Active {
    /// Looks at the process: where it exited, its pipes are read for the grace (it is reaped at the
    /// end); past the time limit or once `stop` is set, its group is killed. Returns whether it
    /// ended now.
    fn look(&mut self, stop: bool, now: Instant) -> bool {
        if self.ended.is_some() {
            return false;
        }
        let ending = match super::os::has_ended(self.child.id()) {
            Ok(true) => {
                // what it left running may write for a moment more, within the time limit
                self.ended = Some((None, (now + GRACE).min(self.deadline).max(now)));
                return true;
            }
            Ok(false) if stop => Ending::Stopped,
            Ok(false) if now >= self.deadline => Ending::TimedOut,
            Ok(false) => return false,
            Err(e) => Ending::NotStarted(format!("waiting for it: {e}")),
        };
        let _ = super::os::kill_group(self.child.id());
        self.ended = Some((Some(ending), now));
        true
    }

    /// Whether the run is over: ended, and its pipes at their end, past its grace, or stopped.
    fn over(&self, stop: bool, now: Instant) -> bool {
        self.ended.as_ref().is_some_and(|(_, until)| !self.pipes.open() || stop || now >= *until)
    }

    /// The run, once [`Active::over`]: what the pipes hold read, its group killed (what it left
    /// running there), its process reaped; and whether its pipes were still held open (by what it
    /// left elsewhere).
    fn finish(mut self) -> (ProgramRun, bool) {
        let held = self.pipes.open();
        self.pipes.drain();
        // before the reaping, which frees its id and its group's number
        let _ = super::os::kill_group(self.child.id());
        let status = self.child.wait();
        let ending = match (self.ended.take().and_then(|(ending, _)| ending), status) {
            (Some(ending), _) => ending,
            (None, Ok(status)) => match (status.code(), status.signal()) {
                (Some(code), _) => Ending::Exited(code),
                (None, Some(signal)) => Ending::Signalled(signal),
                (None, None) => Ending::Exited(-1),
            },
            (None, Err(e)) => Ending::NotStarted(format!("waiting for it: {e}")),
        };
        let Pipes { tail, head, .. } = self.pipes;
        let run = ProgramRun {
            n: self.n,
            ending,
            stdout: tail.kept,
            stderr: head.kept,
            stdout_cut: tail.cut,
            seconds: self.start.elapsed().as_secs_f64(),
        };
        (run, held)
    }
}

impl ProgramRun {
    /// The run of `n` that never ran, ending so.
    fn not_run(n: u64, ending: Ending, start: Instant) -> ProgramRun {
        let seconds = start.elapsed().as_secs_f64();
        ProgramRun { n, ending, stdout: Vec::new(), stderr: Vec::new(), stdout_cut: false, seconds }
    }
}

/// Runs `program` for every n of `ns`, `jobs` at a time, handing each run to `done` as it ends (in
/// the order they end). All on the calling thread: the runs' processes are watched together, their
/// pipes read as they come (never waited on: what a program leaves running may hold them open) and
/// each within its time limit. Once `stop` is set, the runs under way are killed and no other
/// starts; the runs killed so are not handed on. Where the user's process limit leaves no room for
/// a run's process, it waits for a run under way to end; with none under way, after a few tries
/// the run is handed on as [`Ending::NoProcess`] and no other starts.
///
/// With `sweep` (this process made the reaper of its orphaned descendants,
/// [`super::os::become_subreaper`]; the children it had before, which are spared), what the
/// programs left running outside their process groups is killed and reaped: after a run whose pipes it held open, at most a second after any other,
/// and when all are done; never while a run's pipes are still read in its grace.
pub(super) fn run_all(
    program: &Program,
    ns: &[u64],
    jobs: usize,
    stop: &AtomicBool,
    sweep: Option<&[i32]>,
    done: &mut dyn FnMut(ProgramRun),
) {
    let mut queue: VecDeque<u64> = ns.iter().copied().collect();
    let mut active: Vec<Active> = Vec::new();
    let mut buf = Pipes::buffer();
    let (mut pause, mut refused, mut given_up) = (Duration::from_millis(1), 0, false);
    let mut last_sweep = Instant::now();
    loop {
        let stopped = stop.load(Ordering::Relaxed);
        let mut waiting_for_room = false;
        while active.len() < jobs.max(1) && !stopped && !given_up {
            let Some(n) = queue.pop_front() else { break };
            match program.start(n) {
                Ok(run) => {
                    active.push(run);
                    refused = 0;
                }
                Err(Ok(run)) => done(run),
                Err(Err(why)) => {
                    queue.push_front(n);
                    waiting_for_room = true;
                    if active.is_empty() {
                        refused += 1;
                        if refused > NO_ROOM_TRIES {
                            done(ProgramRun::not_run(n, Ending::NoProcess(no_room(&why)), Instant::now()));
                            (given_up, waiting_for_room) = (true, false);
                        }
                    }
                    break;
                }
            }
        }
        if active.is_empty() && (queue.is_empty() || stopped || given_up) {
            break;
        }
        // wait for bytes, an end of a pipe, or the next look at the processes
        let now = Instant::now();
        let mut wait = if waiting_for_room {
            Duration::from_millis(10 << refused.min(4)).min(Duration::from_millis(100))
        } else {
            pause
        };
        for run in &active {
            let until = run.ended.as_ref().map_or(run.deadline, |(_, until)| *until);
            wait = wait.min(until.saturating_duration_since(now));
        }
        let descriptors: Vec<_> = active.iter().flat_map(|run| run.pipes.descriptors()).collect();
        let ready = super::os::ready(&descriptors, wait);
        drop(descriptors);
        let mut happened = false;
        let mut flags = &ready[..];
        for run in &mut active {
            let count = run.pipes.descriptors().len();
            happened |= run.pipes.read_ready(&flags[..count], &mut buf);
            flags = &flags[count..];
        }
        let (stopped, now) = (stop.load(Ordering::Relaxed), Instant::now());
        let mut suspect = false;
        let mut i = 0;
        while i < active.len() {
            happened |= active[i].look(stopped, now);
            if active[i].over(stopped, now) {
                let (run, held) = active.swap_remove(i).finish();
                suspect |= held;
                happened = true;
                if run.ending != Ending::Stopped {
                    done(run);
                }
            } else {
                i += 1;
            }
        }
        let in_grace = active.iter().any(|run| run.ended.is_some());
        if let Some(spared) = sweep
            && !in_grace
            && (suspect || last_sweep.elapsed() >= Duration::from_secs(1))
        {
            sweep_strays(&active, spared);
            last_sweep = Instant::now();
        }
        pause = if happened { Duration::from_millis(1) } else { (pause * 2).min(Duration::from_millis(20)) };
    }
    if let Some(spared) = sweep {
        sweep_strays(&active, spared);
    }
}

/// Why the user's process limit left no room (`why`, EAGAIN), in words, with the limit.
fn no_room(why: &std::io::Error) -> String {
    let limit =
        super::os::process_limit().map_or(String::new(), |l| format!("; the process limit RLIMIT_NPROC is {l}"));
    format!("no process could be started ({why}{limit})")
}

/// Kills and reaps the children of this process that are neither the processes of `active` runs
/// nor `spared`: what the programs left running, orphaned and handed to this process as their
/// reaper. Rounds until none is left (what a killed one had started is handed on in turn), for at
/// most 200 ms.
fn sweep_strays(active: &[Active], spared: &[i32]) {
    let mut runs: Vec<i32> = active.iter().filter_map(|run| i32::try_from(run.child.id()).ok()).collect();
    runs.extend_from_slice(spared);
    let until = Instant::now() + Duration::from_millis(200);
    while Instant::now() < until {
        let strays: Vec<i32> = super::os::children().into_iter().filter(|pid| !runs.contains(pid)).collect();
        if strays.is_empty() {
            return;
        }
        for &pid in &strays {
            super::os::kill_process(pid);
        }
        // a process killed ends at once, but not always before the next call
        let mut left = strays;
        while !left.is_empty() && Instant::now() < until {
            left.retain(|&pid| !super::os::reap(pid));
            if !left.is_empty() {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    }
}

/// The words of `command` as a shell would split it ([`shell_words::split`]), for running without a
/// shell: blanks separate words; single quotes keep everything up to the next one; double quotes
/// keep everything up to the next one but for `\"`, `\\`, `\$` and `` \` ``; a backslash outside
/// quotes keeps the next character; a `#` starting a word starts a comment.
///
/// # Errors
/// A quote left open, or a command with no word.
pub(super) fn split_words(command: &str) -> Result<Vec<String>, String> {
    let words = shell_words::split(command).map_err(|_| "a quote is not closed".to_string())?;
    if words.is_empty() { Err("expected a command, got no word".into()) } else { Ok(words) }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Program {
        /// The run of `n` alone, nothing swept (the tests share their process).
        fn run(&self, n: u64, stop: &AtomicBool) -> ProgramRun {
            let mut runs = Vec::new();
            run_all(self, &[n], 1, stop, None, &mut |run| runs.push(run));
            runs.pop().expect("a run not stopped is handed on")
        }
    }

    #[test]
    fn words_as_a_shell_splits_them() {
        let words = |s: &str| split_words(s).unwrap();
        assert_eq!(words("  ./solve  {} --mod 7 "), ["./solve", "{}", "--mod", "7"]);
        assert_eq!(words(r#"a 'b c' "d \"e\" \\ \n" f\ g ''"#), ["a", "b c", r#"d "e" \ \n"#, "f g", ""]);
        assert!(split_words("a 'b").is_err() && split_words("a \"b").is_err() && split_words("   ").is_err());
    }

    #[test]
    fn a_run_is_timed_out_and_its_group_killed() {
        let program =
            Program { command: "sleep 30 & sleep 30; echo 1".into(), words: None, timeout: Duration::from_millis(200) };
        let run = program.run(5, &AtomicBool::new(false));
        assert_eq!(run.ending, Ending::TimedOut);
        // the background sleep held standard output open: killed with the group, or this would wait
        assert!(run.seconds < 10.0, "{}", run.seconds);
    }

    #[test]
    fn n_on_standard_input_or_in_place_of_braces() {
        let stop = AtomicBool::new(false);
        let program =
            |command: &str| Program { command: command.into(), words: None, timeout: Duration::from_secs(20) };
        let run = program("read n; echo $((n + 1)); echo oops >&2; exit 3").run(41, &stop);
        assert_eq!((run.ending, run.stdout, run.stderr), (Ending::Exited(3), b"42\n".to_vec(), b"oops\n".to_vec()));
        let run = program("echo {}{}").run(7, &stop);
        assert_eq!(run.stdout, b"77\n");
        let words = Program { words: Some(vec!["echo".into(), "n={}".into()]), ..program("echo n={}") };
        assert_eq!(words.run(9, &stop).stdout, b"n=9\n");
        let missing = Program { words: Some(vec!["/nonexistent/solver".into()]), ..program("/nonexistent/solver") };
        assert!(matches!(missing.run(1, &stop).ending, Ending::NotStarted(_)));
    }

    #[test]
    fn a_program_that_exits_is_judged_though_what_it_left_holds_its_pipes() {
        let stop = AtomicBool::new(false);
        // the background sleep holds both pipes for 30 s: the run ends at the exit and a grace
        let program = Program {
            command: "sleep 30 & echo 5; echo err >&2".into(),
            words: None,
            timeout: Duration::from_secs(60),
        };
        let run = program.run(1, &stop);
        assert_eq!((run.ending, run.stdout, run.stderr), (Ending::Exited(0), b"5\n".to_vec(), b"err\n".to_vec()));
    }

    #[test]
    fn runs_at_a_time_each_handed_on_as_it_ends() {
        let stop = AtomicBool::new(false);
        let program = Program { command: "echo $(({} * 2))".into(), words: None, timeout: Duration::from_secs(20) };
        let mut runs = Vec::new();
        run_all(&program, &[1, 2, 3, 4, 5], 3, &stop, None, &mut |run| runs.push(run));
        runs.sort_by_key(|run| run.n);
        let outputs: Vec<(u64, Vec<u8>)> = runs.into_iter().map(|run| (run.n, run.stdout)).collect();
        assert_eq!(outputs, (1..=5).map(|n| (n, format!("{}\n", 2 * n).into_bytes())).collect::<Vec<_>>());
        // once stopped, nothing runs and nothing is handed on
        stop.store(true, Ordering::Relaxed);
        run_all(&program, &[1, 2], 2, &stop, None, &mut |run| panic!("{run:?}"));
    }
}
