//! The engines: the recurrence for c(k, g) run layer by layer over a [`Plan`] of the states it needs.
//!
//! - [`recurrence`]: the recurrence, written once, over any number system ([`recurrence::Numbers`]);
//! - [`mod@reference`]: whole big integers in that recurrence, the straightforward exact engine;
//! - [`blocked`]: the fast exact engine, blocks of layers one lane chunk at a time, carries delayed;
//!   with lanes of residues instead (no carries), the residues of [`Engine::Crt`];
//! - [`modular`]: residues in machine arithmetic, a generic engine over the recurrence and a dense
//!   vectorised one; the independent computation every exact value is checked against.
//!
//! This file dispatches [`Engine`] and holds what the engines share: the words format of an exact
//! value (a length word, then little-endian 64-bit limbs) and the memory of the layers (the limb
//! additions of a plan are a cost formula, [`crate::cost`]). The targets come sorted, each once, in the order of their layers
//! ([`Targets`]).

pub(crate) mod blocked;
pub(crate) mod both_ends;
pub(crate) mod modular;
pub(crate) mod recurrence;
pub(crate) mod reference;
#[cfg(test)]
mod tests;

#[cfg(test)]
use num_bigint::BigUint;

use crate::cost::limbs;
use crate::crt::garner::{check_below_tree, garner};
use crate::crt::primes::{first as primes, primes_needed};
use crate::error::Result;
use crate::hooks::Hooks;
use crate::plan::{Held, Plan, Sizes};
use crate::targets::Targets;

pub use both_ends::{Cut, Halves};
pub(crate) use reference::{to_biguint, to_words};

/// Which exact engine runs the recurrence.
///
/// # Examples
///
/// ```
/// use fibtree_core::{Engine, Request};
/// let count = |engine| {
///     let mut value = None;
///     Request::exact(&[(300, 0)], engine).plan()?.run(|_, v, _| Ok(value = v))?;
///     Ok::<_, fibtree_core::Error>(value.unwrap())
/// };
/// for engine in [Engine::Reference, Engine::Crt] {
///     assert_eq!(count(engine)?, count(Engine::Blocked)?, "{engine:?}");
/// }
/// assert_eq!((Engine::default(), Engine::Blocked.other()), (Engine::Blocked, Engine::Crt));
/// # Ok::<(), fibtree_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Engine {
    /// The fast engine: blocks of layers computed one lane chunk at a time, in cache, with delayed
    /// carries.
    #[default]
    Blocked,
    /// The straightforward engine: whole values layer by layer, kept as the reference the fast one
    /// is tested against.
    Reference,
    /// The residue route: the counts modulo enough primes below 2^62, all of them in one run of
    /// the blocked engine's residue kind (lane i of a state modulo prime i), turned into the exact
    /// values by the Chinese remainder theorem ([`crate::garner`]). No big-integer arithmetic but the
    /// reconstruction, none shared with the other two (the lanes hold residues, with no carries).
    Crt,
}

impl Engine {
    /// The engine of a double check: the other family of arithmetic, so that the two routes share
    /// none (the blocked engine's lanes with the residues of [`Engine::Crt`], and the reverse); the
    /// reference engine is checked by the blocked one.
    pub fn other(self) -> Engine {
        match self {
            Engine::Blocked => Engine::Crt,
            Engine::Reference | Engine::Crt => Engine::Blocked,
        }
    }
}

/// The halves of the blocked engine's count of `targets` over `plan` with the cut asked for (checked by
/// [`Cut::resolve`]): for one target at the plan's top, its cut and the work of each half
/// ([`both_ends::halves`]); `None` (bottom-up alone) for several targets. Cost O(n).
pub(crate) fn halves_of(plan: &Plan, targets: &Targets, cut: Cut) -> Option<both_ends::Halves> {
    match targets.len() {
        1 if targets[0].0 as usize == plan.top() => Some(both_ends::halves(plan.lens(), cut)),
        _ => {
            debug_assert_eq!(cut, Cut::Auto, "a cut resolved for one target");
            None
        }
    }
}

