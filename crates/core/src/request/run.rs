//! A planned count ([`Planned`]) and its run: the targets known to count 0 answered at once, then
//! the route decided when it was planned, each target's value and residues handed over as they come.

use num_bigint::BigUint;

use super::Values;
use crate::engines::blocked::{TileRule, Tuning};
use crate::engines::both_ends::{
    Cut, Halves, Position, Started, check_resume, count_blocked, count_resumable, count_taking,
};
use crate::engines::{Engine, modular, stream_words, to_biguint};
use crate::error::{Error, Result};
use crate::graph::{Recorder, Summary};
use crate::guard::kept_values;
use crate::hooks::Hooks;
use crate::plan::Plan;
use crate::targets::Targets;

/// A plan a count holds: its own (which the count may free as it goes), or one given.
pub(super) enum Held<'a> {
    Own(Plan),
    Given(&'a Plan),
}

impl Held<'_> {
    pub(super) fn get(&self) -> &Plan {
        match self {
            Held::Own(plan) => plan,
            Held::Given(plan) => plan,
        }
    }
}

/// What a resumable count calls between two of its segments: `(position, stopping)`, `stopping`
/// true once when the cancel flag stops the run. A position the caller saves can be resumed from
/// ([`crate::Request::resume`]).
type Save<'s> = dyn FnMut(&Position<'_>, bool) -> Result<()> + 's;

/// A count planned by [`crate::Request::plan`]: the route decided, the memory checked, the plan made
/// (and what ran beside it). [`Planned::run`] runs it.
///
/// # Examples
///
/// ```
/// use fibtree_core::{Engine, Request};
/// let targets = [(300, 0), (10, 0), (10, 0), (3, 1000)];
/// let planned = Request::exact(&targets, Engine::Blocked).plan()?;
/// assert_eq!(planned.targets(), [(3, 1000), (10, 0), (300, 0)]); // each once, in order
/// assert!(planned.is_zero(0) && planned.estimate() > 0); // c(3, 1000) = 0, known without counting
/// let mut values = Vec::new();
/// planned.run(|index, value, _| Ok(values.push((index, value.unwrap().to_string()))))?;
/// assert_eq!(values[..2], [(0, "0".to_string()), (1, "17".to_string())]);
/// # Ok::<(), fibtree_core::Error>(())
/// ```
pub struct Planned<'a> {
    pub(super) all: Targets,
    pub(super) zero: Vec<bool>,
    pub(super) live: Targets,
    /// The index in `all` of each live target.
    pub(super) live_at: Vec<usize>,
    pub(super) values: Values,
    pub(super) hooks: Hooks<'a>,
    pub(super) cut: Cut,
    pub(super) plan: Option<Held<'a>>,
    pub(super) halves: Option<Halves>,
    pub(super) estimate: u64,
    /// The modular engine's residues of the live targets, where they are known.
    pub(super) independent: Option<Vec<Vec<u64>>>,
    pub(super) top_down: Option<Started>,
    /// Residues by the dense modular engine with no plan.
    pub(super) unplanned: bool,
    pub(super) resume: Option<Position<'static>>,
    pub(super) chunk_lanes: Option<usize>,
    pub(super) tiles: Option<TileRule>,
    pub(super) alone: bool,
    /// Whether the values are kept whole until every target is counted (else streamed).
    pub(super) kept: bool,
}

impl std::fmt::Debug for Planned<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Planned").field("targets", &self.all).field("estimate", &self.estimate).finish()
    }
}

impl<'a> Planned<'a> {
    /// The count's targets, each once, in order of n, then g: what [`Planned::run`]'s indices
    /// name. Cost O(1).
    pub fn targets(&self) -> &[(u64, u64)] {
        &self.all
    }

    /// Whether the target at `index` of [`Planned::targets`] is known to count 0 without counting
    /// (g above every value a move of T(n) can leave, or outside the support: docs/math.md, "Where
    /// the counts are zero"). Cost O(1).
    pub fn is_zero(&self, index: usize) -> bool {
        self.zero[index]
    }

    /// The estimated peak memory of the run, in bytes: what the guard checked. Cost O(1).
    pub fn estimate(&self) -> u64 {
        self.estimate
    }

    /// The halves of the blocked engine's count of the one target: where it is cut and the work
    /// of each half (`None` for several targets, another engine or a count known to be 0). Cost
    /// O(1).
    pub fn halves(&self) -> Option<Halves> {
        self.halves
    }

    /// The modular engine's residues of the targets not known to count 0, in order, each in the
    /// order of the request's moduli (none for a request of exact values alone): found while the
    /// plan was made, or computed now. Cost: the modular engine's work, where not done yet.
    ///
    /// # Errors
    /// [`crate::Error::Interrupted`] when cancelled.
    pub fn residues(&mut self) -> Result<&[Vec<u64>]> {
        if self.independent.is_none() {
            self.independent = Some(self.residues_now()?);
        }
        Ok(self.independent.as_deref().unwrap_or_default())
    }

