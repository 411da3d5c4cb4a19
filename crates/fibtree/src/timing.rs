//! A count of f(n) made ready once and run again and again, the exact engine alone timed: what a
//! benchmark of the engine needs ([`Subject`]).
//!
//! The plan of (n, 0), the route (where the count is cut, the work of each half) and the residues of
//! f(n) modulo 10^18 and 998244353 by the modular engine are made once, untimed. Each
//! [`Subject::run`] then runs the blocked exact engine over that plan, in the current rayon pool, as
//! the [`Options`] the subject was made with steer it (cut, lanes a chunk, tiles), times it and
//! records its task graph ([`Summary`]: two thread-clock reads and a lock per task).

use std::time::Instant;

use fibtree_core::{Cut, Engine, Guard, Halves, Hooks, Limit, MAX_N, P998244353, Plan, Request};
use num_bigint::BigUint;

use crate::error::{Error, Param, Result};
use crate::options::{LAST18, Options};

pub use fibtree_core::Summary;

/// The moduli a subject's residues are taken by: 10^18 and 998244353.
///
/// # Examples
///
/// ```
/// assert_eq!(fibtree::timing::MODULI, [fibtree::LAST18, fibtree::P998244353]);
/// ```
pub const MODULI: [u64; 2] = [LAST18, P998244353];

/// f(n) planned once, with its residues, to be run again and again by the blocked exact engine.
///
/// # Examples
///
/// ```
/// use fibtree::timing::Subject;
/// let subject = Subject::new(300, &fibtree::Options::default())?;
/// let run = subject.run(fibtree::Hooks::default())?;
/// assert_eq!(&run.value % fibtree::P998244353, subject.residues()[1].1.into());
/// assert!(run.graph.work >= run.graph.span && run.seconds > 0.0);
/// # Ok::<(), fibtree::Error>(())
/// ```
pub struct Subject {
    /// (n, 0), the one target.
    target: [(u64, u64); 1],
    plan: Plan,
    /// The cut asked for.
    cut: Cut,
    /// The route: its cut and the work of each half.
    halves: Halves,
    /// The options that steer a run: the lanes a chunk and the tiles (the rest unused).
    steer: Options<'static>,
    residues: [u64; 2],
    memory_limit: Limit,
}

/// One run of a [`Subject`]: its value (not yet checked), the seconds of the exact engine alone and
/// its task graph summed up.
#[derive(Clone, Debug)]
pub struct Run {
    /// f(n), as the exact engine gave it: the caller checks it against [`Subject::residues`].
    pub value: BigUint,
    /// The wall-clock seconds of the exact engine over the plan.
    pub seconds: f64,
    /// The run's task graph: its work, span, parallelism and the time a greedy scheduler would take
    /// on 1 to 128 workers.
    pub graph: Summary,
}

impl Subject {
    /// Plans (n, 0) and computes f(n) modulo each of [`MODULI`] with the modular engine, in the
    /// current rayon pool, within the limit of `options` ([`Options::limit`]) and obeying its hooks;
    /// the runs will be cut as `options.cut` says and steered by its `chunk_lanes` and `tiles`
    /// (its moduli, checkpoint, engine and double check play no part).
    ///
    /// Cost: the plan's backward pass (O(n x W / 64) word operations) and the modular engine over
    /// its windows, for each of two moduli; memory the plan (its layers packed, at most one bit per
    /// g of each window), kept until the subject is dropped.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming [`Param::N`] for n below 2 or above [`MAX_N`], naming
    /// [`Param::Cut`] for a cut outside 2..=n, naming [`Param::Lanes`] for lanes outside
    /// [`crate::CHUNK_LANES`]; [`Error::OutOfMemory`] naming [`Param::N`] when the plan or the
    /// modular engine would exceed the limit; [`Error::Interrupted`] when cancelled.
    pub fn new(n: u64, options: &Options) -> Result<Subject> {
        if !(2..=MAX_N).contains(&n) {
            return Err(Error::invalid(Param::N, format!("expected N from 2 to {MAX_N}, got {n}")));
        }
        options.check_lanes()?;
        let (target, cut, memory_limit) = ([(n, 0)], options.cut, options.limit());
        // the cut checked before any work
        Request::exact(&target, Engine::Blocked).cut(cut).check_arguments()?;
        let guard = Guard::residues(memory_limit, MODULI.len(), 1);
        let request = Request::residues(&target, MODULI).guard(guard).hooks(options.hooks);
        let mut planned = request.always_planned().plan()?;
        let found = planned.residues()?[0].clone();
        let plan = planned.into_plan().expect("a plan, always");
        let halves = Request::exact(&target, Engine::Blocked).cut(cut).plan_given(&plan).plan()?.halves();
        let halves = halves.expect("one target, the blocked engine");
        let residues = [found[0], found[1]];
        let steer = Options { chunk_lanes: options.chunk_lanes, tiles: options.tiles, ..Options::default() };
        Ok(Subject { target, plan, cut, halves, steer, residues, memory_limit })
    }

