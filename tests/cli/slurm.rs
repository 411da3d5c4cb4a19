//! The Slurm recipes of `deploy/slurm/` on a real one-node Slurm cluster (`local-cluster.sh`):
//! `submit.sh`'s array and combine, a task that fails and is run again as the README says, and an
//! array from 0 submitted by hand. Skipped, and said so, where Slurm or munge is not installed or
//! this is not root (`.ci/run` installs them).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::deploy::{deploy, path_with_binary};
use crate::common::*;

/// How long the jobs of one submission may take, queueing included: a few seconds for c(3000, 0) on
/// an idle machine, more beside a whole test suite.
const DEADLINE: Duration = Duration::from_secs(120);

/// A one-node cluster started by `local-cluster.sh start` in a temporary folder, stopped (its
/// daemons ended by their process ids) when dropped, a failed test included.
struct Cluster {
    dir: TempDir,
}

impl Cluster {
    /// The running cluster, or `None` (said on stdout) where this machine cannot run one.
    fn start() -> Option<Cluster> {
        let dir = TempDir::new("slurm-cluster");
        let out =
            Command::new("bash").arg(deploy("slurm/local-cluster.sh")).arg("start").arg(dir.path()).output().unwrap();
        match out.status.code() {
            Some(0) => Some(Cluster { dir }),
            Some(3) => {
                crate::common::skip(String::from_utf8_lossy(&out.stderr).trim());
                None
            }
            _ => panic!("local-cluster.sh start: {}", String::from_utf8_lossy(&out.stderr)),
        }
    }

    /// `program args` in `cwd` as a user of this cluster runs it: its SLURM_CONF, fibtree on the
    /// PATH and `vars` set; fails unless it exits 0, and returns its standard output.
    fn run(&self, program: &str, args: &[&str], vars: &[(&str, &str)], cwd: &Path) -> String {
        let out = Command::new(program)
            .args(args)
            .envs(vars.iter().copied())
            .env("SLURM_CONF", self.dir.path().join("slurm.conf"))
            .env("PATH", path_with_binary())
            .current_dir(cwd)
            .output()
            .unwrap();
        assert!(out.status.success(), "{program} {args:?} {vars:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    }

    /// The state of each job (each task of an array) of `jobs`, once none is pending or running.
    fn wait(&self, jobs: &[&str], cwd: &Path) -> Vec<String> {
        let start = Instant::now();
        let list = jobs.join(",");
        loop {
            let queue = self.run("squeue", &["-h", "-j", &list, "-o", "%i %T %r"], &[], cwd);
            if queue.trim().is_empty() {
                break;
            }
            assert!(start.elapsed() < DEADLINE, "jobs {list} still queued after {DEADLINE:?}:\n{queue}");
            std::thread::sleep(Duration::from_millis(200));
        }
        let shown =
            jobs.iter().map(|job| self.run("scontrol", &["show", "job", "-o", job], &[], cwd)).collect::<String>();
        shown
            .lines()
            .filter_map(|line| line.split_whitespace().find_map(|field| field.strip_prefix("JobState=")))
            .map(str::to_string)
            .collect()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let stopped =
            Command::new("bash").arg(deploy("slurm/local-cluster.sh")).arg("stop").arg(self.dir.path()).status();
        if !matches!(stopped, Ok(status) if status.success()) {
            eprintln!("local-cluster.sh stop {}: {stopped:?}", self.dir.path().display());
        }
    }
}

/// The job ids that `submit.sh` printed, the array's then the combine's (`job ID: ...` lines).
fn submitted(stdout: &str) -> Vec<String> {
    let ids: Vec<String> =
        stdout.lines().filter_map(|l| l.strip_prefix("job ")?.split(':').next().map(str::to_string)).collect();
    assert_eq!(ids.len(), 2, "{stdout}");
    ids
}

/// The value in the combine's result file, checked against `count`'s.
fn check_result(path: &Path) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let json: Value = serde_json::from_str(&text).unwrap();
    let want = success_json(&["count", "3000", "--json"])["value"].clone();
    assert_eq!((json["ok"].clone(), json["value"].clone()), (Value::Bool(true), want));
}

/// A folder `name` in the cluster's folder, where a user submits from.
fn folder(cluster: &Cluster, name: &str) -> std::path::PathBuf {
    let path = cluster.dir.path().join(name);
    std::fs::create_dir(&path).unwrap();
    path
}

#[test]
fn the_slurm_recipes_run_on_a_one_node_cluster() {
    let Some(cluster) = Cluster::start() else { return };
    let submit = deploy("slurm/submit.sh");
    let submit = submit.to_str().unwrap();

    // submit.sh: 4 shards and the combine after them, each with the time limit from the estimate
    let whole = folder(&cluster, "whole");
    let jobs = submitted(&cluster.run("bash", &[submit, "3000", "4"], &[], &whole));
    let states = cluster.wait(&[&jobs[0], &jobs[1]], &whole);
    assert_eq!(states, ["COMPLETED"; 5], "{jobs:?}");
    let limit = cluster.run("scontrol", &["show", "job", "-o", &jobs[0]], &[], &whole);
    assert!(limit.contains("TimeLimit=00:11:00"), "twice the estimate plus 10 minutes: {limit}");
    check_result(&whole.join("result.json"));

    // task 3 fails (its output path is taken by a folder): the combine fails too, naming shard 3,
    // instead of waiting; the README's rerun of task 3 alone, then its combine, gives the value
    let rerun = folder(&cluster, "rerun");
    std::fs::create_dir_all(rerun.join("out/3.json")).unwrap();
    let jobs = submitted(&cluster.run("bash", &[submit, "3000", "4"], &[], &rerun));
    let states = cluster.wait(&[&jobs[0], &jobs[1]], &rerun);
    assert_eq!(states.iter().filter(|s| *s == "FAILED").count(), 2, "task 3 and the combine: {states:?}");
    let log = std::fs::read_to_string(rerun.join(format!("fibtree-combine-{}.log", jobs[1]))).unwrap();
    assert!(log.contains("shard 3 of 4 is missing"), "{log}");
    std::fs::remove_dir(rerun.join("out/3.json")).unwrap();
    let jobs = submitted(&cluster.run("bash", &[submit, "3000", "4"], &[("TASKS", "3")], &rerun));
    assert_eq!(cluster.wait(&[&jobs[0], &jobs[1]], &rerun), ["COMPLETED"; 2], "{jobs:?}");
    check_result(&rerun.join("result.json"));

    // by hand, an array from 0 (task 0 is shard 4) with S from the submission, and the combine
    let by_hand = folder(&cluster, "by-hand");
    let out = by_hand.join("out");
    let out = out.to_str().unwrap();
    let vars = [("S", "4"), ("N", "3000"), ("OUT", out)];
    let shard = deploy("slurm/shard.sbatch");
    let array = cluster.run("sbatch", &["--parsable", "--array=0-3", shard.to_str().unwrap()], &vars, &by_hand);
    let array = array.trim().split(';').next().unwrap().to_string();
    let combine = deploy("slurm/combine.sbatch");
    let dependency = format!("--dependency=afterok:{array}");
    let args = ["--parsable", &dependency, combine.to_str().unwrap()];
    let combine = cluster.run("sbatch", &args, &[("OUT", out)], &by_hand);
    assert_eq!(cluster.wait(&[&array, combine.trim()], &by_hand), ["COMPLETED"; 5]);
    check_result(&by_hand.join("result.json"));
}
