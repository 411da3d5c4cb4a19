//! Integration tests of the `fibtree` command line: what each command prints, its exit status
//! (0 success, 1 a failed cross-check, 2 bad input or a run too large for memory), and that no
//! invocation panics.

use serde_json::Value;

mod common;
use common::*;

// ---------------------------------------------------------------------------------------------
// count
// ---------------------------------------------------------------------------------------------

#[test]
fn count_json_fields() {
    let json = success_json(&["count", "10", "--json"]);
    assert_eq!(json["n"], 10);
    assert_eq!(json["g"], 0);
    assert!(json["n"].is_u64() && json["g"].is_u64());
    assert_eq!(json["value"], "17");
    assert_eq!(json["digits"], 2);
    assert_eq!(json["last18"], "17");
    assert_eq!(json["mod_998244353"], "17");
    assert_eq!(json["ok"], true);
    assert!(json["threads"].as_u64().is_some_and(|t| t >= 1), "threads: {}", json["threads"]);
    assert!(json["seconds"].as_f64().is_some_and(|s| s >= 0.0), "seconds: {}", json["seconds"]);
    let projections = json["projections"].as_array().expect("projections is a list");
    assert_eq!(projections.len(), 2);
    let moduli: Vec<&str> = projections.iter().map(|p| p["modulus"].as_str().unwrap()).collect();
    assert_eq!(moduli, ["1000000000000000000", "998244353"]);
    for p in projections {
        assert_eq!(p["residue"], "17", "{p}");
        assert_eq!(p["independent"], "17", "{p}");
        assert_eq!(p["agrees"], true, "{p}");
    }
}

#[test]
fn count_json_with_extra_moduli() {
    let json = success_json(&["count", "10", "--json", "--mod", "1000000007", "--mod", "7"]);
    let projections = json["projections"].as_array().unwrap();
    assert_eq!(projections.len(), 4);
    let moduli: Vec<&str> = projections.iter().map(|p| p["modulus"].as_str().unwrap()).collect();
    assert_eq!(moduli, ["1000000000000000000", "998244353", "1000000007", "7"]);
    let residues: Vec<&str> = projections.iter().map(|p| p["residue"].as_str().unwrap()).collect();
    assert_eq!(residues, ["17", "17", "17", "3"]);
    for p in projections {
        assert_eq!(p["agrees"], true, "{p}");
        assert_eq!(p["residue"], p["independent"], "{p}");
        assert!(p.get("modulus").is_some() && p.get("residue").is_some() && p.get("independent").is_some());
    }
    assert_eq!(json["ok"], true);
}

#[test]
fn count_json_f10000_public_values() {
    // docs/math.md: f(10000) mod 10^18 = 438505383468410633, mod 998244353 = 163314502, 2087 digits.
    let json = success_json(&["count", "10000", "--json"]);
    assert_eq!(json["digits"], 2087);
    assert_eq!(json["value"].as_str().unwrap().len(), 2087);
    assert_eq!(json["last18"], "438505383468410633");
    assert_eq!(json["mod_998244353"], "163314502");
    assert_eq!(json["ok"], true);
}

#[test]
fn count_quiet() {
    assert_eq!(success(&["count", "10", "--quiet"]), "17\n");
    assert_eq!(success(&["count", "10", "-q"]), "17\n");
    assert_eq!(success(&["count", "0", "-q"]), "0\n");
    assert_eq!(success(&["count", "1", "-q"]), "0\n");
    assert_eq!(success(&["count", "7", "-q"]), "0\n");
    assert_eq!(success(&["count", "10", "--g", "1000000", "-q"]), "0\n");
    assert_eq!(success(&["count", "10", "--g", "18446744073709551615", "-q"]), "0\n");
    // c(3, .) = 1, 1, 1 (deleting the right leaf, the left child, the left grandchild).
    for g in ["0", "1", "2"] {
        assert_eq!(success(&["count", "3", "--g", g, "-q"]), "1\n", "c(3, {g})");
    }
}

#[test]
fn count_human_output() {
    let value = success(&["count", "100", "-q"]);
    let value = value.trim_end();
    assert!(!value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()), "{value:?}");
    let human = success(&["count", "100"]);
    for needle in ["digits", "last 18 digits", "mod 998244353", "agrees", value] {
        assert!(human.contains(needle), "count 100 should print {needle:?}:\n{human}");
    }
    assert!(!human.contains("DISAGREES"), "{human}");
    assert!(human.contains(&format!("digits          {}", value.len())), "{human}");
}

#[test]
fn count_same_answer_for_any_thread_count() {
    let one = success(&["count", "2000", "-q", "--threads", "1"]);
    let three = success(&["count", "2000", "-q", "--threads", "3"]);
    let default = success(&["count", "2000", "-q"]);
    assert_eq!(one, three);
    assert_eq!(one, default);
    assert!(one.len() > 100, "f(2000) has hundreds of digits: {one:?}");
    let json = success_json(&["count", "20", "--json", "--threads", "3"]);
    assert_eq!(json["threads"], 3);
}

