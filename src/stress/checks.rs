//! The checks of `stress`'s arguments made before any run (the program, the folder of the kept
//! outputs), and the writing of a run's kept outputs and figures.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use fibtree_util::{AtomicFile, probe_own};

use super::super::args::StressArgs;
use super::super::runner::{Program, ProgramRun, split_words};
use super::verdict::status_of;
use crate::error::refused;

/// The checks of the arguments that need no run: the program's words, the folder for the outputs.
///
/// # Errors
/// A usage error naming the argument.
pub(super) fn checked_program(args: &StressArgs) -> crate::error::Result<Program> {
    if args.command.trim().is_empty() {
        return Err(refused("CMD", "expected a command, got an empty one"));
    }
    let words = match args.no_shell {
        true => Some(split_words(&args.command).map_err(|e| refused("CMD", e))?),
        false => None,
    };
    if let Some(program) = words.as_ref().map(|w| &w[0]) {
        runnable(program).map_err(|why| refused("CMD", why))?;
    }
    if let Some(dir) = &args.keep_output {
        std::fs::create_dir_all(dir)
            .and_then(|()| probe_own(&dir.join("0.stdout")))
            .map_err(|e| refused("--keep-output", format!("cannot write in the folder '{}': {e}", dir.display())))?;
        for (flag, file) in [("--output", &args.run.output.output), ("--svg", &args.svg)] {
            check_kept_name(dir, &args.ns.0, flag, file.as_deref())?;
        }
        check_kept_names(dir, &args.ns.0)?;
    }
    let (command, memory_limit, cpu_limit) = (args.command.clone(), args.memory_limit, args.time_limit);
    Ok(Program { command, words, timeout: timeout(args), memory_limit, cpu_limit })
}

/// The wall time a run may take: `--timeout`, else 10 s, or twice `--time-limit` and a second more
/// where that is longer (a run that waits rather than computes is killed on the wall clock; one
/// that computes is killed once its CPU time is past `--time-limit`, whatever the wall time).
pub(super) fn timeout(args: &StressArgs) -> Duration {
    let judged = args.time_limit.map_or(Duration::ZERO, |t| 2 * t + Duration::from_secs(1));
    args.timeout.unwrap_or(Duration::from_secs(10).max(judged))
}

/// Whether `program` names an executable file: as a path where it has a `/`, else on `PATH`.
///
/// # Errors
/// Why not, in words: no such file, or a file that is not executable (with its mode), or not a
/// file.
fn runnable(program: &str) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let candidates: Vec<std::path::PathBuf> = match program.contains('/') {
        true => vec![program.into()],
        false => {
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).map(|d| d.join(program)).collect()
        }
    };
    let mut refused = None;
    for path in &candidates {
        let Ok(meta) = std::fs::metadata(path) else { continue };
        let mode = meta.permissions().mode();
        match (meta.is_file(), mode & 0o111 != 0) {
            (true, true) => return Ok(()),
            (true, false) => {
                let why =
                    format!("'{}' is not executable (mode {:o}; chmod +x makes it so)", path.display(), mode & 0o7777);
                refused.get_or_insert(why);
            }
            (false, _) => {
                refused.get_or_insert(format!("'{}' is not a file", path.display()));
            }
        }
    }
    Err(refused.unwrap_or_else(|| format!("no program '{program}' found (a path, or a name on PATH)")))
}

/// Whether the file name `name` is one that `--keep-output` writes for one of `ns` (`N.stdout`,
/// `N.stderr` or `N.json`). Cost O(log ns).
fn kept_for(name: &str, ns: &[u64]) -> bool {
    let n = ["stdout", "stderr", "json"].iter().find_map(|suffix| name.strip_suffix(suffix)?.strip_suffix('.'));
    n.and_then(|n| fibtree_util::parse_whole::<u64>(n).ok()).is_some_and(|n| ns.binary_search(&n).is_ok())
}

