//! `fibtree stress`: a program run for each n and its answers judged. The programs are shell scripts
//! written into a temporary folder: one that looks its answers up in a table of the library's own
//! values (right, wrong from some n, in each form), one that runs `fibtree count` itself, and
//! programs that crash, hang, print nothing or print to standard error only. Every verdict, the
//! form found from the answers, `--bisect` (its spread, and what it ran and assumed), lists of n,
//! `--json`, `--keep-output`, `-N`, Ctrl-C and bad input; each run's time and memory and the limits
//! in [`measures`], programs that leave processes behind in [`left_behind`], runaway programs
//! stopped at the CPU time limit in [`cpu_limit`].

use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

use num_bigint::BigUint;
use serde_json::Value;

use crate::common::*;

mod cpu_limit;
mod left_behind;
mod measures;

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
    assert!(out.contains("OK 1..40:3 (14)") && out.contains("every run OK"), "{out}");
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
    // the bisection finds it in a few runs: the spread of 10, the form's 3 probes, and rounds of
    // 2 runs (-j 2) that cut the stretch between the last right and the first wrong in three
    let json = report(&["stress", &cmd, "--n", "1..120", "--bisect", "-j", "2"], 1);
    assert_eq!(json["first_failure"]["n"], 100);
    assert_eq!(json["bisect"], true);
    let runs = json["runs"].as_array().unwrap().len();
    assert!(runs <= 10 + 3 + 2 * 5, "{runs} runs: {json}");
    assert_eq!(json["n_run"], runs);
    // every n not run below 100 is taken as right, by the assumption; those above are not run
    let below = json["runs"].as_array().unwrap().iter().filter(|r| r["n"].as_u64().unwrap() < 100).count();
    assert_eq!(json["n_assumed"], 99 - below);
    assert_eq!(json["n_assumed"].as_u64().unwrap() + json["n_not_run"].as_u64().unwrap(), 120 - runs as u64);
    // and says how many ran when every run is right, never that every n is
    let right = solvers.script("right", "value 4");
    let args = ["stress", &right, "--n", "1..120", "--bisect", "--mod", "998244353", "--seed", "7"];
    let json = report(&args, 0);
    assert_eq!(json["runs"].as_array().unwrap().len(), 10, "the spread alone: {json}");
    assert_eq!((json["n_run"].as_u64(), json["n_assumed"].as_u64()), (Some(10), Some(110)));
    assert_eq!((json["first_failure"].clone(), json["seed"].clone()), (Value::Null, Value::from("0x7")));
    let spread: Vec<u64> = json["spread"].as_array().unwrap().iter().map(|n| n.as_u64().unwrap()).collect();
    assert_eq!((spread.len(), spread[0], spread[9]), (10, 1, 120));
    let (out, _) = run(&args, 0);
    assert!(out.contains("by bisection after a spread of 10 (seed 0x7)"), "{out}");
    assert!(out.contains("the 10 n run are OK; 110 n not run: taken as OK by --bisect's assumption"), "{out}");
    assert!(!out.contains("every run OK"), "{out}");
}

