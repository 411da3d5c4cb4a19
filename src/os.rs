//! The operating system's calls that Rust's standard library does not wrap: a duplicate of one of the
//! process's own descriptors, for writing through `/dev/fd/N`; the signal action that ends a
//! process blocked writing its output; the end of a process group (a program `stress` runs, with
//! whatever it started), and of what such a program left running elsewhere (this process made its
//! reaper, its children listed, killed and reaped, with what they used); a wait on pipes with a
//! time limit; the limit on the user's processes and on a program's address space; the allocator's
//! mapping threshold, and its arenas under an address-space limit. Only on unix;
//! the calls go through `rustix`, and those that it cannot make safe (borrowing a descriptor by
//! its number, a signal action, `wait4` with its usage, what a child does between fork and exec,
//! `mallopt`) say why they hold.

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

/// The first of the signals [`end_blocked_writes_on`] watches that came (and was not forgotten,
/// [`forget_signals`]), if any. Cost: one atomic load.
pub(super) fn signalled() -> Option<i32> {
    Some(SIGNALLED.load(std::sync::atomic::Ordering::SeqCst)).filter(|&s| s != 0)
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

/// Makes this process the reaper of the descendants that lose their parent (PR_SET_CHILD_SUBREAPER):
/// what a program of `stress` leaves running, even in a process group or session of its own,
/// becomes a child of this process once the program ends, so that it can be found ([`children`]),
/// ended ([`kill_process`]) and reaped ([`reap`]). Linux only; elsewhere an error.
///
/// Cost: one system call.
///
/// # Errors
/// What `prctl` says.
pub(super) fn become_subreaper() -> std::io::Result<()> {
    Ok(rustix::process::set_child_subreaper(Some(rustix::process::getpid()))?)
}

/// The process ids of this process's children, running or ended but not yet reaped: from
/// `/proc/self/task/*/children` where the kernel has them, else from the parent of every
/// `/proc/PID/stat`.
///
/// Cost: the reads of one small file a thread, or of one a process of the machine.
pub(super) fn children() -> Vec<i32> {
    let tasks = std::fs::read_dir("/proc/self/task").into_iter().flatten().flatten();
    let lists: Option<Vec<String>> =
        tasks.map(|task| std::fs::read_to_string(task.path().join("children")).ok()).collect();
    if let Some(lists) = lists.filter(|l| !l.is_empty()) {
        return lists.iter().flat_map(|l| l.split_whitespace()).filter_map(|pid| pid.parse().ok()).collect();
    }
    let me = rustix::process::getpid().as_raw_nonzero().get();
    let processes = std::fs::read_dir("/proc").into_iter().flatten().flatten();
    let pids = processes.filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok());
    pids.filter(|pid| parent_of(*pid) == Some(me)).collect()
}

/// The parent of the process `pid`, from `/proc/PID/stat` (the field after the state, which follows
/// the command's name in parentheses, itself perhaps holding spaces or parentheses).
fn parent_of(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.get(stat.rfind(')')? + 1..)?.split_whitespace().nth(1)?.parse().ok()
}

/// Sends SIGKILL to the process `pid`, and to the process group it leads where it leads one (what
/// it started in that group). A process already gone is not an error.
///
/// Cost: two system calls.
pub(super) fn kill_process(pid: i32) {
    let Some(pid) = rustix::process::Pid::from_raw(pid).filter(|p| p.as_raw_nonzero().get() > 1) else { return };
    // a group of that number can only be one the process made (its own id names no other)
    let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
}

/// Reaps the child `pid` where it has ended, without waiting: whether it is gone (reaped now, or no
/// child of this process).
///
/// Cost: one system call.
pub(super) fn reap(pid: i32) -> bool {
    let Some(pid) = rustix::process::Pid::from_raw(pid) else { return true };
    match rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::NOHANG) {
        Ok(Some(_)) | Err(rustix::io::Errno::CHILD) => true,
        Ok(None) | Err(_) => false,
    }
}

