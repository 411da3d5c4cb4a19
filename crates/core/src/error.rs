//! The core's one error type, and the parameters its errors name.

use crate::limit::Limit;
use fibtree_util::human_bytes;

/// A parameter of the core's functions, as an error names it (a program names it its own way: a
/// command line by the flag the user wrote).
///
/// # Examples
///
/// ```
/// use fibtree_core::{Error, Param};
/// let Err(Error::InvalidArgument { param, expected }) = fibtree_core::primes_for(fibtree_core::MAX_N + 1, Default::default()) else {
///     panic!("refused")
/// };
/// assert_eq!((param, param.name()), (Param::N, "n"));
/// assert!(expected.starts_with("at most"), "{expected}");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Param {
    /// The tree T(n) of a count (the largest one of a run with many targets).
    N,
    /// The Grundy value g of a count.
    G,
    /// A modulus.
    Modulus,
    /// A thread count.
    Threads,
    /// The layer where a count is cut between its halves (see [`crate::Cut`]).
    Cut,
    /// The lanes a chunk of the blocked engine holds (see [`crate::Request::chunk_lanes`]).
    Lanes,
    /// The position a count resumes from (see [`crate::Position`]).
    Resume,
    /// A shard of a count's residues, or a number of them.
    Shard,
    /// The instruction set a machine's setting forces (see [`crate::Machine::isa`]).
    Isa,
    /// The machine a program sets (see [`crate::Machine::set`]).
    Machine,
}

impl Param {
    /// The parameter's name in the documentation, e.g. `n` or `modulus`. Cost O(1).
    pub fn name(self) -> &'static str {
        match self {
            Param::N => "n",
            Param::G => "g",
            Param::Modulus => "modulus",
            Param::Threads => "threads",
            Param::Cut => "cut",
            Param::Lanes => "lanes",
            Param::Resume => "resume",
            Param::Shard => "shard",
            Param::Isa => "isa",
            Param::Machine => "machine",
        }
    }
}

impl std::fmt::Display for Param {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Everything the core can refuse or fail at. Cheap to clone, so that one refusal can be handed to
/// each caller it concerns.
///
/// # Examples
///
/// ```
/// use fibtree_core::{Error, Param, Request};
/// let err = Request::exact(&[(fibtree_core::MAX_N + 1, 0)], fibtree_core::Engine::Blocked).plan().err().unwrap();
/// assert!(matches!(err, Error::InvalidArgument { param: Param::N, .. }));
/// assert!(err.to_string().starts_with("n: "), "{err}"); // the parameter, then what was expected
/// ```
#[derive(Clone, Debug, thiserror::Error)]
pub enum Error {
    /// An argument outside what the computation accepts.
    #[error("{param}: {expected}")]
    InvalidArgument {
        /// The parameter at fault.
        param: Param,
        /// What was expected, and what was given.
        expected: String,
    },
    /// The run would need more memory than the limit allows.
    #[error("{param}: this run needs about {} of memory (estimate), more than {limit}", human_bytes(*.estimate))]
    OutOfMemory {
        /// The parameter that makes the run this large.
        param: Param,
        /// The estimated peak memory of the run, in bytes.
        estimate: u64,
        /// The memory the run may use, and the limit that sets it.
        limit: Limit,
    },
    /// A value and a second computation of it disagree (a reconstruction from residues that is not
    /// below |T(n)|): a bug, reported loudly.
    #[error("CROSS-CHECK FAILED for {what}: the exact value gives {exact}, the modular engine gives {independent}")]
    CrossCheck {
        /// Which value, e.g. `c(10000, 0) mod 998244353`.
        what: String,
        /// The value's side.
        exact: String,
        /// The second computation's side.
        independent: String,
    },
    /// The run was stopped by its cancel flag.
    #[error("interrupted")]
    Interrupted,
}

impl Error {
    /// Shorthand for [`Error::InvalidArgument`]. Cost O(1).
    pub fn invalid(param: Param, expected: impl Into<String>) -> Self {
        Error::InvalidArgument { param, expected: expected.into() }
    }
}

/// The core's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
