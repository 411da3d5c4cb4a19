//! The operating system's calls that Rust's standard library does not wrap: a duplicate of one of the
//! process's own descriptors, for writing through `/dev/fd/N`; the signal action that ends a
//! process blocked writing its output; and the end of a process group (a program `stress` runs,
//! with whatever it started). Only on unix; the calls go through `rustix`, and the two that it
//! cannot make safe (borrowing a descriptor by its number, a signal action) say why they hold.

#![allow(unsafe_code)]

use std::fs::File;
use std::os::fd::AsFd;

use rustix::fs::OFlags;

/// Why a descriptor cannot be written through.
#[derive(Debug)]
pub(super) enum DescriptorProblem {
    /// The number is not an open descriptor of this process.
    NotOpen,
    /// The descriptor is open for reading only.
    ReadOnly,
    /// Duplicating it failed (too many open files, for example).
    Duplicate(std::io::Error),
}

/// A new descriptor (a [`File`]) for this process's open descriptor `fd`, which must be open for
/// writing; it shares the original's file offset and flags (an appending standard output keeps
/// appending).
///
/// Cost: two system calls (`fcntl`).
///
/// # Errors
/// A [`DescriptorProblem`] saying why not.
pub(super) fn duplicate_for_writing(fd: i32) -> Result<File, DescriptorProblem> {
    if fd < 0 {
        return Err(DescriptorProblem::NotOpen);
    }
    // SAFETY: the number is borrowed only for the two calls below, which take any number and give
    // EBADF for one that is not open; the process's descriptors are not closed behind its back by
    // other threads of fibtree.
    let borrowed = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
    let flags = rustix::fs::fcntl_getfl(borrowed).map_err(|_| DescriptorProblem::NotOpen)?;
    if flags & OFlags::ACCMODE == OFlags::RDONLY {
        return Err(DescriptorProblem::ReadOnly);
    }
    borrowed.try_clone_to_owned().map(File::from).map_err(DescriptorProblem::Duplicate)
}

/// Whether a write that may block (to standard output, a pipe, a FIFO, a device) is under way.
static WRITING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The first of the signals [`end_blocked_writes_on`] watches that came, or 0.
static SIGNALLED: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// Ends the process at once for `signal`: the one line `error: interrupted by SIGNAL` on standard
/// error and the exit status 128 + `signal`. Only async-signal-safe calls (`write`, `_exit`; the
/// standard error handle is a static, borrowed without its lock).
fn end_for(signal: i32) -> ! {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let line: &[u8] = match signal {
        SIGHUP => b"error: interrupted by SIGHUP\n",
        SIGINT => b"error: interrupted by SIGINT\n",
        SIGTERM => b"error: interrupted by SIGTERM\n",
        _ => b"error: interrupted by a signal\n",
    };
    // a failed write is ignored, as nothing else can be done at this point
    let _ = rustix::io::write(std::io::stderr().as_fd(), line);
    signal_hook::low_level::exit(128 + signal)
}

/// Adds to `signal` an action that ends the process at once (see [`end_for`]) when the signal comes
/// while a write that may block is under way ([`while_writing`]), and else only notes that it
/// came. The other actions registered for `signal` (the flags that stop the engines) still run:
/// this one is for a process that is not computing but waiting on a reader that does not read.
///
/// # Errors
/// If the action cannot be registered.
pub(super) fn end_blocked_writes_on(signal: i32) -> std::io::Result<()> {
    use std::sync::atomic::Ordering::SeqCst;
    let action = move || {
        let _ = SIGNALLED.compare_exchange(0, signal, SeqCst, SeqCst);
        if WRITING.load(SeqCst) {
            end_for(signal);
        }
    };
    // SAFETY: the action is async-signal-safe: atomic operations on statics, `write` and `_exit`,
    // no allocation and no lock.
    unsafe { signal_hook::low_level::register(signal, action) }.map(|_| ())
}

/// Runs `write` (a write or an open that may block on a reader) marked as such, so that a signal
/// watched by [`end_blocked_writes_on`] ends the process instead of waiting for the reader; if
/// such a signal came before, the process ends at once without writing. Cost: two atomic stores.
pub(super) fn while_writing<T>(write: impl FnOnce() -> T) -> T {
    use std::sync::atomic::Ordering::SeqCst;
    WRITING.store(true, SeqCst);
    // a signal between the engines' last look at their flag and the store above would otherwise
    // leave a blocked write waiting; its action ran while WRITING was unset, so end here
    let signal = SIGNALLED.load(SeqCst);
    if signal != 0 {
        end_for(signal);
    }
    let result = write();
    WRITING.store(false, SeqCst);
    result
}

/// Forgets the signals [`end_blocked_writes_on`] noted, for a command that still writes what it did
/// after a signal stopped it (`stress` reports the runs it has): its writes go on, and a signal that
/// comes while one of them waits still ends the process at once. Cost: one atomic store.
pub(super) fn forget_signals() {
    SIGNALLED.store(0, std::sync::atomic::Ordering::SeqCst);
}

/// Sends SIGKILL to every process of the process group `group` (a child started as the leader of a
/// group of its own, and what it started). A group that no longer exists is not an error.
///
/// Cost: one system call.
///
/// # Errors
/// What `killpg` says, but for a group with no process left (ESRCH).
pub(super) fn kill_group(group: u32) -> std::io::Result<()> {
    // 0 would be this process's own group and 1 is init: never a child's group
    let group = i32::try_from(group).ok().filter(|&g| g > 1).and_then(rustix::process::Pid::from_raw);
    let group = group.ok_or_else(|| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
    match rustix::process::kill_process_group(group, rustix::process::Signal::KILL) {
        Ok(()) | Err(rustix::io::Errno::SRCH) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_descriptor_is_duplicated_or_refused() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("descriptor");
        let file = File::create(&path).unwrap();
        let fd = std::os::fd::AsRawFd::as_raw_fd(&file);
        let mut copy = duplicate_for_writing(fd).unwrap();
        copy.write_all(b"through").unwrap();
        drop((copy, file));
        assert_eq!(std::fs::read(&path).unwrap(), b"through");
        let reading = File::open(&path).unwrap();
        let fd = std::os::fd::AsRawFd::as_raw_fd(&reading);
        assert!(matches!(duplicate_for_writing(fd), Err(DescriptorProblem::ReadOnly)));
        drop(reading);
        assert!(matches!(duplicate_for_writing(1 << 20), Err(DescriptorProblem::NotOpen)));
    }

    #[test]
    fn a_process_group_is_ended() {
        use std::os::unix::process::{CommandExt, ExitStatusExt};
        let mut child = std::process::Command::new("sleep").arg("30").process_group(0).spawn().unwrap();
        kill_group(child.id()).unwrap();
        assert_eq!(child.wait().unwrap().signal(), Some(signal_hook::consts::SIGKILL));
        // the group is gone: not an error
        kill_group(child.id()).unwrap();
        assert!(kill_group(0).is_err() && kill_group(1).is_err());
    }
}
