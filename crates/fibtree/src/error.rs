//! The library's one error type, and the parameters its errors name; the engines' errors
//! ([`fibtree_core::Error`]) become its own.

use std::sync::Arc;

use fibtree_core::Limit;
use fibtree_util::human_bytes;

/// A parameter of the library's functions, as an error names it. The command line turns it into
/// the flag or argument the user wrote (for example [`Param::Modulus`] into `--mod`).
///
/// # Examples
///
/// ```
/// use fibtree::{Error, Param};
/// let Err(Error::InvalidArgument { param, expected }) = fibtree::count_mod(10, 0, 1) else { panic!("refused") };
/// assert_eq!((param, param.name()), (Param::Modulus, "modulus"));
/// assert!(expected.contains("got 1"), "{expected}");
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
    /// A node's path from the root (`L` and `R` steps).
    Path,
    /// A checkpoint file.
    Checkpoint,
    /// The layer where a count is cut between its halves (see [`crate::Cut`]).
    Cut,
    /// The instruction set a machine's setting forces (see [`crate::Machine::isa`]).
    Isa,
    /// A shard of a count's residues (see [`crate::crt::shard_primes`]).
    Shard,
    /// A file of claims (see [`crate::claims::parse_claims`]).
    Claims,
    /// The lanes a chunk of the blocked engine holds, where a run forces them.
    Lanes,
    /// The machine a program sets (see [`crate::Machine::set`]).
    Machine,
}

impl Param {
    /// The parameter's name in the library's documentation, e.g. `n` or `modulus`.
    pub fn name(self) -> &'static str {
        match self {
            Param::N => "n",
            Param::G => "g",
            Param::Modulus => "modulus",
            Param::Threads => "threads",
            Param::Path => "path",
            Param::Checkpoint => "checkpoint",
            Param::Cut => "cut",
            Param::Isa => "isa",
            Param::Shard => "shard",
            Param::Claims => "claims",
            Param::Lanes => "lanes",
            Param::Machine => "machine",
        }
    }
}

impl std::fmt::Display for Param {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Everything the library can refuse or fail at. It is cheap to clone (an I/O error is shared), so
/// that one refusal can be handed to each caller it concerns.
///
/// # Examples
///
/// ```
/// use fibtree::{Error, Param};
/// let err = fibtree::count(fibtree::MAX_N + 1, 0).unwrap_err();
/// assert!(matches!(err, Error::InvalidArgument { param: Param::N, .. }));
/// assert!(err.to_string().starts_with("n: "), "{err}"); // the parameter, then what was expected
/// let kept = err.clone(); // a refusal can be handed on and kept
/// assert_eq!(kept.to_string(), err.to_string());
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
    /// The exact value and the modular engine disagree: a bug, reported loudly.
    #[error("CROSS-CHECK FAILED for {what}: the exact value gives {exact}, the modular engine gives {independent}")]
    CrossCheck {
        /// Which residue, e.g. `c(10000, 0) mod 998244353`.
        what: String,
        /// The exact value's residue.
        exact: String,
        /// The independent value it is checked against (the modular engine's residue, or a bound).
        independent: String,
    },
    /// The exact value's parity is not the one the closed form of G gives, c(n, g) mod 2 =
    /// [g < G(n)] (docs/math.md, "The parity of a count"): a bug, reported loudly, as a failed
    /// [`Error::CrossCheck`] is.
    #[error(
        "CROSS-CHECK FAILED for c({n}, {g}) mod 2: the exact value gives {exact}, the closed form of G gives \
         {closed_form} (c(n, g) is odd exactly where g < G(n))"
    )]
    ParityCheck {
        /// The tree T(n).
        n: u64,
        /// The Grundy value the moves lead to.
        g: u64,
        /// The exact value's parity.
        exact: u8,
        /// The closed form's, [g < G(n)].
        closed_form: u8,
    },
    /// A residue of the modular engine disagrees with a second computation of it: the engine's
    /// residue modulo a multiple of the modulus, reduced, or the parity the closed form of G gives
    /// (docs/math.md, "The parity of a count"). A bug, reported loudly, as a failed
    /// [`Error::CrossCheck`] is.
    ///
    /// ```
    /// let e = fibtree::Error::ResidueCheck {
    ///     what: "c(10, 0) mod 2".into(),
    ///     residue: "0".into(),
    ///     by: "the closed form of G".into(),
    ///     independent: "1".into(),
    /// };
    /// assert_eq!(e.to_string(), "CROSS-CHECK FAILED for c(10, 0) mod 2: the modular engine gives 0, the closed form of G gives 1");
    /// ```
    #[error("CROSS-CHECK FAILED for {what}: the modular engine gives {residue}, {by} gives {independent}")]
    ResidueCheck {
        /// Which residue, e.g. `c(10000, 0) mod 998244353`.
        what: String,
        /// The modular engine's residue.
        residue: String,
        /// The second computation, e.g. `its run modulo 998244353 * 2^33`.
        by: String,
        /// What the second computation gives.
        independent: String,
    },
    /// Two runs of the same exact computation gave different values: a bug, reported loudly.
    #[error("RUNS DISAGREE: {0}")]
    RunsDisagree(String),
    /// Reading or writing a file failed (the message names it).
    #[error(transparent)]
    Io(Arc<std::io::Error>),
    /// The run was stopped by its cancel flag (Ctrl-C or a termination signal).
    #[error("interrupted")]
    Interrupted,
}

