//! Every usage error of every command, each tested once: exit status 2, nothing on stdout, one line
//! on stderr that starts `error:` and names the argument at fault, and no panic, as
//! [`usage_error`] checks them. The refusals are tables of arguments and a fragment of that line; a
//! new refusal is a new row. Three kinds are tested with what they need instead: a checkpoint held
//! by a running count in `checkpoint`, damaged or mismatched sets of shard files in `shards`, and
//! `FIBTREE_ISA` in `isa`. The refusals of outputs and checkpoints are in `validation_files`.

use crate::common::*;

/// A usage error: the arguments, and a fragment of the error line that names the argument at fault.
pub(super) type Refusal<'a> = (&'a [&'a str], &'a str);

/// Checks every row with [`usage_error`].
pub(super) fn refused(rows: &[Refusal]) {
    for (args, names) in rows {
        usage_error(args, names);
    }
}

/// Checks each place, a row whose arguments and fragment hold a `_`, with each of `values` for the
/// `_` in both.
fn refused_in_place(places: &[Refusal], values: &[&str]) {
    for (place, names) in places {
        for value in values {
            let args: Vec<&str> = place.iter().map(|&a| if a == "_" { *value } else { a }).collect();
            usage_error(&args, &names.replace('_', value));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Commands and arguments: unknown, missing, extra or in conflict
// ---------------------------------------------------------------------------------------------

#[test]
fn commands_and_arguments_unknown_missing_extra_or_in_conflict() {
    refused(&[
        (&["frobnicate"], "unrecognized subcommand 'frobnicate'"),
        (&["count"], "not provided: <N>"),
        (&["dist"], "not provided: <N>"),
        (&["table"], "not provided: <FROM> <TO>"),
        (&["table", "3"], "not provided: <TO>"),
        (&["grundy"], "not provided: <K>"),
        (&["brute"], "not provided: <K>"),
        (&["verify"], "not provided: --answer <A> <N>"),
        (&["verify", "--answer", "3", "--mod", "7"], "not provided: <N>"),
        (&["verify", "10", "--mod", "7"], "not provided: --answer <A>"),
        // a claim of the whole count takes no modulus, but a residue must be below its modulus
        (&["verify", "10", "--answer", "17", "--mod", "7"], "--answer: expected a residue below the modulus 7, got 17"),
        (&["moves", "10"], "not provided: <--list|--nth <I>|--random>"),
        (&["count", "10", "--g"], "a value is required for '--g <G>'"),
        (&["count", "10", "--bogus"], "unexpected argument '--bogus'"),
        (&["count", "10", "11"], "unexpected argument '11'"),
        // the forms other commands have, and these do not
        (&["draw", "3", "--json"], "unexpected argument '--json'"),
        (&["completions", "bash", "--json"], "unexpected argument '--json'"),
        (&["completions", "tcsh"], "invalid value 'tcsh' for '<SHELL>'"),
        (&["count", "10", "--engine", "fast"], "invalid value 'fast' for '--engine <ENGINE>'"),
        (&["count", "10", "--json", "-q"], "'--json' cannot be used with '--quiet'"),
        (
            &["verify", "10", "--answer", "3", "--mod", "7", "--last-digits", "3"],
            "'--mod <M>' cannot be used with '--last-digits <D>'",
        ),
        (
            &["verify", "10", "--answer", "3", "--mod", "7", "--claims", "-"],
            "'[N]' cannot be used with '--claims <FILE>'",
        ),
        (&["moves", "10", "--list", "--nth", "1"], "'--list' cannot be used with '--nth <I>'"),
        // --limit belongs to --list: refused, not ignored, with the other two
        (&["moves", "10", "--nth", "1", "--limit", "3"], "'--nth <I>' cannot be used with '--limit <K>'"),
        (&["moves", "10", "--random", "--limit", "3"], "'--random' cannot be used with '--limit <K>'"),
    ]);
    // the commands there are, and the one asked for
    let err = usage_error(&["help", "frobnicate"], "COMMAND: expected one of count,");
    assert!(err.ends_with(", got 'frobnicate'\n"), "{err}");
}

#[test]
fn mod_only_refuses_what_it_does_not_do() {
    let dir = TempDir::new("modonly-refused");
    let checkpoint = dir.join("c.ckpt");
    refused(&[
        (&["count", "10", "--mod-only", "--double-check"], "'--mod-only' cannot be used with '--double-check'"),
        (
            &["count", "10", "--mod-only", "--engine", "reference"],
            "'--mod-only' cannot be used with '--engine <ENGINE>'",
        ),
        (&["count", "10", "--mod-only", "--engine", "blocked"], "'--mod-only' cannot be used with '--engine <ENGINE>'"),
        (
            &["count", "10", "--mod-only", "--checkpoint", &checkpoint],
            "'--mod-only' cannot be used with '--checkpoint <FILE>'",
        ),
        (
            &["count", "10", "--mod-only", "--checkpoint", &checkpoint, "--fresh"],
            "'--mod-only' cannot be used with: --checkpoint <FILE> --fresh",
        ),
        (
            &["count", "10", "--mod-only", "--checkpoint-every", "5"],
            "'--mod-only' cannot be used with '--checkpoint-every <SECONDS>'",
        ),
        (&["count", "10", "--mod-only", "--fresh"], "'--mod-only' cannot be used with '--fresh'"),
        (&["count", "10", "--mod-only", "--keep-checkpoint"], "'--mod-only' cannot be used with '--keep-checkpoint'"),
        (
            &["count", "10", "--mod-only", "--test-perturb", "998244353"],
            "'--mod-only' cannot be used with '--test-perturb <M>'",
        ),
        (&["count", "10", "--mod-only", "--json", "-q"], "'--json' cannot be used with '--quiet'"),
    ]);
    assert!(dir.names().is_empty(), "nothing written: {:?}", dir.names());
}

// ---------------------------------------------------------------------------------------------
// Numbers, moduli and sizes
// ---------------------------------------------------------------------------------------------

/// The spellings that are not a whole number below 2^64: negative, signed, spaced, grouped,
/// decimal, in scientific form, not a number, empty, and 2^64.
const NOT_WHOLE: [&str; 10] = ["-1", "+1", " 1", "1 ", "1_000", "1.5", "1e", "x", "", "18446744073709551616"];

#[test]
fn whole_numbers_negative_signed_spaced_non_numeric_or_too_large() {
    refused_in_place(
        &[
            (&["count", "_"], "invalid value '_' for '<N>'"),
            (&["count", "10", "--g", "_"], "invalid value '_' for '--g <G>'"),
            (&["dist", "_"], "invalid value '_' for '<N>'"),
            (&["table", "_", "3"], "invalid value '_' for '<FROM>'"),
            (&["table", "1", "_"], "invalid value '_' for '<TO>'"),
            (&["moves", "_", "--list"], "invalid value '_' for '<N>'"),
            (&["grundy", "_"], "invalid value '_' for '<K>'"),
            (&["brute", "_"], "invalid value '_' for '<K>'"),
            (&["draw", "3", "--g", "_"], "invalid value '_' for '--g <G>'"),
            (&["estimate", "_"], "invalid value '_' for '<N>'"),
            (&["estimate", "10", "--g", "_"], "invalid value '_' for '--g <G>'"),
            (&["estimate", "100", "--shards", "_"], "invalid value '_' for '--shards <S>'"),
            (&["verify", "_", "--answer", "3", "--mod", "7"], "invalid value '_' for '[N]'"),
            (&["verify", "10", "--answer", "3", "--mod", "7", "--g", "_"], "invalid value '_' for '--g <G>'"),
            (&["verify", "10", "--answer", "3", "--last-digits", "_"], "invalid value '_' for '--last-digits <D>'"),
            (&["bench", "--n", "_"], "invalid value '_' for '--n <N>'"),
            (&["bench", "--n", "100", "--threads", "_"], "invalid value '_' for '--threads <T>'"),
            (&["bench", "--n", "100", "--runs", "_"], "invalid value '_' for '--runs <R>'"),
        ],
        &NOT_WHOLE,
    );
    // count's --threads takes "-1" for its value, out of range, not for an unknown option
    refused_in_place(&[(&["count", "10", "--threads", "_"], "invalid value '_' for '--threads <T>'")], &NOT_WHOLE);
    // an answer may be of any size (a whole count): all but 2^64
    refused_in_place(
        &[(&["verify", "10", "--answer", "_", "--mod", "7"], "invalid value '_' for '--answer <A>'")],
        &NOT_WHOLE[..9],
    );
}

#[test]
fn numbers_and_sizes_out_of_their_range() {
    let threads = "'_' for '--threads <T>': expected a thread count from 1 to 1024";
    refused_in_place(
        &[
            (&["count", "10", "--threads", "_"], threads),
            (&["dist", "10", "--threads", "_"], threads),
            (&["table", "1", "3", "--threads", "_"], threads),
            (&["estimate", "10", "--threads", "_"], threads),
            (&["bench", "--n", "100", "--threads", "_"], threads),
        ],
        &["0", "1025", "100000"],
    );
    refused_in_place(
        &[(&["bench", "--n", "_"], "'_' for '--n <N>': expected N from 2 to 2147483647")],
        &["0", "1", "2147483648"],
    );
    // u64::MAX runs once asked for a vector of that many times (a capacity overflow panic); the
    // refusal names the range
    let runs = "'_' for '--runs <R>': expected from 1 to 1000 runs".to_string();
    refused_in_place(&[(&["bench", "--n", "100", "--runs", "_"], &runs)], &["0", "1001", "18446744073709551615"]);
    refused_in_place(
        &[(
            &["estimate", "100", "--shards", "_"],
            "'_' for '--shards <S>': expected a number of shards from 1 to 1000000",
        )],
        &["0", "1000001"],
    );
    refused_in_place(
        &[(
            &["verify", "10", "--answer", "17", "--last-digits", "_"],
            "'_' for '--last-digits <D>': expected from 1 to 38 digits",
        )],
        &["0", "39"],
    );
    refused_in_place(
        &[(&["shard", "100", "--shard", "_"], "'_' for '--shard <I/S>': expected I/S with 1 <= I <= S <= 1000000")],
        &["0/4", "5/4", "4", "a/b", "1/0", "+1/4", "1 / 4", "1/1000001", "1/100000000000"],
    );
    let size = "'_' for '--max-memory <SIZE>': expected a size such as 4G";
    refused_in_place(
        &[(&["count", "10", "--max-memory", "_"], size), (&["bench", "--n", "100", "--max-memory", "_"], size)],
        &["lots", "-1", "1.G"],
    );
    // a negative number is a value out of range, not an unknown argument
    refused(&[
        (&["count", "10", "--threads", "-1"], "'-1' for '--threads <T>'"),
        (&["dist", "10", "--threads", "-1"], "'-1' for '--threads <T>'"),
        (&["count", "10", "--checkpoint", "x.ckpt", "--checkpoint-every", "-1"], "'-1' for '--checkpoint-every"),
        (&["self-test", "--seed", "0xzz"], "'0xzz' for '--seed <S>'"),
    ]);
    // the cut of a count from both ends: a layer from 2 to N, for the blocked engine, and the
    // checkpoint's own when resuming (see checkpoint.rs)
    let cut = "--cut: expected a layer from 2 to 10000 (the top layer counts bottom-up alone), got _";
    refused_in_place(&[(&["count", "10000", "--cut", "_"], cut)], &["0", "1", "10001"]);
    refused(&[
        (&["count", "100", "--cut", "50", "--engine", "crt"], "--cut: a cut is for the blocked engine"),
        (&["count", "100", "--cut", "50", "--engine", "reference"], "--cut: a cut is for the blocked engine"),
        (&["count", "100", "--cut", "50", "--mod-only"], "--cut"),
        (&["count", "1", "--cut", "2"], "--cut: T(1) has no layer to cut"),
        (&["count", "2", "--cut", "3"], "--cut: T(2) has no layer to cut"),
    ]);
    refused_in_place(
        &[(
            &["bench", "--n", "100", "--chunk-lanes", "_"],
            "'_' for '--chunk-lanes <C>': expected 1, 2, 4, 8, 16, 32 or 64",
        )],
        &["0", "3", "128"],
    );
}

#[test]
fn moduli_out_of_range() {
    // the engines' moduli: 2 <= M < 2^63
    refused_in_place(
        &[
            (&["count", "10", "--mod", "_"], "invalid value '_' for '--mod <M>'"),
            (&["count", "10", "--mod-only", "--mod", "_"], "invalid value '_' for '--mod <M>'"),
            (&["dist", "10", "--mod", "_"], "invalid value '_' for '--mod <M>'"),
        ],
        &[
            "0",
            "1",
            "2^63",
            "9223372036854775808",
            "2^200",
            "1e19",
            "-7",
            "x",
            "",
            "10^",
            "^3",
            "2^128-1",
            "2^63+0",
            "1e2-101",
            "10^9+",
        ],
    );
    usage_error(&["count", "10", "--mod", "2^128-1"], "expected a modulus with 2 <= M < 2^63");
    // verify's: 2 <= M < 2^128
    refused_in_place(
        &[(&["verify", "10", "--answer", "0", "--mod", "_"], "invalid value '_' for '--mod <M>'")],
        &[
            "0",
            "1",
            "2^128",
            "340282366920938463463374607431768211456",
            "1e39",
            "x",
            "-7",
            "",
            "2^128+0",
            "2^129-1",
            "10^2-99",
        ],
    );
    // and an answer is a residue below its modulus, and below 2^128
    refused_in_place(
        &[(
            &["verify", "10", "--answer", "_", "--mod", "7"],
            "--answer: expected a residue below the modulus 7, got _",
        )],
        &["7", "8"],
    );
    refused(&[
        (
            &["verify", "10", "--answer", "100000", "--last-digits", "5"],
            "--answer: expected a residue below the modulus 100000, got 100000",
        ),
        (
            &["verify", "10", "--answer", "340282366920938463463374607431768211456", "--mod", "2^127"],
            "--answer: expected a residue below the modulus 170141183460469231731687303715884105728, got 3402823669",
        ),
    ]);
}

#[test]
fn n_beyond_the_engines() {
    refused_in_place(
        &[
            (&["count", "_"], "N: at most 2147483647, got _"),
            (&["dist", "_"], "N: at most 2147483647, got _"),
            (&["table", "0", "_"], "TO: at most 2147483647, got _"),
            (&["verify", "_", "--answer", "3", "--mod", "7"], "N: at most 2147483647, got _"),
            (&["estimate", "_"], "N: at most 2147483647, got _"),
        ],
        &["2147483648", "4000000000", "4294967296", "18446744073709551615"],
    );
    refused_in_place(
        &[(&["brute", "_"], "K: at most 30 for the explicit-tree oracle, got _")],
        &["31", "4294967296", "18446744073709551615"],
    );
}

/// Runs `fibtree args` and checks that it is refused for memory under the machine's own limit, and
/// returns the line. The refusal names `--max-memory` where that limit is the memory available (which
/// `--max-memory` lifts), else (a cgroup's limit, `ulimit -v`, `ulimit -d`, which it cannot) the
/// argument that makes the run this large. Which limit it meets, the machine decides: the line says.
fn refused_by_the_machine(args: &[&str]) -> String {
    let err = usage_error(args, ": this run needs about");
    let named = err.strip_prefix("error: ").and_then(|e| e.split(": ").next()).unwrap_or_default();
    if err.contains("(the memory available)") {
        assert!(named == "--max-memory" && err.contains("(estimate, for its "), "{err}");
    } else {
        assert!(named != "--max-memory" && err.contains("(estimate), more than"), "{err}");
    }
    err
}

/// The memory guard comes first, names the argument that sizes the run, and shows the estimate of
/// the whole run: the figure `--verbose` prints for a run that fits, whatever the limit it fails.
#[test]
fn the_memory_guard_refuses_before_any_work_with_the_whole_estimate() {
    let (_, verbose) = success_with_stderr(&["count", "1000", "--verbose", "-q"]);
    let whole = verbose.split("memory estimate ").nth(1).and_then(|s| s.split(" (").next()).unwrap();
    let needs_whole = format!("--max-memory: this run needs about {whole} of memory (estimate, for its N)");
    // --mod-only's own estimate, refused with a limit one byte below it
    let json = success_json(&["count", "10000", "--mod-only", "--json"]);
    let below = (json["memory_estimate_bytes"].as_u64().unwrap() - 1).to_string();
    refused(&[
        (&["count", "1000", "--max-memory", "1"], &needs_whole),
        (&["count", "1000", "--max-memory", "44K"], &needs_whole),
        (&["count", "10000", "--max-memory", "1M"], "--max-memory: this run needs about"),
        (&["count", "10000", "--mod-only", "--max-memory", "1M"], "--max-memory: this run needs about"),
        (&["count", "10000", "--mod-only", "--max-memory", &below], "--max-memory: this run needs about"),
        // table and bench name their own argument
        (&["table", "1", "1000", "--max-memory", "1"], "--max-memory: this run needs about"),
        (&["bench", "--n", "20000", "--max-memory", "1M"], "--max-memory: this run needs about"),
    ]);
    // hundreds of GiB or TiB, beyond any machine's memory: refused before anything of size N
    let err =
        usage_error(&["moves", "2000000000", "--nth", "0"], "N: too large for any machine: this run would need about");
    assert!(err.contains("TiB of memory"), "{err}");
    for args in
        [&["dist", "1000000"][..], &["rank", "2147483647", "L"], &["rank", "100000", "L"], &["table", "1", "1000000"]]
    {
        let err = refused_by_the_machine(args);
        assert!(err.contains("GiB of memory") || err.contains("TiB of memory"), "{err}");
    }
    // N = 2^31 - 1 is accepted by the engines, but its plan alone (76 GiB for estimate's arrays,
    // some 90 GiB for a count, twice that for a table from 1) is refused on any machine with less
    match fibtree::Options::default().limit().bytes() {
        bytes if bytes < 64 << 30 => {
            refused_by_the_machine(&["estimate", "2147483647"]);
            refused(&[
                (&["count", "2147483647"], "N: too large for any machine: this run would need about"),
                (&["table", "2147483647", "2147483647"], "TO: too large for any machine: this run would need about"),
                (&["table", "2147483647", "2147483647", "--json"], "TO: too large for any machine"),
                (&["table", "1", "2147483647"], "TO: too large for any machine: this run would need about"),
            ])
        }
        other => {
            crate::common::skip(format!("the runs of N = 2^31 - 1: {other} bytes available is too much for this check"))
        }
    }
}

/// Every command that allocates by N is refused by the memory guard before it allocates anything
/// large: run under an address-space limit of 2 GiB, far below what these runs need, each exits 2
/// with the guard's one line instead of being killed by the allocator (exit 134).
#[test]
fn the_memory_guard_refuses_before_any_large_allocation() {
    if std::process::Command::new("prlimit").arg("--version").output().is_err() {
        crate::common::skip("prlimit is not installed, so the address space cannot be limited");
        return;
    }
    let rows: &[Refusal] = &[
        (&["count", "1000000", "--max-memory", "500M"], "--max-memory: this run needs about"),
        (&["count", "1000000", "--mod-only", "--max-memory", "10M"], "--max-memory: this run needs about"),
        (&["count", "200000", "--double-check", "--max-memory", "500M"], "--max-memory: this run needs about"),
        (&["count", "200000", "--engine", "crt", "--max-memory", "500M"], "--max-memory: this run needs about"),
        (
            // past the exact count's limit the modular engine judges: refused where it does not fit either
            &["verify", "1000000", "--mod", "998244353", "--answer", "1", "--max-memory", "10M"],
            "--max-memory: this run needs",
        ),
        (&["table", "1", "200000", "--max-memory", "500M"], "--max-memory: this run needs about"),
        (&["dist", "100000", "--max-memory", "500M"], "--max-memory: this run needs about"),
        (&["moves", "1000000", "--nth", "0", "--max-memory", "500M"], "--max-memory: this run needs about"),
        (&["rank", "1000000", "L", "--max-memory", "500M"], "--max-memory: this run needs about"),
        (&["shard", "1000000", "--shard", "1/64", "--max-memory", "10M"], "--max-memory: this run needs about"),
        (&["bench", "--n", "1000000", "--max-memory", "500M"], "--max-memory: this run needs about"),
    ];
    for (args, names) in rows {
        let output = std::process::Command::new("prlimit")
            .arg(format!("--as={}", 2u64 << 30))
            .arg("--")
            .arg(binary())
            .args(*args)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("running fibtree under prlimit");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_no_panic(args, &output.stderr);
        assert_eq!(output.status.code(), Some(2), "fibtree {args:?} under 2 GiB of address space: {stderr}");
        assert!(output.stdout.is_empty(), "fibtree {args:?} wrote to stdout");
        assert_eq!(stderr.lines().count(), 1, "fibtree {args:?}: {stderr}");
        assert!(stderr.starts_with("error: ") && stderr.contains(names), "fibtree {args:?}: {stderr}");
    }
}

// ---------------------------------------------------------------------------------------------
// Each command's own refusals
// ---------------------------------------------------------------------------------------------

#[test]
fn table_draw_moves_and_rank_refuse_what_they_cannot_do() {
    refused(&[
        (&["table", "5", "3"], "FROM: expected FROM <= TO, got 5 > 3"),
        (&["draw", "15"], "K: at most 14: too many nodes to draw legibly, got 15"),
        (&["draw", "3..20"], "B: at most 14: too many nodes to draw legibly, got 20"),
        (&["draw", "99999999999999999999999"], "K: at most 14: too many nodes to draw legibly"),
        (&["draw", "5..2"], "A..B: A at most B, got 5..2"),
        (&["moves", "10", "--nth", "17"], "--nth: expected I below c(10, 0) = 17, got 17"),
        (&["moves", "10", "--nth", "-1"], "--nth: expected a whole number (decimal digits only), got '-1'"),
        (&["moves", "10", "--nth", "1e3"], "--nth: expected a whole number (decimal digits only), got '1e3'"),
        (&["moves", "7", "--random"], "--random: T(7) has no move to value 0"),
        (&["moves", "40", "--list"], "--list: c(40, 0) = 17791529 moves, more than 1000000 lines"),
        (&["rank", "10", ""], "PATH: expected a non-empty path of L and R"),
        (&["rank", "10", "LXR"], "PATH: expected only L and R, got 'X' at step 2"),
        (&["rank", "3", "LLL"], "PATH: step 3 ('L') leaves T(3)"),
        (&["rank", "2", "R"], "PATH: step 1 ('R') leaves T(2)"),
    ]);
    // neither a tree nor a range, "-1" included (which clap would take for an option)
    refused_in_place(
        &[(&["draw", "_"], "K|A..B: expected a tree K or a range A..B of whole numbers (e.g. 6 or 1..6), got '_'")],
        &["x", "1..", "..3", "1...3", "1..2..3", "+1", "", "-1"],
    );
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

/// A value clap refuses is shown as it was given, escaped and cut as our own errors are, in clap's
/// words otherwise.
#[test]
fn refused_values_are_shown_escaped_not_dropped() {
    let expected = "expected a modulus with 2 <= M < 2^63";
    refused(&[
        (&["count", "10", "--mod", "7\u{1b}"], "invalid value '7\\u{1b}' for '--mod <M>': "),
        (&["count", "10", "--mod", "7\n8"], "invalid value '7\\n8' for '--mod <M>'"),
        (&["count", "10", "--mod", "7\u{7}\r"], "invalid value '7\\u{7}\\r' for '--mod <M>'"),
        (&["count", "10", "--mod", "x"], expected),
        (
            &["count", "10", "--engine", "x\u{1b}y"],
            "invalid value 'x\\u{1b}y' for '--engine <ENGINE>' [possible values: blocked, reference, crt]",
        ),
        (
            &["count", "10", "--engine", "blockd"],
            "[possible values: blocked, reference, crt] tip: a similar value exists: 'blocked'",
        ),
        (&["count", "10", "--engine", ""], "a value is required for '--engine <ENGINE>' but none was supplied"),
    ]);
    let digits = "9".repeat(3000);
    let cut = "99999999999999999999...99999999999999999999 (3000 digits)";
    for (args, needle) in [
        (&["count", &digits][..], format!("invalid value '{cut}'")),
        (&["count", "10", "--mod", &digits], format!("invalid value '{cut}'")),
        (&["verify", "10", "--answer", &digits, "--mod", "7"], format!("below the modulus 7, got {cut}")),
    ] {
        let err = usage_error(args, &needle);
        assert!(err.len() < 200, "one short line: {} characters: {err}", err.len());
    }
}

#[test]
fn claims_files_empty_header_only_missing_or_a_folder() {
    let dir = TempDir::new("claims");
    let empty = dir.file("empty.csv", b"");
    let blank = dir.file("blank.csv", b"\n\n  \n\t\n");
    let header = dir.file("header.csv", b"n,g,modulus,answer\n");
    let claims = dir.file("claims.csv", b"n,g,modulus,answer\n10,0,7,3\n");
    let missing = dir.join("no-such-file.csv");
    let folder = dir.path().to_str().unwrap();
    let (empty_is, blank_is) = (format!("--claims: '{empty}' is empty"), format!("--claims: '{blank}' is empty"));
    let header_is = format!("--claims: '{header}' has no claims, only its header");
    refused(&[
        (&["verify", "--claims", &empty], &empty_is),
        (&["verify", "--claims", &empty, "--json"], &empty_is),
        (&["verify", "--claims", &blank], &blank_is),
        (&["verify", "--claims", &blank, "--json"], &blank_is),
        (&["verify", "--claims", &header], &header_is),
        (&["verify", "--claims", &missing], &format!("--claims: cannot read '{missing}'")),
        (&["verify", "--claims", folder], &format!("--claims: cannot read '{folder}'")),
        (&["verify", "--claims", &dir.join("")], "--claims: cannot read"),
        // the options of a single claim
        (&["verify", "--claims", &claims, "--g", "3"], "'--claims <FILE>' cannot be used with '--g <G>'"),
        (&["verify", "--claims", &claims, "--mod", "5"], "'--claims <FILE>' cannot be used with '--mod <M>'"),
        (
            &["verify", "--claims", &claims, "--last-digits", "3"],
            "'--claims <FILE>' cannot be used with '--last-digits <D>'",
        ),
    ]);
    usage_error_with_stdin(&["verify", "--claims", "-"], b"", "--claims: standard input is empty");
    // without its header, the columns of a file cannot be known: refused, not guessed
    let header = "expected a header naming the columns n, g, modulus and answer in any order";
    for (text, at) in [
        (&b"10,0,7,3\n10,0,7,4\n"[..], "line 1"),
        (b"# no header here\n10,0,7,3\n", "line 2"),
        (b"n,g,mod,answer\n10,0,7,3\n", "line 1"),
        (b"\x00\x01junk\n\x00\n", "line 1"),
        (b"# only a comment\n", "no header"),
    ] {
        usage_error_with_stdin(&["verify", "--claims", "-"], text, &format!("--claims: standard input: {at}: "));
        usage_error_with_stdin(&["verify", "--claims", "-", "--json"], text, header);
    }
    // a folder on standard input is refused like a folder's path
    let args = ["verify", "--claims", "-"];
    let output =
        std::process::Command::new(binary()).args(args).stdin(std::fs::File::open(folder).unwrap()).output().unwrap();
    assert_no_panic(&args, &output.stderr);
    check_usage_error(&args, &output, "--claims: cannot read standard input");
}

/// A run far beyond the limit is refused with the same figure whatever the limit: the whole run's
/// prediction, not a floor below it (n = 10^9: 63575.2 TiB at 1G as at 50G), naming N, as no
/// machine has so much.
#[test]
fn a_refusal_gives_one_figure_whatever_the_limit() {
    let figure = |limit: &str| {
        let err = usage_error(&["count", "1000000000", "--max-memory", limit], "N: too large for any machine");
        err.split("need about ").nth(1).and_then(|s| s.split(" of memory").next()).unwrap().to_string()
    };
    let at_50g = figure("50G");
    assert!(at_50g.ends_with("TiB"), "{at_50g}");
    assert_eq!(figure("1G"), at_50g);
    assert_eq!(figure("1"), at_50g);
}

/// One spelling of a thing across the commands: `-g` for `--g`; N, G and K read as every other
/// number (`1e4`, `10^4`); one range of `--last-digits`; a value starting with `-` refused by its
/// option's parser, naming the option; a long value cut to its first 40 characters and its length,
/// a variable's bytes that are not UTF-8 escaped; one seed format, printed as it is read.
#[test]
fn one_spelling_across_commands() {
    let f10000 = success(&["count", "10000", "-q"]);
    assert_eq!(success(&["count", "1e4", "-q"]), f10000);
    assert_eq!(success(&["count", "10^4", "-q"]), f10000);
    assert_eq!(success(&["count", "30", "-g", "5", "-q"]), success(&["count", "30", "--g", "5", "-q"]));
    for command in [
        &["count", "30", "-g", "5"][..],
        &["verify", "30", "-g", "5", "--answer", "9755"],
        &["moves", "6", "-g", "1", "--list"],
        &["shard", "30", "-g", "5", "--shard", "1/1", "-o", "-"],
    ] {
        let output = fibtree(command);
        assert_eq!(output.status.code(), Some(0), "{command:?}: {}", stderr(&output));
    }
    // --last-digits: 1 to 38 in verify and stress alike
    for d in ["0", "39"] {
        usage_error(&["verify", "10", "--answer", "17", "--last-digits", d], "expected from 1 to 38 digits");
        usage_error(&["stress", "true", "--n", "1..2", "--last-digits", d], "expected from 1 to 38 digits");
    }
    refused(&[
        (&["count", "10", "--max-memory", "-5M"], "invalid value '-5M' for '--max-memory <SIZE>'"),
        (&["count", "10", "--mod", "--json"], "invalid value '--json' for '--mod <M>'"),
        (
            &["count", "10", "--mod", &"x".repeat(300)],
            &format!("'{}...' (300 characters) for '--mod <M>'", "x".repeat(40)),
        ),
        (&["self-test", "--seed", "xyz"], "expected a seed: decimal digits, or 0x and hexadecimal digits"),
    ]);
    let isa = |value: &std::ffi::OsStr| {
        let output = assert_cmd::Command::cargo_bin("fibtree")
            .unwrap()
            .args(["count", "10"])
            .env("FIBTREE_ISA", value)
            .output()
            .unwrap();
        check_usage_error(&["count", "10"], &output, "FIBTREE_ISA")
    };
    let err = isa(std::ffi::OsStr::new(&"x".repeat(100_000)));
    assert!(err.contains(&format!("got \"{}...\" (100000 characters)", "x".repeat(40))), "{err}");
    use std::os::unix::ffi::OsStrExt;
    let err = isa(std::ffi::OsStr::from_bytes(b"avx\xff2"));
    assert!(err.contains(r#"got "avx\xff2""#), "{err}");
    // a seed printed as 0x... is read back as printed, and gives the same pick
    let (_, err) = success_with_stderr(&["moves", "300", "--random", "--seed", "0x2a"]);
    assert!(err.contains("(seed 0x2a)"), "{err}");
    assert_eq!(
        success(&["moves", "300", "--random", "--seed", "42"]),
        success(&["moves", "300", "--random", "--seed", "0x2a"])
    );
}

/// Messages name what the user gave (the environment variable that set the memory), and their
/// numbers agree with their nouns.
#[test]
fn messages_name_what_the_user_gave_and_agree_in_number() {
    let err = on_machine("memory=1M", || usage_error(&["count", "10000"], "FIBTREE_MACHINE"));
    assert!(err.contains("(the memory the machine is set to have)") && !err.contains("--max-memory"), "{err}");
    let estimate = success(&["estimate", "0"]);
    assert!(estimate.contains("at most 3 bits, 1 decimal digit\n"), "{estimate}");
    let output = fibtree(&["stress", "echo 17", "--n", "10", "--exact", "--threads", "1"]);
    assert!(stdout(&output).contains("1 run of c(n, 0) of the 1 n asked"), "{}", stdout(&output));
}
