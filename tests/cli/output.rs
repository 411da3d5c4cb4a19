//! `--output FILE` / `-o FILE` (written to a hidden temporary file `.NAME.RANDOM.tmp` in the same
//! folder, made when the result is ready and renamed when complete) on every command; outputs that
//! are not regular files (devices, FIFOs, `-`) and links; standard output closed early or full; and
//! stopping a run with SIGINT (exit 130), SIGTERM (exit 143) and SIGKILL, which must leave neither
//! the file nor its temporary behind, `rank` with SIGINT while it counts, and a run blocked on its
//! output (a FIFO without a reader, a pipe not read) stopped by a signal. (An output that
//! cannot be written, a read-only file or one file for two roles is refused: see `validation.rs`.)

use std::io::Read;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::process::Stdio;
use std::time::Duration;

use crate::common::*;

/// Runs `args` to stdout, then with `-o FILE` (and with `--output FILE`) in a fresh folder: the same
/// exit status and stderr, nothing on stdout, the file holds exactly the bytes stdout had, and the
/// folder holds nothing else (no temporary file).
fn check_output_file(args: &[&str]) {
    let plain = fibtree(args);
    assert!(!plain.stdout.is_empty(), "fibtree {args:?} prints something: {}", stderr(&plain));
    for flag in ["-o", "--output"] {
        let dir = TempDir::new("same");
        let file = dir.join("out.txt");
        let with: Vec<&str> = args.iter().copied().chain([flag, file.as_str()]).collect();
        let output = fibtree(&with);
        assert_eq!(output.status.code(), plain.status.code(), "fibtree {with:?}: {}", stderr(&output));
        assert_eq!(stdout(&output), "", "fibtree {with:?}: stdout");
        assert_eq!(stderr(&output), stderr(&plain), "fibtree {with:?}: stderr");
        let written = std::fs::read(&file).unwrap_or_else(|e| panic!("fibtree {with:?}: reading {file}: {e}"));
        assert!(written == plain.stdout, "fibtree {with:?}: the file differs from stdout");
        assert_eq!(dir.names(), ["out.txt"], "fibtree {with:?}: the folder");
    }
}

#[test]
fn output_file_has_the_bytes_of_stdout() {
    let claims = TempDir::new("claims");
    let right_wrong = claims.join("right-wrong.csv");
    std::fs::write(&right_wrong, "n,g,modulus,answer\n10,0,7,3\n10,0,1000,18\n").unwrap();
    let malformed = claims.join("malformed.csv");
    std::fs::write(&malformed, "n,g,modulus,answer\n10,0,7,3\nx,0,7,1\n").unwrap();
    let cases: &[(&[&str], i32)] = &[
        (&["count", "100"], 0),
        (&["count", "300", "-q"], 0),
        (&["count", "30", "--g", "5", "--mod", "1000000007"], 0),
        (&["verify", "100", "--answer", "783211951", "--mod", "998244353"], 0),
        (&["verify", "10", "--answer", "18", "--last-digits", "5"], 1),
        (&["verify", "10", "--answer", "3", "--mod", "7", "--json"], 0),
        (&["verify", "--claims", &right_wrong], 1),
        (&["verify", "--claims", &malformed, "--json"], 2),
        (&["dist", "30"], 0),
        (&["dist", "30", "--mod", "7", "--json"], 0),
        (&["table", "1", "100"], 0),
        (&["table", "0", "50", "--json"], 0),
        (&["grundy", "10"], 0),
        (&["grundy", "0", "--json"], 0),
        (&["brute", "7"], 0),
        (&["brute", "10", "--g", "0"], 0),
    ];
    for (args, code) in cases {
        let status = fibtree(args).status.code();
        assert_eq!(status, Some(*code), "fibtree {args:?}");
        check_output_file(args);
    }
}

