//! Under a limit on the processes of its user (RLIMIT_NPROC, `prlimit --nproc`, which counts threads
//! too), every command runs on the threads it can have (the calling one is enough) with a warning,
//! or refuses with exit 2 and one line naming the limit: never a panic. The limit does not bind
//! root, so each run drops to a user id of its own (one no other process is likely to have, as the
//! limit counts every process of that user on the machine) with `setpriv`, from a copy of the
//! binary that user may run; where the tests are not root or `setpriv`/`prlimit` are missing, they
//! are skipped with a message.

use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

use crate::common::*;

/// A folder that a user other than root can read, holding a copy of the binary.
struct Limited {
    dir: TempDir,
    binary: String,
}

/// The next user id for a run: one per run (the tests here make fewer than 100, some at the same
/// time, and the limit counts the processes of every run of one user), apart from those of other
/// test processes.
fn fresh_uid() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    50_000 + (std::process::id() % 10_000) * 100 + NEXT.fetch_add(1, Ordering::Relaxed) % 100
}

impl Limited {
    /// `None`, with the test skipped and why, where runs as another user cannot be made.
    fn new(tag: &str) -> Option<Limited> {
        // SAFETY: geteuid has no preconditions and cannot fail.
        if unsafe { libc::geteuid() } != 0 {
            skip("not root: cannot run fibtree as another user under a process limit");
            return None;
        }
        for tool in ["setpriv", "prlimit"] {
            if Command::new(tool).arg("--version").output().is_err() {
                skip(format!("no {tool} (util-linux) to run under a process limit"));
                return None;
            }
        }
        let dir = TempDir::new(tag);
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let binary = dir.join("fibtree");
        std::fs::copy(crate::common::binary(), &binary).unwrap();
        std::fs::set_permissions(&binary, std::fs::Permissions::from_mode(0o755)).unwrap();
        Some(Limited { dir, binary })
    }

    /// Runs `fibtree args` as a fresh user under `prlimit --nproc=nproc`, checking that it neither
    /// panicked nor aborted and that its exit status is 0, 1 or 2.
    fn run(&self, nproc: u32, args: &[&str]) -> Output {
        let uid = fresh_uid().to_string();
        let output = Command::new("setpriv")
            .args([&format!("--reuid={uid}"), &format!("--regid={uid}"), "--clear-groups"])
            .args(["prlimit", &format!("--nproc={nproc}"), &self.binary])
            .args(args)
            .current_dir(self.dir.path())
            .output()
            .unwrap();
        let err = stderr(&output);
        let what = format!("fibtree {args:?} under --nproc={nproc}");
        assert_no_panic(args, &output.stderr);
        assert!(!err.contains("internal error"), "{what}: {err}");
        assert!(matches!(output.status.code(), Some(0..=2)), "{what}: {:?}: {err}", output.status);
        output
    }
}

/// Checks that `output` is a refusal for the process limit: exit 2, one line naming RLIMIT_NPROC.
fn refused_for_the_limit(what: &str, output: &Output) {
    let err = stderr(output);
    assert_eq!(output.status.code(), Some(2), "{what}: {err}");
    assert!(err.lines().count() == 1 && err.starts_with("error: ") && err.contains("RLIMIT_NPROC"), "{what}: {err}");
}

/// A count with one process allowed (no thread but the first) or two gives its value, whatever
/// number of threads is asked for; a warning on stderr says where fewer threads run.
#[test]
fn a_count_runs_on_the_threads_it_can_have() {
    let Some(limited) = Limited::new("count") else { return };
    let want = success(&["count", "2000", "-q"]);
    for nproc in [1, 2] {
        for threads in [None, Some("1"), Some("2"), Some("4")] {
            let mut args = vec!["count", "2000", "-q"];
            args.extend(threads.iter().flat_map(|t| ["--threads", t]));
            let output = limited.run(nproc, &args);
            let err = stderr(&output);
            assert_eq!((output.status.code(), stdout(&output)), (Some(0), want.clone()), "{args:?} {nproc}: {err}");
            for line in err.lines() {
                assert!(line.starts_with("warning: ") && line.contains("RLIMIT_NPROC is"), "{args:?} {nproc}: {err}");
            }
        }
    }
}

