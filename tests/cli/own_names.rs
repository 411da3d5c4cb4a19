//! The names fibtree gives files itself (a checkpoint's lock file `.NAME.lock`, the temporary files
//! `.NAME.RANDOM.tmp` of every write, the files `stress --keep-output` keeps, the manual pages of
//! `man -o`): whatever else stands there (a symbolic link to a file outside the folder, a dangling
//! one, a FIFO, a folder, a hard link, a file of other content) is never followed, written, truncated
//! or removed: it is refused naming it (exit 2) where fibtree needs the name, and left where it
//! does not. The paths a user names (`-o`, `--checkpoint`) are the user's: a link there is followed,
//! a FIFO or device written through (`output.rs`, `checkpoint.rs`).

use std::os::unix::fs::FileTypeExt;
use std::path::Path;

use crate::common::*;

/// A folder with a file `victim.txt` outside it, and what may stand at a name of fibtree's inside it.
struct Scene {
    dir: TempDir,
    outside: TempDir,
}

/// What is put at a name of fibtree's.
#[derive(Clone, Copy, Debug)]
enum Thing {
    /// A symbolic link to `victim.txt`, outside the folder.
    Link,
    /// A symbolic link to a file outside the folder that does not exist.
    Dangling,
    Fifo,
    Folder,
    /// A second name of `victim.txt` (a hard link), where the folder and the victim's share a file
    /// system.
    HardLink,
}

const THINGS: [Thing; 5] = [Thing::Link, Thing::Dangling, Thing::Fifo, Thing::Folder, Thing::HardLink];

impl Scene {
    fn new(tag: &str) -> Scene {
        let scene = Scene { dir: TempDir::new(tag), outside: TempDir::new(&format!("{tag}-outside")) };
        std::fs::write(scene.victim(), "precious\n").unwrap();
        scene
    }

    fn victim(&self) -> std::path::PathBuf {
        self.outside.path().join("victim.txt")
    }

    /// Puts `thing` at `name` in the folder; false where it cannot be made here (a hard link across
    /// file systems), said in the output.
    fn put(&self, name: &str, thing: Thing) -> bool {
        let at = self.dir.path().join(name);
        match thing {
            Thing::Link => std::os::unix::fs::symlink(self.victim(), &at).unwrap(),
            Thing::Dangling => std::os::unix::fs::symlink(self.outside.path().join("made.txt"), &at).unwrap(),
            Thing::Fifo => assert!(std::process::Command::new("mkfifo").arg(&at).status().unwrap().success()),
            Thing::Folder => std::fs::create_dir(&at).unwrap(),
            Thing::HardLink => {
                if let Err(e) = std::fs::hard_link(self.victim(), &at) {
                    skip(format!("a hard link in {}: {e}", self.dir.path().display()));
                    return false;
                }
            }
        }
        true
    }

    /// Checks that `thing` still stands at `name`, and that nothing outside the folder changed.
    fn left(&self, name: &str, thing: Thing) {
        let at = self.dir.path().join(name);
        let meta = std::fs::symlink_metadata(&at).unwrap_or_else(|e| panic!("{thing:?} at {name} is gone: {e}"));
        let kind = meta.file_type();
        let same = match thing {
            Thing::Link | Thing::Dangling => kind.is_symlink(),
            Thing::Fifo => kind.is_fifo(),
            Thing::Folder => kind.is_dir(),
            Thing::HardLink => kind.is_file(),
        };
        assert!(same, "{thing:?} at {name} is left as it was: {kind:?}");
        assert_eq!(std::fs::read_to_string(self.victim()).unwrap(), "precious\n", "{thing:?} at {name}");
        assert!(!self.outside.path().join("made.txt").exists(), "{thing:?} at {name}: nothing made outside");
    }

    /// Removes what stands at `name`.
    fn clear(&self, name: &str) {
        let at = self.dir.path().join(name);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.is_dir() => std::fs::remove_dir(&at).unwrap(),
            Ok(_) => std::fs::remove_file(&at).unwrap(),
            Err(_) => {}
        }
    }
}

