//! What is decided of a count before its plan, before anything large is allocated: the memory
//! guard's floor, the targets known to count 0, the layers the plan keeps, whether the modular
//! engine needs the plan, the cut of a count from both ends known before its plan; and the plan
//! itself, made between the guard's steps, with the work that starts beside it.

use std::sync::atomic::{AtomicBool, Ordering};

use super::run::{Held, Planned};
use super::{PlanOf, Request, Values};
use crate::engines::both_ends::{Cut, Started, keep_for_both_ends, start_top_down};
use crate::engines::{Engine, halves_of, modular};
use crate::error::{Error, Result};
use crate::guard::{Guard, PROCESS_BYTES};
use crate::hooks::Hooks;
use crate::plan::{self, Plan};
use crate::targets::Targets;

/// The plan of a count made here, and what was found while it was made.
struct Made {
    plan: Option<Plan>,
    estimate: u64,
    independent: Option<Vec<Vec<u64>>>,
    top_down: Option<Started>,
    unplanned: bool,
}

/// [`Request::plan`], once what needs no work is checked.
pub(super) fn plan(request: Request) -> Result<Planned> {
    let guard = request.guard_or_default();
    let (hooks, engine) = (request.hooks, request.engine());
    let all = Targets::new(request.targets);
    // Before anything of size O(n): the floor of the whole run; past the limit, refused with the
    // prediction of the cheapest route (the plan kept below the cut), the figure a larger limit
    // would give too.
    match (engine, request.plan) {
        (_, PlanOf::Given(_)) => {}
        (None, _) => guard.floor(all.top(), all.g_range().1)?,
        (Some(engine), _) => guard.floor_below(&all, kept_layers(&all, engine, request.cut, None), hooks)?,
    }
    // each distinct target once: known to count 0 without counting, or counted
    let zero = plan::known_zeros(&all, hooks)?;
    let live: Vec<(u64, u64)> = all.iter().zip(&zero).filter(|(_, z)| !**z).map(|(&t, _)| t).collect();
    let live = Targets::new(&live);
    // a resumed count goes on at its position's cut
    let cut = match &request.resume {
        Some(position) => request.cut.resumed(position.cut())?,
        None => request.cut,
    };
    let (made, plan) = match request.plan {
        PlanOf::Given(plan) => {
            (Made::none(given(plan, &guard, request.guard.is_some(), &live)?), Some(Held::Given(plan)))
        }
        _ if live.is_empty() => (Made::none(PROCESS_BYTES), None),
        _ => {
            let mut made = made(&request, &guard, &live, cut)?;
            let plan = made.plan.take().map(Held::Own);
            (made, plan)
        }
    };
    let halves = match (&plan, engine) {
        (Some(plan), Some(Engine::Blocked)) => halves_of(plan.get(), &live, cut),
        _ => None,
    };
    let Made { estimate, independent, top_down, unplanned, .. } = made;
    let Request { values, hooks, resume, chunk_lanes, tiles, alone, .. } = request;
    let live_at = live.iter().map(|t| all.index_of(*t).expect("a live target is a target")).collect();
    let kept = super::run::keeps(&live, guard.double_check());
    Ok(Planned {
        all,
        zero,
        live,
        live_at,
        values,
        hooks,
        cut,
        plan,
        halves,
        estimate,
        independent,
        top_down,
        unplanned,
        resume,
        chunk_lanes,
        tiles,
        alone,
        kept,
    })
}

impl Made {
    /// No plan, and `estimate` bytes.
    fn none(estimate: u64) -> Made {
        Made { plan: None, estimate, independent: None, top_down: None, unplanned: false }
    }
}

/// The estimate of a run over a plan given, checked by `guard` where one was given (`checked`).
/// Cost O(1).
fn given(plan: &Plan, guard: &Guard, checked: bool, live: &Targets) -> Result<u64> {
    match checked {
        true => guard.check(guard.bytes_over(live.top(), plan)),
        false => Ok(PROCESS_BYTES.saturating_add(plan.bytes())),
    }
}

