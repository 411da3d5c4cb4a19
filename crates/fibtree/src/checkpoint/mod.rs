//! Long runs that survive a crash: a counting run with a [`Checkpoint`] saves its state every so
//! often and when it is stopped, and resumes from the file when run again.
//!
//! The file holds: a magic word and the format version; n, g and the engine; the moduli and the
//! modular engine's residues (computed first); the cut of the count from both ends (n: bottom-up
//! alone) and its half running; the blocked engine's state between two blocks of that half (the
//! step reached, the non-zero sets of the two live layers, their lane chunks and pending carries),
//! and in the top-down half also the bottom-up half's end and the paths to the direct moves found
//! so far; and a 64-bit FNV-1a checksum of everything before it. A file of version 2 (before counts
//! from both ends) is read as a bottom-up count at its layer; one of version 3 (before the top-down
//! half left out the states of count zero, docs/math.md "Zero states") in its bottom-up half, whose
//! layers are the same, and refused in its top-down half, whose are not. It is written through an
//! [`crate::AtomicFile`], so a kill at any moment leaves the previous checkpoint or the new one, never
//! a torn one.
//!
//! A run holds its checkpoint ([`hold`]): the path is checked before any work (a regular file or
//! none, in a folder where files can be made), and a lock file `.NAME.lock` beside it, locked for
//! the run's life and holding its process id, keeps a second run off the same file. The lock file's
//! name is fibtree's own: a link, a FIFO, a device, a folder or a file of other content standing
//! there is refused and left as it is ([`fibtree_util::open_own`]).

mod format;

use std::fs::{File, TryLockError};
use std::io::{BufReader, BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fibtree_core::{Hooks, Position};

use crate::error::{Error, Param, Result};
use fibtree_util::{AtomicFile, beside, descriptor_named, folder_of, resolve_links};
pub(crate) use format::Saved;
#[cfg(test)]
use format::{decode, encode};
use format::{decode_from, encode_into, is_checkpoint};

/// Where and how often a run saves its checkpoint: the policy a counting run is handed in
/// [`crate::Options::checkpoint`].
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// let folder = tempfile::tempdir()?;
/// let path = folder.path().join("f300.checkpoint");
/// let checkpoint =
///     fibtree::Checkpoint { path: path.clone(), every: Duration::from_secs(60), fresh: false, keep: false };
/// let options = fibtree::Options { checkpoint: Some(checkpoint), ..Default::default() };
/// let report = fibtree::Counting::new(&[(300, 0)], &options)?.reports()?.remove(0);
/// assert!(report.ok());
/// assert!(!path.exists(), "a completed run removes its checkpoint unless it is to keep it");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Checkpoint {
    /// The checkpoint file.
    pub path: PathBuf,
    /// How often to save it.
    pub every: Duration,
    /// Discard an existing checkpoint and start over.
    pub fresh: bool,
    /// Keep the file when the run completes.
    pub keep: bool,
}

