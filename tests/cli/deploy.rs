//! The files in `deploy/` run the commands they name: the Slurm scripts with the variables Slurm
//! sets, the Kubernetes Jobs' scripts with the index and resources Kubernetes sets, so that they
//! cannot drift from the command line; the Kubernetes files parse and agree with each other and with
//! the `Containerfile` and the README's commands that build their image. (On a real Slurm: `slurm`.)

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

/// `count.sbatch` as Slurm runs it, without Slurm: the count, its value written whole; SIGTERM to
/// the batch shell (what `--signal=B:TERM@...` sends) saves the checkpoint and, with a job to
/// requeue, calls `scontrol requeue` (a stand-in here, which logs its call), else ends with fibtree's
/// status; the next run resumes and writes the value; a count past `--mem` is refused, not requeued.
#[test]
fn the_long_count_script_saves_requeues_and_resumes() {
    let dir = TempDir::new("slurm-count");
    let out = dir.join("out");
    let script = deploy("slurm/count.sbatch");
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let log = dir.join("scontrol.log");
    std::fs::write(bin.join("scontrol"), format!("#!/bin/sh\necho \"$@\" >> '{log}'\n")).unwrap();
    run("chmod", &["+x", bin.join("scontrol").to_str().unwrap()], &[], dir.path());
    let path = format!("{}:{}", bin.display(), path_with_binary());
    let start = |n: &str, vars: &[(&str, &str)]| {
        Command::new("bash")
            .arg(&script)
            .envs([("N", n), ("OUT", out.as_str()), ("CHECKPOINT_EVERY", "0")])
            .envs(vars.iter().copied())
            .env("PATH", &path)
            .current_dir(dir.path())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    // stopped once the count has saved: the checkpoint kept, the job requeued
    let ckpt = Path::new(&out).join("c20000-0.ckpt");
    let mut child = start("20000", &[("SLURM_JOB_ID", "77"), ("SLURM_CPUS_PER_TASK", "1")]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !ckpt.exists() && child.try_wait().unwrap().is_none() {
        assert!(std::time::Instant::now() < deadline, "no checkpoint within two minutes");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _ = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
    let stopped = child.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&stopped.stdout).into_owned() + &String::from_utf8_lossy(&stopped.stderr);
    assert_eq!(stopped.status.code(), Some(0), "{said}");
    let value = Path::new(&out).join("c20000-0.txt");
    if said.contains("requeued") {
        assert_eq!(std::fs::read_to_string(&log).unwrap(), "requeue 77\n", "{said}");
        assert!(ckpt.exists() && !value.exists(), "{said}");
        // run again, as the requeued job: it resumes, and writes the value
        let again = start("20000", &[("SLURM_JOB_ID", "77"), ("SLURM_RESTART_COUNT", "1")]).wait_with_output().unwrap();
        let said = String::from_utf8_lossy(&again.stderr);
        assert_eq!(again.status.code(), Some(0), "{said}");
        assert!(said.contains("resuming from the checkpoint"), "{said}");
    } else {
        // the count ended before the signal: nothing to requeue
        assert!(said.contains("done"), "{said}");
    }
    assert_eq!(std::fs::read_to_string(&value).unwrap(), success(&["count", "20000", "-q"]));
    assert!(!ckpt.exists());
    // a value already there is not counted again
    let again = start("20000", &[("SLURM_JOB_ID", "79")]).wait_with_output().unwrap();
    assert!(again.status.success() && String::from_utf8_lossy(&again.stdout).contains("is already there"));
    // a count past the job's --mem: refused, its status kept, not requeued
    std::fs::remove_file(&value).unwrap();
    let refused = start("20000", &[("SLURM_JOB_ID", "78"), ("SLURM_MEM_PER_NODE", "1")]).wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{said}");
    assert!(said.contains("--max-memory: this run needs about") && said.contains("not requeued"), "{said}");
    assert!(!std::fs::read_to_string(&log).unwrap_or_default().contains("78"));
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
    // one task of the array with `vars`, its output kept for the checks
    let task = |vars: &[(&str, &str)]| {
        let script = deploy("slurm/shard.sbatch");
        Command::new("bash").arg(script).envs(vars.iter().copied()).env("PATH", path_with_binary()).output().unwrap()
    };
    // without S, a task is refused before any work, saying so
    let refused = task(&[("N", "2000"), ("OUT", &out), ("SLURM_ARRAY_TASK_ID", "1"), ("SLURM_ARRAY_TASK_COUNT", "1")]);
    assert!(!refused.status.success() && String::from_utf8_lossy(&refused.stderr).contains("set S"));
    // a task whose --mem (SLURM_MEM_PER_NODE, MiB) is less than its shard needs is refused, saying so
    let refused =
        task(&[("N", "2000"), ("S", "3"), ("OUT", &out), ("SLURM_ARRAY_TASK_ID", "1"), ("SLURM_MEM_PER_NODE", "1")]);
    assert_eq!(refused.status.code(), Some(2), "{}", String::from_utf8_lossy(&refused.stderr));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--max-memory: this run needs about"));
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
    // the time limits: twice the estimate plus 10 minutes, rounded up; the estimate of f(2000) is
    // well under a minute on any machine, but 0.0 s on a fast one: 10 or 11 minutes
    let calls = submit(&[]);
    assert_eq!(calls.len(), 2, "{calls:?}");
    let limited =
        |call: &str, before: &str| ["10", "11"].iter().any(|m| call.contains(&format!("{before} --time={m} ")));
    assert!(limited(&calls[0], "--array=1-64") && calls[0].ends_with("shard.sbatch"), "{calls:?}");
    assert!(limited(&calls[1], "--dependency=afterany:4242") && calls[1].ends_with("combine.sbatch"), "{calls:?}");
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
    // THREADS and MEMORY as the downward API gives them: requests.cpu 2, limits.memory 1Gi in bytes
    let resources = [("THREADS", "2"), ("MEMORY", "1073741824")];
    for index in ["0", "1", "2"] {
        let vars = [("N", "2000"), ("G", "0"), ("SHARDS", "3"), ("JOB_COMPLETION_INDEX", index)];
        run("sh", &["-c", &shard], &[&vars[..], &resources].concat(), dir.path());
    }
    run("sh", &["-c", &job_script("kubernetes/combine.yaml", &data)], &resources[..1], dir.path());
    let json: Value = serde_json::from_str(&std::fs::read_to_string(format!("{data}/result.json")).unwrap()).unwrap();
    assert_eq!((json["ok"].clone(), json["value"].clone()), (Value::Bool(true), want()));
    // a shard that needs more than the pod's memory limit is refused, saying so, before any work
    let vars = [
        ("N", "2000"),
        ("G", "0"),
        ("SHARDS", "3"),
        ("JOB_COMPLETION_INDEX", "0"),
        ("THREADS", "2"),
        ("MEMORY", "1000"),
    ];
    let refused = Command::new("sh").args(["-c", &shard]).envs(vars).env("PATH", path_with_binary()).output().unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--max-memory"));
}

/// Every document of a file of `deploy/kubernetes/`, as JSON, read by PyYAML; `None` where python3
/// or PyYAML is missing.
fn yaml_documents(file: &str) -> Option<Vec<Value>> {
    let has_yaml = Command::new("python3").args(["-c", "import yaml"]).output().is_ok_and(|o| o.status.success());
    if !has_yaml {
        return None;
    }
    let script = "import json, sys, yaml; print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))";
    let out = Command::new("python3").args(["-c", script]).arg(deploy(file)).output().unwrap();
    assert!(out.status.success(), "{file}: {}", String::from_utf8_lossy(&out.stderr));
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

/// Checks what `shards.yaml` and `combine.yaml` share: the image of the Containerfile, not pulled
/// where the node has it; the claim of `volume.yaml`; CPU and memory requested and limited; the
/// threads from the CPU request; and the script that `job_script` reads. Returns the container.
fn check_job(job: &Value, file: &str, claim: &str) -> Value {
    assert_eq!(job["kind"], "Job", "{file}");
    let pod = &job["spec"]["template"]["spec"];
    assert_eq!(pod["volumes"][0]["persistentVolumeClaim"]["claimName"], claim, "{file}");
    let container = pod["containers"][0].clone();
    assert_eq!(
        (&container["image"], &container["imagePullPolicy"]),
        (&Value::from(format!("{IMAGE}:latest")), &Value::from("IfNotPresent")),
        "{file}"
    );
    let resources = &container["resources"];
    for (kind, resource) in [("requests", "cpu"), ("requests", "memory"), ("limits", "cpu"), ("limits", "memory")] {
        assert!(resources[kind][resource].is_string(), "{file}: {kind}.{resource}");
    }
    assert_eq!(resources["requests"]["cpu"], resources["limits"]["cpu"], "{file}: as many threads as CPUs");
    let threads = env_from(&container, "THREADS");
    assert_eq!(
        (&threads["containerName"], &threads["resource"]),
        (&container["name"], &Value::from("requests.cpu")),
        "{file}"
    );
    let script = container["args"][0].as_str().unwrap();
    assert_eq!(script, job_script(file, "/data"), "{file}: the script the run test runs");
    assert!(script.contains("--threads \"$THREADS\""), "{file}: {script}");
    container
}

/// The `resourceFieldRef` of the container's variable `name`.
fn env_from(container: &Value, name: &str) -> Value {
    let vars = container["env"].as_array().unwrap();
    let var = vars.iter().find(|v| v["name"] == name).unwrap_or_else(|| panic!("{name} in {container}"));
    var["valueFrom"]["resourceFieldRef"].clone()
}

/// The value of the container's variable `name`.
fn env_value(container: &Value, name: &str) -> String {
    let vars = container["env"].as_array().unwrap();
    let var = vars.iter().find(|v| v["name"] == name).unwrap_or_else(|| panic!("{name} in {container}"));
    var["value"].as_str().unwrap().to_string()
}

#[test]
fn the_kubernetes_files_parse_and_agree() {
    let Some(volume) = yaml_documents("kubernetes/volume.yaml") else {
        crate::common::skip("python3 with PyYAML is not installed (`apt-get install python3-yaml`)");
        return;
    };
    assert_eq!(volume.len(), 1);
    assert_eq!(volume[0]["kind"], "PersistentVolumeClaim");
    assert_eq!(volume[0]["spec"]["accessModes"], serde_json::json!(["ReadWriteMany"]), "pods on many nodes write it");
    let claim = volume[0]["metadata"]["name"].as_str().unwrap();
    let shards = yaml_documents("kubernetes/shards.yaml").unwrap();
    let container = check_job(&shards[0], "kubernetes/shards.yaml", claim);
    assert_eq!(shards[0]["spec"]["completionMode"], "Indexed");
    assert_eq!(shards[0]["spec"]["completions"].to_string(), env_value(&container, "SHARDS"), "SHARDS is completions");
    let memory = env_from(&container, "MEMORY");
    assert_eq!((&memory["containerName"], &memory["resource"]), (&container["name"], &Value::from("limits.memory")));
    let combine = yaml_documents("kubernetes/combine.yaml").unwrap();
    check_job(&combine[0], "kubernetes/combine.yaml", claim);
}

/// The image the Kubernetes Jobs run, as the README builds it.
const IMAGE: &str = "localhost/fibtree";

#[test]
fn the_containerfile_builds_the_image_as_the_readme_says() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let containerfile = std::fs::read_to_string(root.join("Containerfile")).unwrap();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let build = format!("podman build -t {IMAGE} -f Containerfile .");
    assert!(readme.contains(&format!("$ {build}")) && containerfile.contains(&build), "{build}");
    assert!(readme.contains(&format!("podman save -o fibtree.tar {IMAGE}:latest")));
    // a Rust stage that builds the release binary as the README says, then a slim one with it alone
    let stages: Vec<&str> = containerfile.lines().filter(|l| l.starts_with("FROM ")).collect();
    assert!(
        stages.len() == 2
            && stages[0].contains("rust:")
            && stages[0].ends_with(" AS build")
            && stages[1].contains("-slim"),
        "{stages:?}"
    );
    let run = containerfile.lines().find(|l| l.starts_with("RUN cargo ")).expect("a RUN cargo line");
    assert!(readme.contains(&format!("`{}`", run.strip_prefix("RUN ").unwrap())), "{run}");
    assert!(containerfile.contains("COPY --from=build /src/target/release/fibtree /usr/local/bin/fibtree"));
    // the build context leaves out the local build and the history
    let ignored = std::fs::read_to_string(root.join(".dockerignore")).unwrap();
    assert!(ignored.lines().any(|l| l == "target") && ignored.lines().any(|l| l == ".git"), "{ignored}");
}
