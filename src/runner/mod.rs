//! Running another program once per n, as `fibtree stress` does: each run in a process group of its
//! own, with a time limit, a limit on the output kept and, where asked, on its address space and on
//! the CPU time of its group, some runs at a time, all watched from the calling thread (no thread is
//! started), all of them ended (their groups killed) when the session is stopped. A run ends when
//! its program exits, runs past the time limit or its group past the CPU time limit, or is stopped;
//! its pipes are read as they come ([`pipes`]), for a short grace after it exited
//! ([`active::GRACE`]), never waited on, so that what a program leaves running (in its group or out
//! of it) cannot hold the run; its group's CPU time is read from `/proc` as it runs ([`cpu`]); its
//! process is reaped with what it used, its CPU time and its peak memory ([`active`]). A run handed
//! on may be asked for again, alone ([`Handling::Alone`]): fewer run at a time from then on.

mod active;
mod cpu;
mod pipes;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub(super) use super::os::Usage;
use active::Active;
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
    /// The address space each of its processes may have, in bytes (RLIMIT_AS), where limited.
    pub(super) memory_limit: Option<u64>,
    /// The CPU time its process group may use, where limited: past it, the group is killed.
    pub(super) cpu_limit: Option<Duration>,
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
    /// Its process group used more CPU time than the limit, and was killed.
    CpuLimit,
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
    /// What it used, where its process was reaped (`None`: it never started): its CPU time the
    /// larger of its process's and the children it waited for (`wait4`'s) and its process group's
    /// as read while it ran ([`cpu`]).
    pub(super) usage: Option<Usage>,
    /// The how-manieth time it ran again alone ([`Handling::Alone`]); 0 for a run among others.
    pub(super) alone: u32,
}

/// What [`run_all`] does with a run it handed on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Handling {
    /// Nothing more: the run is done.
    Done,
    /// Run it again, alone: once no other run is under way (what the runs before left running
    /// ended, where they are swept, and this process holding no more threads than the one
    /// watching the runs, or a second passed; for a run alone again, 0.1 s more each time), with
    /// no other started until it ends; half as many runs at a time from then on.
    Alone,
    /// Start no other run, and end those under way (which are not handed on): the runs are given
    /// up.
    Stop,
}

/// How many times, with no run under way, a run whose process the user's process limit refuses is
/// tried again (waiting 20, 40, 80, 100 and 100 ms) before the runs are given up.
const NO_ROOM_TRIES: u32 = 5;

