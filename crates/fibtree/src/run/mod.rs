//! A counting run: the plan, the exact engine and the modular engine, and the report of each target
//! with its projections and the verdict of every cross-check ([`Counting`]); the route a count takes
//! (the plan kept below the cut, the modular engine with or without a plan) and the memory guard it
//! runs under; and the runs of the modular engine alone ([`mod_only`], over [`residues_each`]).
//! Checkpoints and the double check are policies of the run ([`Options`]).

mod drawn;
mod mod_only;

use std::collections::BTreeMap;

use fibtree_core::{Engine, Guard, Planned, Request};
use num_bigint::BigUint;
use num_traits::ToPrimitive;

use crate::checkpoint::{self, Saver};
use crate::error::{Error, Param, Result};
use crate::options::Options;
use crate::report::{Parity, Projection, Report};

pub(crate) use drawn::drawn_prime;
pub use mod_only::mod_only;
pub(crate) use mod_only::{check_modulus, moduli_of, residues_each};

/// A counting run: the exact c(n, g) of every target, each checked modulo 10^18, 998244353 and every
/// modulus of the [`Options`] against the modular engine, and mod 2 against the closed form of G
/// ([`crate::Parity`]), in the current rayon pool. It is planned
/// and checked against the memory limit first ([`Counting::new`]), so that a caller can refuse a
/// run (or print its estimate) before it writes anything, then run ([`Counting::for_each`] or
/// [`Counting::reports`]). [`mod_only`], [`crate::dist::distribution`] and
/// [`crate::dist::distribution_mod`] are the runs of one engine alone.
///
/// Cost: the exact engine's O(states x limbs(n)) limb additions plus the modular engine's
/// O(states x moduli); memory the plan (its layers packed: at most one bit per g of each window) plus three layers of
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
    options: &'a Options<'a>,
    /// The count made ready: the route decided, the plan made.
    planned: Planned<'a>,
    /// For each of the planned targets (each once, in order), the indices in `targets` that name it.
    named: Vec<Vec<usize>>,
    /// The residues a checkpoint saved, checked against the modular engine's before the exact
    /// engine resumes (never taken in their place).
    saved_residues: Option<Vec<u64>>,
    /// The moduli a checkpoint holds: the first of the run's (a resumed run adds a prime drawn for
    /// it).
    saved_moduli: usize,
    /// Whether the run resumes from its checkpoint, and where the saved run stood.
    resumed: Option<String>,
    /// The run's hold on its checkpoint, for the run's life.
    _hold: Option<checkpoint::Hold>,
}

impl<'a> Counting<'a> {
    /// Plans the run and checks its estimated peak memory against the limit, through the engines'
    /// door ([`fibtree_core::Request::plan`]). A target whose count is known to be 0 without
    /// counting (g above every value a move of T(n) can leave, or outside the support, docs/math.md
    /// "Where the counts are zero") is answered 0 and left out of the plan. Where the targets' g
    /// are small, the modular engine runs meanwhile, with no plan, so that its residues are ready
    /// when the exact engine starts; and for one target counted from both ends, the top-down half
    /// (which reads no plan layer) runs on the threads the plan leaves free, once the prediction of
    /// the whole run fits the limit, and pauses when the plan is made, to go on beside the bottom-up
    /// half. With a checkpoint, reads it first (or discards it, with [`crate::Checkpoint::fresh`]).
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
        let mut moduli = moduli_of(options)?;
        check_options(targets, options)?;
        let guard = |moduli: usize| Guard::count(options.limit(), moduli, targets.len(), options.double_check);
        let request = |moduli: Vec<u64>| {
            let request = Request::checked(targets, options.engine, moduli).cut(options.cut).hooks(options.hooks);
            options.steer(request.guard(guard(0)))
        };
        // the arguments checked before any work, then the checkpoint's path held
        request(moduli.clone()).check_arguments()?;
        let hold = options.checkpoint.as_ref().map(checkpoint::hold).transpose()?;
        // a checkpoint's run, read before any work, where the count is not known to be 0
        let saved = match &options.checkpoint {
            Some(spec) => {
                guard(moduli.len()).floor_of(targets, options.hooks)?;
                match fibtree_core::known_zeros(targets, options.hooks)?[0] {
                    true => None,
                    false => checkpoint::load(spec, targets[0], &moduli, options.hooks)?,
                }
            }
            None => None,
        };
        // a resumed value is also checked modulo a prime drawn now, which no file can anticipate
        let saved_moduli = moduli.len();
        if saved.is_some() {
            moduli.push(drawn_prime(&moduli)?);
        }
        let resumed = saved.as_ref().map(|s| s.position.stands(s.n));
        let (position, saved_residues) = saved.map(|s| (s.position, s.independent)).unzip();
        let count = moduli.len();
        let planned = request(moduli).guard(guard(count)).resume(position).plan()?;
        // the residues the checkpoint saved, against those computed now where they are known
        if let (Some(saved), Some(fresh), Some(spec)) = (&saved_residues, planned.known_residues(), &options.checkpoint)
        {
            let moduli = &planned.moduli()[..saved_moduli];
            checkpoint::check_residues(spec, moduli, saved, &fresh[0][..saved_moduli])?;
        }
        let named = named(targets, planned.targets());
        Ok(Counting { targets, options, planned, named, saved_residues, saved_moduli, resumed, _hold: hold })
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
    pub fn halves(&self) -> Option<fibtree_core::Halves> {
        self.planned.halves()
    }

