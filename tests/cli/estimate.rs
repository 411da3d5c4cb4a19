//! `fibtree estimate`: the plan's states counted (checked against the known count of f(10000)),
//! bounded where counting would take long, the primes and shards as `shard` cuts them, every
//! form of the output, and times that repeat from one run to the next.

use serde_json::Value;

use crate::common::*;

/// A number of the JSON, which carries big counts as strings.
fn number(v: &Value) -> f64 {
    v.as_str().map_or_else(|| v.as_f64().unwrap(), |s| s.parse().unwrap())
}

#[test]
fn the_states_of_f10000_are_counted_and_the_shards_cut_as_shard_cuts_them() {
    let e = success_json(&["estimate", "10000", "--shards", "1", "--shards", "7", "--json"]);
    // docs/math.md: (10000, 0) reaches 16.7 million states, at most 2048 a layer, of which 10.4 million
    // count more than zero ("Zero states"); `fibtree bench` prints the plan's exact count, 10449460,
    // and its 620736444 limb additions
    assert_eq!(e["plan"]["states"], "10449460");
    assert_eq!(e["plan"]["counted"], true);
    assert_eq!(e["plan"]["widest_layer"], 2048);
    assert_eq!(e["exact"]["bottom_up_limb_additions"], "620736444");
    // from both ends, at the cut with the least of them (the library's cost model)
    assert_eq!(e["exact"]["limb_additions"], "373415634");
    assert_eq!(e["exact"]["cut"], 5026);
    // f(10000) has 2087 digits (docs/math.md), below |T(10000)|
    let digits = e["digits_at_most"].as_u64().unwrap();
    assert!((2087..=2092).contains(&digits), "{digits}");
    assert_eq!((e["n"].as_u64(), e["g"].as_u64()), (Some(10000), Some(0)));
    let primes = e["primes"].as_u64().unwrap();
    let shards = e["shards"].as_array().unwrap();
    assert_eq!(shards.len(), 2);
    assert_eq!(shards[0]["primes_per_shard"].as_u64(), Some(primes));
    assert_eq!(shards[1]["primes_per_shard"].as_u64(), Some(primes.div_ceil(7)));
    // the shard files hold as many primes as the estimate says
    let dir = TempDir::new("estimate");
    let file = dir.join("1.json");
    success(&["shard", "10000", "--shard", "1/7", "-o", &file]);
    let shard: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(shard["primes"].as_array().unwrap().len() as u64, primes.div_ceil(7));
    for field in [
        &e["exact"]["seconds"],
        &e["exact"]["cpu_seconds"],
        &e["residues"]["prime_cpu_seconds"],
        &e["combine"]["seconds"],
    ] {
        assert!(number(field) > 0.0, "{e}");
    }
    assert!(number(&e["exact"]["memory_bytes"]) > number(&e["plan"]["bytes"]));
    assert_eq!(e["exact"]["fits_here"], true, "f(10000) takes about 25 MB");
}

#[test]
fn a_large_n_is_bounded_quickly_and_says_so() {
    let e = success_json(&["estimate", "1000000", "--shards", "1024", "--json"]);
    assert_eq!(e["plan"]["counted"], false);
    // every state of the plan is a g of one class modulo 4 below W = 2^20 (at most)
    assert!(number(&e["plan"]["states"]) <= 1e6 * (1 << 18) as f64, "{e}");
    assert_eq!(e["primes"].as_u64(), Some(11384));
    assert_eq!(e["shards"][0]["primes_per_shard"].as_u64(), Some(11384u64.div_ceil(1024)));
    let human = success(&["estimate", "1000000", "--shards", "64"]);
    assert!(human.contains("an upper bound: --census counts them"), "{human}");
    // about 200 GiB: more than a test machine has
    assert!(human.contains("more than this machine has: count would refuse"), "{human}");
    assert!(human.contains("c(1000000, 0), predicted for this machine"), "{human}");
}

#[test]
fn an_n_beyond_the_dense_windows_is_bounded_by_w_a_layer() {
    // at n = 10^8 the edge values reach 2^25 or more: the dense arrays of W / 4 residues would pass
    // the engine's limit, and every state of f(n) is below W
    let e = success_json(&["estimate", "100000000", "--shards", "1", "--json"]);
    assert_eq!(e["plan"]["counted"], false);
    let widest = e["plan"]["widest_layer"].as_u64().unwrap();
    assert!(widest.is_power_of_two() && widest >= 1 << 25, "{e}");
    assert_eq!(number(&e["plan"]["states"]), (1e8 - 1.0) * widest as f64);
    assert_eq!(e["exact"]["fits_here"], false);
}

#[test]
fn the_human_form_lists_the_default_shards() {
    let out = success(&["estimate", "3000", "--g", "2"]);
    assert!(out.starts_with("c(3000, 2), predicted for this machine"), "{out}");
    for line in [
        "  value     at most",
        "  plan      ",
        "  count     ",
        "  residues  ",
        "  combine   ",
        "calibrated on one thread",
    ] {
        assert!(out.contains(line), "{line:?} in {out}");
    }
    let rows: Vec<&str> = out.lines().filter(|l| l.starts_with("            ")).collect();
    let first: Vec<&str> = rows.iter().map(|l| l.split_whitespace().next().unwrap()).collect();
    assert_eq!(first, ["1", "64", "1024"], "{out}");
}

/// The most that repeated runs' figures of one time may differ by (the largest over the smallest),
/// as the README says.
const REPEATED_RUNS_AGREE: f64 = 1.15;

#[test]
fn repeated_runs_predict_the_same_times_each_within_its_range() {
    // the residues' sweep at f(20000)'s width, whose arrays stay in the cache; timed by CPU time,
    // back-to-back runs agree however many other programs share the cores. A whole calibration
    // can still fall in one of the machine's slow spells: the runs are made again, three times at
    // most, before the test fails.
    let args = ["estimate", "20000", "--shards", "4", "--json"];
    let mut spreads = Vec::new();
    for _ in 0..3 {
        let runs: Vec<Value> = (0..3).map(|_| success_json(&args)).collect();
        for e in &runs {
            // every time the same way: the figure (at the fastest runs) is the range's low end
            for (t, name) in [
                (&e["exact"], "seconds"),
                (&e["exact"], "cpu_seconds"),
                (&e["residues"], "prime_cpu_seconds"),
                (&e["combine"], "seconds"),
                (&e["shards"][0], "seconds"),
            ] {
                let (figure, low, high) =
                    (number(&t[name]), number(&t[format!("{name}_low")]), number(&t[format!("{name}_high")]));
                assert!(0.0 < low && low == figure && figure <= high, "{name} in {e}");
            }
            assert!(
                number(&e["calibration"]["residue_lanes_per_ns_low"])
                    <= number(&e["calibration"]["residue_lanes_per_ns"])
            );
        }
        let rates: Vec<f64> = runs.iter().map(|e| number(&e["calibration"]["residue_lanes_per_ns"])).collect();
        let spread = rates.iter().copied().fold(0.0, f64::max) / rates.iter().copied().fold(f64::INFINITY, f64::min);
        if spread <= REPEATED_RUNS_AGREE {
            return;
        }
        eprintln!("back-to-back sweep rates {rates:?} differ by {spread:.3}: a slow spell; the runs again");
        spreads.push((spread, rates));
    }
    panic!("three times, back-to-back runs' sweep rates differed by more than {REPEATED_RUNS_AGREE}: {spreads:?}");
}
