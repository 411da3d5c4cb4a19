//! `FIBTREE_ISA`: the same answers under every kernel set this CPU has, each run saying which set
//! it used; an unknown value or a set this CPU lacks refused (exit 2, one line naming the
//! variable) before any work; the value taken in any case, empty or `auto` for the set measured
//! fastest (one of those the CPU has: which one is the machine's, never asserted).

use std::process::Output;

use assert_cmd::Command;
use serde_json::Value;

use crate::common::*;

/// Every value `FIBTREE_ISA` names a kernel set by, the narrowest first.
const ALL: [&str; 3] = ["baseline", "avx2", "avx512"];

/// Runs `fibtree args` with `FIBTREE_ISA` set to `isa` (removed for `None`), checking that it did
/// not panic.
fn with_isa(isa: Option<&str>, args: &[&str]) -> Output {
    let mut cmd = Command::cargo_bin("fibtree").unwrap();
    cmd.args(args).timeout(TIMEOUT);
    match isa {
        Some(value) => cmd.env("FIBTREE_ISA", value),
        None => cmd.env_remove("FIBTREE_ISA"),
    };
    let output = cmd.output().unwrap_or_else(|e| panic!("running fibtree {args:?}: {e}"));
    assert_no_panic(args, &output.stderr);
    output
}

/// The kernel sets this CPU has, as `fibtree bench --json` lists them, the narrowest first.
fn available() -> Vec<String> {
    let args = ["bench", "--n", "100", "--threads", "1", "--runs", "1", "--no-progress", "--json"];
    let output = with_isa(None, &args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let json = json_line(&args, &stdout(&output));
    let kernels: Vec<String> = json["machine"]["kernels"]
        .as_array()
        .unwrap_or_else(|| panic!("machine.kernels in {json}"))
        .iter()
        .map(|k| k.as_str().expect("a kernel name").to_string())
        .collect();
    assert_eq!(kernels.first().map(String::as_str), Some("baseline"), "{json}");
    assert!(kernels.iter().all(|k| ALL.contains(&k.as_str())), "{json}");
    let auto = json["kernel"].as_str().unwrap_or_default().to_string();
    assert!(kernels.contains(&auto), "auto is one of the sets: {json}");
    kernels
}

/// `count 3000 --json --verbose` under `isa`: the JSON, and the kernel set its stderr names.
fn count_under(isa: &str) -> (Value, String) {
    let args = ["count", "3000", "--json", "--verbose"];
    let output = with_isa(Some(isa), &args);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "FIBTREE_ISA={isa:?}: {err}");
    let json = json_line(&args, &stdout(&output));
    let line = err.lines().find(|l| l.starts_with("kernel ")).unwrap_or_else(|| panic!("a kernel line in {err:?}"));
    let name = line.split_whitespace().nth(1).expect("the kernel's name").to_string();
    (json, name)
}

#[test]
fn every_kernel_set_counts_alike() {
    let kernels = available();
    let (auto, measured) = count_under("");
    assert!(kernels.contains(&measured), "empty is auto, a set measured fastest: {measured}");
    assert!(kernels.contains(&count_under("auto").1));
    for kernel in &kernels {
        let (json, used) = count_under(kernel);
        assert_eq!(&used, kernel, "FIBTREE_ISA={kernel} runs its kernels");
        assert_eq!(json["value"], auto["value"], "the value under {kernel}");
        assert!(json["value"].as_str().is_some_and(|v| v.len() > 600), "{json}");
        let projections = json["projections"].as_array().expect("projections");
        assert_eq!(projections.len(), 2, "{json}");
        for p in projections {
            assert_eq!(p["agrees"], true, "{kernel}: {p}");
            assert_eq!(p["residue"], p["independent"], "{kernel}: {p}");
        }
        assert_eq!(json["projections"], auto["projections"], "{kernel}");
        // and the benchmark's header says so
        let output = with_isa(Some(kernel), &["bench", "--n", "100", "--threads", "1", "--runs", "1", "--no-progress"]);
        let out = stdout(&output);
        let line = format!("kernel   {kernel} (forced by FIBTREE_ISA; this CPU has: {})", kernels.join(", "));
        assert!(out.lines().any(|l| l == line), "{line:?} in\n{out}");
    }
}

#[test]
fn names_are_taken_in_any_case() {
    let kernels = available();
    for kernel in &kernels {
        for written in [kernel.to_uppercase(), format!(" {kernel} ")] {
            assert_eq!(&count_under(&written).1, kernel, "FIBTREE_ISA={written:?}");
        }
    }
    assert!(kernels.contains(&count_under("AUTO").1));
}

