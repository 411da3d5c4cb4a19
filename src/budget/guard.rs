//! The guard of one run: its floor, its prediction, its plan, each checked against the limit in an
//! order that lets nothing large be allocated and every refusal show the whole run's estimate.

use super::{PROCESS_BYTES, Run, check, refuse};
use std::sync::atomic::AtomicBool;

use crate::error::{Error, Result};
use crate::hooks::Hooks;
use crate::limits::{Bound, Limit};
use crate::plan::{self, Plan, Sizes};
use crate::targets::Targets;

/// The memory a prediction may spend to give a refusal the estimate of the whole run rather than a
/// bound: under a limit the caller gave (`--max-memory`), a plan up to this size (n up to about
/// 40,000 at g = 0, a few tenths of a second) is built even past the limit where the machine has
/// room for it, then measured, so that the refusal names the figure a larger limit would run with.
/// Under a limit of the machine's (`ulimit -v`, a cgroup) nothing is spent past it.
pub(crate) const ESTIMATE_ALLOWANCE: u64 = 256 << 20;

/// A run of one kind ([`Run`]) and the memory it may use, in bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Guard {
    run: Run,
    limit: Limit,
}

impl Guard {
    /// The guard of `run` within `limit` bytes.
    pub(crate) fn new(run: Run, limit: impl Into<Limit>) -> Guard {
        let limit = limit.into();
        Guard { run, limit }
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

    /// Step 1, before anything of size O(n): refuses a run over `targets` (only their top n and
    /// highest g matter) whose smallest possible size ([`Run::floor`]) exceeds the limit. A floor
    /// small enough to be refined ([`Guard::allowance`]) passes, so that [`Guard::plan`] refuses
    /// the run with its full estimate. Cost O(1).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an n above [`crate::game::MAX_N`]; [`Error::OutOfMemory`].
    pub(crate) fn floor(&self, top: u64, highest: u64) -> Result<()> {
        crate::game::check_n(top)?;
        let floor = self.run.floor(top, highest);
        if floor > self.limit.bytes().max(self.allowance()) { Err(refuse(floor, self.limit)) } else { Ok(()) }
    }

    /// Refuses, before anything of size O(n), a run whose prediction `predicted` (bytes), with a
    /// plan of `plan` bytes, exceeds the limit, unless the plan is small enough to be made and
    /// measured ([`Guard::allowance`]): then the run goes on, so that [`Guard::plan`] refuses it with
    /// the figure of its real sizes, the one a larger limit would give. Cost O(1).
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] with the prediction.
    pub(crate) fn predicted(&self, predicted: u64, plan: u64) -> Result<()> {
        if predicted > self.limit.bytes && plan > self.allowance() {
            Err(refuse(predicted, self.limit))
        } else {
            Ok(())
        }
    }

    /// Checks a whole run's `estimate` (bytes) against the limit and returns it.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] past the limit.
    pub(crate) fn check(&self, estimate: u64) -> Result<u64> {
        check(estimate, self.limit).map(|()| estimate)
    }

    /// The whole run's estimate on the dense modular route, which needs no plan: the process and
    /// `bytes` of arrays for each modulus running at once ([`Run::Residues`]), checked against the
    /// limit. Cost O(1).
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

    /// The plan of `targets` and the whole run's estimate from its real sizes, in three steps:
    ///
    /// 1. the floor ([`Guard::floor`]), O(1); past the limit the run is refused with the prediction;
    /// 2. the prediction, O(n) time and no memory: windows spanning the W-aligned blocks of the
    ///    targets' g ([`crate::game::window`]; W for one target, every state of which lies in its g's
    ///    block), a widest layer of a quarter of its window (docs/math.md: 2048 of 8192 at
    ///    n = 10000), and of a plan kept below a layer ([`Guard::plan_below`]) that share of its layers,
    ///    with the support's checkpoints that thin them ([`plan::support_bytes`]);
    /// 3. the plan itself, when the prediction fits or the plan is small ([`Guard::allowance`]), and
    ///    the estimate from its real sizes.
    ///
    /// Cost: O(top n) time before the plan; then the plan's own. Cancellable (`hooks`) throughout.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an n above [`crate::game::MAX_N`];
    /// [`Error::OutOfMemory`] ([`refuse`]) with the whole run's estimate past the limit;
    /// [`Error::Interrupted`] once cancelled.
    pub(crate) fn plan(&self, targets: &Targets, hooks: Hooks) -> Result<(Plan, u64)> {
        self.plan_below(targets, usize::MAX, hooks)
    }

