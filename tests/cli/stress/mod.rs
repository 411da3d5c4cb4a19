//! `fibtree stress`: a program run for each n and its answers judged. The programs are shell scripts
//! written into a temporary folder: one that looks its answers up in a table of the library's own
//! values (right, wrong from some n, in each form), one that runs `fibtree count` itself, and
//! programs that crash, hang, print nothing or print to standard error only. Every verdict, the
//! form found from the answers, `--bisect`, `--json`, `--keep-output`, `-N`, Ctrl-C and bad input.

use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

use num_bigint::BigUint;
use serde_json::Value;

use crate::common::*;

/// The largest n of the table of values the scripts look up.
const TOP: u64 = 120;

/// A folder with `values` (a line `n exact last18 mod998244353 mod1000000007` for each n from 1 to
/// [`TOP`], from the library) and the scripts of a test.
struct Solvers {
    dir: TempDir,
}

impl Solvers {
    fn new(tag: &str) -> Solvers {
        let dir = TempDir::new(tag);
        let mut values = String::new();
        for n in 1..=TOP {
            let v: BigUint = fibtree::count(n, 0).unwrap();
            let forms = [LAST18, P998244353, 1_000_000_007].map(|m| (&v % m).to_string());
            values += &format!("{n} {v} {}\n", forms.join(" "));
        }
        dir.file("values", values);
        Solvers { dir }
    }

    /// An executable shell script `name` with `body`, where `$n` is n (from its first argument, or
    /// else its standard input) and `value C` prints column C of n's line of the table (2: exact,
    /// 3: last 18 digits, 4: mod 998244353, 5: mod 10^9 + 7). Returns its path.
    fn script(&self, name: &str, body: &str) -> String {
        let values = self.dir.join("values");
        let text = format!(
            "#!/bin/sh\nif [ $# -gt 0 ]; then n=$1; else read n; fi\nvalue() {{ awk -v n=\"$n\" -v c=\"$1\" '$1 == n {{ print $c }}' '{values}'; }}\n{body}\n"
        );
        let path = self.dir.file(name, text);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }
}

/// Runs `fibtree args` and checks its exit status; returns stdout and stderr.
fn run(args: &[&str], code: i32) -> (String, String) {
    let output = fibtree(args);
    assert_eq!(output.status.code(), Some(code), "fibtree {args:?}: {}{}", stdout(&output), stderr(&output));
    (stdout(&output), stderr(&output))
}

/// Runs `fibtree args --json` and checks its exit status; returns the report.
fn report(args: &[&str], code: i32) -> Value {
    let args: Vec<&str> = args.iter().copied().chain(["--json"]).collect();
    let (out, _) = run(&args, code);
    json_line(&args, &out)
}

/// The stretches of a report: `(verdict, from, to)`.
fn ranges(report: &Value) -> Vec<(String, u64, u64)> {
    let ranges = report["ranges"].as_array().unwrap();
    let stretch = |r: &Value| {
        (r["verdict"].as_str().unwrap().to_string(), r["from"].as_u64().unwrap(), r["to"].as_u64().unwrap())
    };
    ranges.iter().map(stretch).collect()
}

#[test]
fn a_right_program_is_ok_everywhere() {
    let solvers = Solvers::new("right");
    // fibtree itself as the solver, n in place of {}
    let fib = binary().to_str().unwrap().to_string();
    let cmd = format!("{fib} count {{}} -q --mod-only --mod 998244353 | tail -1");
    let (out, err) = run(&["stress", &cmd, "--n", "1..40:3", "--mod", "998244353"], 0);
    assert!(out.contains("OK 1..40 (14)") && out.contains("every run OK"), "{out}");
    assert_eq!(err, "", "a form given is not announced");
    // n on standard input where CMD has no {}
    let solver = solvers.script("right", "value 4");
    let (out, _) = run(&["stress", &solver, "--n", "1..120", "-j", "2"], 0);
    assert!(out.contains("120 runs") && out.contains("answers taken as mod 998244353"), "{out}");
}

