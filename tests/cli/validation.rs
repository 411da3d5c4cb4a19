//! Every usage error of every command, in one place: a one-line error naming the argument, exit
//! status 2, nothing on stdout, and no panic. New refusals go here.

use crate::common::*;

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
fn estimates_of_no_shards_or_beyond_the_engines() {
    for bad in ["0", "1000001", "x", "-2"] {
        usage_error(&["estimate", "100", "--shards", bad], "--shards");
    }
    usage_error(&["estimate", "4294967296"], "N");
    // 38 bytes a layer of its own: about 76 GiB at the engines' largest N
    usage_error(&["estimate", "2147483647"], "memory");
    usage_error(&["estimate", "x"], "<N>");
    usage_error(&["estimate", "10", "--g", "-1"], "--g");
    usage_error(&["estimate", "10", "--threads", "0"], "--threads");
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
    // a directory on standard input is refused like a directory path
    usage_error(&["verify", "--claims", &dir.join("")], "--claims");
    let output = std::process::Command::new(binary())
        .args(["verify", "--claims", "-"])
        .stdin(std::fs::File::open(dir.join("")).unwrap())
        .output()
        .unwrap();
    check_usage_error(&["verify", "--claims", "-"], &output, "--claims");

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
    let err = usage_error(&["help", "frobnicate"], "COMMAND");
    assert!(err.contains("frobnicate") && err.contains("count"), "{err}");
    // the forms other commands have, and these do not
    usage_error(&["draw", "3", "--json"], "--json");
    usage_error(&["completions", "bash", "--json"], "--json");
}

