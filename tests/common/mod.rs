//! Helpers shared by the integration tests: running the `fibtree` binary (every run checked for a
//! panic), signalling a run, the checks of a successful run and of a usage error, temporary
//! folders, and a few small computations the tests compare against. Constants and generators are
//! the library's own.

// Each test crate compiles its own copy of this module and uses a different subset of it.
#![allow(dead_code)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::time::Duration;

use assert_cmd::Command;
use serde_json::Value;

mod shared;
pub use shared::*;

/// How long one run of the binary may take before the test fails: generous, for the slowest runs
/// (f(10000)'s moves, long claims files) on a loaded machine.
pub const TIMEOUT: Duration = Duration::from_secs(300);

// ---------------------------------------------------------------------------------------------
// Simulated machines
// ---------------------------------------------------------------------------------------------

/// The machines the tests of a figure the machine decides run under (`FIBTREE_MACHINE`,
/// docs/commands.md "Another machine, simulated"): L2 of 512 KiB, 1 MiB and 2 MiB; no L3 reported;
/// 1, 2 and 64 cores; the baseline kernels only on the first. Whatever machine runs the tests, each
/// such test passes under all three, and on the machine itself.
pub const SIMULATED: [&str; 3] =
    ["l2=512K,l3=none,cores=1,kernels=baseline", "l2=1M,l3=16M,cores=2", "l2=2M,l3=32M,cores=64"];

thread_local! {
    /// The machine the runs of this test's thread simulate (`None`: the machine itself).
    static MACHINE: std::cell::Cell<Option<&'static str>> = const { std::cell::Cell::new(None) };
}

/// Runs `test` with every run of the binary it makes (on this thread) simulating `machine`, as
/// `FIBTREE_MACHINE` sets it; says which on stdout, so that a failure names the machine.
pub fn on_machine<T>(machine: &'static str, test: impl FnOnce() -> T) -> T {
    println!("FIBTREE_MACHINE={machine}");
    let before = MACHINE.with(|m| m.replace(Some(machine)));
    let result = test();
    MACHINE.with(|m| m.set(before));
    result
}

/// Runs `test` on this machine and then on each of [`SIMULATED`].
pub fn on_every_machine(mut test: impl FnMut()) {
    test();
    for machine in SIMULATED {
        on_machine(machine, &mut test);
    }
}

/// Sets `FIBTREE_MACHINE` on `command` where this thread simulates a machine ([`on_machine`]).
fn simulating(command: &mut std::process::Command) {
    if let Some(machine) = MACHINE.with(std::cell::Cell::get) {
        command.env("FIBTREE_MACHINE", machine);
    }
}

// ---------------------------------------------------------------------------------------------
// Running the binary
// ---------------------------------------------------------------------------------------------

/// The path of the `fibtree` binary under test.
pub fn binary() -> PathBuf {
    assert_cmd::cargo::cargo_bin("fibtree")
}

/// Fails if `stderr` (of `fibtree args`) reports a panic.
pub fn assert_no_panic(args: &[&str], stderr: &[u8]) {
    let stderr = String::from_utf8_lossy(stderr);
    assert!(!stderr.contains("panicked"), "fibtree {args:?} panicked:\n{stderr}");
}

/// Runs `fibtree args` with `stdin` on standard input (empty if `None`) in the working folder `cwd`
/// (this process's if `None`), within [`TIMEOUT`], and checks that it did not panic. Every run of
/// the binary through `assert_cmd` goes through here.
pub fn fibtree_with(args: &[&str], stdin: Option<&[u8]>, cwd: Option<&Path>) -> Output {
    let mut plain = std::process::Command::new(binary());
    simulating(&mut plain);
    let mut cmd = Command::from_std(plain);
    cmd.args(args).timeout(TIMEOUT);
    if let Some(bytes) = stdin {
        cmd.write_stdin(bytes.to_vec());
    }
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    let output = cmd.output().unwrap_or_else(|e| panic!("running fibtree {args:?}: {e}"));
    assert_no_panic(args, &output.stderr);
    output
}

