//! `fibtree combine`: the exact c(N, G) from the files `shard` wrote, reconstructed by the Chinese
//! remainder theorem and checked as `count` checks its value (its last 18 digits and its residue mod
//! 998244353 against the modular engine, its parity against the closed form of G) and modulo a prime
//! drawn for the run, which no file can know ([`fibtree::crt::check`]).

use std::collections::BTreeMap;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use fibtree::crt::{self, ShardResidues};
use fibtree::{Error, Hooks, Limit, Options, Param};
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};

use super::args::{CombineArgs, parse_shard};
use super::input::{Stoppable, open};
use super::output::distinct;
use super::session::{OutputForm, Session};
use crate::checked::{Counted, emit_checked};
use crate::error::refused;
use crate::shard_file::{FORMAT, ShardFile, with_budget};
use crate::terms::flag;

/// The bytes a shard file takes for each of its primes: the prime (19 digits, quoted, and a comma)
/// and its residue, about as long. What the files' size says of the primes they hold.
const FILE_BYTES_PER_PRIME: u64 = 44;

/// The bytes reading holds for each prime: the prime and its residue (8 bytes each), in lists that
/// grow by doubling.
const READ_BYTES_PER_PRIME: u64 = 32;

/// A source read through [`Stoppable`], buffered.
fn reader(path: &Path, cancel: &Arc<AtomicBool>) -> std::io::Result<BufReader<Stoppable<std::fs::File>>> {
    let (file, may_wait) = open(path)?;
    Ok(BufReader::with_capacity(64 << 10, Stoppable::new(file, cancel.clone(), may_wait)))
}

/// Whether the top level of a JSON file is an object with a shard file's `shard` or `residues`
/// field (read without holding the file: its values are skipped).
struct ShardFields(bool);

impl<'de> serde::Deserialize<'de> for ShardFields {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ShardFields, D::Error> {
        struct Key(bool);
        impl<'de> serde::Deserialize<'de> for Key {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
                struct Name;
                impl Visitor<'_> for Name {
                    type Value = Key;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str("a field name")
                    }
                    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Key, E> {
                        Ok(Key(s == "shard" || s == "residues"))
                    }
                }
                d.deserialize_str(Name)
            }
        }
        struct Object;
        impl<'de> Visitor<'de> for Object {
            type Value = ShardFields;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ShardFields, A::Error> {
                let mut found = false;
                while let Some(Key(shard)) = map.next_key()? {
                    found |= shard;
                    map.next_value::<IgnoredAny>()?;
                }
                Ok(ShardFields(found))
            }
        }
        d.deserialize_map(Object)
    }
}

/// Whether the `*.json` file `path` found in a folder is something other than a shard file: a JSON
/// object without a shard file's `shard` and `residues` fields (`combine --json -o` writes its result
/// into the shards' folder, for example). A file that is not JSON, or is damaged, is not skipped:
/// reading it as a shard file says what is wrong with it.
///
/// # Errors
/// [`Error::Interrupted`] once the cancel flag is set.
fn is_other_json(path: &Path, cancel: &Arc<AtomicBool>) -> crate::error::Result<bool> {
    let Ok(reader) = reader(path, cancel) else { return Ok(false) };
    match serde_json::from_reader::<_, ShardFields>(reader) {
        Ok(ShardFields(shard)) => Ok(!shard),
        // a read the cancel flag stopped
        Err(_) if cancel.load(Ordering::Relaxed) => Err(Error::Interrupted.into()),
        Err(_) => Ok(false),
    }
}

