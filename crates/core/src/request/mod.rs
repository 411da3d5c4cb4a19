//! The one door of a count: a [`Request`] (the targets, what to compute, the cut, the plan or how
//! to make it, the hooks, the memory it may use), made ready by [`Request::plan`] (the route
//! decided, the memory checked at each step, the plan made) and run by [`Planned::run`].
//!
//! - [`route`]: what is decided before the plan: the layers it keeps, whether the modular engine
//!   needs it, the cut of a count from both ends, and the plan itself with the work that starts
//!   beside it;
//! - [`run`]: the planned count run, each target's value and residues handed over as they come.

mod route;
mod run;

use crate::engines::Engine;
use crate::engines::blocked::TileRule;
use crate::engines::both_ends::Cut;
use crate::error::{Error, Param, Result};
use crate::guard::{Guard, Limit};
use crate::hooks::Hooks;
use crate::plan::Plan;

pub use crate::engines::both_ends::{Position, Unread};
pub use run::Planned;

/// What a count computes for each of its targets.
#[derive(Clone, Debug)]
enum Values {
    /// The exact value, by an engine.
    Exact(Engine),
    /// The residues modulo each of the moduli, by the modular engine alone.
    Residues(Vec<u64>),
    /// The exact value by an engine, and its residues modulo each of the moduli by the modular
    /// engine, an independent computation to check it against.
    Checked(Engine, Vec<u64>),
}

/// How the plan of a count comes.
#[derive(Clone, Copy, Debug, Default)]
enum PlanOf<'a> {
    /// Made where the route needs one (the modular engine alone needs none where g is small).
    #[default]
    Needed,
    /// Made always.
    Always,
    /// Given, made before (the same plan for several counts).
    Given(&'a Plan),
}

/// A count request: the targets (n, g), in any order, repeats allowed; what to compute for each
/// (the exact value, residues, or both); and how: the cut of a count from both ends ([`Cut`]), the
/// plan ([`Request::plan_given`]) or how to make it, the hooks it obeys and tells ([`Hooks`]), the
/// memory it may use ([`Guard`]; by default what the machine has available), the position it
/// resumes from. [`Request::plan`] decides the route and checks the memory; [`Planned::run`] runs it.
///
/// # Examples
///
/// ```
/// use fibtree_core::{Cut, Engine, Request};
/// let mut found = Vec::new();
/// let planned = Request::checked(&[(300, 0)], Engine::Blocked, &[998_244_353]).cut(Cut::At(150)).plan()?;
/// assert_eq!(planned.halves().map(|h| h.cut), Some(150)); // counted from both ends, cut at 150
/// planned.run(|_, value, residues| Ok(found.push((value.unwrap() % 998_244_353u32, residues[0]))))?;
/// assert_eq!(found[0].0, found[0].1.into()); // the exact value and the modular engine agree
/// # Ok::<(), fibtree_core::Error>(())
/// ```
#[derive(Debug)]
pub struct Request<'a> {
    targets: &'a [(u64, u64)],
    values: Values,
    cut: Cut,
    hooks: Hooks<'a>,
    guard: Option<Guard>,
    plan: PlanOf<'a>,
    resume: Option<Position<'static>>,
    chunk_lanes: Option<usize>,
    tiles: Option<TileRule>,
    alone: bool,
}