#[test]
fn count_modulus_forms() {
    for form in ["10^18", "1e18", "1000000000000000000"] {
        let json = success_json(&["count", "10", "--json", "--mod", form]);
        assert_eq!(json["projections"].as_array().unwrap().len(), 2, "--mod {form} repeats 10^18");
    }
    let json = success_json(&["count", "10", "--json", "--mod", "2^62"]);
    assert_eq!(json["projections"][2]["modulus"], (1u64 << 62).to_string());
}

#[test]
fn cross_check_failure_exits_1() {
    let output = fibtree(&["count", "50", "--test-perturb", "998244353"]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(err.contains("CROSS-CHECK FAILED"), "{err}");
    assert!(err.contains("998244353"), "{err}");
    assert!(stdout(&output).contains("DISAGREES"), "{}", stdout(&output));

    let output = fibtree(&["count", "50", "--test-perturb", "998244353", "--json"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("CROSS-CHECK FAILED"));
    let json: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(json["ok"], false);
    for p in json["projections"].as_array().unwrap() {
        let perturbed = p["modulus"] == "998244353";
        assert_eq!(p["agrees"], !perturbed, "{p}");
    }
}

// ---------------------------------------------------------------------------------------------
// Usage errors (exit 2)
// ---------------------------------------------------------------------------------------------

#[test]
fn bad_n_exits_2() {
    for n in ["-5", "abc", "1.5", "18446744073709551616", ""] {
        usage_error(&["count", n], "<N>");
    }
}

#[test]
fn bad_g_exits_2() {
    for g in ["-1", "x"] {
        usage_error(&["count", "10", "--g", g], "--g");
    }
}

#[test]
fn bad_modulus_exits_2() {
    for m in ["0", "1", "9223372036854775808", "2^63", "1e19", "-7"] {
        usage_error(&["count", "10", "--mod", m], "--mod");
    }
}

#[test]
fn bad_threads_exits_2() {
    usage_error(&["count", "10", "--threads", "0"], "--threads");
    usage_error(&["count", "10", "--threads", "x"], "--threads");
}

#[test]
fn n_beyond_the_engines_exits_2() {
    let err = usage_error(&["count", "4000000000"], "N");
    assert!(err.contains("at most") || err.contains("memory"), "{err:?}");
    let err = usage_error(&["count", "2147483648"], "N");
    assert!(err.contains("at most 2147483647"), "{err:?}");
}

#[test]
fn n_too_large_for_memory_exits_2() {
    // N = 2^31 - 1 is accepted by the engines, but the plan's floor alone (some 44 bytes a layer,
    // about 88 GiB) is refused before anything is allocated on any machine with less than that.
    match available_memory() {
        Some(bytes) if bytes < 80 << 30 => {
            let err = usage_error(&["count", "2147483647"], "N");
            assert!(err.contains("memory") || err.contains("available") || err.contains("at most"), "{err:?}");
        }
        other => println!("skipped: MemAvailable = {other:?} bytes is too large for this check"),
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
// grundy and brute
// ---------------------------------------------------------------------------------------------

#[test]
fn grundy_values() {
    assert_eq!(success(&["grundy", "10"]), "14\n");
    assert_eq!(success(&["grundy", "0"]), "-1\n");
    assert_eq!(success(&["grundy", "1"]), "0\n");
    let json = success_json(&["grundy", "10", "--json"]);
    assert_eq!(json["grundy"], 14);
    assert_eq!(json["k"], 10);
    let json = success_json(&["grundy", "0", "--json"]);
    assert_eq!(json["grundy"], -1);
    // docs/math.md: G(1..12) = 0 1 3 6 3 3 0 5 7 14 7 7.
    for (k, want) in (1..=12).zip([0, 1, 3, 6, 3, 3, 0, 5, 7, 14, 7, 7]) {
        assert_eq!(success(&["grundy", &k.to_string()]), format!("{want}\n"), "G({k})");
    }
}

#[test]
fn brute_csv() {
    let out = success(&["brute", "7"]);
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("g,explicit_tree,first_principles"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows[0], ["0", "0", "0"], "f(7) = 0");
    let mut total = 0u64;
    for (g, row) in rows.iter().enumerate() {
        assert_eq!(row.len(), 3, "{row:?}");
        assert_eq!(row[0], g.to_string());
        assert_eq!(row[1], row[2], "the two oracles at g = {g}");
        total += row[1].parse::<u64>().unwrap();
    }
    assert_eq!(total, 32, "|T(7)| - 1 = 33 - 1 moves");

    assert_eq!(success(&["brute", "10", "--g", "0"]), "g,explicit_tree,first_principles\n0,17,\n");

    // Above k = 7 only the explicit tree runs.
    let out = success(&["brute", "8"]);
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("g,explicit_tree,first_principles"));
    let first = lines.next().unwrap();
    assert_eq!(first, "0,7,", "f(8) = 7, no first-principles column");
    assert!(lines.all(|l| l.ends_with(',')), "{out}");
    assert_eq!(success(&["brute", "30", "--g", "0"]).lines().count(), 2);
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
