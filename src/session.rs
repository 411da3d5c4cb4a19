//! What every command runs with: one [`Session`] holds the output, the thread pool, the signals that
//! stop a run and the progress bar, and writes a command's typed result ([`Outcome`]) in the form
//! asked for.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use fibtree::{Error, Hooks, Param};
use serde::Serialize;

use super::output::Output;
use super::progress::WeightedBar;
use crate::terms::{flag, in_terms};

/// The form of a command's result: for people, numbers only (`-q`), or one JSON object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum OutputForm {
    Human,
    Quiet,
    Json,
}

impl OutputForm {
    /// The form `--json` and `-q` ask for (clap makes them exclusive where both exist).
    pub(super) fn of(json: bool, quiet: bool) -> OutputForm {
        match (json, quiet) {
            (true, _) => OutputForm::Json,
            (false, true) => OutputForm::Quiet,
            (false, false) => OutputForm::Human,
        }
    }
}

/// A command's result: its JSON form comes from `Serialize` (the fields of each result type are in
/// alphabetical order, the order of the keys in the JSON), its other forms from these writers.
pub(super) trait Outcome: Serialize {
    /// The form for people.
    fn human(&self, out: &mut dyn Write) -> std::io::Result<()>;

    /// The numbers-only form of `-q`; the human form where a command has no other.
    fn quiet(&self, out: &mut dyn Write) -> std::io::Result<()> {
        self.human(out)
    }
}

/// What a command runs with: its output (opened before any work, so that a bad `--output` fails at
/// once), its thread pool, the signal flags, the progress bar, and the names its errors give the
/// library's parameters.
pub(super) struct Session {
    threads: usize,
    pool: Option<Pool>,
    /// Whether threads that cannot be started are a refusal, not a warning (see [`Pool::start`]).
    strict: bool,
    signals: Signals,
    progress: WeightedBar,
    out: Output,
    start: Instant,
    flags: fn(Param) -> &'static str,
}

impl Session {
    /// A session writing to `output` (standard output if `None`), computing on `threads` threads
    /// (every core if `None`), with a progress bar on a terminal if `progress` and the process is not
    /// quiet (`-q`).
    ///
    /// # Errors
    /// A usage error naming `--output` for a file that cannot be written; an error if the signal
    /// handlers cannot be installed.
    pub(super) fn new(output: Option<&Path>, threads: Option<usize>, progress: bool) -> crate::error::Result<Session> {
        // the handlers first: opening the output probes its folder with a temporary file, which a
        // signal's default action would leave behind
        let signals = Signals::install()?;
        let out = Output::open(output, "--output")?;
        let threads = threads.unwrap_or_else(fibtree::cores);
        Ok(Session {
            threads,
            pool: None,
            strict: false,
            signals,
            progress: WeightedBar::new(progress && !crate::messages::quiet()),
            out,
            start: Instant::now(),
            flags: flag,
        })
    }

    /// This session, naming the library's parameters with `flags` in its errors.
    pub(super) fn naming(self, flags: fn(Param) -> &'static str) -> Session {
        Session { flags, ..self }
    }

    /// This session, refusing (exit 2, naming `--threads`) threads it cannot start, where a command
    /// must have them (`bench`, whose threads are what it measures), rather than computing on one.
    pub(super) fn requiring_threads(self) -> Session {
        Session { strict: true, ..self }
    }

    /// Names the engine runs the session's work will report, in order, so that its progress bar
    /// covers them all from the start (see [`WeightedBar::expect`]).
    pub(super) fn expect_runs(&self, runs: &[&str]) {
        self.progress.expect(runs);
    }

    /// Makes the session's progress bar count the runs its work reports as `name`, done of those
    /// asked (see [`WeightedBar::count`]).
    pub(super) fn count_runs(&self, name: &str) {
        self.progress.count(name);
    }

    /// The worker threads of the session's pool.
    pub(super) fn threads(&self) -> usize {
        self.threads
    }

