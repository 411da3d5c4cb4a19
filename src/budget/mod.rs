//! The memory guard: what a run may use, what each kind of run needs, and the one refusal.
//!
//! Every entry that allocates memory by n goes through here before it allocates: [`Guard::floor`]
//! first (O(1), before anything of size O(n)), then [`Guard::plan`] (a prediction, then the plan
//! itself and the whole run's estimate from its real sizes) or [`Guard::unplanned`] (the dense
//! modular route, which needs no plan). A refusal is always [`refuse`] (a cost formula,
//! [`crate::cost`]): the estimate of the whole run, not of the part that first failed, and the limit.
//!
//! - [`limits`]: what the machine lets a run use (the memory available, the cgroup, `ulimit -v`)
//!   and which limit it is;
//! - [`guard`]: the steps of a run over a plan, in the order that lets nothing large be allocated;
//! - [`runs`]: the estimate of each kind of run ([`Run`]) from its plan's sizes
//!   ([`crate::plan::Sizes`]).

mod guard;
mod limits;
mod runs;

pub(crate) use guard::Guard;
pub(crate) use limits::{Limit, run_limit};
pub(crate) use runs::{Run, distribution_predicted, kept_values};

/// What the process needs before any run: code, thread stacks, the allocator's arenas (measured
/// peak of `count 10` on Linux x86-64).
pub(crate) const PROCESS_BYTES: u64 = 8 << 20;

/// The memory a run in the current thread pool may use: the least of the memory available, the
/// room left in the process's cgroup and under its address-space and data-segment limits
/// ([`run_limit`]), or `u64::MAX` where none can be read. Cost: the reads of a few small files.
pub(crate) fn available_memory() -> u64 {
    run_limit(None, rayon::current_num_threads()).bytes
}

/// A limit of `bytes` in words: the one [`run_limit`] chose last where it is of these bytes (it
/// then says which limit it is, e.g. `the 40.1 MiB it may use under the address-space limit
/// (ulimit -v) of 58.6 MiB ...`), else `the 1.0 GiB it may use`. Cost O(1).
pub(crate) fn limit_in_words(bytes: u64) -> String {
    limits::named(bytes).map_or_else(|| Limit { bytes, bound: limits::Bound::Given }.to_string(), |l| l.to_string())
}

/// The bytes of the field `key` (e.g. `VmHWM:`) of a `/proc` file that gives it in kB, where it can
/// be read. Cost: one read of a small file.
fn kib_field(path: &str, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}

/// The peak resident memory of this process so far (`VmHWM` from `/proc/self/status`), where it
/// can be read: what `count --verbose` sets beside the estimate. Cost: one read of a small file.
#[cfg(feature = "cli")]
pub(crate) fn peak_memory() -> Option<u64> {
    kib_field("/proc/self/status", "VmHWM:")
}

/// The guard's one rule and its one refusal, with the other cost formulas ([`crate::cost`]).
pub(crate) use crate::cost::{check, refuse};
