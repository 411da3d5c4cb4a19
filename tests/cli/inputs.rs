//! Inputs too large to hold or that never end: a claims file (`verify --claims`) and a shard set
//! (`combine`) read in bounded memory under `ulimit -v` (completed, or refused with exit 2, never
//! aborted), and stopped by SIGINT or SIGTERM while they are read or while the verdicts are written
//! (the signal's exit status, no output file, no temporary file).

use std::io::Write;
use std::process::{Child, Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::Value;

use super::verify::{exact, residue};
use crate::common::*;

/// Runs `fibtree args` from bash under `ulimit -v kib` with `stdin`, and checks that it was not
/// killed (an abort for memory is SIGABRT) and did not panic. `None` where there is no bash.
fn limited(kib: u64, args: &[&str], stdin: Stdio) -> Option<Output> {
    let script = format!("ulimit -v {kib} && exec \"$0\" \"$@\"");
    let output = Command::new("bash").arg("-c").arg(&script).arg(binary()).args(args).stdin(stdin).output().ok()?;
    assert_no_panic(args, &output.stderr);
    assert!(output.status.code().is_some(), "fibtree {args:?} under ulimit -v {kib}: killed: {output:?}");
    Some(output)
}

/// Checks that `output` is a refusal for memory under `ulimit -v` naming the argument `arg` (which
/// makes the run this large), exit status 2.
fn refused_for_memory(output: &Output, arg: &str) {
    let err = stderr(output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.starts_with(&format!("error: {arg}: this run needs about")), "{err}");
    assert!(err.contains("(estimate), more than") && err.contains("(ulimit -v)"), "{err}");
}

/// Writes `head` into `sink`, then `body` again and again until its reader is gone, counting the
/// bytes written in `written`.
fn endless(mut sink: impl Write + Send + 'static, head: Vec<u8>, body: Vec<u8>, written: Arc<AtomicU64>) {
    std::thread::spawn(move || {
        let _ = sink.write_all(&head);
        while sink.write_all(&body).is_ok() {
            written.fetch_add(body.len() as u64, Ordering::Relaxed);
        }
    });
}

/// Waits until `ready` holds or `child` ends (failing the test with its standard error, or after
/// 30 s).
fn wait_until(child: &mut Child, what: &str, ready: impl Fn() -> bool) {
    let start = std::time::Instant::now();
    while !ready() {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
            panic!("{what}: ended first, {status}: {err}");
        }
        assert!(start.elapsed() < Duration::from_secs(30), "{what}: not ready within 30 s");
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Sends `SIG{signal}` to `child` and returns its exit status and standard error once it stops.
fn stop(mut child: Child, signal: &str, what: &str) -> (Option<i32>, String) {
    let sent = Command::new("kill").args([&format!("-{signal}"), &child.id().to_string()]).status().unwrap();
    assert!(sent.success(), "kill -{signal}");
    let status = wait_for_stop(&mut child, &format!("{what} after SIG{signal}"));
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert_no_panic(&[what], err.as_bytes());
    (status.code(), err)
}

/// Makes the FIFO `path`; false where mkfifo is missing.
fn mkfifo(path: &str) -> bool {
    Command::new("mkfifo").arg(path).status().is_ok_and(|s| s.success())
}

/// A claims file of `lines` right claims on 40 distinct (n, g), modulo 10^9 + 7.
fn right_claims(lines: usize) -> String {
    let truth: Vec<u128> = (0..40).map(|k| residue(&exact(100 + k, 0), 1_000_000_007)).collect();
    let mut text = String::from("n,g,modulus,answer\n");
    for i in 0..lines {
        text.push_str(&format!("{},0,1000000007,{}\n", 100 + i % 40, truth[i % 40]));
    }
    text
}

/// 200,000 claims (4.6 MiB) are read in the memory of what they ask, not of their lines: under
/// an address space that holding the file and its verdicts did not fit in, from a file, from
/// standard input as a file and through a pipe, the verdicts are those of a run without a limit.
/// Through a pipe, whose text is held to be read again, a stream too large for the limit is
/// refused (exit 2), not aborted.
#[test]
fn a_large_claims_file_is_read_in_bounded_memory() {
    let dir = TempDir::new("claims-memory");
    let path = dir.file("claims.csv", right_claims(200_000));
    let want = success(&["verify", "--claims", &path, "--threads", "1"]);
    assert!(want.ends_with("200000 OK, 0 MISMATCH, 0 malformed\n"));
    let args = ["verify", "--claims", &path, "--threads", "1"];
    let Some(output) = limited(100_000, &args, Stdio::null()) else {
        skip("no bash to set ulimit -v");
        return;
    };
    assert_eq!((output.status.code(), stdout(&output) == want), (Some(0), true), "{}", stderr(&output));
    let from_stdin = ["verify", "--claims", "-", "--threads", "1"];
    let output = limited(100_000, &from_stdin, std::fs::File::open(&path).unwrap().into()).unwrap();
    assert_eq!((output.status.code(), stdout(&output) == want), (Some(0), true), "{}", stderr(&output));
    let mut cat = Command::new("cat").arg(&path).stdout(Stdio::piped()).spawn().unwrap();
    let output = limited(100_000, &from_stdin, cat.stdout.take().unwrap().into()).unwrap();
    cat.wait().unwrap();
    assert_eq!((output.status.code(), stdout(&output) == want), (Some(0), true), "{}", stderr(&output));
    // a stream that never ends, held until it reaches the limit
    let mut child = Command::new("bash")
        .arg("-c")
        .arg("ulimit -v 100000 && exec \"$0\" \"$@\"")
        .arg(binary())
        .args(from_stdin)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let line = b"10,0,7,3\n".to_vec();
    endless(child.stdin.take().unwrap(), b"n,g,modulus,answer\n".to_vec(), line, Arc::default());
    let status = wait_for_stop(&mut child, "verify --claims - of a stream that never ends");
    let output = Output { status, stdout: Vec::new(), stderr: child.wait_with_output().unwrap().stderr };
    assert_no_panic(&from_stdin, &output.stderr);
    refused_for_memory(&output, "--claims");
}

/// A claims file that never ends (a FIFO, or standard input) is stopped by SIGTERM or SIGINT while
/// it is read: the signal's exit status, and no output file.
#[test]
fn a_signal_stops_the_reading_of_claims() {
    for (signal, code) in [("TERM", 143), ("INT", 130)] {
        for fifo in [false, true] {
            let dir = TempDir::new("claims-read-signal");
            let (input, out) = (dir.join("claims.fifo"), dir.join("verdicts.txt"));
            if fifo && !mkfifo(&input) {
                skip("no mkfifo");
                return;
            }
            let source = if fifo { input.as_str() } else { "-" };
            let args = ["verify", "--claims", source, "-o", &out];
            let mut child = Command::new(binary())
                .args(args)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let written = Arc::new(AtomicU64::new(0));
            let (head, body) = (b"n,g,modulus,answer\n".to_vec(), b"10,0,7,3\n".repeat(100));
            match fifo {
                // opening the FIFO waits for fibtree to open it
                true => {
                    let (input, written) = (input.clone(), written.clone());
                    std::thread::spawn(move || {
                        let sink = std::fs::OpenOptions::new().write(true).open(&input).unwrap();
                        endless(sink, head, body, written);
                    });
                }
                false => endless(child.stdin.take().unwrap(), head, body, written.clone()),
            }
            // more than a pipe holds has gone: fibtree is reading
            wait_until(&mut child, &format!("{args:?}"), || written.load(Ordering::Relaxed) > 1 << 20);
            let (status, err) = stop(child, signal, &format!("{args:?}"));
            assert_eq!(status, Some(code), "SIG{signal}, {}: {err}", if fifo { "FIFO" } else { "stdin" });
            assert!(err.contains(&format!("interrupted by SIG{signal}")), "{err}");
            let left: Vec<String> = dir.names().into_iter().filter(|n| n != "claims.fifo").collect();
            assert!(left.is_empty(), "SIG{signal} left {left:?}");
        }
    }
}

/// A signal while the verdicts of a large claims file are written (text or JSON) ends the run with
/// its exit status, and leaves neither the output nor its temporary file.
#[test]
fn a_signal_while_the_verdicts_are_written_leaves_no_file() {
    let dir = TempDir::new("claims-write-signal");
    let path = dir.file("claims.csv", right_claims(500_000));
    for (signal, code, json) in [("TERM", 143, false), ("INT", 130, true)] {
        let out = dir.join("verdicts.txt");
        let mut args = vec!["verify", "--claims", &path, "-o", &out];
        if json {
            args.push("--json");
        }
        let mut child = spawn(&args);
        // the temporary file holds verdicts (an empty one of that name is the output's folder
        // probed before the run, which the signal handlers are installed before)
        let written = || {
            let mut temporary = dir.names().into_iter().filter(|n| n.starts_with(".verdicts.txt."));
            temporary.any(|n| std::fs::metadata(dir.join(&n)).is_ok_and(|m| m.len() > 0))
        };
        let start = std::time::Instant::now();
        while !written() && child.try_wait().unwrap().is_none() {
            assert!(start.elapsed() < Duration::from_secs(120), "no verdict written within 120 s");
            std::thread::sleep(Duration::from_millis(1));
        }
        if child.try_wait().unwrap().is_some() {
            skip("the verdicts were written before a signal could reach the run");
            return;
        }
        let (status, err) = stop(child, signal, &format!("{args:?}"));
        assert_eq!(status, Some(code), "SIG{signal}: {err}");
        assert!(err.contains(&format!("interrupted by SIG{signal}")) && err.contains("was not written"), "{err}");
        assert_eq!(dir.names(), ["claims.csv"], "SIG{signal} (JSON: {json})");
    }
}

/// A shard file `1/2` of `primes` numbers (none of them the real primes), with its checksum.
fn large_shard(primes: usize) -> String {
    let numbers: Vec<Value> =
        (0..primes as u64).map(|i| Value::String((4_611_686_018_427_387_847 - 2 * i).to_string())).collect();
    let residues: Vec<Value> =
        (0..primes as u64).map(|i| Value::String((1_289_137_164_706_549_181 + i).to_string())).collect();
    let mut file = serde_json::json!({
        "checksum": "", "format": 1, "g": 0, "n": 3000, "primes": numbers, "program": "fibtree 0.1.0",
        "residues": residues, "seconds": 1.5, "shard": "1/2",
    });
    file["checksum"] = Value::String(shard_checksum(&file));
    serde_json::to_string(&file).unwrap()
}

/// A shard set is read in the memory of its numbers, never as text: a real set combines under a
/// small address space, and a 44 MB shard file (held as text, strings and copies, it took more
/// than the limit below) is read whole, to the shard found missing (exit 2); below what its numbers
/// and their reconstruction would take, it is refused before any reading (exit 2).
#[test]
fn a_large_shard_set_is_read_in_bounded_memory() {
    let dir = TempDir::new("shards-memory");
    for i in 1..=3 {
        success(&["shard", "3000", "--shard", &format!("{i}/3"), "-o", &dir.join(&format!("{i}.json"))]);
    }
    let folder = dir.path().to_str().unwrap();
    let Some(output) = limited(100_000, &["combine", folder, "-q", "--threads", "1"], Stdio::null()) else {
        skip("no bash to set ulimit -v");
        return;
    };
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output).trim(), exact(3000, 0).to_string());
    let large = TempDir::new("shards-large");
    let path = large.file("1.json", large_shard(1_000_000));
    assert!(std::fs::metadata(&path).unwrap().len() > 40 << 20);
    let args = ["combine", &path, "--threads", "1"];
    let output = limited(200_000, &args, Stdio::null()).unwrap();
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("FILES: shard 2 of 2 is missing"), "{err}");
    refused_for_memory(&limited(100_000, &args, Stdio::null()).unwrap(), "FILES");
}

