//! The recorded f(100000): `data/f100000.txt` (its decimal digits) and `data/f100000.csv` (its
//! size, last 18 digits, residue mod 998244353 and SHA-256), made and checked as `data/README.md`
//! says. Here the digits are checked against the CSV and against the modular engine, which needs no
//! big integers (about two seconds at n = 100000); the exact run itself takes minutes and is not
//! repeated (`fibtree count 100000 -q` reproduces it).

use num_bigint::BigUint;
use num_traits::ToPrimitive;

const N: u64 = 100_000;

fn digits() -> String {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/f100000.txt")).unwrap();
    let digits = text.trim_end().to_string();
    assert!(digits.bytes().all(|b| b.is_ascii_digit()) && !digits.starts_with('0'), "a plain decimal number");
    digits
}

/// The CSV's one record as (column, value) pairs.
fn record() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/f100000.csv")).unwrap();
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
    let independent = fibtree::count_mod_report(N, 0, &options).unwrap();
    assert_eq!(independent.residues.len(), 3);
    for (m, independent) in independent.residues {
        assert_eq!((&value % m).to_u64().unwrap(), independent, "f({N}) mod {m}");
    }
}
