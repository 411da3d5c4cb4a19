//! The command line's one error ([`Error`]), the kind of each ([`Kind`]) and the exit status its
//! kind calls for. Every error of the library and of the system comes in by a `From` the compiler
//! checks; none is found by a downcast.

/// A result of the command line.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An error of the command line: what `fibtree` says on one line of standard error before it exits
/// with [`Error::exit_status`].
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A refusal of what the user gave, naming it (a flag, an argument, an environment variable, a
    /// file): `FLAG: MESSAGE`.
    #[error("{flag}: {message}")]
    Refused {
        /// The flag, argument or variable at fault, as the user wrote it.
        flag: String,
        /// What was expected, or why it cannot be done.
        message: String,
    },
    /// A run a signal stopped: `interrupted by SIGINT`, and the output file left unwritten.
    #[error("interrupted by {signal}{}", unwritten.as_ref().map_or(String::new(), |p| format!("; '{p}' was not written")))]
    Stopped {
        /// 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP.
        status: u8,
        /// The signal's name.
        signal: &'static str,
        /// The output file that was not written, if the results were to go to one.
        unwritten: Option<String>,
    },
    /// An error of the library fibtree that no flag names: a check that failed, a read or write.
    #[error(transparent)]
    Library(#[from] fibtree::Error),
    /// A read or write of the command line's own.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// A JSON document written or read.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// A check of the command line's own that failed, or work it could not do.
    #[error("{0}")]
    Failed(String),
    /// What was being done when `source` came: `CONTEXT: SOURCE`.
    #[error("{context}")]
    Context {
        /// What was being done.
        context: String,
        /// What went wrong.
        #[source]
        source: Box<Error>,
    },
}

/// A refusal naming `flag`: `flag: message` (exit status 2).
pub(crate) fn refused(flag: &str, message: impl std::fmt::Display) -> Error {
    Error::refused(flag, message)
}

/// What an error is, which decides the exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// What the user gave cannot be done: a bad argument, or a run too large for the memory (2).
    Refusal,
    /// A signal stopped the run (128 + the signal).
    Stopped(u8),
    /// Anything else: a check that failed, a read or write (1).
    Failure,
}

impl Error {
    /// A refusal naming `flag`: `flag: message`.
    pub fn refused(flag: &str, message: impl std::fmt::Display) -> Error {
        Error::Refused { flag: flag.to_string(), message: message.to_string() }
    }

    /// A run stopped by `signal`: SIGTERM (143), SIGHUP (129), else SIGINT (130), which left the
    /// output file `unwritten`, if there was one.
    pub fn stopped_by(signal: i32, unwritten: Option<String>) -> Error {
        use signal_hook::consts::{SIGHUP, SIGTERM};
        let (status, signal) = match signal {
            SIGTERM => (143, "SIGTERM"),
            SIGHUP => (129, "SIGHUP"),
            _ => (130, "SIGINT"),
        };
        Error::Stopped { status, signal, unwritten }
    }

    /// A failure saying `message`.
    pub fn failed(message: impl std::fmt::Display) -> Error {
        Error::Failed(message.to_string())
    }

    /// This error as the cause of what was being done, `context`.
    pub fn context(self, context: impl std::fmt::Display) -> Error {
        Error::Context { context: context.to_string(), source: Box::new(self) }
    }

    /// The kind of this error.
    pub fn kind(&self) -> Kind {
        match self {
            Error::Refused { .. } => Kind::Refusal,
            Error::Stopped { status, .. } => Kind::Stopped(*status),
            Error::Library(e) => library_kind(e),
            Error::Io(_) | Error::Json(_) | Error::Failed(_) => Kind::Failure,
            Error::Context { source, .. } => source.kind(),
        }
    }

    /// The exit status: 2 for a refusal, 128 + the signal for a run a signal stopped, 1 otherwise.
    pub fn exit_status(&self) -> u8 {
        match self.kind() {
            Kind::Refusal => 2,
            Kind::Stopped(status) => status,
            Kind::Failure => 1,
        }
    }

