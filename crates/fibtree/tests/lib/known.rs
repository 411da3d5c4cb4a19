//! The recorded values in `data/`: `known.csv` (f(1..=200)) against the explicit tree and the
//! modular engine, and `f100000.txt` / `f100000.csv` (its digits, size, last 18 digits, residue mod
//! 998244353 and SHA-256), made and checked as `data/README.md` says. The digits of f(100000) are
//! checked against the CSV and against the modular engine, which needs no big integers; the exact
//! run itself takes minutes and is not repeated (`fibtree count 100000 -q` reproduces it).

use fibtree::count_mod;
use fibtree_oracles::explicit_tree_counts;
use num_bigint::BigUint;
use num_traits::ToPrimitive;

use crate::common::*;

// ---------------------------------------------------------------------------------------------
// data/known.csv.
// ---------------------------------------------------------------------------------------------

/// The rows of `data/known.csv` as (k, f, source), after checking the header.
fn known_rows() -> Vec<(u64, BigUint, String)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/known.csv");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("k,f,source"), "header of {path}");
    lines
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            assert_eq!(fields.len(), 3, "row {line:?}");
            let k: u64 = fields[0].parse().unwrap_or_else(|e| panic!("k in {line:?}: {e}"));
            assert!(fields[1].bytes().all(|b| b.is_ascii_digit()) && !fields[1].is_empty(), "f in {line:?}");
            let f: BigUint = fields[1].parse().unwrap();
            (k, f, fields[2].to_string())
        })
        .collect()
}

#[test]
fn known_csv_covers_1_to_200() {
    let rows = known_rows();
    let ks: Vec<u64> = rows.iter().map(|r| r.0).collect();
    assert_eq!(ks, (1..=200).collect::<Vec<_>>());
    for (k, _, source) in &rows {
        assert_eq!(source, &format!("fibtree count {k} --quiet"), "source of k = {k}");
    }
}

#[test]
fn known_csv_matches_oracle_and_modular_engine() {
    let rows = known_rows();
    assert!(!rows.is_empty());
    for (k, f, _) in &rows {
        if *k <= 25 {
            let oracle = explicit_tree_counts(*k as u32).unwrap();
            assert_eq!(f, &oracle_at(&oracle, 0), "f({k}) against the explicit tree");
        }
        for m in [P998244353, LAST18, MERSENNE61] {
            assert_eq!(count_mod(*k, 0, m).unwrap(), residue(f, m), "f({k}) mod {m}");
        }
        // No count exceeds the number of moves.
        assert!(f <= &moves(*k), "f({k}) is at most |T({k})| - 1");
    }
}

const N: u64 = 100_000;

fn digits() -> String {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/f100000.txt")).unwrap();
    let digits = text.trim_end().to_string();
    assert!(digits.bytes().all(|b| b.is_ascii_digit()) && !digits.starts_with('0'), "a plain decimal number");
    digits
}

/// The CSV's one record as (column, value) pairs.
fn record() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/f100000.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let values: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(lines.next(), None, "one record");
    header.into_iter().zip(values).map(|(h, v)| (h.to_string(), v.to_string())).collect()
}

fn field(record: &[(String, String)], name: &str) -> String {
    record.iter().find(|(h, _)| h == name).unwrap_or_else(|| panic!("no column {name}")).1.clone()
}

#[test]
fn the_digits_agree_with_the_csv_and_with_the_modular_engine() {
    let digits = digits();
    let record = record();
    assert_eq!(field(&record, "n"), N.to_string());
    assert_eq!(field(&record, "digits"), digits.len().to_string());
    assert_eq!(field(&record, "last18"), digits[digits.len() - 18..]);
    let value: BigUint = digits.parse().unwrap();
    // f(n) < |T(n)|: a count of moves of T(n)
    assert!(value < fibtree::tree_size(N));
    let p = 998_244_353u64;
    assert_eq!(field(&record, "mod_998244353"), (&value % p).to_string());
    // the modular engine alone: mod 10^18, 998244353 and 2^61 - 1
    let options = fibtree::Options { moduli: vec![(1 << 61) - 1], ..Default::default() };
    let independent = fibtree::mod_only(&[(N, 0)], &options).unwrap().remove(0);
    assert_eq!(independent.residues.len(), 3);
    for (m, independent) in independent.residues {
        assert_eq!((&value % m).to_u64().unwrap(), independent, "f({N}) mod {m}");
    }
}
