//! The two halves of a count from both ends at once in the blocked engine's lanes, each cut into
//! chunks for its own lanes, and their join at the cut in parallel.

use std::sync::atomic::AtomicU64;

use num_bigint::BigUint;

use super::cut::assert_cut;
use super::early::Started;
use crate::engines::blocked::{self, Handed, Run, State, Sweep, Tally, Tuning};
use crate::engines::reference::to_biguint;
use crate::error::Result;
use crate::hooks::Hooks;
use crate::plan::Plan;
use crate::targets::Targets;

#[cfg(doc)]
use crate::error::{Error, Param};

/// The exact c(n, g) for the one target (n, g) of `plan` (whose top layer is n), counted from both
/// ends in the blocked engine's lanes: bottom-up to layer `cut` ([`Sweep::Up`]) and top-down from
/// the target ([`Sweep::Down`]) at the same time, each cut into chunks for its own lanes, then
/// joined at the cut in parallel; `cut` >= n (or n < 3) is the bottom-up run alone.
///
/// Cost: the limb additions of [`crate::cost::both_ends_limb_additions`] at the cut, in cache, then two products of big
/// integers a state of layers `cut` and `cut` - 1 reached from both ends; memory the two halves'
/// edge layers at once (the blocked engine's, each with its own lanes).
///
/// # Errors
/// [`Error::Interrupted`] when cancelled.
///
/// # Panics
/// For a cut below 2 where n >= 3.
pub(crate) fn count_blocked(
    plan: &Plan,
    (n, g): (u64, u64),
    cut: u64,
    hooks: Hooks,
    tune: impl Fn(Tuning) -> Tuning,
) -> Result<BigUint> {
    count_halves(plan, (n, g), cut, hooks, tune, None, None)
}

/// [`count_blocked`] over a plan given up to the count: the layers above the cut are freed before
/// the halves start (the top-down half makes its own) and each layer below it once the bottom-up
/// half has read it ([`Plan::hand_over`]), so that the memory held shrinks with the plan as the two
/// halves' layers grow. The top-down half goes on from where `started` paused it where given (and
/// cut at `cut`: [`super::early::start_top_down`], while the plan was made), in its chunks.
///
/// Cost: as [`count_blocked`], less what the top-down half did before; memory the two halves' edge
/// layers, and what is left of the plan.
///
/// # Errors
/// As [`count_blocked`].
pub(crate) fn count_taking(
    mut plan: Plan,
    (n, g): (u64, u64),
    cut: u64,
    hooks: Hooks,
    started: Option<Started>,
) -> Result<BigUint> {
    if n < 3 || cut >= n {
        return count_blocked(&plan, (n, g), cut, hooks, |t| t);
    }
    let handed = plan.hand_over(cut as usize);
    count_halves(&plan, (n, g), cut, hooks, |t| t, Some(&handed), started.filter(|s| s.cut == cut))
}

/// The two sweeps of a count from both ends, with the tuning of each (chunks cut for its own lanes and
/// layers) and the progress tally they share.
pub(super) struct HalfSweeps {
    pub(super) up: Sweep,
    pub(super) down: Sweep,
    pub(super) tuning_up: Tuning,
    pub(super) tuning_down: Tuning,
    /// The lane additions of both sweeps, for one progress bar.
    pub(super) total: u64,
}

impl HalfSweeps {
    /// The halves of the count of (n, g) over `plan` cut at `cut` (3 <= n, 2 <= cut < n), on the
    /// current rayon pool's threads, their tunings adjusted by `tune`. Cost O(n).
    pub(super) fn new(plan: &Plan, (n, g): (usize, u64), cut: usize, tune: impl Fn(Tuning) -> Tuning) -> HalfSweeps {
        let threads = rayon::current_num_threads();
        let lens = plan.lens();
        let widest = |layers: std::ops::RangeInclusive<usize>| lens[layers].iter().copied().max().unwrap_or(0) as usize;
        let (up, down) = (Sweep::Up { last: cut }, Sweep::Down { n, seed: g, cut });
        let tuning_up = tune(Tuning::for_lanes(widest(2..=cut), up.lanes(cut), threads));
        let tuning_down = tune(Tuning::for_lanes(widest(cut - 1..=n), down.lanes(down.last_step()), threads));
        let total = [up, down].iter().map(|&s| blocked::sweep_work(plan, s, 2..=s.last_step())).sum();
        HalfSweeps { up, down, tuning_up, tuning_down, total }
    }
}

/// The tuning of the bottom-up count alone of a target at the top layer `n` of `plan`, on the
/// current rayon pool's threads. Cost O(n).
pub(super) fn bottom_up_tuning(plan: &Plan, n: u64) -> Tuning {
    Tuning::for_lanes(plan.widest_layer(), blocked::lanes(n as usize), rayon::current_num_threads())
}