    /// Seconds since the session began.
    pub(super) fn seconds(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    /// The signals' cancel flag, for the hooks of work done outside [`Session::compute`] (shared,
    /// so that those hooks do not borrow the session).
    pub(super) fn cancel_flag(&self) -> Arc<AtomicBool> {
        self.signals.cancel.clone()
    }

    /// A library error in the command line's terms: an interruption becomes a [`crate::error::Error::Stopped`] error
    /// carrying the signal's exit status, a refusal names the session's flag for its parameter.
    pub(super) fn error(&self, e: impl Into<crate::error::Error>) -> crate::error::Error {
        match e.into() {
            crate::error::Error::Library(Error::Interrupted) => {
                let unwritten = self.out.file().map(|p| p.display().to_string());
                crate::error::Error::stopped_by(self.signals.signal(), unwritten)
            }
            e => in_terms(e, self.flags),
        }
    }

    /// The error of a run that a signal stopped after it wrote what it had done: the signal's exit
    /// status, and no output left unwritten.
    pub(super) fn stopped(&self) -> crate::error::Error {
        crate::error::Error::stopped_by(self.signals.signal(), None)
    }

    /// Runs `work` in the session's pool with its hooks (the signals, the progress bar, notices on
    /// standard error) and its output; errors as [`Session::error`] says (an unfinished output file
    /// is removed when the session is dropped).
    pub(super) fn compute<T: Send>(
        &mut self,
        work: impl FnOnce(Hooks, &mut Output) -> crate::error::Result<T> + Send,
    ) -> crate::error::Result<T> {
        let result = self.stage(true, work);
        self.progress.finish();
        result
    }

    /// Runs `work` as [`Session::compute`] does, as one stage of a command's work, the progress bar
    /// left for the next ([`Session::finish`] removes it, and so does an error): in the session's
    /// pool where `pooled`, else on the calling thread with the pool let go, its threads ending (a
    /// command that runs other programs holds no more threads than it needs while they run, under
    /// a limit on the user's processes that counts threads).
    pub(super) fn stage<T: Send>(
        &mut self,
        pooled: bool,
        work: impl FnOnce(Hooks, &mut Output) -> crate::error::Result<T> + Send,
    ) -> crate::error::Result<T> {
        let pool = if pooled { Some(self.take_pool()?) } else { self.pool.take().and(None) };
        let progress = &self.progress;
        let update = |stage: &str, done: u64, total: u64| progress.update(stage, done, total);
        let notice = |line: &str| crate::messages::say(line);
        let hooks = Hooks::default().cancel_on(&self.signals.cancel).progress_to(&update).notices_to(&notice);
        let out = &mut self.out;
        let result = match &pool {
            Some(pool) => pool.install(|| work(hooks, out)),
            None => work(hooks, out),
        };
        if result.is_err() {
            self.progress.finish();
        }
        self.pool = pool;
        result.map_err(|e| self.error(e))
    }

    /// Runs `work` in the session's pool, with no hooks of the session's (for work that brings its
    /// own), its errors as [`Session::error`] says.
    pub(super) fn in_pool<T: Send>(
        &mut self,
        work: impl FnOnce() -> fibtree::Result<T> + Send,
    ) -> crate::error::Result<T> {
        let pool = self.take_pool()?;
        let result = pool.install(work);
        self.pool = Some(pool);
        result.map_err(|e| self.error(e))
    }

    /// The session's pool, started on first use (see [`Pool::start`]); the session's threads are
    /// then those it has.
    fn take_pool(&mut self) -> crate::error::Result<Pool> {
        let pool = match self.pool.take() {
            Some(pool) => pool,
            None => Pool::start(self.threads, self.strict)?,
        };
        self.threads = pool.threads();
        Ok(pool)
    }

    /// The output, for a command that streams its result.
    pub(super) fn out(&mut self) -> &mut Output {
        &mut self.out
    }

    /// Writes `outcome` in `form` and completes the output (a file is renamed into place).
    ///
    /// # Errors
    /// Any I/O error.
    pub(super) fn emit(&mut self, outcome: &impl Outcome, form: OutputForm) -> crate::error::Result<()> {
        // the bar cleared first, so that no report is written onto the end of its line
        self.progress.finish();
        match form {
            OutputForm::Json => {
                serde_json::to_writer(&mut self.out, outcome)?;
                writeln!(self.out)?;
            }
            OutputForm::Quiet => outcome.quiet(&mut self.out)?,
            OutputForm::Human => outcome.human(&mut self.out)?,
        }
        self.finish()
    }

    /// Writes `outcome` for people on standard error, and nothing where the results go (standard
    /// output or the file, which is not made): what a run whose value failed a check gives, so that
    /// no wrong value reaches a reader of the results.
    ///
    /// # Errors
    /// Any I/O error but a closed standard error.
    pub(super) fn emit_failed(&mut self, outcome: &impl Outcome) -> crate::error::Result<()> {
        let mut text = Vec::new();
        outcome.human(&mut text)?;
        String::from_utf8_lossy(&text).lines().for_each(crate::messages::say);
        Ok(())
    }

    /// Writes `outcome` in `form` as [`Session::emit`] does, and gives the exit status `status` of
    /// what it says (a verdict, known before it is written), also where a reader closed the output
    /// pipe early: what was found is not lost with the lines no one read.
    ///
    /// # Errors
    /// Any I/O error but a closed pipe.
    pub(super) fn emit_verdict(
        &mut self,
        outcome: &impl Outcome,
        form: OutputForm,
        status: std::process::ExitCode,
    ) -> crate::error::Result<std::process::ExitCode> {
        match self.emit(outcome, form) {
            Err(e) if !e.is_broken_pipe() => Err(e),
            _ => Ok(status),
        }
    }

    /// Completes the output: flushes standard output, or renames the file into place; unless a
    /// signal came since the work last looked at its flags (a command that writes what it did
    /// after one forgets it first, [`super::os::forget_signals`]): the file is then not put in
    /// place.
    ///
    /// # Errors
    /// Any I/O error; the signal's [`crate::error::Error::Stopped`] error where one came.
    pub(super) fn finish(&mut self) -> crate::error::Result<()> {
        self.finish_unless(super::os::signalled())
    }

    /// [`Session::finish`], where `signal` is the signal that came, if one did.
    fn finish_unless(&mut self, signal: Option<i32>) -> crate::error::Result<()> {
        self.progress.finish();
        if signal.is_some() {
            return Err(self.error(Error::Interrupted));
        }
        Ok(self.out.finish()?)
    }
}

/// What a command's `result` ends the process with where `signal` came (the first of SIGINT,
/// SIGTERM and SIGHUP, if any, not forgotten): a signal that came after the command last looked at
/// its flags (while its output was put in place, or after) still ends the process with the
/// signal's exit status. An error stays as it is (a stopped one has the status already).
pub(super) fn with_late_signal(
    result: crate::error::Result<ExitCode>,
    signal: Option<i32>,
) -> crate::error::Result<ExitCode> {
    match (result, signal) {
        (Ok(_), Some(signal)) => Err(crate::error::Error::stopped_by(signal, None)),
        (result, _) => result,
    }
}

/// Where a session's work runs: a pool of worker threads, or the calling thread alone (which
/// [`calling_thread_as_global_pool`] made the one worker of rayon's global pool).
enum Pool {
    Threads(rayon::ThreadPool),
    Calling,
}

impl Pool {
    /// A pool of `threads` threads; for one thread, the calling thread itself (no thread started).
    /// Where not all of them can be started (a limit on the user's processes, which counts
    /// threads), those that could, or the calling thread alone where that is one or none, with a
    /// warning on standard error saying why, unless `strict`.
    ///
    /// # Errors
    /// A usage error naming `--threads` where the threads cannot be started and `strict` is set,
    /// or the calling thread is not a pool of its own (when [`calling_thread_as_global_pool`] did
    /// not run first).
    fn start(threads: usize, strict: bool) -> crate::error::Result<Pool> {
        let calling = rayon::current_thread_index().is_some() && rayon::current_num_threads() == 1;
        if threads == 1 && calling {
            return Ok(Pool::Calling);
        }
        let (started, failed) = Started::up_to(threads);
        let Some(e) = failed else { return Ok(Pool::Threads(started.pool()?)) };
        if strict || !calling {
            return Err(crate::error::refused("--threads", super::os::threads_not_started(threads, &e)));
        }
        let why = super::os::threads_not_started(threads, &e);
        if started.0.len() < 2 {
            crate::messages::say(&format!("warning: {why}: computing on one thread"));
            return Ok(Pool::Calling);
        }
        crate::messages::say(&format!("warning: {why}: computing on the {} it started", started.0.len()));
        Ok(Pool::Threads(started.pool()?))
    }

