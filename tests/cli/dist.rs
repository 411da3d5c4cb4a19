//! `fibtree dist` (the whole distribution c(n, .)): against the explicit-tree oracle, the sum
//! invariant, the modular engine and `count`, and its JSON form.

use fibtree_oracles::explicit_tree_counts;
use num_bigint::BigUint;
use serde_json::Value;

use crate::common::*;

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
    fibtree::distribution(n).unwrap_or_else(|e| panic!("dist {n}: {e}"))
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
    // the summary on stderr: one digit, singular
    let (_, err) = success_with_stderr(&["dist", "1"]);
    assert!(err.contains("(1 digit)"), "{err}");
    let (_, err) = success_with_stderr(&["dist", "10"]);
    assert!(err.contains("(3 digits)"), "{err}");
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
    let modular = fibtree::dist::distribution_mod(200, 1_000_003, &fibtree::Options::default()).unwrap();
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
