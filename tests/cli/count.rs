//! `fibtree count`: its three forms (human, `-q`, `--json`) and their fields, the smallest trees,
//! every modulus form, the same answer for every thread count, a disagreement exit 1, an internal
//! error (a panic) reported in one line with exit 101, and the memory estimate against the measured
//! peak.

use serde_json::Value;

use crate::common::*;

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

/// The empty tree, a tree with one node and one with one move, in the forms the other tests do not
/// give them.
#[test]
fn count_the_smallest_trees() {
    let out = success(&["count", "0"]);
    assert!(out.starts_with("c(0, 0) = f(0): the winning first moves of T(0)\n"), "{out}");
    assert!(out.lines().any(|l| l == "value           0"), "{out}");
    let json = success_json(&["count", "1", "--json"]);
    assert_eq!(json["n"], 1);
    assert_eq!(json["value"], "0");
    assert_eq!(json["ok"], true);
    // T(2)'s one move leaves a single node, of value 0: c(2, 1) = 0
    let out = success(&["count", "2", "--g", "1"]);
    assert!(out.starts_with("c(2, 1): the first moves of T(2) that leave Grundy value 1\n"), "{out}");
    assert!(out.lines().any(|l| l == "value           0"), "{out}");
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
    // the largest modulus, 2^63 - 1
    let json = success_json(&["count", "10", "--json", "--mod", "9223372036854775807"]);
    assert_eq!(json["projections"][2]["modulus"], "9223372036854775807");
    assert_eq!(json["projections"][2]["residue"], "17");
    assert_eq!(json["projections"][2]["agrees"], true);
    // A^B+C and A^B-C (and AeB+C) exactly, as the limits are written
    let f100 = fibtree::count(100, 0).unwrap();
    for (form, modulus) in [("10^9+7", 1_000_000_007u64), ("1e9+7", 1_000_000_007), ("2^61-1", MERSENNE61)] {
        let json = success_json(&["count", "100", "--json", "--mod", form]);
        assert_eq!(json["projections"][2]["modulus"], modulus.to_string(), "{form}");
        assert_eq!(json["projections"][2]["residue"], residue(&f100, modulus).to_string(), "{form}");
    }
}

/// A `--mod` the report lists once only (a default projection, or one given again) is said once on
/// stderr, not dropped without a word.
#[test]
fn a_default_or_repeated_modulus_is_said_once() {
    for args in [&["count", "10", "-q"][..], &["count", "10", "--mod-only", "-q"]] {
        let mut args = args.to_vec();
        args.extend([
            "--mod",
            "998244353",
            "--mod",
            "7",
            "--mod",
            "1e18",
            "--mod",
            "7",
            "--mod",
            "10^18",
            "--mod",
            "7",
        ]);
        let (out, err) = success_with_stderr(&args);
        assert!(out.starts_with("17"), "{out}");
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 3, "one note for each: {err}");
        assert!(lines[0].contains("--mod 998244353 is a default projection"), "{err}");
        assert!(lines[1].contains("--mod 7 is given more than once"), "{err}");
        assert!(lines[2].contains("--mod 1000000000000000000 is a default projection"), "{err}");
    }
    let (_, err) = success_with_stderr(&["count", "10", "--mod", "7", "--mod", "5"]);
    assert_eq!(err, "", "nothing to say");
}

/// A value that fails its cross-check never reaches the results: in every form nothing on stdout
/// (no output file), the report on stderr with the value withheld and each failure said, exit 1.
#[test]
fn cross_check_failure_exits_1() {
    let dir = TempDir::new("failed");
    let file = dir.path().join("f50.txt");
    for form in [&[][..], &["--json"], &["-q"], &["-o", file.to_str().unwrap()]] {
        let args = [&["count", "50", "--test-perturb", "998244353"][..], form].concat();
        let output = fibtree(&args);
        let err = stderr(&output);
        assert_eq!((output.status.code(), stdout(&output).as_str()), (Some(1), ""), "{form:?}: {err}");
        assert!(err.contains("error: CROSS-CHECK FAILED for c(50, 0) mod 998244353"), "{err}");
        let line = err.lines().find(|l| l.starts_with("mod 998244353")).unwrap_or_else(|| panic!("{err}"));
        assert!(line.ends_with("DISAGREES with the modular engine"), "{err}");
        let line = err.lines().find(|l| l.starts_with("value ")).unwrap_or_else(|| panic!("{err}"));
        assert!(line.ends_with("withheld: it failed a check"), "{err}");
        assert!(!file.exists(), "{form:?}: no output file");
    }
    // a perturbation of 0 changes nothing
    let out = success(&["count", "10", "--test-perturb", "0"]);
    assert!(!out.contains("DISAGREES") && out.contains("agrees"), "{out}");
}

