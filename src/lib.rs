//! The `fibtree` command line as a library of its own package (fibtree-cli, the workspace's root):
//! what `src/main.rs` runs ([`run`], then [`fail`] for an error), over the library fibtree's public
//! API. Its modules are the command line's; none of them is an API for other programs, which use
//! the library fibtree.
//!
//! The command line: its definition ([`args`]), one session type that every command runs in
//! ([`session`], with [`output`] and [`progress`]), and a file per command or group of commands,
//! each computing a typed result that the session writes for people, as numbers only or as JSON.
//!
//! Library errors name a parameter ([`fibtree::Param`]); here they become the flag or argument the
//! user wrote ([`flag`]), and every refusal ends the process with status 2.

#![deny(unsafe_code)]
// The binary's module, read with `--document-private-items`: its docs link to its private parts.
#![allow(rustdoc::private_intra_doc_links)]

mod args;
mod bench;
mod clap_error;
mod combine;
mod count;
mod dist;
mod draw;
mod estimate;
mod forms;
#[cfg(feature = "test-hooks")]
mod hooks;
mod input;
mod json;
mod ladder;
mod machine;
mod messages;
mod moves;
mod os;
mod output;
mod plot;
mod progress;
mod runner;
mod selftest;
mod session;
mod shard;
mod stress;
mod table;
mod tools;
mod verify;

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use fibtree::{Error, Param};
use fibtree_util::human_bytes;

use args::Command;
pub use messages::{say, say_error};
use session::Stopped;

/// A refusal in the command line's terms: one line naming the flag or argument at fault, exit
/// status 2.
#[derive(Debug)]
struct Usage(String);

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

/// A refusal naming `flag`: `flag: message`.
fn usage(flag: &str, message: impl std::fmt::Display) -> anyhow::Error {
    Usage(format!("{flag}: {message}")).into()
}

/// The command line's name for a parameter of the library, where a command does not name it
/// otherwise.
fn flag(param: Param) -> &'static str {
    match param {
        Param::N => "N",
        Param::G => "--g",
        Param::Modulus => "--mod",
        Param::Threads => "--threads",
        Param::Path => "PATH",
        Param::Checkpoint => "--checkpoint",
        Param::Cut => "--cut",
        Param::Lanes => "--chunk-lanes",
        Param::Isa => machine::ISA_VAR,
        Param::Machine => machine::MACHINE_VAR,
        Param::Shard => "--shard",
        Param::Claims => "--claims",
    }
}

/// The kernel set in use, how it was chosen and the ones this CPU has, as `bench`, `count --verbose`
/// and `self-test` say it: e.g. `avx2 (forced by FIBTREE_ISA; this CPU has: baseline, avx2)`, or
/// `avx2 (fastest measured, in lane additions/ns: baseline 1.95, avx2 2.31 in 3 ms; dense sweep avx2;
/// this CPU has: baseline, avx2)`. Cost O(1) after the calibration.
fn kernel_line() -> String {
    let names: Vec<&str> = fibtree_core::Isa::available().into_iter().map(fibtree_core::Isa::name).collect();
    let has = format!("this CPU has: {}", names.join(", "));
    match fibtree_core::isa_choice() {
        Some(c) => {
            let rates: Vec<String> = c.rates.iter().map(|(k, r)| format!("{k} {r:.2}")).collect();
            let widest = fibtree_core::Isa::available().last().copied().unwrap_or(fibtree_core::Isa::Baseline);
            let ms = (c.seconds * 1e3).round();
            let how = format!("fastest measured, in lane additions/ns: {} in {ms} ms", rates.join(", "));
            format!("{} ({how}; dense sweep {widest}; {has})", c.chosen)
        }
        None => format!("{} (forced by {}; {has})", fibtree_core::isa(), machine::ISA_VAR),
    }
}

/// More memory than any machine has (1 PiB): a run whose estimate is past it is refused naming the
/// argument that makes it so large (N, TO, ...), not `--max-memory`, which no value could lift.
const ANY_MACHINE: u64 = 1 << 50;

/// An error of the engines' crate, where the command line called it directly, as the library's
/// (which takes every one of them in); any other error as it is.
fn as_library_error(e: anyhow::Error) -> anyhow::Error {
    match e.downcast::<fibtree_core::Error>() {
        Ok(core) => Error::from(core).into(),
        Err(e) => e,
    }
}