/// The files `paths` name: each file itself, each folder's `*.json` files in order of name but those
/// that are other JSON files ([`is_other_json`]), each skipped with a line on standard error.
///
/// # Errors
/// A path that cannot be read, or a folder with no shard file, naming it; [`Error::Interrupted`].
fn shard_files(paths: &[PathBuf], cancel: &Arc<AtomicBool>) -> crate::error::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        let shown = path.display();
        if path.is_dir() {
            let entries =
                std::fs::read_dir(path).map_err(|e| refused("FILES", format!("cannot read '{shown}': {e}")))?;
            let mut found = Vec::new();
            for p in entries.filter_map(|e| e.ok().map(|e| e.path())) {
                if !(p.extension().is_some_and(|x| x == "json") && p.is_file()) {
                    continue;
                }
                if is_other_json(&p, cancel)? {
                    crate::messages::note(&format!("skipped '{}': a JSON file, not a shard file", p.display()));
                } else {
                    found.push(p);
                }
            }
            if found.is_empty() {
                return Err(refused("FILES", format!("'{shown}' holds no shard file (*.json)")));
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

/// The refusal of a combine whose `estimate` (bytes) exceeds `limit`, naming the shard files.
fn too_large(estimate: u64, limit: Limit) -> crate::error::Error {
    Error::OutOfMemory { param: Param::Shard, estimate, limit }.into()
}

/// Reads one shard file, its numbers parsed as they come (never held as text), within `budget`
/// bytes of them (what is left is put back).
///
/// # Errors
/// A file that cannot be read, is not a shard file, is of another format, or is damaged, naming it;
/// [`Error::OutOfMemory`] for numbers past the budget; [`Error::Interrupted`].
fn read(path: &Path, cancel: &Arc<AtomicBool>, budget: &mut u64, limit: Limit) -> crate::error::Result<Read> {
    let shown = path.display();
    let cannot = |e: std::io::Error| refused("FILES", format!("cannot read '{shown}': {e}"));
    let source = reader(path, cancel).map_err(cannot)?;
    let (parsed, left, over) = with_budget(*budget, || serde_json::from_reader::<_, ShardFile>(source));
    *budget = left;
    // past the budget: the lists held, and the doubling that did not fit
    let held = limit.bytes().saturating_sub(left);
    let mut file = match parsed {
        Ok(file) => file,
        // a read the cancel flag stopped
        Err(_) if cancel.load(Ordering::Relaxed) => return Err(Error::Interrupted.into()),
        Err(_) if over => return Err(too_large(held.saturating_mul(2).max(limit.bytes() + 1), limit)),
        Err(e) if e.is_io() => return Err(cannot(std::io::Error::from(e))),
        Err(e) => return Err(refused("FILES", format!("'{shown}' is not a shard file of fibtree ({e})"))),
    };
    if file.format != FORMAT {
        return Err(refused("FILES", format!("'{shown}' has format {}, this version reads {FORMAT}", file.format)));
    }
    let damaged = |what: &str| refused("FILES", format!("'{shown}' is damaged ({what})"));
    match file.content_checksum() {
        None if file.primes.odd => return Err(damaged("a prime is not a number")),
        None => return Err(damaged("a residue is not a number")),
        Some(checksum) if checksum != file.checksum => return Err(damaged("its checksum does not match its content")),
        Some(_) => {}
    }
    let (index, count) = parse_shard(&file.shard).map_err(|_| damaged("its shard is not I/S"))?;
    let (primes, residues) = (file.primes.values, file.residues.values);
    if primes.len() != residues.len() || primes.iter().zip(&residues).any(|(p, r)| r >= p) {
        return Err(damaged("its residues do not match its primes"));
    }
    Ok(Read { n: file.n, g: file.g, count, residues: ShardResidues { index, primes, residues } })
}

/// The refusal naming the first of `paths` whose shard (of `shards`, in the same order, all `count`
/// of them) holds primes that are not its share of c(n, g) in `count`; `None` where each holds its
/// share. Made only once a whole set was refused, so that the primes are made again only then, and
/// once: each shard's share is taken from them as [`crt::shard_primes`] takes it (every `count`-th,
/// from prime `index - 1`).
fn not_its_share(n: u64, g: u64, count: usize, paths: &[PathBuf], shards: &[ShardResidues]) -> Option<String> {
    let all = crt::shard_primes(n, 1, 1).ok()?;
    let not_its_own = |s: &ShardResidues| {
        (1..=count).contains(&s.index) && !all.iter().skip(s.index - 1).step_by(count).eq(&s.primes)
    };
    let (path, shard) = paths.iter().zip(shards).find(|(_, s)| not_its_own(s))?;
    Some(format!(
        "'{}' says it is shard {}/{count} of c({n}, {g}), but its primes are not that shard's (those of another \
         shard or count)",
        path.display(),
        shard.index
    ))
}

pub(super) fn combine(args: CombineArgs) -> crate::error::Result<ExitCode> {
    let output = args.output.output.as_deref();
    // the shard files are what a refusal for memory names
    let names = |param| if param == Param::Shard { "FILES" } else { flag(param) };
    let mut session = Session::new(output, args.threads.threads, false)?.naming(names);
    let result = combine_in(&mut session, &args);
    // an interruption, wherever it came from, is the signal's; nothing is left written
    result.map_err(|e| session.error(e))
}

/// The shards of one count read from `files`: its (n, g) in `count` shards, each shard once with the
/// file it came from.
struct Shards {
    n: u64,
    g: u64,
    count: usize,
    paths: Vec<PathBuf>,
    shards: Vec<ShardResidues>,
}

/// Reads every one of `files` within `limit`, refusing (naming FILES) shards of different counts,
/// two files that give one shard different residues, and no file at all; a shard given twice is
/// taken once.
fn read_shards(files: &[PathBuf], cancel: &Arc<AtomicBool>, limit: Limit) -> crate::error::Result<Shards> {
    let mut budget = limit.bytes();
    let mut first: Option<(PathBuf, u64, u64, usize)> = None;
    let mut by_index: BTreeMap<usize, (PathBuf, ShardResidues)> = BTreeMap::new();
    for path in files {
        let shard = read(path, cancel, &mut budget, limit)?;
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
                return Err(refused("FILES", what));
            }
            Some(_) => {}
        }
        let index = shard.residues.index;
        if let Some((other, seen)) = by_index.get(&index) {
            if *seen != shard.residues {
                let what = format!("'{shown}' and '{}' give different residues for shard {index}", other.display());
                return Err(refused("FILES", what));
            }
            continue; // the same shard twice
        }
        by_index.insert(index, (path.clone(), shard.residues));
    }
    let (_, n, g, count) = first.ok_or_else(|| refused("FILES", "no shard file given"))?;
    let (paths, shards) = by_index.into_values().unzip();
    Ok(Shards { n, g, count, paths, shards })
}

