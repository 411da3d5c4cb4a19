//! Benchmarking the exact engine: the time of f(n) = c(n, 0) for given n and thread counts, every run
//! checked, and the throughput in 64-bit limb additions per nanosecond.
//!
//! A [`Subject`] holds what is made once per n and never timed: the plan of (n, 0), its limb work
//! ([`Subject::limb_additions`]) and the residues of f(n) modulo 10^18 and 998244353 by the modular engine.
//! [`Subject::measure`] then times the exact engine alone, in a rayon pool of exactly T threads, R
//! times, and checks each run's value against those residues and against the first run's value.
//! Each run records its task graph (the `graph` module: two thread-clock reads and a lock per task,
//! a fixed cost against a task's work, which grows with the states and lanes of its layers), and
//! the measurement keeps the figures of the median run's graph: its work, span, parallelism and the
//! time a greedy scheduler would take on 1 to 128 workers.
//!
//! [`Stream`] measures the yardstick: the rate of a plain streaming add `a[i] = b[i] + c[i]` over
//! `u64` words on one core (the limb addition's word operation alone), in L2, in L3 and from
//! memory, sized by the [`Caches`] the operating system reports; `fibtree bench` states the
//! engine's rate as a fraction of the rate in L2.
//!
use std::sync::Arc;

use fibtree::timing::Summary;
use fibtree::{Error, Halves, Hooks, Options, Param, Result};
use num_bigint::BigUint;
use num_traits::ToPrimitive;

pub(crate) use super::stream::{Caches, Level, Stream};
use crate::args::MAX_BENCH_RUNS;

/// The values of n measured when none is given.
pub const DEFAULT_N: [u64; 3] = [5_000, 10_000, 20_000];

/// The CPU model and cores of the machine a benchmark ran on, as it reports them (the machine the
/// engines compute for is [`fibtree::Machine`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Host {
    /// The CPU model ("model name" of `/proc/cpuinfo`), where it can be read.
    pub cpu: Option<String>,
    /// The cores this process may use ([`fibtree::cores`]).
    pub cores: usize,
}

impl Host {
    /// Reads the CPU model and the core count. Cost: one read of `/proc/cpuinfo`.
    pub fn detect() -> Host {
        let cpu = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|info| {
            let line = info.lines().find(|l| l.starts_with("model name"))?;
            let model = line.split_once(':')?.1.trim();
            (!model.is_empty()).then(|| model.to_string())
        });
        Host { cpu, cores: fibtree::cores() }
    }
}

/// The thread counts measured when none is given: 1, 2, 4, 8, ... up to `cores`, then `cores` itself
/// if it is not a power of two. Cost O(log cores).
pub fn default_threads(cores: usize) -> Vec<usize> {
    let cores = cores.max(1);
    let mut threads: Vec<usize> =
        std::iter::successors(Some(1usize), |t| t.checked_mul(2)).take_while(|&t| t <= cores).collect();
    if !cores.is_power_of_two() {
        threads.push(cores);
    }
    threads
}

/// The median of `values` (the mean of the two middle ones for an even count; 0 for none).
/// Cost O(v log v).
pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => 0.0,
        len if len % 2 == 1 => sorted[len / 2],
        len => (sorted[len / 2 - 1] + sorted[len / 2]) / 2.0,
    }
}

/// The timed runs of f(n) with one thread count, all checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// The tree T(n).
    pub n: u64,
    /// The rayon pool's thread count.
    pub threads: usize,
    /// The seconds of each run, in the order run: the exact engine alone.
    pub seconds: Vec<f64>,
    /// The plan's limb additions ([`Subject::limb_additions`]).
    pub limb_additions: u128,
    /// The task graph of the median run (for an even count of runs, the slower of the two middle
    /// ones), as the `graph` module sums it up: cut for this thread count, whatever the cores.
    pub graph: Summary,
}

impl Measurement {
    /// The median of the runs' seconds.
    pub fn median_seconds(&self) -> f64 {
        median(&self.seconds)
    }

    /// The fastest run's seconds.
    pub fn min_seconds(&self) -> f64 {
        self.seconds.iter().copied().fold(f64::INFINITY, f64::min)
    }

    /// The slowest run's seconds.
    pub fn max_seconds(&self) -> f64 {
        self.seconds.iter().copied().fold(0.0, f64::max)
    }

