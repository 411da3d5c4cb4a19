//! The library's one error type.

/// Everything the library can refuse or fail at.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An argument outside what the computation accepts; `arg` names it as the command line does.
    #[error("{arg}: {expected}")]
    InvalidArgument {
        /// The argument's name, e.g. `N`, `--g`, `--mod`.
        arg: &'static str,
        /// What was expected, and what was given.
        expected: String,
    },
    /// The run would need more memory than the limit allows; both in bytes.
    #[error("{arg}: this run needs about {} of memory (estimate), more than the {} it may use (what is available, or --max-memory)", human_bytes(*.estimate), human_bytes(*.limit))]
    OutOfMemory {
        /// The argument that makes the run this large.
        arg: &'static str,
        /// The estimated peak memory of the run, in bytes.
        estimate: u64,
        /// The memory the run may use, in bytes.
        limit: u64,
    },
    /// The exact value and the modular engine disagree: a bug, reported loudly.
    #[error("CROSS-CHECK FAILED for {what}: the exact value gives {exact}, the modular engine gives {modular}")]
    CrossCheck {
        /// Which residue, e.g. `c(10000, 0) mod 998244353`.
        what: String,
        /// The exact value's residue.
        exact: String,
        /// The modular engine's residue.
        modular: String,
    },
    /// Two runs of the same exact computation gave different values: a bug, reported loudly.
    #[error("RUNS DISAGREE: {0}")]
    RunsDisagree(String),
    /// Writing results failed.
    #[error("writing the results: {0}")]
    Io(#[from] std::io::Error),
    /// The run was stopped by its cancel flag (Ctrl-C or a termination signal).
    #[error("interrupted")]
    Interrupted,
}

impl Error {
    /// Shorthand for [`Error::InvalidArgument`].
    pub fn invalid(arg: &'static str, expected: impl Into<String>) -> Self {
        Error::InvalidArgument { arg, expected: expected.into() }
    }
}

/// A byte count in binary units with one decimal, e.g. `1.5 GiB`.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 { format!("{bytes} B") } else { format!("{value:.1} {}", UNITS[unit]) }
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
