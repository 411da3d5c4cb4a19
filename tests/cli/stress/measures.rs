//! `fibtree stress`'s measures of each run: its wall time, CPU time and peak memory in the report,
//! the JSON, the kept outputs and the plot; `--time-limit` and `--memory-limit` judged (TIME LIMIT,
//! MEMORY LIMIT), with programs that burn far more than the limit (no test depends on how fast the
//! machine is); the fit of the time's growth, said or not from the runs' own figures; an answer
//! taken from a line that holds other numbers; the new options' bad values.

use serde_json::Value;

use super::{Solvers, report, run};
use crate::common::*;

/// A shell loop of two million rounds: a second or more of CPU time on any machine.
const BURN: &str = "i=0; while [ $i -lt 2000000 ]; do i=$((i + 1)); done";

/// Every run of a report has its wall time, and, reaped, its CPU time and its peak memory (here
/// `sort` holds a line of 30 MB, far more than fibtree's own memory, which each run begins as a copy
/// of); the report has its slowest and its largest, the fit of its time (or why none), fibtree's own
/// time for some of the n, and the limits.
#[test]
fn each_run_has_its_time_and_memory() {
    let solvers = Solvers::new("measures");
    let right = solvers.script("right", "head -c 30000000 /dev/zero | sort >/dev/null; value 4");
    let args = ["stress", &right, "--n", "1..6", "--mod", "998244353"];
    let json = report(&args, 0);
    let runs = json["runs"].as_array().unwrap();
    for r in runs {
        assert!(r["seconds"].as_f64().is_some_and(|s| s >= 0.0), "{r}");
        assert!(r["cpu_seconds"].as_f64().is_some_and(|s| s >= 0.0), "{r}");
        assert!(r["peak_memory_bytes"].as_u64().is_some_and(|b| (30_000_000..1 << 30).contains(&b)), "{r}");
        assert_eq!((&r["verdict"], &r["verdict_without_limits"]), (&Value::from("OK"), &Value::from("OK")));
    }
    let most = |key: &str| runs.iter().map(|r| r[key].as_f64().unwrap()).fold(0.0, f64::max);
    assert_eq!(json["slowest"]["cpu_seconds"].as_f64(), Some(most("cpu_seconds")));
    assert_eq!(json["largest"]["peak_memory_bytes"].as_f64(), Some(most("peak_memory_bytes")));
    // the fit takes the runs of at least 0.02 s of CPU, as many as the report has
    let measurable = runs.iter().filter(|r| r["cpu_seconds"].as_f64().unwrap() >= 0.02).count();
    assert_eq!(json["growth"]["runs"], measurable);
    // an exponent where 4 runs or more are fitted and the fit explains at least half the variance
    let no_trend = json["growth"]["r_squared"].as_f64().is_some_and(|r| r < 0.5);
    assert_eq!(json["growth"]["exponent"].is_null(), measurable < 4 || no_trend, "{}", json["growth"]);
    let own = &json["fibtree_times"];
    assert!(own["how"].as_str().unwrap().starts_with("the library counting c(n, 0) as mod 998244353"), "{own}");
    let timed: Vec<u64> = own["times"].as_array().unwrap().iter().map(|t| t["n"].as_u64().unwrap()).collect();
    assert_eq!(timed, [1, 2, 3, 4, 5, 6]);
    let limits = &json["limits"];
    assert_eq!((&limits["time_seconds"], &limits["memory_bytes"]), (&Value::Null, &Value::Null));
    assert_eq!(limits["timeout_seconds"], 10.0);
    let (out, _) = run(&args, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[3].starts_with("time: the slowest n = ") && lines[3].contains(" of CPU, "), "{out}");
    assert!(lines[4].starts_with("memory: the largest peak n = ") && lines[4].ends_with(" MiB resident"), "{out}");
    assert!(lines[5].starts_with("fibtree: n = 1: ") && lines[5].contains("one n at a time"), "{out}");
    assert!(!out.contains("limits:"), "no limit asked for: {out}");
    // a program smaller than the copy of fibtree's memory it begins as: its peak not told apart
    let small = solvers.script("small", "exit 3");
    let json = report(&["stress", &small, "--n", "1..2", "--exact"], 1);
    for r in json["runs"].as_array().unwrap() {
        assert!(r["peak_memory_bytes"].is_null() || r["peak_memory_bytes"].as_u64().unwrap() > 0, "{r}");
    }
}