    /// [`Guard::plan`], keeping the plan's sets up to layer `keep` only ([`Plan::below`]).
    ///
    /// # Errors
    /// As [`Guard::plan`].
    pub(crate) fn plan_below(&self, targets: &Targets, keep: usize, hooks: Hooks) -> Result<(Plan, u64)> {
        self.plan_below_alongside(targets, keep, hooks, |_, _| ()).map(|(plan, estimate, _)| (plan, estimate))
    }

    /// [`Guard::plan_below`], running `alongside` while the plan is made where the prediction of the
    /// whole run fits the limit ([`Plan::below_alongside`]: with the plan's skeleton and a flag set
    /// once it is made), and giving what it returned (`None` where it did not run: a plan made past
    /// the prediction only to measure the run). What `alongside` allocates is the run's, within its
    /// estimate: checked on the prediction before it starts, and on the plan's real sizes after; a
    /// refusal then drops what it made.
    ///
    /// # Errors
    /// As [`Guard::plan`].
    pub(crate) fn plan_below_alongside<T: Send>(
        &self,
        targets: &Targets,
        keep: usize,
        hooks: Hooks,
        alongside: impl FnOnce(&Plan, &AtomicBool) -> T + Send,
    ) -> Result<(Plan, u64, Option<T>)> {
        let (top, (lo, hi)) = (targets.top(), targets.g_range());
        // a floor past the limit is refused with the prediction (O(n) time, no memory), so that a
        // run is refused with the same figure whatever the limit
        let floor = match self.floor(top, hi) {
            Err(Error::OutOfMemory { estimate, .. }) => Some(estimate),
            other => other.map(|()| None)?,
        };
        let whole = |s: &Sizes| self.run.bytes(top, s);
        let w = crate::game::window(top, hooks)?;
        // every state lies in the W-aligned block of some target's g: the blocks from lo's to hi's
        let window = (hi | (w - 1)).saturating_sub(lo & !(w - 1)).saturating_add(1);
        // and the support below W that thins the layers (about 2 sqrt(n) layers)
        let plan_bytes =
            plan::kept_share(plan::bytes_at(top, window), top, keep).saturating_add(plan::support_bytes(targets, w));
        let predicted_sizes = Sizes { plan: plan_bytes, widest: (window / 4).max(1), highest: hi | (w - 1) };
        let predicted = whole(&predicted_sizes);
        if let Some(floor) = floor {
            return Err(refuse(predicted.max(floor), self.limit));
        }
        let bytes = self.limit.bytes;
        let allowance = if predicted > bytes { self.allowance() } else { 0 };
        if predicted > bytes && predicted_sizes.plan > allowance {
            return Err(refuse(predicted, self.limit));
        }
        let budget = Limit { bytes: bytes.max(allowance), ..self.limit };
        let fits = predicted <= bytes;
        let alongside = move |plan: &Plan, done: &AtomicBool| fits.then(|| alongside(plan, done));
        let (plan, beside) = Plan::below_alongside(targets, keep, budget, hooks, alongside).map_err(|e| match e {
            // the plan outgrew its prediction: the whole run with the plan as far as it was projected
            Error::OutOfMemory { estimate, .. } => {
                refuse(whole(&Sizes { plan: estimate, ..predicted_sizes }).max(predicted), self.limit)
            }
            e => e,
        })?;
        let estimate = self.check(whole(&plan.sizes()))?;
        Ok((plan, estimate, beside))
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
        let (plan, estimate) = Guard::new(run, u64::MAX).plan(&targets, Hooks::default()).unwrap();
        assert_eq!(estimate, run.bytes(1000, &plan.sizes()));
        for limit in [1, 44 << 10, estimate - 1] {
            match Guard::new(run, limit).plan(&targets, Hooks::default()) {
                Err(Error::OutOfMemory { estimate: e, limit: l, .. }) => assert_eq!((e, l.bytes()), (estimate, limit)),
                other => panic!("{other:?}"),
            }
        }
        // too large to plan: refused at once with the prediction, far above the limit
        let refused = Guard::new(run, 1 << 30).plan(&Targets::one(crate::game::MAX_N, 0), Hooks::default());
        assert!(matches!(refused, Err(Error::OutOfMemory { estimate, .. }) if estimate > 1 << 36), "{refused:?}");
    }
}