/// The parity, the projection that needs no engine: in every form, odd and even, and a perturbed one
/// failing as a perturbed residue fails (exit 1, loudly), the residues still agreeing.
#[test]
fn the_parity_is_checked_against_the_closed_form() {
    // f(10) = 17 is odd (0 < G(10) = 14), c(10, 26) = 4 even (26 >= 14)
    for (g, parity) in [("0", 1), ("26", 0)] {
        let json = success_json(&["count", "10", "--g", g, "--json"]);
        assert_eq!(json["parity"], serde_json::json!({"agrees": true, "closed_form": parity, "residue": parity}));
        assert_eq!(json["ok"], true);
    }
    let out = success(&["count", "10", "--g", "26"]);
    let line = out.lines().find(|l| l.starts_with("parity ")).unwrap_or_else(|| panic!("a parity line in\n{out}"));
    assert!(line.contains(" even ") && line.ends_with("agrees with the closed form of G"), "{line}");

    // the report on stderr, nothing on stdout, in every form
    for form in [&[][..], &["--json"]] {
        let output = fibtree(&[&["count", "50", "--test-perturb", "2"][..], form].concat());
        let (out, err) = (stdout(&output), stderr(&output));
        assert_eq!((output.status.code(), out.as_str()), (Some(1), ""), "{err}");
        let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
        assert_eq!(errors.len(), 1, "{err}");
        assert!(
            errors[0].starts_with("error: CROSS-CHECK FAILED for c(50, 0) mod 2: the exact value gives 1"),
            "{err}"
        );
        assert!(err.contains("DISAGREES with the closed form of G"), "{err}");
        assert!(!err.contains("DISAGREES with the modular engine"), "{err}");
    }

    // with --mod 2, the modular engine's projection onto 2 beside it: both perturbed, both said
    let output = fibtree(&["count", "50", "--mod", "2", "--test-perturb", "2"]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(err.contains("the modular engine gives 2") && err.contains("the closed form of G gives 0"), "{err}");
    assert_eq!(err.lines().filter(|l| l.starts_with("error:")).count(), 2, "{err}");
}

#[test]
fn a_panic_is_reported_in_one_line_with_exit_101() {
    let output = fibtree(&["count", "10", "--test-panic"]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(101), "{err}");
    assert!(output.stdout.is_empty());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: internal error (a bug)") && err.contains("please report it"), "{err}");
}

/// The memory guard's estimate against the measured peak: within a factor of 1.5 at n = 5000. The
/// peak is the one `count --verbose` reads from its own `/proc/self/status` (VmHWM) as it ends: the
/// rusage of a child started by `posix_spawn` also holds the parent's peak at the time of the exec.
#[test]
fn estimate_is_within_one_and_a_half_of_the_peak_at_5000() {
    let (out, err) = success_with_stderr(&["count", "5000", "--json", "--verbose"]);
    let report: Value = serde_json::from_str(&out).unwrap();
    let estimate = report["memory_estimate_bytes"].as_u64().unwrap() as f64;
    let Some(line) = err.lines().find(|l| l.starts_with("memory peak ")) else {
        crate::common::skip(format!("no /proc/self/status here ({err})"));
        return;
    };
    let peak = parse_size(line.trim_start_matches("memory peak ").split(" (").next().unwrap()) as f64;
    let ratio = peak / estimate;
    println!("estimate {estimate} bytes, peak {peak} bytes, ratio {ratio:.2}");
    assert!((1.0 / 1.5..=1.5).contains(&ratio), "peak / estimate = {ratio:.2}: {line}");
}

#[test]
fn the_readme_json_example_has_the_real_fields() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme.find("$ fibtree count 10000 --json").expect("the example in README.md");
    let example = &readme[start..][..readme[start..].find("\n\n").unwrap()];
    let named: std::collections::BTreeSet<&str> =
        example.split('"').collect::<Vec<_>>().windows(2).filter(|w| w[1].starts_with(':')).map(|w| w[0]).collect();
    let real = success_json(&["count", "100", "--json"]);
    let top: std::collections::BTreeSet<&str> = real.as_object().unwrap().keys().map(String::as_str).collect();
    let keys = |v: &Value| -> std::collections::BTreeSet<String> { v.as_object().unwrap().keys().cloned().collect() };
    let (projection, parity) = (keys(&real["projections"][0]), keys(&real["parity"]));
    for key in &top {
        assert!(named.contains(key), "README's example lacks {key:?}: {example}");
    }
    for key in parity.iter().chain(&projection) {
        assert!(named.contains(key.as_str()), "README's example lacks {key:?}: {example}");
    }
    for key in &named {
        let printed = top.contains(key) || projection.contains(*key) || parity.contains(*key);
        assert!(printed, "README's example has {key:?}, not printed: {example}");
    }
}

