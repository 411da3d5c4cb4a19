//! Files that are whole or absent ([`AtomicFile`]): written under a temporary name in the target's
//! folder, synced, and renamed over the final name only when complete, so that an interrupted run
//! (even `kill -9`) leaves the previous file or the new one, never a torn one.
//!
//! A path that is a symbolic link is followed: the link's target is replaced and the link stays.
//! An existing file keeps its permissions (and, where the process may set it, its owner).

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::rng::{SplitMix64, clock_seed};

/// The most symbolic links followed from one path (as the kernel's own limit, `ELOOP`).
const MAX_LINKS: usize = 40;

/// `path` with its symbolic links followed to the file they name (which need not exist): the
/// path a replacement must be renamed onto.
///
/// # Errors
/// A link that cannot be read, or a loop of links.
pub(crate) fn resolve_links(path: &Path) -> std::io::Result<PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = std::fs::read_link(&path)?;
                path = match path.parent() {
                    Some(folder) if target.is_relative() => folder.join(target),
                    _ => target,
                };
            }
            _ => return Ok(path),
        }
    }
    Err(std::io::Error::other(format!("too many levels of symbolic links at '{}'", path.display())))
}

/// The folder a file at `path` lives in (`.` for a bare name).
pub(crate) fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Creates a new file with a random name `.NAME.RANDOM.tmp` beside `path`, never an existing one.
fn create_temporary(path: &Path) -> std::io::Result<(PathBuf, File)> {
    let name = path.file_name().map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    let mut rng = SplitMix64(clock_seed() ^ (u64::from(std::process::id()) << 32));
    loop {
        let temp = path.with_file_name(format!(".{name}.{:016x}.tmp", rng.next_u64()));
        match OpenOptions::new().write(true).create_new(true).open(&temp) {
            Ok(file) => return Ok((temp, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// Checks that a file could be created in `path`'s folder, by creating and removing a temporary
/// file there: what [`AtomicFile::create`] will do later, tried at once.
///
/// # Errors
/// Whatever creating the file gives (a missing or read-only folder, for example).
pub(crate) fn probe_folder(path: &Path) -> std::io::Result<()> {
    let (temp, file) = create_temporary(&resolve_links(path)?)?;
    drop(file);
    std::fs::remove_file(temp)
}

/// A file written under a temporary name (`.NAME.RANDOM.tmp` in the folder of the file a path's
/// links lead to) and renamed into place by [`AtomicFile::commit`]; dropped uncommitted, it removes
/// its temporary file. Checkpoints and the command line's output files are both written through it.
#[derive(Debug)]
pub(crate) struct AtomicFile {
    temp: PathBuf,
    path: PathBuf,
    file: Option<BufWriter<File>>,
}

impl AtomicFile {
    /// Creates the temporary file for `path` (its links followed), in the same folder as the file
    /// it replaces, so that the rename is atomic; an existing file's permissions (and owner, where
    /// allowed) are given to it.
    ///
    /// # Errors
    /// Whatever creating the temporary file gives (a missing or read-only folder, for example).
    pub(crate) fn create(path: &Path) -> std::io::Result<AtomicFile> {
        let path = resolve_links(path)?;
        let (temp, file) = create_temporary(&path)?;
        if let Some(old) = std::fs::metadata(&path).ok().filter(|m| m.is_file()) {
            // the same owner first (only possible for a privileged process), then the mode, which
            // a change of owner may clear
            let _ = std::os::unix::fs::fchown(&file, Some(old.uid()), Some(old.gid()));
            if let Err(e) = file.set_permissions(std::fs::Permissions::from_mode(old.mode() & 0o7777)) {
                let _ = std::fs::remove_file(&temp);
                return Err(e);
            }
        }
        Ok(AtomicFile { temp, path, file: Some(BufWriter::new(file)) })
    }

    /// Flushes and syncs the file, renames it over the final path, and syncs the folder, so that the
    /// rename survives a crash.
    ///
    /// # Errors
    /// Any I/O error on the way; the temporary file is then removed.
    pub(crate) fn commit(mut self) -> std::io::Result<()> {
        let file = self.file.take().expect("committed once");
        let result = (|| {
            let file = file.into_inner().map_err(|e| e.into_error())?;
            file.sync_all()?;
            std::fs::rename(&self.temp, &self.path)?;
            File::open(folder_of(&self.path))?.sync_all()
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&self.temp);
        }
        result
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

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.file.is_some() {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

/// Writes `bytes` to `path` through an [`AtomicFile`].
///
/// # Errors
/// As [`AtomicFile::create`] and [`AtomicFile::commit`].
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = AtomicFile::create(path)?;
    file.write_all(bytes)?;
    file.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder for one test.
    fn folder(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("fibtree-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_file_appears_whole_or_not_at_all() {
        let dir = folder("whole");
        let path = dir.join("out.txt");
        std::fs::write(&path, "old").unwrap();
        {
            let mut file = AtomicFile::create(&path).unwrap();
            file.write_all(b"new but unfinished").unwrap();
            assert_eq!(std::fs::read_to_string(&path).unwrap(), "old", "not yet committed");
        } // dropped: the temporary file goes, the old file stays
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        write_atomically(&path, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "no temporary file left");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_link_is_followed_and_a_mode_kept() {
        let dir = folder("link");
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
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn temporary_names_differ_and_a_probe_leaves_nothing() {
        let dir = folder("probe");
        let path = dir.join("out.txt");
        let (a, b) = (AtomicFile::create(&path).unwrap(), AtomicFile::create(&path).unwrap());
        assert_ne!(a.temp, b.temp);
        drop((a, b));
        probe_folder(&path).unwrap();
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        assert!(probe_folder(&dir.join("missing").join("out.txt")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
