//! The exact engine's time as a cost per state and a cost per limb addition, the second scaled by
//! how much slower the engine's kernel runs at the run's width than at the calibration's.
//!
//! A run's work is its states (the source positions made for each, the passes' bookkeeping) and its
//! limb additions (the kernel, the normalisation). One rate per limb addition, measured on f(7000)
//! at 25 limbs a state, over-predicts wide runs, whose states carry 60 to 346 limbs (f(20000) to
//! f(100000)): their cost per state is spread over more limbs. So two runs of different limbs per
//! state (f(k) and f(k / 2)) give the two costs, and the kernel's own rate on synthetic layers of the
//! calibration's widest layer and of the run's (the level of the cache a layer falls in) scales the
//! cost per limb. docs/performance.md ("How estimate predicts") compares the model with real runs.

use super::spread::{Runs, Seconds};
use crate::engines::{self, Engine};
use crate::error::Result;
use crate::hooks::Hooks;
use crate::plan::Plan;
use crate::targets::Targets;

/// The exact engine's costs, as [`super::estimate`] calibrates them from its fastest runs: seconds
/// per state and per limb addition, the factor by which a limb addition costs more at the run's
/// widest layer than at the calibration's, and how much slower the calibration's slowest run was
/// than its fastest (the top of the range).
///
/// ```
/// # use fibtree_core as fibtree;
/// use fibtree::estimate::{ExactModel, Seconds};
/// let model = ExactModel { state_seconds: 5e-9, limb_seconds: 4e-10, width_factor: 1.25, slowdown: 1.1 };
/// let t = model.seconds(1e9, 4e11); // 10^9 states, 4 x 10^11 limb additions
/// assert!((t.low - 205.0).abs() < 1e-9 && (t.high - 225.5).abs() < 1e-9);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExactModel {
    /// The seconds of one state's work beside its limbs (0 where the two runs did not separate it:
    /// then `limb_seconds` is the average of the larger run).
    pub state_seconds: f64,
    /// The seconds of one limb addition at the calibration's width.
    pub limb_seconds: f64,
    /// The kernel's rate at the calibration's widest layer over its rate at the run's (1 where
    /// the run is no wider or a rate could not be measured).
    pub width_factor: f64,
    /// The larger calibration run's fastest speed over its slowest (at least 1).
    pub slowdown: f64,
}

impl ExactModel {
    /// The predicted CPU seconds of `states` states and `limbs` limb additions: per state plus per
    /// limb times the width factor, up to that times the slowdown. Cost O(1).
    pub fn seconds(&self, states: f64, limbs: f64) -> Seconds {
        let low = self.state_seconds * states + self.limb_seconds * self.width_factor * limbs;
        Seconds { low, high: low * self.slowdown.max(1.0) }
    }
}

/// One calibration run's work and CPU seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Timed {
    pub(crate) states: f64,
    pub(crate) limbs: f64,
    pub(crate) seconds: f64,
}

/// The least share of the larger calibration run's time its limbs may take in a fit: at 25 limbs a
/// state the kernel and the normalisation alone take 70 % of a run (docs/performance.md, "The work
/// per state"), so a fit that leaves the limbs under half of it is the noise of a loaded machine
/// (seen: 0.001 ns a limb), which would under-predict a wide run many times over.
const LIMBS_SHARE_MIN: f64 = 0.5;

/// The cost per state and per limb (in that order) that give both runs' seconds exactly, or, where
/// the runs do not separate them (equal limbs per state, a cost that comes out negative, or limbs
/// under [`LIMBS_SHARE_MIN`] of the larger run, from noise), none per state and the larger run's
/// seconds per limb: the one rate, which over-predicts wide runs rather than under-predicting them.
/// Cost O(1).
pub(crate) fn fit(small: Timed, large: Timed) -> (f64, f64) {
    let det = small.states * large.limbs - large.states * small.limbs;
    let per_state = (small.seconds * large.limbs - large.seconds * small.limbs) / det;
    let per_limb = (small.states * large.seconds - large.states * small.seconds) / det;
    let separated = det.abs() > 0.0 && per_state.is_finite() && per_state >= 0.0 && per_limb.is_finite();
    if separated && per_limb * large.limbs >= LIMBS_SHARE_MIN * large.seconds {
        (per_state, per_limb)
    } else {
        (0.0, large.seconds / large.limbs.max(1.0))
    }
}

/// One of the calibration's exact runs: f(k) from both ends, its plan and its timed runs.
pub(crate) struct ExactRun {
    targets: Targets,
    plan: Plan,
    /// The layer the count is cut at.
    cut: u64,
    pub(crate) runs: Runs,
}

impl ExactRun {
    /// The plan of f(k), no run yet. Cost: the plan's.
    pub(crate) fn new(k: u64, hooks: Hooks) -> Result<ExactRun> {
        let targets = Targets::one(k, 0);
        let plan = Plan::new(&targets, u64::MAX, hooks)?;
        let halves = engines::both_ends::halves(plan.lens(), engines::Cut::Auto);
        let runs = Runs::new(halves.work() as f64);
        Ok(ExactRun { targets, plan, cut: halves.cut, runs })
    }

    /// The width at which its limb additions are made ([`crate::cost::working_width`]). Cost O(k).
    pub(crate) fn working_width(&self) -> u64 {
        crate::cost::working_width(self.plan.lens(), self.cut as usize)
    }

