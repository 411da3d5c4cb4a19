//! The memory guard: what a run may use, what each kind of run needs, and the one refusal.
//!
//! Every entry that allocates memory by n goes through here before it allocates: [`Guard::floor`]
//! first (O(1), before anything of size O(n)), then [`Guard::plan`] (a prediction, then the plan
//! itself and the whole run's estimate from its real sizes) or [`Guard::unplanned`] (the dense
//! modular route, which needs no plan). A refusal is always [`refuse`] (a cost formula,
//! [`crate::cost`]): the estimate of the whole run, not of the part that first failed, and the limit.
//!
//! - [`machine`]: what the machine lets a run use (the memory available, the cgroup, `ulimit -v`)
//!   and which limit it is ([`crate::limits`] holds the type);
//! - [`guard`]: the steps of a run over a plan, in the order that lets nothing large be allocated;
//! - [`runs`]: the estimate of each kind of run ([`Run`]) from its plan's sizes
//!   ([`crate::plan::Sizes`]);
//! - [`threads`]: the threads a run may start, and the refusal naming the process limit.

mod guard;
mod machine;
mod runs;
mod threads;

pub(crate) use guard::Guard;
pub(crate) use machine::run_limit;

use crate::limits::Limit;
pub(crate) use runs::{Run, distribution_predicted, kept_values};
pub(crate) use threads::{not_started, pool};

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
