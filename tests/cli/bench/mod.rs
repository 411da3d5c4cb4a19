//! `fibtree bench`: the table and the JSON of the measurements, every run checked, a disagreement
//! loud (exit 1), Ctrl-C exit 130; the streaming rate in the header and the JSON, each row's
//! fraction of it computed from the two figures, a memory limit shrinking or skipping the memory
//! level. No timing is asserted. The tests of figures the machine decides (its caches, cores and
//! kernel sets) run on this machine and on every simulated one (`common::SIMULATED`). `--svg` and
//! `--pin` in [`scaling`], `--compare` in [`compare`].

use std::time::Duration;

use serde_json::Value;

use crate::common::*;

mod compare;
mod scaling;

/// The rows of the human table: the lines of 13 fields whose first is a number.
fn table_rows(out: &str) -> Vec<Vec<String>> {
    out.lines()
        .map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .filter(|f| f.len() == 13 && f[0].parse::<u64>().is_ok())
        .collect()
}

/// The columns of the human table: n, threads, then these.
const LIMB_ADDS: usize = 7;
const OF_STREAM: usize = 8;
const WORK: usize = 9;
const SPAN: usize = 10;

/// The header's stream line, the rate in L2 from it (`None`: skipped) and the lines under it
/// (notes, indented by 9 spaces).
fn stream_header(out: &str) -> (String, Option<f64>, Vec<String>) {
    let mut lines = out.lines().skip_while(|l| !l.starts_with("kernel   ")).skip(1);
    let line = lines.next().unwrap_or_default().to_string();
    assert!(line.starts_with("stream   L2 "), "the stream line after the kernel line:\n{out}");
    let notes = lines.take_while(|l| l.starts_with("         ")).map(str::to_string).collect();
    // `stream   L2 (1.0 MiB) 3.95 adds/ns, ...` or `stream   L2 skipped, ...`
    let l2 = line["stream   L2 ".len()..].split(',').next().unwrap();
    let rate = l2.strip_suffix(" adds/ns").map(|l2| l2.rsplit(' ').next().unwrap().parse::<f64>().unwrap());
    (line, rate, notes)
}

/// The fraction a row gives checked against its rate and the rate in L2, as printed: the rate per
/// core used (the smaller of `threads` and `cores`) over the rate in L2, each rounded as printed
/// (3 and 2 decimals) and the fraction to 3.
fn assert_fraction_printed(row: &[String], l2: f64, cores: usize) {
    let threads: usize = row[1].parse().unwrap();
    let used = threads.min(cores) as f64;
    let rate: f64 = row[LIMB_ADDS].parse().unwrap();
    let fraction: f64 = row[OF_STREAM].parse().unwrap_or_else(|_| panic!("a fraction in {row:?}"));
    let (low, high) = ((rate - 5e-4).max(0.0) / used / (l2 + 5e-3), (rate + 5e-4) / used / (l2 - 5e-3));
    assert!(fraction >= low - 5e-4 && fraction <= high + 5e-4, "{fraction} not in {low}..{high}: {row:?}, L2 {l2}");
}

/// The rows of the predicted speedups: n, threads, then 8 speedups (P = 1 to 128).
fn predicted_rows(out: &str) -> Vec<Vec<String>> {
    out.lines()
        .map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .filter(|f| f.len() == 10 && f[0].parse::<u64>().is_ok())
        .collect()
}

