//! Checkpoints: a run killed with SIGKILL at several moments resumes to the same answer; a damaged,
//! truncated or foreign checkpoint is refused; SIGINT saves one and exits 130 with no stray file.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant, SystemTime};

const N: &str = "14000";

fn binary() -> PathBuf {
    assert_cmd::cargo::cargo_bin("fibtree")
}

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fibtree-ckpt-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn start(ckpt: &Path) -> Child {
    Command::new(binary())
        .args(["count", N, "-q", "--checkpoint", ckpt.to_str().unwrap(), "--checkpoint-every", "1"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
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

fn uninterrupted() -> String {
    let out = Command::new(binary()).args(["count", N, "-q"]).output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

fn stray_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

#[test]
fn killed_after_one_two_and_three_checkpoints_then_resumed() {
    let want = uninterrupted();
    let dir = folder("kill");
    let ckpt = dir.join("run.ckpt");
    // kill -9 right after the 1st checkpoint, then after 2 more, then after 3 more
    let mut killed = 0;
    for saves in [1, 2, 3] {
        let mut child = start(&ckpt);
        let mut last = modified(&ckpt);
        let mut all_saved = true;
        for _ in 0..saves {
            all_saved &= wait_for_save(&mut child, &ckpt, last);
            last = modified(&ckpt);
        }
        if all_saved {
            child.kill().unwrap(); // SIGKILL
            killed += 1;
        }
        child.wait().unwrap();
        assert!(stray_files(&dir).is_empty() || all_saved, "{:?}", stray_files(&dir));
    }
    assert!(killed >= 1, "the run should outlast at least one checkpoint");
    let out = Command::new(binary()).args(["count", N, "-q", "--checkpoint", ckpt.to_str().unwrap()]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("resuming from the checkpoint"), "{err}");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), want);
    assert!(!ckpt.exists(), "the checkpoint is removed at the end");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sigint_saves_a_checkpoint_and_exits_130_then_damage_is_refused() {
    let dir = folder("sigint");
    let ckpt = dir.join("run.ckpt");
    let child = start(&ckpt);
    std::thread::sleep(Duration::from_millis(2500));
    Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(out.stdout.is_empty());
    assert!(ckpt.exists(), "{err}");
    assert!(stray_files(&dir).is_empty(), "{:?}", stray_files(&dir));

    let refused = |path: &Path, args: &[&str], why: &str| {
        let out = Command::new(binary())
            .args(["count", N, "-q", "--checkpoint", path.to_str().unwrap()])
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(out.stdout.is_empty());
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("--checkpoint") && err.contains(why), "{err}");
    };
    let bytes = std::fs::read(&ckpt).unwrap();
    let damaged = dir.join("damaged.ckpt");
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 3] ^= 1;
    std::fs::write(&damaged, &flipped).unwrap();
    refused(&damaged, &[], "damaged");
    std::fs::write(&damaged, &bytes[..bytes.len() / 2]).unwrap();
    refused(&damaged, &[], "damaged");
    std::fs::write(&damaged, b"not a checkpoint at all").unwrap();
    refused(&damaged, &[], "checkpoint");
    refused(&ckpt, &["--g", "1"], "made for");
    refused(&ckpt, &["--mod", "7"], "made for");
    refused(&ckpt, &["--engine", "reference"], "blocked engine");

    // --fresh starts over; the answer is right either way
    let out = Command::new(binary())
        .args(["count", N, "-q", "--checkpoint", damaged.to_str().unwrap(), "--fresh", "--keep-checkpoint"])
        .args(["--checkpoint-every", "1"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), uninterrupted());
    assert!(damaged.exists(), "--keep-checkpoint keeps the last one saved");
    std::fs::remove_dir_all(&dir).unwrap();
}
