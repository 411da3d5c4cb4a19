//! The memory guard: what a run may use ([`Limit`]), what each kind of run needs, and the one
//! refusal.
//!
//! Every run that allocates memory by n is checked before it allocates: [`Guard::floor`] first
//! (O(1), before anything of size O(n)), then a prediction (O(n), no memory), then the plan's real
//! sizes once it is made, or the dense modular route's arrays, which need no plan. A refusal is
//! always the estimate of the whole run, not of the part that first failed, and the limit. The guard
//! runs no part of a count: the count's door ([`crate::Request::plan`]) asks it at each step.
//!
//! - [`limit`]: the memory a run may use and the limit that sets it;
//! - [`machine`]: what the machine lets a run use (the memory available, the cgroup, `ulimit -v`);
//! - [`steps`]: the guard of one run ([`Guard`]) and its steps, in the order that lets nothing large
//!   be allocated;
//! - [`runs`]: the estimate of each kind of run ([`Run`]) from its plan's sizes
//!   ([`crate::plan::Sizes`]);
//! - [`threads`]: the threads a run may start, and the refusal naming the process limit.

mod machine;
mod runs;
mod steps;
mod threads;

pub use crate::limit::{Bound, Limit};
pub use steps::Guard;

pub(crate) use machine::run_limit;
pub(crate) use runs::{Run, distribution_predicted, kept_values};
pub(crate) use threads::pool;

/// What the process needs before any run: code, thread stacks, the allocator's arenas (measured
/// peak of `count 10` on Linux x86-64).
pub(crate) const PROCESS_BYTES: u64 = 8 << 20;

/// The memory a run in the current thread pool may use, and the limit that sets it: the least of
/// the memory available, the room left in the process's cgroup and under its address-space and
/// data-segment limits ([`run_limit`]), or no limit where none can be read. Cost: the reads of a
/// few small files.
pub(crate) fn available_limit() -> Limit {
    run_limit(None, rayon::current_num_threads())
}

/// The guard's one rule and its one refusal, with the other cost formulas ([`crate::cost`]).
pub(crate) use crate::cost::{check, refuse};