/// The graph figures of one JSON result row are consistent: work >= span > 0, parallelism = work /
/// span, the prediction on 1 worker is the work and the serial part, the speedups grow with P no
/// faster than P and never past the parallelism's bound.
fn assert_graph_consistent(r: &Value) {
    let f = |key: &str| r[key].as_f64().unwrap_or_else(|| panic!("{key} in {r}"));
    let (work, span, parallelism, serial) = (f("work_s"), f("span_s"), f("parallelism"), f("serial_s"));
    assert!(work >= span && span > 0.0 && serial >= 0.0, "{r}");
    assert!(r["tasks"].as_u64().is_some_and(|t| t >= 2), "{r}");
    assert!((parallelism - work / span).abs() <= 1e-9 * parallelism, "{r}");
    let predicted = r["predicted"].as_array().expect("predicted is a list");
    let threads: Vec<u64> = predicted.iter().map(|p| p["threads"].as_u64().unwrap()).collect();
    assert_eq!(threads, [1, 2, 4, 8, 16, 32, 64, 128], "{r}");
    let one = predicted[0]["seconds"].as_f64().unwrap();
    assert!((one - (work + serial)).abs() <= 1e-9 * one.max(1.0), "P=1 is work + serial: {r}");
    let mut last = 0.0;
    for p in predicted {
        let (workers, seconds, speedup) =
            (p["threads"].as_f64().unwrap(), p["seconds"].as_f64().unwrap(), p["speedup"].as_f64().unwrap());
        assert!((speedup - one / seconds).abs() <= 1e-9 * speedup, "{p}");
        assert!(speedup >= last - 1e-9, "speedups do not fall as workers grow: {r}");
        assert!(speedup <= workers + 1e-9, "no more than P: {p}");
        // greedy schedules take at least the span and the serial part
        assert!(seconds >= span + serial - 1e-9 && speedup <= (work + serial) / (span + serial) + 1e-9, "{p}");
        last = speedup;
    }
}

#[test]
fn table_has_a_row_for_each_n_and_thread_count() {
    on_every_machine(table_has_a_row_for_each_n_and_thread_count_here);
}

fn table_has_a_row_for_each_n_and_thread_count_here() {
    let args = ["bench", "--n", "300", "--n", "500", "--threads", "1", "--threads", "2", "--runs", "2"];
    let (out, err) = success_with_stderr(&args);
    let rows = table_rows(&out);
    assert_eq!(rows.len(), 4, "{out}");
    let keys: Vec<(&str, &str)> = rows.iter().map(|r| (r[0].as_str(), r[1].as_str())).collect();
    assert_eq!(keys, [("300", "1"), ("300", "2"), ("500", "1"), ("500", "2")], "{out}");
    for row in &rows {
        for field in &row[2..] {
            assert!(field.parse::<f64>().is_ok_and(|x| x >= 0.0), "{row:?}");
        }
        // work s >= span s > 0
        let (work, span): (f64, f64) = (row[WORK].parse().unwrap(), row[SPAN].parse().unwrap());
        assert!(work >= span && span > 0.0, "{row:?}");
        if row[1] == "1" {
            assert_eq!((row[5].as_str(), row[6].as_str()), ("1.00", "1.00"), "{row:?}");
        }
    }
    let predicted = predicted_rows(&out);
    assert_eq!(predicted.len(), 4, "{out}");
    assert!(predicted.iter().all(|p| p[2] == "1.00"), "a speedup of 1 on 1 worker: {out}");
    for needle in [
        "machine",
        "kernel   ",
        "this CPU has: baseline",
        "cores",
        "n=300",
        "n=500",
        "limb additions",
        "states",
        "pred. s",
        "P=128",
    ] {
        assert!(out.contains(needle), "{needle:?} in\n{out}");
    }
    // the stream line, in the header, before the plans; each row's fraction of its rate in L2
    let (line, l2, _) = stream_header(&out);
    assert!(line.contains(", L3 ") && line.contains(", memory "), "{line}");
    assert!(out.find(&line) < out.find("plan     n=300"), "{out}");
    let l2 = l2.expect("no limit here: the L2 level is measured");
    assert!(l2 > 0.0, "{line}");
    for row in &rows {
        assert_fraction_printed(row, l2, machine_cores());
    }
    // progress on stderr: the stream once, before the first timed run; two runs of each (n, T)
    assert_eq!(err.matches("stream: L2 ").count(), 1, "{err}");
    assert!(err.find("stream: ") < err.find("n=300 threads=1 run 1/2"), "{err}");
    assert!(err.contains("n=500 threads=2 run 2/2"), "{err}");
    let (_, quiet) = success_with_stderr(&["bench", "--n", "300", "--threads", "1", "--runs", "1", "--no-progress"]);
    assert_eq!(quiet, "", "--no-progress prints nothing on stderr");
}

