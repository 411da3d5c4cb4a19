//! The small commands: `grundy`, `brute`, `completions` and `man`.

use std::io::Write;
use std::process::ExitCode;

use clap::CommandFactory;
use fibtree::oracles::{MAX_EXPLICIT_K, MAX_FIRST_PRINCIPLES_K, explicit_tree_counts, first_principles_counts};
use serde::Serialize;

use super::args::{Cli, OutputArg};
use super::session::{Form, Outcome, Session};
use super::usage;

/// G(K) (fields in alphabetical order, as the JSON lists them).
#[derive(Serialize)]
struct Grundy {
    grundy: i128,
    k: u64,
}

impl Outcome for Grundy {
    fn human(&self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "{}", self.grundy)
    }
}

/// `fibtree grundy K`: G(K), -1 for the empty tree T(0).
pub(super) fn grundy(k: u64, json: bool, output: OutputArg) -> anyhow::Result<ExitCode> {
    let grundy = fibtree::grundy(k)?.map_or(-1, |g| g as i128);
    let mut session = Session::new(output.output.as_deref(), None, false)?;
    session.emit(&Grundy { grundy, k }, Form::of(json, false))?;
    Ok(ExitCode::SUCCESS)
}

/// The oracles' counts as CSV rows `g,explicit_tree,first_principles` (no JSON form).
#[derive(Serialize)]
struct Brute {
    rows: Vec<(u64, u64, Option<u64>)>,
}

impl Outcome for Brute {
    fn human(&self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "g,explicit_tree,first_principles")?;
        for &(g, explicit, first) in &self.rows {
            writeln!(out, "{g},{explicit},{}", first.map_or(String::new(), |f| f.to_string()))?;
        }
        Ok(())
    }
}

/// `fibtree brute K [--g G]`: the brute-force oracles' c(K, g), the explicit tree (K <= 30) and
/// first principles (K <= 7).
pub(super) fn brute(k: u64, g: Option<u64>, output: OutputArg) -> anyhow::Result<ExitCode> {
    let too_large = || usage("K", format!("at most {MAX_EXPLICIT_K} for the explicit-tree oracle, got {k}"));
    let k = u32::try_from(k).map_err(|_| too_large())?;
    let explicit = explicit_tree_counts(k)?;
    let first = (k <= MAX_FIRST_PRINCIPLES_K).then(|| first_principles_counts(k)).transpose()?;
    let mut session = Session::new(output.output.as_deref(), None, false)?;
    let gs = match g {
        Some(g) => vec![g],
        None => (0..explicit.len().max(first.as_ref().map_or(0, Vec::len)) as u64).collect(),
    };
    let at = |v: &Vec<u64>, g: u64| v.get(g as usize).copied().unwrap_or(0);
    let rows = gs.into_iter().map(|g| (g, at(&explicit, g), first.as_ref().map(|f| at(f, g)))).collect();
    session.emit(&Brute { rows }, Form::Human)?;
    Ok(ExitCode::SUCCESS)
}

/// `fibtree completions SHELL`: the shell's completions, on standard output.
pub(super) fn completions(shell: clap_complete::Shell) -> anyhow::Result<ExitCode> {
    let mut session = Session::new(None, None, false)?;
    // made whole first: the generator cannot report a write error (it panics)
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "fibtree", &mut script);
    session.out().write_all(&script)?;
    session.finish()?;
    Ok(ExitCode::SUCCESS)
}

/// `fibtree man [-o FILE]`: the manual page (roff), generated from the command-line definition.
pub(super) fn man(output: OutputArg) -> anyhow::Result<ExitCode> {
    let mut session = Session::new(output.output.as_deref(), None, false)?;
    clap_mangen::Man::new(Cli::command()).render(session.out())?;
    session.finish()?;
    Ok(ExitCode::SUCCESS)
}
