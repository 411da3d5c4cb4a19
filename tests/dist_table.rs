//! Integration tests of `fibtree dist` (the whole distribution c(n, .)) and `fibtree table` (f(k) for
//! a range of k): against the explicit-tree oracle, the sum invariant, the modular engine, `count`,
//! `data/known.csv`, and their JSON forms and usage errors.

use fibtree::oracles::explicit_tree_counts;
use num_bigint::BigUint;
use serde_json::Value;

mod common;
use common::*;

/// The explicit-tree oracle's non-zero c(k, g), as `(g, count)` ascending.
fn oracle(k: u32) -> Vec<(u64, BigUint)> {
    explicit_tree_counts(k)
        .unwrap()
        .into_iter()
        .enumerate()
        .filter(|&(_, c)| c > 0)
        .map(|(g, c)| (g as u64, BigUint::from(c)))
        .collect()
}

/// The library's exact distribution.
fn library_dist(n: u64) -> Vec<(u64, BigUint)> {
    fibtree::distribution_with(n, &fibtree::Options { memory_limit: Some(u64::MAX), ..Default::default() })
        .unwrap_or_else(|e| panic!("dist {n}: {e}"))
}

/// Parses the CSV that `dist` prints, whose header is `header` (`g,count`, or `g,residue` with
/// `--mod`).
fn parse_dist_csv(out: &str, header: &str) -> Vec<(u64, BigUint)> {
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some(header), "the header: {out}");
    lines
        .map(|line| {
            let (g, c) = line.split_once(',').unwrap_or_else(|| panic!("a row g,count: {line:?}"));
            (g.parse().unwrap(), c.parse().unwrap())
        })
        .collect()
}

/// Runs `fibtree dist args` successfully and returns its rows and its stderr.
fn binary_dist(args: &[&str]) -> (Vec<(u64, BigUint)>, String) {
    let args: Vec<&str> = std::iter::once("dist").chain(args.iter().copied()).collect();
    let (out, err) = success_with_stderr(&args);
    let header = if args.contains(&"--mod") { "g,residue" } else { "g,count" };
    (parse_dist_csv(&out, header), err)
}

// ---------------------------------------------------------------------------------------------
// dist
// ---------------------------------------------------------------------------------------------

#[test]
fn dist_library_matches_explicit_tree_up_to_25() {
    for n in 0..=25u32 {
        assert_eq!(library_dist(n as u64), oracle(n), "dist {n}");
    }
}

#[test]
fn dist_binary_matches_explicit_tree() {
    for n in [0u32, 1, 2, 3, 7, 10, 18, 25] {
        let (rows, err) = binary_dist(&[&n.to_string()]);
        assert_eq!(rows, oracle(n), "dist {n}");
        assert!(err.ends_with("OK\n") && err.lines().count() == 1, "dist {n}: stderr {err:?}");
        assert!(err.starts_with(&format!("{} g with c({n}, g) > 0;", rows.len())), "dist {n}: stderr {err:?}");
    }
    // T(10): the whole distribution, as the CSV reads
    let out = success(&["dist", "10"]);
    assert_eq!(
        out,
        "g,count\n0,17\n1,7\n2,11\n3,7\n4,5\n5,15\n6,1\n7,11\n8,1\n9,11\n10,13\n11,11\n12,13\n13,3\n15,6\n18,6\n26,4\n"
    );
    // no moves in T(0) and T(1): the header only
    assert_eq!(success(&["dist", "0"]), "g,count\n");
    assert_eq!(success(&["dist", "1"]), "g,count\n");
}

#[test]
fn dist_sum_is_the_number_of_moves() {
    for n in [26u64, 64, 300, 1000] {
        let rows = library_dist(n);
        assert!(rows.windows(2).all(|w| w[0].0 < w[1].0), "dist {n}: ascending g");
        assert!(rows.iter().all(|r| r.1 > BigUint::ZERO), "dist {n}: non-zero counts only");
        let sum: BigUint = rows.iter().map(|r| &r.1).sum();
        assert_eq!(sum, fibtree::tree_size(n) - 1u32, "dist {n}");
    }
}

#[test]
fn dist_2000_via_the_binary() {
    let (rows, err) = binary_dist(&["2000"]);
    assert_eq!(rows.len(), 13084, "the support of c(2000, .)");
    assert_eq!(rows.last().unwrap().0, 22526, "the largest g");
    assert!(rows.windows(2).all(|w| w[0].0 < w[1].0), "ascending g");
    assert!(rows.iter().all(|r| r.1 > BigUint::ZERO), "non-zero counts only");
    let sum: BigUint = rows.iter().map(|r| &r.1).sum();
    assert_eq!(sum, moves(2000));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("13084 g with c(2000, g) > 0;"), "{err}");
    assert!(err.trim_end().ends_with(": OK"), "{err}");
    // f(2000) is the same in dist and count
    let f2000 = success(&["count", "2000", "-q"]);
    assert_eq!(rows[0], (0, f2000.trim_end().parse().unwrap()));
}

