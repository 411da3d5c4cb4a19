//! The memory guard: what a run may use, and the one check of an estimate against it.

use crate::error::{Error, Param, Result};

/// What the process needs before any run: code, thread stacks, the allocator's arenas (measured
/// peak of `count 10` on Linux x86-64).
pub const PROCESS_BYTES: u64 = 8 << 20;

/// The memory available to a run: `MemAvailable` from `/proc/meminfo`, or `u64::MAX` where that
/// cannot be read.
pub fn available_memory() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("MemAvailable:"))?;
            let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kb * 1024)
        })
        .unwrap_or(u64::MAX)
}

/// The memory guard's one rule: refuses a run whose `estimate` (bytes) exceeds `limit`, naming
/// `param`, the parameter that makes it this large. Every estimate of the library goes through it.
/// Cost O(1).
///
/// # Errors
/// [`Error::OutOfMemory`] when `estimate > limit`.
pub fn check_memory(param: Param, estimate: u64, limit: u64) -> Result<()> {
    if estimate > limit { Err(Error::OutOfMemory { param, estimate, limit }) } else { Ok(()) }
}