#[test]
fn a_program_wrong_from_some_n_and_its_bisection() {
    let solvers = Solvers::new("wrong");
    // right below n = 100, one too many from it on (n in place of {})
    let solver =
        solvers.script("wrong", "v=$(value 4); if [ \"$n\" -ge 100 ]; then v=$((v + 1)); fi; echo \"f($n) = $v\"");
    let cmd = format!("{solver} {{}}");
    let json = report(&["stress", &cmd, "--n", "1..120", "--mod", "998244353"], 1);
    assert_eq!(ranges(&json), [("OK".into(), 1, 99), ("MISMATCH".into(), 100, 120)]);
    let first = &json["first_failure"];
    assert_eq!((first["n"].as_u64(), first["verdict"].as_str()), (Some(100), Some("MISMATCH")));
    let expected: BigUint = fibtree::count(100, 0).unwrap() % P998244353;
    assert_eq!(first["expected"], expected.to_string());
    assert_eq!(first["answer"], (expected + 1u32).to_string());
    assert_eq!(json["counts"]["mismatch"], 21);
    assert_eq!(json["ok"], false);
    let (out, _) = run(&["stress", &cmd, "--n", "1..120", "--mod", "998244353"], 1);
    assert!(out.contains("OK 1..99 (99), MISMATCH 100..120 (21)"), "{out}");
    assert!(
        out.contains(&format!("first n not OK: 100: MISMATCH: claimed {}", first["answer"].as_str().unwrap())),
        "{out}"
    );
    // the bisection finds it in a few runs (with the form found from the answers at n = 94..96)
    let json = report(&["stress", &cmd, "--n", "1..120", "--bisect"], 1);
    assert_eq!(json["first_failure"]["n"], 100);
    assert_eq!(json["bisect"], true);
    let runs = json["runs"].as_array().unwrap().len();
    assert!(runs <= 3 + 9, "{runs} runs: {json}");
    // and says so when every run is right
    let right = solvers.script("right", "value 4");
    let json = report(&["stress", &right, "--n", "1..120", "--bisect", "--mod", "998244353"], 0);
    assert_eq!(json["runs"].as_array().unwrap().len(), 1, "the last n alone: {json}");
    assert_eq!(json["first_failure"], Value::Null);
}

#[test]
fn crashes_by_exit_status_and_by_signal() {
    let solvers = Solvers::new("crash");
    let solver = solvers.script("crash", "case $n in 7) echo 5; exit 3;; 9) kill -SEGV $$;; esac; value 4");
    let json = report(&["stress", &solver, "--n", "1..10"], 1);
    let runs = json["runs"].as_array().unwrap();
    assert_eq!((runs[6]["verdict"].as_str(), runs[6]["status"].as_str()), (Some("CRASH"), Some("exit status 3")));
    assert_eq!(runs[8]["verdict"], "CRASH");
    // the shell that ran it says so by its own exit status
    assert_eq!(runs[8]["status"], "exit status 139: signal 11 (SIGSEGV), as the shell says");
    assert_eq!(json["counts"]["crash"], 2);
    assert_eq!(
        ranges(&json),
        [
            ("OK".into(), 1, 6),
            ("CRASH".into(), 7, 7),
            ("OK".into(), 8, 8),
            ("CRASH".into(), 9, 9),
            ("OK".into(), 10, 10)
        ]
    );
    let (out, _) = run(&["stress", &solver, "--n", "1..10"], 1);
    assert!(out.contains("first n not OK: 7: CRASH: exit status 3, true 0"), "{out}");
    // run directly, the signal itself
    let json = report(&["stress", &solver, "-N", "--n", "9"], 1);
    assert_eq!(json["runs"][0]["status"], "killed by signal 11 (SIGSEGV)");
}

#[test]
fn a_run_that_hangs_is_timed_out_and_killed() {
    let solvers = Solvers::new("hang");
    // the sleep in the background holds the pipes: it is killed with its group
    let solver = solvers.script("hang", "if [ \"$n\" = 5 ]; then sleep 60 & sleep 60; fi; value 4");
    let start = Instant::now();
    let json = report(&["stress", &solver, "--n", "3..6", "--timeout", "1", "--mod", "998244353"], 1);
    assert!(start.elapsed() < Duration::from_secs(30), "{:?}", start.elapsed());
    assert_eq!(ranges(&json), [("OK".into(), 3, 4), ("TIMEOUT".into(), 5, 5), ("OK".into(), 6, 6)]);
    assert_eq!(json["counts"]["timeout"], 1);
}

#[test]
fn no_answer_and_an_answer_on_standard_error_only() {
    let solvers = Solvers::new("silent");
    let silent = solvers.script("silent", "echo 'nothing to say'");
    let json = report(&["stress", &silent, "--n", "1..3", "--exact"], 1);
    assert_eq!(ranges(&json), [("NO ANSWER".into(), 1, 3)]);
    assert_eq!(json["counts"]["no_answer"], 3);
    let elsewhere = solvers.script("stderr", "echo \"the answer: $(value 4)\" >&2");
    let (out, _) = run(&["stress", &elsewhere, "--n", "6..8", "--mod", "998244353"], 1);
    assert!(out.contains("first n not OK: 6: NO ANSWER: no integer on standard output (exit status 0)"), "{out}");
    assert!(out.contains("its standard error, first lines:\n  | the answer: 3\n"), "{out}");
    let json = report(&["stress", &elsewhere, "--n", "6..8", "--mod", "998244353"], 1);
    assert_eq!(json["first_failure"]["stderr_head"], serde_json::json!(["the answer: 3"]));
}

