//! Where results go and what a long run shows: atomic output files, the progress bar, and the
//! signals that stop a run.

use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use fibtree::Error;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Results go to standard output, or to a file written under a temporary name in the same folder and
/// renamed over the final name only when complete: an interrupted run leaves no file and no
/// temporary behind.
pub enum Output {
    /// Standard output.
    Stdout(std::io::Stdout),
    /// A file being written.
    File(AtomicFile),
}

/// A file written under a temporary name; dropping it unfinished removes the temporary file.
pub struct AtomicFile {
    temp: PathBuf,
    path: PathBuf,
    file: Option<BufWriter<File>>,
}

impl Output {
    /// Standard output, or a new temporary file beside `path`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `--output` when the folder is missing or not writable.
    pub fn open(path: Option<&Path>) -> anyhow::Result<Output> {
        let Some(path) = path else {
            return Ok(Output::Stdout(std::io::stdout()));
        };
        if path.is_dir() {
            let what = format!("'{}' is a folder; expected a file name", path.display());
            return Err(Error::invalid("--output", what).into());
        }
        let name = path.file_name().ok_or_else(|| Error::invalid("--output", "expected a file name"))?;
        let folder = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if !folder.is_dir() {
            return Err(Error::invalid("--output", format!("the folder '{}' does not exist", folder.display())).into());
        }
        let temp = folder.join(format!(".{}.{}.tmp", name.to_string_lossy(), std::process::id()));
        let file = File::create(&temp).map_err(|e| {
            Error::invalid("--output", format!("cannot write in the folder '{}': {e}", folder.display()))
        })?;
        Ok(Output::File(AtomicFile { temp, path: path.to_path_buf(), file: Some(BufWriter::new(file)) }))
    }

    /// Flushes standard output, or flushes, syncs and renames the file into place.
    ///
    /// # Errors
    /// Any I/O error, with the path.
    pub fn finish(&mut self) -> anyhow::Result<()> {
        match self {
            Output::Stdout(out) => Ok(out.flush()?),
            Output::File(f) => {
                let Some(file) = f.file.take() else { return Ok(()) };
                let file = file.into_inner().map_err(|e| e.into_error()).context("writing the output file")?;
                file.sync_all().context("syncing the output file")?;
                std::fs::rename(&f.temp, &f.path)
                    .with_context(|| format!("renaming the output to {}", f.path.display()))
            }
        }
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.file.is_some() {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Output::Stdout(out) => out.write(buf),
            Output::File(f) => f.file.as_mut().expect("not written after finish").write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Output::Stdout(out) => out.flush(),
            Output::File(f) => f.file.as_mut().map_or(Ok(()), |f| f.flush()),
        }
    }
}

/// The flags that SIGINT and SIGTERM set: the first stops the run after its current layer; a second
/// SIGINT ends the process at once.
pub struct Signals {
    /// Set by either signal: the engines stop at the next layer.
    pub cancel: Arc<AtomicBool>,
    term: Arc<AtomicBool>,
}

impl Signals {
    /// Installs the handlers.
    ///
    /// # Errors
    /// If the handlers cannot be installed.
    pub fn install() -> anyhow::Result<Signals> {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let cancel = Arc::new(AtomicBool::new(false));
        let term = Arc::new(AtomicBool::new(false));
        signal_hook::flag::register_conditional_shutdown(SIGINT, 130, cancel.clone())?;
        signal_hook::flag::register(SIGINT, cancel.clone())?;
        signal_hook::flag::register(SIGTERM, cancel.clone())?;
        signal_hook::flag::register(SIGTERM, term.clone())?;
        Ok(Signals { cancel, term })
    }

    /// What stopped the run: SIGTERM (exit status 143) if it came, else SIGINT (130).
    pub fn stopped(&self) -> Stopped {
        if self.term.load(Ordering::Relaxed) {
            Stopped { status: 143, signal: "SIGTERM" }
        } else {
            Stopped { status: 130, signal: "SIGINT" }
        }
    }
}

/// A run stopped by a signal: the error `main` reports, with the exit status it calls for.
#[derive(Debug)]
pub struct Stopped {
    /// 130 for SIGINT, 143 for SIGTERM.
    pub status: u8,
    /// The signal's name.
    pub signal: &'static str,
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "interrupted by {}; no results were written", self.signal)
    }
}

impl std::error::Error for Stopped {}

/// A progress bar on standard error, drawn only on a terminal and only once a run has taken more
/// than a second: the work done out of the total (states x words), with an ETA.
pub struct Progress {
    bar: Option<ProgressBar>,
    start: Instant,
    /// (done, total) of each engine run so far: runs may go on at the same time, and the bar shows
    /// their sum.
    stages: std::sync::Mutex<Vec<(String, u64, u64)>>,
}

impl Progress {
    /// A bar, drawn if `wanted` and standard error is a terminal.
    pub fn new(wanted: bool) -> Progress {
        let bar = (wanted && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::hidden());
            let style = ProgressStyle::with_template("{msg} [{bar:40}] {percent:>3}%  ETA {eta}")
                .expect("a valid template")
                .progress_chars("=> ");
            bar.set_style(style);
            bar
        });
        Progress { bar, start: Instant::now(), stages: std::sync::Mutex::new(Vec::new()) }
    }

    /// Records that the run `stage` has done `done` of its `total` units of work.
    pub fn update(&self, stage: &str, done: u64, total: u64) {
        let Some(bar) = &self.bar else { return };
        if bar.is_hidden() && self.start.elapsed() > Duration::from_secs(1) {
            bar.set_draw_target(ProgressDrawTarget::stderr());
        }
        let mut stages = self.stages.lock().expect("the stages lock is never poisoned");
        match stages.iter_mut().find(|s| s.0 == stage) {
            Some(s) => (s.1, s.2) = (done, total),
            None => {
                stages.push((stage.to_string(), done, total));
                bar.set_message(stages.iter().map(|s| s.0.as_str()).collect::<Vec<_>>().join("+"));
            }
        }
        bar.set_length(stages.iter().map(|s| s.2).sum());
        bar.set_position(stages.iter().map(|s| s.1).sum());
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
