//! fibtree: exact counts of the winning first moves of the Fibonacci tree game.
//!
//! c(n, g) is the number of non-root nodes of the Fibonacci tree T(n) whose deletion (with its
//! subtree) leaves a position of Grundy value g; c(n, 0) = f(n) counts the winning first moves.
//! [`count`] gives it exactly, [`count_mod`] modulo any m < 2^63, and [`count_report`] gives it with
//! its projections checked against an independent modular computation.
//!
//! ```
//! let f10 = fibtree::count(10, 0).unwrap();
//! assert_eq!(f10.to_string(), "17");
//! assert_eq!(fibtree::count_mod(10_000, 0, 998_244_353).unwrap(), 163_314_502);
//! ```

#![warn(missing_docs)]

pub mod bench;
pub mod blocked;
pub mod brute;
pub mod checkpoint;
pub mod dist;
pub mod draw;
pub mod engine;
pub mod error;
pub mod exact;
pub mod game;
pub mod modular;
pub mod moves;
pub mod plan;
pub mod report;
pub mod rng;
pub mod selftest;
pub mod verify;

pub use engine::Hooks;
pub use error::{Error, Result};
pub use game::{grundy, tree_size};
pub use report::{
    Counting, ModReport, Options, Projection, Report, count_mod_report, count_report, count_reports, for_each_report,
};

use num_bigint::BigUint;

/// The exact c(n, g): the number of moves in T(n) that leave Grundy value g.
///
/// Cost: about 16.7 million states of up to 6,930 bits at n = 10000 (time O(states x n / 64)), in
/// the current rayon pool; memory O(one layer) plus one bit per g of each layer's window of the plan.
///
/// # Errors
/// [`Error::InvalidArgument`] for n above [`game::MAX_N`]; [`Error::OutOfMemory`] when the run would
/// need more memory than is available.
pub fn count(n: u64, g: u64) -> Result<BigUint> {
    let plan = plan::Plan::new(&[(n, g)], report::available_memory())?;
    Ok(exact::count_with_plan(&plan, &[(n, g)], Hooks::default())?.remove(0))
}

/// The whole distribution: `(g, c(n, g))` for every g with a non-zero count, ascending g.
///
/// Cost: the support's forward pass, then the exact engine over every state the support of layer n
/// needs (about 12 times the states of `count(n, 0)`); memory the plan plus three layers of them.
///
/// # Errors
/// As [`count`].
pub fn distribution(n: u64) -> Result<Vec<(u64, BigUint)>> {
    dist::exact(n, exact::Engine::Blocked, Hooks::default(), report::available_memory())
}

/// c(n, g) modulo m, in machine arithmetic only.
///
/// Cost: where g is small, n x W vector lane operations with no plan, W the smallest power of two
/// above g and every Grundy value (8192 at n = 10000; see [`modular::count_mod_unplanned`]), memory
/// three arrays of W + 1 words; otherwise the plan, then the engine over its windows
/// ([`modular::count_mod_with_plan`]).
///
/// # Errors
/// [`Error::InvalidArgument`] for m outside 2..2^63 or n above [`game::MAX_N`];
/// [`Error::OutOfMemory`] when the plan would not fit in the available memory.
pub fn count_mod(n: u64, g: u64, m: u64) -> Result<u64> {
    modular::check_modulus(m)?;
    if let Some(residues) = modular::count_mod_unplanned(&[(n, g)], &[m], Hooks::default())? {
        return Ok(residues[0][0]);
    }
    let plan = plan::Plan::new(&[(n, g)], report::available_memory())?;
    Ok(modular::count_mod_with_plan(&plan, &[(n, g)], &[m], Hooks::default())?[0][0])
}

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