impl<'a> Request<'a> {
    /// The request of the exact c(n, g) of every target by `engine`. Cost O(1).
    pub fn exact(targets: &'a [(u64, u64)], engine: Engine) -> Request<'a> {
        Request::of(targets, Values::Exact(engine))
    }

    /// The request of c(n, g) modulo each of `moduli` (2 <= m < 2^63) for every target, by the
    /// modular engine alone, in machine arithmetic. Cost O(1).
    pub fn residues(targets: &'a [(u64, u64)], moduli: impl Into<Vec<u64>>) -> Request<'a> {
        Request::of(targets, Values::Residues(moduli.into()))
    }

    /// The request of the exact c(n, g) of every target by `engine`, and of its residues modulo
    /// each of `moduli` by the modular engine, to check the value against. Cost O(1).
    pub fn checked(targets: &'a [(u64, u64)], engine: Engine, moduli: impl Into<Vec<u64>>) -> Request<'a> {
        Request::of(targets, Values::Checked(engine, moduli.into()))
    }

    fn of(targets: &'a [(u64, u64)], values: Values) -> Request<'a> {
        let (cut, hooks, guard, plan) = (Cut::Auto, Hooks::default(), None, PlanOf::Needed);
        let (resume, chunk_lanes, tiles) = (None, None, None);
        Request { targets, values, cut, hooks, guard, plan, resume, chunk_lanes, tiles, alone: false }
    }

    /// This request cut at `cut` (one target, the blocked engine or the reference one). Cost O(1).
    pub fn cut(self, cut: Cut) -> Request<'a> {
        Request { cut, ..self }
    }

    /// This request obeying and telling `hooks`. Cost O(1).
    pub fn hooks(self, hooks: Hooks<'a>) -> Request<'a> {
        Request { hooks, ..self }
    }

    /// This request within the memory `guard` gives it. Cost O(1).
    pub fn guard(self, guard: Guard) -> Request<'a> {
        Request { guard: Some(guard), ..self }
    }

    /// This request over `plan`, made before for the same targets (see [`Plan::new`]). Cost O(1).
    pub fn plan_given(self, plan: &'a Plan) -> Request<'a> {
        Request { plan: PlanOf::Given(plan), ..self }
    }

    /// This request over a plan always, never the modular engine's route without one. Cost O(1).
    pub fn always_planned(self) -> Request<'a> {
        Request { plan: PlanOf::Always, ..self }
    }

    /// This request resuming from `position` (one target counted by the blocked engine), where
    /// given: a count saved by [`Planned::run_saving`]. Cost O(1).
    pub fn resume(self, position: Option<Position<'static>>) -> Request<'a> {
        Request { resume: position, ..self }
    }

    /// This request with every chunk of the blocked engine `lanes` lanes (1, 2, 4, ..., 64), in
    /// place of the engine's choice from the caches and the threads. Cost O(1).
    pub fn chunk_lanes(self, lanes: usize) -> Request<'a> {
        Request { chunk_lanes: Some(lanes), ..self }
    }

    /// This request with the blocked engine's blocks tiled as `rule` says, in place of the engine's
    /// choice from its own timings ([`TileRule::Measured`]). Cost O(1).
    pub fn tiles(self, rule: TileRule) -> Request<'a> {
        Request { tiles: Some(rule), ..self }
    }

    /// This request of residues with each modulus run alone, at most one a thread at once, rather
    /// than all at once in one run. Cost O(1).
    pub fn each_modulus_alone(self) -> Request<'a> {
        Request { alone: true, ..self }
    }

    /// The guard given, or the one of this request's kind within what the machine has available.
    fn guard_or_default(&self) -> Guard {
        self.guard.unwrap_or_else(|| {
            let limit = Limit::new(None, rayon::current_num_threads());
            match &self.values {
                Values::Exact(_) => Guard::exact(limit, self.targets.len() as u64),
                Values::Residues(moduli) => Guard::residues(limit, moduli.len(), 1),
                Values::Checked(_, moduli) => Guard::count(limit, moduli.len(), self.targets.len(), false),
            }
        })
    }

    /// The engine of the exact values, if the request computes them.
    fn engine(&self) -> Option<Engine> {
        match &self.values {
            Values::Exact(engine) | Values::Checked(engine, _) => Some(*engine),
            Values::Residues(_) => None,
        }
    }

    /// The moduli of the residues, if the request computes them.
    fn moduli(&self) -> &[u64] {
        match &self.values {
            Values::Residues(moduli) | Values::Checked(_, moduli) => moduli,
            Values::Exact(_) => &[],
        }
    }

    /// Checks what can be checked before any work: the largest n (at most [`crate::MAX_N`]), the moduli, the cut (for one target, an engine
    /// that cuts), the chunk lanes, the position resumed from (one target, the blocked engine).
    /// [`Request::plan`] checks it first. Cost O(moduli).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming [`Param::N`], [`Param::Modulus`], [`Param::Cut`],
    /// [`Param::Lanes`] or [`Param::Resume`].
    ///
    /// ```
    /// use fibtree_core::{Cut, Engine, Request};
    /// assert!(Request::exact(&[(100, 0)], Engine::Crt).cut(Cut::At(50)).check_arguments().is_err());
    /// assert!(Request::residues(&[(100, 0)], [1]).check_arguments().is_err()); // a modulus of 1
    /// assert!(Request::exact(&[(u64::MAX, 0)], Engine::Blocked).check_arguments().is_err()); // n above MAX_N
    /// ```
    pub fn check_arguments(&self) -> Result<()> {
        let top = self.targets.iter().map(|t| t.0).max().unwrap_or(0);
        crate::game::check_n(top)?;
        for &m in self.moduli() {
            crate::engines::modular::check_modulus(m)?;
        }
        match self.engine() {
            Some(engine) => {
                self.cut.resolve(self.targets, engine)?;
            }
            None if self.cut != Cut::Auto => return Err(Error::invalid(Param::Cut, "a cut is for an exact count")),
            None => {}
        }
        if let Some(lanes) = self.chunk_lanes.filter(|c| !crate::engines::blocked::CHUNK_LANES.contains(c)) {
            let why = format!("expected 1, 2, 4, 8, 16, 32 or 64 lanes a chunk, got {lanes}");
            return Err(Error::invalid(Param::Lanes, why));
        }
        if self.resume.is_some() && (self.targets.len() != 1 || self.engine() != Some(Engine::Blocked)) {
            return Err(Error::invalid(Param::Resume, "a count resumes with one target and the blocked engine"));
        }
        Ok(())
    }

    /// Decides the route of the count, checks the memory it needs at each step (refusing it with
    /// the estimate of the whole run) and makes the plan: the targets known to count 0 without
    /// counting (g above every value a move of T(n) can leave, or outside the support) are set
    /// apart; where the targets' g are small, the modular engine runs meanwhile with no plan, so that
    /// its residues are ready when the exact engine starts; for one target counted from both ends
    /// the plan keeps its lower half only, and the top-down half (which reads no plan layer) runs
    /// on the threads the plan leaves free once the prediction of the whole run fits the limit,
    /// and pauses when the plan is made, to go on beside the bottom-up half.
    ///
    /// Cost: O(1) for the floor of the memory guard, which comes first; O(top n) for the bounds; the
    /// support's forward pass for a target g between the edge values' power of two and the bound;
    /// the plan's backward pass, and the modular engine's work where it runs early.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for n above [`crate::MAX_N`], a modulus outside 2..2^63, a cut or
    /// a position that cannot apply; [`Error::OutOfMemory`] past the guard's limit (with the
    /// estimate of the whole run); [`Error::Interrupted`] when cancelled.
    pub fn plan(self) -> Result<Planned<'a>> {
        self.check_arguments()?;
        route::plan(self)
    }
}

/// c(n, g) modulo `m`, by the modular engine within the memory available: for the core's own tests.
/// Cost: as [`Request::plan`] and [`Planned::run`].
///
/// # Errors
/// As [`Request::plan`] and [`Planned::run`].
#[cfg(test)]
pub(crate) fn count_mod_one(n: u64, g: u64, m: u64) -> Result<u64> {
    let mut residue = 0;
    Request::residues(&[(n, g)], [m]).plan()?.run(|_, _, r| {
        residue = r[0];
        Ok(())
    })?;
    Ok(residue)
}

/// The exact c(n, g), by the blocked engine within the memory available: for the core's own tests
/// and examples. Cost: as [`Request::plan`] and [`Planned::run`].
///
/// # Errors
/// As [`Request::plan`] and [`Planned::run`].
#[cfg(test)]
pub(crate) fn count_one(n: u64, g: u64) -> Result<num_bigint::BigUint> {
    let mut value = num_bigint::BigUint::ZERO;
    Request::exact(&[(n, g)], Engine::Blocked).plan()?.run(|_, v, _| {
        value = v.unwrap_or_default();
        Ok(())
    })?;
    Ok(value)
}
