//! `fibtree stress`'s programs that leave processes behind (in a process group or session of their
//! own, holding the run's pipes): judged when they exit, timed out, stopped, and what they left
//! ended; and what the process had started before it became `fibtree stress`, left alone.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::Solvers;
use crate::common::*;

/// The processes a test's programs leave behind, each of which wrote its process id to a file in
/// `dir`: ended when the test ends, whatever it found.
pub(super) struct LeftBehind {
    pub(super) dir: String,
}

impl LeftBehind {
    /// The process ids written so far.
    pub(super) fn pids(&self) -> Vec<String> {
        let entries = std::fs::read_dir(&self.dir).unwrap();
        entries.map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap().trim().to_string()).collect()
    }

    /// Waits (at most 10 s) until none of the processes is alive, or fails.
    pub(super) fn assert_gone(&self, what: &str) {
        let pids = self.pids();
        assert!(!pids.is_empty(), "{what}: no process was left behind");
        let alive = |pid: &String| {
            let mut kill = std::process::Command::new("kill");
            kill.args(["-0", pid]).stderr(std::process::Stdio::null()).status().unwrap().success()
        };
        let start = Instant::now();
        while pids.iter().any(alive) {
            assert!(start.elapsed() < Duration::from_secs(10), "{what}: still running: {pids:?}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for LeftBehind {
    fn drop(&mut self) {
        for pid in self.pids() {
            let _ =
                std::process::Command::new("kill").args(["-KILL", &pid]).stderr(std::process::Stdio::null()).status();
        }
    }
}

/// Scripts that leave a `sleep 60` behind in a process group of its own (by `setsid`, and by perl's
/// `setpgrp` where perl is at hand), holding their standard output and error, before they print
/// their answer (`tag` in their names); `then` is what each does after. The sleep writes its process id into `pids`
/// first, and the script waits for that. Returns the scripts, or `None` with the test skipped.
fn leaving_behind(solvers: &Solvers, pids: &str, tag: &str, then: &str) -> Option<Vec<String>> {
    let mut ways = Vec::new();
    if std::process::Command::new("setsid").arg("true").status().is_ok_and(|s| s.success()) {
        ways.push(("setsid", "setsid sh -c 'echo $$ > \"$0\"; exec sleep 60'"));
    }
    if std::process::Command::new("perl").args(["-e", "1"]).status().is_ok_and(|s| s.success()) {
        ways.push((
            "setpgrp",
            "perl -e 'setpgrp(0, 0); open(F, \">\", $ARGV[0]); print F \"$$\\n\"; close F; exec \"sleep\", 60'",
        ));
    }
    if ways.is_empty() {
        skip("neither setsid nor perl to leave a process in a group of its own");
        return None;
    }
    let scripts = ways.iter().map(|(name, how)| {
        let body = format!(
            "p='{pids}/{name}-'$n\n{how} \"$p\" &\nwhile [ ! -s \"$p\" ]; do sleep 0.05; done\nvalue 4\n{then}"
        );
        solvers.script(&format!("{name}-{tag}"), &body)
    });
    Some(scripts.collect())
}

/// Runs `fibtree args --json` and fails where it takes more than 20 s (the sleeps it leaves behind
/// take 60): the report and the exit status.
fn within_20_seconds(args: &[&str]) -> (Value, Option<i32>) {
    let mut cmd = assert_cmd::Command::cargo_bin("fibtree").unwrap();
    let output = cmd.args(args).arg("--json").timeout(Duration::from_secs(20)).output().unwrap();
    assert_no_panic(args, &output.stderr);
    assert!(output.status.code().is_some(), "fibtree {args:?}: not done within 20 s: {}", stderr(&output));
    (json_line(args, &stdout(&output)), output.status.code())
}

/// A program that exits leaving a process of another group holding its pipes is judged when it
/// exits (and a short grace), not when that process lets the pipes go; and that process is ended.
#[test]
fn a_program_that_exits_is_judged_though_what_it_left_holds_its_output() {
    let solvers = Solvers::new("left-exits");
    let left = LeftBehind { dir: solvers.dir.join("pids") };
    std::fs::create_dir(&left.dir).unwrap();
    let Some(scripts) = leaving_behind(&solvers, &left.dir, "exits", "exit 0") else { return };
    for script in &scripts {
        let (json, code) = within_20_seconds(&["stress", script, "--n", "5..6", "--mod", "998244353", "-j", "1"]);
        assert_eq!((code, &json["counts"]["ok"]), (Some(0), &Value::from(2)), "{script}: {json}");
        left.assert_gone(script);
    }
}

/// The time limit holds whatever a program leaves behind: a run past it is TIMEOUT at once (its
/// group killed, its pipes no longer read), and the process it left in another group is ended.
#[test]
fn the_time_limit_holds_though_a_process_left_in_another_group_holds_the_output() {
    let solvers = Solvers::new("left-hangs");
    let left = LeftBehind { dir: solvers.dir.join("pids") };
    std::fs::create_dir(&left.dir).unwrap();
    let Some(scripts) = leaving_behind(&solvers, &left.dir, "hangs", "exec sleep 60") else { return };
    for script in &scripts {
        let args = ["stress", script, "--n", "5", "--mod", "998244353", "--timeout", "1"];
        let (json, code) = within_20_seconds(&args);
        assert_eq!((code, &json["counts"]["timeout"]), (Some(1), &Value::from(1)), "{script}: {json}");
        left.assert_gone(script);
    }
}

/// Ctrl-C ends `stress` while a run's output is held by a process it left in another group: exit
/// 130 at once (within the 30 s `signalled` waits, where the sleeps take 60), that process ended.
#[test]
fn ctrl_c_ends_the_runs_though_a_process_left_in_another_group_holds_the_output() {
    let solvers = Solvers::new("left-stop");
    let left = LeftBehind { dir: solvers.dir.join("pids") };
    std::fs::create_dir(&left.dir).unwrap();
    let Some(scripts) = leaving_behind(&solvers, &left.dir, "hangs", "exec sleep 60") else { return };
    let args = ["stress", &scripts[0], "--n", "5..6", "-j", "2", "--mod", "998244353"];
    let (status, out, err) = signalled(&args, Duration::from_millis(1500), "INT", || {});
    assert_eq!(status.code(), Some(130), "{out}{err}");
    assert!(out.contains("interrupted before any run"), "{out}");
    left.assert_gone(&scripts[0]);
}

/// What the process that became `fibtree stress` had started before (a shell's `job & exec fibtree
/// ...`) is its child but none of its programs': left running.
#[test]
fn the_children_it_had_before_are_left_alone() {
    let solvers = Solvers::new("before");
    let left = LeftBehind { dir: solvers.dir.join("pids") };
    std::fs::create_dir(&left.dir).unwrap();
    let pid = format!("{}/before", left.dir);
    let script = format!(
        "sleep 60 >/dev/null 2>&1 & echo $! > '{pid}'; exec '{}' stress 'echo 0' --n 1..3 --exact",
        binary().display()
    );
    let output = std::process::Command::new("sh").args(["-c", &script]).output().unwrap();
    assert_no_panic(&[&script], &output.stderr);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let pid = std::fs::read_to_string(&pid).unwrap();
    let alive = std::process::Command::new("kill").args(["-0", pid.trim()]).status().unwrap().success();
    assert!(alive, "the sleep started before was killed");
}
