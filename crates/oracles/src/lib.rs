//! Brute-force oracles for the counts c(k, g), used only to check the engines on small k.
//!
//! Two oracles, each computing the whole distribution `c(k, .)` (see `docs/math.md` in this repository):
//!
//! * the explicit tree: [`explicit_tree_counts`] builds T(k) node by node in flat arrays, gives every subtree its
//!   Grundy value by the colon principle, and plays every first move on the actual tree,
//!   recomputing the root's value along the path from the deleted node up. It shares the colon
//!   principle with the fast engines but none of their recurrences: no `c(k-1, .)`, no layers,
//!   no reachable-state pruning, no special case at k = 2 (the missing right child of T(2) is
//!   simply never built), so a slip in the recurrence or in the layer bounds shows up here.
//! * first principles: [`first_principles_counts`] does not trust the theory at all: positions are canonical
//!   rooted trees, and a position's Grundy value is the mex of the values of all its moves,
//!   memoised on the canonical form. No colon principle and no XOR appear in it, so agreement
//!   with the explicit oracle for k <= 7 checks the colon principle itself.
//!
//! Neither oracle reads anything from the engines or the plan: the tree, its moves and the values
//! are rebuilt from the definitions of the game.
//!
//! ```
//! use fibtree_oracles::{explicit_tree_counts, first_principles_counts};
//! let counts = explicit_tree_counts(6)?; // c(6, g) for g = 0, 1, ...
//! assert_eq!(counts, first_principles_counts(6)?);
//! assert_eq!(counts[0], 3); // f(6) = 3
//! # Ok::<(), fibtree_oracles::TooLarge>(())
//! ```
//!
//! A crate of its own, below fibtree's engines and beside them: what checks them (their tests,
//! `fibtree self-test` and `fibtree brute`) and what draws small trees (`fibtree draw`).

#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod explicit_tree;
mod first_principles;
#[cfg(test)]
mod tests;

pub use explicit_tree::{ExplicitNode, explicit_tree_counts, explicit_tree_grundy, explicit_tree_nodes};
pub use first_principles::first_principles_counts;

/// An oracle's result: what it computed, or the [`TooLarge`] tree it refused.
pub type Result<T> = std::result::Result<T, TooLarge>;

/// A tree T(k) past an oracle's limit ([`MAX_EXPLICIT_K`], [`MAX_FIRST_PRINCIPLES_K`]): its time and
/// memory would grow past what a check can spend.
///
/// ```
/// let refused = fibtree_oracles::first_principles_counts(8).unwrap_err();
/// assert_eq!(refused.to_string(), "at most 7 for the first-principles oracle, got 8");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("at most {max} for the {oracle} oracle, got {k}")]
pub struct TooLarge {
    /// The tree asked for.
    pub k: u32,
    /// The largest the oracle accepts.
    pub max: u32,
    /// The oracle's name, e.g. `first-principles`.
    pub oracle: &'static str,
}

/// Largest k the explicit-tree oracle accepts.
///
/// At this limit T(30) has 2,178,308 nodes: [`explicit_tree_counts`] then takes about 45 MB (20
/// bytes a node) and at most 29 steps a move (one an ancestor of the deleted node). Larger k are
/// refused ([`TooLarge`]) (time and memory grow by a factor of about 1.618 per
/// level).
pub const MAX_EXPLICIT_K: u32 = 30;

/// Largest k the first-principles oracle accepts.
///
/// At this limit T(7) has 20 nodes and [`first_principles_counts`] memoises 94,505 canonical
/// positions, each solved once over its at most 19 moves: about 30 MB. Larger k are refused
/// ([`TooLarge`]): the number of positions grows roughly like the product of the two
/// previous levels' (81, 1192, 94505 for k = 5, 6, 7), far beyond memory at k = 8.
pub const MAX_FIRST_PRINCIPLES_K: u32 = 7;

/// The error for a `k` above an oracle's limit.
fn check_k(k: u32, max: u32, oracle: &'static str) -> Result<()> {
    if k > max {
        return Err(TooLarge { k, max, oracle });
    }
    Ok(())
}

/// Appends one occurrence of `value` to a distribution indexed by value.
fn tally(counts: &mut Vec<u64>, value: u64) {
    let index = usize::try_from(value).expect("a Grundy value of a small tree fits in usize");
    if index >= counts.len() {
        counts.resize(index + 1, 0);
    }
    counts[index] += 1;
}