    /// The median speedup over `one`, the measurement of the same n with one thread:
    /// `one.median / self.median`.
    pub fn speedup_over(&self, one: &Measurement) -> f64 {
        one.median_seconds() / self.median_seconds()
    }

    /// Limb additions per nanosecond at the median time.
    pub fn limb_additions_per_ns(&self) -> f64 {
        self.limb_additions as f64 / (self.median_seconds() * 1e9)
    }
}

/// What each worker thread of a measurement's pool runs once before the runs: see
/// [`Subject::on_each_worker`].
pub type WorkerStart = Arc<dyn Fn(usize) + Send + Sync>;

/// What is measured for one n, made once and never timed: the library's [`fibtree::timing::Subject`]
/// (the plan of (n, 0), its limb work and the independent residues of f(n)); and the first run's
/// value, which every later run must equal.
pub struct Subject {
    subject: fibtree::timing::Subject,
    /// The residues every run is checked against (the subject's, unless a test perturbs one).
    residues: [(u64, u64); 2],
    first: Option<(BigUint, usize)>,
    /// What each worker of a measurement's pool runs before the runs (`None`: nothing).
    worker_start: Option<WorkerStart>,
}

impl Subject {
    /// Plans (n, 0) and computes f(n) modulo 10^18 and 998244353 with the modular engine, in the
    /// current rayon pool, as [`fibtree::timing::Subject::new`] does with `options` (the cut, the
    /// memory limit, the hooks, the lanes a chunk and the tiles).
    ///
    /// Cost: the plan's backward pass (O(n x W / 64) word operations) and the modular engine over its
    /// windows, for each of two moduli (11.8 million lane operations a modulus at n = 10000); memory
    /// the plan, kept until the subject is dropped.
    ///
    /// # Errors
    /// As [`fibtree::timing::Subject::new`].
    pub fn new(n: u64, options: &Options) -> Result<Subject> {
        let subject = fibtree::timing::Subject::new(n, options)?;
        let residues = subject.residues();
        Ok(Subject { subject, residues, first: None, worker_start: None })
    }

    /// The bytes the process holds while this subject is kept and no run is timed: what a
    /// measurement beside it, such as [`Stream::measure`], counts as held. Cost O(n).
    pub fn held_bytes(&self) -> u64 {
        self.subject.held_bytes()
    }

    /// The plan's states.
    pub fn states(&self) -> u64 {
        self.subject.states()
    }

    /// The 64-bit limb additions of the route measured ([`fibtree::timing::Subject::limb_additions`]):
    /// the work unit of [`Measurement::limb_additions_per_ns`]. Cost O(1).
    pub fn limb_additions(&self) -> u128 {
        self.subject.limb_additions()
    }

    /// The route measured: where it is cut, and the work of each half.
    pub fn halves(&self) -> Halves {
        self.subject.halves()
    }

    /// Has `start(i)` run on each worker thread of every later measurement's pool, `i` from 0 to its
    /// threads less one, after the pool starts and before its first run (untimed): each call on a
    /// worker of its own and all of them at once, so that a call may wait for the others (a
    /// [`std::sync::Barrier`] of the pool's threads), and all of them returned before any run.
    /// What `fibtree bench --pin` pins each worker to a core of its own with: the pool is made in
    /// [`Subject::measure`], so its threads are reached only from there. `None`: nothing (the
    /// default). Cost O(1); each measurement then one call on each worker.
    pub fn on_each_worker(&mut self, start: Option<WorkerStart>) {
        self.worker_start = start;
    }

    /// `(modulus, residue)` of f(n) by the modular engine, for each of [`fibtree::timing::MODULI`].
    pub fn residues(&self) -> [(u64, u64); 2] {
        self.residues
    }

    /// Adds 1 to the residue of `modulus` that the runs are checked against, so that every run
    /// fails its check: how a test (or `bench --test-perturb`) sees the check bite without a real
    /// bug. Cost O(1).
    #[cfg(any(test, feature = "test-hooks"))]
    pub fn perturb(&mut self, modulus: u64) {
        for (m, r) in &mut self.residues {
            if *m == modulus {
                *r = (*r + 1) % *m;
            }
        }
    }