#[test]
fn output_relative_path_and_overwrite() {
    let dir = TempDir::new("relative");
    // relative to the working folder
    let output = fibtree_in(dir.path(), &["grundy", "10", "-o", "g.txt"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(std::fs::read_to_string(dir.path().join("g.txt")).unwrap(), "14\n");
    // an existing file is replaced whole
    std::fs::write(dir.path().join("t.csv"), "old contents, much longer than the new ones\n".repeat(100)).unwrap();
    let output = fibtree_in(dir.path(), &["table", "10", "10", "--output", "t.csv"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("t.csv")).unwrap(),
        "k,digits,last18,mod_998244353,value\n10,2,17,17,17\n"
    );
    assert_eq!(dir.names(), ["g.txt", "t.csv"]);
}

#[test]
fn completed_table_file_is_complete() {
    let dir = TempDir::new("complete");
    let file = dir.join("t.csv");
    let plain = fibtree(&["table", "1", "2000"]);
    assert_eq!(plain.status.code(), Some(0));
    let output = fibtree(&["table", "1", "2000", "-o", &file]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.as_bytes() == plain.stdout.as_slice(), "the file differs from stdout");
    assert!(text.ends_with('\n'));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2001, "the header and k = 1..=2000");
    assert_eq!(lines[0], "k,digits,last18,mod_998244353,value");
    assert!(lines[1].starts_with("1,"), "{}", lines[1]);
    let last: Vec<&str> = lines[2000].split(',').collect();
    assert_eq!(last.len(), 5);
    assert_eq!(last[0], "2000", "the last row is k = 2000");
    assert_eq!(last[1].parse::<usize>().unwrap(), last[4].len(), "digits of f(2000)");
    assert_eq!(dir.names(), ["t.csv"]);
}

// ---------------------------------------------------------------------------------------------
// Interrupts
// ---------------------------------------------------------------------------------------------

/// Starts `table 1 30000 --threads 1 -o FILE` (minutes of work), checks after 1.5 s that it still
/// runs, with at most its temporary file `.t.csv.RANDOM.tmp` (made at the first row), sends `signal`
/// with kill(1), and checks the exit status, the message, and that the folder is left empty.
fn interrupt(signal: &str, code: i32) {
    let dir = TempDir::new(&format!("sig{signal}"));
    let file = dir.join("t.csv");
    let args = ["table", "1", "30000", "--threads", "1", "-o", &file];
    let mut names = Vec::new();
    let (status, out, err) = signalled(&args, Duration::from_millis(1500), signal, || names = dir.names());
    assert!(
        names.len() <= 1 && names.iter().all(|n| n.starts_with(".t.csv.") && n.ends_with(".tmp")),
        "while running, at most the temporary file: {names:?}"
    );
    assert_eq!(status.code(), Some(code), "SIG{signal}: {status:?}, stderr {err:?}");
    assert!(err.contains("interrupted") && err.contains("t.csv' was not written"), "stderr: {err:?}");
    assert_eq!(out, "");
    assert!(dir.names().is_empty(), "SIG{signal} left {:?}", dir.names());
}

#[test]
fn sigint_stops_with_130_and_removes_the_file() {
    interrupt("INT", 130);
}

#[test]
fn sigterm_stops_with_143_and_removes_the_file() {
    interrupt("TERM", 143);
}

/// Ctrl-C stops `rank` while it counts (exit 130, no output).
#[test]
fn sigint_stops_rank_while_it_counts() {
    // about 9 s of counting on the 2-core machine
    let (status, out, err) = signalled(&["rank", "13000", "RLRLRLRL"], Duration::from_millis(1000), "INT", || {});
    assert_eq!(status.code(), Some(130), "{status:?}, {err}");
    assert_eq!(out, "", "nothing written");
}

/// Ctrl-C stops `estimate` while it counts the plan's states (the engines' own error, taken in as the
/// library's: exit 130 and the signal named, as every command stops).
#[test]
fn sigint_stops_estimate_while_it_counts() {
    // minutes of census on the 2-core machine
    let args = ["estimate", "1000000", "--census"];
    let (status, out, err) = signalled(&args, Duration::from_millis(700), "INT", || {});
    assert_eq!(status.code(), Some(130), "{status:?}, {err}");
    assert_eq!(err, "error: interrupted by SIGINT\n");
    assert_eq!(out, "", "nothing written");
}

/// A run waiting to write (a FIFO nobody opens for reading; a pipe nobody reads) is ended by the
/// first SIGINT, SIGTERM or SIGHUP at once, with the signal's status and message.
#[test]
fn a_signal_ends_a_run_blocked_on_its_output() {
    let dir = TempDir::new("blocked");
    let fifo = dir.join("results");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success(), "mkfifo {fifo}");
    for (signal, code) in [("TERM", 143), ("INT", 130), ("HUP", 129)] {
        // blocked in the FIFO's open, after the count
        let args = ["count", "300", "-q", "-o", &fifo];
        let (status, out, err) = signalled(&args, Duration::from_millis(700), signal, || {});
        assert_eq!(status.code(), Some(code), "SIG{signal} to a run blocked on a FIFO: {err}");
        assert_eq!(err, format!("error: interrupted by SIG{signal}\n"));
        assert_eq!(out, "");
    }
    // blocked writing a pipe whose reader does not read: `table 1 3000` writes megabytes
    let (reader, writer) = std::io::pipe().unwrap();
    let mut child = std::process::Command::new(binary())
        .args(["table", "1", "3000"])
        .stdin(Stdio::null())
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    assert!(child.try_wait().unwrap().is_none(), "table 1 3000 waits on its reader");
    let sent = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(sent.success());
    let status = wait_for_stop(&mut child, "table 1 3000 blocked on a pipe, after SIGINT");
    drop(reader);
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert_eq!(status.code(), Some(130), "{err}");
    assert_eq!(err, "error: interrupted by SIGINT\n");
}

