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
//! The counting API is at the root: the counts ([`count`], [`count_mod`], [`distribution`],
//! [`support`]), a checked counting run ([`Counting`], steered by [`Options`], giving a [`Report`]
//! for each target, or its residues alone: [`mod_only`]), the memory a run may use ([`Limit`]) and
//! the game itself ([`grundy`], [`tree_size`], [`count_parity`]). Five modules hold the rest, each
//! small: [`claims`] (checking another program's residues), [`dist`] (whole distributions),
//! [`moves`] (naming the moves themselves), [`crt`] (a count's residues, cut into shards and put
//! back together) and [`estimate`] (the cost of a count before it runs).
//!
//! The engines are a crate of their own, [`fibtree_core`], which this library drives through its
//! one door (a count request); what they run on ([`Machine`]: the instruction sets, caches, cores
//! and memory, set once before any count; the library reads no environment variable) is theirs.
//! The `fibtree` command line is a package of its own (fibtree-cli, the workspace's root) built on
//! this API and the core's; this library depends on none of its crates.

#![warn(missing_docs)]
#![deny(unsafe_code)]

mod checkpoint;
pub mod claims;
pub mod crt;
pub mod dist;
mod error;
mod exact;
mod machine;
pub mod moves;
mod options;
mod report;
mod run;
pub mod timing;

pub use checkpoint::Checkpoint;
pub use error::{Error, Param, Result};
pub use exact::exact;
pub use fibtree_core::estimate;
pub use fibtree_core::{
    Bound, Cut, Engine, Halves, Hooks, Limit, MAX_N, MODULUS_LIMIT, TileRule, count_parity, grundy, known_zeros,
    tree_size,
};
pub use machine::{Isa, IsaChoice, Machine, cores, isa, isa_choice};
pub use options::{CHUNK_LANES, LAST18, Options, P998244353};
pub use report::{ModReport, Parity, Projection, Report};
pub use run::{Counting, mod_only};

use num_bigint::BigUint;

/// The exact c(n, g): the number of moves in T(n) that leave Grundy value g.
///
/// Cost: about 10.4 million states of up to 6,930 bits at n = 10000 (time O(states x n / 64)), in
/// the current rayon pool; memory O(one layer) plus the plan's layers, packed (at most one bit per g
/// of each layer's window).
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
    Ok(exact(&[(n, g)], &Options::default())?.remove(0))
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
    Ok(fibtree_core::support(n, Hooks::default())?)
}

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
