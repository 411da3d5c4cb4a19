//! `bench --compare OLD NEW`: two real files of `bench --json` side by side, the ratios as the files'
//! figures give them (in the JSON to the last bits a float read back may lose, in the table as
//! printed); the rows of one file only; the files it refuses and the options it refuses beside it.

use serde_json::Value;

use crate::common::*;

/// The rows of the comparison's table: n, threads, the two medians and their ratio, the two rates
/// and theirs.
fn compared_rows(out: &str) -> Vec<Vec<String>> {
    out.lines()
        .map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .filter(|f| f.len() == 8 && f[0].parse::<u64>().is_ok())
        .collect()
}

/// `bench args --runs 1 --json -o FILE` in `dir`, and the file's JSON.
fn bench_file(dir: &TempDir, name: &str, args: &[&str]) -> (String, Value) {
    let file = dir.join(name);
    let all = [&["bench"][..], args, &["--runs", "1", "--json", "--no-progress", "-o", &file]].concat();
    assert_eq!(success(&all), "");
    let json = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    (file, json)
}

/// `new / old`, as printed to `decimals` places, is within what the rounding of `new`, `old` (to
/// `decimals` places too) and of the ratio itself allows.
fn assert_ratio_printed(ratio: &str, new: &str, old: &str, decimals: i32) {
    let half = 0.5 * 10f64.powi(-decimals);
    let (ratio, new, old): (f64, f64, f64) = (ratio.parse().unwrap(), new.parse().unwrap(), old.parse().unwrap());
    let (low, high) = ((new - half).max(0.0) / (old + half), (new + half) / (old - half).max(1e-12));
    assert!(ratio >= low - 5e-4 && ratio <= high + 5e-4, "{ratio} not in {low}..{high} ({new} / {old})");
}

#[test]
fn two_runs_side_by_side() {
    let dir = TempDir::new("bench-compare");
    let args = ["--n", "300", "--threads", "1", "--threads", "2"];
    let (old, old_json) = bench_file(&dir, "old.json", &args);
    let (new, new_json) = bench_file(&dir, "new.json", &args);
    // the JSON: NEW/OLD of the files' own figures, exactly
    let json = success_json(&["bench", "--compare", &old, &new, "--json"]);
    for (side, file, bench) in [("old", &old, &old_json), ("new", &new, &new_json)] {
        let machine = &json[side];
        assert_eq!(machine["file"], file.as_str(), "{json}");
        assert_eq!(machine["kernel"], bench["kernel"], "{json}");
        for key in ["cpu", "cores", "simulated"] {
            assert_eq!(machine[key], bench["machine"][key], "{key}: {json}");
        }
    }
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{json}");
    for (row, (o, w)) in
        rows.iter().zip(old_json["results"].as_array().unwrap().iter().zip(new_json["results"].as_array().unwrap()))
    {
        assert_eq!((&row["n"], &row["threads"]), (&o["n"], &o["threads"]), "{row}");
        let f = |v: &Value, key: &str| v[key].as_f64().unwrap_or_else(|| panic!("{key} in {v}"));
        // equal but for the last bit or two of a float read back from JSON
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs();
        assert!(close(f(row, "old_median_seconds"), f(o, "median_seconds")), "{row}");
        assert!(close(f(row, "new_limb_additions_per_ns"), f(w, "limb_additions_per_ns")), "{row}");
        let rate = f(w, "limb_additions_per_ns") / f(o, "limb_additions_per_ns");
        assert!(close(f(row, "rate_ratio"), rate), "{row}: {rate}");
        let median = f(w, "median_seconds") / f(o, "median_seconds");
        assert!(close(f(row, "median_ratio"), median), "{row}: {median}");
        assert_eq!(row["same_work"], true, "the same plan in both: {row}");
        assert_eq!((&row["old_pinned"], &row["new_pinned"]), (&Value::Bool(false), &Value::Bool(false)));
    }
    assert_eq!(json["only_in_old"], serde_json::json!([]));
    assert_eq!(json["only_in_new"], serde_json::json!([]));
    // the table: each machine at the top, the ratios those of the figures as printed
    let out = success(&["bench", "--compare", &old, &new]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with(&format!("old      {old}: ")) && lines[1].starts_with(&format!("new      {new}: ")));
    let cpu = old_json["machine"]["cpu"].as_str().unwrap_or("unknown CPU");
    assert!(lines[0].contains(&format!("{cpu}, ")) && lines[0].contains(", kernel "), "{out}");
    let table = compared_rows(&out);
    assert_eq!(table.len(), 2, "{out}");
    for row in &table {
        assert_ratio_printed(&row[4], &row[3], &row[2], 6);
        assert_ratio_printed(&row[7], &row[6], &row[5], 3);
    }
    assert_eq!((table[0][0].as_str(), table[0][1].as_str(), table[1][1].as_str()), ("300", "1", "2"), "{out}");
    // rows of one file only, and another file's work at the same n
    let (other, _) = bench_file(&dir, "other.json", &["--n", "300", "--n", "200", "--threads", "2", "--bottom-up"]);
    let out = success(&["bench", "--compare", &old, &other]);
    assert_eq!(compared_rows(&out).len(), 1, "{out}");
    assert!(out.contains("\nonly in old: n=300 threads 1\nonly in new: n=200 threads 2\n"), "{out}");
    assert!(out.contains("different work at n=300: old "), "{out}");
    let json = success_json(&["bench", "--compare", &old, &other, "--json"]);
    assert_eq!(json["only_in_old"], serde_json::json!([{"n": 300, "threads": 1}]));
    assert_eq!(json["only_in_new"], serde_json::json!([{"n": 200, "threads": 2}]));
    assert_eq!(json["rows"][0]["same_work"], false, "{json}");
    // a file of an earlier release, without kernel, cut or pinned: compared, those taken as absent
    let mut earlier = new_json.clone();
    earlier.as_object_mut().unwrap().remove("kernel");
    for row in earlier["results"].as_array_mut().unwrap() {
        let row = row.as_object_mut().unwrap();
        row.remove("cut");
        row.remove("pinned");
    }
    let earlier = dir.file("earlier.json", earlier.to_string());
    let json = success_json(&["bench", "--compare", &old, &earlier, "--json"]);
    assert_eq!(json["new"]["kernel"], Value::Null, "{json}");
    assert_eq!(json["rows"].as_array().map(Vec::len), Some(2), "{json}");
    assert!(json["rows"].as_array().unwrap().iter().all(|r| r["new_pinned"] == false && r["same_work"] == true));
    assert!(success(&["bench", "--compare", &old, &earlier]).contains(", kernel not recorded\n"));
    // -o: the comparison into a file
    let written = dir.join("comparison.json");
    assert_eq!(success(&["bench", "--compare", &old, &new, "--json", "-o", &written]), "");
    let read: Value = serde_json::from_str(&std::fs::read_to_string(&written).unwrap()).unwrap();
    assert_eq!(read["rows"].as_array().map(Vec::len), Some(2));
}

