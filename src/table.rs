//! `fibtree table`: f(k) for every k from FROM to TO, in one pass, every row checked; rows are
//! written as they are counted, and a row that fails a check ends the run (exit 1) unwritten.

use std::io::Write;
use std::process::ExitCode;

use fibtree::{Counting, Options, P998244353, Param};
use serde::Serialize;

use super::args::TableArgs;
use super::session::Session;
use crate::checked::last_18_digits;
use crate::error::refused;
use crate::terms::flag;

/// One row (fields in alphabetical order, as the JSON lists them).
#[derive(Serialize)]
struct Row {
    digits: usize,
    k: u64,
    last18: String,
    mod_998244353: String,
    ok: bool,
    value: String,
}

pub(super) fn table(args: TableArgs) -> crate::error::Result<ExitCode> {
    if args.from > args.to {
        return Err(refused("FROM", format!("expected FROM <= TO, got {} > {}", args.from, args.to)));
    }
    if args.to > fibtree::MAX_N {
        return Err(refused("TO", format!("at most {}, got {}", fibtree::MAX_N, args.to)));
    }
    let limit = args.run.memory_limit();
    // table's own arguments: a run too large is too large because of TO
    let table_flags = |param| if param == Param::N { "TO" } else { flag(param) };
    let mut session =
        Session::new(args.run.output.output.as_deref(), args.run.threads.threads, !args.json)?.naming(table_flags);
    // Before the target list: the floor of the whole run, rows included.
    let floor_options = Options { memory_limit: Some(limit), ..Options::default() };
    fibtree::Counting::check_table_floor(args.from, args.to, &floor_options).map_err(|e| session.error(e))?;
    let targets: Vec<(u64, u64)> = (args.from..=args.to).map(|k| (k, 0)).collect();
    let (json, engine) = (args.json, args.run.engine);
    session.compute(|hooks, out| {
        let options = Options { hooks, engine, memory_limit: Some(limit), ..Options::default() };
        // Planned and checked against memory before anything is written.
        let counting = Counting::new(&targets, &options)?;
        if json {
            write!(out, "{{\"from\":{},\"to\":{},\"rows\":[", args.from, args.to)?;
        } else {
            writeln!(out, "k,digits,last18,mod_998244353,value")?;
        }
        counting.for_each(|i, report| {
            // a row whose value failed a check is never written: the run ends there, loudly (exit 1,
            // an output file not made)
            let mut failures = report.failures();
            if !failures.is_empty() {
                let first = failures.remove(0);
                failures.iter().for_each(|e| crate::messages::say(&format!("error: {e}")));
                return Err(first);
            }
            let value = report.value.to_str_radix(10);
            let residue = |m: u64| report.projection(m).map_or(0, |p| p.residue).to_string();
            let row = Row {
                digits: value.len(),
                k: report.n,
                last18: last_18_digits(&value),
                mod_998244353: residue(P998244353),
                ok: report.ok(),
                value,
            };
            if json {
                write!(out, "{}", if i == 0 { "" } else { "," })?;
                serde_json::to_writer(&mut *out, &row).map_err(std::io::Error::from)?;
            } else {
                writeln!(out, "{},{},{},{},{}", row.k, row.digits, row.last18, row.mod_998244353, row.value)?;
            }
            Ok(())
        })?;
        if json {
            // every row written passed its checks
            writeln!(out, "],\"ok\":true}}")?;
        }
        Ok(())
    })?;
    session.finish()?;
    Ok(ExitCode::SUCCESS)
}
