//! `bench --compare OLD NEW`: two files that `bench --json` wrote, side by side, nothing run. For each
//! (n, threads) in both: the two medians, the two limb additions per ns and the ratios NEW/OLD of
//! each, with each file's machine named; the rows of one file only listed as such, and the rows
//! whose two runs did different work (another plan or route: their limb additions differ) and those
//! pinned in one file only said so.
//!
//! Each file is read whole, at most [`MAX_FILE_BYTES`] of it, through [`super::super::input`]
//! (a signal stops the read), then checked: JSON, then a file of `bench --json` (its `machine` and
//! `results`, each row's figures in range, no (n, threads) twice; the fields that files of earlier
//! releases lack, such as `pinned`, optional). A file that fails is
//! refused naming it and what is wrong, exit 2.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};

use super::super::args::{BenchArgs, MAX_THREADS};
use super::super::input::{Stoppable, is_cancelled, open};
use super::super::output::distinct;
use super::super::session::{Outcome, OutputForm, Session};
use crate::error::refused;

/// The most bytes of a file `--compare` reads: a file of `bench --json` holds about 1 KB a row
/// (and 20 bytes a run past 3), so that 16 MiB is thousands of rows of a thousand runs each, far
/// past any bench.
pub(super) const MAX_FILE_BYTES: u64 = 16 << 20;

/// The range of a time in seconds and of a rate in limb additions per ns that a file may give: a
/// nanosecond to 30 years, a billion additions a second to a billion a nanosecond. A figure past it
/// was not measured, and its ratios would be past what a table shows.
const SANE: std::ops::RangeInclusive<f64> = 1e-9..=1e9;

/// [`SANE`] in words.
const SANE_WORDS: &str = "1e-9 to 1e9";

/// The most cores a file's machine may have.
const MAX_CORES: u64 = 1 << 20;

/// The most characters of a machine's or kernel's name shown (the rest cut, `...`).
const NAME_CHARS: usize = 80;

/// The fields of a file of `bench --json` that a comparison reads (the others are skipped); those
/// that files of earlier releases lack are optional.
#[derive(Deserialize)]
struct BenchFile {
    #[serde(default)]
    kernel: Option<String>,
    machine: HostIn,
    results: Vec<RowIn>,
}

#[derive(Deserialize)]
struct HostIn {
    cores: u64,
    cpu: Option<String>,
    #[serde(default)]
    simulated: Option<String>,
}

#[derive(Deserialize)]
struct RowIn {
    n: u64,
    threads: u64,
    median_seconds: f64,
    limb_additions: String,
    limb_additions_per_ns: f64,
    /// Absent from files written before the count from both ends.
    #[serde(default)]
    cut: Option<u64>,
    /// Absent from files written before `--pin`: not pinned.
    #[serde(default)]
    pinned: bool,
}

/// `text` without control characters, cut to [`NAME_CHARS`]: a name from a file, shown on one line.
fn shown(text: &str) -> String {
    let clean: String = text.chars().filter(|c| !c.is_control()).collect();
    match clean.chars().count() > NAME_CHARS {
        true => format!("{}...", clean.chars().take(NAME_CHARS).collect::<String>()),
        false => clean,
    }
}

/// The refusal of the file `path`: `--compare: 'PATH' WHY`.
fn refused_file(path: &Path, why: impl std::fmt::Display) -> crate::error::Error {
    refused("--compare", format!("'{}' {why}", path.display()))
}

/// The bytes of `path`, at most [`MAX_FILE_BYTES`], read so that a signal stops the read.
///
/// # Errors
/// A refusal naming the file (missing, a folder, unreadable, too large); [`fibtree::Error::Interrupted`]
/// for a read a signal stopped.
fn bytes_of(path: &Path, cancel: &Arc<AtomicBool>) -> crate::error::Result<Vec<u8>> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => return Err(refused_file(path, "is a folder; expected a file written by bench --json")),
        Ok(_) => {}
        Err(e) => return Err(refused_file(path, format_args!("cannot be read: {e}"))),
    }
    let (file, may_wait) = open(path).map_err(|e| refused_file(path, format_args!("cannot be read: {e}")))?;
    let mut bytes = Vec::new();
    let read = Stoppable::new(file, cancel.clone(), may_wait).take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes);
    match read {
        Err(e) if is_cancelled(&e) => return Err(fibtree::Error::Interrupted.into()),
        Err(e) => return Err(refused_file(path, format_args!("cannot be read: {e}"))),
        Ok(_) => {}
    }
    if bytes.len() as u64 > MAX_FILE_BYTES {
        let most = fibtree_util::human_bytes(MAX_FILE_BYTES);
        return Err(refused_file(path, format_args!("is over {most}; a file of bench --json is far smaller")));
    }
    Ok(bytes)
}