    /// The tree T(n) of f(n). Cost O(1).
    pub fn n(&self) -> u64 {
        self.target[0].0
    }

    /// The bytes the process holds while this subject is kept and no run is going: its fixed part
    /// (code, stacks, the allocator's arenas) and the plan. Cost O(n).
    pub fn held_bytes(&self) -> u64 {
        Guard::PROCESS_BYTES.saturating_add(self.plan.bytes())
    }

    /// The plan's states. Cost O(n).
    pub fn states(&self) -> u64 {
        self.plan.states()
    }

    /// The 64-bit limb additions of the route: bottom-up, the sum over the layers k from 2 to n of
    /// (states of layer k) x (limbs of a count of layer k), 620,736,444 for (10000, 0); from both
    /// ends, that sum to the cut and above it the states times the limbs of a path count of layer
    /// k, limbs(n - k + 1) (373,415,634 at n = 10000). Cost O(1).
    pub fn limb_additions(&self) -> u128 {
        self.halves.work()
    }

    /// The route: where it is cut, and the work of each half. Cost O(1).
    pub fn halves(&self) -> Halves {
        self.halves
    }

    /// `(modulus, residue)` of f(n) by the modular engine, for each of [`MODULI`]. Cost O(1).
    pub fn residues(&self) -> [(u64, u64); 2] {
        [(MODULI[0], self.residues[0]), (MODULI[1], self.residues[1])]
    }

    /// Checks the memory of a run in the current rayon pool (the exact engine's layers for its
    /// threads, two values of limbs(n) words and one run's task graph) against the subject's limit,
    /// before any run. Cost O(n).
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] naming [`Param::N`].
    pub fn fits(&self) -> Result<()> {
        self.request(Hooks::default()).plan()?;
        Ok(())
    }

    /// One run of the blocked exact engine over the plan, in the current rayon pool: its value, its
    /// seconds (the engine alone) and its task graph.
    ///
    /// Cost: O(plan states x limbs(n)) limb additions ([`Subject::limb_additions`]); then the
    /// recorded graph summed up (8 schedules of it, O(tasks log tasks), not timed); memory as
    /// [`Subject::fits`] checks.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] naming [`Param::N`]; [`Error::Interrupted`] when `hooks.cancel` is
    /// set.
    pub fn run(&self, hooks: Hooks) -> Result<Run> {
        let planned = self.request(hooks).plan()?;
        let (start, mut value) = (Instant::now(), BigUint::ZERO);
        let graph = planned.run_recorded(|_, counted, _| {
            value = counted.unwrap_or_default();
            Ok(())
        })?;
        Ok(Run { value, seconds: start.elapsed().as_secs_f64(), graph })
    }

    /// The request of one run: the plan given, the cut, the lanes and tiles forced, the guard of
    /// the exact engine keeping two values.
    fn request<'a>(&'a self, hooks: Hooks<'a>) -> Request<'a> {
        let request = Request::exact(&self.target, Engine::Blocked).cut(self.cut).plan_given(&self.plan);
        self.steer.steer(request.guard(Guard::exact(self.memory_limit, 2)).hooks(hooks))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fibtree_core::TileRule;

    #[test]
    fn a_run_agrees_with_the_residues_and_its_options() -> Result<()> {
        let options = Options { chunk_lanes: Some(4), tiles: Some(TileRule::Always), ..Options::default() };
        let subject = Subject::new(300, &options)?;
        subject.fits()?;
        let run = subject.run(Hooks::default())?;
        for (modulus, residue) in subject.residues() {
            assert_eq!(&run.value % modulus, BigUint::from(residue));
        }
        assert_eq!(run.value, crate::exact::exact(&[(300, 0)], &Options::default())?[0]);
        assert!(subject.held_bytes() > 8 << 20 && subject.states() > 0);
        Ok(())
    }

    #[test]
    fn bad_subjects_are_refused() {
        let refused = |n, options: &Options| match Subject::new(n, options) {
            Err(Error::InvalidArgument { param, .. }) | Err(Error::OutOfMemory { param, .. }) => Some(param),
            _ => None,
        };
        assert_eq!(refused(1, &Options::default()), Some(Param::N));
        assert_eq!(refused(MAX_N + 1, &Options::default()), Some(Param::N));
        assert_eq!(refused(300, &Options { chunk_lanes: Some(3), ..Options::default() }), Some(Param::Lanes));
        assert_eq!(refused(300, &Options { cut: Cut::At(301), ..Options::default() }), Some(Param::Cut));
        let small = Options { memory_limit: Some((1 << 20).into()), ..Options::default() };
        assert!(matches!(Subject::new(10_000, &small), Err(Error::OutOfMemory { param: Param::N, .. })));
    }
}