    /// The threads that run the work.
    fn threads(&self) -> usize {
        match self {
            Pool::Threads(pool) => pool.current_num_threads(),
            Pool::Calling => 1,
        }
    }

    /// Runs `work` in the pool.
    fn install<T: Send>(&self, work: impl FnOnce() -> T + Send) -> T {
        match self {
            Pool::Threads(pool) => pool.install(work),
            Pool::Calling => work(),
        }
    }
}

/// Threads started and waiting to become the workers of a pool ([`Started::pool`]); those that do
/// not end when it is dropped. Started before the pool, one at a time, so that a limit on the
/// user's processes leaves a pool of those that could start, not of none (a pool that fails to
/// start stops its threads, which still count against the limit while they end).
struct Started(Vec<std::sync::mpsc::Sender<rayon::ThreadBuilder>>);

impl Started {
    /// Up to `threads` threads, started until one cannot be, and why it could not. Cost: those
    /// threads started.
    fn up_to(threads: usize) -> (Started, Option<std::io::Error>) {
        let mut started = Vec::with_capacity(threads);
        for _ in 0..threads {
            let (give, take) = std::sync::mpsc::channel::<rayon::ThreadBuilder>();
            // a worker once its pool hands it over; else it ends when the sender goes
            match std::thread::Builder::new().spawn(move || take.recv().map_or((), rayon::ThreadBuilder::run)) {
                Ok(_) => started.push(give),
                Err(e) => return (Started(started), Some(e)),
            }
        }
        (Started(started), None)
    }