    /// The message and its causes, joined by `: `, each said once (a cause whose text the message
    /// already ends with is not repeated).
    pub fn message(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(self);
        while let Some(e) = cause {
            let text = e.to_string();
            if !parts.last().is_some_and(|last| last.ends_with(&text)) {
                parts.push(text);
            }
            cause = e.source();
        }
        parts.join(": ")
    }

    /// Whether this is, or was caused by, a write to a closed pipe (also one made while writing
    /// JSON).
    pub fn is_broken_pipe(&self) -> bool {
        let kind = match self {
            Error::Io(e) => Some(e.kind()),
            Error::Library(fibtree::Error::Io(e)) => Some(e.kind()),
            Error::Json(e) => e.io_error_kind(),
            Error::Context { source, .. } => return source.is_broken_pipe(),
            Error::Refused { .. } | Error::Stopped { .. } | Error::Library(_) | Error::Failed(_) => None,
        };
        kind == Some(std::io::ErrorKind::BrokenPipe)
    }
}

/// The kind of a library error: its refusals are the user's to mend.
fn library_kind(e: &fibtree::Error) -> Kind {
    match e {
        fibtree::Error::InvalidArgument { .. } | fibtree::Error::OutOfMemory { .. } => Kind::Refusal,
        fibtree::Error::CrossCheck { .. }
        | fibtree::Error::ParityCheck { .. }
        | fibtree::Error::ResidueCheck { .. }
        | fibtree::Error::RunsDisagree(_)
        | fibtree::Error::Io(_)
        | fibtree::Error::Interrupted => Kind::Failure,
    }
}

impl From<std::fmt::Error> for Error {
    fn from(e: std::fmt::Error) -> Error {
        Error::failed(format!("formatting: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cause_is_said_once() {
        let io = std::io::Error::new(std::io::ErrorKind::BrokenPipe, "Broken pipe (os error 32)");
        let err = Error::from(io).context("writing standard output");
        assert_eq!(err.message(), "writing standard output: Broken pipe (os error 32)");
        assert!(err.is_broken_pipe());
        let repeated = Error::failed("Broken pipe (os error 32)").context("writing: Broken pipe (os error 32)");
        assert_eq!(repeated.message(), "writing: Broken pipe (os error 32)");
        let library = Error::from(fibtree::Error::from(std::io::Error::from(std::io::ErrorKind::BrokenPipe)));
        assert!(library.is_broken_pipe());
        assert!(!Error::failed("other").is_broken_pipe());
        let json = serde_json::Error::io(std::io::Error::from(std::io::ErrorKind::BrokenPipe));
        assert!(Error::from(json).is_broken_pipe());
    }

    #[test]
    fn the_exit_status_is_the_kinds() {
        assert_eq!(Error::refused("--g", "a whole number").exit_status(), 2);
        assert_eq!(Error::refused("--g", "a whole number").to_string(), "--g: a whole number");
        let refusal = Error::from(fibtree::Error::invalid(fibtree::Param::N, "a whole number"));
        assert_eq!(refusal.exit_status(), 2);
        assert_eq!(refusal.context("counting").exit_status(), 2, "a cause's kind is the error's");
        assert_eq!(Error::stopped_by(signal_hook::consts::SIGTERM, None).exit_status(), 143);
        assert_eq!(Error::stopped_by(signal_hook::consts::SIGHUP, None).exit_status(), 129);
        assert_eq!(Error::stopped_by(signal_hook::consts::SIGINT, None).exit_status(), 130);
        assert_eq!(Error::failed("CHECK FAILED").exit_status(), 1);
        assert_eq!(Error::from(fibtree::Error::Interrupted).exit_status(), 1);
        let stopped = Error::Stopped { status: 130, signal: "SIGINT", unwritten: Some("out.txt".into()) };
        assert_eq!(stopped.to_string(), "interrupted by SIGINT; 'out.txt' was not written");
    }
}
