//! Where results go: standard output (no path, or `-`); one of the process's open descriptors
//! (`/dev/stdout`, `/dev/fd/N`), written through as it is open (appending where it appends); a
//! device, FIFO or socket, written through; or a regular file, replaced whole through the library's [`AtomicFile`]. The path is checked
//! before any work, but the temporary file is made only when the first byte of the result is
//! ready, so that a run killed while it computes leaves nothing behind. A symbolic link is followed
//! (its target is replaced, the link stays); an existing file keeps its permissions; a read-only
//! file is refused. Write errors name the file, or standard output. A write that may wait on a
//! reader (standard output, a pipe, a FIFO, a device) is marked, so that SIGINT, SIGTERM or SIGHUP
//! then ends the process at once instead of waiting for a reader that does not read.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use super::os::{DescriptorProblem, duplicate_for_writing, while_writing};
use fibtree_util::AtomicFile;
use fibtree_util::{descriptor_named, folder_of, probe_folder, resolve_links};

use crate::error::refused;

/// Results on standard output, or on their way to a path.
pub(super) enum Output {
    /// Standard output.
    Stdout(std::io::Stdout),
    /// Anything but a regular file or a folder (a device, a FIFO, a socket), written through. A FIFO
    /// is opened at the first write (opening waits for a reader), anything else at once.
    Through { path: PathBuf, flag: &'static str, file: Option<File> },
    /// A regular file, new or replaced: its temporary file is made at the first write and renamed
    /// into place by [`Output::finish`].
    Replaced { path: PathBuf, flag: &'static str, file: Option<AtomicFile>, finished: bool },
}

/// An error writing standard output, saying so.
pub(super) fn on_stdout(e: std::io::Error) -> std::io::Error {
    std::io::Error::new(e.kind(), format!("writing standard output: {e}"))
}

/// An error writing the file `path` that `flag` asked for, naming both.
fn on_file(path: &Path, flag: &str, e: std::io::Error) -> std::io::Error {
    std::io::Error::new(e.kind(), format!("writing '{}' ({flag}): {e}", path.display()))
}

impl Output {
    /// Standard output for `None` or `-`; else the path, checked now: `flag` names the option
    /// that asked for it in an error.
    ///
    /// # Errors
    /// A usage error naming `flag` when `path` is a folder or a read-only file, its folder is missing
    /// or files cannot be made there, or a device cannot be opened for writing.
    pub(super) fn open(path: Option<&Path>, flag: &'static str) -> crate::error::Result<Output> {
        let Some(path) = path.filter(|p| p.as_os_str() != "-") else {
            return Ok(Output::Stdout(std::io::stdout()));
        };
        let shown = path.display();
        if let Some(fd) = descriptor_named(path) {
            let file = descriptor(fd).map_err(|what| refused(flag, format!("'{shown}' {what}")))?;
            return Ok(Output::Through { path: path.into(), flag, file: Some(file) });
        }
        let target = resolve_links(path).map_err(|e| refused(flag, format!("'{shown}': {e}")))?;
        match std::fs::metadata(&target) {
            Ok(m) if m.is_dir() => Err(refused(flag, format!("'{shown}' is a folder; expected a file name"))),
            Ok(m) if m.file_type().is_fifo() => Ok(Output::Through { path: path.into(), flag, file: None }),
            Ok(m) if !m.is_file() => {
                let file = OpenOptions::new()
                    .write(true)
                    .open(&target)
                    .map_err(|e| refused(flag, format!("cannot open '{shown}' for writing: {e}")))?;
                Ok(Output::Through { path: path.into(), flag, file: Some(file) })
            }
            Ok(m) if m.permissions().readonly() => Err(refused(
                flag,
                format!("'{shown}' is read-only (mode {:o}); expected a file that may be replaced", m.mode() & 0o7777),
            )),
            Ok(_) if let Err(e) = OpenOptions::new().write(true).open(&target) => {
                // an immutable or append-only file (chattr +i, +a), which its mode does not show:
                // opened for writing, and closed unwritten, it says now what the rename would say
                // after the work
                Err(refused(flag, format!("'{shown}' cannot be replaced: {e}")))
            }
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(refused(flag, format!("cannot read '{shown}': {e}")))
            }
            _ => {
                if target.file_name().is_none() {
                    return Err(refused(flag, format!("'{shown}' names no file; expected a file name")));
                }
                let folder = folder_of(&target);
                if !folder.is_dir() {
                    return Err(refused(flag, format!("the folder '{}' does not exist", folder.display())));
                }
                probe_folder(&target)
                    .map_err(|e| refused(flag, format!("cannot write in the folder '{}': {e}", folder.display())))?;
                Ok(Output::Replaced { path: path.into(), flag, file: None, finished: false })
            }
        }
    }

    /// The regular file the results go to, if they go to one.
    pub(super) fn file(&self) -> Option<&Path> {
        match self {
            Output::Replaced { path, .. } => Some(path),
            _ => None,
        }
    }

    /// Flushes standard output or the file written through, or commits the file (flushed, synced
    /// and renamed into place; made empty if nothing was written).
    ///
    /// # Errors
    /// Any I/O error, naming the file or standard output.
    pub(super) fn finish(&mut self) -> std::io::Result<()> {
        match self {
            Output::Stdout(out) => while_writing(|| out.flush()).map_err(on_stdout),
            Output::Through { path, flag, file } => {
                let file = match file {
                    Some(file) => file,
                    None => file.insert(open_through(path, flag)?),
                };
                while_writing(|| file.flush()).map_err(|e| on_file(path, flag, e))
            }
            Output::Replaced { path, flag, file, finished } => {
                if std::mem::replace(finished, true) {
                    return Ok(());
                }
                let file = match file.take() {
                    Some(file) => file,
                    None => AtomicFile::create(path).map_err(|e| on_file(path, flag, e))?,
                };
                file.commit().map_err(|e| on_file(path, flag, e))
            }
        }
    }
}

/// A new descriptor for the process's open descriptor `fd`, open for writing: what `/dev/fd/N`
/// names, written as it is open.
///
/// # Errors
/// What the path then names, when `fd` is not open, open only for reading, or cannot be duplicated.
fn descriptor(fd: i32) -> Result<File, String> {
    duplicate_for_writing(fd).map_err(|problem| match problem {
        DescriptorProblem::NotOpen => {
            format!("names the descriptor {fd}, which is not open; expected an open descriptor or a file")
        }
        DescriptorProblem::ReadOnly => {
            format!("names the descriptor {fd}, which is open only for reading; expected one open for writing")
        }
        DescriptorProblem::Duplicate(e) => format!("names the descriptor {fd}, which cannot be duplicated: {e}"),
    })
}

/// Opens the FIFO (or device) `path` for writing (a FIFO's open waits for a reader).
fn open_through(path: &Path, flag: &str) -> std::io::Result<File> {
    while_writing(|| OpenOptions::new().write(true).open(path)).map_err(|e| on_file(path, flag, e))
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Output::Stdout(out) => while_writing(|| out.write(buf)).map_err(on_stdout),
            Output::Through { path, flag, file } => {
                let file = match file {
                    Some(file) => file,
                    None => file.insert(open_through(path, flag)?),
                };
                while_writing(|| file.write(buf)).map_err(|e| on_file(path, flag, e))
            }
            Output::Replaced { path, flag, file, finished } => {
                assert!(!*finished, "not written after finish");
                let file = match file {
                    Some(file) => file,
                    None => file.insert(AtomicFile::create(path).map_err(|e| on_file(path, flag, e))?),
                };
                file.write(buf).map_err(|e| on_file(path, flag, e))
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Output::Stdout(out) => while_writing(|| out.flush()).map_err(on_stdout),
            Output::Through { path, flag, file: Some(file) } => {
                while_writing(|| file.flush()).map_err(|e| on_file(path, flag, e))
            }
            Output::Replaced { path, flag, file: Some(file), .. } => file.flush().map_err(|e| on_file(path, flag, e)),
            _ => Ok(()),
        }
    }
}