/// Runs `program` for every n of `ns`, `jobs` at a time, handing each run to `done` as it ends (in
/// the order they end), which may ask for it again alone ([`Handling`]). All on the calling thread:
/// the runs' processes are watched together, their pipes read as they come (never waited on: what
/// a program leaves running may hold them open) and each within its time limit, its process group
/// within its CPU time limit (read for all runs at once, at [`cpu::next_look`]'s pace). Once `stop`
/// is set, the runs under way are killed and no other starts; the runs killed so are not handed on.
/// Where the user's process limit leaves no room for a run's process, it waits for a run under way
/// to end; with none under way, after a few tries the run is handed on as [`Ending::NoProcess`] and
/// no other starts.
///
/// With `sweep` (this process made the reaper of its orphaned descendants,
/// [`super::os::become_subreaper`]; the children it had before, which are spared), what the
/// programs left running outside their process groups is killed and reaped: after a run whose
/// pipes it held open, at most a second after any other, and when all are done; never while a
/// run's pipes are still read in its grace.
pub(super) fn run_all(
    program: &Program,
    ns: &[u64],
    jobs: usize,
    stop: &AtomicBool,
    sweep: Option<&[i32]>,
    done: &mut dyn FnMut(ProgramRun) -> Handling,
) {
    let mut queue = Queue::new(ns, jobs, done);
    let mut active: Vec<Active> = Vec::new();
    let mut buf = Pipes::buffer();
    let mut pause = Duration::from_millis(1);
    let mut last_sweep = Instant::now();
    // the next look at the runs' CPU time
    let mut next_look = Instant::now() + cpu::next_look(program.cpu_limit.is_some(), Duration::ZERO);
    loop {
        let stopped = stop.load(Ordering::Relaxed) || queue.halted;
        let waiting_for_room = !stopped && queue.start(program, sweep, &mut active);
        let waiting = !queue.waiting.is_empty() || !queue.again.is_empty();
        if active.is_empty() && (!waiting || stopped || queue.given_up) {
            break;
        }
        // wait for bytes, an end of a pipe, or the next look at the processes
        let now = Instant::now();
        let mut wait = if waiting_for_room {
            Duration::from_millis(10 << queue.refused.min(4)).min(Duration::from_millis(100))
        } else {
            pause
        };
        for run in &active {
            let until = run.ended.as_ref().map_or(run.deadline, |(_, until)| *until);
            wait = wait.min(until.saturating_duration_since(now));
        }
        if !active.is_empty() {
            wait = wait.min(next_look.saturating_duration_since(now));
        }
        let mut happened = read_ready(&mut active, wait, &mut buf);
        let (stopped, now) = (stop.load(Ordering::Relaxed) || queue.halted, Instant::now());
        if now >= next_look && !active.is_empty() {
            look_at_cpu(&mut active);
            next_look = Instant::now() + cpu::next_look(program.cpu_limit.is_some(), now.elapsed());
        }
        let mut suspect = false;
        let mut i = 0;
        while i < active.len() {
            happened |= active[i].look(stopped, now);
            if active[i].over(stopped, now) {
                let (run, held) = active.swap_remove(i).finish();
                queue.alone &= run.alone == 0;
                suspect |= held;
                happened = true;
                if run.ending != Ending::Stopped {
                    queue.hand_on(run);
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

/// The runs of [`run_all`] not yet started, and what decides when they may start.
struct Queue<'a> {
    /// The n not yet run.
    waiting: VecDeque<u64>,
    /// The runs to make again alone, with the times each was made alone before.
    again: VecDeque<(u64, u32)>,
    /// Whether a run alone is under way.
    alone: bool,
    /// The runs at a time.
    jobs: usize,
    /// The starts refused for want of room in a row, with no run under way.
    refused: u32,
    /// Whether the runs were given up (no room for a process with none under way).
    given_up: bool,
    /// Whether `done` asked for no other run ([`Handling::Stop`]).
    halted: bool,
    done: &'a mut dyn FnMut(ProgramRun) -> Handling,
}

impl<'a> Queue<'a> {
    /// The runs of `ns`, `jobs` at a time, each handed to `done` as it ends.
    fn new(ns: &[u64], jobs: usize, done: &'a mut dyn FnMut(ProgramRun) -> Handling) -> Queue<'a> {
        Queue {
            waiting: ns.iter().copied().collect(),
            again: VecDeque::new(),
            alone: false,
            jobs: jobs.max(1),
            refused: 0,
            given_up: false,
            halted: false,
            done,
        }
    }

    /// Hands `run` to `done`, and queues it again alone where it asks.
    fn hand_on(&mut self, run: ProgramRun) {
        let (n, alone) = (run.n, run.alone);
        match (self.done)(run) {
            Handling::Done => {}
            Handling::Alone => {
                self.again.push_back((n, alone + 1));
                self.jobs = (self.jobs / 2).max(1);
            }
            Handling::Stop => self.halted = true,
        }
    }

    /// Starts the runs that may start into `active`; whether one waits for room for its process.
    fn start(&mut self, program: &Program, sweep: Option<&[i32]>, active: &mut Vec<Active>) -> bool {
        while !self.given_up && !self.alone {
            // a run again alone once none is under way; none other started before it
            let (n, by_itself) = match self.again.front() {
                Some(_) if !active.is_empty() => break,
                Some(&(_, time)) => {
                    // what the runs before left (their processes count against the user's limit)
                    // reaped, and this process's threads down to one
                    if let Some(spared) = sweep {
                        sweep_strays(active, spared);
                    }
                    settle_threads();
                    std::thread::sleep(Duration::from_millis(100) * (time - 1));
                    self.again.pop_front().expect("one is queued")
                }
                None if active.len() >= self.jobs => break,
                None => match self.waiting.pop_front() {
                    Some(n) => (n, 0),
                    None => break,
                },
            };
            match program.start(n, by_itself) {
                Ok(run) => {
                    active.push(run);
                    self.alone = by_itself > 0;
                    self.refused = 0;
                }
                Err(Ok(run)) => self.hand_on(*run),
                Err(Err(why)) => {
                    match by_itself {
                        0 => self.waiting.push_front(n),
                        time => self.again.push_front((n, time)),
                    }
                    if active.is_empty() {
                        self.refused += 1;
                        if self.refused > NO_ROOM_TRIES {
                            let run = ProgramRun::not_run(n, Ending::NoProcess(no_room(&why)), Instant::now());
                            self.hand_on(run);
                            self.given_up = true;
                            return false;
                        }
                    }
                    return true;
                }
            }
        }
        false
    }
}

/// Waits at most `wait` for the pipes of `active` and reads what is ready into their buffers
/// (through `buf`); whether any was.
fn read_ready(active: &mut [Active], wait: Duration, buf: &mut [u8]) -> bool {
    let descriptors: Vec<_> = active.iter().flat_map(|run| run.pipes.descriptors()).collect();
    let ready = super::os::ready(&descriptors, wait);
    drop(descriptors);
    let mut happened = false;
    let mut flags = &ready[..];
    for run in active {
        let count = run.pipes.descriptors().len();
        happened |= run.pipes.read_ready(&flags[..count], buf);
        flags = &flags[count..];
    }
    happened
}

/// Reads the CPU time of every run's process group, in one read of /proc.
fn look_at_cpu(active: &mut [Active]) {
    let groups: Vec<i32> = active.iter().map(Active::group).collect();
    let samples = cpu::scan(&groups);
    for run in active {
        let group = run.group();
        run.cpu.update(samples.iter().filter(|s| s.group == group));
    }
}

/// Waits, at most a second, until this process holds one thread (the threads of a pool it let go
/// end shortly after), so that a run made again alone has all the room the process limit leaves.
fn settle_threads() {
    let until = Instant::now() + Duration::from_secs(1);
    while super::os::threads() > 1 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Why the user's process limit left no room (`why`, EAGAIN), in words, with the limit.
fn no_room(why: &std::io::Error) -> String {
    format!("no process could be started ({})", super::os::with_process_limit(why))
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
            run_all(self, &[n], 1, stop, None, &mut |run| {
                runs.push(run);
                Handling::Done
            });
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
        let program = Program {
            command: "sleep 30 & sleep 30; echo 1".into(),
            words: None,
            timeout: Duration::from_millis(200),
            memory_limit: None,
            cpu_limit: None,
        };
        let run = program.run(5, &AtomicBool::new(false));
        assert_eq!(run.ending, Ending::TimedOut);
        // the background sleep held standard output open: killed with the group, or this would wait
        assert!(run.seconds < 10.0, "{}", run.seconds);
    }

    #[test]
    fn n_on_standard_input_or_in_place_of_braces() {
        let stop = AtomicBool::new(false);
        let program = |command: &str| Program {
            command: command.into(),
            words: None,
            timeout: Duration::from_secs(20),
            memory_limit: None,
            cpu_limit: None,
        };
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
            memory_limit: None,
            cpu_limit: None,
        };
        let run = program.run(1, &stop);
        assert_eq!((run.ending, run.stdout, run.stderr), (Ending::Exited(0), b"5\n".to_vec(), b"err\n".to_vec()));
    }

    #[test]
    fn runs_at_a_time_each_handed_on_as_it_ends() {
        let stop = AtomicBool::new(false);
        let program = Program {
            command: "echo $(({} * 2))".into(),
            words: None,
            timeout: Duration::from_secs(20),
            memory_limit: None,
            cpu_limit: None,
        };
        let mut runs = Vec::new();
        run_all(&program, &[1, 2, 3, 4, 5], 3, &stop, None, &mut |run| {
            runs.push(run);
            Handling::Done
        });
        runs.sort_by_key(|run| run.n);
        let outputs: Vec<(u64, Vec<u8>)> = runs.into_iter().map(|run| (run.n, run.stdout)).collect();
        assert_eq!(outputs, (1..=5).map(|n| (n, format!("{}\n", 2 * n).into_bytes())).collect::<Vec<_>>());
        // once stopped, nothing runs and nothing is handed on
        stop.store(true, Ordering::Relaxed);
        run_all(&program, &[1, 2], 2, &stop, None, &mut |run| panic!("{run:?}"));
    }

    /// A shell program with a time limit of 20 s and no memory limit.
    fn shell(command: &str) -> Program {
        Program {
            command: command.into(),
            words: None,
            timeout: Duration::from_secs(20),
            memory_limit: None,
            cpu_limit: None,
        }
    }

    #[test]
    fn a_run_says_what_it_used() {
        let stop = AtomicBool::new(false);
        // a loop of the shell's own, and a child it waits for that holds its input, one line: 64 MiB
        // more than this process holds now (what the shell's peak starts from, the copy of this
        // process it began as, which other tests of this process make larger or smaller)
        let held: u64 = std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| s.lines().find_map(|l| l.strip_prefix("VmRSS:")?.trim().strip_suffix(" kB")?.parse().ok()))
            .map_or(0, |kib: u64| kib * 1024);
        let bytes = held + (64 << 20);
        let command = format!(
            "i=0; while [ $i -lt 100000 ]; do i=$((i + 1)); done; head -c {bytes} /dev/zero | sort >/dev/null; echo {{}}"
        );
        let run = shell(&command).run(3, &stop);
        let usage = run.usage.expect("reaped");
        assert_eq!(run.ending, Ending::Exited(0));
        assert!(usage.cpu_seconds > 0.0 && usage.cpu_seconds < 1000.0, "{usage:?}");
        assert!(usage.peak_bytes.is_some_and(|p| p >= bytes), "sort held its input of {bytes} bytes: {usage:?}");
        let missing = Program { words: Some(vec!["/nonexistent/solver".into()]), ..shell("/nonexistent/solver") };
        assert_eq!(missing.run(1, &stop).usage, None);
    }

    #[test]
    fn a_group_past_the_cpu_time_limit_is_killed_its_time_counted() {
        let stop = AtomicBool::new(false);
        // the shell waits; its child, and that child's own, burn: only the group's time can stop them
        let program = Program {
            cpu_limit: Some(Duration::from_millis(200)),
            timeout: Duration::from_secs(300),
            ..shell("sh -c 'while :; do :; done & while :; do :; done' & wait; echo {}")
        };
        let run = program.run(4, &stop);
        assert_eq!((&run.ending, &run.stdout[..]), (&Ending::CpuLimit, &b""[..]), "{run:?}");
        assert!(run.usage.expect("reaped").cpu_seconds > 0.2, "{run:?}");
        // within the limit, nothing is killed
        let quick = Program { cpu_limit: Some(Duration::from_secs(100)), ..shell("echo {}") };
        assert_eq!(quick.run(5, &stop).ending, Ending::Exited(0));
    }

    #[test]
    fn a_memory_limit_fails_an_allocation_past_it() {
        let stop = AtomicBool::new(false);
        // `sort` holds its whole input: 300 MB under a limit of 64 MiB of address space
        let limited =
            Program { memory_limit: Some(64 << 20), ..shell("head -c 300000000 /dev/zero | sort >/dev/null") };
        let run = limited.run(1, &stop);
        assert_ne!(run.ending, Ending::Exited(0), "{}", String::from_utf8_lossy(&run.stderr));
        // its own peak, where told apart from the copy of this process it began as (which, with
        // other tests running in this process, may itself be past 64 MiB)
        let usage = run.usage.expect("reaped");
        assert!(usage.peak_bytes.is_none_or(|peak| peak < 64 << 20), "{usage:?}");
        // within the limit, the same shell runs as without one
        let fits = Program { memory_limit: Some(64 << 20), ..shell("echo {}") };
        assert_eq!(fits.run(5, &stop).stdout, b"5\n");
    }

    #[test]
    fn a_run_asked_for_again_runs_alone_with_fewer_at_a_time() {
        let stop = AtomicBool::new(false);
        let program = shell("echo {}");
        let mut seen = Vec::new();
        run_all(&program, &[1, 2, 3, 4], 4, &stop, None, &mut |run| {
            seen.push((run.n, run.alone));
            if run.n == 2 && run.alone < 2 { Handling::Alone } else { Handling::Done }
        });
        seen.sort_unstable();
        assert_eq!(seen, [(1, 0), (2, 0), (2, 1), (2, 2), (3, 0), (4, 0)]);
    }
}
