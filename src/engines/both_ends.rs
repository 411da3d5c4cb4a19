//! Counting from both ends (docs/math.md, "Counting from both ends"): the default route of an exact
//! count of one target.
//!
//! Bottom-up, c(k, h) for the plan's states of layers 2 to m; top-down, N(k, g), the number of paths
//! of the recurrence's edges from the target (n, G) to (k, g), for the layers above m; joined at the
//! cut m:
//!
//! ```text
//! c(n, G) = sum over k > m, g of N(k, g) d(k, g)
//!         + sum over h of N_in(m, h) c(m, h) + sum over h of N_in(m - 1, h) c(m - 1, h)
//! ```
//!
//! with d(k, g) = [g == R] + [k >= 3][g == L] the direct moves, N_in(m, .) what layers m + 1 and
//! m + 2 pass to layer m, and N_in(m - 1, .) what layer m + 1 alone passes to layer m - 1. Every
//! cut gives the same value. Three forms:
//!
//! - [`count`]: the reference, in whole big integers (hash maps top-down), what the others are
//!   tested against at every cut (and what `fibtree self-test` checks against the bottom-up count);
//! - [`count_blocked`] and [`count_taking`]: the two halves at once in the blocked engine's lanes
//!   ([`Sweep::Up`] and [`Sweep::Down`]), then the join in parallel; the taking form frees the
//!   plan as the bottom-up half reads it;
//! - [`count_resumable`]: the halves one after the other, each in segments, for a checkpoint
//!   ([`Progress`]).
//!
//! The cost model ([`limb_additions`], [`best_cut`], [`split`]) says where the cut pays: the least
//! limb additions, near n / 2 ([`crate::plan::keep_for_both_ends`] bounds it).
//!
//! **Invariants.** A top-down value of layer k is at most F(n - k + 1) (the paths of steps 1 and 2
//! from n to k), so it fits the lanes of a count of layer n - k + 1; the top-down half's states are
//! the images of the two layers above it (the plan's backward pass), so it reads no plan layer; the
//! join reads the bottom-up half's last two layers (cut - 1, cut) and the top-down half's (cut,
//! cut - 1), whose non-zero states are each a subset of the plan's.

use std::collections::HashMap;

use num_bigint::BigUint;

use std::sync::atomic::AtomicU64;

use super::blocked::{self, State, Sweep, SweepRun, Tally, Tuning};
use super::recurrence::{self, Layer};
use super::reference::{Limbs, limbs, to_biguint};
use crate::error::{Error, Param, Result};
use crate::hooks::Hooks;
use crate::plan::Plan;
use crate::targets::Targets;

/// The exact c(n, g) for the one target (n, g) of `plan` (whose top layer is n), counted bottom-up
/// to layer `cut` and top-down from n to `cut + 1`, joined at the cut (1 <= cut <= n; n alone for
/// n < 2): `cut` = n is the bottom-up count, `cut` = 1 the top-down sum alone.
///
/// Cost: the reference engine's limb additions over layers 2 to `cut`, and over the layers above
/// it the same for N, whose values have at most limbs(n - k + 1) limbs at layer k; memory three
/// layers of each half, the top half's in hash maps of the states they reach.
///
/// # Errors
/// [`Error::InvalidArgument`] naming [`Param::N`] for a cut outside 1..=n;
/// [`Error::Interrupted`] when cancelled.
pub(crate) fn count(plan: &Plan, (n, g): (u64, u64), cut: u64, hooks: Hooks) -> Result<BigUint> {
    debug_assert_eq!(plan.top() as u64, n, "the plan's top layer is the target's");
    if n < 2 {
        return Ok(BigUint::ZERO);
    }
    if !(1..=n).contains(&cut) {
        return Err(Error::invalid(Param::N, format!("a cut from 1 to {n}, got {cut}")));
    }
    let (cut, n) = (cut as usize, n as usize);
    // top-down: N of the layers above the cut, handed down; what reaches layers cut and cut - 1 is kept
    let mut down: HashMap<usize, HashMap<u64, BigUint>> = HashMap::new();
    down.entry(n).or_default().insert(g, BigUint::from(1u32));
    let mut total = BigUint::ZERO;
    for k in (cut + 1..=n).rev() {
        hooks.check()?;
        let Some(layer) = down.remove(&k) else { continue };
        let (r, l) = (plan.edge_value(k - 2) as u64, plan.edge_value(k - 1) as u64);
        for (state, paths) in layer {
            let direct = u32::from(state == r) + u32::from(k >= 3 && state == l);
            if direct > 0 {
                total += &paths * direct;
            }
            for (to, e) in [(k - 1, r), (k - 2, l)] {
                if let Some(h) = (state ^ e).checked_sub(1).filter(|_| to >= 2) {
                    *down.entry(to).or_default().entry(h).or_default() += &paths;
                }
            }
        }
    }
    // bottom-up to the cut, keeping its two last layers
    let mut kept: [Option<Layer>; 2] = [None, None];
    if cut >= 2 {
        let [older, old] = recurrence::run_range(plan, &Limbs, Default::default(), 2..=cut, hooks, |_| {})?;
        kept = [Some(older).filter(|l| l.k + 1 == cut), Some(old).filter(|l| l.k == cut)];
    }
    // the join: what reached layers cut and cut - 1 from above, times their counts
    for (layer, at) in kept.iter().zip([cut - 1, cut]) {
        let (Some(layer), Some(reached)) = (layer, down.get(&at)) else { continue };
        for (h, paths) in reached {
            let value = layer.value(*h).expect("the plan holds every state a path reaches");
            total += paths * to_biguint(value);
        }
    }
    Ok(total)
}

