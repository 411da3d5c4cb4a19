//! The files fibtree names itself (a checkpoint's lock file, the temporary files of a write), as
//! opposed to the paths a user names: at such a name a symbolic link is never followed, a FIFO or a
//! device never opened, and a file that is not fibtree's never written or removed. Whatever stands
//! there is looked at first without following it (`lstat`), a new file is made with `O_EXCL`, an
//! existing one opened with `O_NOFOLLOW | O_NONBLOCK`, and what was opened is checked to be the
//! regular file looked at, with no other name (a hard link elsewhere would make a write to it a
//! write to another file).

use std::fs::{File, Metadata, OpenOptions};
use std::io::{Error, ErrorKind};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

/// What stands at a path, where it is not a regular file with one name: "a symbolic link", "a
/// FIFO", "a folder", "a device", "a socket", or "a file with another name (a hard link)". Cost
/// O(1).
pub fn not_a_plain_file(meta: &Metadata) -> Option<&'static str> {
    let kind = meta.file_type();
    match () {
        _ if kind.is_symlink() => Some("a symbolic link"),
        _ if kind.is_fifo() => Some("a FIFO"),
        _ if kind.is_dir() => Some("a folder"),
        _ if kind.is_block_device() || kind.is_char_device() => Some("a device"),
        _ if kind.is_socket() => Some("a socket"),
        _ if !kind.is_file() => Some("not a regular file"),
        _ if meta.nlink() > 1 => Some("a file with another name (a hard link)"),
        _ => None,
    }
}

/// What stands at `path`, looked at without following it, where fibtree may not use it as its own
/// file ([`not_a_plain_file`]); `None` where nothing does, or a regular file with one name. Cost:
/// one system call.
///
/// ```
/// let folder = tempfile::tempdir()?;
/// let name = folder.path().join("5.stdout");
/// assert_eq!(fibtree_util::in_the_way(&name), None); // nothing there
/// std::fs::create_dir(&name)?;
/// assert_eq!(fibtree_util::in_the_way(&name), Some("a folder"));
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn in_the_way(path: &Path) -> Option<&'static str> {
    std::fs::symlink_metadata(path).ok().as_ref().and_then(not_a_plain_file)
}

/// Whether `a` and `b` describe the same file (device and inode). Cost O(1).
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

/// The error for a path fibtree names itself where something else stands: `what` it is
/// ([`not_a_plain_file`]), and that it is left as it is. Its kind is
/// [`ErrorKind::AlreadyExists`].
fn refused(what: &str) -> Error {
    Error::new(ErrorKind::AlreadyExists, format!("it is {what}, not a file of fibtree's, and is left as it is"))
}

/// The flags of every open here: no link followed, no wait on a FIFO, no descriptor handed to the
/// programs fibtree starts.
const FLAGS: i32 = libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC;

