//! The memory guard under the machine's limits: `ulimit -v` (the address space) and `ulimit -d`
//! (the data segment) set by the shell that starts `fibtree`, and a cgroup v2 `memory.max` where
//! this machine lets the tests make one. A run that does not fit is refused (exit 2, one line naming
//! the limit), never killed; a run that fits completes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::*;

/// Runs `fibtree args` from `bash -c` after `setup` (e.g. `ulimit -v 60000`), checking that it did
/// not panic nor die of a signal. `None` where there is no bash to run it.
fn under(setup: &str, args: &str) -> Option<Output> {
    let script = format!("{setup} && exec '{}' {args}", binary().display());
    let output = Command::new("bash").args(["-c", &script]).output().ok()?;
    assert_no_panic(&[&script], &output.stderr);
    assert!(output.status.code().is_some(), "{script}: killed: {output:?}");
    Some(output)
}

/// Checks that `output` is a refusal for memory naming `limit`, and returns its line. A limit of the
/// machine's, which `--max-memory` cannot lift, is not blamed on `--max-memory`: the refusal names
/// the parameter that makes the run this large.
fn refused(output: &Output, limit: &str) -> String {
    let err = stderr(output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(output.stdout.is_empty(), "{}", stdout(output));
    assert_eq!(err.lines().count(), 1, "{err}");
    let named = err.strip_prefix("error: ").and_then(|e| e.split(": ").next()).unwrap_or_default();
    assert!(!["--max-memory", "FIBTREE_MACHINE"].contains(&named), "{err}");
    assert!(err.contains(&format!("{named}: this run needs about")) && err.contains("(estimate), more than"), "{err}");
    assert!(err.contains(limit), "{err}");
    err
}

/// Under `ulimit -v 60000` a count needing more is refused naming the address-space limit (not
/// aborted when an allocation fails), also with a larger --max-memory, which cannot lift it; a
/// small count, and a larger one under a generous limit, complete with the right value.
#[test]
fn the_address_space_limit_refuses_what_does_not_fit() {
    let Some(output) = under("ulimit -v 60000", "count 30000") else {
        crate::common::skip("no bash to set ulimit -v");
        return;
    };
    let err = refused(&output, "the address-space limit (ulimit -v) of 58.6 MiB");
    assert!(err.starts_with("error: N: "), "the argument that sizes the run: {err}");
    refused(&under("ulimit -v 60000", "count 30000 --max-memory 10G").unwrap(), "(ulimit -v)");
    refused(&under("ulimit -v 60000", "count 30000 --threads 1").unwrap(), "(ulimit -v)");
    let f3000 = success(&["count", "3000", "-q"]);
    let small = under("ulimit -v 60000", "count 3000 -q").unwrap();
    assert_eq!((small.status.code(), stdout(&small)), (Some(0), f3000), "{}", stderr(&small));
    let f12000 = success(&["count", "12000", "-q"]);
    let large = under("ulimit -v 400000", "count 12000 -q").unwrap();
    assert_eq!((large.status.code(), stdout(&large)), (Some(0), f12000), "{}", stderr(&large));
}

/// The data-segment limit (`ulimit -d`) is counted as the address space is.
#[test]
fn the_data_segment_limit_refuses_what_does_not_fit() {
    let Some(output) = under("ulimit -d 60000", "count 30000") else {
        crate::common::skip("no bash to set ulimit -d");
        return;
    };
    refused(&output, "the data-segment limit (ulimit -d) of 58.6 MiB");
}

/// The process's own cgroup v2 folder, where cgroup v2 is mounted at /sys/fs/cgroup.
fn own_cgroup() -> Option<PathBuf> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = text.lines().find_map(|l| l.strip_prefix("0::"))?;
    let dir = Path::new("/sys/fs/cgroup").join(path.trim_start_matches('/'));
    dir.join("cgroup.controllers").exists().then_some(dir)
}