/// Where the exact count of one target is cut between its bottom-up and top-down halves
/// (docs/math.md, "Counting from both ends"). Every cut gives the same value; they differ in work.
///
/// # Examples
///
/// ```
/// use fibtree::{Cut, Options};
/// let count = |cut| {
///     let options = Options { cut, ..Default::default() };
///     Ok::<_, fibtree::Error>(fibtree::Counting::new(&[(300, 0)], &options)?.reports()?.remove(0).value)
/// };
/// assert_eq!(count(Cut::At(2))?, count(Cut::Auto)?);
/// assert_eq!(count(Cut::At(300))?, fibtree::count(300, 0)?); // bottom-up alone
/// # Ok::<(), fibtree::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Cut {
    /// The cut with the least limb additions (from the plan's layer sizes and limbs): about n / 2
    /// for one target with wide layers, bottom-up alone where that is least, and for several
    /// targets (one bottom-up run serves them all).
    #[default]
    Auto,
    /// Bottom-up to layer m and top-down above it, 2 <= m <= n; m = n is the bottom-up run alone.
    At(u64),
}

/// The route of an exact count of one target: its cut and the limb additions of each half.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Split {
    /// The cut m: bottom-up over layers 2 to m, top-down over m + 1 to n (m = n: bottom-up alone).
    pub cut: u64,
    /// The limb additions below the cut (64-bit word additions, carries included).
    pub below: u128,
    /// The limb additions above the cut.
    pub above: u128,
    /// The limb additions of the bottom-up run alone.
    pub bottom_up: u128,
}

impl Split {
    /// The limb additions of both halves.
    pub fn work(&self) -> u128 {
        self.below + self.above
    }

    /// Whether both ends are counted (the cut is below the top layer).
    pub fn both_ends(&self) -> bool {
        self.above > 0
    }
}

/// The route of the count of the one target at the top of a plan whose layers have `lens[k]`
/// states: at `cut`, or at the best cut ([`best_cut`]) for [`Cut::Auto`]. Cost O(n).
///
/// # Errors
/// [`Error::InvalidArgument`] naming [`Param::Cut`] for a cut outside 2..=n.
pub(crate) fn split(lens: &[u32], cut: Cut) -> Result<Split> {
    let n = lens.len().saturating_sub(1);
    let cut = match cut {
        _ if n < 3 => n.max(1),
        // no better cut is above the bound, whatever the layers (a plan may hold no sets above it)
        Cut::Auto => best_cut(lens).0.min(crate::plan::keep_for_both_ends(n)),
        Cut::At(m) if (2..=n as u64).contains(&m) => m as usize,
        Cut::At(m) => {
            let expected = format!("a layer from 2 to {n} (the top layer counts bottom-up alone)");
            return Err(Error::invalid(Param::Cut, format!("expected {expected}, got {m}")));
        }
    };
    let below = limb_additions(&lens[..=cut.min(n)], cut);
    let bottom_up = super::limb_additions(lens);
    Ok(Split { cut: cut as u64, below, above: limb_additions(lens, cut) - below, bottom_up })
}