#[test]
fn sigkill_while_computing_leaves_nothing() {
    // the temporary file is made when the result is ready, so a run killed before that leaves
    // nothing behind
    let dir = TempDir::new("kill9");
    let file = dir.join("out.txt");
    let args = ["count", "40000", "--threads", "1", "-o", &file];
    let mut child = spawn(&args);
    std::thread::sleep(Duration::from_millis(1500));
    assert!(child.try_wait().unwrap().is_none(), "count 40000 ended within 1.5 s");
    let names = dir.names();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(names.is_empty(), "while computing, the folder holds {names:?}");
    assert!(dir.names().is_empty(), "SIGKILL left {:?}", dir.names());
}

// ---------------------------------------------------------------------------------------------
// What an output path is: devices, FIFOs, links, permissions, `-`
// ---------------------------------------------------------------------------------------------

/// Whether this process runs as root (only root may make device files with mknod).
fn is_root() -> bool {
    std::fs::metadata("/proc/self").map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0).unwrap_or(false)
}

#[test]
fn devices_are_written_through_not_replaced() {
    let output = fibtree(&["count", "100", "-q", "-o", "/dev/null"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "");
    assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device(), "/dev/null is still a device");
    // a device made in a test folder (root only)
    if !is_root() {
        crate::common::skip("a character device made with mknod (needs root)");
        return;
    }
    let dir = TempDir::new("mknod");
    let null = dir.join("null");
    let made = std::process::Command::new("mknod").args([null.as_str(), "c", "1", "3"]).status().unwrap();
    assert!(made.success(), "mknod {null} c 1 3");
    for form in [&["-q"][..], &["--json"], &[]] {
        let args: Vec<&str> =
            ["count", "300"].iter().copied().chain(form.iter().copied()).chain(["-o", &null]).collect();
        let output = fibtree(&args);
        assert_eq!(output.status.code(), Some(0), "fibtree {args:?}: {}", stderr(&output));
        assert!(std::fs::metadata(&null).unwrap().file_type().is_char_device(), "fibtree {args:?}: still a device");
    }
    assert_eq!(dir.names(), ["null"], "nothing else made");
}

#[test]
fn a_full_device_is_one_error_naming_the_file() {
    let output = fibtree(&["count", "100", "-o", "/dev/full"]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("'/dev/full' (--output)"), "names the file and the option: {err}");
    assert_eq!(err.matches("No space left on device").count(), 1, "the OS error once: {err}");
    assert!(std::fs::metadata("/dev/full").unwrap().file_type().is_char_device());
}