/// In a cgroup v2 child with `memory.max` of 40 MiB, a count needing more is refused naming the
/// cgroup's limit. Where the machine does not let the tests make such a cgroup (not root, no cgroup
/// v2, no memory controller to enable), the test is skipped with a message.
#[test]
fn the_cgroup_limit_refuses_what_does_not_fit() {
    let Some(parent) = own_cgroup() else {
        crate::common::skip("no cgroup v2 hierarchy at /sys/fs/cgroup");
        return;
    };
    let child = parent.join(format!("fibtree-test-{}", std::process::id()));
    if std::fs::create_dir(&child).is_err() {
        crate::common::skip(format!("cannot make a cgroup under {}", parent.display()));
        return;
    }
    let limited = std::fs::write(child.join("memory.max"), "41943040");
    let procs = child.join("cgroup.procs");
    let result = limited.is_ok().then(|| under(&format!("echo $$ > '{}'", procs.display()), "count 30000"));
    let _ = std::fs::remove_dir(&child);
    match result {
        Some(Some(output)) if output.status.code() == Some(2) || output.status.code() == Some(0) => {
            refused(&output, "under its cgroup's limit (memory.max) of 40.0 MiB");
        }
        Some(Some(output)) => crate::common::skip(format!("could not run in the cgroup: {}", stderr(&output))),
        _ => crate::common::skip(format!("cannot set memory.max in {} (no memory controller)", child.display())),
    }
}

/// Under a file-size limit (`ulimit -f`) a write past it is an error naming the file, not the end
/// of the process by SIGXFSZ: an output file is refused whole (exit 1, one line, no temporary file
/// left); a checkpoint that cannot be saved is a warning and the count goes on to its value.
#[test]
fn a_file_size_limit_is_an_error_naming_the_file() {
    let dir = TempDir::new("file-size");
    let out = dir.join("out.txt");
    // 20 blocks of 512 bytes: dist 1500 writes far more
    let Some(output) = under("ulimit -f 20", &format!("dist 1500 -o '{out}'")) else {
        crate::common::skip("no bash to set ulimit -f");
        return;
    };
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("out.txt") && err.contains("File too large"), "{err}");
    assert!(dir.names().is_empty(), "nothing left: {:?}", dir.names());
    let ckpt = dir.join("c.ckpt");
    let Some(output) = under("ulimit -f 20", &format!("count 6000 --checkpoint '{ckpt}' --checkpoint-every 0 -q"))
    else {
        return;
    };
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!(err.contains("cannot save the checkpoint") && err.contains("File too large"), "{err}");
    assert_eq!(stdout(&output).trim(), fibtree::count(6000, 0).unwrap().to_string());
}

/// Runs `fibtree args` under `ulimit -v` at each of `kib` (KiB): each run completes with `want`
/// on standard output or is refused for memory (exit 2), never aborted when an allocation fails
/// (exit 134) nor panicking ([`under`] checks both); a band just above the refusal is where an
/// estimate short of what the run maps aborts. Returns the exit statuses.
fn swept(kib: impl IntoIterator<Item = u64>, args: &str, want: &str) -> Vec<i32> {
    swept_judged(kib, args, |out| assert_eq!(out, want, "{args}"))
}

/// [`swept`], each completed run's standard output handed to `judge`.
fn swept_judged(kib: impl IntoIterator<Item = u64>, args: &str, judge: impl Fn(&str)) -> Vec<i32> {
    let mut codes = Vec::new();
    for v in kib {
        let output = under(&format!("ulimit -v {v}"), args).expect("bash ran before");
        let code = output.status.code().unwrap_or(-1);
        match code {
            0 => {
                println!("ulimit -v {v}: {args}: completed");
                judge(&stdout(&output));
            }
            2 => {
                refused(&output, "(ulimit -v)");
            }
            _ => panic!("ulimit -v {v}: {args}: exit {code}: {}", stderr(&output)),
        }
        codes.push(code);
    }
    codes
}

/// Across `ulimit -v` from well below what a count needs to well above it, every run completes
/// with the right value or is refused: the estimate covers what the run maps (its threads'
/// stacks, the plan held beside the layers, the allocator). The sweep reaches both outcomes.
#[test]
fn no_address_space_limit_aborts_a_count() {
    if under("ulimit -v 400000", "count 10 -q").is_none() {
        crate::common::skip("no bash to set ulimit -v");
        return;
    }
    let f12292 = success(&["count", "12292", "-q"]);
    let codes = swept((24_000..=80_000).step_by(4_000), "count 12292 -q", &f12292);
    assert!(codes.contains(&0) && codes.contains(&2), "{codes:?}");
    let f6000 = success(&["count", "6000", "-q"]);
    let codes = swept((16_000..=60_000).step_by(4_000), "count 6000 --double-check -q", &f6000);
    assert!(codes.contains(&0) && codes.contains(&2), "{codes:?}");
    let codes = swept((16_000..=60_000).step_by(4_000), "count 6000 --threads 1 --cut 6000 -q", &f6000);
    assert!(codes.contains(&0) && codes.contains(&2), "{codes:?}");
    // the band of a larger count where an allocation once failed just above the refusal
    let f20000 = success(&["count", "20000", "-q"]);
    swept([80_000, 90_000, 120_000], "count 20000 -q", &f20000);
}

