//! `fibtree moves` and `fibtree rank`: naming moves by their paths.

use std::io::Write;
use std::process::ExitCode;

use num_bigint::BigUint;
use serde_json::json;

use fibtree::Error;
use fibtree::moves::{Counts, list, nth, rank as rank_of, value_after};
use fibtree::rng::SplitMix64;

use super::commands::Session;
use super::{MovesArgs, RankArgs};

/// The most lines `--list` prints without `--limit`.
const MAX_LIST: u64 = 1_000_000;

/// An index written in decimal digits, of any length.
fn parse_index(s: &str) -> Result<BigUint, Error> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Error::invalid("--nth", format!("expected a whole number (decimal digits only), got '{s}'")));
    }
    Ok(BigUint::parse_bytes(s.as_bytes(), 10).expect("digits"))
}

/// Checks a move found by the walk against the colon principle before it is printed.
fn checked(n: u64, g: u64, path: &str) -> anyhow::Result<()> {
    let value = value_after(n, path)?;
    if value != g {
        anyhow::bail!("CHECK FAILED: the move {path} of T({n}) leaves value {value}, not {g}");
    }
    Ok(())
}

pub fn moves(args: MovesArgs) -> anyhow::Result<ExitCode> {
    let index = args.nth.as_deref().map(parse_index).transpose()?;
    let (n, g) = (args.n, args.g);
    let mut session = Session::new(&args.run, !args.json)?;
    let memory_limit = args.run.memory_limit();
    let seed = args.seed.unwrap_or_else(fibtree::rng::clock_seed);
    let (json, limit) = (args.json, args.limit);
    let found = session.compute(|hooks, out| {
        let mut counts = Counts::new(n, g, hooks, memory_limit)?;
        let total = counts.count(n as usize, g)?;
        let mut found: Vec<(BigUint, String)> = Vec::new();
        if args.list {
            if limit.is_none() && total > BigUint::from(MAX_LIST) {
                let what = format!("c({n}, {g}) = {total} moves, more than {MAX_LIST} lines; add --limit K");
                return Err(Error::invalid("--list", what).into());
            }
            let mut i = 0u64;
            let mut failed = None;
            list(&mut counts, n, g, limit.unwrap_or(u64::MAX), |path| {
                if let Err(e) = checked(n, g, path) {
                    failed.get_or_insert(e);
                }
                found.push((BigUint::from(i), path.to_string()));
                i += 1;
                Ok(())
            })?;
            if let Some(e) = failed {
                return Err(e);
            }
        } else {
            let i = match &index {
                Some(i) if *i >= total => {
                    let what = format!("expected I below c({n}, {g}) = {total}, got {i}");
                    return Err(Error::invalid("--nth", what).into());
                }
                Some(i) => i.clone(),
                None if total == BigUint::ZERO => {
                    return Err(Error::invalid("--random", format!("T({n}) has no move to value {g}")).into());
                }
                None => SplitMix64(seed).below_big(&total),
            };
            let path = nth(&mut counts, n, g, &i)?;
            checked(n, g, &path)?;
            found.push((i, path));
        }
        if json {
            let moves: Vec<_> = found.iter().map(|(i, p)| json!({"index": i.to_string(), "path": p})).collect();
            writeln!(out, "{}", json!({"n": n, "g": g, "count": total.to_string(), "moves": moves}))?;
        } else {
            for (_, path) in &found {
                writeln!(out, "{path}")?;
            }
        }
        Ok(found)
    })?;
    session.out.finish()?;
    if args.random && !json {
        eprintln!("index {} (seed {seed})", found[0].0);
    }
    Ok(ExitCode::SUCCESS)
}

pub fn rank(args: RankArgs) -> anyhow::Result<ExitCode> {
    let (n, path) = (args.n, args.path.clone());
    let g = value_after(n, &path)?;
    let mut session = Session::new(&args.run, !args.json)?;
    let memory_limit = args.run.memory_limit();
    session.compute(|hooks, out| {
        let mut counts = Counts::new(n, g, hooks, memory_limit)?;
        let index = rank_of(&mut counts, n, g, &path)?;
        // the walk back down from the index must find the same node
        let back = nth(&mut counts, n, g, &index)?;
        if back != path {
            anyhow::bail!("CHECK FAILED: rank gives index {index}, whose move is {back}, not {path}");
        }
        if args.json {
            writeln!(out, "{}", json!({"n": n, "path": path, "value": g, "index": index.to_string()}))?;
        } else {
            writeln!(out, "value {g}\nindex {index}")?;
        }
        Ok(())
    })?;
    session.out.finish()?;
    Ok(ExitCode::SUCCESS)
}