#[test]
fn a_fifo_is_written_through() {
    let dir = TempDir::new("fifo");
    let fifo = dir.join("results");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success(), "mkfifo {fifo}");
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let output = fibtree(&["count", "100", "-q", "-o", &fifo]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(reader.join().unwrap(), success(&["count", "100", "-q"]));
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo(), "still a FIFO");
    assert_eq!(dir.names(), ["results"]);
}

#[test]
fn a_link_is_followed_and_the_target_keeps_its_mode() {
    let dir = TempDir::new("link");
    std::fs::create_dir(dir.path().join("real")).unwrap();
    let target = dir.file("real/out.txt", "old\n");
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
    let link = dir.join("link.txt");
    std::os::unix::fs::symlink("real/out.txt", &link).unwrap();
    let output = fibtree(&["grundy", "10", "-o", &link]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link stays a link");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "14\n");
    assert_eq!(std::fs::metadata(&target).unwrap().permissions().mode() & 0o777, 0o600, "the mode is kept");
    assert_eq!(dir.names(), ["link.txt", "real"]);
}

#[test]
fn a_dash_is_standard_output() {
    let dir = TempDir::new("dash");
    let output = fibtree_in(dir.path(), &["count", "100", "-q", "-o", "-"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), success(&["count", "100", "-q"]));
    assert!(dir.names().is_empty(), "no file named '-': {:?}", dir.names());
}

/// `-o /dev/stdout` (and `/dev/fd/1`, `/proc/self/fd/1`) writes through standard output as it is
/// open: appended to a file opened for appending (the file is not replaced), and into a pipe;
/// descriptors that are not open, or open for reading only, are refused, and a checkpoint cannot
/// be one.
#[test]
fn a_descriptor_path_writes_through_standard_output() {
    let dir = TempDir::new("descriptor");
    let expected = success(&["count", "100", "-q"]);
    for name in ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"] {
        let log = dir.file("app.log", "a\nb\n");
        let appending = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
        let output = run_to(&["count", "100", "-q", "-o", name], Stdio::from(appending));
        assert_eq!(output.status.code(), Some(0), "-o {name}: {}", stderr(&output));
        assert_eq!(std::fs::read_to_string(&log).unwrap(), format!("a\nb\n{expected}"), "-o {name} >> app.log");
        assert_eq!(dir.names(), ["app.log"], "no temporary file");
        let (mut reader, writer) = std::io::pipe().unwrap();
        let output = run_to(&["count", "100", "-q", "-o", name], Stdio::from(writer));
        assert_eq!(output.status.code(), Some(0), "-o {name} | ...: {}", stderr(&output));
        let mut piped = String::new();
        reader.read_to_string(&mut piped).unwrap();
        assert_eq!(piped, expected, "-o {name} into a pipe");
    }
    let err = usage_error(&["count", "30", "-q", "-o", "/dev/fd/9"], "--output");
    assert!(err.contains("descriptor 9, which is not open"), "{err}");
    let err = usage_error_with_stdin(&["count", "30", "-q", "-o", "/dev/stdin"], b"", "--output");
    assert!(err.contains("open only for reading"), "{err}");
    let err = usage_error(&["count", "30", "-q", "--checkpoint", "/dev/stdout"], "--checkpoint");
    assert!(err.contains("names an open file descriptor"), "{err}");
}

/// A file whose name is 250 bytes long (the longest most file systems take is 255) is written: its
/// temporary file's name is cut to fit.
#[test]
fn a_long_file_name_is_written() {
    let dir = TempDir::new("long-name");
    let name = "x".repeat(250);
    let path = dir.join(&name);
    let output = fibtree(&["count", "30", "-q", "-o", &path]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), success(&["count", "30", "-q"]));
    let checkpoint = dir.join(&"c".repeat(250));
    let output = fibtree(&["count", "300", "-q", "--checkpoint", &checkpoint]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(dir.names(), [name], "the checkpoint and its lock are removed after the run");
}

#[test]
fn two_outputs_may_both_be_a_device() {
    let output = fibtree(&["dist", "30", "-o", "/dev/null", "--svg", "/dev/null"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "");
    assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device(), "/dev/null is still a device");
}

