//! `fibtree stress`: another program run once for each n of a range, each answer checked against
//! c(n, G), each run's time and memory measured and judged against the limits asked for, and the
//! n from which it goes wrong. The true values come from one run of the library over every n at
//! once (the modular engine for residues, the exact engine for exact values); the program's runs
//! are [`super::runner`]'s, made with the session's pool let go (this process then holds one
//! thread); a run that the limit on the user's processes may have failed is [`nproc`]'s to run
//! again; what the program prints (its form) is given, or found from its first answers
//! ([`forms`]); `--bisect`'s runs are [`bisect`]'s; the verdicts are [`verdict`]'s, the
//! report [`report`]'s (its stretches [`stretches`]', its fit of the time [`growth`]'s, fibtree's
//! own time [`library`]'s, its plot [`svg`]'s); the checks made before any run [`checks`]'.

mod bisect;
mod checks;
mod forms;
mod growth;
mod library;
mod nproc;
mod report;
mod stretches;
mod svg;
mod verdict;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use fibtree::{Hooks, Options, Param};

use super::args::StressArgs;
use super::output::{Output, distinct};
use super::runner::{Ending, Handling, Program, ProgramRun, run_all};
use super::session::{OutputForm, Session};
use crate::error::refused;
use crate::terms::flag;
use checks::{checked_program, keep};
use forms::{AnswerForm, Truth};
use nproc::{Next, ProcessLimit};
use report::{Made, Report, Spread};
use verdict::{Limits, Verdict, judge};

/// The runs of one `stress` command: the program, where its outputs are kept, the runs done.
struct Runs<'a> {
    program: Program,
    jobs: usize,
    keep: Option<&'a Path>,
    shell: bool,
    stop: &'a AtomicBool,
    /// Where what the programs leave running is killed, the children this process had before, which
    /// are not ([`run_all`]'s `sweep`).
    sweep: Option<Vec<i32>>,
    /// The limit on the user's processes, and the runs it may have failed.
    limit: ProcessLimit,
    done: Mutex<BTreeMap<u64, ProgramRun>>,
    /// The first error keeping a run's output, or the refusal where the process limit left no room
    /// for the runs (after which none starts).
    failed: Mutex<Option<crate::error::Error>>,
    /// Set where the process limit left no room for the runs.
    given_up: AtomicBool,
    total: u64,
}

impl Runs<'_> {
    /// Runs the program for each of `ns` not run yet (none once the runs were given up), reporting
    /// them to `hooks`' progress, `ok` saying whether a run's answer is right where the true values
    /// are known; the runs of `ns` afterwards.
    fn run(&self, ns: &[u64], hooks: Hooks, ok: Option<&dyn Fn(&ProgramRun) -> bool>) -> Vec<ProgramRun> {
        let todo: Vec<u64> = if self.given_up.load(Ordering::Relaxed) {
            Vec::new()
        } else {
            let done = self.done.lock().expect("never poisoned");
            // the runs start: the bar's rate is measured from here
            hooks.progress("runs", done.len() as u64, self.total.max(done.len() as u64));
            ns.iter().copied().filter(|n| !done.contains_key(n)).collect()
        };
        let mut record = |run: ProgramRun| -> Handling {
            if let Ending::NoProcess(why) = &run.ending {
                // no verdict on the program: the runs are given up, and the command refused
                let why = refused("CMD", format!("could not be run for n = {}: {why}", run.n));
                *self.failed.lock().expect("never poisoned") = Some(why);
                self.given_up.store(true, Ordering::Relaxed);
                return Handling::Stop;
            }
            match self.limit.next(&run, ok.map(|ok| ok(&run))) {
                Next::Again => return Handling::Alone,
                Next::Refuse(why) => {
                    *self.failed.lock().expect("never poisoned") = Some(why);
                    self.given_up.store(true, Ordering::Relaxed);
                    return Handling::Stop;
                }
                Next::Keep => {}
            }
            if let Some(dir) = self.keep
                && let Err(e) = keep(dir, &run, self.shell)
            {
                self.failed.lock().expect("never poisoned").get_or_insert(e);
            }
            let mut done = self.done.lock().expect("never poisoned");
            done.insert(run.n, run);
            hooks.progress("runs", done.len() as u64, self.total.max(done.len() as u64));
            Handling::Done
        };
        // the freed memory of the true values' count given back: each run begins as a copy of this
        // process's memory, which its peak is told apart from (see [`super::os::spawn_measured`])
        super::os::give_back_free_memory();
        run_all(&self.program, &todo, self.jobs, self.stop, self.sweep.as_deref(), &mut record);
        let done = self.done.lock().expect("never poisoned");
        ns.iter().filter_map(|n| done.get(n).cloned()).collect()
    }

    /// The error that ended the runs (the process limit), or the first error keeping an output.
    fn failure(&self) -> Option<crate::error::Error> {
        self.failed.lock().expect("never poisoned").take()
    }

    /// The runs of the form's `probes`, as [`Runs::run`]; an error where they were given up (the
    /// process limit), before anything is said of their answers.
    fn run_probes(&self, probes: &[u64], hooks: Hooks) -> crate::error::Result<Vec<ProgramRun>> {
        let runs = self.run(probes, hooks, None);
        match self.given_up.load(Ordering::Relaxed) {
            true => Err(self.failure().unwrap_or_else(|| refused("CMD", "no room"))),
            false => Ok(runs),
        }
    }

    /// Every run done.
    fn all(&self) -> Vec<ProgramRun> {
        self.done.lock().expect("never poisoned").values().cloned().collect()
    }
}