fn combine_in(session: &mut Session, args: &CombineArgs) -> crate::error::Result<ExitCode> {
    let form = OutputForm::of(args.json, args.quiet);
    let cancel = session.cancel_flag();
    let files = shard_files(&args.paths, &cancel)?;
    let output = args.output.output.as_deref();
    for file in &files {
        // the result may not replace one of the shards it is made from
        distinct(&[("FILES", Some(file)), ("--output", output)])?;
    }
    // refused before any reading where the files' size says the run cannot fit
    let limit = Limit::new(None, session.threads());
    let size: u64 =
        files.iter().filter_map(|f| std::fs::metadata(f).ok()).filter(|m| m.is_file()).map(|m| m.len()).sum();
    let primes = usize::try_from(size / FILE_BYTES_PER_PRIME).unwrap_or(usize::MAX);
    let estimate =
        (primes as u64).saturating_mul(READ_BYTES_PER_PRIME).saturating_add(crt::ShardResidues::combine_bytes(primes));
    if estimate > limit.bytes() {
        return Err(too_large(estimate, limit));
    }
    let Shards { n, g, count, paths, shards } = read_shards(&files, &cancel, limit)?;
    let primes: usize = shards.iter().map(|s| s.primes.len()).sum();
    // the reconstruction's memory, now that the primes are known, within what is left
    let limit = Limit::new(None, session.threads());
    if crt::ShardResidues::combine_bytes(primes) > limit.bytes() {
        return Err(too_large(crt::ShardResidues::combine_bytes(primes), limit));
    }
    let hooks = Hooks::default().cancel_on(&cancel);
    let value = crt::combine_shards(n, count, &shards, hooks).map_err(|e| match e {
        // a whole set refused: where for a shard's primes, the file named
        Error::InvalidArgument { param: Param::Shard, expected } if shards.len() == count => {
            refused("FILES", not_its_share(n, g, count, &paths, &shards).unwrap_or(expected))
        }
        Error::InvalidArgument { expected, .. } => refused("FILES", expected),
        other => other.into(),
    })?;
    drop(shards);
    fibtree::crt::check_below_tree(n, g, &value, primes).map_err(Error::from)?;
    // the modular engine run here, modulo 10^18, 998244353 and a prime drawn now, which no file can
    // know (a thread each)
    let mut report =
        session.compute(|hooks, _| Ok(fibtree::crt::check(n, g, value, &Options { hooks, ..Options::default() })?))?;
    // the reconstruction's memory beside the modular check's: the residues and their mixed-radix
    // digits (two words a prime) and the value, with a product and a remainder beside it
    report.memory_estimate_bytes += 16 * primes as u64 + 3 * report.value.bits().div_ceil(8);
    #[cfg(feature = "test-hooks")]
    let report = super::hooks::perturbed(report, args.test_perturb);
    let counted = Counted::new(&report, session.threads(), session.seconds());
    if cancel.load(Ordering::Relaxed) {
        return Err(Error::Interrupted.into());
    }
    emit_checked(session, &report, counted, form)
}
