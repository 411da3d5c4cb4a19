//! Files that are whole or absent ([`AtomicFile`]): written under a temporary name in the target's
//! folder, synced, and renamed over the final name only when complete, so that an interrupted run
//! (even `kill -9`) leaves the previous file or the new one, never a torn one.
//!
//! A path that is a symbolic link is followed: the link's target is replaced and the link stays.
//! An existing file keeps its permissions (and, where the process may set it, its owner). A path
//! that names one of the process's own file descriptors (`/dev/stdout`, `/dev/fd/N`,
//! `/proc/self/fd/N`) is not a file to replace: [`descriptor_named`] finds them, so that callers
//! write through the descriptor instead (or refuse it).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use tempfile::TempPath;

/// The most symbolic links followed from one path (as the kernel's own limit, `ELOOP`).
const MAX_LINKS: usize = 40;

/// The file descriptor of this process that `path` names, following its links: `/dev/stdin`,
/// `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`, `/proc/thread-self/fd/N` and
/// `/proc/PID/fd/N` for this process's id. Following such a path to what the descriptor is open on
/// would replace the file behind standard output (`-o /dev/stdout >> log` would lose the log), or
/// fail on a pipe.
pub fn descriptor_named(path: &Path) -> Option<i32> {
    let own = format!("/proc/{}/fd/", std::process::id());
    let mut path = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        let text = path.to_str()?;
        let fixed = [("/dev/stdin", 0), ("/dev/stdout", 1), ("/dev/stderr", 2)];
        if let Some(&(_, fd)) = fixed.iter().find(|(name, _)| *name == text) {
            return Some(fd);
        }
        let folders = ["/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/", own.as_str()];
        if let Some(number) = folders.iter().find_map(|folder| text.strip_prefix(folder)) {
            return number.parse().ok();
        }
        path = linked(&path, std::fs::read_link(&path).ok()?);
    }
    None
}

/// Where the link at `path`, whose target is `target`, leads: a relative target is taken from the
/// link's own folder.
fn linked(path: &Path, target: PathBuf) -> PathBuf {
    match path.parent() {
        Some(folder) if target.is_relative() => folder.join(target),
        _ => target,
    }
}

/// The longest file name most file systems take (`NAME_MAX`), in bytes.
const NAME_MAX: usize = 255;

/// The path beside `path` named `.NAME` + `suffix`, NAME being `path`'s file name cut (on a
/// character boundary) so that the whole name fits in `NAME_MAX` (255) bytes: a file whose own name is
/// long still has a temporary file and a lock file.
pub fn beside(path: &Path, suffix: &str) -> PathBuf {
    let name = path.file_name().map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    let mut end = name.len().min(NAME_MAX.saturating_sub(1 + suffix.len()));
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    path.with_file_name(format!(".{}{suffix}", &name[..end]))
}

/// `path` with its symbolic links followed to the file they name (which need not exist): the
/// path a replacement must be renamed onto.
///
/// # Errors
/// A link that cannot be read, or a loop of links.
pub fn resolve_links(path: &Path) -> std::io::Result<PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => {
                path = linked(&path, std::fs::read_link(&path)?);
            }
            _ => return Ok(path),
        }
    }
    Err(std::io::Error::other(format!("too many levels of symbolic links at '{}'", path.display())))
}

/// The folder a file at `path` lives in (`.` for a bare name).
pub fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// The length of the random part of a temporary name.
const RANDOM_CHARS: usize = 16;