/// The checkpoint of the run `(n, g)` with `moduli`, if `spec.path` holds one and `spec.fresh` does
/// not discard it (telling `hooks` so).
///
/// # Errors
/// [`Error::InvalidArgument`] naming [`Param::Checkpoint`] for a file that cannot be read, is not a
/// checkpoint (with `spec.fresh` too: it discards only a checkpoint), is damaged or truncated, or
/// was made for another run; [`Error::Io`] when a file to discard cannot be removed.
pub(crate) fn load(spec: &Checkpoint, (n, g): (u64, u64), moduli: &[u64], hooks: Hooks) -> Result<Option<Saved>> {
    let shown = spec.path.display();
    let refuse = |what: String| Error::invalid(Param::Checkpoint, what);
    let len = match std::fs::metadata(&spec.path) {
        Ok(m) => m.len(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(refuse(format!("cannot read '{shown}': {e}"))),
    };
    let open = || File::open(&spec.path).map(|f| BufReader::with_capacity(1 << 20, f));
    // one rule: a file is a checkpoint, damaged or not, where it begins with the magic; nothing else
    // is read as one, or discarded by --fresh
    if !is_checkpoint(open).map_err(|why| refuse(format!("'{shown}' {why}")))? {
        let fresh = if spec.fresh { ", so --fresh does not discard it" } else { "" };
        return Err(refuse(format!(
            "'{shown}' is not a fibtree checkpoint (it does not begin with FIBTCKPT){fresh}; expected a checkpoint \
             file or a new name"
        )));
    }
    if spec.fresh {
        // the file the path's links lead to, the links kept
        let file = resolve_links(&spec.path).unwrap_or_else(|_| spec.path.clone());
        std::fs::remove_file(&file).map_err(|e| in_file(&spec.path, "discarding", e))?;
        hooks.notice(&format!("discarded the checkpoint {shown}; starting over"));
        return Ok(None);
    }
    let saved = decode_from(open, len).map_err(|why| refuse(format!("'{shown}' {why}")))?;
    if (saved.n, saved.g, saved.moduli.as_slice()) != (n, g, moduli) {
        let what = format!(
            "'{shown}' was made for count {} --g {} with moduli {:?}, not this run; use --fresh to start over",
            saved.n, saved.g, saved.moduli
        );
        return Err(refuse(what));
    }
    Ok(Some(saved))
}

/// Compares the residues a checkpoint saved (`saved`, one per modulus of `moduli`) with those the
/// modular engine computed for the resumed run (`fresh`): the file's are never taken in place of a
/// computation, but a file whose residues differ from it was not written by a run of this count.
/// Cost O(moduli).
///
/// # Errors
/// [`Error::InvalidArgument`] naming [`Param::Checkpoint`], the file and the first modulus that
/// differs, where they differ: the checkpoint is damaged (and kept as it is).
pub(crate) fn check_residues(spec: &Checkpoint, moduli: &[u64], saved: &[u64], fresh: &[u64]) -> Result<()> {
    let differ = moduli.iter().zip(saved.iter().zip(fresh)).find(|(_, (s, f))| s != f);
    match differ {
        None if saved.len() == fresh.len() => Ok(()),
        None => Err(Error::invalid(Param::Checkpoint, format!("'{}' is damaged (its residues)", spec.path.display()))),
        Some((m, (s, f))) => Err(Error::invalid(
            Param::Checkpoint,
            format!(
                "'{}' is damaged: it saved the residue {s} mod {m}, and the modular engine gives {f} for this \
                 count; the file is left as it is (use --fresh to start over)",
                spec.path.display()
            ),
        )),
    }
}

/// Keeps the checkpoint of a run whose value failed a check (the modular engine's residues, the
/// parity, the double check), telling `hooks` so: the file it came from is left for a look at it
/// (or a run with `--fresh`), whatever `spec.keep` says.
pub(crate) fn kept_after_a_failed_check(spec: &Checkpoint, hooks: Hooks) {
    if spec.path.exists() {
        hooks.notice(&format!(
            "the checkpoint {} is kept: the value resumed from it failed a check (use --fresh to count afresh)",
            spec.path.display()
        ));
    }
}

/// The saving policy of a run: what the blocked engine calls between segments.
pub(crate) struct Saver<'a> {
    spec: &'a Checkpoint,
    target: (u64, u64),
    moduli: &'a [u64],
    independent: &'a [u64],
    hooks: Hooks<'a>,
    last_save: Instant,
    /// Whether the last save failed (said once, until a save works again).
    failing: bool,
}

