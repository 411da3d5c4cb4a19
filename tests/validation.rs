//! Every kind of bad input: a one-line error naming the argument, exit status 2, nothing on stdout,
//! and no panic.

mod common;
use common::*;

#[test]
fn numbers_negative_signed_spaced_non_numeric_or_too_large() {
    for bad in ["-1", "+1", " 1", "1 ", "1_000", "x", "", "18446744073709551616", "1e3"] {
        usage_error(&["count", bad], "<N>");
        usage_error(&["count", "10", "--g", bad], "--g");
        usage_error(&["dist", bad], "<N>");
        usage_error(&["table", "1", bad], "<TO>");
        usage_error(&["moves", bad, "--list"], "<N>");
        usage_error(&["grundy", bad], "<K>");
    }
}

#[test]
fn n_beyond_the_engines_or_the_memory() {
    usage_error(&["count", "4294967296"], "N");
    usage_error(&["count", "18446744073709551615"], "N");
    usage_error(&["count", "2147483647"], "memory");
    usage_error(&["count", "10000", "--max-memory", "1M"], "memory");
    usage_error(&["dist", "1000000"], "memory");
    usage_error(&["table", "1", "2147483647"], "memory");
    usage_error(&["moves", "2000000000", "--nth", "0"], "memory");
}

#[test]
fn moduli_out_of_range() {
    for bad in ["0", "1", "2^63", "9223372036854775808", "2^200", "-7", "x"] {
        usage_error(&["count", "10", "--mod", bad], "--mod");
        usage_error(&["dist", "10", "--mod", bad], "--mod");
    }
    for bad in ["0", "1", "2^128", "340282366920938463463374607431768211456", "1e39"] {
        usage_error(&["verify", "10", "--answer", "0", "--mod", bad], "--mod");
    }
}

#[test]
fn threads_and_sizes() {
    usage_error(&["count", "10", "--threads", "0"], "--threads");
    usage_error(&["count", "10", "--threads", "100000"], "--threads");
    usage_error(&["count", "10", "--max-memory", "lots"], "--max-memory");
}

#[test]
fn claims_files_empty_binary_long_or_headless() {
    let dir = TempDir::new("claims");
    usage_error(&["verify", "--claims", &dir.file("empty.csv", b"")], "--claims");
    usage_error(&["verify", "--claims", &dir.file("blank.csv", b"\n\n  \n")], "--claims");
    usage_error(&["verify", "--claims", &dir.file("header.csv", b"n,g,modulus,answer\n")], "--claims");
    usage_error(&["verify", "--claims", &dir.join("missing.csv")], "--claims");
    usage_error_with_stdin(&["verify", "--claims", "-"], b"", "--claims");

    // malformed content is reported line by line (exit 2), never a crash
    let binary: Vec<u8> = (0..4096u32).map(|i| (i * 37 % 256) as u8).collect();
    let mut long = b"n,g,modulus,answer\n10,0,7,3\n".to_vec();
    long.extend(std::iter::repeat_n(b'9', 10 << 20));
    long.push(b'\n');
    for (name, bytes) in [("binary.csv", binary), ("long.csv", long), ("headless.csv", b"10,0,7,3\n".to_vec())] {
        let path = dir.file(name, &bytes);
        let output = fibtree(&["verify", "--claims", &path]); // checks for a panic
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{name}: {err}");
        let out = String::from_utf8_lossy(&output.stdout);
        assert!(out.contains("malformed"), "{name}: {out}");
    }
}

#[test]
fn output_in_a_missing_or_unwritable_folder() {
    usage_error(&["count", "10", "-o", "/nonexistent-folder/x.txt"], "--output");
    // /proc refuses new files even to root
    usage_error(&["count", "10", "-o", "/proc/fibtree-x.txt"], "--output");
    usage_error(&["count", "10", "-o", "/tmp"], "--output");
}

#[test]
fn usage_errors() {
    usage_error(&[], "command");
    usage_error(&["count"], "<N>");
    usage_error(&["count", "10", "--bogus"], "--bogus");
    usage_error(&["frobnicate"], "frobnicate");
    usage_error(&["count", "10", "--engine", "fast"], "--engine");
    usage_error(&["completions", "tcsh"], "<SHELL>");
}

#[test]
fn a_panic_is_reported_in_one_line_with_exit_101() {
    let output =
        assert_cmd::Command::cargo_bin("fibtree").unwrap().args(["count", "10", "--test-panic"]).output().unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(101), "{err}");
    assert!(output.stdout.is_empty());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: internal error (a bug)") && err.contains("please report it"), "{err}");
}
