//! The `fibtree` command. The work is in the library; the command line is defined in `cli`.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::run(std::env::args_os()) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(cli::exit_status(&err))
        }
    }
}
