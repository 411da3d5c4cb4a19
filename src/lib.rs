//! fibtree: exact counts of the winning first moves of the Fibonacci tree game.
//!
//! c(n, g) is the number of non-root nodes of the Fibonacci tree T(n) whose deletion (with its
//! subtree) leaves a position of Grundy value g; c(n, 0) = f(n) counts the winning first moves.
//! [`count`] gives it exactly, [`count_mod`] modulo any m < 2^63, and a [`Counting`] run gives it
//! with its projections checked against an independent modular computation.
//!
//! ```
//! let f10 = fibtree::count(10, 0).unwrap();
//! assert_eq!(f10.to_string(), "17");
//! assert_eq!(fibtree::count_mod(10_000, 0, 998_244_353).unwrap(), 163_314_502);
//! ```
//!
//! The vector kernels of the exact engine run the instruction set found fastest on this CPU,
//! measured once per process ([`isa_choice`]; the dense modular sweep takes the widest), unless the
//! program sets one ([`Machine::isa`]); [`isa()`] says which runs. The machine's facts (its caches,
//! cores, instruction sets and memory available) are read in one place, where a program can set
//! another machine once, before any engine runs ([`Machine`]), as fibtree's command line does for
//! its tests; the library reads no environment variable. [`cores`] says how many cores a run may
//! use.
//!
//! The counting API is at the root: the counts ([`count`], [`count_mod`], [`distribution`],
//! [`support`]), a checked counting run ([`Counting`], steered by [`Options`], giving a [`Report`]
//! for each target, or its residues alone: [`mod_only`]), the memory a run may use ([`Limit`]), the
//! game itself ([`grundy`], [`tree_size`]) and the machine. Nine modules hold the rest, each
//! small: [`oracles`] (the brute-force counts that check the engines), [`ladder`] (every engine
//! against the simpler one before it), [`claims`] (checking another program's residues), [`dist`]
//! (whole distributions), [`moves`] (naming the moves themselves), [`draw`] (pictures of small
//! trees), [`crt`] (exact values from residues modulo a fixed sequence of primes), [`estimate`] (the
//! cost of a count before it runs) and [`bench`](mod@bench) (the exact engine timed, every run checked); with
//! the feature `kernels`, `kernels::alone` gives the engines' kernels alone to the criterion benchmarks.
//! The `fibtree` command line is built on this API alone, with the default feature `cli`; without
//! it the library builds alone (`cargo build --lib --no-default-features`).

#![warn(missing_docs)]
#![deny(unsafe_code)]

pub mod bench;
mod budget;
mod checkpoint;
pub mod claims;
mod cost;
pub mod crt;
pub mod dist;
pub mod draw;
mod engines;
mod error;
pub mod estimate;
mod game;
mod graph;
mod hooks;
#[cfg(feature = "kernels")]
pub mod kernels;
#[cfg(not(feature = "kernels"))]
mod kernels;
pub mod ladder;
mod limits;
mod machine;
pub mod moves;
mod options;
pub mod oracles;
mod plan;
mod report;
mod run;
mod targets;

pub use checkpoint::Checkpoint;
pub use engines::both_ends::Halves;
pub use engines::modular::MODULUS_LIMIT;
pub use engines::{Cut, Engine};
pub use error::{Error, Param, Result};
pub use game::{MAX_N, count_parity, grundy, tree_size};
pub use hooks::{Hooks, NoticeFn, ProgressFn};
pub use kernels::{Isa, IsaChoice, isa, isa_choice};
pub use limits::{Bound, Limit};
pub use machine::{Machine, cores};
pub use options::{LAST18, Options, P998244353};
pub use plan::known_zero;
pub use report::{ModReport, Parity, Projection, Report};
pub use run::{Counting, check_table_floor, mod_only, mod_only_each};

use num_bigint::BigUint;