/// The file `path` read and checked (see the module).
///
/// # Errors
/// A refusal naming the file and what is wrong with it; [`fibtree::Error::Interrupted`].
fn read(path: &Path, cancel: &Arc<AtomicBool>) -> crate::error::Result<BenchFile> {
    let bytes = bytes_of(path, cancel)?;
    let value: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|e| refused_file(path, format_args!("is not JSON ({e}); expected a file written by bench --json")))?;
    if !value.is_object() {
        return Err(refused_file(path, "is not a file of bench --json (a JSON value, not an object)"));
    }
    let file: BenchFile = serde_json::from_value(value)
        .map_err(|e| refused_file(path, format_args!("is not a file of bench --json ({e})")))?;
    let cores = file.machine.cores;
    if !(1..=MAX_CORES).contains(&cores) {
        return Err(refused_file(
            path,
            format_args!("is not a file of bench --json: machine.cores {cores}: expected 1 to 2^20"),
        ));
    }
    let mut seen = std::collections::BTreeSet::new();
    for (i, r) in file.results.iter().enumerate() {
        let why = if !(2..=fibtree::MAX_N).contains(&r.n) || !(1..=MAX_THREADS).contains(&r.threads) {
            Some(format!(
                "n {} and threads {}: expected n from 2 to {} and 1 to {MAX_THREADS} threads",
                r.n,
                r.threads,
                fibtree::MAX_N
            ))
        } else if !SANE.contains(&r.median_seconds) {
            Some(format!("median_seconds {}: expected a positive time of {SANE_WORDS} s", figure(r.median_seconds)))
        } else if !SANE.contains(&r.limb_additions_per_ns) {
            let rate = figure(r.limb_additions_per_ns);
            Some(format!("limb_additions_per_ns {rate}: expected a positive rate of {SANE_WORDS} per ns"))
        } else if whole(&r.limb_additions).is_none() {
            let shown = shown(&r.limb_additions);
            Some(format!("limb_additions '{shown}': expected a whole number from 1 to 2^128 - 1, in a string"))
        } else if !seen.insert((r.n, r.threads)) {
            Some(format!("n={} threads={} is there twice", r.n, r.threads))
        } else {
            None
        };
        if let Some(why) = why {
            return Err(refused_file(path, format_args!("is not a file of bench --json: results[{i}]: {why}")));
        }
    }
    Ok(file)
}

/// The positive whole number `text` writes in decimal digits alone, below 2^128 (a bench's limb
/// additions, which a JSON number could not hold exactly). Cost O(the text's bytes).
fn whole(text: &str) -> Option<u128> {
    let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    digits.then(|| text.parse::<u128>().ok()).flatten().filter(|&w| w > 0)
}

/// `x` as a message shows it: in full where short, else in scientific notation (1e300, not its 301
/// digits).
fn figure(x: f64) -> String {
    match x.abs() {
        0.0 => "0".to_string(),
        a if (1e-6..1e15).contains(&a) => x.to_string(),
        _ => format!("{x:e}"),
    }
}

/// One file's machine, as the comparison names it.
#[derive(Serialize)]
struct Side {
    cores: u64,
    cpu: Option<String>,
    file: String,
    kernel: Option<String>,
    simulated: Option<String>,
}

impl Side {
    fn of(path: &Path, file: &BenchFile) -> Side {
        let m = &file.machine;
        Side {
            cores: m.cores,
            cpu: m.cpu.as_deref().map(shown),
            file: path.display().to_string(),
            kernel: file.kernel.as_deref().map(shown),
            simulated: m.simulated.as_deref().map(shown),
        }
    }

