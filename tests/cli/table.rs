//! `fibtree table` (f(k) for a range of k): against `count`, `data/known.csv`, and its JSON form.

use num_bigint::BigUint;

use crate::common::*;

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
    // data/known.csv: f(1..200), written by `fibtree count` and cross-checked by crates/fibtree/tests/lib/known.rs
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
        // the value itself up to 18 digits, else exactly its last 18, zeros included
        let value = row.value.to_string();
        assert_eq!(j["last18"], value[value.len().saturating_sub(18)..], "{j}");
        assert_eq!(j["last18"].as_str().unwrap().parse::<u64>().unwrap(), row.last18);
        assert_eq!(j["mod_998244353"], row.p.to_string());
        assert_eq!(j["value"], row.value.to_string());
        assert_eq!(j["ok"], true);
    }
    assert_eq!(json["ok"], true);
}
