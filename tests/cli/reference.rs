//! The reference programs of `compare/reference/` (`residue_dp`, `exact_dp`) checked against
//! `fibtree count`, and `compare/compare.py`, which runs them side by side with fibtree. Skipped, and
//! said so, where `g++`, GMP or `python3` is missing (`.ci/run` installs them).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use num_bigint::BigUint;

use crate::common::*;

/// The n the reference programs are checked at: every n to 30, and two larger ones.
const CHECKED_N: [u64; 33] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30,
    500, 2000,
];

/// The folder of the reference programs' sources.
fn sources() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("compare").join("reference")
}

/// The reference programs built for these tests (`None`: skipped, the reason printed once).
struct References {
    residue_dp: Option<PathBuf>,
    exact_dp: Option<PathBuf>,
}

/// Whether `program --version` runs here.
fn installed(program: &str) -> bool {
    Command::new(program).arg("--version").output().is_ok_and(|o| o.status.success())
}

/// Compiles `source` with `libs` into `exe`: g++'s output.
fn gxx(source: &Path, exe: &Path, libs: &[&str]) -> Output {
    Command::new("g++")
        .args(["-O2", "-std=c++17", "-Wall", "-Wextra", "-o"])
        .arg(exe)
        .arg(source)
        .args(libs)
        .output()
        .expect("running g++")
}

/// Whether a program using GMP builds here (gmp.h and libgmp installed).
fn gmp_installed(dir: &Path) -> bool {
    let probe = dir.join("gmp_probe.cpp");
    std::fs::write(&probe, "#include <gmp.h>\nint main() { mpz_t z; mpz_init(z); mpz_clear(z); return 0; }\n").unwrap();
    gxx(&probe, &dir.join("gmp_probe"), &["-lgmp"]).status.success()
}

/// Compiles `compare/reference/<name>.cpp` with `libs` into the tests' own folder of the target
/// directory, failing the test if g++ fails or warns.
fn compile(dir: &Path, name: &str, libs: &[&str]) -> PathBuf {
    let exe = dir.join(name);
    let output = gxx(&sources().join(format!("{name}.cpp")), &exe, libs);
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "g++ {name}.cpp failed:\n{err}");
    assert!(!err.contains("warning"), "g++ {name}.cpp warns:\n{err}");
    exe
}

/// The reference programs, built once for this test process.
fn references() -> &'static References {
    static BUILT: OnceLock<References> = OnceLock::new();
    BUILT.get_or_init(|| {
        if !installed("g++") {
            crate::common::skip("g++ is not installed (`apt-get install g++`; .ci/run installs it)");
            return References { residue_dp: None, exact_dp: None };
        }
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("reference");
        std::fs::create_dir_all(&dir).unwrap();
        let exact_dp = gmp_installed(&dir).then(|| compile(&dir, "exact_dp", &["-lgmp"]));
        if exact_dp.is_none() {
            crate::common::skip("GMP is not installed (`apt-get install libgmp-dev`; .ci/run installs it)");
        }
        References { residue_dp: Some(compile(&dir, "residue_dp", &[])), exact_dp }
    })
}

/// Runs a reference program with `args`.
fn run(exe: &Path, args: &[&str]) -> Output {
    Command::new(exe).args(args).output().unwrap_or_else(|e| panic!("running {exe:?}: {e}"))
}

/// The one line a reference program prints on success.
fn answer(exe: &Path, args: &[&str]) -> String {
    let output = run(exe, args);
    assert_eq!(output.status.code(), Some(0), "{exe:?} {args:?}: {}", stderr(&output));
    let out = stdout(&output);
    assert!(out.ends_with('\n') && out.lines().count() == 1, "{exe:?} {args:?}: one line, got {out:?}");
    out.trim_end().to_string()
}

/// f(n) as `fibtree count n --json` gives it, for every n of [`CHECKED_N`].
fn fibtree_counts() -> &'static [(u64, BigUint)] {
    static COUNTS: OnceLock<Vec<(u64, BigUint)>> = OnceLock::new();
    COUNTS.get_or_init(|| {
        CHECKED_N
            .iter()
            .map(|&n| {
                let json = success_json(&["count", &n.to_string(), "--json"]);
                (n, json["value"].as_str().unwrap().parse().unwrap())
            })
            .collect()
    })
}

#[test]
fn residue_dp_gives_the_residues_of_fibtree_count() {
    let Some(exe) = &references().residue_dp else { return };
    for (n, value) in fibtree_counts() {
        let n = n.to_string();
        let want = format!("{} {}", residue(value, LAST18), residue(value, P998244353));
        assert_eq!(answer(exe, &[&n]), want, "residue_dp {n}");
        for m in [2, 1_000_000_007, LAST18] {
            assert_eq!(answer(exe, &[&n, &m.to_string()]), residue(value, m).to_string(), "residue_dp {n} {m}");
        }
    }
}

#[test]
fn residue_dp_is_right_at_20000_where_layers_cut_at_2n_are_not() {
    let Some(exe) = &references().residue_dp else { return };
    let json = success_json(&["count", "20000", "--mod-only", "--json"]);
    let want = format!("{} {}", json["last18"].as_str().unwrap(), json["mod_998244353"].as_str().unwrap());
    assert_eq!(answer(exe, &["20000"]), want, "residue_dp 20000");
}

