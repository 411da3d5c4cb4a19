//! `fibtree stress`: another program run once for each n of a range, each answer checked against
//! c(n, G), and the n from which it goes wrong. The true values come from one run of the library
//! over every n at once (the modular engine for residues, the exact engine for exact values); the
//! program's runs are [`super::runner`]'s; what the program prints (its form) is given, or found
//! from its first answers ([`super::forms`]); the verdicts and the report are [`report`]'s, the
//! checks made before any run [`checks`]'.

mod checks;
mod report;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use fibtree::{Hooks, Options, Param};

use super::args::StressArgs;
use super::forms::{self, AnswerForm, Truth};
use super::runner::{Ending, Program, ProgramRun, run_all};
use super::session::{OutputForm, Session};
use super::{flag, usage};
use checks::{checked_program, keep};
use report::{Judged, Report, Verdict, judge};

/// The runs of one `stress` command: the program, where its outputs are kept, the runs done.
struct Runs<'a> {
    program: Program,
    jobs: usize,
    keep: Option<&'a Path>,
    stop: &'a AtomicBool,
    /// Where what the programs leave running is killed, the children this process had before, which
    /// are not ([`run_all`]'s `sweep`).
    sweep: Option<Vec<i32>>,
    hooks: Hooks<'a>,
    done: Mutex<BTreeMap<u64, ProgramRun>>,
    /// The first error keeping a run's output, or the refusal where the process limit left no room
    /// for the runs (after which none starts).
    failed: Mutex<Option<anyhow::Error>>,
    /// Set where the process limit left no room for the runs.
    given_up: AtomicBool,
    total: u64,
}

impl Runs<'_> {
    /// Runs the program for each of `ns` not run yet (none once the runs were given up); the runs of
    /// `ns` afterwards.
    fn run(&self, ns: &[u64]) -> Vec<ProgramRun> {
        let todo: Vec<u64> = if self.given_up.load(Ordering::Relaxed) {
            Vec::new()
        } else {
            let done = self.done.lock().expect("never poisoned");
            // the runs start: the bar's rate is measured from here
            self.hooks.progress("runs", done.len() as u64, self.total.max(done.len() as u64));
            ns.iter().copied().filter(|n| !done.contains_key(n)).collect()
        };
        let mut record = |run: ProgramRun| {
            if let Ending::NoProcess(why) = &run.ending {
                // no verdict on the program: the runs are given up, and the command refused
                let why = usage("CMD", format!("could not be run for n = {}: {why}", run.n));
                *self.failed.lock().expect("never poisoned") = Some(why);
                self.given_up.store(true, Ordering::Relaxed);
                return;
            }
            if let Some(dir) = self.keep
                && let Err(e) = keep(dir, &run)
            {
                self.failed.lock().expect("never poisoned").get_or_insert(e);
            }
            let mut done = self.done.lock().expect("never poisoned");
            done.insert(run.n, run);
            self.hooks.progress("runs", done.len() as u64, self.total.max(done.len() as u64));
        };
        run_all(&self.program, &todo, self.jobs, self.stop, self.sweep.as_deref(), &mut record);
        let done = self.done.lock().expect("never poisoned");
        ns.iter().filter_map(|n| done.get(n).cloned()).collect()
    }

    /// The runs of the form's `probes`, as [`Runs::run`]; an error where they were given up (the
    /// process limit), before anything is said of their answers.
    fn run_probes(&self, probes: &[u64]) -> anyhow::Result<Vec<ProgramRun>> {
        let runs = self.run(probes);
        match self.given_up.load(Ordering::Relaxed) {
            true => Err(self.failed.lock().expect("never poisoned").take().unwrap_or_else(|| usage("CMD", "no room"))),
            false => Ok(runs),
        }
    }

    /// Every run done.
    fn all(&self) -> Vec<ProgramRun> {
        self.done.lock().expect("never poisoned").values().cloned().collect()
    }
}

