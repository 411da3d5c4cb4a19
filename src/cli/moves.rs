//! `fibtree moves` and `fibtree rank`: naming moves by their paths.

use std::io::Write;
use std::process::ExitCode;

use fibtree::Options;
use fibtree::moves::{Counts, check_floor, list, nth, rank as rank_of, value_after, value_after_with};
use fibtree_util::SplitMix64;
use num_bigint::BigUint;
use serde::Serialize;

use super::args::{MovesArgs, RankArgs};
use super::session::{Outcome, OutputForm, Session};
use super::usage;

/// The most lines `--list` prints without `--limit`.
const MAX_LIST: u64 = 1_000_000;

/// The moves found (fields in alphabetical order, as the JSON lists them).
#[derive(Serialize)]
struct Moves {
    count: String,
    #[serde(serialize_with = "super::json::int")]
    g: u64,
    moves: Vec<Move>,
    n: u64,
    /// The seed of `--random` (a decimal string: a seed from the clock may exceed 2^53); absent
    /// otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<String>,
}

#[derive(Serialize)]
struct Move {
    index: String,
    path: String,
}

impl Outcome for Moves {
    fn human(&self, out: &mut dyn Write) -> std::io::Result<()> {
        self.moves.iter().try_for_each(|m| writeln!(out, "{}", m.path))
    }
}

/// An index written in decimal digits, of any length.
fn parse_index(s: &str) -> anyhow::Result<BigUint> {
    // digits of any length fit a big integer: not being digits is the only refusal
    fibtree_util::parse_whole(s)
        .map_err(|_| usage("--nth", format!("expected a whole number (decimal digits only), got '{s}'")))
}

/// Checks a move found by the walk against the colon principle before it is printed.
fn checked(n: u64, g: u64, path: &str) -> anyhow::Result<()> {
    let value = value_after(n, path)?;
    if value != g {
        anyhow::bail!("CHECK FAILED: the move {path} of T({n}) leaves value {value}, not {g}");
    }
    Ok(())
}

pub(super) fn moves(args: MovesArgs) -> anyhow::Result<ExitCode> {
    let index = args.nth.as_deref().map(parse_index).transpose()?;
    let (n, g) = (args.n, args.g);
    let mut session = Session::new(args.run.output.output.as_deref(), args.run.threads.threads, !args.json)?;
    let memory_limit = args.run.memory_limit();
    let seed = args.seed.unwrap_or_else(fibtree_util::clock_seed);
    let limit = args.limit;
    let moves = session.compute(|hooks, _| {
        // no move leaves a g known to count 0: no plan, no walk
        let mut counts = match fibtree::known_zero(n, g, hooks)? {
            true => None,
            false => {
                Some(Counts::new(n, g, &Options { hooks, memory_limit: Some(memory_limit), ..Options::default() })?)
            }
        };
        let total = match &mut counts {
            Some(counts) => counts.count(n as usize, g)?,
            None => BigUint::ZERO,
        };
        let mut found: Vec<Move> = Vec::new();
        if let (true, Some(counts)) = (args.list, &mut counts) {
            if limit.is_none() && total > BigUint::from(MAX_LIST) {
                let what = format!("c({n}, {g}) = {total} moves, more than {MAX_LIST} lines; add --limit K");
                return Err(usage("--list", what));
            }
            let mut failed = None;
            list(counts, n, g, limit.unwrap_or(u64::MAX), |path| {
                if let Err(e) = checked(n, g, path) {
                    failed.get_or_insert(e);
                }
                found.push(Move { index: found.len().to_string(), path: path.to_string() });
                Ok(())
            })?;
            if let Some(e) = failed {
                return Err(e);
            }
        } else if !args.list {
            let i = match &index {
                Some(i) if *i >= total => {
                    return Err(usage("--nth", format!("expected I below c({n}, {g}) = {total}, got {i}")));
                }
                Some(i) => i.clone(),
                None if total == BigUint::ZERO => {
                    return Err(usage("--random", format!("T({n}) has no move to value {g}")));
                }
                None => SplitMix64(seed).below_big(&total),
            };
            // below a total above 0, so its counts were made
            let counts = counts.as_mut().ok_or_else(|| anyhow::anyhow!("c({n}, {g}) = 0 has no move {i}"))?;
            let path = nth(counts, n, g, &i)?;
            checked(n, g, &path)?;
            found.push(Move { index: i.to_string(), path });
        }
        let seed = args.random.then(|| seed.to_string());
        Ok(Moves { count: total.to_string(), g, moves: found, n, seed })
    })?;
    session.emit(&moves, OutputForm::of(args.json, false))?;
    if args.random {
        // in every form, so that a random pick can always be repeated with --seed
        super::say(&format!("index {} (seed {seed})", moves.moves[0].index));
    }
    Ok(ExitCode::SUCCESS)
}

/// A node's value and index (fields in alphabetical order, as the JSON lists them).
#[derive(Serialize)]
struct Ranked {
    index: String,
    n: u64,
    path: String,
    value: u64,
}

impl Outcome for Ranked {
    fn human(&self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "value {}\nindex {}", self.value, self.index)
    }
}

pub(super) fn rank(args: RankArgs) -> anyhow::Result<ExitCode> {
    let (n, path) = (args.n, args.path.clone());
    let mut session = Session::new(args.run.output.output.as_deref(), args.run.threads.threads, !args.json)?;
    let memory_limit = args.run.memory_limit();
    let ranked = session.compute(|hooks, _| {
        // the memory guard first, then the value the path leaves (O(n) time), then the walk
        check_floor(n, memory_limit)?;
        let g = value_after_with(n, &path, hooks)?;
        let mut counts = Counts::new(n, g, &Options { hooks, memory_limit: Some(memory_limit), ..Options::default() })?;
        let index = rank_of(&mut counts, n, g, &path)?;
        // the walk back down from the index must find the same node
        let back = nth(&mut counts, n, g, &index)?;
        if back != path {
            anyhow::bail!("CHECK FAILED: rank gives index {index}, whose move is {back}, not {path}");
        }
        Ok(Ranked { index: index.to_string(), n, path: path.clone(), value: g })
    })?;
    session.emit(&ranked, OutputForm::of(args.json, false))?;
    Ok(ExitCode::SUCCESS)
}