/// A program wrong on a stretch in the middle only (n = 12 to 15 of 1..40): --bisect finds it where
/// its spread falls on the stretch (seed 2 runs n = 12), and where it does not (seed 1 runs 11 and
/// 16) says that every n run is right and how many were taken as right without a run, never that
/// every n is.
#[test]
fn bisection_finds_a_program_wrong_in_the_middle_where_its_spread_falls() {
    let fib = binary().to_str().unwrap().to_string();
    let cmd = format!("if [ {{}} -ge 12 ] && [ {{}} -le 15 ]; then echo 1; else '{fib}' count {{}} -q; fi");
    let args = |seed: &'static str| ["stress", &cmd, "--n", "1..40", "--exact", "--bisect", "--seed", seed, "-j", "2"];
    let json = report(&args("2"), 1);
    assert_eq!(json["first_failure"]["n"], 12, "{json}");
    let ran: Vec<u64> = json["runs"].as_array().unwrap().iter().map(|r| r["n"].as_u64().unwrap()).collect();
    assert!(ran.contains(&11) && ran.contains(&12), "the bisection ends between 11 and 12: {ran:?}");
    let below = ran.iter().filter(|&&n| n < 12).count();
    assert_eq!(json["n_assumed"], 11 - below);
    let (out, _) = run(&args("2"), 1);
    assert!(out.contains(&format!("{} n not run below 12: taken as OK by --bisect's assumption", 11 - below)), "{out}");
    let true_12 = fibtree::count(12, 0).unwrap();
    assert!(out.contains(&format!("first n not OK of those run: 12: MISMATCH: claimed 1, true {true_12}")), "{out}");
    // missed: the 10 n run are right, 30 taken as right; exit 0, as every run was OK
    let (out, _) = run(&args("1"), 0);
    assert!(out.contains("OK 1, 3, 10..11, 16, 22, 28, 30, 38, 40 (10)"), "{out}");
    assert!(out.contains("the 10 n run are OK; 30 n not run: taken as OK by --bisect's assumption"), "{out}");
    assert!(!out.contains("every run OK"), "{out}");
}

/// A list of n is summed up by the n that ran, never by a range over n not asked.
#[test]
fn a_list_of_n_is_named_n_by_n() {
    let solvers = Solvers::new("list");
    let right = solvers.script("right", "value 4");
    let args = ["stress", &right, "--n", "1,5,9..12:2", "--mod", "998244353"];
    let (out, _) = run(&args, 0);
    assert!(out.contains("4 runs of c(n, 0) of the 4 n asked (from 1 to 11)"), "{out}");
    assert!(out.contains("\nOK 1, 5, 9, 11 (4)\nevery run OK\n"), "{out}");
    let json = report(&args, 0);
    let stretches: Vec<(u64, u64, u64)> = json["ranges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["from"].as_u64().unwrap(), r["to"].as_u64().unwrap(), r["runs"].as_u64().unwrap()))
        .collect();
    assert_eq!(stretches, [(1, 1, 1), (5, 5, 1), (9, 9, 1), (11, 11, 1)]);
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
    assert!(err.contains("2.stdout") && err.contains("is a folder"), "{err}");
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
        (vec!["--n", "1..5", "--last-digits", "39"], "--last-digits"),
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

/// Stopped while the runs that tell the answer forms apart are under way, `stress` claims nothing of
/// the program's form ("auto: ... taken as ...") and says no run completed.
#[test]
fn ctrl_c_before_any_answer_claims_no_form() {
    let args = ["stress", "sleep 60", "--n", "1..40", "-j", "2"];
    let (status, out, err) = signalled(&args, Duration::from_millis(1500), "INT", || {});
    assert_eq!(status.code(), Some(130), "{out}{err}");
    assert!(out.contains("interrupted before any run"), "{out}");
    assert!(!err.contains("auto:") && !out.contains("taken as"), "{out}{err}");
}

/// On a terminal, the progress bar is cleared before the report: the report starts a line of its
/// own, not the end of the bar's. Run under a pseudo-terminal by util-linux's `script`.
#[test]
fn the_bar_is_cleared_before_the_report() {
    let command = format!("{} stress 'sleep 1; echo 17' --n 10 --exact", binary().display());
    let Ok(output) = std::process::Command::new("script").args(["-qec", &command, "/dev/null"]).output() else {
        skip("util-linux's `script` is not installed, so no terminal can be had");
        return;
    };
    let text = String::from_utf8_lossy(&output.stdout);
    let at = text.find("1 run of c(n, 0)").unwrap_or_else(|| panic!("the report: {text:?}"));
    assert!(text.contains("runs 1/1"), "the bar was drawn: {text:?}");
    let before = &text[..at];
    assert!(before.ends_with("\u{1b}[2K") || before.ends_with('\n'), "the report on a line of its own: {text:?}");
}