    /// `AMD EPYC, 2 cores, kernel avx2 (simulated: cores=4)`.
    fn described(&self) -> String {
        let cores = fibtree_util::counted(self.cores, "core");
        let simulated = self.simulated.as_ref().map_or(String::new(), |s| format!(" (simulated: {s})"));
        let kernel = self.kernel.as_deref().unwrap_or("not recorded");
        format!("{}, {cores}, kernel {kernel}{simulated}", self.cpu.as_deref().unwrap_or("unknown CPU"))
    }
}

/// An (n, threads) of one file only.
#[derive(Serialize)]
struct Key {
    n: u64,
    threads: u64,
}

/// An (n, threads) of both files: each file's figures, and NEW/OLD of each.
#[derive(Serialize)]
struct Row {
    /// NEW's median over OLD's: under 1, NEW is faster.
    median_ratio: f64,
    n: u64,
    new_limb_additions: String,
    new_limb_additions_per_ns: f64,
    new_median_seconds: f64,
    new_pinned: bool,
    old_limb_additions: String,
    old_limb_additions_per_ns: f64,
    old_median_seconds: f64,
    old_pinned: bool,
    /// NEW's limb additions per ns over OLD's: over 1, NEW is faster.
    rate_ratio: f64,
    /// Whether both did the same work: the same limb additions, cut at the same layer (where both
    /// files say where).
    same_work: bool,
    threads: u64,
    /// The cuts, for the note on rows of different work (not in the JSON, which has the limb
    /// additions).
    #[serde(skip)]
    cuts: (Option<u64>, Option<u64>),
}

/// The comparison (fields in alphabetical order, as the JSON lists them).
#[derive(Serialize)]
struct Comparison {
    new: Side,
    old: Side,
    only_in_new: Vec<Key>,
    only_in_old: Vec<Key>,
    rows: Vec<Row>,
}

/// `n=300 threads 1, 2; n=500 threads 4`: the keys grouped by n.
fn grouped<'a>(keys: impl Iterator<Item = (u64, u64)> + 'a) -> String {
    let mut by_n: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    for (n, threads) in keys {
        by_n.entry(n).or_default().push(threads.to_string());
    }
    let groups: Vec<String> = by_n.into_iter().map(|(n, t)| format!("n={n} threads {}", t.join(", "))).collect();
    groups.join("; ")
}

impl Outcome for Comparison {
    fn human(&self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "old      {}: {}", self.old.file, self.old.described())?;
        writeln!(out, "new      {}: {}", self.new.file, self.new.described())?;
        writeln!(out)?;
        if self.rows.is_empty() {
            writeln!(out, "no n and thread count in both files")?;
        } else {
            writeln!(
                out,
                "{:>8} {:>7} {:>13} {:>13} {:>8} {:>12} {:>12} {:>8}",
                "n", "threads", "old median s", "new median s", "new/old", "old adds/ns", "new adds/ns", "new/old"
            )?;
        }
        for r in &self.rows {
            writeln!(
                out,
                "{:>8} {:>7} {:>13.6} {:>13.6} {:>8.3} {:>12.3} {:>12.3} {:>8.3}",
                r.n,
                r.threads,
                r.old_median_seconds,
                r.new_median_seconds,
                r.median_ratio,
                r.old_limb_additions_per_ns,
                r.new_limb_additions_per_ns,
                r.rate_ratio
            )?;
        }
        let mut notes = Vec::new();
        for (name, keys) in [("old", &self.only_in_old), ("new", &self.only_in_new)] {
            if !keys.is_empty() {
                notes.push(format!("only in {name}: {}", grouped(keys.iter().map(|k| (k.n, k.threads)))));
            }
        }
        let mut told = std::collections::BTreeSet::new();
        for r in self.rows.iter().filter(|r| !r.same_work) {
            if told.insert(r.n) {
                let cut = |cut: Option<u64>| cut.map_or(String::new(), |c| format!(" (cut at layer {c})"));
                notes.push(format!(
                    "different work at n={}: old {} limb additions{}, new {}{}: its rates compare, its times do not",
                    r.n,
                    r.old_limb_additions,
                    cut(r.cuts.0),
                    r.new_limb_additions,
                    cut(r.cuts.1)
                ));
            }
        }
        for (name, pinned) in [("old", true), ("new", false)] {
            let keys = self.rows.iter().filter(|r| r.old_pinned == pinned && r.new_pinned != pinned);
            let keys: Vec<(u64, u64)> = keys.map(|r| (r.n, r.threads)).collect();
            if !keys.is_empty() {
                notes.push(format!("pinned in {name} only: {}", grouped(keys.into_iter())));
            }
        }
        if !notes.is_empty() {
            writeln!(out)?;
        }
        notes.iter().try_for_each(|note| writeln!(out, "{note}"))
    }
}