/// A table of many rows under `ulimit -v` is refused before its rows are listed (each row's
/// bookkeeping is in the estimate), with or without a --max-memory under the limit.
#[test]
fn a_long_table_is_refused_under_the_address_space_limit() {
    let Some(output) = under("ulimit -v 100000", "table 1 600000") else {
        crate::common::skip("no bash to set ulimit -v");
        return;
    };
    refused(&output, "(ulimit -v)");
    refused(&under("ulimit -v 100000", "table 1 600000 --max-memory 100M").unwrap(), "(ulimit -v)");
    // stress's true values of a million n are such a table: refused before any run
    let stress = under("ulimit -v 80000", "stress true --n 1..1000000").unwrap();
    let err = stderr(&stress);
    assert_eq!(stress.status.code(), Some(2), "{err}");
    assert!(err.starts_with("error: --n: this run needs about") && err.contains("(ulimit -v)"), "{err}");
}

/// The figure a refusal names does not depend on the limit given: a plan small enough is measured
/// past a --max-memory below it, and the cheapest route is the one priced.
#[test]
fn a_refusal_names_the_same_figure_whatever_the_limit() {
    let figure = |args: &[&str]| {
        let err = usage_error(args, "--max-memory");
        let at = err.find("needs about ").expect("a refusal for memory") + "needs about ".len();
        err[at..].split(" of memory").next().unwrap().to_string()
    };
    // limits from 1 byte to just under the figure refused at 1 byte (a fraction of it, so that the
    // test follows the estimate as the engines change)
    let figures = |args: &[&str]| -> Vec<String> {
        let at = |limit: String| figure(&[args, &["--max-memory", &limit]].concat());
        let first = at("1".into());
        let bytes = crate::common::parse_size(&first) as f64;
        let mut all = vec![first];
        all.extend([0.25, 0.6, 0.95].map(|part| at(((bytes * part) as u64).to_string())));
        all
    };
    // a count, a table of counts, and whole distributions (below their prediction and between the
    // prediction and the estimate alike)
    for args in
        [&["count", "20000"][..], &["count", "12292"], &["table", "1", "100000"], &["dist", "3000"], &["dist", "5000"]]
    {
        let figures = figures(args);
        assert!(figures.iter().all(|f| *f == figures[0]), "{args:?}: {figures:?}");
    }
}

/// Under `ulimit -v` too, a refusal names the same figure whatever the limit, the one `--max-memory`
/// gives: a plan quick to make that fits what is left is measured, however far the prediction is
/// past the limit (it was named under a low limit, the estimate from the plan's real sizes under a
/// higher one: 16.1 and 30.4 MiB for a count of f(8000)). On two threads, so that their stacks take
/// the same room on any machine.
#[test]
fn a_refusal_under_the_address_space_limit_names_the_same_figure_whatever_the_limit() {
    if under("ulimit -v 400000", "count 10 -q").is_none() {
        crate::common::skip("no bash to set ulimit -v");
        return;
    }
    let figure = |err: &str| {
        let at =
            err.find("needs about ").unwrap_or_else(|| panic!("a refusal for memory: {err}")) + "needs about ".len();
        err[at..].split(" of memory").next().unwrap().to_string()
    };
    for (args, kib) in
        [("count 8000 --threads 2", [24_000, 32_000, 40_000]), ("dist 2000 --threads 2", [32_000, 40_000, 48_000])]
    {
        let given = figure(&usage_error(
            &[args.split(' ').collect::<Vec<_>>(), vec!["--max-memory", "1"]].concat(),
            "--max-memory",
        ));
        for v in kib {
            let output = under(&format!("ulimit -v {v}"), args).unwrap();
            let err = refused(&output, "(ulimit -v)");
            assert_eq!(figure(&err), given, "ulimit -v {v}: {args}: {err}");
        }
    }
}

