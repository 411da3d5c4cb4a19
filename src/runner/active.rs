//! One run under way: its process started (in a group of its own, its address space limited where
//! a memory limit is set), watched until it ends (its group killed once past its time limit, or past
//! its CPU time limit as [`super::cpu`] reads it), then its pipes read for a grace, and its process
//! reaped with what it used ([`super::super::os::reap_with_usage`]), its CPU time at least its
//! group's.

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::super::os::{self, Exit, Usage};
use super::cpu::{self, GroupCpu};
use super::pipes::Pipes;
use super::{Ending, Program, ProgramRun};

/// How long the pipes of a program that exited are still read, for what it left running to write
/// (never past the time limit); then what it left is killed and the run judged.
pub(super) const GRACE: Duration = Duration::from_millis(250);

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

    /// Starts the program for `n` (`alone`: the how-manieth time it runs again with no other run
    /// under way, 0 for a run among others), writing n to
    /// its standard input where it takes it there. Where the user's process limit leaves no room
    /// (EAGAIN), `Err(Err(why))`: the caller waits for a run to end, or gives up; any other failure
    /// is the run's ending, `Err(Ok(run))`.
    pub(super) fn start(&self, n: u64, alone: u32) -> Result<Active, Result<Box<ProgramRun>, std::io::Error>> {
        let start = Instant::now();
        // its address space limited to the memory limit where one is set
        let (mut child, floor) = match os::spawn_measured(&mut self.command_for(n), self.memory_limit) {
            Ok(started) => started,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return Err(Err(e)),
            Err(e) => return Err(Ok(Box::new(ProgramRun::not_run(n, Ending::NotStarted(e.to_string()), start)))),
        };
        if let Some(mut stdin) = child.stdin.take() {
            // a program that exits without reading it is no error of ours
            let _ = writeln!(stdin, "{n}");
        }
        let pipes = Pipes::new(child.stdout.take(), child.stderr.take());
        let (deadline, cpu_limit) = (start + self.timeout, self.cpu_limit.map(|l| l.as_secs_f64()));
        Ok(Active { n, child, start, deadline, pipes, ended: None, alone, floor, cpu: GroupCpu::default(), cpu_limit })
    }
}

/// A run under way: its process until it ends, then its pipes until their end, the grace or a stop.
pub(super) struct Active {
    n: u64,
    pub(super) child: std::process::Child,
    start: Instant,
    pub(super) deadline: Instant,
    pub(super) pipes: Pipes,
    /// Once its process has ended (not reaped yet) or been killed: how it ended where it was killed
    /// (`None`: as its status says, once reaped), and until when its pipes are read.
    pub(super) ended: Option<(Option<Ending>, Instant)>,
    /// The how-manieth time it runs alone (0: among others).
    pub(super) alone: u32,
    /// The peak resident memory its process had before its exec, a copy of this process's, which
    /// `wait4`'s peak cannot go below (`None`: not told).
    floor: Option<u64>,
    /// The CPU time of its process group, as far as the looks saw.
    pub(super) cpu: GroupCpu,
    /// The CPU time its group may use, in seconds, where limited.
    cpu_limit: Option<f64>,
}

/// How far past the peak a child had before its exec `wait4`'s peak must be to be the program's:
/// the kernel counts resident pages by CPU and adds them up now and then, so that two readings of
/// one peak differ by up to some hundreds of KiB (a quarter of a MiB seen on 2 cores).
const FLOOR_SLACK: u64 = 1 << 20;

impl Active {
    /// The number of its process group: its process's id, which leads it (-1, no group's, where
    /// out of range; never 0, the kernel's threads' group).
    pub(super) fn group(&self) -> i32 {
        i32::try_from(self.child.id()).unwrap_or(-1)
    }

    /// Takes a last look at its group's CPU time, before the group is killed, where more than its
    /// process may be in it: a look found another, or `anyway` (its pipes still held, or killed).
    /// Cost: a read of `/proc` ([`cpu::scan`]), or nothing.
    fn last_look(&mut self, anyway: bool) {
        if self.cpu.others || anyway {
            let group = self.group();
            self.cpu.update(cpu::scan(&[group]).iter());
        }
    }