/// A g above every value a move can leave counts 0 at once, in the form of any count.
#[test]
fn g_beyond_every_value_counts_zero() {
    let json = success_json(&["count", "20000", "--g", "1152921504606846976", "--json"]);
    assert_eq!(json["value"], "0");
    assert_eq!(json["ok"], true);
    assert_eq!(json["last18"], "0");
    assert_eq!(json["mod_998244353"], "0");
    let out = success(&["count", "10000", "--g", "18446744073709551615", "--mod-only", "-q"]);
    assert_eq!(out, "0\n0\n");
    let json = success_json(&["count", "10", "--g", "18446744073709551615", "--json"]);
    assert_eq!(json["g"], "18446744073709551615", "g read exactly (a string past 2^53 - 1): {json}");
    assert_eq!(json["value"], "0");
    let out = success(&["count", "10000", "--g", "200000", "-q"]);
    assert_eq!(out, "0\n");
    // a g inside the support is still counted
    assert_ne!(success(&["count", "2000", "--g", "22526", "-q"]), "0\n");
}

#[test]
fn every_cut_gives_the_same_count_and_verbose_says_the_route() {
    let bottom_up = success_json(&["count", "3000", "--g", "2", "--json", "--cut", "3000"]);
    for cut in ["2", "3", "1000", "1500", "2999"] {
        let json = success_json(&["count", "3000", "--g", "2", "--json", "--cut", cut]);
        assert_eq!(json["value"], bottom_up["value"], "--cut {cut}");
        assert_eq!(json["ok"], true, "--cut {cut}");
    }
    let (_, err) = success_with_stderr(&["count", "3000", "--verbose", "-q"]);
    let route =
        err.lines().find(|l| l.starts_with("route from both ends, cut at layer ")).unwrap_or_else(|| panic!("{err}"));
    assert!(route.contains("bottom-up to it") && route.contains("of bottom-up alone's"), "{route}");
    let (_, err) = success_with_stderr(&["count", "3000", "--verbose", "-q", "--cut", "3000"]);
    assert!(err.lines().any(|l| l.starts_with("route bottom-up alone: ")), "{err}");
}

#[test]
fn every_engine_gives_the_same_count_and_each_double_check_agrees() {
    let blocked = success_json(&["count", "3000", "--g", "2", "--json"]);
    assert_eq!(blocked["ok"], true);
    for engine in ["blocked", "reference", "crt"] {
        let json = success_json(&["count", "3000", "--g", "2", "--json", "--engine", engine]);
        assert_eq!(json["value"], blocked["value"], "--engine {engine}");
        assert_eq!(json["ok"], true, "--engine {engine}");
        assert_eq!(json["double_check"], Value::Null, "--engine {engine}: no double check asked");
        let checked = success_json(&["count", "3000", "--g", "2", "--json", "--engine", engine, "--double-check"]);
        assert_eq!(checked["value"], blocked["value"], "--engine {engine} --double-check");
        assert_eq!(checked["double_check"], true, "--engine {engine} --double-check");
    }
}

/// A run fits a limit just above the estimate it prints: the guard's prediction before the plan
/// (windows of one target's W-aligned block, the plan kept up to the cut) does not refuse what the
/// estimate from the plan accepts.
#[test]
fn a_limit_just_above_the_estimate_is_enough() {
    let (_, err) = success_with_stderr(&["count", "20000", "--verbose", "-q"]);
    let line = err.lines().find(|l| l.starts_with("memory estimate ")).unwrap_or_else(|| panic!("{err}"));
    let estimate = parse_size(line.trim_start_matches("memory estimate ").split(" (").next().unwrap());
    let limit = format!("{}K", estimate * 21 / 20 / 1024);
    let (out, _) = success_with_stderr(&["count", "20000", "-q", "--max-memory", &limit]);
    assert_eq!(out.trim().len(), 4176, "f(20000) has 4176 digits, within --max-memory {limit}");
}

