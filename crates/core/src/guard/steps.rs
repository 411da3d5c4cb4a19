//! The guard of one run: its floor, its prediction, its plan's real sizes, each checked against the
//! limit in an order that lets nothing large be allocated and every refusal show the whole run's
//! estimate. The guard runs nothing: the plan is made between its steps, by the count's door.

use super::{PROCESS_BYTES, Run, check, refuse};

use crate::engines::Cut;
use crate::error::{Error, Result};
use crate::hooks::Hooks;
use crate::plan::{self, Plan, Sizes};
use crate::targets::Targets;

use crate::limit::{Bound, Limit};

/// The memory a prediction may spend to give a refusal the estimate of the whole run rather than a
/// bound: under a limit the caller gave (`--max-memory`), a plan up to this size (n up to about
/// 40,000 at g = 0, a few tenths of a second) is built even past the limit where the machine has
/// room for it, then measured, so that the refusal names the figure a larger limit would run with.
/// Under a limit of the machine's (`ulimit -v`, a cgroup) nothing is spent past it.
pub(crate) const ESTIMATE_ALLOWANCE: u64 = 256 << 20;

/// The largest plan a run past its prediction is made for, to be measured, in states of its window
/// (the top layer n times the window's g, a bit each in the backward pass): 2^41, n = 10^6 at
/// g = 0, a few minutes on one core (docs/performance.md, "How estimate predicts"). A count that
/// large takes days; a larger one is refused at once with the prediction.
const QUICK_PLAN: u128 = 1 << 41;

/// The largest plan a run under a limit of the machine's is made for, to be measured, whatever its
/// prediction, where the plan alone fits what is left (nothing made past the limit): in states of
/// its window, as [`QUICK_PLAN`], 2^32 (n about 40,000 at g = 0, a few tenths of a second). So a
/// refusal of such a run names its estimate from its real sizes under any limit the plan fits,
/// not the prediction under some limits and the estimate under others.
const CHEAP_PLAN: u128 = 1 << 32;

/// How far past a limit of the machine's a prediction may be for the run to be measured
/// ([`QUICK_PLAN`]): the prediction takes the widest layer as a quarter of the window at the top
/// layer's lanes, 1.8 times the estimate from the plan of a count of f(100000) (902 MiB against
/// 503 MiB) and 1.6 times at 10^6 (65.9 GiB against 42.3 GiB, `count` on 2 threads).
const LOOSE: u64 = 2;

/// The memory guard of one run: what kind of run it is, and the memory it may use.
///
/// # Examples
///
/// ```
/// use fibtree_core::{Engine, Error, Guard, Limit, Request};
/// let guard = Guard::exact(Limit::given(1 << 20), 1); // one value kept, within 1 MiB
/// let refused = Request::exact(&[(20_000, 0)], Engine::Blocked).guard(guard).plan().err().unwrap();
/// assert!(matches!(refused, Error::OutOfMemory { estimate, .. } if estimate > 1 << 20));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Guard {
    run: Run,
    limit: Limit,
    /// The route of a count's exact sweeps, where it is known: `Some(None)` bottom-up alone,
    /// `Some(Some(cut))` from both ends at the cut; `None` unknown (bounded by the widest layer).
    sweeps: Option<Option<Cut>>,
}

/// What the plan of a run may take, as the guard decided before it was made: the limit the plan is
/// made under (past the run's limit by the allowance, to measure a run that will be refused), and
/// whether the prediction of the whole run fits, so that work may start beside the plan.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Budget {
    pub(crate) limit: Limit,
    pub(crate) fits: bool,
    top: u64,
    predicted_sizes: Sizes,
    predicted: u64,
}

impl Guard {
    /// The guard of a counting run of `targets` targets (for a table, its rows) with `moduli`
    /// projections each, within `limit`: the exact engine and the modular engine over one plan;
    /// with `double_check` every value is kept and a second plan made for the other exact engine.
    /// Cost O(1).
    pub fn count(limit: Limit, moduli: usize, targets: usize, double_check: bool) -> Guard {
        Guard { run: Run::Count { moduli, targets, double_check }, limit, sweeps: None }
    }

    /// The guard of a run of the modular engine alone: `moduli` moduli in one run, `at_once` such
    /// runs at the same time (one a modulus where each runs alone). Cost O(1).
    pub fn residues(limit: Limit, moduli: usize, at_once: usize) -> Guard {
        Guard { run: Run::Residues { moduli, at_once }, limit, sweeps: None }
    }