/// Whether the child `pid` has ended, without reaping it: its id (and the number of its process
/// group) stays taken until it is reaped, so that nothing else can be killed by that number.
///
/// Cost: one system call.
///
/// # Errors
/// What `waitid` says (no such child).
pub(super) fn has_ended(pid: u32) -> std::io::Result<bool> {
    use rustix::process::{WaitId, WaitIdOptions};
    let pid = i32::try_from(pid).ok().and_then(rustix::process::Pid::from_raw);
    let pid = pid.ok_or_else(|| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
    let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
    Ok(rustix::process::waitid(WaitId::Pid(pid), options)?.is_some())
}

/// Waits at most `wait` for any of `fds` to have bytes to read or its end; which do, in order. A
/// signal that interrupts the wait ends it, with none ready.
///
/// Cost: one system call.
pub(super) fn ready(fds: &[std::os::fd::BorrowedFd<'_>], wait: std::time::Duration) -> Vec<bool> {
    use rustix::event::{PollFd, PollFlags, Timespec};
    let mut polled: Vec<PollFd<'_>> = fds.iter().map(|fd| PollFd::new(fd, PollFlags::IN)).collect();
    let timeout = Timespec::try_from(wait).unwrap_or(Timespec { tv_sec: 1, tv_nsec: 0 });
    match rustix::event::poll(&mut polled, Some(&timeout)) {
        Ok(_) => polled.iter().map(|p| !p.revents().is_empty()).collect(),
        Err(_) => vec![false; fds.len()],
    }
}

/// Sets the C allocator (glibc's) for the engines' buffers, before any thread starts:
/// - a fixed mapping threshold (`M_MMAP_THRESHOLD`, at glibc's own first value, 128 KiB), so that a
///   buffer of a layer's chunk (hundreds of KiB to MiB in a large count) is mapped alone and its
///   memory goes back to the system when freed or shrunk. glibc otherwise raises the threshold to
///   the size of each mapped block freed, after which such buffers come from the arenas, where what
///   is freed stays in pieces that a slightly larger buffer does not fit: 78 MiB more at the peak of
///   `count 100000`;
/// - under an address-space limit (`ulimit -v`, RLIMIT_AS), one arena for every thread
///   (`M_ARENA_MAX`), so that each worker thread does not reserve an arena of 64 MiB of address space
///   on its first allocation: the memory guard counts what the process maps, and such reservations
///   would take the room of the run.
///
/// Settings of the whole process, so the program's and not the library's; `mallopt` is the C
/// library's, which `rustix` does not wrap. Elsewhere (another C library or system) it does nothing.
///
/// Cost: one system call and up to two calls into the allocator; effective for the threads that
/// have not allocated yet.
pub(super) fn tune_the_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let limited = rustix::process::getrlimit(rustix::process::Resource::As).current.is_some();
        // SAFETY: `mallopt` only sets a tunable of the allocator, for any value, from any thread;
        // M_MMAP_THRESHOLD and M_ARENA_MAX are glibc's parameters.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
            if limited {
                libc::mallopt(libc::M_ARENA_MAX, 1);
            }
        }
    }
}

/// The soft limit on the processes (and threads) of this process's user (RLIMIT_NPROC), where one
/// is set. Cost: one system call.
pub(super) fn process_limit() -> Option<u64> {
    rustix::process::getrlimit(rustix::process::Resource::Nproc).current
}

/// `cause` and the process limit where one is set, as a failure to start threads or processes
/// says them: `CAUSE; the process limit RLIMIT_NPROC is 2`. Cost: one system call.
pub(super) fn with_process_limit(cause: &dyn std::fmt::Display) -> String {
    match process_limit() {
        Some(limit) => format!("{cause}; the process limit RLIMIT_NPROC is {limit}"),
        None => cause.to_string(),
    }
}

/// Why `threads` threads did not start, in words: `could not start 4 threads (CAUSE; the process
/// limit RLIMIT_NPROC is 2)`, the limit said where one is set. Cost: one system call.
pub(super) fn threads_not_started(threads: usize, cause: &dyn std::fmt::Display) -> String {
    let threads = fibtree_util::counted(threads as u64, "thread");
    format!("could not start {threads} ({})", with_process_limit(cause))
}

/// What a program's process used, as `wait4` gives it when it is reaped: its own and that of the
/// children it waited for (a shell's, the commands it ran and waited for).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Usage {
    /// User and system CPU time, in seconds.
    pub(super) cpu_seconds: f64,
    /// The peak resident memory of the largest of those processes (`ru_maxrss`), in bytes: at
    /// least the program's peak, and the larger of it and the copy of this process's memory that
    /// its process began as ([`spawn_measured`]).
    pub(super) max_resident_bytes: u64,
    /// The program's own peak: `max_resident_bytes` where it is told apart from that copy (set by
    /// the runner).
    pub(super) peak_bytes: Option<u64>,
}

/// How a reaped child ended: its exit status, or the signal that ended it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Exit {
    Code(i32),
    Signal(i32),
}