/// Runs `engine` over `plan`, streaming each target's words (a length word, then limbs; see
/// [`to_biguint`]) to `sink` in order of layer; the blocked engine counts one target from both
/// ends where `cut` says so ([`halves_of`]).
///
/// Cost: O(plan states x limbs(n)) limb additions (about half from both ends); memory of the
/// engine (three layers for the reference, see [`blocked`] for the other).
///
/// # Errors
/// [`crate::Error::Interrupted`] when cancelled.
pub(crate) fn stream_words(
    engine: Engine,
    plan: &Plan,
    targets: &Targets,
    cut: Cut,
    hooks: Hooks,
    mut sink: impl FnMut(usize, &[u64]) + Send,
) -> Result<()> {
    let halves = match engine {
        Engine::Blocked => halves_of(plan, targets, cut),
        _ => None,
    };
    match engine {
        Engine::Blocked if halves.is_some_and(|s| s.both_ends()) => {
            let cut = halves.expect("halves").cut;
            let value = both_ends::count_blocked(plan, targets[0], cut, hooks, |t| t)?;
            sink(0, &to_words(&value));
            Ok(())
        }
        Engine::Blocked => {
            let tuning = blocked::Tuning::for_run(plan.widest_layer(), plan.top(), rayon::current_num_threads());
            blocked::run(blocked::Run::exact(plan, targets, hooks, tuning), None, sink).map(drop)
        }
        // the reference form of a count from both ends, at the cut asked for (1: top-down alone)
        Engine::Reference if let (Cut::At(m), [target]) = (cut, &targets[..]) => {
            sink(0, &to_words(&both_ends::count(plan, *target, m, hooks)?));
            Ok(())
        }
        Engine::Reference => recurrence::run_streaming(plan, &reference::Limbs, targets, hooks, sink),
        Engine::Crt => run_crt(plan, targets, hooks, sink),
    }
}

/// [`stream_words`] for [`Engine::Crt`]: every target modulo the first [`crate::crt::primes::primes_needed`]
/// primes of the highest target's n, all in one run of the blocked engine's residue kind over
/// `plan` ([`blocked::run`] with [`blocked::Lanes::Residues`], in the current rayon pool), each value reconstructed by
/// Garner's algorithm and checked below |T(n)|.
///
/// Cost: O(plan states x k) additions modulo a prime for k = primes_needed(top) (230 at
/// n = 20000), then O(k_t^2) word operations for a target of layer n_t, k_t = primes_needed(n_t)
/// (the value from the first k_t primes, the targets in parallel); memory the blocked engine's with k lanes a
/// state ([`blocked::residue_memory_bytes`]), and k residues a target.
///
/// # Errors
/// [`crate::Error::Interrupted`] when cancelled; [`crate::Error::CrossCheck`] when a
/// reconstruction is not below |T(n)| (a wrong residue).
fn run_crt(plan: &Plan, targets: &Targets, hooks: Hooks, mut sink: impl FnMut(usize, &[u64])) -> Result<()> {
    use rayon::prelude::*;
    let top = targets.top();
    let primes = primes(primes_needed(top));
    let tuning = blocked::Tuning::for_residues(plan.widest_layer(), primes.len(), rayon::current_num_threads());
    // per target, its residue modulo every prime
    let mut by_target: Vec<Vec<u64>> = vec![Vec::new(); targets.len()];
    let run =
        blocked::Run { lanes: blocked::Lanes::Residues(&primes), ..blocked::Run::exact(plan, targets, hooks, tuning) };
    blocked::run(run, None, |t, r| by_target[t] = r.to_vec())?;
    // each target from the primes its own n needs (a prefix of the top's), the targets in parallel
    let words: Vec<Vec<u64>> = (0..targets.len())
        .into_par_iter()
        .map(|t| {
            let (n, g) = targets[t];
            let k = primes_needed(n).min(primes.len());
            let value = garner(&primes[..k], &by_target[t][..k])?;
            check_below_tree(n, g, &value, k)?;
            Ok(to_words(&value))
        })
        .collect::<Result<_>>()?;
    words.iter().enumerate().for_each(|(t, w)| sink(t, w));
    Ok(())
}

/// The words of every target (see [`stream_words`]), in order of `targets`.
///
/// # Errors
/// As [`stream_words`].
pub(crate) fn count_words(
    engine: Engine,
    plan: &Plan,
    targets: &Targets,
    cut: Cut,
    hooks: Hooks,
) -> Result<Vec<Vec<u64>>> {
    let mut words = vec![Vec::new(); targets.len()];
    stream_words(engine, plan, targets, cut, hooks, |t, w| words[t] = w.to_vec())?;
    Ok(words)
}