#[test]
fn dist_modular_is_the_exact_reduced() {
    let moduli: [(&str, u64); 5] = [
        ("7", 7),
        ("1000000007", 1_000_000_007),
        ("2^62", 1 << 62),
        ("1e18", LAST18),
        ("9223372036854775807", (1 << 63) - 1),
    ];
    for n in [10u64, 25, 200] {
        let exact = library_dist(n);
        for (form, m) in moduli {
            let (rows, err) = binary_dist(&[&n.to_string(), "--mod", form]);
            let want: Vec<(u64, BigUint)> = exact.iter().map(|(g, c)| (*g, BigUint::from(residue(c, m)))).collect();
            assert_eq!(rows, want, "dist {n} --mod {form}");
            assert!(err.trim_end().ends_with("OK"), "dist {n} --mod {form}: {err}");
            assert!(err.contains(&format!("mod {m}")), "dist {n} --mod {form}: {err}");
        }
    }
    // the library's modular distribution too
    let modular = fibtree::distribution_mod(200, 1_000_003, &fibtree::Options::default()).unwrap();
    let exact = library_dist(200);
    assert_eq!(modular.len(), exact.len());
    for ((g, r), (h, c)) in modular.iter().zip(&exact) {
        assert_eq!((g, *r), (h, residue(c, 1_000_003)));
    }
}

#[test]
fn dist_json() {
    let args = ["dist", "10", "--json"];
    let (out, err) = success_with_stderr(&args);
    assert_eq!(err, "", "no summary on stderr with --json");
    let json = json_line(&args, &out);
    assert_eq!(json["n"], 10);
    assert_eq!(json["modulus"], Value::Null);
    assert_eq!(json["support"], 17);
    assert_eq!(json["sum"], "142");
    assert_eq!(json["moves"], "142");
    assert_eq!(json["sum_ok"], true);
    let entries: Vec<(u64, BigUint)> = json["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["g"].as_u64().unwrap(), e["count"].as_str().unwrap().parse().unwrap()))
        .collect();
    assert_eq!(entries, oracle(10));

    let args = ["dist", "300", "--mod", "7", "--json"];
    let json = json_line(&args, &success(&args));
    let exact = library_dist(300);
    assert_eq!(json["modulus"], "7");
    assert_eq!(json["support"], exact.len());
    assert_eq!(json["sum"], residue(&moves(300), 7).to_string());
    assert_eq!(json["moves"], residue(&moves(300), 7).to_string());
    assert_eq!(json["sum_ok"], true);
    let entries = json["entries"].as_array().unwrap();
    assert_eq!(entries.len(), exact.len());
    for (e, (g, c)) in entries.iter().zip(&exact) {
        assert_eq!(e["g"], *g, "{e}");
        assert_eq!(e["count"], residue(c, 7).to_string(), "{e}");
    }

    let args = ["dist", "0", "--json"];
    let json = json_line(&args, &success(&args));
    assert_eq!(json["entries"], Value::Array(vec![]));
    assert_eq!(json["support"], 0);
    assert_eq!(json["sum_ok"], true);
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

// ---------------------------------------------------------------------------------------------
// table
// ---------------------------------------------------------------------------------------------

/// One row of `table`.
#[derive(Debug, PartialEq, Eq)]
struct Row {
    k: u64,
    digits: usize,
    last18: u64,
    p: u64,
    value: BigUint,
}

impl Row {
    /// The row `table` should print for f(k) = `value`.
    fn of(k: u64, value: BigUint) -> Row {
        Row {
            k,
            digits: value.to_string().len(),
            last18: residue(&value, LAST18),
            p: residue(&value, P998244353),
            value,
        }
    }
}

const TABLE_HEADER: &str = "k,digits,last18,mod_998244353,value";

/// Parses the CSV that `table` prints.
fn parse_table_csv(out: &str) -> Vec<Row> {
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some(TABLE_HEADER), "the header: {out}");
    lines
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            assert_eq!(f.len(), 5, "five fields: {line:?}");
            Row {
                k: f[0].parse().unwrap(),
                digits: f[1].parse().unwrap(),
                last18: f[2].parse().unwrap(),
                p: f[3].parse().unwrap(),
                value: f[4].parse().unwrap(),
            }
        })
        .collect()
}