#[test]
fn unknown_values_are_refused_before_any_work() {
    for value in ["sse9", "avx", "avx2,avx512", "native"] {
        for args in [&["count", "3000"][..], &["count", "3000", "--mod-only"], &["bench", "--n", "100"], &["self-test"]]
        {
            let err = check_usage_error(args, &with_isa(Some(value), args), "FIBTREE_ISA");
            let want = format!("error: FIBTREE_ISA: expected auto, baseline, avx2 or avx512, got {value:?}\n");
            assert_eq!(err, want, "fibtree {args:?}");
        }
    }
    // commands that compute nothing do not read it
    let output = with_isa(Some("sse9"), &["completions", "bash"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(!output.stdout.is_empty());
}

#[test]
fn a_kernel_set_this_cpu_lacks_is_refused() {
    let kernels = available();
    let missing: Vec<&str> = ALL.into_iter().filter(|k| !kernels.iter().any(|have| have == k)).collect();
    if missing.is_empty() {
        crate::common::skip(format!("this CPU has every kernel set ({})", kernels.join(", ")));
        return;
    }
    for kernel in missing {
        for args in [&["count", "3000", "--json"][..], &["bench", "--n", "100"], &["table", "1", "20"]] {
            let err = check_usage_error(args, &with_isa(Some(kernel), args), "FIBTREE_ISA");
            let want = format!(" (it has: {})\n", kernels.join(", "));
            assert!(err.starts_with("error: FIBTREE_ISA: this CPU has no ") && err.ends_with(&want), "{err:?}");
        }
    }
}

#[test]
fn self_test_says_which_kernel_set_it_tests() {
    use std::io::{BufRead, BufReader};
    // the header only: the ladder itself is stopped once it is read
    let mut child = std::process::Command::new(binary())
        .args(["self-test", "--seed", "1"])
        .env("FIBTREE_ISA", "Baseline")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("starting fibtree self-test");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let header: Vec<String> = lines.by_ref().take(2).map(|l| l.expect("a line")).collect();
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(header[0], "seed 0x1", "{header:?}");
    assert!(header[1].starts_with("kernel baseline (forced by FIBTREE_ISA; this CPU has: baseline"), "{header:?}");
}

#[test]
fn help_and_manual_list_the_variable() {
    let help = success(&["--help"]);
    let environment = help.split("Environment:\n").nth(1).unwrap_or_else(|| panic!("{help}"));
    assert!(environment.starts_with("  FIBTREE_ISA ") && environment.contains("\n  FIBTREE_MACHINE "), "{help}");
    let man = success(&["man"]);
    let section = man.split(".SH ENVIRONMENT\n").nth(1).unwrap_or_else(|| panic!("an ENVIRONMENT section in\n{man}"));
    assert!(section.starts_with(".TP\n\\fBFIBTREE_ISA\\fR\n"), "{section}");
    assert!(!man.contains(".SH EXTRA"), "no section of clap's own for it");
}

/// `FIBTREE_MACHINE`: a simulated machine's kernel sets, cores and caches are the ones `bench` names
/// (and says are simulated); a set the CPU has not, or a value that is not a machine, refused (exit
/// 2, one line naming the variable) before any work, by every command that computes.
#[test]
fn a_simulated_machine_is_the_one_every_command_sees() {
    let args = ["bench", "--n", "100", "--threads", "1", "--runs", "1", "--no-progress", "--json"];
    let json = on_machine("l2=512K,l3=none,cores=64,kernels=baseline", || success_json(&args));
    assert_eq!(json["machine"]["kernels"], serde_json::json!(["baseline"]), "{json}");
    assert_eq!((&json["machine"]["cores"], &json["kernel"]), (&Value::from(64), &Value::from("baseline")), "{json}");
    assert_eq!(json["machine"]["simulated"], "l2=512K,l3=none,cores=64,kernels=baseline", "{json}");
    let caches = &json["stream"]["caches"];
    assert_eq!((&caches["l2_bytes"], &caches["l3_reported"]), (&Value::from(512 << 10), &Value::from(false)), "{json}");
    assert_eq!(success_json(&args)["machine"]["simulated"], Value::Null);
    for (value, said) in [
        ("l2=5", "l2: expected a cache from 16K to 1T, or none, got \"5\""),
        ("cores=0", "cores: expected from 1 to 4096"),
        ("gpu=1", "got the key \"gpu\""),
        ("l2=1M,l2=2M", "l2 is given twice"),
    ] {
        for command in [&["count", "10"][..], &["verify", "10", "--answer", "17"], &["self-test"]] {
            let mut cmd = Command::cargo_bin("fibtree").unwrap();
            let output = cmd.args(command).env("FIBTREE_MACHINE", value).timeout(TIMEOUT).output().unwrap();
            let err = check_usage_error(command, &output, "FIBTREE_MACHINE");
            assert!(err.contains(said), "{value}: {err}");
        }
    }
    // a wider set than the CPU's cannot be run: refused where the CPU lacks AVX-512, taken where not
    let wide = available().last().cloned().unwrap();
    if wide != "avx512" {
        let mut cmd = Command::cargo_bin("fibtree").unwrap();
        let output = cmd.args(["count", "10"]).env("FIBTREE_MACHINE", "kernels=avx512").output().unwrap();
        let err = check_usage_error(&["count", "10"], &output, "FIBTREE_MACHINE");
        assert!(err.contains("this CPU has no avx512 to run"), "{err}");
    }
}
