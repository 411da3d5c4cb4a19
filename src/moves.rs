//! `fibtree moves` and `fibtree rank`: naming moves by their paths.

use std::io::{BufWriter, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use fibtree::moves::{Counts, check_memory, list, nth, rank as rank_of, value_after};
use fibtree::{Error, Hooks, Limit};
use fibtree_util::SplitMix64;
use num_bigint::BigUint;
use serde::Serialize;

use super::args::{MovesArgs, RankArgs};
use super::session::{Outcome, OutputForm, Session};
use crate::error::refused;

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
    /// The seed of `--random`, as it is printed and read (`0x` and hexadecimal digits); absent
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
fn parse_index(s: &str) -> crate::error::Result<BigUint> {
    // digits of any length fit a big integer: not being digits is the only refusal
    fibtree_util::parse_whole(s)
        .map_err(|_| refused("--nth", format!("expected a whole number (decimal digits only), got '{s}'")))
}

/// The walk over the counts of (n, g) within `memory_limit`, obeying `hooks`.
fn walk<'h>(n: u64, g: u64, memory_limit: Limit, hooks: Hooks<'h>) -> fibtree::Result<Counts<'h>> {
    fibtree::moves::walk(n, g, memory_limit, hooks)
}

/// Checks a move found by the walk against the colon principle before it is printed.
fn checked(n: u64, g: u64, path: &str) -> crate::error::Result<()> {
    let value = value_after(n, path, Hooks::default())?;
    if value != g {
        return Err(crate::error::Error::failed(format!(
            "CHECK FAILED: the move {path} of T({n}) leaves value {value}, not {g}"
        )));
    }
    Ok(())
}

/// How often at least a listing's lines are flushed, so that a slow listing shows its lines as
/// they come while a fast one is written in large blocks.
const FLUSH_EVERY: Duration = Duration::from_millis(100);

/// Writes the first `limit` moves of T(n) to g, in preorder, to `out` as they are found: a path a
/// line, or with `json` the whole result (`head` is the JSON before the moves, `tail` the JSON after
/// them). Each move is checked before it is written; only the walk and one line are held, whatever
/// `limit` is. A stop (the hooks of `counts`) comes within one move; a write error (a closed pipe)
/// ends the walk with it.
///
/// # Errors
/// The first failed check; a write error; the walk's errors.
fn write_list(
    counts: &mut Counts,
    (n, g, limit): (u64, u64, u64),
    json: Option<(&str, &str)>,
    out: &mut dyn Write,
) -> crate::error::Result<()> {
    let mut out = BufWriter::with_capacity(64 << 10, out);
    let mut flushed = Instant::now();
    let mut failed = None;
    if let Some((head, _)) = json {
        out.write_all(head.as_bytes())?;
    }
    let mut index = 0u64;
    let walked = list(counts, n, g, limit, |path| {
        if let Err(e) = checked(n, g, path) {
            failed = Some(e);
            // ends the walk; the failed check is what is reported
            return Err(fibtree::Error::Interrupted);
        }
        match json {
            Some(_) => {
                let comma = if index == 0 { "" } else { "," };
                write!(out, "{comma}")?;
                serde_json::to_writer(&mut out, &Move { index: index.to_string(), path: path.to_string() })
                    .map_err(std::io::Error::from)?;
            }
            None => writeln!(out, "{path}")?,
        }
        index += 1;
        if flushed.elapsed() >= FLUSH_EVERY {
            out.flush()?;
            flushed = Instant::now();
        }
        Ok(())
    });
    let ended = match (failed, walked) {
        (Some(e), _) => Err(e),
        (None, walked) => walked.map_err(crate::error::Error::from),
    };
    if let Err(e) = ended {
        // what is buffered is dropped, not written after a stop or a failed write
        drop(out.into_parts());
        return Err(e);
    }
    if let Some((_, tail)) = json {
        out.write_all(tail.as_bytes())?;
    }
    Ok(out.flush()?)
}

/// The JSON of `moves` before its moves and after them: what goes around the streamed array.
///
/// # Errors
/// Only if serialization fails.
fn json_around(moves: &Moves) -> crate::error::Result<(String, String)> {
    let mut whole = serde_json::to_string(moves)?;
    whole.push('\n');
    let (head, tail) = whole
        .split_once("\"moves\":[]")
        .ok_or_else(|| crate::error::Error::failed(format!("no empty moves in {whole}")))?;
    Ok((format!("{head}\"moves\":["), format!("]{tail}")))
}

