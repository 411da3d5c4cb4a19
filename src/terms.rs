//! The library's parameters in the command line's terms: the flag, argument or environment variable
//! a user wrote for each ([`flag`]), and a library refusal reworded to name it ([`in_terms`]).

use fibtree::Param;
use fibtree_util::human_bytes;

use crate::error::{Error, refused};

/// The environment variable that simulates another machine.
pub(crate) const MACHINE_VAR: &str = "FIBTREE_MACHINE";

/// The environment variable that forces a kernel set.
pub(crate) const ISA_VAR: &str = "FIBTREE_ISA";

/// More memory than any machine has (1 PiB): a run whose estimate is past it is refused naming the
/// argument that makes it so large (N, TO, ...), not `--max-memory`, which no value could lift.
pub(crate) const ANY_MACHINE: u64 = 1 << 50;

/// The command line's name for a parameter of the library, where a command does not name it
/// otherwise.
pub(crate) fn flag(param: Param) -> &'static str {
    match param {
        Param::N => "N",
        Param::G => "--g",
        Param::Modulus => "--mod",
        Param::Threads => "--threads",
        Param::Path => "PATH",
        Param::Checkpoint => "--checkpoint",
        Param::Cut => "--cut",
        Param::Lanes => "--chunk-lanes",
        Param::Isa => ISA_VAR,
        Param::Machine => MACHINE_VAR,
        Param::Shard => "--shard",
        Param::Claims => "--claims",
    }
}

/// An error in the command line's terms: a library refusal (a bad argument, or a run too large for
/// memory) names the flag `flags` gives its parameter; every other error stays as it is.
pub(crate) fn in_terms(e: Error, flags: fn(Param) -> &'static str) -> Error {
    let e = match e {
        Error::Library(e) => e,
        e @ (Error::Refused { .. }
        | Error::Stopped { .. }
        | Error::Io(_)
        | Error::Json(_)
        | Error::Failed(_)
        | Error::Context { .. }) => return e,
    };
    match e {
        fibtree::Error::InvalidArgument { param, expected } => refused(flags(param), expected),
        // past what any machine has, the parameter that makes the run this large is at fault
        fibtree::Error::OutOfMemory { param, estimate, .. } if estimate > ANY_MACHINE => refused(
            flags(param),
            format!(
                "too large for any machine: this run would need about {} of memory (estimate; no machine has 1 PiB)",
                human_bytes(estimate),
            ),
        ),
        // named: the limit where the user can change it (`--max-memory`, which also lifts the
        // memory available, or the variable that set it), with the parameter that makes the run
        // this large; under a limit it cannot lift (a cgroup's, `ulimit -v`, `ulimit -d`), that
        // parameter alone
        fibtree::Error::OutOfMemory { param, estimate, limit } => {
            // who can change the limit: the user, by an option or a variable, or no one here
            let changed_by = match limit.bound() {
                fibtree::Bound::Given | fibtree::Bound::Available => Some("--max-memory"),
                fibtree::Bound::Machine => Some(MACHINE_VAR),
                fibtree::Bound::Cgroup { .. } | fibtree::Bound::AddressSpace { .. } | fibtree::Bound::Data { .. } => {
                    None
                }
            };
            let (named, estimated) = match changed_by {
                Some(changed_by) => (changed_by, format!("estimate, for its {}", flags(param))),
                None => (flags(param), "estimate".to_string()),
            };
            refused(
                named,
                format!("this run needs about {} of memory ({estimated}), more than {limit}", human_bytes(estimate)),
            )
        }
        e @ (fibtree::Error::CrossCheck { .. }
        | fibtree::Error::ParityCheck { .. }
        | fibtree::Error::ResidueCheck { .. }
        | fibtree::Error::RunsDisagree(_)
        | fibtree::Error::Io(_)
        | fibtree::Error::Interrupted) => Error::Library(e),
    }
}