pub(super) fn stress(args: StressArgs) -> anyhow::Result<ExitCode> {
    let program = checked_program(&args)?;
    let ns = args.ns.0.clone();
    let given = match (args.modulus, args.last_digits, args.exact) {
        (Some(m), ..) => Some(AnswerForm::Modulo(m)),
        (_, Some(d), _) => Some(AnswerForm::LastDigits(d)),
        (.., true) => Some(AnswerForm::Exact),
        _ => None,
    };
    // the library's N is one of the n asked for
    let stress_flags = |param| if param == Param::N { "--n" } else { flag(param) };
    let mut session =
        Session::new(args.run.output.output.as_deref(), args.run.threads.threads, !args.json)?.naming(stress_flags);
    // before any run: the true values of every n asked for fit the memory, as a table of as many rows
    // up to the largest n would (the same floor, refused with the same figure)
    if let (Some(&top), Ok(rows)) = (ns.iter().max(), u64::try_from(ns.len())) {
        let options = Options { memory_limit: Some(args.run.memory_limit()), ..Options::default() };
        fibtree::check_table_floor(top.saturating_sub(rows - 1), top, &options).map_err(|e| session.error(e))?;
    }
    let stop = session.cancel_flag();
    // what the programs leave running, out of their groups too, is handed to this process to end
    // (not what it had before: a shell that ran `job & exec fibtree stress ...` left it `job`)
    let sweep = super::os::become_subreaper().is_ok().then(super::os::children);
    // the bar counts the runs, not the work of the true values counted before them
    session.count_runs("runs");
    let jobs = args.jobs.unwrap_or_else(fibtree::cores);
    let (engine, memory_limit) = (args.run.engine, Some(args.run.memory_limit()));
    let total = if args.bisect { ns.len().max(2).ilog2() as u64 + 3 } else { ns.len() as u64 };
    let (taken, judged) = session.compute(|hooks, _| {
        let options = Options { hooks, engine, memory_limit, ..Options::default() };
        let runs = Runs {
            program,
            jobs,
            keep: args.keep_output.as_deref(),
            stop: &stop,
            sweep,
            hooks,
            done: Mutex::new(BTreeMap::new()),
            failed: Mutex::new(None),
            given_up: AtomicBool::new(false),
            total,
        };
        let taken = match given {
            Some(form) => forms::Taken::given(form),
            None => forms::detect(&ns, args.g, &options, |probes| runs.run_probes(probes))?,
        };
        let truth = Truth::of(taken.form, &ns, args.g, &options)?;
        let judge_one = |run: &ProgramRun| judge(run, truth.of_n(run.n), !args.no_shell);
        if args.bisect {
            let known: Vec<u64> = runs.all().iter().map(|r| r.n).collect();
            bisect(&ns, &known, |n| runs.run(&[n]).first().map(judge_one));
        } else {
            runs.run(&ns);
        }
        if let Some(e) = runs.failed.lock().expect("never poisoned").take() {
            return Err(e);
        }
        Ok((taken, runs.all().iter().map(judge_one).collect::<Vec<_>>()))
    })?;
    let interrupted = stop.load(Ordering::Relaxed);
    let report = Report::new(&args, taken, judged, interrupted);
    if interrupted {
        // what was done is written all the same; a second signal still ends the process
        super::os::forget_signals();
    }
    session.emit(&report, OutputForm::of(args.json, false))?;
    if interrupted {
        return Err(session.stopped());
    }
    Ok(if report.ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// The first n of `ns` (ascending) whose run is not OK, assuming every run is OK before it and none
/// after; `known` are the n already run (as the probes of the form), whose verdicts bound it first,
/// then the ends, then halves. `judge(n)` runs the program for n, or gives the verdict of a run
/// done (`None` once stopped). Runs about log2(ns.len()) + 2 times.
fn bisect(ns: &[u64], known: &[u64], judge: impl Fn(u64) -> Option<Judged>) -> Option<u64> {
    let ok = |i: usize| judge(ns[i]).map(|j| j.verdict == Verdict::Ok);
    let mut known: Vec<usize> = known.iter().filter_map(|n| ns.binary_search(n).ok()).collect();
    known.sort_unstable();
    // the smallest n known wrong, else the last if it is wrong
    let mut wrong = None;
    for &i in &known {
        if !ok(i)? {
            wrong = Some(i);
            break;
        }
    }
    let wrong = match wrong {
        Some(i) => i,
        None if ok(ns.len().checked_sub(1)?)? => return None,
        None => ns.len() - 1,
    };
    // the largest n known right below it, else the first if it is right
    let right = match known.iter().copied().filter(|&i| i < wrong).max() {
        Some(i) => i,
        None if wrong > 0 && ok(0)? => 0,
        None => return Some(ns[0]),
    };
    let (mut right, mut wrong) = (right, wrong);
    while wrong - right > 1 {
        let mid = right + (wrong - right) / 2;
        if ok(mid)? {
            right = mid;
        } else {
            wrong = mid;
        }
    }
    Some(ns[wrong])
}

#[cfg(test)]
mod tests {
    use super::report::tests::judged;
    use super::*;

    #[test]
    fn bisection_finds_the_first_wrong_n_in_few_runs() {
        let ns: Vec<u64> = (1..=20000).collect();
        for first_wrong in [1, 2, 777, 10001, 19999, 20000, 20001] {
            for known in [&[][..], &[90, 91, 92], &[15000]] {
                let calls = std::cell::RefCell::new(std::collections::BTreeSet::new());
                let judge = |n: u64| {
                    calls.borrow_mut().insert(n);
                    Some(judged(n, if n < first_wrong { Verdict::Ok } else { Verdict::Mismatch }))
                };
                let found = bisect(&ns, known, judge);
                assert_eq!(found, (first_wrong <= 20000).then_some(first_wrong), "{known:?}");
                let runs = calls.borrow().iter().filter(|n| !known.contains(n)).count();
                assert!(runs <= 17, "{first_wrong}, {known:?}: {runs} runs");
            }
        }
        // a run known wrong bounds the search: no other run above it
        let judge = |n: u64| Some(judged(n, if (50..=100).contains(&n) { Verdict::Crash } else { Verdict::Ok }));
        assert_eq!(bisect(&ns, &[20, 60], judge), Some(50));
        assert_eq!(bisect(&[7], &[], |n| Some(judged(n, Verdict::Timeout))), Some(7));
        assert_eq!(bisect(&[7], &[], |n| Some(judged(n, Verdict::Ok))), None);
        assert_eq!(bisect(&ns, &[], |_| None), None);
    }
}