/// The exact c(n, g) for the one target (n, g) of `plan` (whose top layer is n), counted from both
/// ends in the blocked engine's lanes: bottom-up to layer `cut` ([`Sweep::Up`]) and top-down from
/// the target ([`Sweep::Down`]) at the same time, each cut into chunks for its own lanes, then
/// joined at the cut in parallel; `cut` >= n (or n < 3) is the bottom-up run alone.
///
/// Cost: the limb additions of [`limb_additions`] at the cut, in cache, then two products of big
/// integers a state of layers `cut` and `cut` - 1 reached from both ends; memory the two halves'
/// edge layers at once (the blocked engine's, each with its own lanes).
///
/// # Errors
/// [`Error::InvalidArgument`] naming [`Param::N`] for a cut below 2; [`Error::Interrupted`] when
/// cancelled; [`Error::InvalidArgument`] naming [`Param::Isa`] when `FIBTREE_ISA` is invalid.
pub(crate) fn count_blocked(
    plan: &Plan,
    (n, g): (u64, u64),
    cut: u64,
    hooks: Hooks,
    tune: impl Fn(Tuning) -> Tuning,
) -> Result<BigUint> {
    count_halves(plan, (n, g), cut, hooks, tune, None)
}

/// [`count_blocked`] over a plan given up to the count: the layers above the cut are freed before
/// the halves start (the top-down half makes its own) and each layer below it once the bottom-up
/// half has read it ([`Plan::hand_over`]), so that the memory held shrinks with the plan as the two
/// halves' layers grow.
///
/// Cost: as [`count_blocked`]; memory the two halves' edge layers, and what is left of the plan.
///
/// # Errors
/// As [`count_blocked`].
pub(crate) fn count_taking(mut plan: Plan, (n, g): (u64, u64), cut: u64, hooks: Hooks) -> Result<BigUint> {
    if n < 3 || cut >= n {
        return count_blocked(&plan, (n, g), cut, hooks, |t| t);
    }
    let handed = plan.hand_over(cut as usize);
    count_halves(&plan, (n, g), cut, hooks, |t| t, Some(&handed))
}

/// The two sweeps of a count from both ends, with the tuning of each (chunks cut for its own lanes and
/// layers) and the progress tally they share.
struct Halves {
    up: Sweep,
    down: Sweep,
    tuning_up: Tuning,
    tuning_down: Tuning,
    /// The lane additions of both sweeps, for one progress bar.
    total: u64,
}

impl Halves {
    /// The halves of the count of (n, g) over `plan` cut at `cut` (3 <= n, 2 <= cut < n), on the
    /// current rayon pool's threads, their tunings adjusted by `tune`. Cost O(n).
    fn new(plan: &Plan, (n, g): (usize, u64), cut: usize, tune: impl Fn(Tuning) -> Tuning) -> Halves {
        let threads = rayon::current_num_threads();
        let lens = plan.lens();
        let widest = |layers: std::ops::RangeInclusive<usize>| lens[layers].iter().copied().max().unwrap_or(0) as usize;
        let (up, down) = (Sweep::Up { last: cut }, Sweep::Down { n, seed: g, cut });
        let tuning_up = tune(Tuning::for_lanes(widest(2..=cut), up.lanes(cut), threads));
        let tuning_down = tune(Tuning::for_lanes(widest(cut - 1..=n), down.lanes(down.last_step()), threads));
        let total = [up, down].iter().map(|&s| blocked::sweep_work(plan, s, 2..=s.last_step())).sum();
        Halves { up, down, tuning_up, tuning_down, total }
    }
}

/// The tuning of the bottom-up count alone of a target at the top layer `n` of `plan`, on the
/// current rayon pool's threads. Cost O(n).
fn bottom_up_tuning(plan: &Plan, n: u64) -> Tuning {
    Tuning::for_lanes(plan.widest_layer(), blocked::lanes(n as usize), rayon::current_num_threads())
}