#[test]
fn files_that_cannot_be_compared_are_refused_naming_them() {
    let dir = TempDir::new("bench-compare-bad");
    let (good, json) = bench_file(&dir, "good.json", &["--n", "200", "--threads", "1"]);
    let mut twice = json.clone();
    let row = twice["results"][0].clone();
    twice["results"].as_array_mut().unwrap().push(row);
    let mut negative = json.clone();
    negative["results"][0]["median_seconds"] = serde_json::json!(-1.0);
    // figures no bench measures: negative, too large to show, out of any range
    let changed = |field: &str, value: Value| {
        let mut file = json.clone();
        match field {
            "cores" => file["machine"]["cores"] = value,
            _ => file["results"][0][field] = value,
        }
        file.to_string()
    };
    let insane = [
        (changed("limb_additions", "-5".into()), "results[0]: limb_additions '-5': expected a whole number from 1"),
        (changed("limb_additions", "9".repeat(100_000).into()), "limb_additions '999"),
        (changed("limb_additions", "0".into()), "limb_additions '0': expected a whole number from 1"),
        (changed("median_seconds", serde_json::json!(1e300)), "median_seconds 1e300: expected a positive time of"),
        (changed("limb_additions_per_ns", serde_json::json!(-2.5)), "limb_additions_per_ns -2.5: expected a positive"),
        (changed("limb_additions_per_ns", serde_json::json!(1e-300)), "limb_additions_per_ns 1e-300: expected"),
        (changed("threads", serde_json::json!(100_000)), "threads 100000: expected n from 2 to"),
        (changed("n", serde_json::json!(1)), "n 1 and threads 1: expected n from 2 to"),
        (changed("cores", serde_json::json!(0)), "machine.cores 0: expected 1 to 2^20"),
    ];
    let insane: Vec<(String, &str)> =
        insane.iter().enumerate().map(|(i, (text, why))| (dir.file(&format!("insane{i}.json"), text), *why)).collect();
    let table = dir.join("table.txt");
    success(&["bench", "--n", "200", "--threads", "1", "--runs", "1", "--no-progress", "-o", &table]);
    let grundy = dir.join("grundy.json");
    success(&["grundy", "10", "--json", "-o", &grundy]);
    let cases = [
        (dir.join("missing.json"), "cannot be read"),
        (dir.join(""), "is a folder"),
        (table, "is not JSON"),
        (grundy, "is not a file of bench --json (missing field"),
        (dir.file("list.json", "[1, 2]"), "not an object"),
        (dir.file("twice.json", twice.to_string()), "results[1]: n=200 threads=1 is there twice"),
        (dir.file("negative.json", negative.to_string()), "results[0]: median_seconds -1: expected a positive time"),
        (dir.file("large.json", " ".repeat((16 << 20) + 1)), "is over 16.0 MiB"),
    ];
    for (file, why) in cases.iter().chain(&insane) {
        for args in [["bench", "--compare", good.as_str(), file.as_str()], ["bench", "--compare", file, &good]] {
            let err = usage_error(&args, "--compare");
            assert!(err.contains(&format!("'{file}'")) && err.contains(why), "{why}: {err}");
            assert!(err.len() < 400, "{err}");
        }
    }
    // the output may not be one of the files compared
    let err = usage_error(&["bench", "--compare", &good, &good, "-o", &good], "--output");
    assert!(err.contains("also the file of --compare"), "{err}");
    assert_eq!(json, serde_json::from_str::<Value>(&std::fs::read_to_string(&good).unwrap()).unwrap());
}

/// `--compare` runs nothing: the options of a run are refused beside it, and it takes two files.
#[test]
fn the_options_of_a_run_are_refused_with_compare() {
    let (a, b) = ("a.json", "b.json");
    for option in [
        &["--n", "300"][..],
        &["--threads", "2"],
        &["--runs", "3"],
        &["--max-memory", "1G"],
        &["--bottom-up"],
        &["--chunk-lanes", "4"],
        &["--tiles", "never"],
        &["--pin"],
        &["--svg", "x.svg"],
    ] {
        let args = [&["bench", "--compare", a, b][..], option].concat();
        let err = usage_error(&args, "--compare");
        assert!(err.contains("cannot be used with") && err.contains(option[0]), "{err}");
    }
    usage_error(&["bench", "--compare", a], "--compare");
    usage_error(&["bench", "--compare", a, b, "--compare", a, b], "--compare");
}
