//! Checkpoints: a run killed with SIGKILL at several moments resumes to the same answer; SIGINT
//! saves one and exits 130 with no stray file; a second run on the same checkpoint is refused at
//! once; `--fresh` starts over from a damaged one. (A damaged, truncated or foreign checkpoint, or a
//! path that cannot be one, is refused: see `validation.rs`.)

use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant, SystemTime};

use crate::common::*;

const N: &str = "20000";

/// The arguments of a run that saves a checkpoint to `ckpt` every second.
fn checkpointed(ckpt: &Path) -> [&str; 7] {
    ["count", N, "-q", "--checkpoint", ckpt.to_str().unwrap(), "--checkpoint-every", "1"]
}

/// The arguments of a run that saves a checkpoint to `ckpt` between every two segments, whatever
/// the machine's speed.
fn saving_always(ckpt: &Path) -> [&str; 7] {
    ["count", N, "-q", "--checkpoint", ckpt.to_str().unwrap(), "--checkpoint-every", "0"]
}

fn start(ckpt: &Path) -> Child {
    spawn(&checkpointed(ckpt))
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Waits until the checkpoint is written anew (or the run ends); true if it was.
fn wait_for_save(child: &mut Child, ckpt: &Path, before: Option<SystemTime>) -> bool {
    let deadline = Instant::now() + Duration::from_secs(120);
    while Instant::now() < deadline {
        if modified(ckpt).is_some_and(|m| Some(m) != before) {
            return true;
        }
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("no checkpoint within two minutes");
}

/// f(N) from a run without checkpoints, computed once for every test here.
fn uninterrupted() -> String {
    static VALUE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    VALUE.get_or_init(|| success(&["count", N, "-q"])).clone()
}

/// The temporary files left in `dir`.
fn stray_files(dir: &TempDir) -> Vec<String> {
    dir.names().into_iter().filter(|n| n.ends_with(".tmp")).collect()
}

/// Killed after one save, then after two more and three more (each run saving between every two
/// segments, so that a run of any speed saves before it ends), then resumed: the same answer. A run
/// that ends before its saves (a fast machine, in the last segments) gives the answer itself.
#[test]
fn killed_after_one_two_and_three_checkpoints_then_resumed() {
    let want = uninterrupted();
    let dir = TempDir::new("kill");
    let ckpt = dir.path().join("run.ckpt");
    // kill -9 right after the 1st checkpoint, then after 2 more, then after 3 more
    let mut killed = 0;
    for saves in [1, 2, 3] {
        let mut child = spawn(&saving_always(&ckpt));
        let mut last = modified(&ckpt);
        let mut all_saved = true;
        for _ in 0..saves {
            all_saved &= wait_for_save(&mut child, &ckpt, last);
            last = modified(&ckpt);
        }
        if all_saved {
            child.kill().unwrap(); // SIGKILL
            killed += 1;
            child.wait().unwrap();
            continue;
        }
        // it ended before its saves: with the answer, its checkpoint removed, nothing left
        let out = child.wait_with_output().unwrap();
        assert_no_panic(&saving_always(&ckpt), &out.stderr);
        assert_eq!(String::from_utf8_lossy(&out.stdout), want, "{}", String::from_utf8_lossy(&out.stderr));
        assert!(dir.names().is_empty(), "{:?}", dir.names());
        return;
    }
    assert_eq!(killed, 3);
    let (out, err) = success_with_stderr(&["count", N, "-q", "--checkpoint", ckpt.to_str().unwrap()]);
    assert!(err.contains("resuming from the checkpoint"), "{err}");
    assert_eq!(out, want);
    assert!(!ckpt.exists(), "the checkpoint is removed at the end");
}

/// Stops a checkpointed run with `signal` once it has saved, and checks what every stop owes: the
/// exit `status`, no output, the checkpoint saved and named with the signal, no stray file, the lock
/// released; then the same command resumes from it, to the uninterrupted answer.
fn stopped_by_then_resumed(signal: &str, status: i32) {
    let dir = TempDir::new(&signal.to_lowercase());
    let ckpt = dir.path().join("run.ckpt");
    let mut child = start(&ckpt);
    // once the exact engine is under way (its first periodic save), stop the run
    assert!(wait_for_save(&mut child, &ckpt, None), "the run should outlast its first checkpoint");
    std::process::Command::new("kill").args([&format!("-{signal}"), &child.id().to_string()]).status().unwrap();
    let out = child.wait_with_output().unwrap();
    assert_no_panic(&checkpointed(&ckpt), &out.stderr);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(status), "SIG{signal}: {err}");
    assert!(out.stdout.is_empty());
    assert!(err.contains("saved the checkpoint") && err.contains(&format!("SIG{signal}")), "{err}");
    assert!(ckpt.exists(), "{err}");
    assert!(stray_files(&dir).is_empty(), "{:?}", stray_files(&dir));
    assert!(!dir.path().join(".run.ckpt.lock").exists(), "the lock file goes with the run: {err}");

    let (out, err) = success_with_stderr(&["count", N, "-q", "--checkpoint", ckpt.to_str().unwrap()]);
    assert!(err.contains("resuming from the checkpoint"), "{err}");
    assert_eq!(out, uninterrupted());
    assert!(!ckpt.exists(), "the checkpoint is removed at the end");
}

#[test]
fn sigint_saves_a_checkpoint_and_exits_130_then_the_run_resumes() {
    stopped_by_then_resumed("INT", 130);
}

/// SIGHUP (the terminal gone) stops a run as SIGTERM does.
#[test]
fn sighup_saves_a_checkpoint_releases_the_lock_and_exits_129() {
    stopped_by_then_resumed("HUP", 129);
}

/// A save cut short by `kill -9` leaves its temporary file; the next run on the checkpoint removes
/// it (and nothing else of that name's neighbours).
#[test]
fn a_save_cut_short_leaves_nothing_once_the_next_run_holds_the_checkpoint() {
    let dir = TempDir::new("stale");
    let ckpt = dir.path().join("run.ckpt");
    let stale = dir.path().join(".run.ckpt.0123456789abcdef.tmp");
    let other = dir.path().join(".run.ckpt.notours.tmp");
    std::fs::write(&stale, b"half a checkpoint").unwrap();
    std::fs::write(&other, b"someone else's").unwrap();
    let out = success(&["count", "300", "-q", "--checkpoint", ckpt.to_str().unwrap()]);
    assert!(!out.is_empty());
    assert!(!stale.exists(), "the stale save is removed");
    assert!(other.exists(), "a file not named as a save is left");
}

#[test]
fn a_second_run_on_the_same_checkpoint_is_refused_naming_the_first() {
    let dir = TempDir::new("locked");
    let ckpt = dir.path().join("run.ckpt");
    let mut first = start(&ckpt);
    // the first run holds the checkpoint from its start: its lock file says so
    let lock = dir.path().join(".run.ckpt.lock");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !std::fs::read_to_string(&lock).is_ok_and(|s| s.ends_with('\n')) {
        assert!(Instant::now() < deadline, "no lock file within 30 s: {:?}", dir.names());
        std::thread::sleep(Duration::from_millis(20));
    }
    let args = checkpointed(&ckpt);
    let output = fibtree(&args);
    let _ = first.kill();
    let _ = first.wait();
    let err = check_usage_error(&args, &output, "--checkpoint");
    assert!(err.contains(&format!("process {}", first.id())), "names the other run: {err}");
    // the lock of a killed run is taken over, and removed when the run completes
    let output = fibtree(&["count", "100", "-q", "--checkpoint", ckpt.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(dir.names().iter().all(|n| n.ends_with(".ckpt")), "left {:?}", dir.names());
}

#[test]
fn fresh_starts_over_from_a_damaged_checkpoint() {
    let dir = TempDir::new("fresh");
    // a file of something else is not discarded: refused, and left as it was
    let thesis = dir.file("thesis.txt", "chapter one");
    let err = usage_error(&["count", "300", "--checkpoint", &thesis, "--fresh"], "--checkpoint");
    assert!(err.contains("is not a fibtree checkpoint"), "{err}");
    assert_eq!(std::fs::read_to_string(&thesis).unwrap(), "chapter one");
    std::fs::remove_file(&thesis).unwrap();
    // a damaged checkpoint (its first bytes, then garbage) is
    let ckpt = dir.file("run.ckpt", "FIBTCKPT and then garbage");
    let want = success(&["count", "3000", "-q"]);
    // saves at every segment and keeps the last checkpoint saved
    let fresh =
        ["count", "3000", "-q", "--checkpoint", &ckpt, "--checkpoint-every", "0", "--fresh", "--keep-checkpoint"];
    let (out, err) = success_with_stderr(&fresh);
    assert_eq!(out, want);
    assert!(err.contains("discarded the checkpoint"), "{err}");
    // what is kept is a checkpoint of this run, which the same count resumes from
    let (out, err) = success_with_stderr(&["count", "3000", "-q", "--checkpoint", &ckpt]);
    assert!(err.contains("resuming from the checkpoint"), "{err}");
    assert_eq!(out, want);
    assert!(dir.names().is_empty(), "the checkpoint is removed at the end: {:?}", dir.names());
}

/// A small file system mounted for one test (root only), unmounted when dropped.
struct Mounted(std::path::PathBuf);

impl Mounted {
    /// A tmpfs of `size` (as mount's `size=` takes it) at a fresh folder, or `None` (said) where
    /// this process may not mount one.
    fn tmpfs(dir: &TempDir, size: &str) -> Option<Mounted> {
        let point = dir.path().join("small");
        std::fs::create_dir(&point).unwrap();
        let mounted = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&point)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !mounted {
            crate::common::skip("a tmpfs cannot be mounted here (root and CAP_SYS_ADMIN are needed)");
            return None;
        }
        Some(Mounted(point))
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

/// A checkpoint on a file system too small for it: every save fails, the count goes on and gives
/// the same answer (exit 0), the failure said once on standard error, and nothing is left there.
#[test]
fn a_checkpoint_that_cannot_be_saved_does_not_stop_the_count() {
    let dir = TempDir::new("ckpt-full");
    let Some(small) = Mounted::tmpfs(&dir, "256k") else { return };
    let ckpt = small.0.join("run.ckpt");
    // a save tried between every two segments: the first fails whatever the machine's speed
    let args =
        ["count", "12000", "-q", "--threads", "1", "--checkpoint", ckpt.to_str().unwrap(), "--checkpoint-every", "0"];
    let (out, err) = success_with_stderr(&args);
    assert_eq!(out, success(&["count", "12000", "-q"]));
    let warnings: Vec<&str> = err.lines().filter(|l| l.contains("cannot save the checkpoint")).collect();
    assert_eq!(warnings.len(), 1, "said once: {err}");
    assert!(warnings[0].starts_with("warning:") && warnings[0].contains("No space left"), "{err}");
    let left: Vec<_> = std::fs::read_dir(&small.0).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(left.is_empty(), "{left:?}");
}