    /// Runs the blocked exact engine `runs` times in a new rayon pool of exactly
    /// `threads` threads, timing each run (the engine alone), and checks every value against the
    /// residues and against the first value this subject saw (with any thread count). Calls
    /// `on_run(run, seconds)` after each run (`run` from 1), and before the runs what
    /// [`Subject::on_each_worker`] set, on each worker.
    ///
    /// Cost: `runs` exact runs, O(plan states x limbs(n)) limb additions each
    /// ([`Subject::limb_additions`]); then a run's recorded task graph summed up (8 schedules of it,
    /// O(tasks log tasks), not timed); memory the exact engine's layers for `threads` threads plus
    /// two values of limbs(n) words and one run's task graph (a few MB), estimated and checked
    /// against the limit before the pool starts any run.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming [`Param::Threads`] for 0 threads (the runs are held from 1
    /// to [`MAX_BENCH_RUNS`], as `--runs` parses them), or when the pool cannot be started (the process limit); [`Error::OutOfMemory`] naming [`Param::N`]; [`Error::CrossCheck`] when a value disagrees
    /// with a residue; [`Error::RunsDisagree`] when two runs give different values;
    /// [`Error::Interrupted`] when `hooks.cancel` is set.
    pub fn measure(
        &mut self,
        threads: usize,
        runs: usize,
        hooks: Hooks,
        mut on_run: impl FnMut(usize, f64),
    ) -> Result<Measurement> {
        if threads == 0 {
            return Err(Error::invalid(Param::Threads, "expected at least 1 thread, got 0"));
        }
        // the parser of `--runs` keeps them from 1 to MAX_BENCH_RUNS
        let runs = runs.clamp(1, MAX_BENCH_RUNS);
        let pool = pool(threads)?;
        let n = self.subject.n();
        // the memory of a run in this pool, checked before any run
        pool.install(|| self.subject.fits())?;
        if let Some(start) = &self.worker_start {
            // every worker runs its own call, so that one may wait for the others
            pool.broadcast(|worker| start(worker.index()));
        }
        let mut seconds = Vec::with_capacity(runs);
        let mut graphs = Vec::with_capacity(runs);
        for run in 1..=runs {
            let timed = pool.install(|| self.subject.run(hooks))?;
            check(n, self.residues(), &mut self.first, &timed.value, (threads, run, runs))?;
            seconds.push(timed.seconds);
            graphs.push(timed.graph);
            on_run(run, timed.seconds);
        }
        let mut order: Vec<usize> = (0..runs).collect();
        order.sort_by(|&a, &b| seconds[a].total_cmp(&seconds[b]));
        let graph = std::mem::take(&mut graphs[order[runs / 2]]);
        Ok(Measurement { n, threads, seconds, limb_additions: self.limb_additions(), graph })
    }
}

/// A pool of `threads` worker threads, or the refusal naming the process limit (RLIMIT_NPROC, which
/// counts threads too) where one is set. Cost: `threads` threads started.
///
/// # Errors
/// [`Error::InvalidArgument`] naming [`Param::Threads`] where they cannot all be started.
fn pool(threads: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::invalid(Param::Threads, crate::os::threads_not_started(threads, &e)))
}