/// The plan of the live targets of `request` and what runs beside it, by what it computes.
fn made(request: &Request, guard: &Guard, live: &Targets, cut: Cut) -> Result<Made> {
    let hooks = request.hooks;
    let saved = request.resume.as_ref().map(|p| p.cut());
    let guard = &match &request.values {
        Values::Exact(Engine::Blocked) | Values::Checked(Engine::Blocked, _) => {
            guard.with_sweeps(sweeps(live, cut, saved))
        }
        _ => *guard,
    };
    match &request.values {
        Values::Residues(moduli) => residues_route(request, guard, live, moduli.len()),
        &Values::Exact(engine) => {
            let saved = request.resume.as_ref().map(|p| p.cut());
            let keep = kept_layers(live, engine, cut, saved);
            let early = saved.is_none().then(|| cut_before_the_plan(live, engine, cut)).flatten();
            let (plan, estimate, top_down) = planned_under(guard, live, keep, early, hooks)?;
            Ok(Made { plan: Some(plan), top_down, ..Made::none(estimate) })
        }
        Values::Checked(engine, moduli) => checked_route(request, guard, live, (*engine, moduli), cut),
    }
}

/// The route of residues alone: the dense modular engine with no plan where its arrays fit (and
/// a plan is not asked for), else over the plan.
fn residues_route(request: &Request, guard: &Guard, live: &Targets, moduli: usize) -> Result<Made> {
    let hooks = request.hooks;
    let one_run = if request.alone { 1 } else { moduli };
    if !matches!(request.plan, PlanOf::Always)
        && let Some(bytes) = modular::unplanned_bytes(live, one_run, hooks)?
    {
        let estimate = guard.unplanned(bytes)?;
        return Ok(Made { unplanned: true, ..Made::none(estimate) });
    }
    let (plan, estimate) = guard.plan(live, hooks)?;
    Ok(Made { plan: Some(plan), ..Made::none(estimate) })
}

/// The route of a checked count: where its residues need no plan (the dense arrays fit the
/// limit) the modular engine runs while the plan is made, and for one target counted from both
/// ends the plan keeps its lower half, the top-down half starting beside it.
fn checked_route(request: &Request, guard: &Guard, live: &Targets, values: (Engine, &[u64]), cut: Cut) -> Result<Made> {
    let (engine, moduli) = values;
    let hooks = request.hooks;
    let saved = request.resume.as_ref().map(|p| p.cut());
    let (early, keep) = before_the_plan(live, guard, (engine, moduli.len()), cut, hooks)?;
    let keep = match saved {
        Some(saved) if early => kept_layers(live, engine, cut, Some(saved)),
        _ => keep,
    };
    let early_cut = saved.is_none().then(|| cut_before_the_plan(live, engine, cut)).flatten();
    // the plan stops the modular engine when it fails
    let failed = AtomicBool::new(false);
    let (result, independent) = rayon::join(
        || planned_under(guard, live, keep, early_cut, hooks).inspect_err(|_| failed.store(true, Ordering::Relaxed)),
        || match early {
            true => modular::count_mod_unplanned(live, moduli, hooks.also_stopped_by(&failed)),
            false => Ok(None),
        },
    );
    let (plan, estimate, top_down) = match result {
        // refused on the route that keeps every layer: with the figure of the cheapest route, the
        // one a larger limit would take, so that the figure is the same whatever the limit
        Err(e @ Error::OutOfMemory { .. }) if !early => {
            let keep = kept_layers(live, engine, cut, None);
            return Err(planned_under(guard, live, keep, None, hooks).err().unwrap_or(e));
        }
        result => result?,
    };
    Ok(Made { plan: Some(plan), estimate, independent: independent?, top_down, unplanned: false })
}