    /// The guard of a whole distribution of layer `n`, exact or modulo one modulus, of `targets`
    /// targets (the support's g; 0 before it is known: [`Guard::distribution_floor`]). Cost O(1).
    pub fn distribution(limit: Limit, n: u64, exact: bool, targets: usize) -> Guard {
        let words = if exact { 1 + crate::cost::limbs(n.min(crate::game::MAX_N) as usize) as u64 } else { 1 };
        Guard { run: Run::Distribution { words, targets }, limit, sweeps: None }
    }

    /// The guard of a walk over the moves of T(n) ([`crate::Counts`]). Cost O(1).
    pub fn walk(limit: Limit) -> Guard {
        Guard { run: Run::Moves, limit, sweeps: None }
    }

    /// The guard of the exact engine alone over a plan, keeping `values` values. Cost O(1).
    pub fn exact(limit: Limit, values: u64) -> Guard {
        Guard { run: Run::Exact { values }, limit, sweeps: None }
    }

    /// The memory the run may use. Cost O(1).
    pub fn limit(&self) -> Limit {
        self.limit
    }

    /// What the process needs before any run (code, thread stacks, the allocator's arenas): part of
    /// every estimate.
    pub const PROCESS_BYTES: u64 = PROCESS_BYTES;

    /// Whether the run computes every value a second time (a counting run's double check), which
    /// keeps every value. Cost O(1).
    pub(crate) fn double_check(&self) -> bool {
        matches!(self.run, Run::Count { double_check: true, .. })
    }

    /// This guard, knowing the route of a count's exact sweeps: bottom-up alone (`None`) or from
    /// both ends at `cut`, so that what they hold is bounded by the plan's layers
    /// ([`crate::engines::held`]) rather than by its widest layer at the top layer's lanes. Cost O(1).
    pub(crate) fn with_sweeps(self, cut: Option<Cut>) -> Guard {
        Guard { sweeps: Some(cut), ..self }
    }

    /// The sizes of `plan` as this guard's estimate takes them: with what the sweeps hold where
    /// the route is known. Cost O(n).
    fn sizes_of(&self, plan: &Plan) -> Sizes {
        let held = self.sweeps.map(|cut| crate::engines::held(plan.lens(), cut));
        Sizes { held, ..plan.sizes() }
    }

    /// The whole run's bytes up to layer `top` over `plan`, in the current rayon pool. Cost O(n).
    pub(crate) fn bytes_over(&self, top: u64, plan: &Plan) -> u64 {
        self.run.bytes(top, &self.sizes_of(plan))
    }

    /// What a prediction may spend to measure the run ([`ESTIMATE_ALLOWANCE`]): nothing past a
    /// limit of the machine's; past a given one, the allowance where the machine has room for it.
    /// Cost: none, or for a given limit the reads of a few small files of `/proc`.
    fn allowance(&self) -> u64 {
        match self.limit.bound {
            Bound::Given => ESTIMATE_ALLOWANCE.min(super::available_limit().bytes),
            _ => 0,
        }
    }

    /// Whether, under a limit of the machine's, a plan of `plan` bytes over `states` states of its
    /// window is made to measure the run whatever its prediction: it fits what is left and is
    /// quick to make ([`CHEAP_PLAN`]). Cost O(1).
    fn cheap(&self, plan: u64, states: u128) -> bool {
        self.limit.bound != Bound::Given && plan <= self.limit.bytes && states <= CHEAP_PLAN
    }

    /// Step 1, before anything of size O(n): refuses a run over targets up to layer `top` with a g
    /// as high as `highest` whose smallest possible size exceeds the limit. A floor small enough to
    /// be refined (the guard's allowance) passes, so that the run is refused with its full estimate
    /// once its plan is measured. Cost O(1).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for `top` above [`crate::MAX_N`]; [`Error::OutOfMemory`].
    pub fn floor(&self, top: u64, highest: u64) -> Result<()> {
        crate::game::check_n(top)?;
        let floor = self.run.floor(top, highest);
        if floor > self.limit.bytes().max(self.allowance()) { Err(refuse(floor, self.limit)) } else { Ok(()) }
    }

    /// [`Guard::floor`] for the run of `targets` (only their top n and highest g matter); past the
    /// limit, the refusal names the whole run's prediction rather than the floor, the figure a
    /// larger limit would give too. Cost O(1), or O(top n) time and no memory for a refusal.
    ///
    /// # Errors
    /// As [`Guard::floor`].
    ///
    /// ```
    /// use fibtree_core::{Guard, Limit};
    /// let table = Guard::count(Limit::given(1 << 10), 2, 2_000_000, false);
    /// assert!(table.floor_of(&[(2_000_000, 0)], fibtree_core::Hooks::default()).is_err());
    /// ```
    pub fn floor_of(&self, targets: &[(u64, u64)], hooks: Hooks) -> Result<()> {
        let targets = Targets::new(targets);
        self.floor_below(&targets, usize::MAX, hooks)
    }