/// The program's standard error reaches the report escaped, as fibtree's own messages are: an
/// escape sequence, a carriage return or a backspace is shown, never sent to the terminal.
#[test]
fn the_programs_standard_error_is_shown_escaped() {
    let solvers = Solvers::new("escapes");
    let noisy = solvers.script("noisy", "printf 'red \\033[31mtext\\r over\\b\\n' >&2; exit 3");
    let (out, _) = run(&["stress", &noisy, "--n", "1..2", "--exact"], 1);
    assert!(out.contains("  | red \\u{1b}[31mtext\\r over\\u{8}\n"), "{out}");
    assert!(!out.contains('\u{1b}') && !out.contains('\r') && !out.contains('\u{8}'), "{out:?}");
}

/// Standard output past 1 MiB: its last 1 MiB is kept, and the answer found in it.
#[test]
fn a_long_output_is_cut_to_its_last_mebibyte() {
    let solvers = Solvers::new("long");
    let solver = solvers.script("long", "head -c 3000000 /dev/zero | tr '\\0' x; echo; value 4");
    let json = report(&["stress", &solver, "--n", "6", "--mod", "998244353"], 0);
    let run = &json["runs"][0];
    assert_eq!(
        (&run["verdict"], &run["answer"], &run["stdout_cut"]),
        (&Value::from("OK"), &Value::from("3"), &Value::from(true))
    );
    let kept = solvers.dir.join("kept");
    report(&["stress", &solver, "--n", "6", "--mod", "998244353", "--keep-output", &kept], 0);
    assert_eq!(std::fs::metadata(format!("{kept}/6.stdout")).unwrap().len(), 1 << 20);
}

/// What would make a kept output fail or be lost after the runs is refused before any run: `-o`
/// naming a file `--keep-output` writes, and one of its names taken by a folder. Another file in the
/// folder is fine.
#[test]
fn kept_outputs_that_would_clash_are_refused_before_any_run() {
    let solvers = Solvers::new("clash");
    let kept = solvers.dir.join("keep");
    let report_in_kept = format!("{kept}/1.stdout");
    let args = ["stress", "echo 0", "--n", "1..3", "--exact", "--keep-output", &kept, "-o", &report_in_kept];
    let err = usage_error(&args, "--output");
    assert!(err.contains("--keep-output writes"), "{err}");
    assert!(!std::path::Path::new(&report_in_kept).exists(), "nothing run, nothing written");
    std::fs::create_dir_all(format!("{kept}/2.stdout")).unwrap();
    let err = usage_error(&["stress", "echo 0", "--n", "1..3", "--exact", "--keep-output", &kept], "--keep-output");
    assert!(err.contains("2.stdout") && err.contains("is not a file"), "{err}");
    std::fs::remove_dir(format!("{kept}/2.stdout")).unwrap();
    let beside = format!("{kept}/report.txt");
    run(&["stress", "echo 0", "--n", "1..3", "--exact", "--keep-output", &kept, "-o", &beside], 1);
    assert!(std::path::Path::new(&beside).exists() && std::path::Path::new(&format!("{kept}/3.stderr")).exists());
}

#[test]
fn the_exact_value_where_a_residue_was_asked_for() {
    let solvers = Solvers::new("form");
    let exact = solvers.script("exact", "value 2");
    let json = report(&["stress", &exact, "--n", "40..60", "--mod", "998244353"], 1);
    // equal while f(n) is below the modulus
    let first = json["first_failure"]["n"].as_u64().unwrap();
    assert!(fibtree::count(first, 0).unwrap() >= BigUint::from(P998244353));
    assert!(fibtree::count(first - 1, 0).unwrap() < BigUint::from(P998244353) || first == 40);
    assert_eq!(json["first_failure"]["answer"], fibtree::count(first, 0).unwrap().to_string());
    assert_eq!(json["form"]["detected"], false);
}