    /// A pool whose workers are these threads.
    ///
    /// # Errors
    /// rayon's, where a thread ended before its pool was made (none does).
    fn pool(self) -> crate::error::Result<rayon::ThreadPool> {
        let threads = self.0.len();
        let mut waiting = self.0.into_iter();
        let handed = move |worker: rayon::ThreadBuilder| {
            let give = waiting.next().ok_or_else(|| std::io::Error::other("no thread left for the pool"))?;
            give.send(worker).map_err(|_| std::io::Error::other("a thread of the pool ended before it"))
        };
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .spawn_handler(handed)
            .build()
            .map_err(crate::error::Error::failed)
    }
}

/// Makes the calling thread the one worker of rayon's global pool, which then starts no thread of
/// its own: what runs outside a session's pool runs on the calling thread, and a session that asks
/// for one thread, or cannot start those it asks for, computes on it. Nothing then finds the global
/// pool uninitialised because its threads could not start (which panics in rayon). Called once, on
/// the main thread, before anything computes; no other thread may use the global pool after it
/// (none does: the threads of `stress`'s runs only run programs). Cost: no thread started.
pub(super) fn calling_thread_as_global_pool() {
    // an error (the global pool made already) leaves the pool as it was: sessions start their own
    let _ = rayon::ThreadPoolBuilder::new().num_threads(1).use_current_thread().build_global();
}

/// The flags that SIGINT, SIGTERM and SIGHUP set: the first stops the run after its current layer
/// (saving its checkpoint, if it has one, and releasing its lock); a second one of any of them ends
/// the process at once, and so does the first while the process waits to write its output (a
/// reader that does not read, a FIFO with no reader). SIGHUP (a closed terminal, a killed session) stops a run as SIGTERM does, so that a long
/// count started from a terminal that goes away still saves its checkpoint.
struct Signals {
    /// Set by any of the signals: the engines stop at the next layer.
    cancel: Arc<AtomicBool>,
    term: Arc<AtomicBool>,
    hup: Arc<AtomicBool>,
}

impl Signals {
    /// Installs the handlers.
    ///
    /// # Errors
    /// If the handlers cannot be installed.
    fn install() -> crate::error::Result<Signals> {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let cancel = Arc::new(AtomicBool::new(false));
        let term = Arc::new(AtomicBool::new(false));
        let hup = Arc::new(AtomicBool::new(false));
        for (signal, status) in [(SIGINT, 130), (SIGTERM, 143), (SIGHUP, 129)] {
            // the second signal ends the process: registered before the flag the first one sets
            signal_hook::flag::register_conditional_shutdown(signal, status, cancel.clone())?;
            super::os::end_blocked_writes_on(signal)?;
        }
        signal_hook::flag::register(SIGINT, cancel.clone())?;
        signal_hook::flag::register(SIGTERM, cancel.clone())?;
        signal_hook::flag::register(SIGTERM, term.clone())?;
        signal_hook::flag::register(SIGHUP, cancel.clone())?;
        signal_hook::flag::register(SIGHUP, hup.clone())?;
        Ok(Signals { cancel, term, hup })
    }