pub(super) fn moves(args: MovesArgs) -> crate::error::Result<ExitCode> {
    let index = args.nth.as_deref().map(parse_index).transpose()?;
    let (n, g) = (args.n, args.g);
    let mut session = Session::new(args.run.output.output.as_deref(), args.run.threads.threads, !args.json)?;
    let memory_limit = args.run.memory_limit();
    let seed = args.seed.unwrap_or_else(fibtree_util::fresh_seed);
    let limit = args.limit;
    let moves = session.compute(|hooks, out| {
        // no move leaves a g known to count 0: no plan, no walk
        let mut counts = match fibtree::known_zeros(&[(n, g)], hooks).map_err(Error::from)?[0] {
            true => None,
            false => Some(walk(n, g, memory_limit, hooks)?),
        };
        let total = match &mut counts {
            Some(counts) => counts.count_at(n as usize, Some(g)).map_err(Error::from)?,
            None => BigUint::ZERO,
        };
        let shown_seed = args.random.then(|| format!("{seed:#x}"));
        let mut found = Moves { count: total.to_string(), g, moves: Vec::new(), n, seed: shown_seed };
        if args.list {
            if limit.is_none() && total > BigUint::from(MAX_LIST) {
                let what = format!("c({n}, {g}) = {total} moves, more than {MAX_LIST} lines; add --limit K");
                return Err(refused("--list", what));
            }
            // written as they are found, not kept: the list is written here, not by emit
            let json = args.json.then(|| json_around(&found)).transpose()?;
            let json = json.as_ref().map(|(head, tail)| (head.as_str(), tail.as_str()));
            if let Some(counts) = &mut counts {
                write_list(counts, (n, g, limit.unwrap_or(u64::MAX)), json, out)?;
            } else if let Some((head, tail)) = json {
                write!(out, "{head}{tail}")?;
            }
            return Ok(None);
        }
        let i = match &index {
            Some(i) if *i >= total => {
                return Err(refused("--nth", format!("expected I below c({n}, {g}) = {total}, got {i}")));
            }
            Some(i) => i.clone(),
            None if total == BigUint::ZERO => {
                return Err(refused("--random", format!("T({n}) has no move to value {g}")));
            }
            None => SplitMix64(seed).below_big(&total),
        };
        // below a total above 0, so its counts were made
        let counts =
            counts.as_mut().ok_or_else(|| crate::error::Error::failed(format!("c({n}, {g}) = 0 has no move {i}")))?;
        let path = nth(counts, n, g, &i)?;
        checked(n, g, &path)?;
        found.moves.push(Move { index: i.to_string(), path });
        Ok(Some(found))
    })?;
    let Some(moves) = moves else {
        // a list, written already
        session.finish()?;
        return Ok(ExitCode::SUCCESS);
    };
    session.emit(&moves, OutputForm::of(args.json, false))?;
    if args.random {
        // in every form, so that a random pick can always be repeated with --seed; a long index cut
        // as every number of a message is (--json has it whole)
        crate::messages::say(&format!("index {} (seed {seed:#x})", super::messages::cut(&moves.moves[0].index)));
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

pub(super) fn rank(args: RankArgs) -> crate::error::Result<ExitCode> {
    let (n, path) = (args.n, args.path.clone());
    let mut session = Session::new(args.run.output.output.as_deref(), args.run.threads.threads, !args.json)?;
    let memory_limit = args.run.memory_limit();
    let ranked = session.compute(|hooks, _| {
        // the memory guard first, then the value the path leaves (O(n) time), then the walk
        check_memory(n, memory_limit)?;
        let g = value_after(n, &path, hooks)?;
        let mut counts = walk(n, g, memory_limit, hooks)?;
        let index = rank_of(&mut counts, n, g, &path)?;
        // the walk back down from the index must find the same node
        let back = nth(&mut counts, n, g, &index)?;
        if back != path {
            return Err(crate::error::Error::failed(format!(
                "CHECK FAILED: rank gives index {index}, whose move is {back}, not {path}"
            )));
        }
        Ok(Ranked { index: index.to_string(), n, path: path.clone(), value: g })
    })?;
    session.emit(&ranked, OutputForm::of(args.json, false))?;
    Ok(ExitCode::SUCCESS)
}