/// The rows of `old` and `new` side by side: see the module.
fn compare_files(old: (&Path, &BenchFile), new: (&Path, &BenchFile)) -> Comparison {
    let index = |file: &BenchFile| -> BTreeMap<(u64, u64), usize> {
        file.results.iter().enumerate().map(|(i, r)| ((r.n, r.threads), i)).collect()
    };
    let (old_rows, new_rows) = (index(old.1), index(new.1));
    let key = |&(n, threads): &(u64, u64)| Key { n, threads };
    let only_in_old = old_rows.keys().filter(|k| !new_rows.contains_key(k)).map(key).collect();
    let only_in_new = new_rows.keys().filter(|k| !old_rows.contains_key(k)).map(key).collect();
    let rows = old_rows
        .iter()
        .filter_map(|(k, &i)| Some((k, &old.1.results[i], &new.1.results[*new_rows.get(k)?])))
        .map(|(&(n, threads), o, w)| Row {
            median_ratio: w.median_seconds / o.median_seconds,
            n,
            new_limb_additions: shown(&w.limb_additions),
            new_limb_additions_per_ns: w.limb_additions_per_ns,
            new_median_seconds: w.median_seconds,
            new_pinned: w.pinned,
            old_limb_additions: shown(&o.limb_additions),
            old_limb_additions_per_ns: o.limb_additions_per_ns,
            old_median_seconds: o.median_seconds,
            old_pinned: o.pinned,
            rate_ratio: w.limb_additions_per_ns / o.limb_additions_per_ns,
            same_work: o.limb_additions == w.limb_additions && (o.cut.is_none() || w.cut.is_none() || o.cut == w.cut),
            threads,
            cuts: (o.cut, w.cut),
        })
        .collect();
    Comparison { new: Side::of(new.0, new.1), old: Side::of(old.0, old.1), only_in_new, only_in_old, rows }
}

/// `bench --compare OLD NEW`: the comparison, in the form asked for, nothing run.
///
/// # Errors
/// A refusal naming a file that cannot be compared, or an output that clashes with one; an I/O
/// error writing the comparison.
pub(super) fn compare(args: &BenchArgs, old: &Path, new: &Path) -> crate::error::Result<()> {
    let output = args.output.output.as_deref();
    for input in [old, new] {
        distinct(&[("--compare", Some(input)), ("--output", output)])?;
    }
    let mut session = Session::new(output, Some(1), false)?;
    let cancel = session.cancel_flag();
    let load = |path| read(path, &cancel).map_err(|e| session.error(e));
    let (old_file, new_file) = (load(old)?, load(new)?);
    let comparison = compare_files((old, &old_file), (new, &new_file));
    session.emit(&comparison, OutputForm::of(args.json, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_shown_on_one_line_and_cut() {
        assert_eq!(shown("AMD EPYC\n\u{1b}[2J"), "AMD EPYC[2J");
        let long = "x".repeat(200);
        assert_eq!(shown(&long), format!("{}...", "x".repeat(NAME_CHARS)));
    }

    #[test]
    fn whole_numbers_and_figures() {
        assert_eq!((whole("1"), whole("0012"), whole(&u128::MAX.to_string())), (Some(1), Some(12), Some(u128::MAX)));
        for bad in ["", "0", "-5", "+5", " 5", "1e3", "5.0", "340282366920938463463374607431768211456"] {
            assert_eq!(whole(bad), None, "{bad:?}");
        }
        assert_eq!(whole(&"9".repeat(100_000)), None);
        assert_eq!(
            (figure(-1.0), figure(0.0), figure(2.5e-3)),
            ("-1".to_string(), "0".to_string(), "0.0025".to_string())
        );
        assert_eq!((figure(1e300), figure(-1e-300)), ("1e300".to_string(), "-1e-300".to_string()));
    }

    #[test]
    fn keys_grouped_by_n() {
        assert_eq!(grouped([(300, 1), (300, 2), (500, 4)].into_iter()), "n=300 threads 1, 2; n=500 threads 4");
        assert_eq!(grouped(std::iter::empty()), "");
    }
}