    /// The estimated peak memory of the run, in bytes.
    pub fn memory_estimate_bytes(&self) -> u64 {
        self.planned.estimate()
    }

    /// Refuses at once a table (f(k) for every k from `from` to `to`, `from <= to`) whose smallest
    /// possible size, rows included, exceeds the limit, without listing the targets; a floor small
    /// enough to be refined passes, so that [`Counting::new`] refuses with the full estimate. Cost
    /// O(1), or O(`to`) time and no memory for a refusal.
    ///
    /// # Errors
    /// As [`Counting::new`]'s first check: [`Error::InvalidArgument`] naming [`Param::N`] for `to`
    /// above [`crate::MAX_N`] and for a modulus outside 2..2^63, [`Error::OutOfMemory`] naming
    /// [`Param::N`] with the whole table's prediction.
    ///
    /// # Examples
    ///
    /// ```
    /// use fibtree::{Counting, Options};
    /// Counting::check_table_floor(1, 1000, &Options::default())?;
    /// let small = Options { memory_limit: Some((1 << 10).into()), ..Options::default() };
    /// // two million rows: past what a refusal may spend to measure the run
    /// assert!(matches!(Counting::check_table_floor(1, 2_000_000, &small), Err(fibtree::Error::OutOfMemory { .. })));
    /// # Ok::<(), fibtree::Error>(())
    /// ```
    pub fn check_table_floor(from: u64, to: u64, options: &Options) -> Result<()> {
        let moduli = moduli_of(options)?;
        let rows = (to.saturating_sub(from) + 1).try_into().unwrap_or(usize::MAX);
        let guard = Guard::count(options.limit(), moduli.len(), rows, options.double_check);
        Ok(guard.floor_of(&[(to, 0)], options.hooks)?)
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
    pub fn for_each(mut self, mut sink: impl FnMut(usize, Report) -> Result<()> + Send) -> Result<()> {
        let (options, estimate) = (self.options, self.planned.estimate());
        let moduli = self.planned.moduli().to_vec();
        // the targets known to count 0 first, in the order given
        for (t, &(n, g)) in self.targets.iter().enumerate() {
            let index = self.planned.targets().binary_search(&(n, g)).expect("every target is planned");
            if self.planned.is_zero(index) {
                let value = BigUint::ZERO;
                // known to be 0, and still checked: an odd count (g < G(n)) is never known to be 0
                let projections = moduli.iter().map(|&modulus| Projection { modulus, residue: 0, independent: 0 });
                let (parity, double_check) = (Parity::of(n, g, &value), options.double_check.then_some(true));
                let projections = projections.collect();
                sink(t, Report { n, g, value, projections, parity, double_check, memory_estimate_bytes: estimate })?;
            }
        }
        let named = std::mem::take(&mut self.named);
        let named = &named;
        // each report to every index that names its target (a copy for each repeat)
        let mut sink = |index: usize, report: Report| {
            let (last, others) = named[index].split_last().expect("each target is named");
            others.iter().try_for_each(|&i| sink(i, report.clone()))?;
            sink(*last, report)
        };
        if options.checkpoint.is_some() {
            return self.resumable(&mut sink);
        }
        let planned_targets = self.planned.targets().to_vec();
        let zero: Vec<bool> = (0..planned_targets.len()).map(|i| self.planned.is_zero(i)).collect();
        let report = |index: usize, value: BigUint, residues: &[u64]| {
            assemble(planned_targets[index], value, &moduli, residues, estimate)
        };
        let planned = self.planned;
        if !options.double_check {
            // the targets known to count 0 were reported above
            return run_planned(planned, None, |index, value, residues| match value {
                Some(value) if !zero[index] => sink(index, report(index, value, residues)),
                _ => Ok(()),
            });
        }
        // with a double check, every value kept and computed again before any report
        let mut reports = BTreeMap::new();
        planned.run(|index, value, residues| {
            if let Some(value) = value.filter(|_| !zero[index]) {
                reports.insert(index, report(index, value, residues));
            }
            Ok(())
        })?;
        let mut reports: Vec<(usize, Report)> = reports.into_iter().collect();
        double_checked(&mut reports, options)?;
        reports.into_iter().try_for_each(|(index, report)| sink(index, report))
    }

    /// [`Counting::for_each`] of a run with a checkpoint: its residues first, checked against those
    /// the checkpoint saved, then the count from both ends resumed from it, saving as it goes, its
    /// report checked before the checkpoint is removed (a value that fails a check keeps the
    /// checkpoint it came from, for a look at it).
    fn resumable(self, sink: &mut impl FnMut(usize, Report) -> Result<()>) -> Result<()> {
        let Counting { options, mut planned, saved_residues, saved_moduli, resumed, .. } = self;
        let Some(spec) = &options.checkpoint else { return Ok(()) };
        if planned.targets().len() == 1 && planned.is_zero(0) {
            return Ok(());
        }
        let (hooks, estimate, moduli) = (options.hooks, planned.estimate(), planned.moduli().to_vec());
        let independent = planned.residues()?[0].clone();
        let kept = (&moduli[..saved_moduli], &independent[..saved_moduli]);
        if let Some(saved) = &saved_residues {
            checkpoint::check_residues(spec, kept.0, saved, kept.1)?;
        }
        let target = planned.targets()[0];
        if let Some(stands) = &resumed {
            // what the plan determines of the saved state checked before any work
            planned.check_resume().map_err(|e| checkpoint::does_not_fit(spec, e.into()))?;
            let shown = spec.path.display();
            hooks.notice(&format!("resuming from the checkpoint {shown} {stands}"));
            hooks.notice(&format!(
                "the resumed count is also checked modulo {}, a prime drawn for this run, which the checkpoint \
                 cannot know",
                moduli[saved_moduli]
            ));
        }
        let mut saver = Saver::new(spec, target, kept.0, kept.1, hooks);
        let mut save = |position: &fibtree_core::Position, stopping| saver.at_boundary(position, stopping);
        let mut value = BigUint::ZERO;
        let counted = run_planned(planned, Some(&mut save), |_, counted, _| {
            value = counted.unwrap_or_default();
            Ok(())
        });
        counted.map_err(|e| checkpoint::does_not_fit(spec, e))?;
        let mut reports = vec![(0, assemble(target, value, &moduli, &independent, estimate))];
        double_checked(&mut reports, options)?;
        match reports[0].1.ok() && reports[0].1.double_check != Some(false) {
            true => checkpoint::finish(spec, hooks),
            false => checkpoint::kept_after_a_failed_check(spec, hooks),
        }
        reports.into_iter().try_for_each(|(index, report)| sink(index, report))
    }
}

/// The checks of the options a counting run makes before any work: a checkpoint holds the run of
/// one count by the blocked engine, a cut is for the blocked engine, and lanes a chunk are one of
/// [`crate::CHUNK_LANES`].
///
/// # Errors
/// [`Error::InvalidArgument`] naming [`Param::Lanes`], [`Param::Checkpoint`] or [`Param::Cut`].
fn check_options(targets: &[(u64, u64)], options: &Options) -> Result<()> {
    options.check_lanes()?;
    if options.checkpoint.is_some() {
        if targets.len() != 1 {
            return Err(Error::invalid(Param::Checkpoint, "a checkpoint holds the run of one count"));
        }
        if options.engine != Engine::Blocked {
            return Err(Error::invalid(Param::Checkpoint, "checkpoints work with the blocked engine only"));
        }
    }
    if targets.len() == 1 && options.cut != fibtree_core::Cut::Auto && options.engine != Engine::Blocked {
        return Err(Error::invalid(Param::Cut, "a cut is for the blocked engine"));
    }
    Ok(())
}

/// What saves a count's position: the position, and whether the count is done.
type Save<'a> = &'a mut dyn FnMut(&fibtree_core::Position, bool) -> Result<()>;

/// Runs `planned` (resumable, saving to `save`, where given), handing each target to `sink`: the
/// errors of `sink` and `save`, the library's, come back as they are (the engines are told to
/// stop).
///
/// # Errors
/// The engines', and whatever `sink` or `save` returns.
fn run_planned(
    planned: Planned,
    save: Option<Save>,
    mut sink: impl FnMut(usize, Option<BigUint>, &[u64]) -> Result<()> + Send,
) -> Result<()> {
    let (mut sink_failed, mut save_failed) = (None, None);
    let stop = |failed: &mut Option<Error>, e: Error| {
        *failed = Some(e);
        fibtree_core::Error::Interrupted
    };
    let handed = |index: usize, value: Option<BigUint>, residues: &[u64]| {
        sink(index, value, residues).map_err(|e| stop(&mut sink_failed, e))
    };
    let ran = match save {
        Some(save) => {
            let mut saving = |position: &fibtree_core::Position, stopping| {
                save(position, stopping).map_err(|e| stop(&mut save_failed, e))
            };
            planned.run_saving(&mut saving, handed)
        }
        None => planned.run(handed),
    };
    match save_failed.or(sink_failed) {
        Some(e) => Err(e),
        None => Ok(ran?),
    }
}

/// For each of `planned` (each target once, in order), the indices in `targets` that name it.
fn named(targets: &[(u64, u64)], planned: &[(u64, u64)]) -> Vec<Vec<usize>> {
    let mut named = vec![Vec::new(); planned.len()];
    for (i, t) in targets.iter().enumerate() {
        let at = planned.binary_search(t).expect("every target is planned");
        named[at].push(i);
    }
    named
}

/// The reports (with the index of their planned target) with their double check: every value
/// computed again by the other exact engine over a plan made afresh, within the run's estimate,
/// which holds this second plan beside the first. Nothing where the options ask for none.
///
/// # Errors
/// As [`Counting::new`].
fn double_checked(reports: &mut [(usize, Report)], options: &Options) -> Result<()> {
    if !options.double_check || reports.is_empty() {
        return Ok(());
    }
    let targets: Vec<(u64, u64)> = reports.iter().map(|(_, r)| (r.n, r.g)).collect();
    let plan = fibtree_core::Plan::new(&targets, options.limit(), options.hooks)?;
    let request = Request::exact(&targets, options.engine.other()).plan_given(&plan).hooks(options.hooks);
    let mut again = vec![BigUint::ZERO; targets.len()];
    request.plan()?.run(|index, value, _| {
        again[index] = value.unwrap_or_default();
        Ok(())
    })?;
    for ((_, report), value) in reports.iter_mut().zip(again) {
        report.double_check = Some(value == report.value);
    }
    Ok(())
}

/// The report of c(n, g) from its exact value and the modular engine's residues, with its parity
/// beside the closed form's.
pub(crate) fn assemble(
    (n, g): (u64, u64),
    value: BigUint,
    moduli: &[u64],
    independent: &[u64],
    estimate: u64,
) -> Report {
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