#[test]
fn the_form_is_found_from_the_answers() {
    let solvers = Solvers::new("auto");
    for (column, name, modulus) in [
        (2, "the exact value", Value::Null),
        (3, "the last 18 digits", Value::from("1000000000000000000")),
        (4, "mod 998244353", Value::from("998244353")),
        (5, "mod 1000000007", Value::from("1000000007")),
    ] {
        let solver = solvers.script(&format!("form{column}"), &format!("value {column}"));
        let args = ["stress", &solver, "--n", "1..120", "--json"];
        let (out, err) = run(&args, 0);
        let json = json_line(&args, &out);
        assert_eq!((json["form"]["name"].as_str(), &json["form"]["modulus"]), (Some(name), &modulus), "{json}");
        assert_eq!(json["form"]["detected"], true);
        assert!(err.starts_with("auto: its answers at n = ") && err.contains(name), "{err}");
    }
    // below every modulus at each n of the range: any form is right, the exact value taken
    let small = solvers.script("small", "value 2");
    let (_, err) = run(&["stress", &small, "--n", "1..20"], 0);
    assert!(err.contains("no n run tells the forms apart"), "{err}");
    // an answer in no form: the form by its size, and the runs wrong
    let wrong = solvers.script("wrong", "echo 12345");
    let json = report(&["stress", &wrong, "--n", "100..110"], 1);
    assert_eq!(json["form"]["name"], "mod 998244353");
    assert_eq!(json["counts"]["mismatch"], 11);
}

#[test]
fn without_a_shell_and_the_outputs_kept() {
    let solvers = Solvers::new("words");
    let solver = solvers.script("words", "echo \"n is $n\" >&2; value 4");
    let kept = solvers.dir.join("kept/runs");
    let cmd = format!("sh '{solver}' {{}}");
    let json = report(&["stress", &cmd, "-N", "--n", "5,7", "--keep-output", &kept], 0);
    assert_eq!(json["counts"]["ok"], 2);
    let read = |name: &str| std::fs::read_to_string(format!("{kept}/{name}")).unwrap();
    assert_eq!((read("5.stdout"), read("5.stderr"), read("7.stdout")), ("1\n".into(), "n is 5\n".into(), "0\n".into()));
    // -o through the crate's output file
    let file = solvers.dir.join("report.json");
    let (out, _) = run(&["stress", &cmd, "-N", "--n", "5", "--json", "-o", &file], 0);
    assert_eq!(out, "");
    assert_eq!(serde_json::from_str::<Value>(&std::fs::read_to_string(&file).unwrap()).unwrap()["ok"], true);
}