/// Checks one run's value of f(n) against the `residues` and the `first` value seen, which it becomes
/// if there is none yet; `(threads, run, runs)` say which run it is.
fn check(
    n: u64,
    residues: [(u64, u64); 2],
    first: &mut Option<(BigUint, usize)>,
    value: &BigUint,
    (threads, run, runs): (usize, usize, usize),
) -> Result<()> {
    let which = format!("{} (run {run} of {runs})", fibtree_util::counted(threads as u64, "thread"));
    for (modulus, independent) in residues {
        let residue = (value % modulus).to_u64().expect("a residue is below its modulus");
        if residue != independent {
            return Err(Error::CrossCheck {
                what: format!("c({n}, 0) mod {modulus} with {which}"),
                exact: residue.to_string(),
                independent: independent.to_string(),
            });
        }
    }
    match first {
        None => *first = Some((value.clone(), threads)),
        Some((first, first_threads)) if *first != *value => {
            let bit = (&*first ^ value).bits() - 1;
            return Err(Error::RunsDisagree(format!(
                "c({n}, 0) with {which} differs in bit {bit} from the first run's value ({}), though both \
                 agree mod 10^18 and 998244353",
                fibtree_util::counted(*first_threads as u64, "thread")
            )));
        }
        Some(_) => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use fibtree::{MAX_N, P998244353};

    /// The subject of f(n) within `limit` bytes.
    fn subject_of(n: u64, limit: u64) -> Result<Subject> {
        Subject::new(n, &Options { memory_limit: Some(limit.into()), ..Options::default() })
    }

    #[test]
    fn a_measurement_of_300() {
        let mut subject = Subject::new(300, &Options::default()).unwrap();
        let m = subject.measure(2, 3, Hooks::default(), |_, _| {}).unwrap();
        assert_eq!((m.n, m.threads, m.seconds.len()), (300, 2, 3));
        assert_eq!(m.limb_additions, subject.limb_additions());
        assert!(m.min_seconds() <= m.median_seconds() && m.median_seconds() <= m.max_seconds());
        assert!(m.graph.work >= m.graph.span && m.graph.span > 0.0);
    }

    #[test]
    fn each_worker_runs_its_start_at_once_before_the_runs() {
        use std::sync::{Barrier, Mutex};
        let mut subject = subject_of(300, u64::MAX).unwrap();
        for threads in [1, 4] {
            // a barrier of the pool's threads: passed only if every worker's call runs at once
            let barrier = Arc::new(Barrier::new(threads));
            let seen = Arc::new(Mutex::new(Vec::new()));
            let (b, s) = (barrier.clone(), seen.clone());
            subject.on_each_worker(Some(Arc::new(move |i| {
                b.wait();
                s.lock().unwrap().push((i, std::thread::current().id()));
            })));
            subject.measure(threads, 2, Hooks::default(), |_, _| {}).unwrap();
            let mut seen = seen.lock().unwrap().clone();
            seen.sort_by_key(|s| s.0);
            assert_eq!(seen.iter().map(|s| s.0).collect::<Vec<_>>(), (0..threads).collect::<Vec<_>>());
            let ids: std::collections::HashSet<_> = seen.iter().map(|s| s.1).collect();
            assert_eq!(ids.len(), threads, "each call on a worker of its own, once per measurement");
        }
        subject.on_each_worker(None);
        subject.measure(2, 1, Hooks::default(), |_, _| {}).unwrap();
    }

    #[test]
    fn default_thread_counts() {
        assert_eq!(default_threads(1), [1]);
        assert_eq!(default_threads(2), [1, 2]);
        assert_eq!(default_threads(6), [1, 2, 4, 6]);
        assert_eq!(default_threads(8), [1, 2, 4, 8]);
        assert_eq!(default_threads(0), [1]);
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&[7.0]), 7.0);
    }

    #[test]
    fn runs_are_checked_and_bad_counts_refused() {
        let mut subject = subject_of(200, u64::MAX).unwrap();
        let m = subject.measure(1, 2, Hooks::default(), |_, _| {}).unwrap();
        assert_eq!(m.speedup_over(&m), 1.0);
        assert!(matches!(
            subject.measure(0, 1, Hooks::default(), |_, _| {}),
            Err(Error::InvalidArgument { param: Param::Threads, .. })
        ));
        subject.perturb(P998244353);
        let err = subject.measure(2, 1, Hooks::default(), |_, _| {}).unwrap_err().to_string();
        assert!(err.contains("c(200, 0) mod 998244353 with 2 threads"), "{err}");
        assert!(matches!(subject_of(1, u64::MAX), Err(Error::InvalidArgument { param: Param::N, .. })));
        assert!(matches!(subject_of(MAX_N + 1, u64::MAX), Err(Error::InvalidArgument { param: Param::N, .. })));
        assert!(matches!(subject_of(10_000, 1 << 20), Err(Error::OutOfMemory { param: Param::N, .. })));
    }

    #[test]
    fn a_subject_holds_its_plan() -> fibtree::Result<()> {
        let subject = subject_of(300, u64::MAX)?;
        assert!(subject.held_bytes() > 8 << 20);
        Ok(())
    }

    #[test]
    fn each_worker_runs_its_start() -> fibtree::Result<()> {
        use std::sync::{Arc, Mutex};
        let mut subject = subject_of(200, u64::MAX)?;
        let started = Arc::new(Mutex::new(Vec::new()));
        let seen = started.clone();
        subject.on_each_worker(Some(Arc::new(move |i| seen.lock().unwrap().push(i))));
        subject.measure(3, 1, fibtree::Hooks::default(), |_, _| {})?;
        let mut workers = started.lock().unwrap().clone();
        workers.sort();
        assert_eq!(workers, [0, 1, 2]);
        Ok(())
    }
}
