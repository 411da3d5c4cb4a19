//! What a run reports and obeys while it goes: the flags that stop it, and the callbacks it tells of
//! its progress and of what it did with files.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::error::{Error, Result};
use crate::graph::Recorder;

/// A progress callback: the run's name, the work done, the run's total work.
///
/// # Examples
///
/// ```
/// use std::sync::atomic::{AtomicBool, Ordering};
/// let told = AtomicBool::new(false);
/// let progress = |_run: &str, done: u64, total: u64| {
///     assert!(done <= total);
///     told.store(true, Ordering::Relaxed);
/// };
/// let hooks = fibtree_core::Hooks::default().progress_to(&progress);
/// let request = fibtree_core::Request::exact(&[(300, 0)], fibtree_core::Engine::Blocked).hooks(hooks);
/// request.plan()?.run(|_, _, _| Ok(()))?;
/// assert!(told.load(Ordering::Relaxed));
/// # Ok::<(), fibtree_core::Error>(())
/// ```
pub type ProgressFn<'a> = dyn Fn(&str, u64, u64) + Sync + 'a;

/// A notice callback: one line saying what a run did besides computing (for example that it resumed
/// from a checkpoint).
///
/// # Examples
///
/// ```
/// use std::sync::Mutex;
/// let lines = Mutex::new(Vec::new());
/// let notice = |line: &str| lines.lock().unwrap().push(line.to_string());
/// let hooks = fibtree_core::Hooks::default().notices_to(&notice);
/// // a run that resumes from no position does nothing with files: nothing to tell
/// let request = fibtree_core::Request::exact(&[(10, 0)], fibtree_core::Engine::Blocked).hooks(hooks);
/// request.plan()?.run(|_, _, _| Ok(()))?;
/// assert!(lines.lock().unwrap().is_empty());
/// # Ok::<(), fibtree_core::Error>(())
/// ```
pub type NoticeFn<'a> = dyn Fn(&str) + Sync + 'a;

/// What a run reports and obeys while it goes: a flag that stops it, a callback told the work done
/// so far, and one told of what it did with files. Every engine and every long computation takes one;
/// the default stops never and tells nothing.
///
/// ```
/// # use fibtree_core as fibtree;
/// use std::sync::atomic::AtomicBool;
/// let stop = AtomicBool::new(false);
/// let progress = |name: &str, done: u64, total: u64| eprintln!("{name}: {done} of {total}");
/// let hooks = fibtree::Hooks::default().cancel_on(&stop).progress_to(&progress);
/// assert!(!hooks.cancelled());
/// ```
#[derive(Clone, Copy, Default)]
pub struct Hooks<'a> {
    cancel: Option<&'a AtomicBool>,
    /// A second flag, set by the library itself (a run whose companion failed).
    stop: Option<&'a AtomicBool>,
    progress: Option<&'a ProgressFn<'a>>,
    notice: Option<&'a NoticeFn<'a>>,
    /// Where the blocked exact engine records its task graph, if anywhere.
    record: Option<&'a Recorder>,
}

impl<'a> Hooks<'a> {
    /// These hooks, stopped (with [`Error::Interrupted`], within about a second) once `flag` is set.
    pub fn cancel_on(self, flag: &'a AtomicBool) -> Self {
        Hooks { cancel: Some(flag), ..self }
    }

    /// These hooks, telling `callback` the work done: called now and then with the run's name, the
    /// work done and the run's total work, in units of the run's own (states x words for the engines).
    pub fn progress_to(self, callback: &'a ProgressFn<'a>) -> Self {
        Hooks { progress: Some(callback), ..self }
    }

    /// These hooks, telling `callback` in one line what a run did besides computing (saved, resumed
    /// or discarded a checkpoint).
    pub fn notices_to(self, callback: &'a NoticeFn<'a>) -> Self {
        Hooks { notice: Some(callback), ..self }
    }

    /// These hooks, with the blocked exact engine recording its task graph into `recorder` (see
    /// [`crate::graph`]): each task's thread CPU time and the serial work around the graph. Costs two
    /// clock reads and a lock per task; without it, a branch. For `fibtree bench` only.
    pub(crate) fn record_to(self, recorder: &'a Recorder) -> Self {
        Hooks { record: Some(recorder), ..self }
    }

    /// The recorder of the task graph, if one is asked for.
    #[inline]
    pub(crate) fn recorder(&self) -> Option<&'a Recorder> {
        self.record
    }

    /// These hooks, also stopped once `flag` is set (by the library, for a run whose companion failed).
    pub(crate) fn also_stopped_by(self, flag: &'a AtomicBool) -> Self {
        Hooks { stop: Some(flag), ..self }
    }

    /// These hooks without their progress callback: for a part of a run whose work is told later
    /// (a half of a count started early, whose progress its resumed run tells).
    pub(crate) fn without_progress(self) -> Self {
        Hooks { progress: None, ..self }
    }

    /// These hooks without their cancel flags: for a part of a run that must finish once started.
    pub(crate) fn uncancellable(self) -> Self {
        Hooks { cancel: None, stop: None, ..self }
    }

    /// Whether a flag says to stop. Cost: one or two relaxed loads.
    #[inline]
    pub fn cancelled(&self) -> bool {
        [self.cancel, self.stop].iter().flatten().any(|flag| flag.load(Ordering::Relaxed))
    }

    /// `Err(Interrupted)` once a flag says to stop.
    ///
    /// # Errors
    /// [`Error::Interrupted`] when cancelled.
    #[inline]
    pub fn check(&self) -> Result<()> {
        if self.cancelled() { Err(Error::Interrupted) } else { Ok(()) }
    }

    /// Whether a progress callback listens (so that a run need not total its work otherwise).
    pub(crate) fn wants_progress(&self) -> bool {
        self.progress.is_some()
    }

    /// Tells the progress callback, if any: `done` of `total` units of the run `name`. Cost O(1)
    /// and the callback's.
    ///
    /// ```
    /// # use fibtree_core as fibtree;
    /// let seen = std::sync::Mutex::new(Vec::new());
    /// let tell = |name: &str, done: u64, total: u64| seen.lock().unwrap().push(format!("{name} {done}/{total}"));
    /// fibtree::Hooks::default().progress_to(&tell).progress("runs", 1, 4);
    /// assert_eq!(*seen.lock().unwrap(), ["runs 1/4"]);
    /// ```
    pub fn progress(&self, name: &str, done: u64, total: u64) {
        if let Some(progress) = self.progress {
            progress(name, done, total);
        }
    }

    /// Tells the notice callback, if any. Cost O(1) and the callback's.
    pub fn notice(&self, line: &str) {
        if let Some(notice) = self.notice {
            notice(line);
        }
    }
}

impl std::fmt::Debug for Hooks<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks")
            .field("cancel", &self.cancel)
            .field("stop", &self.stop)
            .field("progress", &self.progress.map(|_| "callback"))
            .field("notice", &self.notice.map(|_| "callback"))
            .field("record", &self.record.is_some())
            .finish()
    }
}