    /// Checks the position the count resumes from against the plan, before any work: the cut, the
    /// half and the layers' shapes its plan determines (its lanes' values are not checked: the
    /// residues and the parity check the value they give). [`Planned::run_saving`] checks it too.
    /// Cost O(the plan's non-zero sets up to the saved layers).
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] naming [`crate::Param::Resume`] where it does not fit.
    pub fn check_resume(&self) -> Result<()> {
        match (&self.plan, self.live.first()) {
            (Some(plan), Some(&(n, g))) => {
                let cut = self.halves.map_or(n, |h| h.cut);
                check_resume(plan.get(), (n, g), cut, self.resume.as_ref(), self.hooks)
            }
            _ => Ok(()),
        }
    }

    /// The plan the count made, where it made one (a plan given stays its owner's), for further
    /// counts over it ([`crate::Request::plan_given`]). Cost O(1).
    pub fn into_plan(self) -> Option<Plan> {
        match self.plan {
            Some(Held::Own(plan)) => Some(plan),
            _ => None,
        }
    }

    /// Runs the count and hands each target to `sink(index, value, residues)` (an error `sink`
    /// returns ends the run with it: a caller with errors of its own keeps them beside and returns a
    /// stop, [`Error::Interrupted`]), `index` that of
    /// [`Planned::targets`], `value` the exact value (`None` for residues alone), `residues` the
    /// modular engine's in the order of the request's moduli: first the targets known to count 0,
    /// then the others in order of n, then g. Where all the values together are small (up to
    /// 64 MiB), or a double check keeps them, the two engines of a checked count run at the same
    /// time and the values wait until both are done; otherwise the modular engine runs first and the
    /// exact engine streams, so that nothing is kept per target but its residues.
    ///
    /// Cost: the engines' work; memory the estimate.
    ///
    /// # Errors
    /// [`crate::Error::Interrupted`] when cancelled; [`crate::Error::CrossCheck`] for a value of the
    /// residue route not below |T(n)| (a wrong residue); whatever `sink` returns.
    pub fn run(self, sink: impl FnMut(usize, Option<BigUint>, &[u64]) -> Result<()> + Send) -> Result<()> {
        self.run_with(None, sink)
    }

    /// [`Planned::run`] for the one target of a count by the blocked engine, resumable: the halves
    /// one after the other, each in segments, calling `save(position, stopping)` between segments
    /// (with `stopping` true once when the cancel flag stops it, before
    /// [`crate::Error::Interrupted`] is returned), from the position the request resumes from. A
    /// stop then takes up to one segment's time.
    ///
    /// Cost: as [`Planned::run`], the halves one after the other.
    ///
    /// # Errors
    /// As [`Planned::run`]; as [`Planned::check_resume`]; whatever `save` returns.
    pub fn run_saving(
        self,
        save: &mut Save,
        sink: impl FnMut(usize, Option<BigUint>, &[u64]) -> Result<()> + Send,
    ) -> Result<()> {
        self.run_with(Some(save), sink)
    }

    /// [`Planned::run`], recording the blocked engine's task graph: each task's thread CPU time
    /// and the serial work around the graph, summed up. Costs two clock reads and a lock per task.
    ///
    /// # Errors
    /// As [`Planned::run`].
    pub fn run_recorded(
        self,
        sink: impl FnMut(usize, Option<BigUint>, &[u64]) -> Result<()> + Send,
    ) -> Result<Summary> {
        let recorder = Recorder::new();
        let hooks = self.hooks.record_to(&recorder);
        Planned { hooks, ..self }.run_with(None, sink)?;
        Ok(recorder.take().summary())
    }

    /// The moduli of the request's residues, in order (none for exact values alone). Cost O(1).
    pub fn moduli(&self) -> &[u64] {
        match &self.values {
            Values::Residues(moduli) | Values::Checked(_, moduli) => moduli,
            Values::Exact(_) => &[],
        }
    }

    /// The residues [`Planned::residues`] gives, where the modular engine found them while the plan
    /// was made (without running anything now). Cost O(1).
    pub fn known_residues(&self) -> Option<&[Vec<u64>]> {
        self.independent.as_deref()
    }

    /// The modular engine's residues of the live targets, computed now.
    fn residues_now(&self) -> Result<Vec<Vec<u64>>> {
        let (moduli, hooks, live) = (self.moduli(), self.hooks, &self.live);
        if moduli.is_empty() || live.is_empty() {
            return Ok(vec![Vec::new(); live.len()]);
        }
        let each = |m: &[u64]| match (&self.plan, self.unplanned) {
            (Some(plan), _) => modular::count_mod_with_plan(plan.get(), live, m, hooks),
            (None, _) => Ok(modular::count_mod_unplanned(live, m, hooks)?.expect("the arrays fit: planned so")),
        };
        if !self.alone {
            return each(moduli);
        }
        // each modulus alone, at most one a thread at once
        use rayon::prelude::*;
        let by_modulus: Vec<Vec<Vec<u64>>> = moduli.par_iter().map(|&m| each(&[m])).collect::<Result<_>>()?;
        Ok((0..live.len()).map(|t| by_modulus.iter().map(|r| r[t][0]).collect()).collect())
    }

    /// [`Planned::run`], resumable where `save` is given.
    fn run_with(
        mut self,
        save: Option<&mut Save>,
        mut sink: impl FnMut(usize, Option<BigUint>, &[u64]) -> Result<()> + Send,
    ) -> Result<()> {
        let exact = !matches!(self.values, Values::Residues(_));
        let zeros = vec![0; self.moduli().len()];
        for index in (0..self.all.len()).filter(|&i| self.zero[i]) {
            sink(index, exact.then_some(BigUint::ZERO), &zeros)?;
        }
        if self.live.is_empty() {
            return Ok(());
        }
        match self.values {
            Values::Residues(_) => {
                let residues = self.residues()?.to_vec();
                residues.iter().enumerate().try_for_each(|(t, r)| sink(self.live_at[t], None, r))
            }
            Values::Exact(engine) => {
                let residues = vec![Vec::new(); self.live.len()];
                self.exact(engine, save, residues, &mut sink)
            }
            Values::Checked(engine, _) => {
                if save.is_some() || self.halves.is_some_and(|h| h.both_ends()) || !self.kept {
                    // the residues first, then the exact value
                    let residues = self.residues()?.to_vec();
                    return self.exact(engine, save, residues, &mut sink);
                }
                self.both_at_once(engine, &mut sink)
            }
        }
    }

    /// The exact values, each handed over with its `residues` (those of the live targets, in order):
    /// one target from both ends, resumable where `save` is given; several streamed.
    fn exact(
        self,
        engine: Engine,
        save: Option<&mut Save>,
        residues: Vec<Vec<u64>>,
        sink: &mut (impl FnMut(usize, Option<BigUint>, &[u64]) -> Result<()> + Send),
    ) -> Result<()> {
        let Planned { live, live_at, hooks, cut, plan, halves, top_down, resume, chunk_lanes, tiles, .. } = self;
        let plan = plan.expect("live targets have a plan");
        let tune = move |t: Tuning| Tuning {
            chunk_lanes: chunk_lanes.unwrap_or(t.chunk_lanes),
            tiles: tiles.unwrap_or(t.tiles),
            ..t
        };
        if let Some(halves) = halves {
            let target = live[0];
            let value = match (save, plan) {
                (Some(save), Held::Own(plan)) => count_resumable(plan, target, halves.cut, hooks, resume, save)?,
                (Some(_), Held::Given(_)) => {
                    let why = "a count resumes over a plan of its own, which it frees as it goes";
                    return Err(Error::invalid(crate::error::Param::Resume, why));
                }
                (None, Held::Own(plan)) if halves.both_ends() && chunk_lanes.is_none() && tiles.is_none() => {
                    count_taking(plan, target, halves.cut, hooks, top_down)?
                }
                (None, plan) => count_blocked(plan.get(), target, halves.cut, hooks, tune)?,
            };
            return sink(live_at[0], Some(value), &residues[0]);
        }
        let mut failed = None;
        stream_words(engine, plan.get(), &live, cut, hooks, |t, words| {
            if failed.is_none()
                && let Err(e) = sink(live_at[t], Some(to_biguint(words)), &residues[t])
            {
                failed = Some(e);
            }
        })?;
        failed.map_or(Ok(()), Err)
    }

    /// The two engines of a checked count at the same time, the values kept until both are done.
    fn both_at_once(
        mut self,
        engine: Engine,
        sink: &mut (impl FnMut(usize, Option<BigUint>, &[u64]) -> Result<()> + Send),
    ) -> Result<()> {
        let known = self.independent.take();
        let plan = self.plan.as_ref().expect("live targets have a plan").get();
        let exact = || crate::engines::count_words(engine, plan, &self.live, self.cut, self.hooks);
        let independent = || match &known {
            Some(residues) => Ok(residues.clone()),
            None => self.residues_now(),
        };
        let (independent, words) = rayon::join(independent, exact);
        let (independent, words) = (independent?, words?);
        (0..self.live.len()).try_for_each(|t| sink(self.live_at[t], Some(to_biguint(&words[t])), &independent[t]))
    }
}

/// Whether a checked count of `targets` keeps its values whole (always for a double check; else
/// where they are small): the rule [`Planned::run`] follows and the guard counts.
pub(super) fn keeps(targets: &Targets, double_check: bool) -> bool {
    kept_values(targets.len(), targets.top(), double_check).is_some()
}
