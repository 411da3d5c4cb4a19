//! `fibtree grundy` and `fibtree brute`.

use crate::common::*;

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