/// A shard file that never ends (a FIFO) is stopped by SIGINT or SIGTERM while it is read: the
/// signal's exit status, and no output file.
#[test]
fn a_signal_stops_the_reading_of_shards() {
    for (signal, code) in [("INT", 130), ("TERM", 143)] {
        let dir = TempDir::new("shards-read-signal");
        let (input, out) = (dir.join("shard.fifo"), dir.join("value.txt"));
        if !mkfifo(&input) {
            skip("no mkfifo");
            return;
        }
        let args = ["combine", input.as_str(), "-o", &out];
        let mut child = spawn(&args);
        let written = Arc::new(AtomicU64::new(0));
        let head = br#"{"checksum":"0","format":1,"g":0,"n":3000,"primes":["2""#.to_vec();
        let body = br#","4611686018427387847""#.repeat(100);
        let (fifo, counter) = (input.clone(), written.clone());
        std::thread::spawn(move || {
            let sink = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
            endless(sink, head, body, counter);
        });
        wait_until(&mut child, &format!("{args:?}"), || written.load(Ordering::Relaxed) > 1 << 20);
        let (status, err) = stop(child, signal, &format!("{args:?}"));
        assert_eq!(status, Some(code), "SIG{signal}: {err}");
        assert!(err.contains(&format!("interrupted by SIG{signal}")), "{err}");
        assert_eq!(dir.names(), ["shard.fifo"], "SIG{signal}");
    }
}
