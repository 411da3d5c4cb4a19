//! `fibtree dist`: the whole distribution c(N, g) over every g with a non-zero count, checked
//! against the number of moves; `--svg` plots it.

use std::io::Write;
use std::process::ExitCode;

use fibtree::Options;
use num_bigint::BigUint;
use serde::Serialize;

use super::args::DistArgs;
use super::output::{Output, distinct};
use super::session::{Outcome, OutputForm, Session};
use crate::messages::say;
use plot::dist_svg;

mod plot;

/// The distribution (fields in alphabetical order, as the JSON lists them).
#[derive(Serialize)]
struct Distribution {
    entries: Vec<Entry>,
    modulus: Option<String>,
    moves: String,
    n: u64,
    sum: String,
    sum_ok: bool,
    support: usize,
}

#[derive(Serialize)]
struct Entry {
    count: String,
    #[serde(serialize_with = "super::json::int")]
    g: u64,
}

impl Outcome for Distribution {
    fn human(&self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "{}", if self.modulus.is_some() { "g,residue" } else { "g,count" })?;
        self.entries.iter().try_for_each(|e| writeln!(out, "{},{}", e.g, e.count))
    }
}

pub(super) fn dist(args: DistArgs) -> crate::error::Result<ExitCode> {
    // the plot's file is checked before any work, so that a bad path fails at once
    distinct(&[("--output", args.run.output.output.as_deref()), ("--svg", args.svg.as_deref())])?;
    let svg = args.svg.as_deref().map(|path| Output::open(Some(path), "--svg")).transpose()?;
    let mut session = Session::new(args.run.output.output.as_deref(), args.run.threads.threads, !args.json)?;
    let n = args.n;
    let (engine, memory_limit) = (args.run.engine, Some(args.run.memory_limit()));
    let entries: Vec<(u64, BigUint)> = session.compute(|hooks, _| {
        let options = Options { hooks, engine, memory_limit, ..Options::default() };
        Ok(match args.modulus {
            None => fibtree::dist::distribution(n, &options)?,
            Some(m) => {
                fibtree::dist::distribution_mod(n, m, &options)?.into_iter().map(|(g, r)| (g, r.into())).collect()
            }
        })
    })?;
    let sum: BigUint = entries.iter().map(|e| &e.1).sum();
    let moves = fibtree::tree_size(n).max(BigUint::from(1u32)) - 1u32; // |T(0)| = 0 has no moves either
    let (sum, moves) = match args.modulus {
        Some(m) => (sum % m, moves % m),
        None => (sum, moves),
    };
    let sum_ok = sum == moves;
    let distribution = Distribution {
        entries: entries.iter().map(|(g, c)| Entry { count: c.to_string(), g: *g }).collect(),
        modulus: args.modulus.map(|m| m.to_string()),
        moves: moves.to_string(),
        n,
        sum: sum.to_string(),
        sum_ok,
        support: entries.len(),
    };
    session.emit(&distribution, OutputForm::of(args.json, false))?;
    if let Some(mut svg) = svg {
        svg.write_all(dist_svg(n, &entries, args.modulus).as_bytes())?;
        svg.finish()?;
    }
    if args.verbose
        && let Some(peak) = crate::os::peak_memory()
    {
        say(&format!("memory peak {}", fibtree_util::human_bytes(peak)));
    }
    let what = match args.modulus {
        Some(m) => format!("sum over g of c({n}, g) mod {m} = {sum}; the moves of T({n}) mod {m} = {moves}"),
        None if sum_ok => {
            let digits = fibtree_util::decimal_digits(&moves);
            let digits = fibtree_util::counted(digits as u64, "digit");
            format!("sum over g of c({n}, g) = the number of moves of T({n}) ({digits})")
        }
        None => format!("sum over g of c({n}, g) = {sum}, but T({n}) has {moves} moves"),
    };
    if sum_ok {
        if !args.json {
            crate::messages::note(&format!("{} g with c({n}, g) > 0; {what}: OK", entries.len()));
        }
        Ok(ExitCode::SUCCESS)
    } else {
        crate::messages::say_error(&format!("error: SUM CHECK FAILED: {what}"));
        Ok(ExitCode::from(1))
    }
}
