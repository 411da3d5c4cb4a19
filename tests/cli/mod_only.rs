//! `fibtree count N --mod-only`: the residues by the modular engine alone, in the three forms of
//! `count` (human, `-q`, `--json`), and their agreement with `count`.

use serde_json::Value;

use crate::common::*;

/// The `(modulus, residue)` pairs of a `--mod-only --json` object, as strings.
fn residues(json: &Value) -> Vec<(String, String)> {
    let list = json["residues"].as_array().unwrap_or_else(|| panic!("residues is a list: {json}"));
    list.iter().map(|r| (r["modulus"].as_str().unwrap().into(), r["residue"].as_str().unwrap().into())).collect()
}

#[test]
fn public_values_at_10000() {
    // docs/math.md: f(10000) mod 10^18 = 438505383468410633, mod 998244353 = 163314502.
    assert_eq!(success(&["count", "10000", "--mod-only", "-q"]), "438505383468410633\n163314502\n");
    let json = success_json(&["count", "10000", "--mod-only", "--json"]);
    assert_eq!(
        residues(&json),
        [("1000000000000000000".into(), "438505383468410633".into()), ("998244353".into(), "163314502".into())]
    );
    assert_eq!(json["last18"], "438505383468410633");
    assert_eq!(json["mod_998244353"], "163314502");
}

#[test]
fn agrees_with_count() {
    let cases: &[(&str, &str, &[&str])] = &[
        ("0", "0", &[]),
        ("1", "0", &["7"]),
        ("2", "0", &[]),
        ("3", "2", &["2"]),
        ("10", "0", &["1000000007", "7"]),
        ("30", "5", &["1000000007"]),
        ("100", "3", &["1e9", "2^62", "3"]),
        ("777", "0", &["9223372036854775783", "2147483647", "2147483648"]),
        ("2000", "0", &["2"]),
        ("1500", "9", &["65537"]),
        ("40", "1099511627776", &["11"]), // g = 2^40: the generic engine
    ];
    for (n, g, moduli) in cases {
        let mut args = vec!["count", n, "--g", g, "--json"];
        for m in *moduli {
            args.extend(["--mod", m]);
        }
        let exact = success_json(&args);
        let want: Vec<(String, String)> = exact["projections"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p["modulus"].as_str().unwrap().into(), p["residue"].as_str().unwrap().into()))
            .collect();
        args.push("--mod-only");
        let json = success_json(&args);
        assert_eq!(residues(&json), want, "{args:?}");
        // the same number; --mod-only, which does not know the value's length, does not pad it
        let number = |j: &Value| j["last18"].as_str().unwrap().parse::<u64>().unwrap();
        assert_eq!(number(&json), number(&exact), "{args:?}");
        assert_eq!(json["mod_998244353"], exact["mod_998244353"], "{args:?}");
        args.retain(|a| *a != "--json");
        args.push("-q");
        let quiet = success(&args);
        let lines: Vec<&str> = quiet.lines().collect();
        assert_eq!(lines, want.iter().map(|w| w.1.as_str()).collect::<Vec<_>>(), "{args:?}");
    }
}

#[test]
fn quiet_prints_one_residue_a_line_repeats_removed() {
    let args = ["count", "10", "--mod-only", "-q", "--mod", "7", "--mod", "10^18", "--mod", "7", "--mod", "5"];
    assert_eq!(success(&args), "17\n17\n3\n2\n");
    assert_eq!(success(&["count", "10", "--mod-only", "--quiet"]), "17\n17\n");
}

#[test]
fn json_shape() {
    let json =
        success_json(&["count", "30", "--g", "5", "--mod-only", "--json", "--mod", "1000000007", "--threads", "1"]);
    assert_eq!(json["n"], 30);
    assert_eq!(json["g"], 5);
    assert!(json["n"].is_u64() && json["g"].is_u64());
    assert_eq!(json["mod_only"], true);
    assert_eq!(json["threads"], 1);
    assert!(json["seconds"].as_f64().is_some_and(|s| s >= 0.0), "{json}");
    assert!(json["memory_estimate_bytes"].as_u64().is_some_and(|b| b > 0), "{json}");
    for absent in ["value", "digits", "projections", "ok"] {
        assert!(json.get(absent).is_none(), "no exact value, nothing checked: {absent} in {json}");
    }
    for r in json["residues"].as_array().unwrap() {
        assert_eq!(r.as_object().unwrap().len(), 2, "{r}");
        assert!(r["modulus"].is_string() && r["residue"].is_string(), "decimal strings: {r}");
    }
    let moduli: Vec<String> = residues(&json).into_iter().map(|r| r.0).collect();
    assert_eq!(moduli, ["1000000000000000000", "998244353", "1000000007"]);
}

#[test]
fn human_output() {
    let out = success(&["count", "30", "--g", "5", "--mod-only", "--mod", "1000000007"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert!(lines[0].starts_with("c(30, 5): the first moves of T(30) that leave Grundy value 5"), "{out}");
    assert!(lines[0].contains("residues only"), "says that only residues were computed: {out}");
    assert_eq!(
        lines[1..],
        ["c(30, 5) mod 1000000000000000000 = 9755", "c(30, 5) mod 998244353 = 9755", "c(30, 5) mod 1000000007 = 9755"]
    );
    let out = success(&["count", "10000", "--mod-only"]);
    assert!(out.starts_with("c(10000, 0) = f(10000): the winning first moves of T(10000)"), "{out}");
    assert!(out.contains("c(10000, 0) mod 998244353 = 163314502\n"), "{out}");
    assert!(out.lines().all(|l| !l.starts_with("value") && !l.starts_with("digits")), "{out}");
    assert!(!out.contains("agrees"), "nothing is cross-checked: {out}");
}

#[test]
fn output_file_and_verbose() {
    let dir = TempDir::new("modonly");
    let file = dir.join("r.txt");
    let (out, err) = success_with_stderr(&["count", "500", "--mod-only", "-q", "-o", &file, "--verbose"]);
    assert_eq!(out, "");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), success(&["count", "500", "--mod-only", "-q"]));
    assert!(err.contains("memory estimate"), "--verbose prints the estimate: {err:?}");
    assert!(err.lines().any(|l| l.starts_with("kernel ") && l.contains("this CPU has: baseline")), "{err:?}");
}