/// The runs of `--bisect`: its `spread` and the runs made already (the form's probes) first, then
/// its rounds, as many n at a time as `runs` makes ([`bisect::bisect`]); `right` says whether a
/// run's answer is right, `ok` whether its verdict is OK. Until the runs are stopped or given up.
fn bisection(
    runs: &Runs,
    ns: &[u64],
    spread: &Spread,
    hooks: Hooks,
    right: &dyn Fn(&ProgramRun) -> bool,
    ok: &dyn Fn(&ProgramRun) -> bool,
) {
    let made: Vec<u64> = runs.all().iter().map(|r| r.n).collect();
    let first: Vec<usize> = spread.ns.iter().chain(&made).filter_map(|n| ns.binary_search(n).ok()).collect();
    bisect::bisect(ns.len(), &first, runs.jobs, |batch| {
        let batch: Vec<u64> = batch.iter().map(|&i| ns[i]).collect();
        let ran = runs.run(&batch, hooks, Some(right));
        let ended = runs.stop.load(Ordering::Relaxed) || runs.given_up.load(Ordering::Relaxed);
        let judged = |r: &ProgramRun| (ns.binary_search(&r.n).expect("one of the n asked"), ok(r));
        (!ended).then(|| ran.iter().map(judged).collect())
    });
}

/// The library's options for the session's `hooks`: the engine and the memory limit asked for.
fn library_options<'h>(hooks: Hooks<'h>, args: &StressArgs) -> Options<'h> {
    Options { hooks, engine: args.run.engine, memory_limit: Some(args.run.memory_limit()), ..Options::default() }
}

/// The answers' form the options give (`--mod`, `--last-digits`, `--exact`), if any.
fn given_form(args: &StressArgs) -> Option<AnswerForm> {
    match (args.modulus, args.last_digits, args.exact) {
        (Some(m), ..) => Some(AnswerForm::Modulo(m)),
        (_, Some(d), _) => Some(AnswerForm::LastDigits(d)),
        (.., true) => Some(AnswerForm::Exact),
        _ => None,
    }
}

/// Before any run: the true values of every n of `ns` fit the memory, as a table of as many rows up
/// to the largest n would (the same floor, refused with the same figure).
fn check_the_floor(session: &Session, args: &StressArgs, ns: &[u64]) -> crate::error::Result<()> {
    if let (Some(&top), Ok(rows)) = (ns.iter().max(), u64::try_from(ns.len())) {
        let options = Options { memory_limit: Some(args.run.memory_limit()), ..Options::default() };
        fibtree::Counting::check_table_floor(top.saturating_sub(rows - 1), top, &options)
            .map_err(|e| session.error(e))?;
    }
    Ok(())
}

/// `--bisect`'s first runs: n spread over `ns` by its seed (`--seed`, else a fresh one).
fn spread_of(args: &StressArgs, ns: &[u64]) -> Option<Spread> {
    args.bisect.then(|| {
        let seed = args.seed.unwrap_or_else(fibtree_util::fresh_seed);
        Spread { seed, ns: bisect::spread(ns.len(), bisect::SPREAD, seed).into_iter().map(|i| ns[i]).collect() }
    })
}

/// The most runs of `asked` n the program can be given: all of them, or with `--bisect` the spread
/// and the bisection's rounds of `jobs` runs.
fn most_runs(spread: Option<&Spread>, jobs: usize, asked: usize) -> usize {
    match spread {
        Some(s) => (s.ns.len() + 2 * jobs * (asked / s.ns.len().max(1)).max(1).ilog2() as usize).min(asked),
        None => asked,
    }
}

/// The form of the program's answers: the one given, else the one its answers to probes show.
fn answer_form(
    session: &mut Session,
    args: &StressArgs,
    runs: &Runs,
    ns: &[u64],
) -> crate::error::Result<forms::Taken> {
    if let Some(form) = given_form(args) {
        return Ok(forms::Taken::given(form));
    }
    let g = args.g;
    let probes = session.stage(true, |hooks, _| forms::probes(ns, g, &library_options(hooks, args)))?;
    let at: Vec<u64> = probes.iter().map(|p| p.0).collect();
    let ran = match at.is_empty() {
        true => Vec::new(),
        false => session.stage(false, |hooks, _| runs.run_probes(&at, hooks))?,
    };
    Ok(forms::decide(g, &probes, &ran))
}