impl From<fibtree_core::Param> for Param {
    fn from(param: fibtree_core::Param) -> Param {
        match param {
            fibtree_core::Param::N => Param::N,
            fibtree_core::Param::G => Param::G,
            fibtree_core::Param::Modulus => Param::Modulus,
            fibtree_core::Param::Threads => Param::Threads,
            fibtree_core::Param::Cut => Param::Cut,
            fibtree_core::Param::Resume => Param::Checkpoint,
            fibtree_core::Param::Shard => Param::Shard,
            fibtree_core::Param::Isa => Param::Isa,
            fibtree_core::Param::Machine => Param::Machine,
            fibtree_core::Param::Lanes => Param::Lanes,
        }
    }
}

impl From<fibtree_core::Error> for Error {
    fn from(e: fibtree_core::Error) -> Error {
        match e {
            fibtree_core::Error::InvalidArgument { param, expected } => {
                Error::InvalidArgument { param: param.into(), expected }
            }
            fibtree_core::Error::OutOfMemory { param, estimate, limit } => {
                Error::OutOfMemory { param: param.into(), estimate, limit }
            }
            fibtree_core::Error::CrossCheck { what, exact, independent } => {
                Error::CrossCheck { what, exact, independent }
            }
            fibtree_core::Error::Interrupted => Error::Interrupted,
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(Arc::new(e))
    }
}

impl Error {
    /// Shorthand for [`Error::InvalidArgument`].
    pub fn invalid(param: Param, expected: impl Into<String>) -> Self {
        Error::InvalidArgument { param, expected: expected.into() }
    }

    /// The [`Error::CrossCheck`] of c(n, g) modulo `modulus`: the exact value's residue `exact`
    /// against the modular engine's `independent`.
    ///
    /// ```
    /// let e = fibtree::Error::cross_check(10, 0, 7, 3, 4);
    /// assert_eq!(e.to_string(), "CROSS-CHECK FAILED for c(10, 0) mod 7: the exact value gives 3, the modular engine gives 4");
    /// ```
    pub fn cross_check(
        n: u64,
        g: u64,
        modulus: impl std::fmt::Display,
        exact: impl std::fmt::Display,
        independent: impl std::fmt::Display,
    ) -> Self {
        Error::CrossCheck {
            what: format!("c({n}, {g}) mod {modulus}"),
            exact: exact.to_string(),
            independent: independent.to_string(),
        }
    }
}

/// The library's result type.
///
/// # Examples
///
/// ```
/// fn winning_moves(n: u64) -> fibtree::Result<String> {
///     Ok(fibtree::count(n, 0)?.to_string())
/// }
/// assert_eq!(winning_moves(10).unwrap(), "17");
/// ```
pub type Result<T, E = Error> = std::result::Result<T, E>;