impl<'a> Saver<'a> {
    /// A policy that saves the run `target` with its moduli and their independent residues to
    /// `spec.path`.
    pub(crate) fn new(
        spec: &'a Checkpoint,
        target: (u64, u64),
        moduli: &'a [u64],
        independent: &'a [u64],
        hooks: Hooks<'a>,
    ) -> Saver<'a> {
        Saver { spec, target, moduli, independent, hooks, last_save: Instant::now(), failing: false }
    }

    /// Writes the checkpoint of `point`, streamed through a buffer into the temporary file (no copy
    /// of the state is made), renamed into place when whole.
    fn save(&self, point: &Position) -> std::io::Result<()> {
        let mut file = AtomicFile::create(&self.spec.path)?;
        let mut out = BufWriter::with_capacity(1 << 20, &mut file);
        encode_into(&mut out, self.target, self.moduli, self.independent, point)?;
        out.flush()?;
        drop(out);
        file.commit()
    }

    /// Saves where the run stands (`point`) when `spec.every` has passed since the last save, or
    /// when the run is `stopping` (and then says so). A periodic save that fails (a full disk, a
    /// folder gone) does not stop the count: it is said once, as a notice, the previous checkpoint
    /// (if any) stays whole, and the next save tries again (and says so when it works).
    ///
    /// # Errors
    /// [`Error::Io`] when the save of a `stopping` run cannot be written: what the run has done is
    /// then lost, and the run says so.
    pub(crate) fn at_boundary(&mut self, point: &Position, stopping: bool) -> Result<()> {
        if !stopping && self.last_save.elapsed() < self.spec.every {
            return Ok(());
        }
        let saved = self.save(point);
        self.last_save = Instant::now();
        let path = self.spec.path.display();
        match saved {
            Err(e) if stopping => return Err(in_file(&self.spec.path, "saving", e)),
            Err(e) => {
                if !std::mem::replace(&mut self.failing, true) {
                    self.hooks.notice(&format!(
                        "warning: cannot save the checkpoint {path} ({e}); the count goes on and tries again at \
                         the next save"
                    ));
                }
                return Ok(());
            }
            Ok(()) if std::mem::replace(&mut self.failing, false) => {
                self.hooks.notice(&format!("saved the checkpoint {path} again"));
            }
            Ok(()) => {}
        }
        if stopping {
            let n = self.target.0;
            self.hooks.notice(&format!("saved the checkpoint {path} {}", point.stands(n)));
        }
        Ok(())
    }
}

/// The refusal of a checkpoint whose saved state does not fit the count it resumes, naming its file
/// (what the engines say of a position that does not fit, [`fibtree_core::Param::Resume`]); any
/// other error as it is.
pub(crate) fn does_not_fit(spec: &Checkpoint, e: Error) -> Error {
    match e {
        Error::InvalidArgument { param: Param::Checkpoint, expected } => Error::invalid(
            Param::Checkpoint,
            format!(
                "'{}': {expected}: the file is damaged, or was not written by fibtree; it is left as it is (use \
                 --fresh to start over)",
                spec.path.display()
            ),
        ),
        other => other,
    }
}

/// Removes the checkpoint of a completed run, unless `spec.keep`: the file its path's links lead to
/// (where it was saved and read), the links themselves kept. A file that cannot be removed does not
/// lose the result: `hooks` is told, and the run goes on to its report.
pub(crate) fn finish(spec: &Checkpoint, hooks: Hooks) {
    if spec.keep {
        return;
    }
    let file = resolve_links(&spec.path).unwrap_or_else(|_| spec.path.clone());
    match std::fs::remove_file(&file) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => hooks.notice(&format!(
            "warning: the run is complete, but its checkpoint {} could not be removed: {e}",
            spec.path.display()
        )),
        _ => {}
    }
}

/// An I/O error on the checkpoint `path`, saying what was being done and naming the file.
fn in_file(path: &Path, doing: &str, e: std::io::Error) -> Error {
    Error::from(std::io::Error::new(e.kind(), format!("{doing} the checkpoint {}: {e}", path.display())))
}

/// A run's hold on its checkpoint: the lock file beside it, locked and holding the process id
/// while the run lives, removed when the hold is dropped.
#[derive(Debug)]
pub(crate) struct Hold {
    lock: PathBuf,
    _file: File,
}

impl Drop for Hold {
    fn drop(&mut self) {
        // removed while still locked, so that no other run takes a lock on a file about to go; and
        // only where its name is still this file, not what another process put in its place
        if fibtree_util::still_names(&self.lock, &self._file) {
            let _ = std::fs::remove_file(&self.lock);
        }
    }
}