/// Runs `fibtree args`, checking that it did not panic.
pub fn fibtree(args: &[&str]) -> Output {
    fibtree_with(args, None, None)
}

/// Runs `fibtree args` with `stdin` on standard input, checking that it did not panic.
pub fn fibtree_with_stdin(args: &[&str], stdin: &[u8]) -> Output {
    fibtree_with(args, Some(stdin), None)
}

/// Runs `fibtree args` in the working folder `cwd`, checking that it did not panic.
pub fn fibtree_in(cwd: &Path, args: &[&str]) -> Output {
    fibtree_with(args, None, Some(cwd))
}

/// Starts `fibtree args` in the background, standard input empty and standard output and error
/// piped, for the tests that signal or kill it (check its stderr with [`assert_no_panic`]).
pub fn spawn(args: &[&str]) -> Child {
    let mut command = std::process::Command::new(binary());
    simulating(&mut command);
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("starting fibtree {args:?}: {e}"))
}

/// Waits for a signalled child to end, killing it and failing the test after 30 s; `what` names
/// the run and the signal in the failure.
pub fn wait_for_stop(child: &mut Child, what: &str) -> std::process::ExitStatus {
    let start = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: did not stop within 30 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs `fibtree args` with standard output piped, reads its first `bytes` bytes and closes the
/// pipe, as `fibtree ARGS | head -c BYTES` does, and returns its exit status and standard error
/// (checked for a panic) once it stops.
pub fn closed_after(args: &[&str], bytes: usize) -> (std::process::ExitStatus, String) {
    let mut command = std::process::Command::new(binary());
    simulating(&mut command);
    let mut child = command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("starting fibtree {args:?}: {e}"));
    let mut first = vec![0u8; bytes];
    child.stdout.as_mut().unwrap().read_exact(&mut first).unwrap();
    drop(child.stdout.take());
    let status = wait_for_stop(&mut child, &format!("fibtree {args:?} | head -c {bytes}"));
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert_no_panic(args, err.as_bytes());
    (status, err)
}

/// Starts `fibtree args`, waits `after`, calls `while_running` and checks that the run has not
/// ended, sends it `SIG{signal}` with kill(1), and returns its exit status, stdout and stderr
/// (checked for a panic) once it stops.
pub fn signalled(
    args: &[&str],
    after: Duration,
    signal: &str,
    while_running: impl FnOnce(),
) -> (std::process::ExitStatus, String, String) {
    let mut child = spawn(args);
    std::thread::sleep(after);
    let running = child.try_wait().unwrap().is_none();
    while_running();
    if !running {
        let _ = child.wait();
        panic!("fibtree {args:?} ended within {after:?}");
    }
    let pid = child.id().to_string();
    let sent = std::process::Command::new("kill").args([&format!("-{signal}"), &pid]).status().expect("running kill");
    let status = wait_for_stop(&mut child, &format!("fibtree {args:?} after SIG{signal}"));
    assert!(sent.success(), "kill -{signal} {pid}");
    let (mut out, mut err) = (String::new(), String::new());
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert_no_panic(args, err.as_bytes());
    (status, out, err)
}

/// The standard output of a run, which must be UTF-8.
pub fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

/// The standard error of a run, which must be UTF-8.
pub fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("stderr is UTF-8")
}

// ---------------------------------------------------------------------------------------------
// Successful runs
// ---------------------------------------------------------------------------------------------

/// Runs a command that must succeed (exit status 0) and returns its stdout and stderr.
pub fn success_with_stderr(args: &[&str]) -> (String, String) {
    let output = fibtree(args);
    assert_eq!(output.status.code(), Some(0), "fibtree {args:?}: {}", stderr(&output));
    (stdout(&output), stderr(&output))
}

/// Runs a command that must succeed (exit status 0) and returns its stdout.
pub fn success(args: &[&str]) -> String {
    success_with_stderr(args).0
}

/// Parses `out`, the stdout of `fibtree args`, as exactly one line holding one JSON value.
pub fn json_line(args: &[&str], out: &str) -> Value {
    assert_eq!(out.lines().count(), 1, "fibtree {args:?} prints one line of JSON: {out}");
    serde_json::from_str(out).unwrap_or_else(|e| panic!("fibtree {args:?}: {e}: {out}"))
}

