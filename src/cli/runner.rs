//! Running another program once per n, as `fibtree stress` does: each run in a process group of its
//! own, with a time limit and a limit on the output kept, some runs at a time, all of them ended
//! (their groups killed) when the session is stopped.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

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

    /// Runs the program for `n` until it exits, runs past the time limit or `stop` is set; then
    /// its whole process group is killed (what it left running too), and its output read to the end.
    pub(super) fn run(&self, n: u64, stop: &AtomicBool) -> ProgramRun {
        let start = Instant::now();
        let run = |ending, stdout, stderr, stdout_cut| ProgramRun {
            n,
            ending,
            stdout,
            stderr,
            stdout_cut,
            seconds: start.elapsed().as_secs_f64(),
        };
        let mut child = match self.command_for(n).spawn() {
            Ok(child) => child,
            Err(e) => return run(Ending::NotStarted(e.to_string()), Vec::new(), Vec::new(), false),
        };
        if let Some(mut stdin) = child.stdin.take() {
            // a program that exits without reading it is no error of ours
            let _ = writeln!(stdin, "{n}");
        }
        let stdout = child.stdout.take().expect("piped");
        let stderr = child.stderr.take().expect("piped");
        let (ending, (out, cut), (err, _)) = std::thread::scope(|scope| {
            let out = scope.spawn(|| keep_tail(stdout));
            let err = scope.spawn(|| keep_head(stderr));
            let ending = self.wait(&mut child, start, stop);
            // whatever it started and left behind holds its pipes open: ended with it
            let _ = super::os::kill_group(child.id());
            (ending, out.join().unwrap_or_default(), err.join().unwrap_or_default())
        });
        run(ending, out, err, cut)
    }

    /// Waits for `child` to exit, killing its group at the time limit or once `stop` is set.
    fn wait(&self, child: &mut std::process::Child, start: Instant, stop: &AtomicBool) -> Ending {
        let mut pause = Duration::from_millis(1);
        loop {
            match child.try_wait() {
                Ok(Some(status)) => {
                    return match (status.code(), status.signal()) {
                        (Some(code), _) => Ending::Exited(code),
                        (None, Some(signal)) => Ending::Signalled(signal),
                        (None, None) => Ending::Exited(-1),
                    };
                }
                Ok(None) => {}
                Err(e) => return Ending::NotStarted(format!("waiting for it: {e}")),
            }
            let ending = if stop.load(Ordering::Relaxed) {
                Ending::Stopped
            } else if start.elapsed() >= self.timeout {
                Ending::TimedOut
            } else {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(20));
                continue;
            };
            let _ = super::os::kill_group(child.id());
            let _ = child.wait();
            return ending;
        }
    }
}

/// Reads `from` to its end, keeping its last [`KEPT_BYTES`]; and whether there was more.
fn keep_tail(mut from: impl Read) -> (Vec<u8>, bool) {
    let (mut kept, mut cut, mut buf) = (Vec::new(), false, vec![0; 64 << 10]);
    while let Ok(read @ 1..) = from.read(&mut buf) {
        kept.extend_from_slice(&buf[..read]);
        if kept.len() > 2 * KEPT_BYTES {
            kept.drain(..kept.len() - KEPT_BYTES);
            cut = true;
        }
    }
    if kept.len() > KEPT_BYTES {
        kept.drain(..kept.len() - KEPT_BYTES);
        cut = true;
    }
    (kept, cut)
}

/// Reads `from` to its end, keeping its first [`KEPT_BYTES`]; and whether there was more.
fn keep_head(mut from: impl Read) -> (Vec<u8>, bool) {
    let (mut kept, mut cut, mut buf) = (Vec::new(), false, vec![0; 64 << 10]);
    while let Ok(read @ 1..) = from.read(&mut buf) {
        let room = KEPT_BYTES - kept.len();
        kept.extend_from_slice(&buf[..read.min(room)]);
        cut |= read > room;
    }
    (kept, cut)
}

/// Runs `program` for every n of `ns`, `jobs` at a time, handing each run to `done` as it ends (in
/// the order they end). Once `stop` is set, the runs under way are killed and no other starts; the
/// runs killed so are not handed on.
pub(super) fn run_all(
    program: &Program,
    ns: &[u64],
    jobs: usize,
    stop: &AtomicBool,
    done: &(dyn Fn(ProgramRun) + Sync),
) {
    let queue = Mutex::new(ns.iter().copied().collect::<VecDeque<u64>>());
    let next = || if stop.load(Ordering::Relaxed) { None } else { queue.lock().expect("never poisoned").pop_front() };
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, ns.len().max(1)) {
            scope.spawn(|| {
                while let Some(n) = next() {
                    let run = program.run(n, stop);
                    if run.ending != Ending::Stopped {
                        done(run);
                    }
                }
            });
        }
    });
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

    #[test]
    fn words_as_a_shell_splits_them() {
        let words = |s: &str| split_words(s).unwrap();
        assert_eq!(words("  ./solve  {} --mod 7 "), ["./solve", "{}", "--mod", "7"]);
        assert_eq!(words(r#"a 'b c' "d \"e\" \\ \n" f\ g ''"#), ["a", "b c", r#"d "e" \ \n"#, "f g", ""]);
        assert!(split_words("a 'b").is_err() && split_words("a \"b").is_err() && split_words("   ").is_err());
    }

    #[test]
    fn the_tail_of_standard_output_and_the_head_of_standard_error() {
        let long: Vec<u8> = (0..3 * KEPT_BYTES + 5).map(|i| (i % 251) as u8).collect();
        let (tail, cut) = keep_tail(&long[..]);
        assert!(cut && tail[..] == long[long.len() - KEPT_BYTES..]);
        let (head, cut) = keep_head(&long[..]);
        assert!(cut && head[..] == long[..KEPT_BYTES]);
        assert_eq!(keep_tail(&b"12\n"[..]), (b"12\n".to_vec(), false));
        assert_eq!(keep_head(&b"x"[..]), (b"x".to_vec(), false));
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
}
