//! The progress bar on standard error: drawn only on a terminal and only once a run has taken more
//! than a second.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress bar: the work done out of the total (states x words), with an ETA.
pub(super) struct Progress {
    bar: Option<ProgressBar>,
    start: Instant,
    /// (done, total) of each engine run so far: runs may go on at the same time, and the bar shows
    /// their sum.
    stages: Mutex<Vec<(String, u64, u64)>>,
}

impl Progress {
    /// A bar, drawn if `wanted` and standard error is a terminal.
    pub(super) fn new(wanted: bool) -> Progress {
        let bar = (wanted && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::hidden());
            let style = ProgressStyle::with_template("{msg} [{bar:40}] {percent:>3}%  ETA {eta}")
                .expect("a valid template")
                .progress_chars("=> ");
            bar.set_style(style);
            bar
        });
        Progress { bar, start: Instant::now(), stages: Mutex::new(Vec::new()) }
    }

    /// Records that the run `stage` has done `done` of its `total` units of work.
    pub(super) fn update(&self, stage: &str, done: u64, total: u64) {
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
    pub(super) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
