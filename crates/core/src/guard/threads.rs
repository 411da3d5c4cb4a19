//! The threads the machine lets a run start: a pool of T threads, or a refusal naming the limit on
//! the user's processes (RLIMIT_NPROC, which counts threads too), where that is what stopped it.

use std::fmt::Display;

use crate::error::{Error, Param, Result};

/// The soft limit on the processes (and threads) of the process's user, where one is set: the line
/// `Max processes` of `/proc/self/limits`. Cost: the read of one small file.
pub(crate) fn process_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
    super::machine::rlimit(&limits, "Max processes")
}

/// The refusal of `threads` threads that could not be started for `cause`: [`Error::InvalidArgument`]
/// naming [`Param::Threads`] and, where one is set, the process limit.
fn threads_refused(threads: usize, cause: &dyn Display) -> Error {
    Error::invalid(Param::Threads, not_started(threads, cause))
}

/// Why `threads` threads did not start, in words: `could not start 4 threads (CAUSE; the process
/// limit RLIMIT_NPROC is 2)`, the limit said where one is set. Cost: the read of one small file.
pub(crate) fn not_started(threads: usize, cause: &dyn Display) -> String {
    let s = if threads == 1 { "" } else { "s" };
    let limit = process_limit().map_or(String::new(), |l| format!("; the process limit RLIMIT_NPROC is {l}"));
    format!("could not start {threads} thread{s} ({cause}{limit})")
}

/// A pool of `threads` worker threads.
///
/// Cost: `threads` threads started.
///
/// # Errors
/// [`threads_refused`] where they cannot all be started (the process limit, memory).
pub(crate) fn pool(threads: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().map_err(|e| threads_refused(threads, &e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pool_or_the_refusal_naming_the_limit() {
        assert_eq!(pool(2).unwrap().current_num_threads(), 2);
        let why = not_started(4, &"no room");
        assert!(why.starts_with("could not start 4 threads (no room"), "{why}");
        assert_eq!(why.contains("; the process limit RLIMIT_NPROC is "), process_limit().is_some(), "{why}");
        assert!(not_started(1, &"x").starts_with("could not start 1 thread (x"));
        let e = threads_refused(3, &"x");
        assert!(matches!(e, Error::InvalidArgument { param: Param::Threads, .. }), "{e}");
    }
}
