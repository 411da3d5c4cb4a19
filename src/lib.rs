//! The `fibtree` command line as a library of its own package (fibtree-cli, the workspace's root):
//! what `src/main.rs` runs ([`run`], then [`fail`] for an error), over the library fibtree's public
//! API. Its modules are the command line's; none of them is an API for other programs, which use
//! the library fibtree.
//!
//! Its modules sit in layers that tests/layers.rs keeps (docs/architecture.md): at the bottom the
//! one error ([`Error`], whose [`Kind`] gives the exit status); then what talks to the system
//! ([`os`], [`output`], [`progress`], [`runner`], ...); then the session every command runs in
//! ([`args`], [`session`], [`terms`], and what several commands share); then one module or folder a
//! command, none importing another, each computing a typed result that the session writes for
//! people, as numbers only or as JSON; and this root, which parses the arguments and dispatches.
//!
//! Library errors name a parameter ([`fibtree::Param`]); here they become the flag or argument the
//! user wrote ([`terms::flag`]), and every refusal ends the process with status 2.

#![deny(unsafe_code)]
// The binary's module, read with `--document-private-items`: its docs link to its private parts.
#![allow(rustdoc::private_intra_doc_links)]

mod args;
mod bench;
mod checked;
mod clap_error;
mod combine;
mod count;
mod dist;
mod draw;
mod error;
mod estimate;
#[cfg(feature = "test-hooks")]
mod hooks;
mod input;
mod json;
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
mod shard_file;
mod stress;
mod table;
mod terms;
mod tools;
mod verify;

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use args::Command;
pub use error::{Error, Kind, Result};
pub use messages::{say, say_error};

/// Ends the process for `err`: quietly with status 0 where standard output was a pipe closed by
/// its reader (as `head` users expect), else with one line `error: ...` and the exit status of the
/// error's kind ([`Error::exit_status`]).
pub fn fail(err: &Error) -> ExitCode {
    if err.is_broken_pipe() {
        return ExitCode::SUCCESS;
    }
    say_error(&format!("error: {}", err.message()));
    ExitCode::from(err.exit_status())
}

/// Parses the arguments and runs the command. Usage errors print one line and exit 2.
pub fn run(args: impl IntoIterator<Item = OsString>) -> Result<ExitCode> {
    // before any thread starts: large buffers mapped alone; under `ulimit -v`, one arena
    os::tune_the_allocator();
    let cli = match args::parse(args) {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            args::print_help(&e)?;
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
    if cli.command.quiet() {
        messages::be_quiet();
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
    session::with_late_signal(result, os::signalled()).map_err(|e| terms::in_terms(e, terms::flag))
}