/// `--max-memory` holds a whole distribution: just above its estimate, the run completes within it.
#[test]
fn a_distribution_stays_within_its_max_memory() {
    for n in ["2000", "3000"] {
        let err = usage_error(&["dist", n, "--max-memory", "1"], "--max-memory");
        let at = err.find("needs about ").unwrap() + "needs about ".len();
        let mib: f64 = err[at..].split(" MiB").next().unwrap().parse().unwrap();
        // the figure is rounded to a tenth of a MiB
        let limit = ((mib + 0.1) * 1048576.0) as u64;
        // its own peak (VmHWM), which it says with --verbose
        let (_, err) = success_with_stderr(&["dist", n, "--max-memory", &limit.to_string(), "--verbose"]);
        let Some(line) = err.lines().find(|l| l.starts_with("memory peak ")) else {
            crate::common::skip("no /proc/self/status to read the peak from");
            return;
        };
        let peak: f64 = line["memory peak ".len()..].split(" MiB").next().unwrap().parse().unwrap();
        assert!(peak * 1048576.0 <= limit as f64, "dist {n}: {line}, over the limit {limit}");
    }
}

/// `self-test` under `ulimit -v` too low for its rungs is refused whole, before any rung, rather
/// than aborted in one; under a generous limit it passes.
#[test]
fn the_self_test_is_refused_whole_under_a_low_address_space_limit() {
    let Some(output) = under("ulimit -v 30000", "self-test") else {
        crate::common::skip("no bash to set ulimit -v");
        return;
    };
    // its header (the seed, the kernel) is on standard output before the refusal
    let err = stderr(&output);
    assert_eq!((output.status.code(), err.lines().count()), (Some(2), 1), "{err}");
    assert!(err.contains("needs about") && err.contains("(ulimit -v)"), "{err}");
    assert!(!stdout(&output).contains("OK"), "no rung ran: {}", stdout(&output));
    let passed = under("ulimit -v 400000", "self-test").unwrap();
    assert_eq!(passed.status.code(), Some(0), "{}", stderr(&passed));
}

/// Across `ulimit -v`, the runs whose allocations the estimate once missed complete or are refused,
/// never aborted: a whole distribution (its engine's layers, every value kept, the targets'
/// bookkeeping), a count that saves a checkpoint every second (the save streamed, no copy of the
/// state), and a bench on more threads than cores (the session's pool and a measurement's beside
/// it). Each sweep reaches both outcomes.
#[test]
fn no_address_space_limit_aborts_a_distribution_a_checkpointed_count_or_a_bench() {
    if under("ulimit -v 400000", "count 10 -q").is_none() {
        crate::common::skip("no bash to set ulimit -v");
        return;
    }
    let both = |codes: Vec<i32>, what: &str| assert!(codes.contains(&0) && codes.contains(&2), "{what}: {codes:?}");
    for (n, threads, kib) in [("2000", "2", 36_000..=84_000), ("3000", "1", 56_000..=104_000)] {
        let want = success(&["dist", n, "--threads", threads]);
        let args = format!("dist {n} --threads {threads}");
        both(swept(kib.step_by(4_000), &args, &want), &args);
    }
    let want = success(&["dist", "5000"]);
    both(swept([150_000, 190_000, 230_000, 270_000, 310_000], "dist 5000", &want), "dist 5000");
    let dir = TempDir::new("limits-checkpoint");
    let ckpt = dir.path().join("c.ckpt");
    let f20000 = success(&["count", "20000", "-q"]);
    let args =
        format!("count 20000 -q --checkpoint '{}' --checkpoint-every 1 --keep-checkpoint --fresh", ckpt.display());
    both(swept([60_000, 75_000, 90_000, 110_000, 130_000], &args, &f20000), "a checkpointed count");
    let args = "bench --n 5000 --runs 1 --threads 7 --no-progress --json";
    let judge = |out: &str| assert!(out.contains("\"checked\":true"), "{out}");
    both(swept_judged((42_000..=74_000).step_by(4_000), args, judge), args);
}
