//! Every kind of bad input: a one-line error naming the argument, exit status 2, nothing on stdout,
//! and no panic.

use std::io::Write;
use std::time::Duration;

use assert_cmd::Command;

/// Runs fibtree with `args` (and `stdin`) and checks the refusal.
fn refused_with_stdin(args: &[&str], stdin: &[u8], names: &str) {
    let output = Command::cargo_bin("fibtree")
        .unwrap()
        .args(args)
        .write_stdin(stdin.to_vec())
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(!err.contains("panicked"), "fibtree {args:?} panicked: {err}");
    assert_eq!(output.status.code(), Some(2), "fibtree {args:?}: {err}");
    assert!(output.stdout.is_empty(), "fibtree {args:?}: stdout {:?}", String::from_utf8_lossy(&output.stdout));
    assert_eq!(err.lines().count(), 1, "fibtree {args:?}: {err}");
    assert!(err.starts_with("error:") && err.contains(names), "fibtree {args:?} should name {names}: {err}");
}

fn refused(args: &[&str], names: &str) {
    refused_with_stdin(args, b"", names);
}

#[test]
fn numbers_negative_signed_spaced_non_numeric_or_too_large() {
    for bad in ["-1", "+1", " 1", "1 ", "1_000", "x", "", "18446744073709551616", "1e3"] {
        refused(&["count", bad], "<N>");
        refused(&["count", "10", "--g", bad], "--g");
        refused(&["dist", bad], "<N>");
        refused(&["table", "1", bad], "<TO>");
        refused(&["moves", bad, "--list"], "<N>");
        refused(&["grundy", bad], "<K>");
    }
}

#[test]
fn n_beyond_the_engines_or_the_memory() {
    refused(&["count", "4294967296"], "N");
    refused(&["count", "18446744073709551615"], "N");
    refused(&["count", "2147483647"], "memory");
    refused(&["count", "10000", "--max-memory", "1M"], "memory");
    refused(&["dist", "1000000"], "memory");
    refused(&["table", "1", "2147483647"], "memory");
    refused(&["moves", "2000000000", "--nth", "0"], "memory");
}

#[test]
fn moduli_out_of_range() {
    for bad in ["0", "1", "2^63", "9223372036854775808", "2^200", "-7", "x"] {
        refused(&["count", "10", "--mod", bad], "--mod");
        refused(&["dist", "10", "--mod", bad], "--mod");
    }
    for bad in ["0", "1", "2^128", "340282366920938463463374607431768211456", "1e39"] {
        refused(&["verify", "10", "--answer", "0", "--mod", bad], "--mod");
    }
}

#[test]
fn threads_and_sizes() {
    refused(&["count", "10", "--threads", "0"], "--threads");
    refused(&["count", "10", "--threads", "100000"], "--threads");
    refused(&["count", "10", "--max-memory", "lots"], "--max-memory");
}

#[test]
fn claims_files_empty_binary_long_or_headless() {
    let dir = std::env::temp_dir().join(format!("fibtree-validation-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        std::fs::File::create(&path).unwrap().write_all(bytes).unwrap();
        path.to_string_lossy().into_owned()
    };
    refused(&["verify", "--claims", &write("empty.csv", b"")], "--claims");
    refused(&["verify", "--claims", &write("blank.csv", b"\n\n  \n")], "--claims");
    refused(&["verify", "--claims", &write("header.csv", b"n,g,modulus,answer\n")], "--claims");
    refused(&["verify", "--claims", &dir.join("missing.csv").to_string_lossy()], "--claims");
    refused_with_stdin(&["verify", "--claims", "-"], b"", "--claims");

    // malformed content is reported line by line (exit 2), never a crash
    let binary: Vec<u8> = (0..4096u32).map(|i| (i * 37 % 256) as u8).collect();
    let mut long = b"n,g,modulus,answer\n10,0,7,3\n".to_vec();
    long.extend(std::iter::repeat_n(b'9', 10 << 20));
    long.push(b'\n');
    for (name, bytes) in [("binary.csv", binary), ("long.csv", long), ("headless.csv", b"10,0,7,3\n".to_vec())] {
        let path = write(name, &bytes);
        let output = Command::cargo_bin("fibtree").unwrap().args(["verify", "--claims", &path]).output().unwrap();
        let err = String::from_utf8_lossy(&output.stderr);
        assert!(!err.contains("panicked"), "{name}: {err}");
        assert_eq!(output.status.code(), Some(2), "{name}: {err}");
        let out = String::from_utf8_lossy(&output.stdout);
        assert!(out.contains("malformed"), "{name}: {out}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn output_in_a_missing_or_unwritable_folder() {
    refused(&["count", "10", "-o", "/nonexistent-folder/x.txt"], "--output");
    // /proc refuses new files even to root
    refused(&["count", "10", "-o", "/proc/fibtree-x.txt"], "--output");
    refused(&["count", "10", "-o", "/tmp"], "--output");
}

#[test]
fn usage_errors() {
    refused(&[], "command");
    refused(&["count"], "<N>");
    refused(&["count", "10", "--bogus"], "--bogus");
    refused(&["frobnicate"], "frobnicate");
    refused(&["count", "10", "--engine", "fast"], "--engine");
    refused(&["completions", "tcsh"], "<SHELL>");
}