    /// [`Guard::floor_of`] for a plan kept up to layer `keep`.
    pub(crate) fn floor_below(&self, targets: &Targets, keep: usize, hooks: Hooks) -> Result<()> {
        match self.floor(targets.top(), targets.g_range().1) {
            // refused with the prediction, or passed where the plan is made to be measured
            Err(Error::OutOfMemory { .. }) => self.before_the_plan(targets, keep, hooks).map(|_| ()),
            other => other,
        }
    }

    /// Refuses, before its support is known (a forward pass), a whole distribution of layer `n`
    /// (this guard's, [`Guard::distribution`]) whose prediction exceeds the limit: the plan holds
    /// nearly every g below about 11 k in each layer k, its widest layer about 11 n states, and there
    /// are about 6.5 n targets. Past the limit the run is refused with the prediction, unless its
    /// plan is small enough to be made and measured; then it goes on, to be refused with the figure
    /// of its real sizes. Cost O(1).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for n above [`crate::MAX_N`]; [`Error::OutOfMemory`].
    ///
    /// ```
    /// use fibtree_core::{Guard, Limit};
    /// assert!(Guard::distribution(Limit::given(1 << 20), 100_000, true, 0).distribution_floor(100_000).is_err());
    /// assert!(Guard::distribution(Limit::given(1 << 30), 100, true, 0).distribution_floor(100).is_ok());
    /// ```
    pub fn distribution_floor(&self, n: u64) -> Result<()> {
        crate::game::check_n(n)?;
        let words = match self.run {
            Run::Distribution { words, .. } => words,
            _ => 1,
        };
        let (predicted, plan) = super::distribution_predicted(n, words);
        self.predicted(predicted, plan)
    }

    /// The bytes of the value of a count of layer `n`: a bound on its bits (from the size of T(n)),
    /// in bytes. What a caller holding values of counts reckons with. Cost O(1).
    ///
    /// ```
    /// assert_eq!(fibtree_core::Guard::value_bytes(10_000), 868);
    /// ```
    pub fn value_bytes(n: u64) -> u64 {
        crate::game::count_bits_bound(n) / 8
    }

