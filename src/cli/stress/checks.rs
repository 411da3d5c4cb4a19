//! The checks of `stress`'s arguments made before any run (the program, the folder of the kept
//! outputs), and the writing of a run's kept outputs.

use std::path::Path;

use fibtree_util::{probe_folder, write_atomically};

use super::super::args::StressArgs;
use super::super::runner::{Program, ProgramRun, split_words};
use super::super::usage;

/// The checks of the arguments that need no run: the program's words, the folder for the outputs.
///
/// # Errors
/// A usage error naming the argument.
pub(super) fn checked_program(args: &StressArgs) -> anyhow::Result<Program> {
    if args.command.trim().is_empty() {
        return Err(usage("CMD", "expected a command, got an empty one"));
    }
    let words = match args.no_shell {
        true => Some(split_words(&args.command).map_err(|e| usage("CMD", e))?),
        false => None,
    };
    if let Some(program) = words.as_ref().map(|w| &w[0]) {
        runnable(program).map_err(|why| usage("CMD", why))?;
    }
    if let Some(dir) = &args.keep_output {
        std::fs::create_dir_all(dir)
            .and_then(|()| probe_folder(&dir.join("0.stdout")))
            .map_err(|e| usage("--keep-output", format!("cannot write in the folder '{}': {e}", dir.display())))?;
        check_kept_names(dir, &args.ns.0, args.run.output.output.as_deref())?;
    }
    Ok(Program { command: args.command.clone(), words, timeout: args.timeout })
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

/// Whether the file name `name` is one that `--keep-output` writes for one of `ns` (`N.stdout` or
/// `N.stderr`). Cost O(log ns).
fn kept_for(name: &str, ns: &[u64]) -> bool {
    let n = name.strip_suffix(".stdout").or_else(|| name.strip_suffix(".stderr"));
    n.and_then(|n| fibtree_util::parse_whole::<u64>(n).ok()).is_some_and(|n| ns.binary_search(&n).is_ok())
}

/// Refuses, before any run, what would make a kept output fail or be lost after the runs: `-o`
/// naming one of the files kept in `dir`, and a name of those files already taken by something
/// other than a file (a folder, say). Cost: one listing of `dir`.
///
/// # Errors
/// A usage error naming `--output` or `--keep-output`.
fn check_kept_names(dir: &Path, ns: &[u64], output: Option<&Path>) -> anyhow::Result<()> {
    let same_folder = |path: &Path| {
        let folder = fibtree_util::folder_of(path);
        matches!((folder.canonicalize(), dir.canonicalize()), (Ok(a), Ok(b)) if a == b)
    };
    if let Some(output) = output
        && output.file_name().and_then(|n| n.to_str()).is_some_and(|n| kept_for(n, ns))
        && same_folder(output)
    {
        let why =
            format!("'{}' is a file --keep-output writes a run's output to; expected another file", output.display());
        return Err(usage("--output", why));
    }
    let entries = std::fs::read_dir(dir)
        .map_err(|e| usage("--keep-output", format!("cannot read the folder '{}': {e}", dir.display())))?;
    for entry in entries.flatten() {
        if !entry.file_name().to_str().is_some_and(|n| kept_for(n, ns)) {
            continue;
        }
        if !std::fs::metadata(entry.path()).is_ok_and(|m| m.is_file()) {
            let why = format!("'{}' is not a file, so a run's output cannot be kept there", entry.path().display());
            return Err(usage("--keep-output", why));
        }
    }
    Ok(())
}

/// Writes `run`'s standard output and error into `dir` as `N.stdout` and `N.stderr`.
///
/// # Errors
/// A write that failed, naming the file and `--keep-output`.
pub(super) fn keep(dir: &Path, run: &ProgramRun) -> anyhow::Result<()> {
    for (suffix, bytes) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
        let path = dir.join(format!("{}.{suffix}", run.n));
        write_atomically(&path, bytes)
            .map_err(|e| anyhow::anyhow!("writing '{}' (--keep-output): {e}", path.display()))?;
    }
    Ok(())
}
