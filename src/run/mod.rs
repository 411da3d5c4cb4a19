//! A counting run: the plan, the exact engine and the modular engine, and the report of each target
//! with its projections and the verdict of every cross-check ([`Counting`]); the route a count takes
//! (the plan kept below the cut, the modular engine with or without a plan) and the memory guard it
//! runs under; and the runs of the modular engine alone ([`mod_only`], [`mod_only_each`]).
//! Checkpoints and the double check are policies of the run ([`Options`]).

mod mod_only;
mod planned;

use std::sync::atomic::{AtomicBool, Ordering};

use num_bigint::BigUint;
use num_traits::ToPrimitive;

use crate::budget::{PROCESS_BYTES, kept_values};
use crate::checkpoint::{self, Saver};
use crate::engines::both_ends::{Point, Position, Started};
use crate::engines::{self, Engine, modular};
use crate::error::{Error, Param, Result};
use crate::options::Options;
use crate::plan::{self, Plan};
use crate::report::{Parity, Projection, Report};
use crate::targets::Targets;

use mod_only::moduli_of;
pub(crate) use mod_only::residues_each;
pub use mod_only::{mod_only, mod_only_each};
pub use planned::check_table_floor;
pub(crate) use planned::planned_under;
use planned::{before_the_plan, count_guard, cut_before_the_plan, kept_layers, planned};

/// A counting run: the exact c(n, g) of every target, each checked modulo 10^18, 998244353 and every
/// modulus of the [`Options`] against the modular engine, and mod 2 against the closed form of G
/// ([`crate::Parity`]), in the current rayon pool. It is planned
/// and checked against the memory limit first ([`Counting::new`]), so that a caller can refuse a
/// run (or print its estimate) before it writes anything, then run ([`Counting::for_each`] or
/// [`Counting::reports`]). [`mod_only`], [`crate::dist::distribution`] and
/// [`crate::dist::distribution_mod`] are the runs of one engine alone.
///
/// Cost: the exact engine's O(states x limbs(n)) limb additions plus the modular engine's
/// O(states x moduli); memory the plan (one bit per g of each layer's window) plus three layers of
/// each engine, estimated and checked against the limit before any layer is allocated.
///
/// # Examples
///
/// ```
/// let (targets, options) = ([(300, 0)], fibtree::Options::default());
/// let counting = fibtree::Counting::new(&targets, &options)?;
/// assert!(counting.memory_estimate_bytes() > 0); // known before the engines run
/// counting.for_each(|_, report| {
///     assert_eq!(report.projection(fibtree::P998244353).unwrap().residue, 110_881_951);
///     Ok(())
/// })?;
/// # Ok::<(), fibtree::Error>(())
/// ```
pub struct Counting<'a> {
    targets: &'a [(u64, u64)],
    /// The indices of the targets known to count 0 ([`crate::plan::known_zero`]): no plan for them.
    zero: Vec<usize>,
    /// The other targets, what the engines run over (sorted, each once), and for each of them the
    /// indices in `targets` that name it.
    live: Targets,
    named: Vec<Vec<usize>>,
    options: &'a Options<'a>,
    moduli: Vec<u64>,
    /// The plan of the live targets (`None` where there are none).
    plan: Option<Plan>,
    /// The blocked engine's halves for one target ([`Counting::halves`]).
    halves: Option<crate::engines::both_ends::Halves>,
    estimate: u64,
    /// The modular engine's residues where they were found while the plan was built.
    independent: Option<Vec<Vec<u64>>>,
    /// The residues a checkpoint saved, checked against the modular engine's before the exact
    /// engine resumes (never taken in their place).
    saved_residues: Option<Vec<u64>>,
    /// The moduli a checkpoint holds: the first of `moduli` (a resumed run adds a prime drawn for it).
    saved_moduli: usize,
    /// Where the blocked engine stood, read from the checkpoint.
    resume: Option<Position>,
    /// The top-down half of a count from both ends, started while the plan was made.
    top_down: Option<Started>,
    /// The run's hold on its checkpoint, for the run's life.
    _hold: Option<checkpoint::Hold>,
}