/// Waits for the child `pid` to end and reaps it (`wait4`): how it ended and what it used. Only
/// for a child that has ended or been killed (the wait is then at once).
///
/// Cost: one system call.
///
/// # Errors
/// What `wait4` says (no such child).
pub(super) fn reap_with_usage(pid: u32) -> std::io::Result<(Exit, Usage)> {
    let pid = libc::pid_t::try_from(pid).map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
    let mut status: libc::c_int = 0;
    // SAFETY: `rusage` is a plain C struct of integers, for which all zeros is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: both pointers are to live locals of the types `wait4` writes, and nothing else
        // holds them during the call.
        let got = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if got == pid {
            break;
        }
        let e = std::io::Error::last_os_error();
        if got != -1 || e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    let exit = match (libc::WIFEXITED(status), libc::WIFSIGNALED(status)) {
        (true, _) => Exit::Code(libc::WEXITSTATUS(status)),
        (_, true) => Exit::Signal(libc::WTERMSIG(status)),
        _ => Exit::Code(-1),
    };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    let max_resident_bytes = u64::try_from(usage.ru_maxrss).unwrap_or(0).saturating_mul(RSS_UNIT);
    let cpu_seconds = seconds(usage.ru_utime) + seconds(usage.ru_stime);
    Ok((exit, Usage { cpu_seconds, max_resident_bytes, peak_bytes: None }))
}

/// Starts `command` by `fork` and `exec`, its address space limited to `memory_limit` bytes where
/// one is given (RLIMIT_AS, soft and hard, never above the hard limit this process has: an
/// allocation past it fails in the program); with the child, the peak resident memory the child had
/// before its `exec` (a copy of this process's, which `wait4` counts in the program's peak, as
/// `ru_maxrss` is the largest of a process's before and after `exec`), in bytes, where it could be
/// told. A `posix_spawn` (which the standard library uses where it can) would share this
/// process's memory until the `exec`, and so count its peak in the program's.
///
/// Cost: the spawn, a pipe and three system calls in the child.
///
/// # Errors
/// As [`std::process::Command::spawn`].
pub(super) fn spawn_measured(
    command: &mut std::process::Command,
    memory_limit: Option<u64>,
) -> std::io::Result<(std::process::Child, Option<u64>)> {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    use std::io::Read;
    use std::os::fd::AsRawFd;
    use std::os::unix::process::CommandExt;
    let limit = memory_limit.map(|bytes| {
        let bytes = getrlimit(Resource::As).maximum.map_or(bytes, |hard| bytes.min(hard));
        Rlimit { current: Some(bytes), maximum: Some(bytes) }
    });
    // the child writes its peak before exec; both ends close on exec
    let (mut reader, writer) = std::io::pipe()?;
    let fd = writer.as_raw_fd();
    let before_exec = move || {
        if let Some(limit) = limit {
            setrlimit(Resource::As, limit).map_err(std::io::Error::from)?;
        }
        // SAFETY: `rusage` is a plain C struct of integers, for which all zeros is a valid value.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: getrusage writes into the live local it is given, and nothing else.
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } == 0 {
            let peak = u64::try_from(usage.ru_maxrss).unwrap_or(0).to_ne_bytes();
            // SAFETY: `fd` is the write end of the pipe, open in the child until its exec; the
            // buffer is a live local of 8 bytes.
            let _ = unsafe { libc::write(fd, peak.as_ptr().cast(), peak.len()) };
        }
        Ok(())
    };
    // SAFETY: the closure runs in the child between fork and exec, where only async-signal-safe
    // calls may be made: it makes system calls alone (setrlimit, getrusage, write) on copied
    // values and locals, allocates nothing and takes no lock; a failure is returned as an error,
    // which fails the spawn.
    unsafe {
        command.pre_exec(before_exec);
    }
    let child = command.spawn()?;
    // the child's copy is closed by its exec: what it wrote, then the end of the pipe
    drop(writer);
    let mut bytes = [0u8; 8];
    let floor = reader.read_exact(&mut bytes).ok().map(|()| u64::from_ne_bytes(bytes).saturating_mul(RSS_UNIT));
    Ok((child, floor))
}

/// The unit of `ru_maxrss`, in bytes: kibibytes on Linux, bytes on macOS.
const RSS_UNIT: u64 = if cfg!(target_os = "macos") { 1 } else { 1024 };

/// Gives the memory the allocator holds free back to the system (glibc's `malloc_trim`; nothing
/// elsewhere), so that this process's resident memory is what it uses.
///
/// Cost: a walk of the allocator's free lists.
pub(super) fn give_back_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim has no precondition; it only returns free pages of the heap to the system.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// The threads of this process, from `/proc/self/task` (1 where it cannot be read).
///
/// Cost: one listing of a small folder.
pub(super) fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").map_or(1, |tasks| tasks.count().max(1))
}

/// The peak resident memory of this process so far (`VmHWM` of `/proc/self/status`), where it can
/// be read: what `count --verbose` sets beside the estimate, and `dist --verbose` says. Cost: one read of a small file.
pub(crate) fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse::<u64>().ok()?.checked_mul(1024)
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