/// A library error in the command line's terms: a refusal (a bad argument, or a run too large for
/// memory) names the flag `flags` gives its parameter; anything else is left as it is.
fn in_terms(e: anyhow::Error, flags: fn(Param) -> &'static str) -> anyhow::Error {
    match as_library_error(e).downcast::<Error>() {
        Ok(Error::InvalidArgument { param, expected }) => usage(flags(param), expected),
        // past what any machine has, the parameter that makes the run this large is at fault
        Ok(Error::OutOfMemory { param, estimate, .. }) if estimate > ANY_MACHINE => usage(
            flags(param),
            format!(
                "too large for any machine: this run would need about {} of memory (estimate; no machine has 1 PiB)",
                human_bytes(estimate),
            ),
        ),
        // the limit is what the user can change; the parameter that makes the run this large is named
        Ok(Error::OutOfMemory { param, estimate, limit }) => usage(
            "--max-memory",
            format!(
                "this run needs about {} of memory (estimate, for its {}), more than {}",
                human_bytes(estimate),
                flags(param),
                limit
            ),
        ),
        Ok(other) => other.into(),
        Err(e) => e,
    }
}

/// Exit status for an error: 130 or 143 for a run a signal stopped, 2 for a refusal (bad input,
/// including a run too large for memory), 1 otherwise.
pub fn exit_status(err: &anyhow::Error) -> u8 {
    if let Some(stopped) = err.downcast_ref::<Stopped>() {
        return stopped.status;
    }
    match (err.downcast_ref::<Usage>(), err.downcast_ref::<Error>()) {
        (Some(_), _) | (_, Some(Error::InvalidArgument { .. } | Error::OutOfMemory { .. })) => 2,
        _ => 1,
    }
}

/// Ends the process for `err`: quietly with status 0 where standard output was a pipe closed by
/// its reader (as `head` users expect), else with one line `error: ...` and [`exit_status`].
pub fn fail(err: &anyhow::Error) -> ExitCode {
    if messages::is_broken_pipe(err) {
        return ExitCode::SUCCESS;
    }
    say_error(&format!("error: {}", messages::chain(err)));
    ExitCode::from(exit_status(err))
}

/// Writes the text of clap's `--help` or `--version` "error" on standard output, in colour on a
/// terminal.
///
/// # Errors
/// A write error, saying it was standard output.
fn print_help(e: &clap::Error) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    let text = e.render();
    let text = if out.is_terminal() { text.ansi().to_string() } else { text.to_string() };
    out.write_all(text.as_bytes()).and_then(|()| out.flush()).map_err(output::on_stdout)
}

/// Parses the arguments and runs the command. Usage errors print one line and exit 2.
pub fn run(args: impl IntoIterator<Item = OsString>) -> anyhow::Result<ExitCode> {
    // before any thread starts: large buffers mapped alone; under `ulimit -v`, one arena
    os::tune_the_allocator();
    let cli = match args::parse(args) {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            print_help(&e)?;
            return Ok(ExitCode::SUCCESS);
        }
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            // no command: the short help, on standard error as the run did not do what it was
            // asked (a command), and exit 2
            let mut err = std::io::stderr().lock();
            let help = args::command().term_width(args::help_width(&console::Term::stderr())).render_help();
            let help = if err.is_terminal() { help.ansi().to_string() } else { help.to_string() };
            let _ = err.write_all(help.as_bytes());
            return Ok(ExitCode::from(2));
        }
        Err(e) => {
            say_error(&clap_error::line(&e));
            return Ok(ExitCode::from(2));
        }
    };
    // rayon's global pool is this thread alone: it cannot fail to start, and starts no thread
    session::calling_thread_as_global_pool();
    // the machine FIBTREE_MACHINE simulates and the kernel set FIBTREE_ISA forces, read and set
    // before any command that computes starts
    let computes = !matches!(cli.command, Command::Completions { .. } | Command::Man { .. } | Command::Help { .. });
    if computes {
        machine::set_from_environment()?;
    }
    let result = match cli.command {
        Command::Count(args) => count::count(args),
        Command::Verify(args) => verify::verify(args),
        Command::Dist(args) => dist::dist(args),
        Command::Table(args) => table::table(args),
        Command::Moves(args) => moves::moves(args),
        Command::Rank(args) => moves::rank(args),
        Command::Draw(args) => draw::draw(args),
        Command::Shard(args) => shard::shard(args),
        Command::Combine(args) => combine::combine(args),
        Command::Estimate(args) => estimate::estimate(args),
        Command::Stress(args) => stress::stress(args),
        Command::Bench(args) => bench::bench(args),
        Command::SelfTest { seed } => selftest::self_test(seed),
        Command::Completions { shell } => tools::completions(shell),
        Command::Man { output } => tools::man(output.as_deref()),
        Command::Help { command } => tools::help(command.as_deref()),
        Command::Grundy { k, json, output } => tools::grundy(k, json, output),
        Command::Brute { k, g, json, output } => tools::brute(k, g, json, output),
    };
    // a signal that came after the command last looked at its flags still ends the process with
    // its status
    session::with_late_signal(result, os::signalled()).map_err(|e| in_terms(e, flag))
}