    /// Looks at the process: where it exited, its pipes are read for the grace (it is reaped at the
    /// end); past the time limit, its group past the CPU time limit (at the last look), or once
    /// `stop` is set, its group is killed. Returns whether it ended now.
    pub(super) fn look(&mut self, stop: bool, now: Instant) -> bool {
        if self.ended.is_some() {
            return false;
        }
        let ending = match os::has_ended(self.child.id()) {
            Ok(true) => {
                // what it left running may write for a moment more, within the time limit
                self.ended = Some((None, (now + GRACE).min(self.deadline).max(now)));
                return true;
            }
            Ok(false) if stop => Ending::Stopped,
            Ok(false) if self.cpu_limit.is_some_and(|limit| self.cpu.seconds > limit) => Ending::CpuLimit,
            Ok(false) if now >= self.deadline => {
                // what its group used to the end, not looked at for a while
                self.last_look(true);
                Ending::TimedOut
            }
            Ok(false) => return false,
            Err(e) => Ending::NotStarted(format!("waiting for it: {e}")),
        };
        let _ = os::kill_group(self.child.id());
        self.ended = Some((Some(ending), now));
        true
    }

    /// Whether the run is over: ended, and its pipes at their end, past its grace, or stopped.
    pub(super) fn over(&self, stop: bool, now: Instant) -> bool {
        self.ended.as_ref().is_some_and(|(_, until)| !self.pipes.open() || stop || now >= *until)
    }

    /// The run, once [`Active::over`]: what the pipes hold read, its group killed (what it left
    /// running there), its process reaped with what it used; and whether its pipes were still held
    /// open (by what it left elsewhere).
    pub(super) fn finish(mut self) -> (ProgramRun, bool) {
        let held = self.pipes.open();
        self.pipes.drain();
        if self.ended.as_ref().is_some_and(|(ending, _)| ending.is_none()) {
            // it exited: what it left in its group used CPU time until now
            self.last_look(held);
        }
        // before the reaping, which frees its id and its group's number
        let _ = os::kill_group(self.child.id());
        let reaped = os::reap_with_usage(self.child.id());
        let seconds = self.start.elapsed().as_secs_f64();
        // the peak is the program's where it is past the copy of this process's that it began as
        let (floor, group_cpu) = (self.floor, self.cpu.seconds);
        let reaped = reaped.map(|(exit, usage)| {
            let told = floor.is_some_and(|f| usage.max_resident_bytes > f.saturating_add(FLOOR_SLACK));
            let cpu_seconds = usage.cpu_seconds.max(group_cpu);
            (exit, Usage { peak_bytes: told.then_some(usage.max_resident_bytes), cpu_seconds, ..usage })
        });
        let (ending, usage) = match (self.ended.take().and_then(|(ending, _)| ending), reaped) {
            (Some(ending), reaped) => (ending, reaped.ok().map(|r| r.1)),
            (None, Ok((Exit::Code(code), usage))) => (Ending::Exited(code), Some(usage)),
            (None, Ok((Exit::Signal(signal), usage))) => (Ending::Signalled(signal), Some(usage)),
            (None, Err(e)) => (Ending::NotStarted(format!("waiting for it: {e}")), None),
        };
        let Pipes { tail, head, .. } = self.pipes;
        let run = ProgramRun {
            n: self.n,
            ending,
            stdout: tail.kept,
            stderr: head.kept,
            stdout_cut: tail.cut,
            seconds,
            usage,
            alone: self.alone,
        };
        (run, held)
    }
}

impl ProgramRun {
    /// The run of `n` that never ran, ending so.
    pub(super) fn not_run(n: u64, ending: Ending, start: Instant) -> ProgramRun {
        let seconds = start.elapsed().as_secs_f64();
        let (stdout, stderr) = (Vec::new(), Vec::new());
        ProgramRun { n, ending, stdout, stderr, stdout_cut: false, seconds, usage: None, alone: 0 }
    }
}