    /// Refuses, before anything of size O(n), a run whose prediction `predicted` (bytes), with a
    /// plan of `plan` bytes, exceeds the limit, unless the plan is small enough to be made and
    /// measured ([`Guard::allowance`]). Cost O(1).
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] with the prediction.
    pub(crate) fn predicted(&self, predicted: u64, plan: u64) -> Result<()> {
        // a plan's bytes are bits of its states
        let cheap = self.cheap(plan, (plan as u128).saturating_mul(8));
        if predicted > self.limit.bytes && plan > self.allowance() && !cheap {
            Err(refuse(predicted, self.limit))
        } else {
            Ok(())
        }
    }

    /// Checks a whole run's `estimate` (bytes) against the limit and returns it. Cost O(1).
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] past the limit.
    ///
    /// ```
    /// let guard = fibtree_core::Guard::exact(fibtree_core::Limit::given(1000), 1);
    /// assert_eq!(guard.check(999)?, 999);
    /// assert!(guard.check(1001).is_err());
    /// # Ok::<(), fibtree_core::Error>(())
    /// ```
    pub fn check(&self, estimate: u64) -> Result<u64> {
        check(estimate, self.limit).map(|()| estimate)
    }

    /// The whole run's estimate on the dense modular route, which needs no plan: the process and
    /// `bytes` of arrays for each modulus running at once, checked against the limit. Cost O(1).
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] past the limit.
    pub(crate) fn unplanned(&self, bytes: u64) -> Result<u64> {
        self.check(PROCESS_BYTES.saturating_add(bytes.saturating_mul(self.run.at_once())))
    }

    /// Whether the dense modular route with `bytes` of arrays a modulus fits ([`Guard::unplanned`]),
    /// for a run that may take it or leave it. Cost O(1).
    pub(crate) fn fits_unplanned(&self, bytes: u64) -> bool {
        self.unplanned(bytes).is_ok()
    }

    /// Steps 1 and 2 of a run over the plan of `targets` kept up to layer `keep`:
    ///
    /// 1. the floor ([`Guard::floor`]), O(1); past the limit the run is refused with the prediction;
    /// 2. the prediction, O(n) time and no memory: windows spanning the W-aligned blocks of the
    ///    targets' g ([`crate::game::window`]; W for one target, every state of which lies in its g's
    ///    block), a widest layer of a quarter of its window (docs/math.md: 2048 of 8192 at
    ///    n = 10000), and of a plan kept below a layer that share of its layers (for one target, a
    ///    word a layer: its layers pack into runs, [`plan::Packed`]), with the support's checkpoints
    ///    that thin them ([`plan::support_bytes`]).
    ///
    /// It gives the plan's budget: the limit to make it under (past the run's, by the allowance,
    /// when the plan is made only to measure a run that will be refused) and whether the prediction
    /// fits. Past the limit, the run is refused with the prediction unless its plan is made to
    /// measure it: where its layers' bitsets fit the allowance, or, under a limit of the machine's,
    /// where the plan alone fits the limit and is quick to make ([`QUICK_PLAN`]) with the prediction
    /// within [`LOOSE`] times the limit, or cheap to make ([`CHEAP_PLAN`]) whatever the prediction
    /// and the floor; then step 3 decides, by the plan's real sizes ([`Guard::after_the_plan`]).
    /// Cost O(top n) time, cancellable.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an n above [`crate::MAX_N`]; [`Error::OutOfMemory`] with the
    /// whole run's prediction past the limit; [`Error::Interrupted`] once cancelled.
    pub(crate) fn before_the_plan(&self, targets: &Targets, keep: usize, hooks: Hooks) -> Result<Budget> {
        let (top, (lo, hi)) = (targets.top(), targets.g_range());
        // a floor past the limit is refused with the prediction (O(n) time, no memory), so that a
        // run is refused with the same figure whatever the limit
        let floor = match self.floor(top, hi) {
            Err(Error::OutOfMemory { estimate, .. }) => Some(estimate),
            other => other.map(|()| None)?,
        };
        let w = crate::game::window(top, hooks)?;
        // every state lies in the W-aligned block of some target's g: the blocks from lo's to hi's
        let window = (hi | (w - 1)).saturating_sub(lo & !(w - 1)).saturating_add(1);
        // and the support below W that thins the layers (about 2 sqrt(n) layers)
        let support = plan::support_bytes(targets, w);
        let plan_bytes = plan::layers_before(targets, top, window, keep).saturating_add(support);
        let bitsets = plan::kept_share(plan::bytes_at(top, window), top, keep);
        let predicted_sizes =
            Sizes { plan: plan_bytes, widest: (window / 4).max(1), highest: hi | (w - 1), held: None };
        let predicted = self.run.bytes(top, &predicted_sizes);
        let states = (top as u128).saturating_mul(window as u128);
        let cheap = self.cheap(plan_bytes, states);
        if let Some(floor) = floor
            && !cheap
        {
            return Err(refuse(predicted.max(floor), self.limit));
        }
        let bytes = self.limit.bytes;
        let allowance = if predicted > bytes { self.allowance() } else { 0 };
        // past the limit, the plan is made to measure the run where even its layers' bitsets fit
        // the allowance (nothing large allocated before a refusal); and under a limit of the
        // machine's, where the plan alone fits the limit, is quick to make and the prediction is
        // within LOOSE times the limit: such a run may well fit; or cheap to make, whatever the
        // prediction, so that its refusal names the same figure under any limit its plan fits. A
        // limit the caller gave keeps the figure of a refusal the same whatever it is.
        let quick = states <= QUICK_PLAN;
        let near = predicted / LOOSE <= bytes && self.limit.bound != Bound::Given;
        let measured = bitsets.saturating_add(support) <= allowance || (plan_bytes <= bytes && quick && near) || cheap;
        if predicted > bytes && !measured {
            return Err(refuse(predicted, self.limit));
        }
        let limit = Limit { bytes: bytes.max(allowance), ..self.limit };
        Ok(Budget { limit, fits: predicted <= bytes, top, predicted_sizes, predicted })
    }

    /// Step 3: the plan made under `budget` ([`Guard::before_the_plan`]) and the whole run's
    /// estimate from its real sizes, checked against the limit; a plan that outgrew its budget is
    /// the whole run refused with the plan as far as it was projected. Cost O(n).
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] ([`refuse`]) with the whole run's estimate past the limit; the plan's
    /// own errors.
    pub(crate) fn after_the_plan<T>(&self, budget: &Budget, made: Result<(Plan, T)>) -> Result<(Plan, u64, T)> {
        let (plan, beside) = made.map_err(|e| match e {
            // the plan outgrew its prediction: the whole run with the plan as far as it was projected
            Error::OutOfMemory { estimate, .. } => {
                let sizes = Sizes { plan: estimate, ..budget.predicted_sizes };
                refuse(self.run.bytes(budget.top, &sizes).max(budget.predicted), self.limit)
            }
            e => e,
        })?;
        let estimate = self.check(self.run.bytes(budget.top, &self.sizes_of(&plan)))?;
        Ok((plan, estimate, beside))
    }

    /// The plan of `targets` kept up to layer `keep` and the whole run's estimate, in the guard's
    /// three steps, with nothing made beside it. Cost: O(top n) time before the plan; then the
    /// plan's own. Cancellable (`hooks`) throughout.
    ///
    /// # Errors
    /// As [`Guard::before_the_plan`] and [`Guard::after_the_plan`].
    pub(crate) fn plan_below(&self, targets: &Targets, keep: usize, hooks: Hooks) -> Result<(Plan, u64)> {
        let budget = self.before_the_plan(targets, keep, hooks)?;
        let made = Plan::below_alongside(targets, keep, budget.limit, hooks, |_, _| ());
        self.after_the_plan(&budget, made).map(|(plan, estimate, ())| (plan, estimate))
    }

    /// [`Guard::plan_below`] keeping every layer.
    pub(crate) fn plan(&self, targets: &Targets, hooks: Hooks) -> Result<(Plan, u64)> {
        self.plan_below(targets, usize::MAX, hooks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The guard refuses with the estimate of the whole run, not of the part that first fails.
    #[test]
    fn guard_refuses_with_the_whole_estimate() {
        let run = Run::Moves;
        let targets = Targets::one(1000, 0);
        let walk = |limit: u64| Guard::walk(Limit::given(limit));
        let (plan, estimate) = walk(u64::MAX).plan(&targets, Hooks::default()).unwrap();
        assert_eq!(estimate, run.bytes(1000, &plan.sizes()));
        for limit in [1, 44 << 10, estimate - 1] {
            match walk(limit).plan(&targets, Hooks::default()) {
                Err(Error::OutOfMemory { estimate: e, limit: l, .. }) => assert_eq!((e, l.bytes()), (estimate, limit)),
                other => panic!("{other:?}"),
            }
        }
        // too large to plan: refused at once with the prediction, far above the limit
        let refused = walk(1 << 30).plan(&Targets::one(crate::game::MAX_N, 0), Hooks::default());
        assert!(matches!(refused, Err(Error::OutOfMemory { estimate, .. }) if estimate > 1 << 36), "{refused:?}");
    }

    /// Past its prediction, under a limit of the machine's, a count whose plan fits the limit and is
    /// quick to make is made to be measured, and goes on where its real sizes fit (n = 100000: a
    /// prediction of 902 MiB, 503 MiB measured); one whose plan is not quick to make, or whose
    /// prediction is far past the limit, or under a limit the caller gave, is refused at once with
    /// the prediction.
    #[test]
    fn a_count_past_its_prediction_is_measured_where_its_plan_is_quick() {
        // two threads, whatever the machine's cores: the estimates count each thread's chunks
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        pool.install(|| {
            use crate::{Engine, Request};
            let machine = |bytes: u64| Limit { bytes, bound: Bound::Available };
            let guard = Guard::count(machine(700 << 20), 2, 1, false);
            let budget = guard.before_the_plan(&Targets::one(100_000, 0), usize::MAX, Hooks::default()).unwrap();
            assert!(!budget.fits && budget.predicted > 700 << 20, "{budget:?}");
            let planned = Request::exact(&[(100_000, 0)], Engine::Blocked).guard(guard).plan();
            assert!(planned.is_ok(), "measured, it fits: {:?}", planned.err());
            let far = guard.before_the_plan(&Targets::one(100_000_000, 0), usize::MAX, Hooks::default());
            assert!(matches!(far, Err(Error::OutOfMemory { estimate, .. }) if estimate > 1 << 40), "{far:?}");
            for limit in [machine(400 << 20), Limit::given(700 << 20)] {
                let past = Guard::count(limit, 2, 1, false).before_the_plan(
                    &Targets::one(100_000, 0),
                    usize::MAX,
                    Hooks::default(),
                );
                assert!(
                    matches!(past, Err(Error::OutOfMemory { estimate, .. }) if estimate == budget.predicted),
                    "{past:?}"
                );
            }
        });
    }
}