/// The plan of `targets` kept up to layer `keep` and its memory estimate, under `guard`; for the
/// one target of a count from both ends cut at `cut`, with its top-down half started meanwhile
/// where the prediction of the whole run fits ([`start_top_down`], in chunks for the predicted
/// widest layer, a quarter of W). The guard checks; the plan is made here.
///
/// # Errors
/// As the guard's steps; [`Error::Interrupted`] when `hooks` are cancelled.
fn planned_under(
    guard: &Guard,
    targets: &Targets,
    keep: usize,
    cut: Option<u64>,
    hooks: Hooks,
) -> Result<(Plan, u64, Option<Started>)> {
    let budget = guard.before_the_plan(targets, keep, hooks)?;
    let Some(cut) = cut else {
        let made = Plan::below_alongside(targets, keep, budget.limit, hooks, |_, _| ());
        let (plan, estimate, ()) = guard.after_the_plan(&budget, made)?;
        return Ok((plan, estimate, None));
    };
    let target = targets[0];
    let widest = (crate::game::window(target.0, hooks)? / 4).max(1) as usize;
    // what starts beside the plan is the run's, within its estimate: only where the prediction fits
    let start = |skeleton: &Plan, done: &AtomicBool| {
        budget.fits.then(|| start_top_down(skeleton, target, cut, widest, hooks, done))
    };
    let made = Plan::below_alongside(targets, keep, budget.limit, hooks, start);
    let (plan, estimate, started) = guard.after_the_plan(&budget, made)?;
    Ok((plan, estimate, started.transpose()?.flatten()))
}

/// The route of the blocked engine's sweeps in a count of `targets`, for the guard's estimate of
/// what they hold: from both ends at the cut (a resumed position's `saved` cut, or the one asked
/// for) for one target at the top layer, else bottom-up alone (`None`). Cost O(1).
fn sweeps(targets: &Targets, cut: Cut, saved: Option<u64>) -> Option<Cut> {
    match saved {
        _ if !from_both_ends(targets, Engine::Blocked) => None,
        Some(saved) => Some(Cut::At(saved.clamp(2, targets.top()))),
        None => Some(cut),
    }
}

/// Whether a count of `targets` by `engine` may run from both ends: one target, by the blocked
/// engine, in a tree with a layer to cut (n >= 3). Cost O(1).
fn from_both_ends(targets: &Targets, engine: Engine) -> bool {
    targets.len() == 1 && engine == Engine::Blocked && targets.top() >= 3
}

/// The cut of the one target of `targets` counted from both ends, known before its plan: the one
/// asked for, or for [`Cut::Auto`] the bound on the best cut, which is the best cut whatever the
/// layers' sizes ([`keep_for_both_ends`], docs/math.md "Counting from both ends"); `None` for any
/// other run (several targets, another engine, T(n) with no layer to cut, or a cut at the top:
/// bottom-up alone). Cost O(log n).
fn cut_before_the_plan(targets: &Targets, engine: Engine, cut: Cut) -> Option<u64> {
    if !from_both_ends(targets, engine) {
        return None;
    }
    let n = targets.top();
    let cut = match cut {
        Cut::At(m) => m,
        Cut::Auto => keep_for_both_ends(n as usize) as u64,
    };
    (cut < n).then_some(cut)
}

/// What is decided of a checked count of `targets` by `engine` with `moduli` moduli before its plan:
/// whether the modular engine runs without a plan (its dense arrays fit the limit), and the highest
/// layer the plan keeps: where the modular engine needs no plan a count from both ends keeps only its
/// lower half ([`kept_layers`]), else every layer. One rule for the run and for its refusal. Cost
/// O(n) time, no memory.
///
/// # Errors
/// As [`modular::unplanned_bytes`].
fn before_the_plan(
    targets: &Targets,
    guard: &Guard,
    (engine, moduli): (Engine, usize),
    cut: Cut,
    hooks: Hooks,
) -> Result<(bool, usize)> {
    let residues = Guard::residues(guard.limit(), moduli, 1);
    let early = modular::unplanned_bytes(targets, moduli, hooks)?.is_some_and(|b| residues.fits_unplanned(b));
    Ok((early, if early { kept_layers(targets, engine, cut, None) } else { usize::MAX }))
}

/// The highest layer whose set the plan of `targets` must keep: for one target counted from both
/// ends, the highest its cut can be (a position's `saved` cut, the one asked for, or the bound on
/// the best one, [`keep_for_both_ends`]), since the top-down half makes its own layers; every layer
/// otherwise. Cost O(log n).
pub(super) fn kept_layers(targets: &Targets, engine: Engine, cut: Cut, saved: Option<u64>) -> usize {
    let top = targets.top();
    let one = targets.len() == 1 && targets[0].0 == top && engine == Engine::Blocked;
    match (saved, cut) {
        _ if !one => usize::MAX,
        (Some(cut), _) | (None, Cut::At(cut)) => cut.min(top) as usize,
        (None, Cut::Auto) => keep_for_both_ends(top as usize),
    }
}
