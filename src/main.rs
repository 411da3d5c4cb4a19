//! The `fibtree` command: the command line (the library of this package, fibtree-cli, the
//! workspace's root) over the library fibtree's public API. This file installs the panic hook and
//! maps the outcome to an exit status.

#![deny(unsafe_code)]

use fibtree_cli as cli;

use std::process::ExitCode;

/// Where a panic (always a bug) is to be reported.
const REPORT: &str = "please report it with the command line that caused it";

fn main() -> ExitCode {
    // Past a file-size limit (`ulimit -f`) a write is to fail with EFBIG, which names the file and
    // leaves no temporary file, rather than end the process by SIGXFSZ with nothing said: a handler
    // that only notes the signal keeps its default action from running.
    #[cfg(unix)]
    let _ = signal_hook::flag::register(
        signal_hook::consts::SIGXFSZ,
        std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)),
    );
    // A panic anywhere is a bug: one line saying so, and exit status 101.
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown cause".into());
        let place = info.location().map_or(String::new(), |l| format!(" at {}:{}", l.file(), l.line()));
        cli::say_error(&format!("error: internal error (a bug): {message}{place}; {REPORT}"));
    }));
    match std::panic::catch_unwind(|| cli::run(std::env::args_os())) {
        Ok(Ok(code)) => code,
        Ok(Err(err)) => cli::fail(&err),
        Err(_) => ExitCode::from(101),
    }
}