/// Runs a command that must succeed and parses its stdout as one line of JSON.
pub fn success_json(args: &[&str]) -> Value {
    json_line(args, &success(args))
}

// ---------------------------------------------------------------------------------------------
// Usage errors
// ---------------------------------------------------------------------------------------------

/// Checks that `output` (of `fibtree args`) is a usage error: exit status 2, nothing on stdout, and
/// exactly one line on stderr, ended by a newline, that starts with "error:" and contains `names`
/// (the argument at fault). Returns that line.
pub fn check_usage_error(args: &[&str], output: &Output, names: &str) -> String {
    let err = stderr(output);
    assert_eq!(output.status.code(), Some(2), "fibtree {args:?}: exit status; stderr: {err}");
    assert!(output.stdout.is_empty(), "fibtree {args:?}: stdout should be empty: {:?}", stdout(output));
    assert!(err.ends_with('\n') && err.lines().count() == 1, "fibtree {args:?}: one line on stderr, got {err:?}");
    assert!(err.starts_with("error:"), "fibtree {args:?}: {err:?}");
    assert!(err.contains(names), "fibtree {args:?}: the message should name {names:?}: {err:?}");
    err
}

/// Runs `fibtree args` and checks that it is a usage error naming `names` (see
/// [`check_usage_error`]). Returns the error line.
pub fn usage_error(args: &[&str], names: &str) -> String {
    check_usage_error(args, &fibtree(args), names)
}

/// Runs `fibtree args` with `stdin` on standard input and checks that it is a usage error naming
/// `names` (see [`check_usage_error`]). Returns the error line.
pub fn usage_error_with_stdin(args: &[&str], stdin: &[u8], names: &str) -> String {
    check_usage_error(args, &fibtree_with_stdin(args, stdin), names)
}

// ---------------------------------------------------------------------------------------------
// Temporary folders
// ---------------------------------------------------------------------------------------------

/// A fresh folder under the system's temporary folder ([`tempfile::TempDir`]), named after the
/// test crate and `tag`, removed when dropped.
// a wrapper, not tempfile's type itself: the tests take its paths as strings (join, file, names)
pub struct TempDir(tempfile::TempDir);

impl TempDir {
    /// A new empty folder whose name starts `fibtree-CRATE-TAG-`.
    pub fn new(tag: &str) -> TempDir {
        let prefix = format!("fibtree-{}-{tag}-", env!("CARGO_CRATE_NAME"));
        TempDir(tempfile::Builder::new().prefix(&prefix).tempdir().unwrap())
    }

    /// The folder's path.
    pub fn path(&self) -> &Path {
        self.0.path()
    }

    /// `name` in the folder, as a string.
    pub fn join(&self, name: &str) -> String {
        self.0.path().join(name).to_str().unwrap().to_string()
    }

    /// Writes `contents` to the file `name` in the folder and returns its path as a string.
    pub fn file(&self, name: &str, contents: impl AsRef<[u8]>) -> String {
        let path = self.0.path().join(name);
        std::fs::write(&path, contents).unwrap();
        path.to_str().unwrap().to_string()
    }

    /// The names in the folder, sorted (hidden ones included).
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.0.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

/// The FNV-1a checksum a shard file carries (docs/formats.md): of its JSON with the checksum empty.
pub fn shard_checksum(file: &Value) -> String {
    let mut blank = file.clone();
    blank["checksum"] = Value::String(String::new());
    let text = serde_json::to_string(&blank).unwrap();
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    format!("{hash:016x}")
}

/// Bytes of a size as `human_bytes` writes it: "13.4 MiB", "812 KiB", "20 B".
pub fn parse_size(text: &str) -> u64 {
    let (number, unit) = text.split_once(' ').unwrap_or_else(|| panic!("a size: {text}"));
    let scale = match unit {
        "B" => 1.0,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => panic!("a unit: {text}"),
    };
    (number.parse::<f64>().unwrap_or_else(|_| panic!("a number: {text}")) * scale) as u64
}