    /// The signal that stopped the run: SIGTERM if it came, else SIGHUP, else SIGINT.
    fn signal(&self) -> i32 {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        if self.term.load(Ordering::Relaxed) {
            SIGTERM
        } else if self.hup.load(Ordering::Relaxed) {
            SIGHUP
        } else {
            SIGINT
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use signal_hook::consts::{SIGINT, SIGTERM};

    /// A signal that came once the work was done: the output is not put in place, the file is not
    /// left behind, and the run ends with the signal's status; with none, the file is in place.
    #[test]
    fn a_late_signal_leaves_no_file_and_its_status() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("out.txt");
        let mut session = Session::new(Some(&path), Some(1), false).unwrap();
        writeln!(session.out(), "a result").unwrap();
        let stopped = session.finish_unless(Some(SIGINT)).unwrap_err();
        assert_eq!(crate::error::Error::exit_status(&stopped), 130);
        assert!(stopped.to_string().contains("was not written"), "{stopped}");
        drop(session);
        assert_eq!(std::fs::read_dir(folder.path()).unwrap().count(), 0, "nothing left");
        let mut session = Session::new(Some(&path), Some(1), false).unwrap();
        writeln!(session.out(), "a result").unwrap();
        session.finish_unless(None).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a result\n");
    }

    /// A command that ends as if no signal came, where one did (after its output was put in place),
    /// ends with the signal's status; an error keeps its own.
    #[test]
    fn a_signal_after_the_work_ends_with_its_status() {
        let status = |result: crate::error::Result<ExitCode>| match result {
            Ok(code) => format!("{code:?}"),
            Err(e) => crate::error::Error::exit_status(&e).to_string(),
        };
        assert_eq!(status(with_late_signal(Ok(ExitCode::SUCCESS), Some(SIGINT))), "130");
        assert_eq!(status(with_late_signal(Ok(ExitCode::from(1)), Some(SIGTERM))), "143");
        assert_eq!(status(with_late_signal(Ok(ExitCode::SUCCESS), None)), format!("{:?}", ExitCode::SUCCESS));
        let refusal = with_late_signal(Err(crate::error::refused("--g", "a whole number")), Some(SIGINT));
        assert_eq!(status(refusal), "2");
    }
}