/// Opens the file `path` names for reading and writing, a name fibtree gives itself: made anew
/// (`O_EXCL`, mode 0666 less the umask) where nothing stands there, else opened where it is a
/// regular file with one name, and never where it is anything else. Cost: a few system calls.
///
/// # Errors
/// An [`ErrorKind::AlreadyExists`] error saying what stands there ([`not_a_plain_file`]), which is
/// left as it is; whatever opening or creating the file gives.
///
/// ```
/// let folder = tempfile::tempdir()?;
/// let lock = folder.path().join(".run.lock");
/// fibtree_util::open_own(&lock)?; // made
/// fibtree_util::open_own(&lock)?; // opened again
/// let victim = folder.path().join("victim.txt");
/// std::fs::write(&victim, "precious")?;
/// let link = folder.path().join(".other.lock");
/// std::os::unix::fs::symlink(&victim, &link)?;
/// let refused = fibtree_util::open_own(&link).unwrap_err();
/// assert!(refused.to_string().contains("a symbolic link"), "{refused}");
/// assert_eq!(std::fs::read_to_string(&victim)?, "precious");
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn open_own(path: &Path) -> std::io::Result<File> {
    // another process making and removing the name as fast as it is looked at cannot hold this
    // in a loop: after so many tries, the last error stands
    const TRIES: usize = 64;
    for _ in 0..TRIES {
        let seen = match std::fs::symlink_metadata(path) {
            Ok(meta) => Some(meta),
            Err(e) if e.kind() == ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        if let Some(what) = seen.as_ref().and_then(not_a_plain_file) {
            return Err(refused(what));
        }
        let mut options = OpenOptions::new();
        options.read(true).write(true).custom_flags(FLAGS);
        if seen.is_none() {
            options.create_new(true);
        }
        let file = match options.open(path) {
            Ok(file) => file,
            // made (or removed) by another process between the look and the open: look again
            Err(e) if seen.is_none() && e.kind() == ErrorKind::AlreadyExists => continue,
            Err(e) if seen.is_some() && e.kind() == ErrorKind::NotFound => continue,
            // O_NOFOLLOW on a link put there since the look
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(refused("a symbolic link")),
            Err(e) => return Err(e),
        };
        let opened = file.metadata()?;
        if let Some(what) = not_a_plain_file(&opened) {
            return Err(refused(what));
        }
        if seen.is_some_and(|seen| !same_file(&seen, &opened)) {
            continue; // replaced between the look and the open
        }
        return Ok(file);
    }
    Err(Error::new(ErrorKind::WouldBlock, "another process keeps making and removing it"))
}

/// Whether `path` still names `file` (the same device and inode, not through a link): what a
/// removal of a file fibtree made checks first, so that it never removes what another process put
/// in its place. Cost: two system calls.
pub fn still_names(path: &Path, file: &File) -> bool {
    match (std::fs::symlink_metadata(path), file.metadata()) {
        (Ok(at), Ok(own)) => !at.file_type().is_symlink() && same_file(&at, &own),
        _ => false,
    }
}

/// Opens for reading, without following a link or waiting on a FIFO, the existing file `path` names
/// where it is a regular file with one name (the temporary file a killed writer left, before it is
/// removed); `None` for anything else. Cost: a few system calls.
pub fn open_existing_own(path: &Path) -> Option<File> {
    let seen = std::fs::symlink_metadata(path).ok()?;
    if not_a_plain_file(&seen).is_some() {
        return None;
    }
    let file = OpenOptions::new().read(true).custom_flags(FLAGS).open(path).ok()?;
    let opened = file.metadata().ok()?;
    (same_file(&seen, &opened) && not_a_plain_file(&opened).is_none()).then_some(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A link to a file outside the folder, a FIFO, a folder and a hard link at a name fibtree gives
    /// itself: each refused, none followed, written or removed.
    #[test]
    fn nothing_but_a_plain_file_is_opened() {
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("victim.txt");
        std::fs::write(&victim, "precious").unwrap();
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path();
        let link = dir.join(".link.lock");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let dangling = dir.join(".dangling.lock");
        std::os::unix::fs::symlink(outside.path().join("new.txt"), &dangling).unwrap();
        let fifo = dir.join(".fifo.lock");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let folder = dir.join(".folder.lock");
        std::fs::create_dir(&folder).unwrap();
        let hard = dir.join(".hard.lock");
        std::fs::hard_link(&victim, &hard).unwrap();
        for (path, what) in [
            (&link, "a symbolic link"),
            (&dangling, "a symbolic link"),
            (&fifo, "a FIFO"),
            (&folder, "a folder"),
            (&hard, "a hard link"),
        ] {
            let e = open_own(path).unwrap_err();
            assert!(e.kind() == ErrorKind::AlreadyExists && e.to_string().contains(what), "{}: {e}", path.display());
            assert!(std::fs::symlink_metadata(path).is_ok(), "{} is left", path.display());
            assert!(open_existing_own(path).is_none(), "{}", path.display());
        }
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert!(!outside.path().join("new.txt").exists(), "a dangling link's target is not made");
        // a plain file is made, then opened again, and still named by its path
        let own = dir.join(".own.lock");
        let file = open_own(&own).unwrap();
        assert!(still_names(&own, &file) && open_own(&own).is_ok() && open_existing_own(&own).is_some());
        std::fs::rename(&own, dir.join("moved")).unwrap();
        std::os::unix::fs::symlink(dir.join("moved"), &own).unwrap();
        assert!(!still_names(&own, &file), "a link put in its place is not the file");
    }
}
