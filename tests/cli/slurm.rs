//! The Slurm recipes of `deploy/slurm/` on a real one-node Slurm cluster (`local-cluster.sh`):
//! `submit.sh`'s array and combine, a task that fails and is run again as the README says, an
//! array from 0 submitted by hand, and `count.sbatch`'s one long count that saves and requeues
//! itself at its time limit until it is done. Skipped, and said so, where Slurm or munge is not
//! installed or this is not root (`.ci/run` installs them). One cluster at a time.
//!
//! Both tests take two minutes or more, most of it waiting for Slurm, so they are left out of
//! `cargo test --release` (`#[ignore]`); `.ci/run` runs them:
//! `cargo test --release --test cli -- --ignored slurm::`. What they drive without Slurm, the
//! scripts' saving, requeueing and resuming, is tested by `deploy::` in the default suite.

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

/// Held while a test's cluster runs: one cluster on the machine at a time.
static ONE_CLUSTER: std::sync::Mutex<()> = std::sync::Mutex::new(());

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
#[ignore = "two minutes of Slurm: cargo test --release --test cli -- --ignored slurm::"]
fn the_slurm_recipes_run_on_a_one_node_cluster() {
    let _one = ONE_CLUSTER.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
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

/// The counts the long count's test may run, smallest first: the exact count of f(n) on two
/// threads grows with n by steps, as the window of the layers doubles (docs/math.md).
const LONG_COUNTS: [u64; 7] = [40_000, 50_000, 60_000, 80_000, 100_000, 120_000, 150_000];

/// The index in [`LONG_COUNTS`] of the first count that `fibtree estimate` puts at `seconds` or more
/// on two threads on this machine (the last where none is).
fn first_count_of_at_least(seconds: f64) -> usize {
    for (i, n) in LONG_COUNTS.iter().enumerate() {
        let json = success_json(&["estimate", &n.to_string(), "--threads", "2", "--json"]);
        let predicted = json["exact"]["seconds"].as_f64().unwrap_or_else(|| panic!("exact.seconds in {json}"));
        println!("count {n}: {predicted:.0} s predicted on two threads");
        if predicted >= seconds {
            return i;
        }
    }
    LONG_COUNTS.len() - 1
}

/// The states a Slurm job ends in (`man squeue`, "JOB STATE CODES").
const FINAL_STATES: [&str; 9] =
    ["COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY"];

/// `count.sbatch` for f(n) in `here`, under a time limit of a minute (`--signal=B:TERM@50`), until
/// the job is done: its `scontrol show job` line, its log and the folder of its value.
fn long_count(cluster: &Cluster, here: &Path, n: u64) -> (String, String, std::path::PathBuf) {
    let out = here.join(format!("out-{n}"));
    let recipe = deploy("slurm/count.sbatch");
    let args = ["--parsable", "--time=1", "--signal=B:TERM@50", "--cpus-per-task=2", recipe.to_str().unwrap()];
    let n_text = n.to_string();
    let vars = [("N", n_text.as_str()), ("OUT", out.to_str().unwrap())];
    let job = cluster.run("sbatch", &args, &vars, here);
    let job = job.trim().split(';').next().unwrap().to_string();
    // requeued jobs come back pending: wait for the end of the last run
    let deadline = Instant::now() + Duration::from_secs(1200);
    let shown = loop {
        let shown = cluster.run("scontrol", &["show", "job", "-o", &job], &[], here);
        let state = shown.split_whitespace().find_map(|f| f.strip_prefix("JobState=")).unwrap_or("").to_string();
        // the states a job ends in; any other (PENDING, RUNNING, SIGNALING, REQUEUED, ...) passes
        if state.is_empty() || FINAL_STATES.contains(&state.as_str()) {
            break shown;
        }
        assert!(Instant::now() < deadline, "job {job} not done after 20 minutes: {shown}");
        std::thread::sleep(Duration::from_secs(1));
    };
    let log = std::fs::read_to_string(here.join(format!("fibtree-count-{job}.log"))).unwrap_or_default();
    (shown, log, out)
}

/// `count.sbatch`: one exact count under a time limit of a minute, told by Slurm to stop before it
/// (`--signal=B:TERM@50`; Slurm checks its limits about every 30 s), saves its checkpoint, requeues
/// itself and resumes, until done; the value is written whole, and agrees with the modular engine's
/// residues. The first count is the one this machine's estimate puts at three jobs' worth of time or
/// more on the job's two CPUs; one that ends with fewer than two requeues (a faster machine than its
/// estimate said) is followed by the next larger, until one requeues at least twice.
#[test]
#[ignore = "two minutes of Slurm: cargo test --release --test cli -- --ignored slurm::"]
fn a_long_count_saves_requeues_and_resumes_until_done() {
    let _one = ONE_CLUSTER.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let Some(cluster) = Cluster::start() else { return };
    let here = folder(&cluster, "long");
    for &n in &LONG_COUNTS[first_count_of_at_least(50.0)..] {
        let (shown, log, out) = long_count(&cluster, &here, n);
        assert!(shown.contains("JobState=COMPLETED"), "{shown}\n{log}");
        let restarts: u32 =
            shown.split_whitespace().find_map(|f| f.strip_prefix("Restarts=")).unwrap().parse().unwrap();
        println!("count {n}: done after {restarts} requeues");
        assert_eq!(log.matches("the checkpoint is saved; requeued").count() as u32, restarts, "{log}");
        assert!(log.matches("resuming from the checkpoint").count() as u32 >= restarts, "{log}");
        // the value, checked against the modular engine's residues; the checkpoint gone
        let value = std::fs::read_to_string(out.join(format!("c{n}-0.txt"))).unwrap();
        let residues = success(&["count", &n.to_string(), "--mod-only", "-q"]);
        let value: num_bigint::BigUint = value.trim().parse().unwrap();
        let want: Vec<&str> = residues.lines().collect();
        assert_eq!([(&value % LAST18).to_string(), (&value % P998244353).to_string()], [want[0], want[1]]);
        assert!(
            !out.join(format!("c{n}-0.ckpt")).exists(),
            "{:?}",
            std::fs::read_dir(&out).unwrap().collect::<Vec<_>>()
        );
        if restarts >= 2 {
            return;
        }
    }
    panic!("no count of {LONG_COUNTS:?} requeued twice");
}