#[test]
fn without_one_thread_no_speedup() {
    let out = success(&["bench", "--n", "200", "--threads", "2", "--runs", "1"]);
    let rows = table_rows(&out);
    assert_eq!(rows.len(), 1, "{out}");
    assert_eq!((rows[0][5].as_str(), rows[0][6].as_str()), ("-", "-"), "{out}");
    assert!(rows[0][OF_STREAM].parse::<f64>().is_ok(), "a fraction without a speedup: {out}");
    let json = success_json(&["bench", "--n", "200", "--threads", "2", "--runs", "1", "--json"]);
    assert_eq!(json["results"][0]["speedup"], Value::Null);
    assert_eq!(json["results"][0]["efficiency"], Value::Null);
}

#[test]
fn json_shape_and_limb_additions() {
    on_every_machine(json_shape_and_limb_additions_here);
}

fn json_shape_and_limb_additions_here() {
    let args = ["bench", "--n", "300", "--threads", "2", "--threads", "1", "--runs", "3", "--json", "--no-progress"];
    let json = success_json(&args);
    assert!(json["machine"]["cores"].as_u64().is_some_and(|c| c >= 1), "{json}");
    assert!(json["machine"].get("cpu").is_some(), "{json}");
    // the kernel set every run used, one of those this CPU has
    let kernels = json["machine"]["kernels"].as_array().unwrap_or_else(|| panic!("machine.kernels in {json}"));
    assert_eq!(kernels.first().and_then(Value::as_str), Some("baseline"), "{json}");
    assert!(json["kernel"].as_str().is_some_and(|k| kernels.iter().any(|have| have == k)), "{json}");
    let results = json["results"].as_array().expect("results is a list");
    assert_eq!(results.len(), 2, "{json}");
    // the plan's states and limb additions, as the estimate counts them
    let census = fibtree::estimate::CensusWhen::Always;
    let plan = fibtree::estimate::estimate(300, 0, &[], census, fibtree::Hooks::default()).unwrap();
    let w = plan.limb_additions.to_string();
    assert!(plan.limb_additions < plan.bottom_up_limb_additions, "{plan:?}: counted from both ends");
    for (r, threads) in results.iter().zip([1, 2]) {
        assert_eq!(r["n"], 300, "{r}");
        assert_eq!(r["threads"], threads, "ascending thread counts: {r}");
        let runs = r["runs"].as_array().expect("runs is a list");
        assert_eq!(runs.len(), 3, "{r}");
        assert!(runs.iter().all(|s| s.as_f64().is_some_and(|s| s >= 0.0)), "{r}");
        assert!(r["median_seconds"].as_f64().is_some(), "{r}");
        assert!(r["efficiency"].as_f64().is_some(), "{r}");
        assert!(r["limb_additions_per_ns"].as_f64().is_some(), "{r}");
        assert_eq!(r["limb_additions"], w.as_str(), "{r}");
        assert_eq!(r["cut"], plan.cut, "{r}");
        assert_eq!(r["states"], plan.states, "{r}");
        assert_eq!(r["checked"], true, "{r}");
        assert_graph_consistent(r);
    }
    assert_eq!(results[0]["speedup"].as_f64(), Some(1.0));
    assert_eq!(results[0]["efficiency"].as_f64(), Some(1.0));
    assert!(results[1]["speedup"].as_f64().is_some(), "{json}");
    let l2 = assert_stream_shape(&json);
    let cores = json["machine"]["cores"].as_u64().unwrap() as f64;
    for r in results {
        let used = (r["threads"].as_u64().unwrap() as f64).min(cores);
        let want = r["limb_additions_per_ns"].as_f64().unwrap() / used / l2.expect("L2 measured");
        let fraction = r["stream_fraction"].as_f64().unwrap_or_else(|| panic!("stream_fraction in {r}"));
        assert!((fraction - want).abs() <= 1e-12 * want.max(1.0), "{fraction} against {want}: {r}");
    }
}