/// Creates a new file with a random name `.NAME.RANDOM.tmp` beside `path` (RANDOM of
/// [`RANDOM_CHARS`] hexadecimal digits), never an existing one, with the mode a plain new file gets
/// (0666 less the umask), and its name, which removes it when dropped unless persisted. The file is
/// locked (`flock`) while it is open, so that a process that finds it unlocked knows its writer is
/// gone ([`remove_stale_temporaries`]). Made here rather than by tempfile's builder, whose errors
/// name the random temporary path instead of giving the system's error alone; tempfile's
/// [`TempPath`] removes and persists it.
fn create_temporary(path: &Path) -> std::io::Result<(File, TempPath)> {
    // absolute before the file is made, so that naming it for tempfile cannot fail afterwards
    let path = std::path::absolute(path)?;
    let mut rng = crate::SplitMix64(crate::fresh_seed() ^ (u64::from(std::process::id()) << 32));
    loop {
        let temp = beside(&path, &format!(".{:016x}.tmp", rng.next_u64()));
        // O_EXCL: a new file, never one at the end of a link put there
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&temp) {
            Ok(file) => {
                // a file system without locks leaves it unlocked: its temporaries are then never
                // taken for stale ones (the test fails there too)
                let _ = file.try_lock();
                return Ok((file, TempPath::try_from_path(temp)?));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// Whether the file name `name` is one of the temporary names [`AtomicFile`] gives a file for
/// `path` (`.NAME.RANDOM.tmp`, NAME cut as [`beside`] cuts it): what a run killed in the middle of a
/// write leaves behind. Cost O(name).
///
/// ```
/// use std::path::Path;
/// assert!(fibtree_util::is_temporary_of(Path::new("run.ckpt"), ".run.ckpt.0123456789abcdef.tmp"));
/// assert!(!fibtree_util::is_temporary_of(Path::new("run.ckpt"), ".run.ckpt.notours.tmp"));
/// assert!(!fibtree_util::is_temporary_of(Path::new("run.ckpt"), "run.ckpt"));
/// ```
pub fn is_temporary_of(path: &Path, name: &str) -> bool {
    let pattern = beside(path, &format!(".{}.tmp", "0".repeat(RANDOM_CHARS)));
    let Some(pattern) = pattern.file_name().and_then(|n| n.to_str()) else { return false };
    let prefix = &pattern[..pattern.len() - RANDOM_CHARS - ".tmp".len()];
    let random = name.strip_prefix(prefix).and_then(|rest| rest.strip_suffix(".tmp"));
    random.is_some_and(|r| r.len() == RANDOM_CHARS && r.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Removes the temporary files of `path` ([`is_temporary_of`]) whose writers are gone: those a
/// process killed in the middle of a write (`kill -9`, a crash, the machine's power) left behind,
/// which no later write would otherwise remove. A temporary file is locked by its writer for as long
/// as the writer has it open (the lock goes with the process), so one that can be locked now is
/// stale; one that cannot (a write under way, or a file system without locks) is left, and so is
/// anything of that name that is not a regular file with one name (a link, a FIFO, a folder:
/// [`crate::open_existing_own`]). Cost: one listing of the folder, and an open of each temporary
/// file of `path`.
///
/// ```
/// let folder = tempfile::tempdir()?;
/// let stale = folder.path().join(".out.txt.0123456789abcdef.tmp");
/// std::fs::write(&stale, "what a killed writer left")?;
/// fibtree_util::remove_stale_temporaries(&folder.path().join("out.txt"));
/// assert!(!stale.exists());
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn remove_stale_temporaries(path: &Path) {
    let Ok(path) = resolve_links(path) else { return };
    let Ok(entries) = std::fs::read_dir(folder_of(&path)) else { return };
    for entry in entries.flatten() {
        if !entry.file_name().to_str().is_some_and(|name| is_temporary_of(&path, name)) {
            continue;
        }
        // a link, a FIFO, a folder or a hard link of that name is not a temporary of ours: left
        if let Some(file) = crate::open_existing_own(&entry.path())
            && file.try_lock().is_ok()
            && crate::still_names(&entry.path(), &file)
        {
            // removed while locked, so that no writer takes it meanwhile
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Checks that a file could be created in `path`'s folder, by creating and removing a temporary
/// file there: what [`AtomicFile::create`] will do later, tried at once.
///
/// # Errors
/// Whatever creating the file gives (a missing or read-only folder, for example).
pub fn probe_folder(path: &Path) -> std::io::Result<()> {
    create_temporary(&resolve_links(path)?)?.1.close()
}

/// Checks that a file could be created at `path`, a name fibtree gives itself, as
/// [`probe_folder`] does, but in the folder `path` names, whatever stands at `path` (a link there
/// is not followed). Cost: the creation and removal of one file.
///
/// # Errors
/// Whatever creating the file gives (a missing or read-only folder, for example).
pub fn probe_own(path: &Path) -> std::io::Result<()> {
    create_temporary(path)?.1.close()
}

/// A file written under a temporary name (`.NAME.RANDOM.tmp` in the folder of the file a path's
/// links lead to) and renamed into place by [`AtomicFile::commit`]; dropped uncommitted, it removes
/// its temporary file. Its creation removes the temporary files of the same name that killed
/// writers left ([`remove_stale_temporaries`]). fibtree's checkpoints and the command line's output files are both written
/// through it.
#[derive(Debug)]
pub struct AtomicFile {
    path: PathBuf,
    /// The temporary file, written as a plain file (whose errors are the system's own, without the
    /// temporary path that tempfile's writer adds).
    file: Option<BufWriter<File>>,
    /// Its name, removed when dropped unless persisted.
    temp: Option<TempPath>,
}

impl AtomicFile {
    /// Creates the temporary file for `path` (its links followed), in the same folder as the file
    /// it replaces, so that the rename is atomic; an existing file's permissions (and owner, where
    /// allowed) are given to it.
    ///
    /// # Errors
    /// Whatever creating the temporary file gives (a missing or read-only folder, for example).
    pub fn create(path: &Path) -> std::io::Result<AtomicFile> {
        let path = resolve_links(path)?;
        let (file, temp) = create_temporary(&path)?;
        // what killed writers of this name left (this one's own file is locked)
        remove_stale_temporaries(&path);
        if let Some(old) = std::fs::metadata(&path).ok().filter(|m| m.is_file()) {
            // the same owner first (only possible for a privileged process), then the mode, which
            // a change of owner may clear; on an error the temporary file goes with `temp`
            let _ = std::os::unix::fs::fchown(&file, Some(old.uid()), Some(old.gid()));
            file.set_permissions(std::fs::Permissions::from_mode(old.mode() & 0o7777))?;
        }
        Ok(AtomicFile { path, file: Some(BufWriter::new(file)), temp: Some(temp) })
    }

    /// Creates the temporary file for `path`, a name fibtree gives itself in a folder (the files
    /// of `stress --keep-output`, the manual pages), as [`AtomicFile::create`] does but without
    /// following what stands at `path`: a link, a FIFO, a folder, a device or a file with another
    /// name there is refused ([`crate::in_the_way`]) and left as it is; a regular file there
    /// is replaced, its owner and mode not taken. The rename that commits it replaces a name, never
    /// writes through one, so a link put there meanwhile is replaced, not followed.
    ///
    /// # Errors
    /// An [`std::io::ErrorKind::AlreadyExists`] error saying what stands at `path`; whatever
    /// creating the temporary file gives.
    ///
    /// ```
    /// let folder = tempfile::tempdir()?;
    /// let victim = folder.path().join("victim.txt");
    /// std::fs::write(&victim, "precious")?;
    /// let name = folder.path().join("5.stdout");
    /// std::os::unix::fs::symlink(&victim, &name)?;
    /// assert!(fibtree_util::AtomicFile::create_own(&name).is_err());
    /// std::fs::remove_file(&name)?;
    /// let mut file = fibtree_util::AtomicFile::create_own(&name)?;
    /// std::io::Write::write_all(&mut file, b"output")?;
    /// file.commit()?;
    /// assert_eq!(std::fs::read_to_string(&victim)?, "precious");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn create_own(path: &Path) -> std::io::Result<AtomicFile> {
        if let Some(what) = crate::in_the_way(path) {
            let why = format!("'{}' is {what}, not a file of fibtree's, and is left as it is", path.display());
            return Err(std::io::Error::new(std::io::ErrorKind::AlreadyExists, why));
        }
        let (file, temp) = create_temporary(path)?;
        remove_stale_temporaries(path);
        Ok(AtomicFile { path: path.to_path_buf(), file: Some(BufWriter::new(file)), temp: Some(temp) })
    }

    /// The temporary file's path. Cost O(1).
    pub fn temporary_path(&self) -> &Path {
        self.temp.as_ref().expect("not used after commit")
    }

    /// Flushes and syncs the file, renames it over the final path, and syncs the folder, so that the
    /// rename survives a crash.
    ///
    /// # Errors
    /// Any I/O error on the way; the temporary file is then removed.
    pub fn commit(mut self) -> std::io::Result<()> {
        let (file, temp) = (self.file.take().expect("committed once"), self.temp.take().expect("committed once"));
        // on an error, `temp` is dropped and removes the temporary file
        let file = file.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        temp.persist(&self.path).map_err(|e| e.error)?;
        File::open(folder_of(&self.path))?.sync_all()
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.as_mut().expect("not written after commit").write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.as_mut().map_or(Ok(()), |f| f.flush())
    }
}

/// Writes `bytes` to `path` through an [`AtomicFile`].
///
/// # Errors
/// As [`AtomicFile::create`] and [`AtomicFile::commit`].
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = AtomicFile::create(path)?;
    file.write_all(bytes)?;
    file.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder for one test, removed when dropped.
    fn folder() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    #[test]
    fn a_file_appears_whole_or_not_at_all() {
        let temp = folder();
        let dir = temp.path();
        let path = dir.join("out.txt");
        std::fs::write(&path, "old").unwrap();
        {
            let mut file = AtomicFile::create(&path).unwrap();
            file.write_all(b"new but unfinished").unwrap();
            assert_eq!(std::fs::read_to_string(&path).unwrap(), "old", "not yet committed");
        } // dropped: the temporary file goes, the old file stays
        assert_eq!(std::fs::read_dir(dir).unwrap().count(), 1);
        write_atomically(&path, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(std::fs::read_dir(dir).unwrap().count(), 1, "no temporary file left");
    }

    #[test]
    fn a_link_is_followed_and_a_mode_kept() {
        let temp = folder();
        let dir = temp.path();
        let target = dir.join("sub").join("target.txt");
        std::fs::create_dir(dir.join("sub")).unwrap();
        std::fs::write(&target, "old").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
        let link = dir.join("link.txt");
        std::os::unix::fs::symlink("sub/target.txt", &link).unwrap();
        write_atomically(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link stays a link");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(std::fs::metadata(&target).unwrap().mode() & 0o777, 0o600);
        // a dangling link: its target is created
        let dangling = dir.join("dangling.txt");
        std::os::unix::fs::symlink("sub/new.txt", &dangling).unwrap();
        write_atomically(&dangling, b"made").unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("sub/new.txt")).unwrap(), "made");
        // a loop of links is an error, not a hang
        std::os::unix::fs::symlink("loop2", dir.join("loop1")).unwrap();
        std::os::unix::fs::symlink("loop1", dir.join("loop2")).unwrap();
        assert!(write_atomically(&dir.join("loop1"), b"x").is_err());
    }

    #[test]
    fn descriptors_are_named_and_long_names_fit() {
        assert_eq!(descriptor_named(Path::new("/dev/stdout")), Some(1));
        assert_eq!(descriptor_named(Path::new("/dev/fd/2")), Some(2));
        assert_eq!(descriptor_named(Path::new("/proc/self/fd/7")), Some(7));
        let own = format!("/proc/{}/fd/3", std::process::id());
        assert_eq!(descriptor_named(Path::new(&own)), Some(3));
        assert_eq!(descriptor_named(Path::new("/tmp/out.txt")), None);
        let temp = folder();
        let dir = temp.path();
        let link = dir.join("to-stdout");
        std::os::unix::fs::symlink("/dev/stdout", &link).unwrap();
        assert_eq!(descriptor_named(&link), Some(1), "a link to /dev/stdout names descriptor 1");
        // a 250-byte name still has a temporary file, and its name is at most 255 bytes
        let long = dir.join("é".repeat(125));
        let temp = beside(&long, ".0123456789abcdef.tmp");
        assert!(is_temporary_of(&long, temp.file_name().unwrap().to_str().unwrap()));
        assert!(temp.file_name().unwrap().len() <= NAME_MAX, "{}", temp.display());
        write_atomically(&long, b"long").unwrap();
        assert_eq!(std::fs::read(&long).unwrap(), b"long");
    }

    #[test]
    fn a_stale_temporary_goes_with_the_next_write_and_a_live_one_stays() {
        let temp = folder();
        let dir = temp.path();
        let path = dir.join("out.txt");
        // what a writer killed in the middle left: a temporary file no process has open
        let stale = dir.join(".out.txt.0123456789abcdef.tmp");
        std::fs::write(&stale, "half").unwrap();
        let other = dir.join(".other.txt.0123456789abcdef.tmp");
        std::fs::write(&other, "another name's").unwrap();
        // a writer of the same name at work: its temporary file is open, and locked
        let live = AtomicFile::create(&path).unwrap();
        assert!(!stale.exists(), "the stale temporary is removed by the next write");
        let live_path = live.temporary_path().to_path_buf();
        write_atomically(&path, b"done").unwrap();
        assert!(live_path.exists(), "a write under way keeps its temporary file");
        assert!(other.exists(), "another name's temporary file is left");
        drop(live);
        assert!(!live_path.exists());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "done");
    }

    #[test]
    fn temporary_names_differ_and_a_probe_leaves_nothing() {
        let temp = folder();
        let dir = temp.path();
        let path = dir.join("out.txt");
        let (a, b) = (AtomicFile::create(&path).unwrap(), AtomicFile::create(&path).unwrap());
        assert_ne!(a.temporary_path(), b.temporary_path());
        let name = a.temporary_path().file_name().unwrap().to_str().unwrap();
        assert!(is_temporary_of(&path, name), "{name}");
        drop((a, b));
        probe_folder(&path).unwrap();
        assert_eq!(std::fs::read_dir(dir).unwrap().count(), 0);
        assert!(probe_folder(&dir.join("missing").join("out.txt")).is_err());
    }
}