impl<'a> Counting<'a> {
    /// Plans the run and checks its estimated peak memory against the limit. A target whose count is
    /// known to be 0 without counting (g above every value a move of T(n) can leave, or outside the
    /// support, docs/math.md "Where the counts are zero") is answered 0 and left out of the plan. Where the
    /// targets' g are small, the modular engine runs meanwhile, with no plan, so that its residues
    /// are ready when the exact engine starts; and for one target counted from both ends, the
    /// top-down half (which reads no plan layer) runs on the threads the plan leaves free, once the
    /// prediction of the whole run fits the limit, and pauses when the plan is made, to go on beside
    /// the bottom-up half. With a checkpoint, reads it first (or discards it, with
    /// [`crate::Checkpoint::fresh`]).
    ///
    /// Cost: O(1) for the floor of the memory guard, which comes first; O(top n) for the bounds;
    /// the support's forward pass for a target g between the edge values' power of two and the
    /// bound; the plan's backward pass, and the modular engine's work.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for n too large, a modulus outside 2..2^63 or a checkpoint that
    /// cannot be used; [`Error::OutOfMemory`] when the estimate exceeds the memory limit (with the
    /// estimate of the whole run); [`Error::Interrupted`] when cancelled.
    pub fn new(targets: &'a [(u64, u64)], options: &'a Options<'a>) -> Result<Counting<'a>> {
        let moduli = moduli_of(options)?;
        if options.checkpoint.is_some() {
            if targets.len() != 1 {
                return Err(Error::invalid(Param::Checkpoint, "a checkpoint holds the run of one count"));
            }
            if options.engine != Engine::Blocked {
                return Err(Error::invalid(Param::Checkpoint, "checkpoints work with the blocked engine only"));
            }
        }
        // the cut checked before any work
        options.cut.resolve(targets, options.engine)?;
        // the checkpoint's path checked and held before any work
        let hold = options.checkpoint.as_ref().map(checkpoint::hold).transpose()?;
        // Before anything of size O(n): the floor of the whole run.
        let all = Targets::new(targets);
        // past the limit, refused with the whole run's prediction (O(n) time, no memory): the figure
        // a larger limit would give too
        let guard = count_guard(targets.len(), moduli.len(), options);
        if let Err(e) = guard.floor(all.top(), all.g_range().1) {
            if !matches!(e, Error::OutOfMemory { .. }) {
                return Err(e);
            }
            // the cheapest route's figure: the modular engine without a plan, the plan kept below the cut
            let keep = kept_layers(&all, options, None);
            return Err(guard.plan_below(&all, keep, options.hooks).err().unwrap_or(e));
        }
        // each distinct target once: known to count 0 without counting, or counted
        let distinct: Vec<(u64, u64)> = all.iter().copied().collect();
        let zero = plan::known_zeros(&distinct, options.hooks)?;
        let live: Vec<(u64, u64)> = distinct.iter().zip(zero).filter(|(_, z)| !z).map(|(&t, _)| t).collect();
        let live = Targets::new(&live);
        let (mut zero, mut named) = (Vec::new(), vec![Vec::new(); live.len()]);
        for (i, &t) in targets.iter().enumerate() {
            match live.index_of(t) {
                Some(at) => named[at].push(i),
                None => zero.push(i),
            }
        }
        // a checkpoint's run, read before any work
        let saved = match &options.checkpoint {
            Some(spec) if !live.is_empty() => checkpoint::load(spec, live[0], &moduli, options.hooks)?,
            _ => None,
        };
        // a resumed value is also checked modulo a prime drawn now, which no file can anticipate
        let mut moduli = moduli;
        let saved_moduli = moduli.len();
        if saved.is_some() {
            moduli.push(drawn_prime(fibtree_util::clock_seed(), &moduli));
        }
        let (plan, estimate, independent, top_down) = if live.is_empty() {
            (None, PROCESS_BYTES, None, None)
        } else {
            // a resumed run computes its residues afresh, as a new one does: never from the file
            let (early, keep) = before_the_plan(&live, options, moduli.len())?;
            let keep = match &saved {
                Some(saved) if early => kept_layers(&live, options, Some(saved.position.cut())),
                _ => keep,
            };
            let cut = (options.checkpoint.is_none()).then(|| cut_before_the_plan(&live, options)).flatten();
            // the plan stops the modular engine when it fails
            let failed = AtomicBool::new(false);
            let (result, independent) = rayon::join(
                || {
                    planned(&live, options, moduli.len(), keep, cut)
                        .inspect_err(|_| failed.store(true, Ordering::Relaxed))
                },
                || match early {
                    true => modular::count_mod_unplanned(&live, &moduli, options.hooks.also_stopped_by(&failed)),
                    false => Ok(None),
                },
            );
            let (plan, estimate, top_down) = match result {
                // refused on the route that keeps every layer: with the figure of the cheapest
                // route, the one a larger limit would take, so that the figure is the same whatever the limit
                Err(e @ Error::OutOfMemory { .. }) if !early => {
                    let keep = kept_layers(&live, options, None);
                    return Err(planned(&live, options, moduli.len(), keep, None).err().unwrap_or(e));
                }
                result => result?,
            };
            (Some(plan), estimate, independent?, top_down)
        };
        // the residues the checkpoint saved, against those computed now where they are known
        let (resume, saved_residues) = saved.map(|s| (s.position, s.independent)).unzip();
        if let (Some(saved), Some(fresh), Some(spec)) = (&saved_residues, &independent, &options.checkpoint) {
            checkpoint::check_residues(spec, &moduli[..saved_moduli], saved, &fresh[0][..saved_moduli])?;
        }
        // a resumed run goes on at its checkpoint's cut
        let cut = match &resume {
            Some(saved) => options.cut.resumed(saved.cut())?,
            None => options.cut,
        };
        let halves = match (&plan, options.engine) {
            (Some(plan), Engine::Blocked) => engines::halves_of(plan, &live, cut),
            _ => None,
        };
        Ok(Counting {
            targets,
            zero,
            live,
            named,
            options,
            moduli,
            plan,
            halves,
            estimate,
            independent,
            saved_residues,
            saved_moduli,
            resume,
            top_down,
            _hold: hold,
        })
    }

    /// The blocked engine's halves for the one target: where it is cut and the work of each half
    /// (`None` for several targets, another engine or a count known to be 0). Cost O(1).
    ///
    /// # Examples
    ///
    /// ```
    /// let options = fibtree::Options::default();
    /// let counting = fibtree::Counting::new(&[(2000, 0)], &options)?;
    /// let halves = counting.halves().expect("one target, the blocked engine");
    /// assert!(halves.cut <= 2000 && halves.work() <= halves.bottom_up);
    /// # Ok::<(), fibtree::Error>(())
    /// ```
    pub fn halves(&self) -> Option<crate::engines::both_ends::Halves> {
        self.halves
    }

    /// The estimated peak memory of the run, in bytes.
    pub fn memory_estimate_bytes(&self) -> u64 {
        self.estimate
    }

    /// Runs the engines and gives every report, in the order of the targets given.
    ///
    /// Cost: as [`Counting::for_each`], and the values kept.
    ///
    /// # Errors
    /// As [`Counting::for_each`].
    ///
    /// # Examples
    ///
    /// ```
    /// let options = fibtree::Options { moduli: vec![1_000_000_007], double_check: true, ..Default::default() };
    /// let reports = fibtree::Counting::new(&[(10, 0), (10, 26)], &options)?.reports()?;
    /// let values: Vec<String> = reports.iter().map(|r| r.value.to_string()).collect();
    /// assert_eq!(values, ["17", "4"]);
    /// assert!(reports.iter().all(|r| r.ok() && r.double_check == Some(true) && r.projections.len() == 3));
    /// # Ok::<(), fibtree::Error>(())
    /// ```
    pub fn reports(self) -> Result<Vec<Report>> {
        let mut reports: Vec<Option<Report>> = vec![None; self.targets.len()];
        self.for_each(|t, report| {
            reports[t] = Some(report);
            Ok(())
        })?;
        Ok(reports.into_iter().map(|r| r.expect("every target is reported")).collect())
    }

    /// Runs the engines and hands each report to `sink(index, report)`, `index` that of its target
    /// in the targets given (each of a repeated target gets its copy): first the targets known to
    /// count 0 without counting, in the order given, then the others in order of n, then g. Where
    /// all the values together are small (up to 64 MiB) the two engines run at the same time and
    /// the values are kept until both are done; otherwise the modular engine runs first and the
    /// exact engine streams, so that nothing is kept per target but its residues.
    ///
    /// Cost: the two engines' work; memory the estimate.
    ///
    /// # Errors
    /// [`Error::Interrupted`] when cancelled, [`Error::Io`] when a checkpoint cannot be saved, and
    /// whatever `sink` returns.
    ///
    /// # Examples
    ///
    /// ```
    /// let (targets, options) = ([(300, 0), (10, 0)], fibtree::Options::default());
    /// let mut seen = Vec::new();
    /// fibtree::Counting::new(&targets, &options)?.for_each(|index, report| {
    ///     seen.push((index, report.n));
    ///     Ok(())
    /// })?;
    /// assert_eq!(seen, [(1, 10), (0, 300)]); // in order of n
    /// # Ok::<(), fibtree::Error>(())
    /// ```
    pub fn for_each(self, mut sink: impl FnMut(usize, Report) -> Result<()> + Send) -> Result<()> {
        let Counting {
            targets: all,
            zero,
            live,
            named,
            options,
            moduli,
            plan,
            halves,
            estimate,
            independent,
            saved_residues,
            saved_moduli,
            resume,
            top_down,
            _hold,
        } = self;
        for &t in &zero {
            let (n, g) = all[t];
            let projections =
                moduli.iter().map(|&modulus| Projection { modulus, residue: 0, independent: 0 }).collect();
            let double_check = options.double_check.then_some(true);
            let value = BigUint::ZERO;
            // known to be 0, and still checked: an odd count (g < G(n)) is never known to be 0
            let parity = Parity::of(n, g, &value);
            sink(t, Report { n, g, value, projections, parity, double_check, memory_estimate_bytes: estimate })?;
        }
        let Some(plan) = plan else { return Ok(()) };
        let targets = &live;
        // each report to every index that names its target (a copy for each repeat)
        let mut sink = |t: usize, report: Report| {
            let (last, others) = named[t].split_last().expect("each target is named");
            others.iter().try_for_each(|&i| sink(i, report.clone()))?;
            sink(*last, report)
        };
        let (moduli, hooks) = (&moduli, options.hooks);
        let report =
            |t: usize, words: &[u64], independent: &[u64]| assemble(targets[t], words, moduli, independent, estimate);
        // the independent check values: the modular engine's residues
        let independent_of = |plan: &Plan| match &independent {
            Some(residues) => Ok(residues.clone()),
            None => modular::count_mod_with_plan(plan, targets, moduli, hooks),
        };
        if let Some(spec) = &options.checkpoint {
            let independent = independent_of(&plan)?;
            let kept = (&moduli[..saved_moduli], &independent[0][..saved_moduli]);
            if let Some(saved) = &saved_residues {
                checkpoint::check_residues(spec, kept.0, saved, kept.1)?;
            }
            let n = targets[0].0;
            let cut = halves.map_or(n, |s| s.cut);
            if let Some(position) = &resume {
                // what the plan determines of the saved state checked before any work
                let shown = spec.path.display();
                engines::both_ends::check_resume(&plan, targets[0], cut, Some(position), hooks).map_err(
                    |e| match e {
                        Error::InvalidArgument { param: Param::Checkpoint, expected } => {
                            Error::invalid(Param::Checkpoint, format!("'{shown}': {expected}"))
                        }
                        other => other,
                    },
                )?;
                hooks.notice(&format!("resuming from the checkpoint {shown} {}", position_line(position, n)));
                hooks.notice(&format!(
                    "the resumed count is also checked modulo {}, a prime drawn for this run, which the checkpoint \
                     cannot know",
                    moduli[saved_moduli]
                ));
            }
            let mut saver = Saver::new(spec, targets[0], kept.0, kept.1, hooks);
            let mut save = |point: Point, stopping| saver.at_boundary(point, stopping);
            let value = engines::both_ends::count_resumable(plan, targets[0], cut, hooks, resume, &mut save)?;
            let reports = vec![report(0, &engines::to_words(&value), &independent[0])];
            let reports = self_checked(reports, targets, options)?;
            // a value that fails a check keeps the checkpoint it came from, for a look at it
            match reports[0].ok() && reports[0].double_check != Some(false) {
                true => checkpoint::finish(spec, hooks),
                false => checkpoint::kept_after_a_failed_check(spec, hooks),
            }
            return reports.into_iter().try_for_each(|r| sink(0, r));
        }
        // From both ends: the residues first (found while the plan was made, for a small g), then
        // the plan given up to the count, which frees it as it goes.
        if let Some(halves) = halves.filter(|s| s.both_ends()) {
            let independent = independent_of(&plan)?;
            let value = engines::both_ends::count_taking(plan, targets[0], halves.cut, hooks, top_down)?;
            let reports = vec![report(0, &engines::to_words(&value), &independent[0])];
            return self_checked(reports, targets, options)?.into_iter().try_for_each(|r| sink(0, r));
        }
        if kept_values(targets.len(), targets.top(), options.double_check).is_some() {
            // Small results: both engines at once, the values kept until the residues are known.
            let plan = &plan;
            let exact = || engines::count_words(options.engine, plan, targets, options.cut, hooks);
            let (independent, words) = rayon::join(|| independent_of(plan), exact);
            let (independent, words) = (independent?, words?);
            let reports = (0..targets.len()).map(|t| report(t, &words[t], &independent[t])).collect();
            let mut reports: Vec<Option<Report>> =
                self_checked(reports, targets, options)?.into_iter().map(Some).collect();
            return (0..targets.len()).try_for_each(|t| sink(t, reports[t].take().expect("each target once")));
        }
        // Large results: the residues first, then the exact values streamed.
        let independent = independent_of(&plan)?;
        let mut failed = None;
        engines::stream_words(options.engine, &plan, targets, options.cut, hooks, |t, words| {
            if failed.is_none()
                && let Err(e) = sink(t, report(t, words, &independent[t]))
            {
                failed = Some(e);
            }
        })?;
        failed.map_or(Ok(()), Err)
    }
}

/// A prime between 2^61 and 2^63 drawn from `seed`, none of `moduli`: the first prime at or above
/// a random odd number of [2^61, 2^62). A resumed count is checked modulo it too: the checkpoint was
/// written before it was drawn, so a file whose lanes were altered so that the value still agrees
/// with the other projections (a change by a multiple of their product) cannot be made to agree
/// with it, but by chance (about 1 in 2^61). Cost: a few dozen primality tests.
fn drawn_prime(seed: u64, moduli: &[u64]) -> u64 {
    let mut p = (1 << 61) | (fibtree_util::SplitMix64(seed).next_u64() >> 3) | 1;
    while !primal_check::miller_rabin(p) || moduli.contains(&p) {
        p += 2;
    }
    p
}

/// Where a checkpoint's run stands, as the notice of its resumption says it.
fn position_line(position: &Position, n: u64) -> String {
    let point = match position {
        Position::Up { cut, state } => Point::Up { cut: *cut, state },
        Position::Down { cut, below, state, .. } => Point::Down { cut: *cut, below, direct: &BigUint::ZERO, state },
    };
    checkpoint::where_it_stands(&point, n)
}

/// The reports with their double check where the options ask for one: every value computed again by
/// the other exact engine over a plan made afresh.
///
/// # Errors
/// As [`Counting::new`].
fn self_checked(mut reports: Vec<Report>, targets: &Targets, options: &Options) -> Result<Vec<Report>> {
    if options.double_check {
        // within the run's estimate, which holds this second plan beside the first
        let plan = Plan::new(targets, options.limit(), options.hooks)?;
        let again = engines::count_exact(options.engine.other(), &plan, targets, options.hooks)?;
        for (report, value) in reports.iter_mut().zip(again) {
            report.double_check = Some(value == report.value);
        }
    }
    Ok(reports)
}

/// The report of c(n, g) from its exact words and the modular engine's residues, with its parity
/// beside the closed form's.
fn assemble((n, g): (u64, u64), words: &[u64], moduli: &[u64], independent: &[u64], estimate: u64) -> Report {
    let value = engines::to_biguint(words);
    let projections = moduli
        .iter()
        .zip(independent)
        .map(|(&modulus, &independent)| Projection {
            modulus,
            residue: (&value % modulus).to_u64().expect("a residue is below its modulus"),
            independent,
        })
        .collect();
    let parity = Parity::of(n, g, &value);
    Report { n, g, value, projections, parity, double_check: None, memory_estimate_bytes: estimate }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drawn_prime_is_a_modulus_of_its_own() {
        let seed = 0x5eed_d4a3_u64;
        println!("seeds from {seed:#x}");
        for i in 0..50 {
            let p = drawn_prime(seed + i, &[]);
            assert!(primal_check::miller_rabin(p) && p > 1 << 61 && p < crate::MODULUS_LIMIT, "{p}");
            assert_ne!(drawn_prime(seed + i, &[p]), p, "never one of the moduli given");
        }
        assert_ne!(drawn_prime(1, &[]), drawn_prime(2, &[]));
    }
}
