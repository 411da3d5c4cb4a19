//! `fibtree combine`: the exact c(N, G) from the files `shard` wrote, reconstructed by the Chinese
//! remainder theorem and checked as `count` checks its value.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use fibtree::crt::{self, ShardResidues};
use fibtree::{LAST18, Options, P998244353, Projection, Report};

use super::args::{CombineArgs, parse_shard};
use super::count::{Counted, all_agree};
use super::output::distinct;
use super::session::{OutputForm, Session};
use super::shard::{FORMAT, ShardFile};
use super::{say, usage};

/// Whether the `*.json` file `path` found in a folder is something other than a shard file: a JSON
/// object without a shard file's `shard` and `residues` fields (`combine --json -o` writes its result
/// into the shards' folder, for example). A file that is not JSON, or is damaged, is not skipped:
/// reading it as a shard file says what is wrong with it.
fn is_other_json(path: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else { return false };
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(serde_json::Value::Object(fields)) => !fields.contains_key("shard") && !fields.contains_key("residues"),
        _ => false,
    }
}

/// The files `paths` name: each file itself, each folder's `*.json` files in order of name but those
/// that are other JSON files ([`is_other_json`]), each skipped with a line on standard error.
///
/// # Errors
/// A path that cannot be read, or a folder with no shard file, naming it.
fn shard_files(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        let shown = path.display();
        if path.is_dir() {
            let entries = std::fs::read_dir(path).map_err(|e| usage("FILES", format!("cannot read '{shown}': {e}")))?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "json") && p.is_file())
                .filter(|p| {
                    let other = is_other_json(p);
                    if other {
                        say(&format!("skipped '{}': a JSON file, not a shard file", p.display()));
                    }
                    !other
                })
                .collect();
            if found.is_empty() {
                return Err(usage("FILES", format!("'{shown}' holds no shard file (*.json)")));
            }
            found.sort();
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

/// A shard file read and checked: its target, its shard I/S and its residues.
struct Read {
    n: u64,
    g: u64,
    count: usize,
    residues: ShardResidues,
}

/// Reads one shard file.
///
/// # Errors
/// A file that cannot be read, is not a shard file, is of another format, or is damaged, naming it.
fn read(path: &Path) -> anyhow::Result<Read> {
    let shown = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| usage("FILES", format!("cannot read '{shown}': {e}")))?;
    let file: ShardFile = serde_json::from_str(&text)
        .map_err(|e| usage("FILES", format!("'{shown}' is not a shard file of fibtree ({e})")))?;
    if file.format != FORMAT {
        return Err(usage("FILES", format!("'{shown}' has format {}, this version reads {FORMAT}", file.format)));
    }
    let damaged = |what: &str| usage("FILES", format!("'{shown}' is damaged ({what})"));
    if file.checksum != file.content_checksum() {
        return Err(damaged("its checksum does not match its content"));
    }
    let (index, count) = parse_shard(&file.shard).map_err(|_| damaged("its shard is not I/S"))?;
    let numbers = |v: &[String]| v.iter().map(|x| x.parse::<u64>()).collect::<Result<Vec<u64>, _>>();
    let primes = numbers(&file.primes).map_err(|_| damaged("a prime is not a number"))?;
    let residues = numbers(&file.residues).map_err(|_| damaged("a residue is not a number"))?;
    if primes.len() != residues.len() || primes.iter().zip(&residues).any(|(p, r)| r >= p) {
        return Err(damaged("its residues do not match its primes"));
    }
    Ok(Read { n: file.n, g: file.g, count, residues: ShardResidues { index, primes, residues } })
}

pub(super) fn combine(args: CombineArgs) -> anyhow::Result<ExitCode> {
    let form = OutputForm::of(args.json, args.quiet);
    let files = shard_files(&args.paths)?;
    let output = args.output.output.as_deref();
    for file in &files {
        // the result may not replace one of the shards it is made from
        distinct(&[("FILES", Some(file)), ("--output", output)])?;
    }
    let mut first: Option<(PathBuf, u64, u64, usize)> = None;
    let mut by_index: BTreeMap<usize, (PathBuf, ShardResidues)> = BTreeMap::new();
    for path in &files {
        let shard = read(path)?;
        let shown = path.display();
        match &first {
            None => first = Some((path.clone(), shard.n, shard.g, shard.count)),
            Some((other, n, g, count)) if (*n, *g, *count) != (shard.n, shard.g, shard.count) => {
                let what = format!(
                    "'{shown}' is a shard of c({}, {}) in {}, '{}' of c({n}, {g}) in {count}",
                    shard.n,
                    shard.g,
                    shard.count,
                    other.display()
                );
                return Err(usage("FILES", what));
            }
            Some(_) => {}
        }
        let index = shard.residues.index;
        if let Some((other, seen)) = by_index.get(&index) {
            if *seen != shard.residues {
                let what = format!("'{shown}' and '{}' give different residues for shard {index}", other.display());
                return Err(usage("FILES", what));
            }
            continue; // the same shard twice
        }
        by_index.insert(index, (path.clone(), shard.residues));
    }
    let (_, n, g, count) = first.ok_or_else(|| usage("FILES", "no shard file given"))?;
    let shards: Vec<ShardResidues> = by_index.into_values().map(|(_, s)| s).collect();
    let value = crt::combine_shards(n, count, &shards).map_err(|e| match e {
        fibtree::Error::InvalidArgument { expected, .. } => usage("FILES", expected),
        other => other.into(),
    })?;
    let mut session = Session::new(output, args.threads.threads, false)?;
    crt::check_below_tree(n, g, &value, shards.iter().map(|s| s.primes.len()).sum())?;
    // the modular engine run directly, both moduli at once (a thread each)
    let independent =
        session.compute(|hooks, _| Ok(fibtree::mod_only(n, g, &Options { hooks, ..Options::default() })?))?;
    let projections = [LAST18, P998244353]
        .into_iter()
        .map(|m| {
            let residue = u64::try_from(&value % m).expect("below the modulus");
            let found = independent.residues.iter().find(|r| r.0 == m).map(|r| r.1);
            Projection { modulus: m, residue, independent: found.expect("the default moduli are reported") }
        })
        .collect();
    // the modular check's own estimate, and the reconstruction's: the residues and their mixed-radix
    // digits (two words a prime) and the value, with a product and a remainder beside it
    let primes: usize = shards.iter().map(|s| s.primes.len()).sum();
    let reconstruction = 16 * primes as u64 + 3 * value.bits().div_ceil(8);
    let memory_estimate_bytes = independent.memory_estimate_bytes + reconstruction;
    let report = Report { n, g, value, projections, double_check: None, memory_estimate_bytes };
    session.emit(&Counted::new(&report, session.threads(), session.seconds()), form)?;
    Ok(if all_agree(&report) { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