#[test]
fn exact_dp_gives_the_value_of_fibtree_count() {
    let Some(exe) = &references().exact_dp else { return };
    for (n, value) in fibtree_counts() {
        assert_eq!(answer(exe, &[&n.to_string()]), value.to_string(), "exact_dp {n}");
    }
}

#[test]
fn reference_programs_refuse_bad_input_with_one_line_and_status_2() {
    let built = references();
    for (exe, bad) in [
        (
            &built.residue_dp,
            &[&[][..], &["abc"], &["-1"], &["1000001"], &["10", "1"], &["10", "1000000000000000001"]][..],
        ),
        (&built.exact_dp, &[&[][..], &[""], &["1e3"], &["99999999999999999999"], &["10", "5"]][..]),
    ] {
        let Some(exe) = exe else { continue };
        for args in bad {
            let names = if args.len() == 1 {
                "N"
            } else if args.len() == 2 && exe.ends_with("residue_dp") {
                "M"
            } else {
                "usage"
            };
            check_usage_error(args, &run(exe, args), names);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// compare/compare.py
// ---------------------------------------------------------------------------------------------

/// The path of `compare/compare.py`.
fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("compare").join("compare.py")
}

/// Runs `python3 compare/compare.py args`, or `None` (said so) where python3 is missing.
fn compare(args: &[&str]) -> Option<Output> {
    if !installed("python3") {
        crate::common::skip("python3 is not installed");
        return None;
    }
    Some(Command::new("python3").arg(script()).args(args).output().expect("running python3"))
}

#[test]
fn compare_script_prints_a_row_per_program_and_agrees() {
    let fibtree = binary();
    let Some(output) = compare(&["200", "--runs", "1", "--fibtree", fibtree.to_str().unwrap()]) else { return };
    let out = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "compare.py 200: {out}{}", stderr(&output));
    let built = references();
    for (name, exe) in [("residue_dp", &built.residue_dp), ("exact_dp", &built.exact_dp)] {
        let row = out.lines().any(|l| l.starts_with(&format!("| {name} |")));
        if exe.is_some() {
            assert!(row, "a row for {name}: {out}");
            assert!(out.contains(&format!("# {name}: agrees with fibtree")), "{out}");
        } else {
            assert!(row || out.contains(&format!("# {name}: skipped")), "{name} run or said skipped: {out}");
        }
    }
    assert!(out.lines().any(|l| l.starts_with("| fibtree | exactly")), "a row for fibtree: {out}");
    assert!(
        out.contains("| program | what it prints | f(200): median s | peak MB | fibtree's time / its time |"),
        "{out}"
    );
}

#[test]
fn compare_script_exits_1_when_an_answer_disagrees() {
    let dir = TempDir::new("compare");
    let report = |value: &str, last18: &str| {
        let json = format!(r#"{{"value":"{value}","last18":"{last18}","mod_998244353":"{value}"}}"#);
        let path = dir.file(&format!("fibtree-{value}-{last18}"), format!("#!/bin/sh\necho '{json}'\n"));
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        path
    };
    // a report whose fields disagree with each other, whatever else runs
    let inconsistent = report("17", "18");
    let Some(output) = compare(&["10", "--runs", "1", "--fibtree", &inconsistent]) else { return };
    assert_eq!(output.status.code(), Some(1), "{}{}", stdout(&output), stderr(&output));
    assert!(stderr(&output).contains("disagrees with itself"), "{}", stderr(&output));
    // f(10) = 17, not 18: every reference program disagrees
    if references().residue_dp.is_some() {
        let wrong = report("18", "18");
        let output = compare(&["10", "--runs", "1", "--fibtree", &wrong]).unwrap();
        let out = stdout(&output);
        assert_eq!(output.status.code(), Some(1), "{out}{}", stderr(&output));
        assert!(out.contains("# residue_dp: DISAGREES with fibtree"), "{out}");
    }
}

#[test]
fn compare_script_exits_0_when_its_reader_closes_the_pipe_early() {
    if !installed("python3") {
        crate::common::skip("python3 is not installed");
        return;
    }
    let mut child = Command::new("python3")
        .arg(script())
        .args(["100", "--runs", "1", "--fibtree", binary().to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("running python3");
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(output.stderr.is_empty(), "{}", stderr(&output));
}

#[test]
fn compare_script_refuses_bad_input_with_one_line_and_status_2() {
    let fibtree = binary();
    let fibtree = fibtree.to_str().unwrap();
    for (args, names) in [
        (&["abc", "--fibtree", fibtree][..], "N"),
        (&["1000001", "--fibtree", fibtree], "N"),
        (&[], "n"),
        (&["10", "--runs", "0", "--fibtree", fibtree], "--runs"),
        (&["10", "--skip", "pe400", "--fibtree", fibtree], "--skip"),
        (&["10", "--fibtree", "/nonexistent/fibtree"], "--fibtree"),
        (&["10", "--threads", "2"], "--threads"),
    ] {
        let Some(output) = compare(args) else { return };
        check_usage_error(args, &output, names);
    }
}
