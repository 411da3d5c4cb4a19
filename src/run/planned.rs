//! A counting run's plan and what is decided before it, before anything large is allocated: the memory guard, the
//! layers the plan keeps, whether the modular engine needs the plan, the cut of a count from both
//! ends known before its plan, and the plan itself with the top-down half started beside it.

use std::sync::atomic::AtomicBool;

use crate::budget::{Guard, Run};
use crate::engines::both_ends::Started;
use crate::engines::{self, Cut, Engine, modular};
use crate::error::{Error, Result};
use crate::options::Options;
use crate::plan::Plan;
use crate::targets::Targets;

use super::mod_only::moduli_of;

/// The memory guard of a counting run of `targets` targets (for a table, its rows) with `moduli`
/// projections, within the options' limit.
pub(super) fn count_guard(targets: usize, moduli: usize, options: &Options) -> Guard {
    Guard::new(Run::Count { moduli, targets, double_check: options.double_check }, options.limit())
}

/// The plan of a counting run and its memory estimate, checked against the limit by the memory
/// guard ([`Guard::plan`]) before anything large is allocated: [`planned_under`] the guard of a
/// count of `targets` with `moduli` projections.
///
/// # Errors
/// As [`Counting::new`](super::Counting::new).
pub(super) fn planned(
    targets: &Targets,
    options: &Options,
    moduli: usize,
    keep: usize,
    cut: Option<u64>,
) -> Result<(Plan, u64, Option<Started>)> {
    planned_under(&count_guard(targets.len(), moduli, options), targets, keep, cut, options.hooks)
}

/// The plan of `targets` kept up to layer `keep` and its memory estimate, under `guard`; for the
/// one target of a count from both ends cut at `cut`, with its top-down half started meanwhile
/// where the prediction of the whole run fits ([`engines::both_ends::start_top_down`], in chunks
/// for the predicted widest layer, a quarter of W). The one way a count starts its top-down half
/// early, for [`crate::count`] and a counting run alike.
///
/// # Errors
/// As [`Guard::plan`]; [`Error::Interrupted`] when `hooks` are cancelled.
pub(crate) fn planned_under(
    guard: &Guard,
    targets: &Targets,
    keep: usize,
    cut: Option<u64>,
    hooks: crate::hooks::Hooks,
) -> Result<(Plan, u64, Option<Started>)> {
    let Some(cut) = cut else {
        let (plan, estimate) = guard.plan_below(targets, keep, hooks)?;
        return Ok((plan, estimate, None));
    };
    let target = targets[0];
    let widest = (crate::game::window(target.0, hooks)? / 4).max(1) as usize;
    let start = |skeleton: &Plan, done: &AtomicBool| {
        engines::both_ends::start_top_down(skeleton, target, cut, widest, hooks, done)
    };
    let (plan, estimate, started) = guard.plan_below_alongside(targets, keep, hooks, start)?;
    Ok((plan, estimate, started.transpose()?.flatten()))
}

/// The cut of the one target of `targets` counted from both ends, known before its plan: the one
/// asked for, or for [`Cut::Auto`] the bound on the best cut, which is the best cut whatever the
/// layers' sizes ([`engines::both_ends::keep_for_both_ends`], docs/math.md "Counting from both
/// ends"); `None` for any other run (several targets, another engine, T(n) with no layer to cut,
/// or a cut at the top: bottom-up alone). Cost O(log n).
pub(super) fn cut_before_the_plan(targets: &Targets, options: &Options) -> Option<u64> {
    let (n, _) = *targets.iter().next()?;
    if targets.len() != 1 || options.engine != Engine::Blocked || n < 3 {
        return None;
    }
    let cut = match options.cut {
        Cut::At(m) => m,
        Cut::Auto => engines::both_ends::keep_for_both_ends(n as usize) as u64,
    };
    (cut < n).then_some(cut)
}

/// What is decided of a count of `targets` with `moduli` moduli before its plan: whether the modular engine runs without
/// a plan (its dense arrays fit the limit), and the highest layer the plan keeps: where the modular
/// engine needs no plan a count from both ends keeps only its lower half ([`kept_layers`]), else
/// every layer. One rule for the run and for its refusal. Cost O(n) time, no memory.
///
/// # Errors
/// As [`modular::unplanned_bytes`].
pub(super) fn before_the_plan(targets: &Targets, options: &Options, moduli: usize) -> Result<(bool, usize)> {
    let residues = Guard::new(Run::Residues { moduli, at_once: 1 }, options.limit());
    let early = modular::unplanned_bytes(targets, moduli, options.hooks)?.is_some_and(|b| residues.fits_unplanned(b));
    Ok((early, if early { kept_layers(targets, options, None) } else { usize::MAX }))
}

/// The highest layer whose set the plan of `targets` must keep where the modular engine needs no
/// plan: for one target counted from both ends, the highest its cut can be (a checkpoint's `saved`
/// cut, the one asked for, or the bound on the best one, [`engines::both_ends::keep_for_both_ends`]), since the
/// top-down half makes its own layers; every layer otherwise. Cost O(log n).
pub(super) fn kept_layers(targets: &Targets, options: &Options, saved: Option<u64>) -> usize {
    let top = targets.top();
    let one = targets.len() == 1 && targets[0].0 == top && options.engine == Engine::Blocked;
    match (saved, options.cut) {
        _ if !one => usize::MAX,
        (Some(cut), _) | (None, Cut::At(cut)) => cut.min(top) as usize,
        (None, Cut::Auto) => engines::both_ends::keep_for_both_ends(top as usize),
    }
}

/// Refuses at once a table (f(k) for every k from `from` to `to`, `from <= to`) whose smallest
/// possible size, rows included, exceeds the limit, without listing the targets; a floor small
/// enough to be refined passes, so that [`Counting::new`](super::Counting::new) refuses with the
/// full estimate. Cost O(1).
///
/// # Errors
/// As [`Counting::new`](super::Counting::new)'s first check: [`Error::InvalidArgument`] naming
/// [`Param::N`](crate::Param::N) for `to` above [`crate::MAX_N`] and for a modulus outside 2..2^63,
/// [`Error::OutOfMemory`] naming [`Param::N`](crate::Param::N).
///
/// # Examples
///
/// ```
/// use fibtree::{Options, check_table_floor};
/// check_table_floor(1, 1000, &Options::default())?;
/// let small = Options { memory_limit: Some((1 << 10).into()), ..Options::default() };
/// // two million rows: past what a refusal may spend to measure the run
/// assert!(matches!(check_table_floor(1, 2_000_000, &small), Err(fibtree::Error::OutOfMemory { .. })));
/// # Ok::<(), fibtree::Error>(())
/// ```
pub fn check_table_floor(from: u64, to: u64, options: &Options) -> Result<()> {
    let moduli = moduli_of(options)?;
    let rows = (to.saturating_sub(from) + 1).try_into().unwrap_or(usize::MAX);
    let guard = count_guard(rows, moduli.len(), options);
    // past the limit, refused with the whole table's prediction (O(n) time, no memory), as
    // [`Counting::new`] refuses it: the figure a larger limit would give too
    match guard.floor(to, 0) {
        Err(e @ Error::OutOfMemory { .. }) => Err(guard.plan(&Targets::one(to, 0), options.hooks).err().unwrap_or(e)),
        other => other,
    }
}