// ---------------------------------------------------------------------------------------------
// Standard output closed early or full
// ---------------------------------------------------------------------------------------------

/// A short run of every command, and the help, version and man texts.
const EVERY_COMMAND: &[&[&str]] = &[
    &["count", "300"],
    &["count", "300", "--json"],
    &["count", "300", "--mod-only", "-q"],
    &["verify", "100", "--answer", "783211951", "--mod", "998244353"],
    &["dist", "300"],
    &["table", "1", "300"],
    &["moves", "30", "--list"],
    &["moves", "30", "--random", "--seed", "1"],
    &["rank", "30", "LLR"],
    &["draw", "6"],
    &["shard", "300", "--shard", "1/2"],
    &["estimate", "300", "--threads", "1"],
    &["bench", "--n", "300", "--runs", "1", "--threads", "1", "--no-progress"],
    &["self-test", "--seed", "1"],
    &["grundy", "10"],
    &["brute", "7"],
    &["completions", "bash"],
    &["man"],
    &["--help"],
    &["count", "--help"],
    &["help", "count"],
    &["count", "--version"],
    &["--version"],
];

/// Runs `fibtree args` with standard output `out`, within the tests' timeout.
fn run_to(args: &[&str], out: Stdio) -> std::process::Output {
    let mut child = std::process::Command::new(binary())
        .args(args)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("starting fibtree {args:?}: {e}"));
    let mut err = Vec::new();
    child.stderr.take().unwrap().read_to_end(&mut err).unwrap();
    let status = wait_for_stop(&mut child, &format!("fibtree {args:?}"));
    std::process::Output { status, stdout: Vec::new(), stderr: err }
}

#[test]
fn a_closed_pipe_ends_every_command_quietly() {
    for args in EVERY_COMMAND {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader); // the reader is gone before the first write, as with `| head -0`
        let output = run_to(args, Stdio::from(writer));
        let err = stderr(&output);
        assert_no_panic(args, &output.stderr);
        assert_eq!(output.status.code(), Some(0), "fibtree {args:?} to a closed pipe: {err}");
        assert!(!err.contains("error"), "fibtree {args:?} to a closed pipe: {err}");
    }
}

#[test]
fn a_full_standard_output_is_one_error_for_every_command() {
    for args in EVERY_COMMAND {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let output = run_to(args, Stdio::from(full));
        let err = stderr(&output);
        assert_no_panic(args, &output.stderr);
        assert_eq!(output.status.code(), Some(1), "fibtree {args:?} to /dev/full: {err}");
        let line = err.lines().find(|l| l.starts_with("error:")).unwrap_or_default();
        assert!(line.contains("standard output"), "fibtree {args:?}: names standard output: {err}");
        assert_eq!(err.matches("No space left on device").count(), 1, "fibtree {args:?}: {err}");
    }
}

#[test]
fn head_ends_a_long_stream_with_status_0() {
    // the reader goes after the first lines, while the command still writes
    for args in [&["dist", "3000"][..], &["table", "1", "5000"]] {
        let (status, err) = closed_after(args, 16);
        assert_eq!(status.code(), Some(0), "fibtree {args:?} | head: {err}");
        assert!(!err.contains("error"), "fibtree {args:?} | head: {err}");
    }
}

/// A temporary file that a writer killed in the middle of a write left (`.NAME.RANDOM.tmp`, which
/// no process holds) goes with the next write to that name; another name's stays.
#[test]
fn a_stale_temporary_goes_with_the_next_write_of_its_name() {
    let dir = TempDir::new("stale-output");
    let stale = dir.file(".out.txt.00000000deadbeef.tmp", "half of an output");
    let other = dir.file(".other.txt.00000000deadbeef.tmp", "another's");
    let out = dir.path().join("out.txt");
    let output = fibtree(&["count", "10", "-q", "-o", out.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "17\n");
    assert!(!std::path::Path::new(&stale).exists(), "the stale temporary is gone");
    assert!(std::path::Path::new(&other).exists(), "another name's is left");
}