/// The bottom-up count of the one target of `plan` alone, tuned by `tune`.
fn bottom_up(plan: &Plan, (n, g): (u64, u64), hooks: Hooks, tune: impl Fn(Tuning) -> Tuning) -> Result<BigUint> {
    let tuning = tune(bottom_up_tuning(plan, n));
    let mut value = BigUint::ZERO;
    blocked::run_exact(plan, &Targets::one(n, g), hooks, tuning, |_, words| value = to_biguint(words))?;
    Ok(value)
}

/// Refuses a cut below 2 for a count from both ends of a tree T(n).
fn check_cut(n: u64, cut: u64) -> Result<()> {
    match cut {
        0 | 1 => Err(Error::invalid(Param::N, format!("a cut from 2 to {n}, got {cut}"))),
        _ => Ok(()),
    }
}

/// [`count_blocked`], the bottom-up half reading the plan's layers from `handed` where given.
fn count_halves(
    plan: &Plan,
    (n, g): (u64, u64),
    cut: u64,
    hooks: Hooks,
    tune: impl Fn(Tuning) -> Tuning,
    handed: Option<&blocked::Handed>,
) -> Result<BigUint> {
    debug_assert_eq!(plan.top() as u64, n, "the plan's top layer is the target's");
    if n < 3 || cut >= n {
        return bottom_up(plan, (n, g), hooks, tune);
    }
    check_cut(n, cut)?;
    let cut = cut as usize;
    let halves = Halves::new(plan, (n as usize, g), cut, tune);
    let done = AtomicU64::new(0);
    let tally = Some(Tally { done: &done, total: halves.total });
    let none = Targets::default();
    let up = SweepRun { sweep: Some(halves.up), tally, handed, start: None };
    let down = SweepRun { sweep: Some(halves.down), tally, ..SweepRun::default() };
    // the first sum of the join: the paths to the direct moves above the cut
    let mut direct = BigUint::ZERO;
    let below = || blocked::run_sweep(plan, up, &none, hooks, halves.tuning_up, None, |_, _| {});
    let above = || {
        blocked::run_sweep(plan, down, &none, hooks, halves.tuning_down, None, |times, words| {
            direct += to_biguint(words) * times as u32;
        })
    };
    let (bottom, top) = rayon::join(below, above);
    join(&bottom?, &top?, cut, direct, hooks)
}

/// Where a resumable count from both ends stands between two segments of one of its halves: what a
/// checkpoint holds. The halves run one after the other.
#[derive(Debug, PartialEq)]
pub(crate) enum Progress {
    /// The bottom-up half (to the top layer where `cut` is n) at `state`.
    Up { cut: u64, state: State },
    /// The bottom-up half done (`below`, its last two layers), the top-down one at `state`, and
    /// `direct` (in the words format) the paths it has found to the direct moves so far.
    Down { cut: u64, below: Box<State>, direct: Vec<u64>, state: State },
}

impl Progress {
    /// The cut of the run.
    pub(crate) fn cut(&self) -> u64 {
        match self {
            Progress::Up { cut, .. } | Progress::Down { cut, .. } => *cut,
        }
    }
}