/// The cores `fibtree bench` counts, from its JSON.
fn machine_cores() -> usize {
    let json = success_json(&["bench", "--n", "100", "--threads", "1", "--runs", "1", "--json", "--no-progress"]);
    json["machine"]["cores"].as_u64().unwrap() as usize
}

/// The JSON's `stream`: the caches, the kernel set of the runs, and each level's sizes as the caches
/// ask (half the L2; 4 x L2 at most half the L3; 4 x L3), its rate (positive) or, skipped, none
/// and a note. Returns the rate in L2.
fn assert_stream_shape(json: &Value) -> Option<f64> {
    let stream = &json["stream"];
    let caches = &stream["caches"];
    let (l2, l3) = (caches["l2_bytes"].as_u64().unwrap(), caches["l3_bytes"].as_u64().unwrap());
    assert!(l2 > 0 && l3 > 0 && caches["l2_reported"].is_boolean() && caches["l3_reported"].is_boolean(), "{stream}");
    assert_eq!(stream["kernel"], json["kernel"], "the loop compiled for the runs' kernel set: {stream}");
    for (level, wanted) in [("l2", l2 / 2), ("l3", (4 * l2).min(l3 / 2)), ("memory", 4 * l3)] {
        let at = &stream[level];
        assert_eq!(at["wanted_bytes"], wanted, "{level}: {stream}");
        let bytes = at["bytes"].as_u64().unwrap_or_else(|| panic!("{level}.bytes in {stream}"));
        match at["adds_per_ns"].as_f64() {
            Some(rate) => {
                assert!(rate > 0.0 && rate.is_finite(), "{level}: {stream}");
                // whole cache lines of three arrays: at most 191 bytes under the size asked, else a note
                assert!(bytes <= wanted && (wanted - bytes < 192 || at["note"].is_string()), "{level}: {stream}");
            }
            None => {
                assert_eq!(bytes, 0, "{level}: {stream}");
                assert!(at["note"].as_str().is_some_and(|n| n.starts_with("skipped: ")), "{level}: {stream}");
            }
        }
    }
    stream["l2"]["adds_per_ns"].as_f64()
}

#[test]
fn a_memory_limit_shrinks_or_skips_the_memory_level() {
    on_every_machine(a_memory_limit_shrinks_or_skips_the_memory_level_here);
}