#[test]
fn ctrl_c_stops_the_runs_and_reports_what_it_has() {
    let solvers = Solvers::new("stop");
    let pids = solvers.dir.join("pids");
    std::fs::create_dir(&pids).unwrap();
    let solver =
        solvers.script("slow", &format!("if [ \"$n\" -gt 2 ]; then echo $$ > '{pids}/'$n; exec sleep 60; fi; value 4"));
    let args = ["stress", &solver, "--n", "1..8", "-j", "2", "--mod", "998244353"];
    let (status, out, err) = signalled(&args, Duration::from_millis(1500), "INT", || {});
    assert_eq!(status.code(), Some(130), "{out}{err}");
    assert!(out.contains("OK 1..2 (2)") && out.contains("interrupted: 2 of the 8 n were run"), "{out}");
    assert!(err.contains("interrupted by SIGINT"), "{err}");
    // the two runs under way were ended with their groups
    let started: Vec<String> =
        std::fs::read_dir(&pids).unwrap().map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap()).collect();
    assert_eq!(started.len(), 2, "{started:?}");
    // (killed, a process may take a moment to be gone, and its parent's parent to reap it)
    let alive = |pid: &str| {
        let status =
            std::process::Command::new("kill").args(["-0", pid.trim()]).stderr(std::process::Stdio::null()).status();
        status.unwrap().success()
    };
    let start = Instant::now();
    while started.iter().any(|pid| alive(pid)) {
        assert!(start.elapsed() < Duration::from_secs(10), "still running: {started:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Ctrl-C before any run ends: the report says that none completed (not "every run OK" over an
/// empty range), the JSON that none ran, and the exit status is 130.
#[test]
fn ctrl_c_before_any_run_ends_says_none_completed() {
    let solvers = Solvers::new("stop-early");
    let solver = solvers.script("sleeper", "exec sleep 60");
    for json in [false, true] {
        let mut args = vec!["stress", &solver, "--n", "1..4", "-j", "2", "--mod", "7"];
        args.extend(json.then_some("--json"));
        let (status, out, err) = signalled(&args, Duration::from_millis(1500), "INT", || {});
        assert_eq!(status.code(), Some(130), "{out}{err}");
        assert!(err.contains("interrupted by SIGINT"), "{err}");
        if json {
            let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
            assert_eq!(
                (v["ok"].clone(), v["interrupted"].clone(), v["n_asked"].clone()),
                (false.into(), true.into(), 4.into())
            );
            assert_eq!(v["runs"].as_array().map(Vec::len), Some(0), "{v}");
        } else {
            assert_eq!(out, "interrupted before any run of c(n, 0) completed: 0 of the 4 n were run\n");
        }
    }
}

/// A program named with -N that exists but may not be executed is refused as such, not as missing.
#[test]
fn a_program_that_is_not_executable_is_named_so() {
    let solvers = Solvers::new("noexec");
    let path = solvers.script("noexec.sh", "value 4");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let err = usage_error(&["stress", &path, "-N", "--n", "1..3"], "CMD");
    assert!(err.contains(&format!("'{path}' is not executable (mode 644")), "{err}");
    // in the working folder, as ./NAME
    let output = fibtree_in(solvers.dir.path(), &["stress", "./noexec.sh", "-N", "--n", "1..3"]);
    let err = check_usage_error(&["stress", "./noexec.sh"], &output, "CMD");
    assert!(err.contains("'./noexec.sh' is not executable") && !err.contains("found"), "{err}");
    // a folder is not a program either; a name found nowhere is said to be missing
    let dir = solvers.dir.join("");
    assert!(usage_error(&["stress", &dir, "-N", "--n", "1"], "CMD").contains("is not a file"));
    assert!(usage_error(&["stress", "no-such-program-here", "-N", "--n", "1"], "CMD").contains("no program"));
}

#[test]
fn bad_input_is_refused_before_any_run() {
    let solvers = Solvers::new("bad");
    let marker = solvers.dir.join("ran");
    let solver = solvers.script("marker", &format!("touch '{marker}'; value 4"));
    let file = solvers.dir.file("a-file", "");
    for (args, names) in [
        (vec!["--n", "5..1"], "--n"),
        (vec!["--n", "1..5:0"], "--n"),
        (vec!["--n", "x"], "--n"),
        (vec!["--n", "1..2147483648"], "--n"),
        (vec!["--n", "1..5", "--timeout", "0"], "--timeout"),
        (vec!["--n", "1..5", "--timeout", "-1"], "--timeout"),
        (vec!["--n", "1..5", "--jobs", "0"], "--jobs"),
        (vec!["--n", "1..5", "--mod", "1"], "--mod"),
        (vec!["--n", "1..5", "--last-digits", "19"], "--last-digits"),
        (vec!["--n", "1..5", "--mod", "7", "--exact"], "--exact"),
        (vec!["--n", "1..5", "--keep-output", &file], "--keep-output"),
        (vec!["--n", "1..5", "-o", "/nonexistent/out"], "--output"),
        (vec![], "--n"),
    ] {
        let args: Vec<&str> = ["stress", solver.as_str()].into_iter().chain(args).collect();
        usage_error(&args, names);
    }
    usage_error(&["stress", "", "--n", "1"], "CMD");
    usage_error(&["stress", "/nonexistent/solver {}", "-N", "--n", "1"], "CMD");
    usage_error(&["stress", "sh 'open", "-N", "--n", "1"], "CMD");
    assert!(!std::path::Path::new(&marker).exists(), "no run before the refusal");
}

/// The faulty solver of `examples/`, where a C compiler is at hand: the first n each of its faults
/// gets wrong.
#[test]
fn the_faulty_solver_of_the_examples() {
    let dir = TempDir::new("examples");
    let exe = dir.join("faulty_solver");
    let source = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/faulty_solver.c");
    match std::process::Command::new("cc").args(["-O2", "-o", &exe, source]).status() {
        Ok(status) if status.success() => {}
        other => {
            crate::common::skip(format!("no C compiler to build {source} ({other:?})"));
            return;
        }
    }
    for (cmd, first_wrong) in [(format!("{exe} cut"), 23), (format!("{exe} overflow32 {{}}"), 52)] {
        let json = report(&["stress", &cmd, "--n", "1..60", "--exact"], 1);
        assert_eq!(json["first_failure"]["n"], first_wrong, "{cmd}: {json}");
    }
}

/// The processes a test's programs leave behind, each of which wrote its process id to a file in
/// `dir`: ended when the test ends, whatever it found.
struct LeftBehind {
    dir: String,
}

impl LeftBehind {
    /// The process ids written so far.
    fn pids(&self) -> Vec<String> {
        let entries = std::fs::read_dir(&self.dir).unwrap();
        entries.map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap().trim().to_string()).collect()
    }

    /// Waits (at most 10 s) until none of the processes is alive, or fails.
    fn assert_gone(&self, what: &str) {
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