/// Where a resumable count stands as [`count_resumable`] hands it to be saved.
pub(crate) enum Point<'a> {
    Up { cut: u64, state: &'a State },
    Down { cut: u64, below: &'a State, direct: &'a BigUint, state: &'a State },
}

/// What a resumable count calls between segments: `(point, stopping)`, as
/// [`blocked::run_resumable`]'s `at_boundary`.
pub(crate) type Save<'s> = dyn FnMut(Point, bool) -> Result<()> + 's;

/// [`count_blocked`] at `cut` (n for the bottom-up count alone) over a plan given up to the count,
/// resumable: the bottom-up half, then the top-down one, each in segments, from `resume` where
/// given (a checkpoint's, whose cut it must be), calling `save` between segments as
/// [`blocked::run_resumable`] calls its `at_boundary` (with `stopping` true once when cancelled).
/// A resumed half goes on in the chunks it was cut into.
///
/// Cost: as [`count_blocked`], the halves one after the other; memory the same, the bottom-up
/// half's last two layers kept while the top-down one runs.
///
/// # Errors
/// As [`count_blocked`]; [`Error::InvalidArgument`] naming [`Param::Checkpoint`] for a state that
/// does not fit the run; whatever `save` returns.
pub(crate) fn count_resumable(
    mut plan: Plan,
    (n, g): (u64, u64),
    cut: u64,
    hooks: Hooks,
    resume: Option<Progress>,
    save: &mut Save,
) -> Result<BigUint> {
    let does_not_fit = || Error::invalid(Param::Checkpoint, "the saved state does not fit this run");
    if resume.as_ref().is_some_and(|r| r.cut() != cut) {
        return Err(does_not_fit());
    }
    // every state of the target's plan differs from g only in the bits below W (plan/mod.rs)
    let w = crate::game::window(n, hooks)?;
    let (lo, hi) = (g & !(w - 1), g | (w - 1));
    let fits = match &resume {
        Some(Progress::Up { state, .. }) => state.fits(lo, hi),
        Some(Progress::Down { below, state, direct, .. }) => {
            below.fits(lo, hi) && state.fits(lo, hi) && direct.first().is_some_and(|&l| l as usize + 1 == direct.len())
        }
        None => true,
    };
    if !fits {
        return Err(does_not_fit());
    }
    let in_chunks = |mut tuning: Tuning, state: Option<&State>| {
        if let Some(state) = state.filter(|s| blocked::CHUNK_LANES.contains(&s.chunk_lanes)) {
            tuning.chunk_lanes = state.chunk_lanes;
        }
        tuning
    };
    if n < 3 || cut >= n {
        let start = match resume {
            Some(Progress::Up { state, .. }) => Some(state),
            Some(Progress::Down { .. }) => return Err(does_not_fit()),
            None => None,
        };
        let tuning = in_chunks(bottom_up_tuning(&plan, n), start.as_ref());
        let mut value = BigUint::ZERO;
        let mut at_boundary = |state: &State, stopping| save(Point::Up { cut, state }, stopping);
        let run = SweepRun { start, ..SweepRun::default() };
        let target = Targets::one(n, g);
        blocked::run_sweep(&plan, run, &target, hooks, tuning, Some(&mut at_boundary), |_, words| {
            value = to_biguint(words)
        })?;
        return Ok(value);
    }
    check_cut(n, cut)?;
    let halves = Halves::new(&plan, (n as usize, g), cut as usize, |t| t);
    let done = AtomicU64::new(0);
    let tally = Some(Tally { done: &done, total: halves.total });
    let none = Targets::default();
    let (below, direct, start) = match resume {
        Some(Progress::Down { below, direct, state, .. }) => {
            drop(plan.hand_over(0)); // the top-down half makes its own layers
            (*below, to_biguint(&direct), Some(state))
        }
        up => {
            let start = match up {
                Some(Progress::Up { state, .. }) => Some(state),
                _ => None,
            };
            let handed = plan.hand_over(cut as usize);
            // the layers a resumed half has passed are no longer read
            for layer in handed.iter().take(start.as_ref().map_or(0, |s| s.k0)) {
                *layer.lock().expect("not poisoned") = Default::default();
            }
            let tuning = in_chunks(halves.tuning_up, start.as_ref());
            let mut at_boundary = |state: &State, stopping| save(Point::Up { cut, state }, stopping);
            let run = SweepRun { sweep: Some(halves.up), tally, handed: Some(&handed), start };
            let below = blocked::run_sweep(&plan, run, &none, hooks, tuning, Some(&mut at_boundary), |_, _| {})?;
            (below, BigUint::ZERO, None)
        }
    };
    let direct = std::sync::Mutex::new(direct);
    let tuning = in_chunks(halves.tuning_down, start.as_ref());
    let mut at_boundary = |state: &State, stopping| {
        let direct = direct.lock().expect("not poisoned");
        save(Point::Down { cut, below: &below, direct: &direct, state }, stopping)
    };
    let run = SweepRun { sweep: Some(halves.down), tally, start, ..SweepRun::default() };
    let top = blocked::run_sweep(&plan, run, &none, hooks, tuning, Some(&mut at_boundary), |times, words| {
        *direct.lock().expect("not poisoned") += to_biguint(words) * times as u32;
    })?;
    join(&below, &top, cut as usize, direct.into_inner().expect("not poisoned"), hooks)
}

/// The join at `cut` of the bottom-up half's last two layers (`bottom`: cut - 1 and cut) and the
/// top-down half's (`top`: cut and cut - 1, or 3 and 2 for a cut at 2), with `direct` the paths to
/// the direct moves above the cut: the products over the states reached from both ends, in
/// parallel, and their sum. Cost: two products of big integers a state of layers cut and cut - 1.
///
/// # Errors
/// [`Error::Interrupted`] when cancelled.
fn join(bottom: &State, top: &State, cut: usize, direct: BigUint, hooks: Hooks) -> Result<BigUint> {
    use rayon::prelude::*;
    hooks.check()?;
    let start = hooks.recorder().map(|_| crate::arch::thread_cpu_seconds());
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
        recorder.serial(crate::arch::thread_cpu_seconds() - start); // outside the task graph
    }
    Ok(direct + joined)
}

