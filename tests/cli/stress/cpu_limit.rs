//! `fibtree stress --time-limit`: the CPU time of the program's whole process group counted as it
//! runs, and a program that runs away stopped there, TIME LIMIT, whatever `--timeout` says: a shell
//! looping, a child and a grandchild looping while the program waits, each ended with the group.
//! No test depends on how fast the machine is: `--timeout` is far past the limit, and what is
//! checked is the verdict, the CPU time counted (past the limit) and that the loops are gone.

use serde_json::Value;

use super::left_behind::LeftBehind;
use super::{Solvers, report, run};
use crate::common::*;

/// Programs that never end and never wait on anything: the script's own loop, a child and a
/// grandchild of it looping (each writing its process id into `pids` first) while it waits, and a
/// Python loop so where `python3` is at hand. Their names, and their scripts.
fn runaways(solvers: &Solvers, pids: &str) -> Vec<(&'static str, String)> {
    let mut bodies = vec![
        ("loop", "echo $$ > '{pids}/loop-'$n; while :; do :; done".to_string()),
        ("child", "sh -c 'echo $$ > \"$0\"; while :; do :; done' '{pids}/child-'$n & wait".to_string()),
        (
            "grandchild",
            "sh -c 'sh -c '\\''echo $$ > \"$0\"; while :; do :; done'\\'' \"$0\" & wait' '{pids}/grandchild-'$n & wait"
                .to_string(),
        ),
    ];
    match std::process::Command::new("python3").args(["-c", "pass"]).status().is_ok_and(|s| s.success()) {
        true => bodies.push((
            "python",
            "python3 -c 'import os, sys; open(sys.argv[1], \"w\").write(str(os.getpid()))\nwhile True: pass' '{pids}/python-'$n & wait"
                .to_string(),
        )),
        false => skip("a_runaway_program_is_stopped_at_the_cpu_time_limit (python3): no python3"),
    }
    bodies.into_iter().map(|(name, body)| (name, solvers.script(name, &body.replace("{pids}", pids)))).collect()
}

/// Each runaway program is stopped at `--time-limit 0.5` (its `--timeout` of 300 s far off): TIME
/// LIMIT, killed before it answered, its CPU time (its loops', the shell's own being next to
/// nothing) past the limit, and every loop it started gone with its group.
#[test]
fn a_runaway_program_is_stopped_at_the_cpu_time_limit() {
    let solvers = Solvers::new("cpu-limit");
    let left = LeftBehind { dir: solvers.dir.join("pids") };
    std::fs::create_dir(&left.dir).unwrap();
    for (name, script) in runaways(&solvers, &left.dir) {
        let args = ["stress", &script, "--n", "1..2", "--exact", "--time-limit", "0.5", "--timeout", "300", "-j", "2"];
        let json = report(&args, 1);
        assert_eq!(json["counts"]["time_limit"], 2, "{name}: {json}");
        for r in json["runs"].as_array().unwrap() {
            let verdicts = (&r["verdict"], &r["verdict_without_limits"]);
            assert_eq!(verdicts, (&Value::from("TIME LIMIT"), &Value::from("TIME LIMIT")), "{name}: {r}");
            assert_eq!(r["status"], "past the CPU time limit (killed)", "{name}: {r}");
            assert!(r["cpu_seconds"].as_f64().is_some_and(|c| c > 0.5), "{name}: its loop's time counted: {r}");
        }
        left.assert_gone(name);
    }
    // in words: killed, with the time counted and the limit
    let (out, _) = run(&["stress", &solvers.dir.join("child"), "--n", "3", "--exact", "--time-limit", "0.5"], 1);
    assert!(out.contains("TIME LIMIT 3 (1)\nfirst n not OK: 3: TIME LIMIT (killed): "), "{out}");
    assert!(out.contains(" of CPU time, past the limit of 0.5 s\n"), "{out}");
    left.assert_gone("the child of n = 3");
}