/// A run past the time limit on its CPU time is stopped there: TIME LIMIT (killed), whatever
/// `--timeout` says; a fast program under a generous limit is OK, and is killed on the wall clock
/// only well after the limit.
#[test]
fn a_run_past_the_time_limit() {
    let solvers = Solvers::new("time-limit");
    let slow = solvers.script("slow", &format!("if [ \"$n\" = 3 ]; then {BURN}; fi; value 4"));
    let args = ["stress", &slow, "--n", "2..4", "--mod", "998244353", "--time-limit", "0.05", "--timeout", "120"];
    let json = report(&args, 1);
    let third = &json["runs"][1];
    let verdicts = (&third["verdict"], &third["verdict_without_limits"]);
    assert_eq!(verdicts, (&Value::from("TIME LIMIT"), &Value::from("TIME LIMIT")), "{third}");
    assert!(third["cpu_seconds"].as_f64().unwrap() > 0.05, "{third}");
    assert_eq!((&json["counts"]["time_limit"], &json["counts"]["ok"]), (&Value::from(1), &Value::from(2)));
    assert_eq!(json["limits"]["time_seconds"], 0.05);
    let (out, _) = run(&args, 1);
    assert!(out.contains("OK 2 (1), TIME LIMIT 3 (1), OK 4 (1)"), "{out}");
    assert!(out.contains("first n not OK: 3: TIME LIMIT (killed): ") && out.contains("past the limit of 0.05 s"));
    assert!(out.contains("limits: 0.05 s of CPU time a run; killed past 120 s (--timeout)"), "{out}");
    // the kill on the wall clock comes well after the limit: twice the limit and a second, at least
    // the 10 s of before
    let fast = solvers.script("fast", "value 4");
    let json = report(&["stress", &fast, "--n", "1..5", "--mod", "998244353", "--time-limit", "30"], 0);
    assert_eq!((json["counts"]["ok"].as_u64(), json["limits"]["timeout_seconds"].as_f64()), (Some(5), Some(61.0)));
}

/// A run that fails for an allocation past the memory limit (its address space limited, RLIMIT_AS)
/// is MEMORY LIMIT; runs within it are OK, and the report names the limit.
#[test]
fn a_run_past_the_memory_limit() {
    let solvers = Solvers::new("memory-limit");
    // sort holds its one line of 300 MB whole: far past 64 MiB
    let big = solvers
        .script("big", "if [ \"$n\" = 4 ]; then head -c 300000000 /dev/zero | sort >/dev/null || exit; fi; value 4");
    let args = ["stress", &big, "--n", "3..5", "--mod", "998244353", "--memory-limit", "64M"];
    let json = report(&args, 1);
    let fourth = &json["runs"][1];
    assert_eq!(
        (&fourth["verdict"], &fourth["verdict_without_limits"]),
        (&"MEMORY LIMIT".into(), &"CRASH".into()),
        "{json}"
    );
    assert_eq!((&json["runs"][0]["verdict"], &json["runs"][2]["verdict"]), (&"OK".into(), &"OK".into()));
    assert_eq!(
        (json["limits"]["memory_bytes"].as_u64(), json["counts"]["memory_limit"].as_u64()),
        (Some(64 << 20), Some(1))
    );
    let (out, _) = run(&args, 1);
    assert!(out.contains("OK 3 (1), MEMORY LIMIT 4 (1), OK 5 (1)"), "{out}");
    assert!(out.contains("first n not OK: 4: MEMORY LIMIT (crashed): exit status "), "{out}");
    assert!(out.contains("under the memory limit of 64.0 MiB: an allocation failed, as it says"), "{out}");
    assert!(out.contains("limits: 64.0 MiB of address space a run"), "{out}");
    // without the limit, a failure is the program's crash whatever it says
    let failing = solvers.script("failing", "echo 'out of memory' >&2; exit 1");
    let json = report(&["stress", &failing, "--n", "5", "--exact"], 1);
    assert_eq!(json["runs"][0]["verdict"], "CRASH");
}

/// `--keep-output` keeps each run's figures beside its outputs, as `N.json`.
#[test]
fn the_figures_are_kept_beside_the_outputs() {
    let solvers = Solvers::new("kept-figures");
    let right = solvers.script("right", "value 4");
    let kept = solvers.dir.join("kept");
    report(&["stress", &right, "--n", "5..6", "--mod", "998244353", "--keep-output", &kept], 0);
    for n in [5, 6] {
        let text = std::fs::read_to_string(format!("{kept}/{n}.json")).unwrap();
        let figures: Value = serde_json::from_str(&text).unwrap();
        assert_eq!((&figures["n"], &figures["status"]), (&Value::from(n), &Value::from("exit status 0")), "{text}");
        assert!(figures["cpu_seconds"].is_f64() && figures["seconds"].is_f64(), "{text}");
        // an awk smaller than fibtree: measured, or null where within the copy of fibtree it began as
        assert!(figures["peak_memory_bytes"].is_null() || figures["peak_memory_bytes"].is_u64(), "{text}");
    }
    // no temporary file left
    let names = std::fs::read_dir(&kept).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap());
    let mut names: Vec<String> = names.collect();
    names.sort();
    assert_eq!(names, ["5.json", "5.stderr", "5.stdout", "6.json", "6.stderr", "6.stdout"]);
    // a name of those taken by the report refused before any run
    let clash = format!("{kept}/5.json");
    let err = usage_error(&["stress", &right, "--n", "5..6", "--keep-output", &kept, "--svg", &clash], "--svg");
    assert!(err.contains("--keep-output writes"), "{err}");
}

