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

/// A checkpoint file's words after its magic (version, n, g, the engine, the moduli's count, the
/// moduli, their residues, the cut, the half, the state...), with `edits` (word index, new value)
/// made and its checksum made right again: a forgery that the checksum cannot tell.
fn forged(file: &[u8], edits: &[(usize, u64)]) -> Vec<u8> {
    let mut body = file[..file.len() - 8].to_vec();
    for &(word, value) in edits {
        let at = 8 + 8 * word;
        body[at..at + 8].copy_from_slice(&value.to_le_bytes());
    }
    let sum = fibtree_util::fnv1a(&body);
    body.extend_from_slice(&sum.to_le_bytes());
    body
}

/// The word at `index` after the magic.
fn word(file: &[u8], index: usize) -> u64 {
    u64::from_le_bytes(file[8 + 8 * index..16 + 8 * index].try_into().unwrap())
}

/// The index of the first lane of the first state of the newer live layer of the run's state: past
/// the header, for the top-down half the bottom-up half's state and the direct moves' words, then
/// the state (k0, the chunks' lanes, the two non-zero sets as base, length and words, the passes'
/// count, then each pass's chunks as length and words, a layer at a time): docs/formats.md.
fn live_lane(file: &[u8]) -> usize {
    let mut at = HALF + 1;
    let skip_state = |at: &mut usize| -> usize {
        *at += 2; // k0, chunk lanes
        for _ in 0..2 {
            *at += 1; // base
            *at += 1 + word(file, *at) as usize; // length, words
        }
        *at += 1; // passes
        *at
    };
    if word(file, HALF) == 1 {
        let passes = word(file, skip_state(&mut at) - 1) as usize;
        // every pass's chunks and carries: two layers each, a length and words each
        for _ in 0..4 * passes {
            at += 1 + word(file, at) as usize;
        }
        at += 1 + word(file, at) as usize; // the direct moves
    }
    let first = skip_state(&mut at);
    // the first pass's chunk: the older layer (length, words), then the newer
    let newer = first + 1 + word(file, first) as usize;
    newer + 1
}

/// The words of a checkpoint with the two default moduli: the residues, the cut and the half.
const RESIDUES: [usize; 2] = [7, 8];
const CUT: usize = 9;
const HALF: usize = 10;

/// Forged checkpoints of either half, their checksums right: none gives a wrong value on standard
/// output, none is removed. What the plan determines (the cut, the half's state, the layers' shapes)
/// or the modular engine computes (the residues) is refused before any work (exit 2, one line naming
/// --checkpoint); lanes altered resume to a value the checks catch (exit 1, nothing on stdout, the
/// report on stderr); the file, untouched, then resumes to the true count.
#[test]
fn forged_checkpoints_never_give_a_wrong_value_nor_lose_the_file() {
    let dir = TempDir::new("forged");
    let ckpt = dir.path().join("run.ckpt");
    let path = ckpt.to_str().unwrap();
    let out = dir.path().join("value.txt");
    let want = success(&["count", "3000", "-q"]);
    // the last save of each run is kept: the top-down half's of a count from both ends, and the
    // bottom-up run's where the cut is the top layer
    for (cut, half) in [(None, 1), (Some("3000"), 0)] {
        let mut make =
            vec!["count", "3000", "-q", "--checkpoint", path, "--checkpoint-every", "0", "--keep-checkpoint"];
        make.extend(cut.map(|c| ["--cut", c]).iter().flatten());
        assert_eq!(success(&make), want);
        let real = std::fs::read(&ckpt).unwrap();
        assert_eq!(word(&real, HALF), half, "the half of the last save");
        let saved_cut = word(&real, CUT);
        let resume = ["count", "3000", "-q", "--checkpoint", path, "-o", out.to_str().unwrap()];
        let mut refusals = vec![
            // the recipe: the top-down half's cut moved up, then its residues set to the wrong value's
            (vec![(CUT, saved_cut + 500)], "does not fit this count"),
            (vec![(CUT, saved_cut + 500), (RESIDUES[0], 1), (RESIDUES[1], 2)], "is damaged"),
            (vec![(CUT, 1)], "does not fit this count"),
            (vec![(RESIDUES[1], (word(&real, RESIDUES[1]) + 1) % 998244353)], "is damaged"),
            (vec![(HALF, 1 - half)], "checkpoint"),
        ];
        if half == 1 {
            // the bottom-up half ended below the cut saved: moved down, it is not done
            refusals.push((vec![(CUT, saved_cut - 1)], "does not fit this count"));
        } else {
            // a bottom-up state is one of every cut above its layer: moved down (still above it), the
            // count resumes at that cut, to the same value
            std::fs::write(&ckpt, forged(&real, &[(CUT, saved_cut - 1)])).unwrap();
            let (value, err) = success_with_stderr(&["count", "3000", "-q", "--checkpoint", path, "--keep-checkpoint"]);
            assert_eq!(value, want, "{err}");
        }
        for (edits, said) in refusals {
            let bytes = forged(&real, &edits);
            std::fs::write(&ckpt, &bytes).unwrap();
            let err = usage_error(&resume, "--checkpoint");
            assert!(err.contains(said) && err.contains(path), "{edits:?}: {err}");
            assert_eq!(std::fs::read(&ckpt).unwrap(), bytes, "{edits:?}: the file is kept as it was");
            assert!(!out.exists(), "{edits:?}: no output file");
        }
        // a lane of the live state altered: the value the run resumes to fails its checks
        let lane = live_lane(&real);
        let bytes = forged(&real, &[(lane, word(&real, lane) ^ 0x1234)]);
        std::fs::write(&ckpt, &bytes).unwrap();
        let output = fibtree(&resume);
        let err = stderr(&output);
        assert_eq!((output.status.code(), stdout(&output).as_str()), (Some(1), ""), "{err}");
        assert!(err.contains("CROSS-CHECK FAILED") && err.contains("withheld"), "{err}");
        assert!(err.contains("a prime drawn for this run") && err.contains("is kept"), "{err}");
        assert_eq!(std::fs::read(&ckpt).unwrap(), bytes, "the file is kept as it was");
        assert!(!out.exists(), "no output file");
        // the file as it was saved resumes to the true count, and goes
        std::fs::write(&ckpt, &real).unwrap();
        let (value, err) = success_with_stderr(&["count", "3000", "-q", "--checkpoint", path]);
        assert_eq!(value, want, "{err}");
        assert!(err.contains("resuming from the checkpoint"), "{err}");
        assert!(!ckpt.exists());
    }
}