/// An integer field of the JSON is a number up to 2^53 - 1, which every JSON reader keeps exactly,
/// and a decimal string above; fibtree reads its own shard files in either form.
#[test]
fn json_integers_past_2_53_are_strings() {
    let (exact, past) = ("9007199254740991", "9007199254740992");
    for (args, field) in [
        (&["count", "10", "--json", "--g", "_"][..], "g"),
        (&["count", "10", "--json", "--mod-only", "--g", "_"], "g"),
        (&["verify", "10", "--answer", "0", "--mod", "7", "--json", "--g", "_"], "g"),
        (&["moves", "10", "--list", "--json", "--g", "_"], "g"),
        (&["estimate", "10", "--json", "--g", "_"], "g"),
    ] {
        for g in [exact, past] {
            let args: Vec<&str> = args.iter().map(|&a| if a == "_" { g } else { a }).collect();
            let json = success_json(&args);
            let want = if g == exact { serde_json::json!(9_007_199_254_740_991u64) } else { serde_json::json!(past) };
            assert_eq!(json[field], want, "{args:?}: {json}");
        }
    }
    let json = success_json(&["count", "10", "--json", "--g", "3"]);
    assert_eq!(json["g"], 3, "a number below: {json}");
    let dir = TempDir::new("g-past");
    let text = format!("n,g,modulus,answer\n10,{past},7,0\n10,3,7,0\n");
    let claims = dir.file("claims.csv", &text);
    let json = success_json(&["verify", "--claims", &claims, "--json"]);
    assert_eq!(json["verdicts"][0]["g"], past, "{json}");
    assert_eq!(json["verdicts"][1]["g"], 3, "{json}");
    let shard = dir.join("shard.json");
    success(&["shard", "100", "--g", past, "--shard", "1/1", "-o", &shard]);
    assert!(std::fs::read_to_string(&shard).unwrap().contains(&format!("\"g\":\"{past}\"")));
    let json = success_json(&["combine", &shard, "--json"]);
    assert_eq!((&json["g"], &json["value"]), (&serde_json::json!(past), &serde_json::json!("0")), "{json}");
}

/// The last 18 digits of a value of at most 18 digits are the value itself, with no zeros that are
/// not its digits; a longer value's are exactly 18 digits, zeros included; the report, its JSON and
/// `table` agree. A long `--mod` widens the label column, and every column stays aligned.
#[test]
fn last_18_digits_agree_in_every_form_and_columns_align() {
    let digits = |k: u64| fibtree::count(k, 0).unwrap().to_string();
    // a value longer than 18 digits whose last 18 start with a zero
    let k = (90..400).find(|&k| digits(k).len() > 18 && digits(k).as_bytes()[digits(k).len() - 18] == b'0').unwrap();
    let (long, short) = (digits(k), digits(10));
    let long18 = &long[long.len() - 18..];
    assert!(long18.starts_with('0') && long18.len() == 18);
    for (n, want) in [(k.to_string(), long18), ("10".to_string(), short.as_str())] {
        let json = success_json(&["count", &n, "--json"]);
        assert_eq!(json["last18"], want, "count {n} --json");
        let human = success(&["count", &n]);
        assert!(human.lines().any(|l| l.split_whitespace().nth(3) == Some(want)), "count {n}:\n{human}");
        let table = success(&["table", &n, &n]);
        assert_eq!(table.lines().nth(1).unwrap().split(',').nth(2), Some(want), "table {n} {n}:\n{table}");
        let table = success_json(&["table", &n, &n, "--json"]);
        assert_eq!(table["rows"][0]["last18"], want, "table {n} {n} --json");
    }
    let human = success(&["count", "10", "--mod", "9223372036854775783", "--double-check"]);
    let lines: Vec<&str> = human.lines().skip(1).collect();
    let column = |l: &str, at: usize| {
        l.char_indices().filter(|&(i, c)| c != ' ' && (i == 0 || l.as_bytes()[i - 1] == b' ')).nth(at).map(|(i, _)| i)
    };
    let label = "mod 9223372036854775783".len() + 1;
    assert!(lines.iter().all(|l| column(l, 1).is_some()), "{human}");
    for l in &lines {
        let words = l.split(' ').filter(|w| !w.is_empty()).count();
        // the second column starts after the longest label, whatever the label's words
        assert_eq!(&l[label - 1..label], " ", "{human}");
        assert_ne!(&l[label..label + 1], " ", "{l:?} in\n{human}");
        assert!(words >= 2);
    }
    let verdicts: Vec<usize> = lines.iter().filter_map(|l| l.find("agrees with")).collect();
    assert_eq!(verdicts.len(), 4, "three projections and the parity: {human}");
    assert!(verdicts.windows(2).all(|w| w[0] == w[1]), "the verdicts line up:\n{human}");
}

/// The same count on every simulated machine (its caches size the chunks of lanes, its cores the
/// default threads, its kernel sets the kernels), each run saying the threads it took: the
/// machine's cores by default.
#[test]
fn the_same_count_on_every_simulated_machine() {
    let want = success(&["count", "5000", "-q"]);
    for machine in SIMULATED {
        on_machine(machine, || {
            assert_eq!(success(&["count", "5000", "-q"]), want);
            assert_eq!(success(&["count", "5000", "-q", "--threads", "3"]), want);
            let json = success_json(&["count", "300", "--json"]);
            let cores: u64 = machine.split(',').find_map(|kv| kv.strip_prefix("cores=")).unwrap().parse().unwrap();
            assert_eq!(json["threads"], cores, "{json}");
        });
    }
}
