//! Reading what a command is given (a claims file, shard files) so that a signal stops it: every
//! read asks the cancel flag first, and a read that may wait on a writer (standard input, a pipe, a
//! FIFO, a terminal) is marked as a write that may block is, so that SIGINT, SIGTERM or SIGHUP ends
//! the process at once rather than leave it waiting for input that may never come (nothing is
//! written while a command reads its input: its output file is made at its first byte).

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::os::while_writing;

/// A source whose reads stop once the cancel flag is set ([`Cancelled`]).
pub(super) struct Stoppable<R> {
    inner: R,
    cancel: Arc<AtomicBool>,
    may_wait: bool,
}

impl<R> Stoppable<R> {
    /// `inner`, stopped by `cancel`; `may_wait` for a source whose reads may wait on a writer.
    pub(super) fn new(inner: R, cancel: Arc<AtomicBool>, may_wait: bool) -> Stoppable<R> {
        Stoppable { inner, cancel, may_wait }
    }
}

impl<R: Read> Read for Stoppable<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.cancel.load(Ordering::Relaxed) {
            return Err(std::io::Error::other(Cancelled));
        }
        if self.may_wait { while_writing(|| self.inner.read(buf)) } else { self.inner.read(buf) }
    }
}

/// What a read that the cancel flag cut short fails with.
#[derive(Debug, thiserror::Error)]
#[error("stopped by a signal")]
pub(super) struct Cancelled;

/// Whether `e` is a read that the cancel flag stopped ([`Cancelled`]).
pub(super) fn is_cancelled(e: &std::io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<Cancelled>())
}

/// Opens `path` for reading, and says whether its reads may wait on a writer (anything but a
/// regular file or a folder). A FIFO's open, which waits for a writer, is marked as such a read.
///
/// # Errors
/// The open's.
pub(super) fn open(path: &Path) -> std::io::Result<(File, bool)> {
    let fifo = std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo());
    let file = if fifo { while_writing(|| File::open(path))? } else { File::open(path)? };
    let may_wait = file.metadata().map_or(true, |m| !m.is_file() && !m.is_dir());
    Ok((file, may_wait))
}
