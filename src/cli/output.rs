//! Where results go: standard output, or a file written through the library's [`AtomicFile`] (a
//! temporary name in the same folder, renamed when complete), so that an interrupted run leaves no
//! file and no temporary behind.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use fibtree::AtomicFile;

use super::usage;

/// Results on standard output, or in a file being written.
pub(super) enum Output {
    /// Standard output.
    Stdout(std::io::Stdout),
    /// A file being written, until it is committed.
    File(Option<AtomicFile>),
}

impl Output {
    /// Standard output, or a new temporary file beside `path`; `flag` names the option that asked
    /// for the file in an error.
    ///
    /// # Errors
    /// A usage error naming `flag` when `path` is a folder, or its folder is missing or not writable.
    pub(super) fn open(path: Option<&Path>, flag: &str) -> anyhow::Result<Output> {
        let Some(path) = path else {
            return Ok(Output::Stdout(std::io::stdout()));
        };
        if path.is_dir() {
            return Err(usage(flag, format!("'{}' is a folder; expected a file name", path.display())));
        }
        if path.file_name().is_none() {
            return Err(usage(flag, "expected a file name"));
        }
        let folder = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if !folder.is_dir() {
            return Err(usage(flag, format!("the folder '{}' does not exist", folder.display())));
        }
        let file = AtomicFile::create(path)
            .map_err(|e| usage(flag, format!("cannot write in the folder '{}': {e}", folder.display())))?;
        Ok(Output::File(Some(file)))
    }

    /// Flushes standard output, or commits the file (flushed, synced and renamed into place).
    ///
    /// # Errors
    /// Any I/O error, with the path.
    pub(super) fn finish(&mut self) -> anyhow::Result<()> {
        match self {
            Output::Stdout(out) => Ok(out.flush()?),
            Output::File(file) => {
                let Some(file) = file.take() else { return Ok(()) };
                let path = file.path().display().to_string();
                file.commit().with_context(|| format!("writing the output file {path}"))
            }
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Output::Stdout(out) => out.write(buf),
            Output::File(file) => file.as_mut().expect("not written after finish").write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Output::Stdout(out) => out.flush(),
            Output::File(file) => file.as_mut().map_or(Ok(()), |f| f.flush()),
        }
    }
}