#[test]
fn man_into_a_file_or_a_missing_parent_exits_2() {
    let dir = TempDir::new("man-refused");
    let file = dir.file("page.1", b"x");
    let err = usage_error(&["man", "-o", &file], "--output");
    assert!(err.contains("not a folder"), "{err}");
    assert_eq!(std::fs::read(&file).unwrap(), b"x", "left as it was");
    usage_error(&["man", "-o", &dir.join("missing/pages")], "--output");
    assert_eq!(dir.names(), ["page.1"]);
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

#[test]
fn bench_bad_input_exits_2_naming_the_argument() {
    for bad in ["0", "1", "2147483648", "-5", "x", ""] {
        usage_error(&["bench", "--n", bad], "--n");
    }
    for bad in ["0", "1025", "-1", "x"] {
        usage_error(&["bench", "--n", "100", "--threads", bad], "--threads");
    }
    for bad in ["0", "-1", "x", "1001", "18446744073709551615", "18446744073709551616"] {
        usage_error(&["bench", "--n", "100", "--runs", bad], "--runs");
    }
    // u64::MAX runs once asked for a vector of that many times (a capacity overflow panic); the
    // refusal names the range
    let err = usage_error(&["bench", "--n", "100", "--runs", "18446744073709551615"], "--runs");
    assert!(err.contains("from 1 to 1000 runs"), "{err}");
    usage_error(&["bench", "--n", "100", "--max-memory", "lots"], "--max-memory");
    usage_error(&["bench", "--n", "20000", "--max-memory", "1M"], "--n");
    usage_error(&["bench", "--n", "100", "-o", "/nonexistent-folder/b.txt"], "--output");
}

// ---------------------------------------------------------------------------------------------
// Usage errors (exit 2)
// ---------------------------------------------------------------------------------------------

#[test]
fn count_bad_n_exits_2() {
    for n in ["-5", "abc", "1.5", "18446744073709551616", ""] {
        usage_error(&["count", n], "<N>");
    }
}

#[test]
fn count_bad_g_exits_2() {
    for g in ["-1", "x"] {
        usage_error(&["count", "10", "--g", g], "--g");
    }
}

#[test]
fn count_bad_modulus_exits_2() {
    for m in ["0", "1", "9223372036854775808", "2^63", "1e19", "-7"] {
        usage_error(&["count", "10", "--mod", m], "--mod");
    }
}

#[test]
fn count_bad_threads_exits_2() {
    usage_error(&["count", "10", "--threads", "0"], "--threads");
    usage_error(&["count", "10", "--threads", "x"], "--threads");
}

#[test]
fn count_n_beyond_the_engines_exits_2() {
    let err = usage_error(&["count", "4000000000"], "N");
    assert!(err.contains("at most") || err.contains("memory"), "{err:?}");
    let err = usage_error(&["count", "2147483648"], "N");
    assert!(err.contains("at most 2147483647"), "{err:?}");
}

#[test]
fn count_n_too_large_for_memory_exits_2() {
    // N = 2^31 - 1 is accepted by the engines, but the plan's floor alone (some 44 bytes a layer,
    // about 88 GiB) is refused before anything is allocated on any machine with less than that.
    match fibtree::Options::default().limit() {
        bytes if bytes < 80 << 30 => {
            let err = usage_error(&["count", "2147483647"], "N");
            assert!(err.contains("memory") || err.contains("available") || err.contains("at most"), "{err:?}");
        }
        other => println!("skipped: {other} bytes available is too much for this check"),
    }
}

#[test]
fn grundy_and_brute_bad_k_exit_2() {
    usage_error(&["grundy", "-1"], "<K>");
    usage_error(&["grundy", "2147483648"], "K");
    let err = usage_error(&["brute", "31"], "K");
    assert!(err.contains("30") && err.contains("31"), "{err:?}");
    usage_error(&["brute", "-1"], "<K>");
}

// ---------------------------------------------------------------------------------------------
// No panics
// ---------------------------------------------------------------------------------------------

#[test]
fn no_invocation_panics() {
    let invocations: &[&[&str]] = &[
        &[],
        &["--help"],
        &["--version"],
        &["count", "--help"],
        &["frob"],
        &["count"],
        &["count", "0"],
        &["count", "1", "--json"],
        &["count", "2", "--g", "1"],
        &["count", "10", "--bogus"],
        &["count", "10", "--g"],
        &["count", "10", "11"],
        &["count", "10", "--json", "-q"],
        &["count", "10", "--mod", "10^"],
        &["count", "10", "--mod", "^3"],
        &["count", "10", "--mod", ""],
        &["count", "10", "--mod", "9223372036854775807"],
        &["count", "10", "--threads", "18446744073709551616"],
        &["count", "10", "--g", "18446744073709551615", "--json"],
        &["count", "10", "--test-perturb", "0"],
        &["count", "10", "--test-perturb", "1000000000000000000", "-q"],
        &["count", "18446744073709551615"],
        &["grundy"],
        &["grundy", "18446744073709551615"],
        &["grundy", "2147483647"],
        &["brute"],
        &["brute", "0"],
        &["brute", "1"],
        &["brute", "2"],
        &["brute", "4294967296"],
        &["brute", "18446744073709551615"],
        &["brute", "5", "--g", "18446744073709551615"],
    ];
    let mut failures = Vec::new();
    for args in invocations {
        // `fibtree` itself asserts that stderr has no "panicked"; collect the statuses too.
        let output = fibtree(args);
        let err = stderr(&output);
        match output.status.code() {
            Some(0..=2) => {}
            code => failures.push(format!("fibtree {args:?}: status {code:?}, stderr {err:?}")),
        }
        if err.contains("panicked") || err.contains("RUST_BACKTRACE") {
            failures.push(format!("fibtree {args:?}: {err:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn dist_bad_input_exits_2() {
    for n in ["-1", "x", "1.5", "", "18446744073709551616"] {
        usage_error(&["dist", n], "<N>");
    }
    for m in ["0", "1", "2^63", "9223372036854775808", "1e19", "x", "-7"] {
        usage_error(&["dist", "10", "--mod", m], "--mod");
    }
    usage_error(&["dist"], "<N>");
    usage_error(&["dist", "10", "--threads", "0"], "--threads");
    // beyond the engines (or beyond any machine's memory): refused at once
    for n in ["4000000000", "18446744073709551615"] {
        usage_error(&["dist", n], "N");
    }
}

#[test]
fn table_bad_input_exits_2() {
    let err = usage_error(&["table", "5", "3"], "FROM");
    assert!(err.contains('5') && err.contains('3'), "{err}");
    usage_error(&["table", "x", "3"], "FROM");
    usage_error(&["table", "-1", "3"], "FROM");
    usage_error(&["table", "1.5", "3"], "FROM");
    usage_error(&["table", "3", "-1"], "TO");
    usage_error(&["table", "3", "y"], "TO");
    usage_error(&["table", "3", ""], "TO");
    usage_error(&["table", "3", "18446744073709551616"], "TO");
    usage_error(&["table", "3"], "TO");
    usage_error(&["table"], "FROM");
    usage_error(&["table", "1", "3", "--threads", "0"], "--threads");
}

#[test]
fn table_to_beyond_the_engines_exits_2() {
    let err = usage_error(&["table", "0", "18446744073709551615"], "2147483647");
    assert!(err.contains("TO") || err.contains('N'), "{err}");
    let err = usage_error(&["table", "1", "4000000000"], "2147483647");
    assert!(err.contains("TO") || err.contains('N'), "{err}");
}

#[test]
fn table_refused_for_memory_prints_nothing() {
    match fibtree::Options::default().limit() {
        bytes if bytes < 80 << 30 => {
            // a single row, f(2^31 - 1), whose plan alone is far beyond this machine's memory
            usage_error(&["table", "2147483647", "2147483647"], "memory");
            usage_error(&["table", "2147483647", "2147483647", "--json"], "memory");
        }
        other => println!("skipped: {other} bytes available is too much for this check"),
    }
}

#[test]
fn draw_refuses_bad_trees() {
    let err = usage_error(&["draw", "15"], "K");
    assert!(err.contains("at most 14") && err.contains("15"), "{err}");
    let err = usage_error(&["draw", "3..20"], "B");
    assert!(err.contains("at most 14") && err.contains("20"), "{err}");
    usage_error(&["draw", "99999999999999999999999"], "at most 14");
    let err = usage_error(&["draw", "5..2"], "A..B");
    assert!(err.contains("5..2"), "{err}");
    for bad in ["x", "1..", "..3", "1...3", "1..2..3", "+1", ""] {
        usage_error(&["draw", bad], "K|A..B");
    }
    // clap takes "-1" for an option; still one line, exit 2.
    usage_error(&["draw", "-1"], "-1");
    usage_error(&["draw", "3", "--g", "-1"], "--g");
}

#[test]
fn dist_svg_into_a_missing_folder_is_refused() {
    let dir = TempDir::new("dist-missing");
    let file = dir.join("missing/plot.svg");
    let output = fibtree(&["dist", "20", "--svg", &file]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("--svg"), "{}", stderr(&output));
    assert!(dir.names().is_empty());
}

#[test]
fn mod_only_refused_combinations_exit_2() {
    let dir = TempDir::new("modonly-refused");
    let checkpoint = dir.join("c.ckpt");
    let refused: &[(&[&str], &str)] = &[
        (&["--double-check"], "--double-check"),
        (&["--engine", "reference"], "--engine"),
        (&["--engine", "blocked"], "--engine"),
        (&["--checkpoint", &checkpoint], "--checkpoint"),
        (&["--checkpoint", &checkpoint, "--fresh"], "--checkpoint"),
        (&["--checkpoint-every", "5"], "--checkpoint-every"),
        (&["--fresh"], "--fresh"),
        (&["--keep-checkpoint"], "--keep-checkpoint"),
        (&["--test-perturb", "998244353"], "--test-perturb"),
    ];
    for (extra, name) in refused {
        let mut args = vec!["count", "10", "--mod-only"];
        args.extend_from_slice(extra);
        let err = usage_error(&args, name);
        assert!(err.contains("--mod-only"), "{err:?}");
    }
    assert!(dir.names().is_empty(), "nothing written: {:?}", dir.names());
    usage_error(&["count", "10", "--mod-only", "--json", "-q"], "--json");
    usage_error(&["count", "10", "--mod-only", "--mod", "1"], "--mod");
}

#[test]
fn mod_only_memory_guard() {
    let err = usage_error(&["count", "10000", "--mod-only", "--max-memory", "1M"], "N");
    assert!(err.contains("memory"), "{err:?}");
    let json = success_json(&["count", "10000", "--mod-only", "--json"]);
    let estimate = json["memory_estimate_bytes"].as_u64().unwrap();
    let below = (estimate - 1).to_string();
    let err = usage_error(&["count", "10000", "--mod-only", "--max-memory", &below], "N");
    assert!(err.contains("memory"), "{err:?}");
}

#[test]
fn moves_bad_input_exits_2() {
    usage_error(&["moves", "10", "--nth", "17"], "--nth");
    usage_error(&["moves", "10", "--nth", "-1"], "--nth");
    usage_error(&["moves", "10", "--nth", "1e3"], "--nth");
    usage_error(&["moves", "10"], "--list");
    usage_error(&["moves", "10", "--list", "--nth", "1"], "--nth");
    // --limit belongs to --list: refused, not ignored, with the other two
    usage_error(&["moves", "10", "--nth", "1", "--limit", "3"], "--limit");
    usage_error(&["moves", "10", "--random", "--limit", "3"], "--limit");
    usage_error(&["moves", "7", "--random"], "--random"); // f(7) = 0
    usage_error(&["moves", "40", "--list"], "--list"); // f(40) has more than a million moves
    usage_error(&["rank", "10", ""], "PATH");
    usage_error(&["rank", "10", "LXR"], "PATH");
    usage_error(&["rank", "3", "LLL"], "PATH");
    usage_error(&["rank", "2", "R"], "PATH");
    usage_error(&["moves", "-3", "--list"], "<N>");
}

#[test]
fn output_into_a_missing_folder_exits_2() {
    let dir = TempDir::new("missing");
    let file = dir.join("no-such-folder/out.txt");
    let cases: &[&[&str]] = &[
        &["count", "10"],
        &["count", "10", "-q"],
        &["verify", "10", "--answer", "3", "--mod", "7"],
        &["dist", "10"],
        &["table", "1", "10"],
        &["grundy", "10"],
        &["brute", "7"],
    ];
    for args in cases {
        for flag in ["-o", "--output"] {
            let with: Vec<&str> = args.iter().copied().chain([flag, file.as_str()]).collect();
            // exit 2, nothing on stdout, one "error:" line naming --output
            let err = usage_error(&with, "--output");
            assert!(err.contains("no-such-folder"), "fibtree {with:?}: names the folder: {err:?}");
            assert!(dir.names().is_empty(), "fibtree {with:?} created {:?}", dir.names());
        }
    }
    // the claims form too
    let claims = TempDir::new("missing-claims");
    let path = claims.join("c.csv");
    std::fs::write(&path, "n,g,modulus,answer\n10,0,7,3\n").unwrap();
    let output = fibtree(&["verify", "--claims", &path, "-o", &file]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("--output"));
    assert!(dir.names().is_empty());
}

#[test]
fn checkpoint_paths_are_checked_before_any_work() {
    let dir = TempDir::new("checkpoint-path");
    // a missing folder, a folder, a FIFO (which would block the run), a file /proc will not make
    let fifo = dir.join("fifo");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let missing = dir.join("no-such-folder/x.ckpt");
    for (path, says) in [
        (missing.as_str(), "does not exist"),
        (dir.path().to_str().unwrap(), "not a regular file"),
        (fifo.as_str(), "not a regular file"),
        ("/proc/fibtree.ckpt", "cannot"),
    ] {
        // a run short enough to end before any save: the check is still made
        let err = usage_error(&["count", "100", "--checkpoint", path], "--checkpoint");
        assert!(err.contains(says), "--checkpoint {path}: {err}");
    }
    assert_eq!(dir.names(), ["fifo"]);
}

#[test]
fn messages_escape_control_characters_and_cut_long_numbers() {
    let err = usage_error(&["rank", "10", "LLR\n\u{1b}[31m"], "PATH");
    assert!(!err.contains('\u{1b}'), "no raw escape: {err:?}");
    assert!(err.contains("\\n") || err.contains("\\u{1b}"), "escaped: {err:?}");
    let digits = "7".repeat(3001);
    let err = usage_error(&["moves", "10000", "--nth", &digits], "--nth");
    assert!(err.len() < 400, "one short line: {} characters: {err}", err.len());
    assert!(err.contains("(3001 digits)") && err.contains("(2087 digits)"), "{err}");
}

#[test]
fn output_onto_a_folder_exits_2_and_leaves_nothing() {
    let dir = TempDir::new("onto-folder");
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    for target in [dir.join("sub"), dir.join("sub/")] {
        let output = fibtree(&["grundy", "10", "-o", &target]);
        let err = stderr(&output);
        assert_eq!(dir.names(), ["sub"], "-o {target}: left behind");
        assert_eq!(output.status.code(), Some(2), "-o {target}: {err}");
        assert!(err.contains("--output"), "-o {target}: {err}");
    }
}

#[test]
fn verify_bad_input_exits_2() {
    let cases: &[(&[&str], &str)] = &[
        (&["verify", "10", "--answer", "17"], "--mod"),
        (&["verify", "10", "--answer", "17", "--mod", "1"], "--mod"),
        (&["verify", "10", "--answer", "0", "--mod", "0"], "--mod"),
        (&["verify", "10", "--answer", "17", "--mod", "2^128"], "--mod"),
        (&["verify", "10", "--answer", "17", "--mod", "340282366920938463463374607431768211456"], "--mod"),
        (&["verify", "10", "--answer", "17", "--mod", "1e39"], "--mod"),
        (&["verify", "10", "--answer", "17", "--mod", "x"], "--mod"),
        (&["verify", "10", "--answer", "17", "--mod", "-7"], "--mod"),
        (&["verify", "10", "--answer", "17", "--mod", ""], "--mod"),
        (&["verify", "10", "--answer", "17", "--last-digits", "0"], "--last-digits"),
        (&["verify", "10", "--answer", "17", "--last-digits", "39"], "--last-digits"),
        (&["verify", "10", "--answer", "17", "--last-digits", "x"], "--last-digits"),
        (&["verify", "10", "--answer", "-1", "--mod", "7"], "--answer"),
        (&["verify", "10", "--answer", "x", "--mod", "7"], "--answer"),
        (&["verify", "10", "--answer", "", "--mod", "7"], "--answer"),
        (&["verify", "10", "--answer", "1e3", "--mod", "10^4"], "--answer"),
        (&["verify", "10", "--answer", "7", "--mod", "7"], "--answer"),
        (&["verify", "10", "--answer", "8", "--mod", "7"], "--answer"),
        (&["verify", "10", "--answer", "100000", "--last-digits", "5"], "--answer"),
        (&["verify", "10", "--answer", "340282366920938463463374607431768211456", "--mod", "2^127"], "--answer"),
        (&["verify", "-1", "--answer", "3", "--mod", "7"], "N"),
        (&["verify", "x", "--answer", "3", "--mod", "7"], "N"),
        (&["verify", "--answer", "3", "--mod", "7"], "N"),
        (&["verify", "10", "--mod", "7"], "--answer"),
        (&["verify", "10", "--answer", "3", "--mod", "7", "--g", "-1"], "--g"),
        (&["verify", "10", "--answer", "3", "--mod", "7", "--last-digits", "3"], "--last-digits"),
        (&["verify", "10", "--answer", "3", "--mod", "7", "--claims", "-"], "--claims"),
        (&["verify"], "required"),
    ];
    for (args, names) in cases {
        usage_error(args, names);
    }
    // the residue check names the modulus and the answer
    let err = usage_error(&["verify", "10", "--answer", "7", "--mod", "7"], "--answer");
    assert!(err.contains('7'), "{err}");
    // n beyond the engines
    let err = usage_error(&["verify", "4000000000", "--answer", "3", "--mod", "7"], "N");
    assert!(err.contains("at most 2147483647"), "{err}");
}

#[test]
fn verify_empty_claims_file_exits_2() {
    let dir = TempDir::new("empty");
    for (name, text) in [("empty.csv", ""), ("blank.csv", "\n  \n\t\n")] {
        let path = dir.file(name, text);
        usage_error(&["verify", "--claims", &path], "--claims");
        usage_error(&["verify", "--claims", &path, "--json"], "--claims");
    }
    usage_error_with_stdin(&["verify", "--claims", "-"], b"", "--claims");
}

#[test]
fn verify_missing_claims_file_exits_2() {
    let dir = TempDir::new("missing");
    let path = dir.path().join("no-such-file.csv");
    let path = path.to_str().unwrap();
    let err = usage_error(&["verify", "--claims", path], "--claims");
    assert!(err.contains("no-such-file.csv"), "the message names the file: {err}");
    // a folder is not a claims file either
    usage_error(&["verify", "--claims", dir.path().to_str().unwrap()], "--claims");
}

#[test]
fn verify_claims_refuse_single_claim_options() {
    let dir = TempDir::new("conflict");
    let path = dir.file("claims.csv", "n,g,modulus,answer\n10,0,7,3\n");
    usage_error(&["verify", "--claims", &path, "--g", "3"], "--g");
    usage_error(&["verify", "--claims", &path, "--mod", "5"], "--mod");
    usage_error(&["verify", "--claims", &path, "--last-digits", "3"], "--last-digits");
}

#[test]
fn checkpoint_damaged_truncated_or_foreign_is_refused() {
    let dir = TempDir::new("checkpoint");
    let ckpt = dir.join("run.ckpt");
    // a short run that saves at every segment and keeps its last checkpoint
    let n = "3000";
    let want = success(&["count", n, "-q"]);
    let kept = ["count", n, "-q", "--checkpoint", &ckpt, "--checkpoint-every", "0", "--keep-checkpoint"];
    assert_eq!(success(&kept), want);
    let bytes = std::fs::read(&ckpt).unwrap();
    // exit 2, nothing on stdout, one "error:" line naming --checkpoint and saying `why`
    let refused = |path: &str, args: &[&str], why: &str| {
        let mut all = vec!["count", n, "-q", "--checkpoint", path];
        all.extend_from_slice(args);
        let err = usage_error(&all, "--checkpoint");
        assert!(err.contains(why), "{err}");
    };
    let damaged = dir.join("damaged.ckpt");
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 3] ^= 1;
    std::fs::write(&damaged, &flipped).unwrap();
    refused(&damaged, &[], "damaged");
    std::fs::write(&damaged, &bytes[..bytes.len() / 2]).unwrap();
    refused(&damaged, &[], "damaged");
    std::fs::write(&damaged, b"not a checkpoint at all").unwrap();
    refused(&damaged, &[], "checkpoint");
    refused(&ckpt, &["--g", "1"], "made for");
    refused(&ckpt, &["--mod", "7"], "made for");
    refused(&ckpt, &["--engine", "reference"], "blocked engine");
    // --fresh starts over; the answer is right either way, and --keep-checkpoint keeps the file
    let fresh = ["count", n, "-q", "--checkpoint", &damaged, "--checkpoint-every", "0", "--fresh", "--keep-checkpoint"];
    let (out, err) = success_with_stderr(&fresh);
    assert_eq!(out, want);
    assert!(err.contains("discarded the checkpoint"), "{err}");
    assert!(std::path::Path::new(&damaged).exists(), "--keep-checkpoint keeps the last one saved");
}

/// The memory guard comes first and shows the estimate of the whole run: the same figure whatever
/// the limit it fails, and the one `--verbose` prints for a run that fits.
#[test]
fn memory_refusals_show_the_whole_estimate() {
    let (_, verbose) = success_with_stderr(&["count", "1000", "--verbose", "-q"]);
    let whole = verbose.split("memory estimate ").nth(1).and_then(|s| s.split(" (").next()).unwrap().to_string();
    for limit in ["1", "44K"] {
        let err = usage_error(&["count", "1000", "--max-memory", limit], "N");
        assert!(err.contains(&format!("about {whole} of memory")), "{err:?}, want {whole}");
    }
    // refused before anything of size n, with an estimate far above the machine's memory
    for args in [&["rank", "2147483647", "L"][..], &["rank", "100000", "L"], &["count", "2147483647"]] {
        let err = usage_error(args, "N");
        assert!(err.contains("TiB") || err.contains("GiB"), "{err:?}");
    }
    // table names its own argument
    for args in
        [&["table", "1", "1000000"][..], &["table", "1", "2147483647"], &["table", "1", "1000", "--max-memory", "1"]]
    {
        let err = usage_error(args, "TO:");
        assert!(!err.contains("N:"), "{err:?}");
    }
}

/// Ctrl-C stops `rank` while it counts (exit 130, no output).
#[test]
fn rank_stops_on_sigint() {
    // about 9 s of counting on the 2-core machine
    let args = ["rank", "13000", "RLRLRLRL"];
    let mut child = spawn(&args);
    std::thread::sleep(std::time::Duration::from_millis(1000));
    assert!(child.try_wait().unwrap().is_none(), "rank 13000 ended within 1 s");
    let sent = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(sent.success());
    let status = wait_for_stop(&mut child, "rank after SIGINT");
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_no_panic(&args, err.as_bytes());
    assert_eq!(status.code(), Some(130), "{status:?}, {err}");
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
    assert_eq!(out, "", "nothing written");
}