fn a_memory_limit_shrinks_or_skips_the_memory_level_here() {
    let base = ["bench", "--n", "300", "--threads", "1", "--runs", "1", "--no-progress"];
    let json = success_json(&[&base[..], &["--json"]].concat());
    assert_stream_shape(&json);
    let l3 = json["stream"]["caches"]["l3_bytes"].as_u64().unwrap();
    // 2 x L3 leaves less than the least the memory level takes (2 x L3): skipped, said so, the
    // rest measured, the run done
    let limit = (2 * l3).to_string();
    let out = success(&[&base[..], &["--max-memory", &limit]].concat());
    let (line, l2, notes) = stream_header(&out);
    assert!(line.ends_with(", memory skipped"), "{out}");
    let note = notes.iter().find(|n| n.trim_start().starts_with("memory skipped: ")).unwrap_or_else(|| panic!("{out}"));
    assert!(note.contains(&format!("left of the {}", fibtree_util::human_bytes(2 * l3))), "{note}");
    let rows = table_rows(&out);
    assert_eq!(rows.len(), 1, "{out}");
    assert_fraction_printed(&rows[0], l2.expect("L2 measured"), machine_cores());
    let json = success_json(&[&base[..], &["--max-memory", &limit, "--json"]].concat());
    assert_stream_shape(&json);
    assert_eq!(json["stream"]["memory"]["adds_per_ns"], Value::Null, "{json}");
    // 4 x L3 less what the process holds: smaller than asked, or skipped where that is under 2 x L3
    let limit = (4 * l3).to_string();
    let json = success_json(&[&base[..], &["--max-memory", &limit, "--json"]].concat());
    assert_stream_shape(&json);
    let memory = &json["stream"]["memory"];
    let room = memory["bytes"].as_u64().unwrap();
    assert!(room < 4 * l3 - 191, "{json}");
    assert!(memory["note"].as_str().is_some_and(|n| n.contains("wanted")), "{json}");
    // a limit with no room for any level: what the process holds (the limit less the room the
    // memory level was measured in, whole cache lines of three arrays: up to 191 bytes less) and a
    // page less than half the L2, the least its level takes: every one skipped, no fraction, the run
    // done; or, where half the L2 is less than the timed run itself needs (a few hundred KiB at
    // n = 300: an L2 of 512 KiB), the run refused for its own needs
    let l2 = json["stream"]["caches"]["l2_bytes"].as_u64().unwrap();
    let held = 4 * l3 - room;
    let limit = (held + l2 / 2 - 4096).to_string();
    let args = [&base[..], &["--max-memory", &limit, "--json"]].concat();
    let output = fibtree(&args);
    if output.status.code() == Some(2) && l2 <= 512 << 10 {
        let err = check_usage_error(&args, &output, "--max-memory");
        assert!(err.contains("this run needs about"), "{err}");
        return;
    }
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let json = json_line(&args, &stdout(&output));
    assert_stream_shape(&json);
    assert_eq!(json["stream"]["l2"]["adds_per_ns"], Value::Null, "{json}");
    assert_eq!(json["results"][0]["stream_fraction"], Value::Null, "{json}");
    assert_eq!(json["results"][0]["checked"], true, "{json}");
    let out = success(&[&base[..], &["--max-memory", &limit]].concat());
    let (line, _, _) = stream_header(&out);
    assert_eq!(line, "stream   L2 skipped, L3 skipped, memory skipped", "{out}");
    assert_eq!(table_rows(&out)[0][OF_STREAM], "-", "{out}");
}

#[test]
fn many_threads_cut_a_finer_graph_with_the_same_value() {
    // 64 threads on whatever cores: the graph the engine cuts for 64, and every run checked
    // against the residues and against the 1-thread run's value
    for n in ["2000", "5000"] {
        let args = ["bench", "--n", n, "--threads", "1", "--threads", "64", "--runs", "1", "--json", "--no-progress"];
        let json = success_json(&args);
        let results = json["results"].as_array().expect("results is a list");
        assert_eq!(results.len(), 2, "{json}");
        results.iter().for_each(assert_graph_consistent);
        let tasks = |r: &Value| r["tasks"].as_u64().unwrap();
        assert!(tasks(&results[1]) > tasks(&results[0]), "finer chunks for 64 threads: {json}");
        let parallelism = |r: &Value| r["parallelism"].as_f64().unwrap();
        assert!(parallelism(&results[1]) > parallelism(&results[0]), "{json}");
    }
}

#[test]
fn output_file() {
    let dir = TempDir::new("bench");
    let file = dir.join("b.json");
    let out =
        success(&["bench", "--n", "100", "--threads", "1", "--runs", "1", "--json", "--no-progress", "-o", &file]);
    assert_eq!(out, "");
    let text = std::fs::read_to_string(&file).unwrap();
    let json: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["results"][0]["n"], 100);
    assert_eq!(dir.names(), ["b.json"]);
}

#[test]
fn a_disagreement_exits_1_naming_n_threads_and_modulus() {
    let args = ["bench", "--n", "300", "--threads", "2", "--runs", "1", "--test-perturb", "998244353"];
    let output = fibtree(&args);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(output.stdout.is_empty(), "no table after a failed check");
    assert!(err.contains("CROSS-CHECK FAILED for c(300, 0) mod 998244353 with 2 threads"), "{err}");
}