/// `--svg` draws the runs' time and memory against n (and fibtree's own time): a document with a
/// mark for each run's CPU time, wall time and peak, fibtree's series and the axes' names.
#[test]
fn the_plot_of_time_and_memory() {
    let solvers = Solvers::new("svg");
    let right = solvers.script("right", "value 4");
    let file = solvers.dir.join("runs.svg");
    let json = report(&["stress", &right, "--n", "1..8", "--mod", "998244353", "--svg", &file, "--time-limit", "5"], 0);
    let text = std::fs::read_to_string(&file).unwrap();
    let svg = roxmltree::Document::parse(&text).unwrap();
    assert_eq!(svg.root_element().tag_name().name(), "svg");
    let texts: Vec<&str> =
        svg.descendants().filter(|n| n.has_tag_name("text")).filter_map(|n| n.text()).map(str::trim).collect();
    for label in
        ["n", "seconds, log scale", "peak memory, MiB (resident)", "fibtree's own time", "time limit, 5 s of CPU"]
    {
        assert!(texts.contains(&label), "{label}: {texts:?}");
    }
    let circles = svg.descendants().filter(|n| n.has_tag_name("circle")).count();
    let peaks = json["runs"].as_array().unwrap().iter().filter(|r| r["peak_memory_bytes"].is_u64()).count();
    // wall and CPU time and peak for each run, and the three marks of the legends
    assert_eq!(circles, 8 + 8 + peaks + 3, "{text}");
    // the file is refused before any run where it cannot be written
    usage_error(&["stress", &right, "--n", "1..3", "--svg", "/nonexistent/runs.svg"], "--svg");
}

/// An answer taken from a line that holds other numbers too (`1383 (took 3 ms)`): the report says
/// that the answer was its last integer, and shows the program's last lines.
#[test]
fn an_answer_among_other_numbers_is_shown_with_its_lines() {
    let solvers = Solvers::new("numbers");
    let timed = solvers.script("timed", "echo 'counting...'; echo \"$(value 2) (took 3 ms)\"");
    let args = ["stress", &timed, "--n", "20", "--exact"];
    let (out, _) = run(&args, 1);
    assert!(out.contains("first n not OK: 20: MISMATCH: claimed 3, true 1383"), "{out}");
    assert!(
        out.contains("(its answer was taken as the last integer of its output, on a line that holds other numbers)")
    );
    assert!(out.contains("its standard output, last lines:\n  | counting...\n  | 1383 (took 3 ms)\n"), "{out}");
    let json = report(&args, 1);
    assert_eq!(json["first_failure"]["answer_line_has_other_numbers"], true);
    assert_eq!(json["first_failure"]["stdout_tail"], serde_json::json!(["counting...", "1383 (took 3 ms)"]));
}

/// The new options' bad values: one line naming the option, exit 2, before any run.
#[test]
fn bad_limits_are_refused_before_any_run() {
    let solvers = Solvers::new("bad-limits");
    let marker = solvers.dir.join("ran");
    let solver = solvers.script("marker", &format!("touch '{marker}'; value 4"));
    for (args, name) in [
        (vec!["--time-limit", "0"], "--time-limit"),
        (vec!["--time-limit", "-1"], "--time-limit"),
        (vec!["--time-limit", "1s"], "--time-limit"),
        (vec!["--memory-limit", "0"], "--memory-limit"),
        (vec!["--memory-limit", "256"], "--memory-limit"),
        (vec!["--memory-limit", "12Q"], "--memory-limit"),
        (vec!["--seed", "5"], "--bisect"),
        (vec!["--bisect", "--seed", "0xg"], "--seed"),
        (vec!["--svg", "/nonexistent/plot.svg"], "--svg"),
    ] {
        let args: Vec<&str> = ["stress", solver.as_str(), "--n", "1..3"].into_iter().chain(args).collect();
        let err = usage_error(&args, name);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
    let out = solvers.dir.join("out.txt");
    usage_error(&["stress", &solver, "--n", "1..3", "-o", &out, "--svg", &out], "--svg");
    assert!(!std::path::Path::new(&marker).exists(), "no run before the refusal");
}
