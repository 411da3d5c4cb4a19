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
//! cut gives the same value. Three forms, a file each:
//!
//! - [`mod@reference`], [`count`]: the reference, in whole big integers (hash maps top-down), what
//!   the others are tested against at every cut (and what `fibtree self-test` checks against the
//!   bottom-up count);
//! - [`joined`], [`count_blocked`] and [`count_taking`]: the two halves at once in the blocked
//!   engine's lanes (its sweeps [`Sweep::Up`] and [`Sweep::Down`]), then the join in parallel; the
//!   taking form frees the plan as the bottom-up half reads it, and goes on with a top-down half
//!   started while the plan was made ([`mod@early`], [`start_top_down`]: it needs no plan layer, and
//!   the cut is known before the plan, [`keep_for_both_ends`]);
//! - [`resumable`], [`count_resumable`]: the halves one after the other, each in segments, for a
//!   checkpoint ([`Position`]).
//!
//! [`cut`] holds the cut asked for ([`Cut`], checked once by [`Cut::resolve`]) and the cost model
//! ([`best_cut`], [`halves`], over [`crate::cost::both_ends_limb_additions`]) that says where it
//! pays: the least limb additions, near n / 2 ([`keep_for_both_ends`] bounds it).
//!
//! The blocked engine is reached through its one door, [`blocked::run`]: a sweep in either
//! direction, its tuning and work, and the state where it ends.
//!
//! **Invariants.** A top-down value of layer k is at most F(n - k + 1) (the paths of steps 1 and 2
//! from n to k), so it fits the lanes of a count of layer n - k + 1; the top-down half's states are
//! the images of the two layers above it (the plan's backward pass), so it reads no plan layer; the
//! join reads the bottom-up half's last two layers (cut - 1, cut) and the top-down half's (cut,
//! cut - 1), whose non-zero states are each a subset of the plan's.

pub(crate) mod cut;
pub(crate) mod early;
pub(crate) mod joined;
pub(crate) mod reference;
pub(crate) mod resumable;
#[cfg(test)]
mod tests;

pub use cut::Cut;
pub use cut::Halves;
pub(crate) use cut::{halves, keep_for_both_ends};
pub(crate) use early::{Started, start_top_down};
pub(crate) use joined::{count_blocked, count_taking};
// the reference form checks the others: the tests and the ladder (`self-test`)
pub use crate::engines::blocked::Unread;
pub(crate) use reference::count;
pub use resumable::Position;
pub(crate) use resumable::{check_resume, count_resumable};

#[cfg(doc)]
use super::blocked::{self, Sweep};
#[cfg(doc)]
use cut::best_cut;