/// The most bytes a lock file of fibtree's holds: a process id and a line end.
const LOCK_BYTES: u64 = 24;

/// Whether `file`, a regular file at a lock file's name, is one fibtree's runs write: empty, or a
/// process id on a line. Anything else (a file linked there under that name) is not to be truncated.
fn holds_a_process_id(mut file: &File) -> bool {
    let mut text = String::new();
    let read = file.metadata().is_ok_and(|m| m.len() <= LOCK_BYTES) && file.read_to_string(&mut text).is_ok();
    let _ = file.rewind();
    read && text.trim_end_matches('\n').bytes().all(|b| b.is_ascii_digit())
}

/// Checks `spec.path` before a run and takes the run's hold on it: the path must be a regular file
/// or none, in an existing folder where files can be made, and no other run may hold it.
///
/// Cost: a few system calls.
///
/// # Errors
/// [`Error::InvalidArgument`] naming [`Param::Checkpoint`] for a path that is not a regular file, a
/// missing or read-only folder, or a checkpoint another run holds (with that run's process id).
pub(crate) fn hold(spec: &Checkpoint) -> Result<Hold> {
    let shown = spec.path.display();
    let refuse = |what: String| Error::invalid(Param::Checkpoint, what);
    if descriptor_named(&spec.path).is_some() {
        return Err(refuse(format!(
            "'{shown}' names an open file descriptor; expected a checkpoint file or a new name"
        )));
    }
    let path = resolve_links(&spec.path).map_err(|e| refuse(format!("'{shown}': {e}")))?;
    match std::fs::metadata(&path) {
        Ok(m) if !m.is_file() => {
            return Err(refuse(format!("'{shown}' is not a regular file; expected a checkpoint file or a new name")));
        }
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(refuse(format!("cannot read '{shown}': {e}")));
        }
        _ => {}
    }
    let folder = folder_of(&path);
    if !folder.is_dir() {
        return Err(refuse(format!("the folder '{}' does not exist", folder.display())));
    }
    let lock = beside(&path, ".lock");
    let cannot =
        |e: std::io::Error| refuse(format!("cannot make its lock file in the folder '{}': {e}", folder.display()));
    // the lock file's name is fibtree's: what else stands there is refused and left as it is
    let not_a_lock = |what: &dyn std::fmt::Display| {
        refuse(format!(
            "its lock file '{}' is in the way: {what}; remove it, or name another checkpoint",
            lock.display()
        ))
    };
    loop {
        let mut file = match fibtree_util::open_own(&lock) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Err(not_a_lock(&e)),
            Err(e) => return Err(cannot(e)),
        };
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim().parse::<u32>().map_or(String::new(), |pid| format!(" (process {pid})"));
                return Err(refuse(format!(
                    "'{shown}' is in use by another fibtree run{holder}; wait for it to end, or stop it"
                )));
            }
            Err(TryLockError::Error(e)) => {
                // a file system without locks: the empty lock file just made is not left behind
                if file.metadata().is_ok_and(|m| m.len() == 0) && fibtree_util::still_names(&lock, &file) {
                    let _ = std::fs::remove_file(&lock);
                }
                return Err(cannot(e));
            }
        }
        if !holds_a_process_id(&file) {
            return Err(not_a_lock(&"it holds something other than a process id, and is left as it is"));
        }
        // the lock file may have been removed by the run that held it between our open and our
        // lock: then the lock is on a file no other run sees, and we start again
        if !fibtree_util::still_names(&lock, &file) {
            continue;
        }
        // held from here: a failure (a full disk) removes the lock file, as the hold's end would
        let hold = Hold { lock: lock.clone(), _file: file };
        let mut file = &hold._file;
        file.set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| writeln!(file, "{}", std::process::id()))
            .and_then(|()| file.flush())
            .map_err(cannot)?;
        // what saves killed in the middle left (a live save of this checkpoint would hold its lock)
        fibtree_util::remove_stale_temporaries(&path);
        return Ok(hold);
    }
}

#[cfg(test)]
mod fuzz;
#[cfg(test)]
mod tests;