/// The states a task of the join multiplies.
const JOIN_STATES: usize = 64;

/// The limb additions of a count from both ends over layers of `lens[k]` states (k from 0 to the top
/// layer n), cut at `cut`: the states of each layer k <= cut times limbs(k), as the bottom-up engine
/// runs them, and of each layer k > cut times limbs(n - k + 1), the widest N can be there. `cut` = n
/// gives the bottom-up run's ([`super::limb_additions`]). Cost O(n).
pub(crate) fn limb_additions(lens: &[u32], cut: usize) -> u128 {
    let n = lens.len().saturating_sub(1);
    let width = |k: usize| if k <= cut { limbs(k) } else { limbs(n - k + 1).max(1) };
    lens.iter().enumerate().skip(2).map(|(k, &len)| len as u128 * width(k) as u128).sum()
}

/// The cut with the least [`limb_additions`] over layers of `lens[k]` states, and those additions.
/// Cost O(n): the sums from both ends, each once.
pub(crate) fn best_cut(lens: &[u32]) -> (usize, u128) {
    let n = lens.len().saturating_sub(1);
    if n < 2 {
        return (n.max(1), 0);
    }
    // below[m]: the bottom half's additions over layers 2..=m; above[m]: the top half's over m+1..=n
    let mut below = vec![0u128; n + 1];
    for k in 2..=n {
        below[k] = below[k - 1] + lens[k] as u128 * limbs(k) as u128;
    }
    let mut above = vec![0u128; n + 2];
    for k in (2..=n).rev() {
        above[k - 1] = above[k] + lens[k] as u128 * limbs(n - k + 1).max(1) as u128;
    }
    (1..=n).map(|m| (m, below[m] + above[m])).min_by_key(|&(m, work)| (work, std::cmp::Reverse(m))).expect("a cut")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan_of(n: u64, g: u64) -> Plan {
        Plan::new(&Targets::one(n, g), u64::MAX, Hooks::default()).unwrap()
    }

    /// Every cut, the ends and the layers next to 0, 1 and 2 among them, gives the bottom-up count,
    /// for small trees in full and for random (n, g) from a fixed, printed seed.
    #[test]
    fn every_cut_gives_the_bottom_up_count() {
        let seed = 0xb07e_4e4d;
        println!("SplitMix64 seed {seed:#x}");
        let mut rng = fibtree_util::SplitMix64(seed);
        let mut cases: Vec<(u64, u64)> = (0..=12).flat_map(|n| (0..12).map(move |g| (n, g))).collect();
        cases.extend((0..12).map(|_| (2 + rng.below(400), rng.below(48))));
        cases.extend([(300, 1 << 40), (500, 0), (64, 5)]);
        for (n, g) in cases {
            let plan = plan_of(n, g);
            let want = crate::engines::count_exact(
                super::super::Engine::Reference,
                &plan,
                &Targets::one(n, g),
                Hooks::default(),
            )
            .unwrap()
            .remove(0);
            for cut in 1..=n.max(1) {
                let got = count(&plan, (n, g), cut, Hooks::default()).unwrap();
                assert_eq!(got, want, "c({n}, {g}) cut at {cut}, seed {seed:#x}");
            }
        }
    }

    /// The blocked engine's halves give the reference's value at every cut, ends included, for
    /// random (n, g) from a fixed, printed seed, on every kernel set the CPU has and chunks of every
    /// size.
    #[test]
    fn the_blocked_halves_agree_at_every_cut() {
        let seed = 0x5eed_b0e5;
        println!("SplitMix64 seed {seed:#x}");
        let mut rng = fibtree_util::SplitMix64(seed);
        let mut cases: Vec<(u64, u64)> = vec![(3, 0), (4, 1), (5, 0), (40, 0), (64, 5), (300, 1 << 40), (700, 0)];
        cases.extend((0..8).map(|_| (3 + rng.below(500), rng.below(40))));
        for (n, g) in cases {
            let plan = plan_of(n, g);
            let want = count(&plan, (n, g), n, Hooks::default()).unwrap();
            let cuts: Vec<u64> = if n <= 64 { (2..=n).collect() } else { vec![2, 3, 4, n / 3, n / 2, n - 2, n - 1, n] };
            for cut in cuts {
                for isa in crate::arch::Isa::available() {
                    for chunk_lanes in [1, 4, 16] {
                        let tune = |t| Tuning { isa, chunk_lanes, ..t };
                        let got = count_blocked(&plan, (n, g), cut, Hooks::default(), tune).unwrap();
                        assert_eq!(got, want, "c({n}, {g}) cut at {cut}, {isa:?}, {chunk_lanes} lanes, seed {seed:#x}");
                    }
                }
            }
        }
    }

    /// The same count from both ends on 1, 2, 3 and 8 threads (chunks cut smaller for more
    /// threads, the halves' tasks interleaved differently).
    #[test]
    fn the_halves_give_the_same_count_on_any_threads() {
        let (n, g) = (900, 3);
        let plan = plan_of(n, g);
        let want = count(&plan, (n, g), n, Hooks::default()).unwrap();
        let (cut, _) = best_cut(plan.lens());
        for threads in [1, 2, 3, 8] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let got = pool.install(|| count_blocked(&plan, (n, g), cut as u64, Hooks::default(), |t| t)).unwrap();
            assert_eq!(got, want, "{threads} threads, cut at {cut}");
        }
    }

    /// A cancelled count from both ends stops with [`Error::Interrupted`], not a value.
    #[test]
    fn a_cancelled_count_from_both_ends_is_interrupted() {
        let plan = plan_of(2000, 0);
        let cancel = std::sync::atomic::AtomicBool::new(true);
        let hooks = Hooks::default().cancel_on(&cancel);
        let got = count_blocked(&plan, (2000, 0), 1000, hooks, |t| t);
        assert!(matches!(got, Err(Error::Interrupted)), "{got:?}");
    }

    #[test]
    fn the_oracle_agrees_from_both_ends() {
        for k in 2..=16u64 {
            let oracle = crate::oracles::explicit_tree_counts(k as u32).unwrap();
            for (g, &want) in oracle.iter().enumerate() {
                let plan = plan_of(k, g as u64);
                let got = count(&plan, (k, g as u64), k.div_ceil(2), Hooks::default()).unwrap();
                assert_eq!(got, BigUint::from(want), "c({k}, {g})");
            }
        }
    }

    #[test]
    fn a_cut_outside_the_layers_is_refused() {
        let plan = plan_of(30, 0);
        for cut in [0, 31, u64::MAX] {
            let got = count(&plan, (30, 0), cut, Hooks::default());
            assert!(matches!(got, Err(Error::InvalidArgument { param: Param::N, .. })), "{cut}: {got:?}");
        }
    }

    /// The cost model at the issue's sizes: the bottom-up run's additions at the top cut, and at
    /// n = 10000 a best cut near n / 2 with at most 0.70 of them (7.64e8 bottom-up).
    #[test]
    fn the_best_cut_halves_the_work_where_the_layers_are_wide() {
        let plan = plan_of(10_000, 0);
        let lens = plan.lens();
        assert_eq!(limb_additions(lens, 10_000), crate::engines::limb_additions(lens));
        assert_eq!(crate::engines::limb_additions(lens), 763_862_076);
        let (cut, work) = best_cut(lens);
        assert_eq!(work, limb_additions(lens, cut));
        assert!((1..=10_000).all(|m| limb_additions(lens, m) >= work));
        assert!((4000..6000).contains(&cut), "cut {cut}");
        let ratio = work as f64 / 763_862_076.0;
        assert!(ratio <= 0.70, "{work} limb additions from both ends, {ratio:.3} of bottom-up");
        println!("n = 10000: best cut {cut}, {work} limb additions, {ratio:.3} of bottom-up");
    }
}