/// Under a limit with room for some threads but not all those asked for, a count computes on those
/// it could start (more than one), says so on stderr, and reports them; its value is the same.
#[test]
fn a_count_runs_on_as_many_threads_as_the_limit_leaves() {
    let Some(limited) = Limited::new("count-some") else { return };
    let want = success(&["count", "2000", "-q"]);
    for nproc in [5, 6] {
        let output = limited.run(nproc, &["count", "2000", "--threads", "7", "--json"]);
        let (out, err) = (stdout(&output), stderr(&output));
        assert_eq!(output.status.code(), Some(0), "--nproc={nproc}: {err}");
        let json: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(format!("{}\n", json["value"].as_str().unwrap()), want, "--nproc={nproc}");
        let threads = json["threads"].as_u64().unwrap();
        // the process itself is one of the user's processes
        assert!((2..u64::from(nproc)).contains(&threads), "--nproc={nproc}: {threads} threads: {err}");
        let said = "warning: could not start 7 threads (";
        let on = format!(": computing on the {threads} it started\n");
        assert!(err.starts_with(said) && err.ends_with(&on) && err.contains("RLIMIT_NPROC is"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

/// `self-test` under the limit: every rung passes, and the rung of thread counts says which it
/// could not start.
#[test]
fn self_test_runs_on_the_threads_it_can_have() {
    let Some(limited) = Limited::new("self-test") else { return };
    for nproc in [1, 2] {
        let output = limited.run(nproc, &["self-test", "--seed", "0x5eed"]);
        let (out, err) = (stdout(&output), stderr(&output));
        assert_eq!(output.status.code(), Some(0), "--nproc={nproc}: {out}{err}");
        assert_eq!(out.lines().filter(|l| l.starts_with("OK ")).count(), 7, "--nproc={nproc}: {out}");
        assert!(out.contains("threads not compared: could not start"), "--nproc={nproc}: {out}");
    }
}

/// A `stress` report's lines but those of the machine's figures (times, memory).
fn verdicts(report: &str) -> String {
    let figures = ["time: ", "memory: ", "fibtree: "];
    report.lines().filter(|l| !figures.iter().any(|f| l.starts_with(f))).collect::<Vec<_>>().join("\n")
}

/// `stress` under the limit: with room for its program (`echo 0` through `sh -c`, one process
/// with fibtree's own) it reports as it does without the limit, its runs taking turns where more
/// jobs are asked for than the limit has room for; with no room it refuses, naming the limit, and
/// says nothing about the program. Its threads for the true values count too: with more of them
/// than the limit allows, it computes on one with a warning.
#[test]
fn stress_runs_its_program_as_the_limit_allows() {
    let Some(limited) = Limited::new("stress") else { return };
    let args = ["stress", "echo 0", "--n", "1..3", "--exact", "--threads", "1", "--jobs", "1"];
    let free = fibtree(&args);
    let output = limited.run(2, &args);
    let same = (free.status.code(), verdicts(&stdout(&free)));
    assert_eq!((output.status.code(), verdicts(&stdout(&output))), same, "{}", stderr(&output));
    assert_eq!(stderr(&output), "", "nothing to warn of");
    for jobs in ["1", "3"] {
        let args = ["stress", "echo 0", "--n", "1..3", "--exact", "--threads", "1", "--jobs", jobs];
        refused_for_the_limit(&format!("--jobs {jobs} under --nproc=1"), &limited.run(1, &args));
        let output = limited.run(2, &args);
        assert_eq!(output.status.code(), free.status.code(), "--jobs {jobs}: {}", stderr(&output));
        assert_eq!(verdicts(&stdout(&output)), same.1, "--jobs {jobs}: {}", stderr(&output));
    }
    let output = limited.run(2, &["stress", "echo 0", "--n", "1..3", "--exact", "--threads", "2"]);
    assert_eq!((output.status.code(), verdicts(&stdout(&output))), same, "{}", stderr(&output));
    assert!(stderr(&output).starts_with("warning: could not start 2 threads"), "{}", stderr(&output));
}

/// A right program that forks (a shell script whose answer comes through `$(...)` and a pipeline,
/// three processes beside its shell) under every limit from 2 to 8 processes, with more runs at a
/// time than the limit has room for: the limit is fibtree's, never the program's crash. Each
/// command either reports as it does without the limit (its runs that failed for the limit made
/// again alone, fewer at a time) or, where the limit has no room for the program even alone,
/// refuses naming it (exit 2); under 2 it refuses, under 8 it reports.
#[test]
fn stress_runs_a_forking_program_again_alone_or_refuses_for_the_limit() {
    let Some(limited) = Limited::new("stress-forks") else { return };
    let values: String = (1..=6).map(|n| format!("{n} {}\n", fibtree::count(n, 0).unwrap())).collect();
    limited.dir.file("values", values);
    let script = limited.dir.file("right.sh", "#!/bin/sh\nv=$(grep \"^$1 \" values | cut -d ' ' -f 2)\necho \"$v\"\n");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let args = ["stress", "./right.sh {}", "--n", "1..6", "--exact", "--jobs", "3"];
    let free = fibtree_in(limited.dir.path(), &args);
    assert_eq!(free.status.code(), Some(0), "{}", stderr(&free));
    let mut outcomes = Vec::new();
    for nproc in 2..=8 {
        let output = limited.run(nproc, &args);
        let what = format!("under --nproc={nproc}");
        match output.status.code() {
            Some(2) => {
                // one line, beside the warnings of the threads it could not start for the true values
                let err = stderr(&output);
                let lines: Vec<&str> = err.lines().filter(|l| !l.starts_with("warning: could not start")).collect();
                assert_eq!(lines.len(), 1, "{what}: {err}");
                assert!(lines[0].starts_with("error: CMD: ") && lines[0].contains("RLIMIT_NPROC of"), "{what}: {err}");
            }
            _ => {
                let err = stderr(&output);
                assert_eq!(output.status.code(), Some(0), "{what}: {}{err}", stdout(&output));
                assert_eq!(verdicts(&stdout(&output)), verdicts(&stdout(&free)), "{what}: {err}");
            }
        }
        outcomes.push(output.status.code());
    }
    assert_eq!((outcomes[0], outcomes[6]), (Some(2), Some(0)), "{outcomes:?}");
}

/// `bench`, whose threads are what it measures, refuses a number of threads it cannot start.
#[test]
fn bench_refuses_threads_it_cannot_start() {
    let Some(limited) = Limited::new("bench") else { return };
    let output = limited.run(1, &["bench", "--n", "300", "--threads", "2", "--runs", "1", "--no-progress"]);
    refused_for_the_limit("bench --threads 2 under --nproc=1", &output);
    assert!(stderr(&output).starts_with("error: --threads: could not start 2 threads"), "{}", stderr(&output));
}
