//! The files in `deploy/` run the commands they name: the Slurm scripts with the variables Slurm
//! sets, the Kubernetes Jobs' scripts with the index Kubernetes sets, so that they cannot drift from
//! the command line.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::*;

/// The folder of the `fibtree` binary under test, first on a PATH.
pub fn path_with_binary() -> String {
    let dir = binary().parent().unwrap().to_path_buf();
    format!("{}:{}", dir.display(), std::env::var("PATH").unwrap_or_default())
}

/// The file `file` of `deploy/`.
pub fn deploy(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy").join(file)
}

/// Runs `program args` with `vars` set and fibtree on the PATH; fails unless it exits 0.
fn run(program: &str, args: &[&str], vars: &[(&str, &str)], cwd: &Path) {
    let out = Command::new(program)
        .args(args)
        .envs(vars.iter().copied())
        .env("PATH", path_with_binary())
        .current_dir(cwd)
        .output()
        .unwrap();
    assert!(out.status.success(), "{program} {args:?} {vars:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// The exact value of c(2000, 0), as `count` gives it.
fn want() -> Value {
    success_json(&["count", "2000", "--json"])["value"].clone()
}

#[test]
fn the_slurm_scripts_shard_and_combine() {
    let dir = TempDir::new("slurm");
    let out = dir.join("out");
    // an array from 0 (task 0 is shard S), S from the submission: a task run again alone is an
    // array of one, and its SLURM_ARRAY_TASK_COUNT of 1 changes nothing
    for (task, count) in [("0", "3"), ("1", "3"), ("2", "1")] {
        let vars = [
            ("N", "2000"),
            ("S", "3"),
            ("OUT", &out),
            ("SLURM_ARRAY_TASK_ID", task),
            ("SLURM_ARRAY_TASK_COUNT", count),
        ];
        run("bash", &[deploy("slurm/shard.sbatch").to_str().unwrap()], &vars, dir.path());
    }
    assert!(Path::new(&out).join("3.json").exists(), "task 0 writes shard 3");
    let result = dir.join("result.json");
    run("bash", &[deploy("slurm/combine.sbatch").to_str().unwrap()], &[("OUT", &out), ("RESULT", &result)], dir.path());
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&result).unwrap()).unwrap();
    assert_eq!((json["ok"].clone(), json["value"].clone()), (Value::Bool(true), want()));
    // without S, a task is refused before any work, saying so
    let vars = [("N", "2000"), ("OUT", &out), ("SLURM_ARRAY_TASK_ID", "1"), ("SLURM_ARRAY_TASK_COUNT", "1")];
    let refused = Command::new("bash")
        .arg(deploy("slurm/shard.sbatch"))
        .envs(vars)
        .env("PATH", path_with_binary())
        .output()
        .unwrap();
    assert!(!refused.status.success() && String::from_utf8_lossy(&refused.stderr).contains("set S"));
    // submit.sh: the array, then the combine job after it, through a stand-in sbatch that logs its calls
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let log = dir.join("sbatch.log");
    let fake = format!("#!/bin/sh\necho \"$@\" >> '{log}'\necho '4242;cluster'\n");
    std::fs::write(bin.join("sbatch"), fake).unwrap();
    run("chmod", &["+x", bin.join("sbatch").to_str().unwrap()], &[], dir.path());
    let path = format!("{}:{}", bin.display(), path_with_binary());
    let script = deploy("slurm/submit.sh");
    let submit_with = |shards: &str, vars: &[(&str, &str)]| {
        let _ = std::fs::remove_file(&log);
        Command::new("bash")
            .args([script.to_str().unwrap(), "2000", shards])
            .envs(vars.iter().copied())
            .env("PATH", &path)
            .output()
            .unwrap()
    };
    let submit = |vars: &[(&str, &str)]| {
        let submitted = submit_with("64", vars);
        assert!(submitted.status.success(), "{}", String::from_utf8_lossy(&submitted.stderr));
        std::fs::read_to_string(&log).unwrap().lines().map(str::to_string).collect::<Vec<String>>()
    };
    // a bad count of shards is refused by the estimate, before anything is queued
    let refused = submit_with("0", &[]);
    assert_eq!(refused.status.code(), Some(2), "{}", String::from_utf8_lossy(&refused.stderr));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--shards") && !Path::new(&log).exists());
    // the time limits: twice the estimate (well under a minute for f(2000)) plus 10 minutes
    let calls = submit(&[]);
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert!(calls[0].contains("--array=1-64 --time=11 ") && calls[0].ends_with("shard.sbatch"), "{calls:?}");
    assert!(
        calls[1].contains("--dependency=afterany:4242 --time=11 ") && calls[1].ends_with("combine.sbatch"),
        "{calls:?}"
    );
    // a rerun of one task, with the limits given
    let calls = submit(&[("TASKS", "17"), ("SHARD_TIME", "2:00:00"), ("COMBINE_TIME", "30")]);
    assert!(calls[0].contains("--array=17 --time=2:00:00 "), "{calls:?}");
    assert!(calls[1].contains("--time=30 "), "{calls:?}");
}

/// The script of a Job's container: the argument after the `# script` line, with `/data` moved to
/// `data`.
fn job_script(file: &str, data: &str) -> String {
    let text = std::fs::read_to_string(deploy(file)).unwrap();
    let mut lines = text.lines().skip_while(|l| l.trim() != "# script").skip(1);
    let line = lines.next().unwrap_or_else(|| panic!("{file} has a # script line")).trim();
    let script = line.strip_prefix("- '").and_then(|l| l.strip_suffix('\'')).expect("a quoted script");
    script.replace("/data", data)
}

#[test]
fn the_kubernetes_jobs_shard_and_combine() {
    let dir = TempDir::new("kubernetes");
    let data = dir.join("data");
    let shard = job_script("kubernetes/shards.yaml", &data);
    for index in ["0", "1", "2"] {
        let vars = [("N", "2000"), ("G", "0"), ("SHARDS", "3"), ("JOB_COMPLETION_INDEX", index)];
        run("sh", &["-c", &shard], &vars, dir.path());
    }
    run("sh", &["-c", &job_script("kubernetes/combine.yaml", &data)], &[], dir.path());
    let json: Value = serde_json::from_str(&std::fs::read_to_string(format!("{data}/result.json")).unwrap()).unwrap();
    assert_eq!((json["ok"].clone(), json["value"].clone()), (Value::Bool(true), want()));
}