/// What makes two paths the same file: the device and inode of an existing regular file, or the
/// real folder and name of a file yet to be made. Devices, FIFOs and standard output have none:
/// two outputs may both go to `/dev/null`.
#[derive(PartialEq, Eq)]
enum Identity {
    Existing(u64, u64),
    New(PathBuf),
}

fn identity(path: &Path) -> Option<Identity> {
    if path.as_os_str() == "-" {
        return None;
    }
    let target = resolve_links(path).ok()?;
    match std::fs::metadata(&target) {
        Ok(m) if m.is_file() => Some(Identity::Existing(m.dev(), m.ino())),
        Ok(_) => None,
        Err(_) => {
            let folder = std::fs::canonicalize(folder_of(&target)).ok()?;
            Some(Identity::New(folder.join(target.file_name()?)))
        }
    }
}

/// Refuses a run whose files clash: `files` are the (flag, path) of its input, outputs and
/// checkpoint, and no two may be the same file (an output over the input, or two outputs that would
/// each replace the other's result).
///
/// # Errors
/// A usage error naming the second flag of the first clash.
pub(super) fn distinct(files: &[(&str, Option<&Path>)]) -> crate::error::Result<()> {
    let known: Vec<(&str, &Path, Option<Identity>)> =
        files.iter().filter_map(|&(flag, path)| path.map(|p| (flag, p, identity(p)))).collect();
    for (i, (flag, path, id)) in known.iter().enumerate() {
        if let Some((first, ..)) = known[..i].iter().find(|k| id.is_some() && k.2 == *id) {
            return Err(refused(
                flag,
                format!("'{}' is also the file of {first}; expected another file", path.display()),
            ));
        }
    }
    Ok(())
}