#[test]
fn table_rows_equal_count() {
    let (out, err) = success_with_stderr(&["table", "1", "300"]);
    assert_eq!(err, "");
    let rows = parse_table_csv(&out);
    assert_eq!(rows.iter().map(|r| r.k).collect::<Vec<_>>(), (1..=300).collect::<Vec<_>>());
    // every row is consistent with its own value
    for row in &rows {
        assert_eq!(*row, Row::of(row.k, row.value.clone()), "k = {}", row.k);
    }
    // and equals what `count k -q` prints, for a sample of k
    for k in [1u64, 2, 7, 10, 99, 300] {
        let value = success(&["count", &k.to_string(), "-q"]);
        let value: BigUint = value.trim_end().parse().unwrap();
        assert_eq!(rows[k as usize - 1], Row::of(k, value), "table row k = {k}");
    }
    assert_eq!(rows[9].value, BigUint::from(17u32), "f(10) = 17");
    assert_eq!(rows[6].value, BigUint::ZERO, "f(7) = 0");
}

#[test]
fn table_matches_known_csv() {
    // data/known.csv: f(1..200), written by `fibtree count` and cross-checked by tests/engines.rs
    let known = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/known.csv")).unwrap();
    let known: Vec<(u64, BigUint)> = known
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].parse().unwrap(), f[1].parse().unwrap())
        })
        .collect();
    assert_eq!(known.len(), 200);
    let rows = parse_table_csv(&success(&["table", "1", "200"]));
    assert_eq!(rows.len(), 200);
    for (row, (k, f)) in rows.iter().zip(known) {
        assert_eq!((row.k, &row.value), (k, &f));
    }
    // a range not starting at 1 gives the same rows
    let middle = parse_table_csv(&success(&["table", "150", "160"]));
    assert_eq!(middle, rows.into_iter().skip(149).take(11).collect::<Vec<_>>());
}

#[test]
fn table_single_row_and_from_zero() {
    assert_eq!(
        success_with_stderr(&["table", "10", "10"]),
        (format!("{TABLE_HEADER}\n10,2,17,17,17\n"), String::new())
    );
    assert_eq!(success(&["table", "0", "3"]), format!("{TABLE_HEADER}\n0,1,0,0,0\n1,1,0,0,0\n2,1,1,1,1\n3,1,1,1,1\n"));
    assert_eq!(success(&["table", "0", "0"]), format!("{TABLE_HEADER}\n0,1,0,0,0\n"));
    // f(10000) as a single row: the public projections
    let rows = parse_table_csv(&success(&["table", "10000", "10000"]));
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].k, 10000);
    assert_eq!(rows[0].digits, 2087);
    assert_eq!(rows[0].last18, 438_505_383_468_410_633);
    assert_eq!(rows[0].p, 163_314_502);
}

#[test]
fn table_json() {
    let args = ["table", "0", "3", "--json"];
    let (out, err) = success_with_stderr(&args);
    assert_eq!(err, "");
    let json = json_line(&args, &out);
    assert_eq!(json["from"], 0);
    assert_eq!(json["to"], 3);
    assert_eq!(json["ok"], true);
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[0]["k"], 0);
    assert_eq!(rows[0]["value"], "0");
    assert_eq!(rows[0]["digits"], 1);
    assert_eq!(rows[2]["value"], "1");

    // the JSON rows carry the same values as the CSV rows
    let args = ["table", "1", "120", "--json"];
    let json = json_line(&args, &success(&args));
    let csv = parse_table_csv(&success(&["table", "1", "120"]));
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), csv.len());
    for (j, row) in rows.iter().zip(&csv) {
        assert_eq!(j.as_object().unwrap().len(), 6, "k, digits, last18, mod_998244353, value, ok: {j}");
        assert_eq!(j["k"], row.k);
        assert_eq!(j["digits"], row.digits);
        assert_eq!(j["last18"], row.last18.to_string());
        assert_eq!(j["mod_998244353"], row.p.to_string());
        assert_eq!(j["value"], row.value.to_string());
        assert_eq!(j["ok"], true);
    }
    assert_eq!(json["ok"], true);
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
    match available_memory() {
        Some(bytes) if bytes < 80 << 30 => {
            // a single row, f(2^31 - 1), whose plan alone is far beyond this machine's memory
            usage_error(&["table", "2147483647", "2147483647"], "memory");
            usage_error(&["table", "2147483647", "2147483647", "--json"], "memory");
        }
        other => println!("skipped: MemAvailable = {other:?} bytes is too large for this check"),
    }
}