/// fibtree's own time for some of the n `judged`, in `form`, within `budget`.
fn own_times(
    session: &mut Session,
    args: &StressArgs,
    form: AnswerForm,
    judged: &[verdict::Judged],
    budget: Duration,
) -> crate::error::Result<library::OwnTimes> {
    let run: Vec<u64> = judged.iter().map(|j| j.n).collect();
    session.stage(true, |hooks, _| {
        let options = library_options(hooks, args);
        library::own_times(form, &run, args.g, &options, rayon::current_num_threads(), budget)
    })
}

/// The limits each run of the program is held to, as the arguments give them.
fn limits_of(args: &StressArgs) -> Limits {
    Limits {
        memory_bytes: args.memory_limit,
        time_seconds: args.time_limit.map(|t| t.as_secs_f64()),
        timeout_seconds: checks::timeout(args).as_secs_f64(),
    }
}

pub(super) fn stress(args: StressArgs) -> crate::error::Result<ExitCode> {
    let program = checked_program(&args)?;
    // the plot's file is checked before any run, so that a bad path fails at once
    distinct(&[("--output", args.run.output.output.as_deref()), ("--svg", args.svg.as_deref())])?;
    let svg = args.svg.as_deref().map(|path| Output::open(Some(path), "--svg")).transpose()?;
    let ns = args.ns.0.clone();
    // the library's N is one of the n asked for
    let stress_flags = |param| if param == Param::N { "--n" } else { flag(param) };
    let mut session =
        Session::new(args.run.output.output.as_deref(), args.run.threads.threads, !args.json)?.naming(stress_flags);
    check_the_floor(&session, &args, &ns)?;
    let stop = session.cancel_flag();
    // what the programs leave running, out of their groups too, is handed to this process to end
    // (not what it had before: a shell that ran `job & exec fibtree stress ...` left it `job`)
    let sweep = super::os::become_subreaper().is_ok().then(super::os::children);
    // the bar counts the runs, not the work of the true values counted before them
    session.count_runs("runs");
    let jobs = args.jobs.unwrap_or_else(fibtree::cores);
    let g = args.g;
    let spread = spread_of(&args, &ns);
    let total = most_runs(spread.as_ref(), jobs, ns.len());
    let runs = Runs {
        program,
        jobs,
        keep: args.keep_output.as_deref(),
        shell: !args.no_shell,
        stop: &stop,
        sweep,
        limit: ProcessLimit::of_this_process(),
        done: Mutex::new(BTreeMap::new()),
        failed: Mutex::new(None),
        given_up: AtomicBool::new(false),
        total: total as u64,
    };
    let taken = answer_form(&mut session, &args, &runs, &ns)?;
    let started = Instant::now();
    let truth = session.stage(true, |hooks, _| Truth::of(taken.form, &ns, g, &library_options(hooks, &args)))?;
    let budget = started.elapsed().max(Duration::from_secs(1));
    let limits = limits_of(&args);
    let judge_one = |run: &ProgramRun| judge(run, truth.of_n(run.n), !args.no_shell, &limits);
    // the answer alone, the limits aside
    let right = |run: &ProgramRun| judge_one(run).verdict_without_limits == Verdict::Ok;
    let ok = |run: &ProgramRun| judge_one(run).verdict == Verdict::Ok;
    session.stage(false, |hooks, _| {
        match &spread {
            Some(spread) => bisection(&runs, &ns, spread, hooks, &right, &ok),
            None => drop(runs.run(&ns, hooks, Some(&right))),
        }
        runs.failure().map_or(Ok(()), Err)
    })?;
    let judged: Vec<verdict::Judged> = runs.all().iter().map(judge_one).collect();
    // the form found, said where some run was judged in it: with none, nothing is claimed
    if taken.detected && !judged.is_empty() {
        crate::messages::note(&format!("auto: {}", taken.how));
    }
    // fibtree's own time for some of the n run, once the program's runs are done
    let own = match stop.load(Ordering::Relaxed) || judged.is_empty() {
        true => None,
        false => Some(own_times(&mut session, &args, taken.form, &judged, budget)?),
    };
    // stopped while the program ran, or while fibtree timed itself after
    let interrupted = stop.load(Ordering::Relaxed);
    let report = Report::new(&args, Made { form: taken, runs: judged, interrupted, limits, spread, own });
    if interrupted {
        // what was done is written all the same; a second signal still ends the process
        super::os::forget_signals();
    }
    if let Some(mut svg) = svg {
        svg.write_all(report.svg().as_bytes())?;
        svg.finish()?;
    }
    session.emit(&report, OutputForm::of(args.json, false))?;
    if interrupted {
        return Err(session.stopped());
    }
    Ok(if report.ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