/// A checkpoint's lock file in the way (each thing, and a file that holds something other than a
/// process id) refuses the run before any work, naming it, and is left as it is; a lock file a run
/// left (a process id) is taken.
#[test]
fn a_lock_file_in_the_way_is_refused_and_left() {
    let scene = Scene::new("lock");
    let checkpoint = scene.dir.join("c.ckpt");
    let args = ["count", "100", "--checkpoint", &checkpoint, "-q"];
    for thing in THINGS {
        if !scene.put(".c.ckpt.lock", thing) {
            continue;
        }
        let line = usage_error(&args, "--checkpoint");
        assert!(line.contains(".c.ckpt.lock") && line.contains("in the way"), "{thing:?}: {line}");
        scene.left(".c.ckpt.lock", thing);
        assert!(!Path::new(&checkpoint).exists(), "{thing:?}: nothing saved");
        scene.clear(".c.ckpt.lock");
    }
    let other = scene.dir.file(".c.ckpt.lock", "root:x:0:0:root:/root:/bin/sh\n");
    let line = usage_error(&args, "--checkpoint");
    assert!(line.contains("something other than a process id"), "{line}");
    assert_eq!(std::fs::read_to_string(&other).unwrap(), "root:x:0:0:root:/root:/bin/sh\n");
    // what a killed run left: its process id, taken and removed at the end
    std::fs::write(&other, "4194304\n").unwrap();
    assert_eq!(success(&args).trim(), success(&["count", "100", "-q"]).trim());
    assert!(!Path::new(&other).exists(), "the lock file goes with the run");
}

/// Something at a temporary file's name (`.NAME.RANDOM.tmp`, as a killed write leaves one) is left
/// by the next write of NAME, an output or a checkpoint's save, which goes on.
#[test]
fn what_stands_at_a_temporary_name_is_left() {
    let scene = Scene::new("temporary");
    let out = scene.dir.join("out.txt");
    let checkpoint = scene.dir.join("c.ckpt");
    for thing in THINGS {
        let (for_out, for_save) = (".out.txt.00000000deadbeef.tmp", ".c.ckpt.00000000deadbeef.tmp");
        if !(scene.put(for_out, thing) && scene.put(for_save, thing)) {
            continue;
        }
        assert_eq!(success(&["count", "10", "-q", "-o", &out]), "", "{thing:?}");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "17\n", "{thing:?}");
        let args = ["count", "300", "--checkpoint", &checkpoint, "--checkpoint-every", "1", "-q"];
        assert_eq!(success(&args).trim(), success(&["count", "300", "-q"]).trim(), "{thing:?}");
        scene.left(for_out, thing);
        scene.left(for_save, thing);
        scene.clear(for_out);
        scene.clear(for_save);
    }
}

/// A name `stress --keep-output` writes, or a manual page's, taken by something else: refused
/// before any run or write (exit 2) naming it, and left.
#[test]
fn kept_outputs_and_pages_in_the_way_are_refused_and_left() {
    let scene = Scene::new("kept");
    let kept = scene.dir.join("");
    for thing in THINGS {
        if !scene.put("2.stdout", thing) {
            continue;
        }
        let line =
            usage_error(&["stress", "echo 0", "--n", "1..3", "--exact", "--keep-output", &kept], "--keep-output");
        assert!(line.contains("2.stdout") && line.contains("not a file of fibtree's"), "{thing:?}: {line}");
        scene.left("2.stdout", thing);
        assert!(!scene.dir.path().join("1.stdout").exists(), "{thing:?}: nothing run");
        scene.clear("2.stdout");
        if !scene.put("fibtree-count.1", thing) {
            continue;
        }
        let line = usage_error(&["man", "-o", &kept], "--output");
        assert!(line.contains("fibtree-count.1") && line.contains("not a file of fibtree's"), "{thing:?}: {line}");
        scene.left("fibtree-count.1", thing);
        scene.clear("fibtree-count.1");
    }
}