/// One rule for what is a checkpoint: a file that begins with FIBTCKPT, damaged or not, which
/// `--fresh` discards; anything else (an empty file, random bytes) is refused alike with or without
/// `--fresh`, and left as it is.
#[test]
fn fresh_discards_what_is_a_checkpoint_and_nothing_else() {
    let dir = TempDir::new("fresh-rule");
    for (name, bytes) in [
        ("empty.ckpt", &b""[..]),
        ("random.ckpt", &[0x9e, 0x37, 0x79, 0xb9, 0x7f, 0x4a, 0x7c, 0x15, 1]),
        ("short.ckpt", b"FIBT"),
    ] {
        let path = dir.file(name, bytes);
        for fresh in [false, true] {
            let mut args = vec!["count", "300", "-q", "--checkpoint", &path];
            if fresh {
                args.push("--fresh");
            }
            let err = usage_error(&args, "--checkpoint");
            assert!(err.contains("is not a fibtree checkpoint (it does not begin with FIBTCKPT)"), "{name}: {err}");
            assert_eq!(err.contains("--fresh does not discard it"), fresh, "{name}: {err}");
            assert_eq!(std::fs::read(&path).unwrap(), bytes, "{name}: left as it was");
        }
    }
    // a checkpoint cut short is one: refused as damaged, discarded by --fresh
    let path = dir.file("cut.ckpt", b"FIBTCKPT\x04\x00");
    let err = usage_error(&["count", "300", "-q", "--checkpoint", &path], "--checkpoint");
    assert!(err.contains("is damaged"), "{err}");
    let (_, err) = success_with_stderr(&["count", "300", "-q", "--checkpoint", &path, "--fresh"]);
    assert!(err.contains("discarded the checkpoint"), "{err}");
}

/// A checkpoint named through a symbolic link: the file it leads to is saved, read and removed at
/// the end; the link stays a link.
#[test]
fn a_linked_checkpoint_saves_and_removes_its_target_and_keeps_the_link() {
    let dir = TempDir::new("linked");
    std::fs::create_dir(dir.path().join("real")).unwrap();
    let link = dir.path().join("run.ckpt");
    std::os::unix::fs::symlink("real/target.ckpt", &link).unwrap();
    let target = dir.path().join("real/target.ckpt");
    let path = link.to_str().unwrap();
    let want = success(&["count", "3000", "-q"]);
    let kept = ["count", "3000", "-q", "--checkpoint", path, "--checkpoint-every", "0", "--keep-checkpoint"];
    assert_eq!(success(&kept), want);
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link stays a link");
    assert!(target.is_file(), "the target holds the checkpoint");
    let (out, err) = success_with_stderr(&["count", "3000", "-q", "--checkpoint", path]);
    assert_eq!(out, want);
    assert!(err.contains("resuming from the checkpoint"), "{err}");
    assert!(!target.exists(), "the checkpoint goes at the end");
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link stays");
    // refused runs leave no lock file beside the target or the link
    let err = usage_error(&["count", "3000", "-q", "--checkpoint", path, "--max-memory", "1M"], "--max-memory");
    assert!(err.contains("needs about"), "{err}");
    let left: Vec<String> = std::fs::read_dir(dir.path().join("real"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A checkpoint whose lock file cannot be written (a full file system): refused before any work,
/// naming the folder, and nothing left there.
#[test]
fn a_full_disk_refuses_the_checkpoint_before_any_work_and_leaves_nothing() {
    let dir = TempDir::new("ckpt-nospace");
    let Some(small) = Mounted::tmpfs(&dir, "64k") else { return };
    // fill it: the lock file's pid has no room
    let filler = small.0.join("filler");
    let _ = std::fs::write(&filler, vec![0u8; 1 << 20]);
    let ckpt = small.0.join("run.ckpt");
    let args = ["count", "3000", "-q", "--checkpoint", ckpt.to_str().unwrap()];
    let output = fibtree(&args);
    let err = stderr(&output);
    let left: Vec<String> =
        std::fs::read_dir(&small.0).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(left, ["filler"], "nothing left but what was there: {err}");
    match output.status.code() {
        // refused before any work, naming the checkpoint's folder
        Some(2) => assert!(err.contains("--checkpoint") && err.contains("No space left"), "{err}"),
        // or the lock fitted (a file system that keeps room for small files): the count went on
        Some(0) => assert_eq!(stdout(&output), success(&["count", "3000", "-q"])),
        other => panic!("{other:?}: {err}"),
    }
}