/// The bottom-up count of the one target of `plan` alone, tuned by `tune`.
fn bottom_up(plan: &Plan, (n, g): (u64, u64), hooks: Hooks, tune: impl Fn(Tuning) -> Tuning) -> Result<BigUint> {
    let tuning = tune(bottom_up_tuning(plan, n));
    let mut value = BigUint::ZERO;
    let target = Targets::one(n, g);
    blocked::run(Run::exact(plan, &target, hooks, tuning), None, |_, words| value = to_biguint(words))?;
    Ok(value)
}

/// [`count_blocked`], the bottom-up half reading the plan's layers from `handed` where given, the
/// top-down one going on from `started` where given.
fn count_halves(
    plan: &Plan,
    (n, g): (u64, u64),
    cut: u64,
    hooks: Hooks,
    tune: impl Fn(Tuning) -> Tuning,
    handed: Option<&Handed>,
    started: Option<Started>,
) -> Result<BigUint> {
    debug_assert_eq!(plan.top() as u64, n, "the plan's top layer is the target's");
    if n < 3 || cut >= n {
        return bottom_up(plan, (n, g), hooks, tune);
    }
    assert_cut(n, cut);
    let cut = cut as usize;
    let mut halves = HalfSweeps::new(plan, (n as usize, g), cut, tune);
    // a top-down half started early goes on in its chunks, its work done so far told as done
    let (start, mut direct) = started.map_or((None, BigUint::ZERO), |s| (Some(s.state), s.direct));
    let before = start.as_ref().map_or(0, |s| blocked::sweep_work(plan, halves.down, 2..=s.k0 - 1));
    if let Some(state) = &start {
        halves.tuning_down.chunk_lanes = state.chunk_lanes;
    }
    let done = AtomicU64::new(before);
    let tally = Some(Tally { done: &done, total: halves.total });
    let none = Targets::default();
    let up = Run { sweep: Some(halves.up), tally, handed, ..Run::exact(plan, &none, hooks, halves.tuning_up) };
    let down = Run { sweep: Some(halves.down), tally, start, ..Run::exact(plan, &none, hooks, halves.tuning_down) };
    // the first sum of the join: the paths to the direct moves above the cut
    let below = || blocked::run(up, None, |_, _| {});
    let above = || {
        blocked::run(down, None, |times, words| {
            direct += to_biguint(words) * times as u32;
        })
    };
    let (bottom, top) = rayon::join(below, above);
    join(&bottom?, &top?, cut, direct, hooks)
}

/// The join at `cut` of the bottom-up half's last two layers (`bottom`: cut - 1 and cut) and the
/// top-down half's (`top`: cut and cut - 1, or 3 and 2 for a cut at 2), with `direct` the paths to
/// the direct moves above the cut: the products over the states reached from both ends, in
/// parallel, and their sum. Cost: two products of big integers a state of layers cut and cut - 1.
///
/// # Errors
/// [`Error::Interrupted`] when cancelled.
pub(super) fn join(bottom: &State, top: &State, cut: usize, direct: BigUint, hooks: Hooks) -> Result<BigUint> {
    use rayon::prelude::*;
    hooks.check()?;
    let start = hooks.recorder().map(|_| crate::machine::thread_cpu_seconds());
    // layer cut in both (the top-down's older edge, or its last for cut = 2), and layer cut - 1 (the
    // top-down's last), as (bottom-up edge, top-down edge)
    let edges: &[(usize, usize)] = if cut >= 3 { &[(1, 0), (0, 1)] } else { &[(1, 1)] };
    let mut pairs: Vec<(usize, usize, usize, usize)> = Vec::new();
    for &(b, t) in edges {
        let (from_below, from_above) = (&bottom.edges[b], &top.edges[t]);
        for (s, h) in from_above.set.iter().enumerate() {
            let i = from_below.index(h) as usize;
            if i < from_below.len as usize {
                pairs.push((b, i, t, s));
            }
        }
    }
    let joined = pairs
        .par_chunks(JOIN_STATES)
        .map(|chunk| {
            let product = |&(b, i, t, s): &(usize, usize, usize, usize)| {
                to_biguint(&bottom.words(b, i)) * to_biguint(&top.words(t, s))
            };
            chunk.iter().map(product).sum::<BigUint>()
        })
        .reduce(|| BigUint::ZERO, |a, b| a + b);
    if let (Some(recorder), Some(start)) = (hooks.recorder(), start) {
        recorder.serial(crate::machine::thread_cpu_seconds() - start); // outside the task graph
    }
    Ok(direct + joined)
}

/// The states a task of the join multiplies.
const JOIN_STATES: usize = 64;