    /// One more timed run. Cost: the count's.
    pub(crate) fn time(&mut self, hooks: Hooks) -> Result<()> {
        let ExactRun { targets, plan, runs, .. } = self;
        runs.time(|| engines::count_words(Engine::Blocked, plan, targets, engines::Cut::Auto, hooks).map(|_| ()))
    }

    /// This run's work and seconds at the speed `speed` (limb additions per second).
    fn timed(&self, speed: f64) -> Timed {
        let limbs = self.runs.work();
        Timed { states: self.plan.states() as f64, limbs, seconds: limbs / speed.max(f64::MIN_POSITIVE) }
    }

    /// The costs per state and per limb that this run (the smaller) and `large` give in their fastest
    /// runs, with `width_factor`, and the larger run's slowdown. Cost O(1).
    pub(crate) fn model(&self, large: &ExactRun, width_factor: f64) -> ExactModel {
        let (small_speeds, large_speeds) = (self.runs.spread(), large.runs.spread());
        let (state_seconds, limb_seconds) = fit(self.timed(small_speeds.fast), large.timed(large_speeds.fast));
        let slowdown = large_speeds.fast / large_speeds.slow.max(f64::MIN_POSITIVE);
        ExactModel { state_seconds, limb_seconds, width_factor, slowdown }
    }
}

/// How much more a limb addition costs at a run of f(`n`) on `threads` threads whose limb additions
/// are made at `width` states a layer than at the calibration's f(`k`) on one thread, made at
/// `calibration_width`: the kernel's rate over synthetic layers as wide as the calibration's, in the
/// chunks its run takes, over its rate as wide as the run's, in the run's. 1 where the run is no
/// wider or a rate cannot be measured (no memory for its layers). Cost: the kernel over
/// synthetic layers of both widths ([`kernels::lane_rate`]).
pub(crate) fn width_factor(calibration_width: u64, k: u64, width: u64, n: u64, threads: usize) -> f64 {
    if width <= calibration_width {
        return 1.0;
    }
    let rate = |width: u64, n: u64, threads: usize| {
        let width = width.min(u32::MAX as u64) as usize;
        let tuning = engines::blocked::Tuning::for_run(width, n as usize, threads);
        crate::kernels::lane_rate(tuning.isa, tuning.chunk_lanes, width)
    };
    // each the best of rounds taken in turn, so that what the machine does meanwhile slows both
    let (mut there, mut here) = (0.0f64, 0.0f64);
    for _ in 0..WIDTH_ROUNDS {
        match (rate(calibration_width, k, 1), rate(width, n, threads)) {
            (Some(a), Some(b)) => (there, here) = (there.max(a), here.max(b)),
            _ => return 1.0,
        }
    }
    if there > 0.0 && here > 0.0 { there / here } else { 1.0 }
}

/// The turns of each width's kernel rate in [`width_factor`].
const WIDTH_ROUNDS: usize = 4;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_runs_give_both_costs() {
        // 5 ns a state and 0.4 ns a limb, at 11.6 and 25.3 limbs a state (f(3500), f(7000))
        let run = |states: f64, limbs: f64| Timed { states, limbs, seconds: 5e-9 * states + 4e-10 * limbs };
        let (s, l) = fit(run(5.96e6, 6.89e7), run(4.95e6, 1.251e8));
        assert!((s - 5e-9).abs() < 1e-15 && (l - 4e-10).abs() < 1e-16, "{s} {l}");
    }

    #[test]
    fn runs_that_cannot_separate_the_costs_give_one_rate() {
        // the same limbs per state
        let a = Timed { states: 1e6, limbs: 2e7, seconds: 0.01 };
        let b = Timed { states: 2e6, limbs: 4e7, seconds: 0.021 };
        assert_eq!(fit(a, b), (0.0, 0.021 / 4e7));
        // a negative cost per state (the smaller run slower per limb than the costs allow)
        let a = Timed { states: 1e6, limbs: 1e7, seconds: 0.001 };
        let b = Timed { states: 1e6, limbs: 2e7, seconds: 0.01 };
        assert_eq!(fit(a, b), (0.0, 0.01 / 2e7));
        // the limbs a tenth of the larger run (the smaller run slowed by a loaded machine)
        let a = Timed { states: 1e6, limbs: 1e7, seconds: 0.0095 };
        let b = Timed { states: 1e6, limbs: 2e7, seconds: 0.0105 };
        let (s, l) = (0.009, 1e-3 / 1e7); // what the equations give
        assert!(l * b.limbs < 0.5 * b.seconds && s > 0.0);
        assert_eq!(fit(a, b), (0.0, 0.0105 / 2e7));
    }

    #[test]
    fn the_width_factor_scales_only_the_limbs() {
        let m = ExactModel { state_seconds: 1.0, limb_seconds: 1.0, width_factor: 2.0, slowdown: 2.0 };
        assert_eq!(m.seconds(10.0, 100.0), Seconds { low: 210.0, high: 420.0 });
        // a slowdown below 1 (no runs) does not put the top under the figure
        let m = ExactModel { slowdown: 0.0, ..m };
        assert_eq!(m.seconds(10.0, 100.0), Seconds { low: 210.0, high: 210.0 });
    }
}