/// The exact c(n, g) for every target of `plan`, in order, by `engine` (one target from both ends
/// where that pays, [`Cut::Auto`]).
///
/// Cost: as [`stream_words`], plus the values.
///
/// # Errors
/// As [`stream_words`].
#[cfg(test)]
pub(crate) fn count_exact(engine: Engine, plan: &Plan, targets: &Targets, hooks: Hooks) -> Result<Vec<BigUint>> {
    let words = count_words(engine, plan, targets, Cut::Auto, hooks)?;
    let start = hooks.recorder().map(|_| crate::machine::thread_cpu_seconds());
    let values = words.iter().map(|w| to_biguint(w)).collect();
    if let (Some(recorder), Some(start)) = (hooks.recorder(), start) {
        recorder.serial(crate::machine::thread_cpu_seconds() - start); // outside the task graph
    }
    Ok(values)
}

/// What the exact engine's sweeps hold at once over a plan of these layers' sizes (`lens`, layers 0
/// to n), counted from both ends at `cut` (both sweeps at once: the bottom-up one's layers 2 to the
/// cut at their own lanes, the top-down one's from the cut - 1 up, a value of layer k at the lanes
/// of layer n + 1 - k), or bottom-up alone where `cut` is `None` or resolves to the top. Cost O(n).
pub(crate) fn held(lens: &[u32], cut: Option<Cut>) -> Held {
    let n = lens.len().saturating_sub(1);
    let cut = cut.map_or(n, |cut| both_ends::halves(lens, cut).cut as usize);
    let most = |layers: std::ops::RangeInclusive<usize>, lanes_of: &dyn Fn(usize) -> usize| {
        let at = |k: usize| (lens[k] as u64, lens[k] as u64 * lanes_of(k) as u64);
        layers.map(at).fold((0, 0), |(s, l), (s2, l2)| (s.max(s2), l.max(l2)))
    };
    let (halves, top_lanes) = if cut < n && n >= 3 {
        let down = |k: usize| blocked::lanes(n + 1 - k).max(1);
        ([most(2..=cut, &blocked::lanes), most(cut - 1..=n, &down)], blocked::lanes(cut).min(down(cut - 1)))
    } else {
        ([most(2.min(n)..=n, &blocked::lanes), (0, 0)], blocked::lanes(n))
    };
    let (states, lane_states) = (halves[0].0 + halves[1].0, halves[0].1 + halves[1].1);
    Held { states, lane_states, top_lanes: top_lanes as u64 }
}

/// Bytes the exact engines' layers need for a plan whose widest layer has `widest` states and a top
/// layer `n`, in the current rayon pool: the largest of the reference engine's three layers and the
/// blocked engine's, with exact lanes ([`blocked::memory_bytes`]) or residues for [`Engine::Crt`]
/// ([`blocked::residue_memory_bytes`]). Cost O(1).
pub(crate) fn layer_bytes_for(widest: u64, n: usize) -> u64 {
    let threads = rayon::current_num_threads();
    let residues = blocked::residue_memory_bytes(capped(widest), primes_needed(n as u64), threads);
    let exact = blocked::memory_bytes(capped(widest), n, threads);
    reference_bytes(widest, n).max(exact).max(residues)
}

/// [`layer_bytes_for`] the plan of these `sizes`; where the blocked engine is known to run and its
/// route is known ([`Sizes::held`]), what its sweeps hold by their own layers and lanes
/// ([`blocked::held_bytes`]), with the reference engine's layers only for a `double_check` (the
/// other exact engine it runs). Cost O(1).
pub(crate) fn layer_bytes(sizes: &Sizes, n: usize, double_check: bool) -> u64 {
    match sizes.held {
        Some(held) => {
            let reference = if double_check { reference_bytes(sizes.widest, n) } else { 0 };
            blocked::held_bytes(held, rayon::current_num_threads()).max(reference)
        }
        None => layer_bytes_for(sizes.widest, n),
    }
}

/// The reference engine's three layers of `widest` states at the top layer n's limbs. Cost O(1).
fn reference_bytes(widest: u64, n: usize) -> u64 {
    3u64.saturating_mul(capped(widest) as u64).saturating_mul((1 + limbs(n)) as u64 * 8)
}

/// A layer's states for the memory estimates: past 2^40 states the estimate is astronomical either
/// way, and the cap keeps the arithmetic in range.
fn capped(widest: u64) -> usize {
    widest.min(1 << 40) as usize
}