#[test]
fn sigint_exits_130_and_writes_nothing() {
    let dir = TempDir::new("sigint");
    let file = dir.join("b.txt");
    let args = ["bench", "--n", "20000", "--threads", "1", "--runs", "9", "-o", &file];
    let (status, _, err) = signalled(&args, Duration::from_millis(1500), "INT", || {});
    assert_eq!(status.code(), Some(130), "{status:?}, stderr {err:?}");
    assert!(err.contains("interrupted"), "{err}");
    assert!(dir.names().is_empty(), "left {:?}", dir.names());
}

/// `--tiles` forces when the engine runs its blocks in tiles: on a machine whose L2 the runs'
/// layers leave at once (16 KiB), every way gives a checked run (each run's value against the
/// residues, exit 1 on a disagreement) with the same limb additions; another word is a usage error.
#[test]
fn every_tiling_gives_the_checked_value() {
    on_machine("l2=16K,l3=none,cores=2", || {
        let mut work = Vec::new();
        for rule in ["never", "always", "measured"] {
            let args =
                ["bench", "--n", "3000", "--threads", "2", "--runs", "2", "--tiles", rule, "--json", "--no-progress"];
            let json = success_json(&args);
            let results = json["results"].as_array().expect("results is a list");
            assert_eq!(results.len(), 1, "{json}");
            work.push(results[0]["limb_additions"].clone());
        }
        assert!(work.iter().all(|w| *w == work[0] && w.as_str().is_some()), "{work:?}");
    });
    let err = usage_error(&["bench", "--tiles", "sometimes"], "--tiles");
    assert!(err.contains("expected never, always or measured"), "{err}");
}

/// `--export-csv` and `--export-markdown` write the rows of `--json`, one for each n and thread
/// count, beside the JSON on standard output; a path that cannot be written is refused before any
/// run, as is one of them named twice.
#[test]
fn the_results_exported_as_csv_and_markdown() {
    let dir = TempDir::new("bench-export");
    let (csv, markdown) = (dir.join("bench.csv"), dir.join("bench.md"));
    let args = ["bench", "--n", "200", "--threads", "1", "--threads", "2", "--runs", "2", "--json", "-q"];
    let json = success_json(&[&args[..], &["--export-csv", &csv, "--export-markdown", &markdown]].concat());
    let results = json["results"].as_array().unwrap();
    let csv = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0].starts_with("n,threads,median_s,min_s,max_s,runs,speedup"), "{csv}");
    assert_eq!(lines.len(), 1 + results.len(), "{csv}");
    for (line, r) in lines[1..].iter().zip(results) {
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(fields.len(), 13, "{line}");
        assert_eq!((fields[0], fields[1]), (&*r["n"].to_string(), &*r["threads"].to_string()), "{line}");
        let median: f64 = fields[2].parse().unwrap();
        assert!((median - r["median_seconds"].as_f64().unwrap()).abs() < 1e-6, "{line} against {r}");
        assert_eq!(fields[5], "2", "two runs: {line}");
    }
    let markdown = std::fs::read_to_string(&markdown).unwrap();
    let rows: Vec<&str> = markdown.lines().collect();
    assert_eq!(rows.len(), 2 + results.len(), "{markdown}");
    assert!(rows[0].starts_with("| n | threads | median_s |") && rows[1].starts_with("| ---: |"), "{markdown}");
    assert!(rows[2].starts_with("| 200 | 1 |"), "{markdown}");
    // refused before any run: a folder, and one file named twice
    usage_error(&["bench", "--n", "200", "--export-csv", dir.path().to_str().unwrap()], "--export-csv");
    let twice = dir.join("twice");
    usage_error(&["bench", "--n", "200", "--export-csv", &twice, "--export-markdown", &twice], "--export");
}