/// Refuses, before any run, `file` (the file of `flag`) where it is one of the files kept in
/// `dir`, which it would be lost to, or lose.
///
/// # Errors
/// A usage error naming `flag`.
fn check_kept_name(dir: &Path, ns: &[u64], flag: &str, file: Option<&Path>) -> crate::error::Result<()> {
    let same_folder = |path: &Path| {
        let folder = fibtree_util::folder_of(path);
        matches!((folder.canonicalize(), dir.canonicalize()), (Ok(a), Ok(b)) if a == b)
    };
    match file {
        Some(file)
            if file.file_name().and_then(|n| n.to_str()).is_some_and(|n| kept_for(n, ns)) && same_folder(file) =>
        {
            let why =
                format!("'{}' is a file --keep-output writes a run's output to; expected another file", file.display());
            Err(refused(flag, why))
        }
        _ => Ok(()),
    }
}

/// Refuses, before any run, a name of the files kept in `dir` already taken by something other
/// than a regular file with one name (a link, a FIFO, a folder: [`fibtree_util::in_the_way`]),
/// which a kept output would write through, or fail on after the runs. Cost: one listing of `dir`.
///
/// # Errors
/// A usage error naming `--keep-output`.
fn check_kept_names(dir: &Path, ns: &[u64]) -> crate::error::Result<()> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| refused("--keep-output", format!("cannot read the folder '{}': {e}", dir.display())))?;
    for entry in entries.flatten() {
        if !entry.file_name().to_str().is_some_and(|n| kept_for(n, ns)) {
            continue;
        }
        // the names are fibtree's: a link is not followed, a FIFO not opened
        if let Some(what) = fibtree_util::in_the_way(&entry.path()) {
            let why = format!(
                "'{}' is {what}, not a file of fibtree's, so a run's output cannot be kept there; it is left as it is",
                entry.path().display()
            );
            return Err(refused("--keep-output", why));
        }
    }
    Ok(())
}

/// What `--keep-output` writes of a run's figures, as `N.json` (fields in alphabetical order).
#[derive(serde::Serialize)]
struct Figures<'a> {
    cpu_seconds: Option<f64>,
    n: u64,
    #[serde(serialize_with = "crate::json::opt_int")]
    peak_memory_at_most_bytes: Option<u64>,
    #[serde(serialize_with = "crate::json::opt_int")]
    peak_memory_bytes: Option<u64>,
    seconds: f64,
    status: &'a str,
}

/// Writes `run`'s standard output and error into `dir` as `N.stdout` and `N.stderr`, and how it
/// ended, its times and its peak memory as `N.json` (each file written whole, then renamed into
/// place); `shell`: it ran through `sh -c`.
///
/// # Errors
/// A write that failed, naming the file and `--keep-output`.
pub(super) fn keep(dir: &Path, run: &ProgramRun, shell: bool) -> crate::error::Result<()> {
    let status = status_of(&run.ending, shell);
    let figures = Figures {
        cpu_seconds: run.usage.map(|u| (u.cpu_seconds * 1e6).round() / 1e6),
        n: run.n,
        peak_memory_at_most_bytes: run.usage.map(|u| u.max_resident_bytes),
        peak_memory_bytes: run.usage.and_then(|u| u.peak_bytes),
        seconds: (run.seconds * 1000.0).round() / 1000.0,
        status: &status,
    };
    let mut json = serde_json::to_vec(&figures)?;
    json.push(b'\n');
    for (suffix, bytes) in [("stdout", &run.stdout), ("stderr", &run.stderr), ("json", &json)] {
        let path = dir.join(format!("{}.{suffix}", run.n));
        // the names are fibtree's: a link, a FIFO or a folder there is not followed, but refused
        AtomicFile::create_own(&path)
            .and_then(|mut file| file.write_all(bytes).and_then(|()| file.commit()))
            .map_err(|e| crate::error::Error::failed(format!("writing '{}' (--keep-output): {e}", path.display())))?;
    }
    Ok(())
}