/// The exact c(n, g): the number of moves in T(n) that leave Grundy value g.
///
/// Cost: about 10.4 million states of up to 6,930 bits at n = 10000 (time O(states x n / 64)), in
/// the current rayon pool; memory O(one layer) plus one bit per g of each layer's window of the plan.
///
/// # Errors
/// [`Error::InvalidArgument`] for n above [`MAX_N`]; [`Error::OutOfMemory`] when the run would
/// need more memory than is available.
///
/// # Examples
///
/// ```
/// assert_eq!(fibtree::count(10, 0)?.to_string(), "17"); // f(10): the winning first moves of T(10)
/// assert_eq!(fibtree::count(10, 26)?.to_string(), "4"); // the moves that leave the value 26
/// # Ok::<(), fibtree::Error>(())
/// ```
pub fn count(n: u64, g: u64) -> Result<BigUint> {
    let guard = budget::Guard::new(budget::Run::Exact { values: 1 }, budget::available_limit());
    guard.floor(n, g)?;
    if plan::known_zero(n, g, Hooks::default())? {
        return Ok(BigUint::ZERO);
    }
    let target = targets::Targets::one(n, g);
    // the top-down half makes its own layers: the plan keeps the lower half, and the top-down half
    // starts while it is made, cut where the best cut is whatever the plan (the bound on it)
    let (keep, hooks) = (engines::both_ends::keep_for_both_ends(n as usize), Hooks::default());
    let early_cut = (n >= 3 && (keep as u64) < n).then_some(keep as u64);
    let (plan, _, started) = run::planned_under(&guard, &target, keep, early_cut, hooks)?;
    let cut = engines::halves_of(&plan, &target, Cut::Auto).map_or(n, |halves| halves.cut);
    engines::both_ends::count_taking(plan, (n, g), cut, hooks, started)
}

/// c(n, g) modulo m, in machine arithmetic only.
///
/// Cost: where g is small, n x W vector lane operations with no plan, W the smallest power of two
/// above g and every Grundy value (8192 at n = 10000), memory three arrays of W + 1 words;
/// otherwise the plan, then the engine over its windows.
///
/// # Errors
/// [`Error::InvalidArgument`] for m outside 2..2^63 or n above [`MAX_N`]; [`Error::OutOfMemory`]
/// when the arrays or the plan would not fit in the available memory.
///
/// # Examples
///
/// ```
/// assert_eq!(fibtree::count_mod(300, 0, 998_244_353)?, 110_881_951);
/// assert_eq!(fibtree::count_mod(10, 0, 7)?, 17 % 7);
/// # Ok::<(), fibtree::Error>(())
/// ```
pub fn count_mod(n: u64, g: u64, m: u64) -> Result<u64> {
    Ok(crt::residues(n, g, &[m], &Options::default())?[0])
}

/// The whole distribution: `(g, c(n, g))` for every g with a non-zero count, ascending g.
///
/// Cost: the support's forward pass, then the exact engine over every state the support of layer n
/// needs (about 12 times the states of `count(n, 0)`); memory the plan plus three layers of them.
///
/// # Errors
/// As [`count`].
///
/// # Examples
///
/// ```
/// let dist = fibtree::distribution(10)?;
/// assert_eq!((dist.len(), dist[0].0, dist[0].1.to_string()), (17, 0, "17".to_string()));
/// // each of the 142 moves of T(10) leaves one value
/// let moves: num_bigint::BigUint = dist.iter().map(|(_, c)| c).sum();
/// assert_eq!(moves, fibtree::tree_size(10) - 1u32);
/// # Ok::<(), fibtree::Error>(())
/// ```
pub fn distribution(n: u64) -> Result<Vec<(u64, BigUint)>> {
    dist::distribution(n, &Options::default())
}

/// The support of c(n, .): every g with c(n, g) > 0, ascending (about 6.5 n of them, below about
/// 11 n).
///
/// Cost: a forward pass over n layers of whole-word set operations; two layers of memory.
///
/// # Errors
/// [`Error::InvalidArgument`] for n above [`MAX_N`].
///
/// # Examples
///
/// ```
/// assert_eq!(fibtree::support(10)?, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 18, 26]);
/// assert!(fibtree::support(0)?.is_empty()); // T(0) has no move
/// # Ok::<(), fibtree::Error>(())
/// ```
pub fn support(n: u64) -> Result<Vec<u64>> {
    Ok(plan::support(n, Hooks::default())?.iter().collect())
}

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
