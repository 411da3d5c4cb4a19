//! The estimate of each kind of run: the process, the plan and what the engines of that run hold,
//! from the plan's [`Sizes`] (real or predicted) and the top layer n.

use super::PROCESS_BYTES;
use crate::cost::{CACHED_BLOCKS, block_of, limbs};
use crate::engines::{self, modular};
use crate::plan::{Sizes, bytes_at};

/// Results up to this size are kept whole, so that the two engines of a count can run at the same
/// time (see [`crate::Counting::for_each`]).
const KEEP_VALUES_BYTES: u64 = 64 << 20;

/// The bytes each target of a count holds before its plan: its place in the caller's list, in the
/// sorted targets (all of them, and those not known to count 0), in the list of distinct ones, and
/// the indices of the rows it answers (a vector and its block of the heap). 181 bytes measured
/// for a table of 600,000 rows; its residues add 8 bytes a modulus.
const TARGET_BYTES: u64 = 192;

/// The bytes of the values of a count of `targets` targets up to layer `n` where the run keeps them
/// whole (always for a double check, else up to [`KEEP_VALUES_BYTES`]), or `None` where it streams
/// them: the one rule that [`crate::Counting::for_each`] follows and [`Run::bytes`] counts. Cost O(1).
pub(crate) fn kept_values(targets: usize, n: u64, double_check: bool) -> Option<u64> {
    let values = (targets as u64).saturating_mul(8 * limbs(n as usize) as u64);
    (double_check || values <= KEEP_VALUES_BYTES).then_some(values)
}

/// A kind of run, with what its estimate depends on besides the plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Run {
    /// A counting run of `targets` targets: the exact engine and the modular engine over one plan,
    /// with `moduli` projections each; with `double_check` the values are kept and a second plan
    /// is made for the other exact engine while the first is held.
    Count {
        /// The moduli projected onto.
        moduli: usize,
        /// The targets (for a table, its rows).
        targets: usize,
        /// Whether every value is computed again by the other exact engine.
        double_check: bool,
    },
    /// Residues only, by the modular engine: `moduli` moduli in one run, `at_once` such runs at
    /// the same time (one a modulus for the shards of [`crate::crt::residues`]).
    Residues {
        /// The moduli of one run of the modular engine.
        moduli: usize,
        /// The runs at the same time.
        at_once: usize,
    },
    /// The whole distribution of layer n: `targets` targets, `words` words a state.
    Distribution {
        /// The words a state holds: 1 for residues, `1 + limbs(n)` for exact values.
        words: u64,
        /// The targets, one a g of the support.
        targets: usize,
    },
    /// A walk over the moves of T(n) ([`crate::moves::Counts`]): the plan, 2 sqrt(n) checkpoint
    /// layers and a few recomputed blocks of sqrt(n) layers.
    Moves,
    /// The exact engine alone over a plan, in the current rayon pool, keeping `values` values (the
    /// timed runs of `fibtree bench`).
    Exact {
        /// The values of limbs(n) words held at once.
        values: u64,
    },
}

impl Run {
    /// The estimated peak memory of the run up to layer `n` over a plan of these sizes, in bytes.
    /// Cost O(1).
    pub(crate) fn bytes(&self, n: u64, sizes: &Sizes) -> u64 {
        let limbs = limbs(n as usize) as u64;
        let run = match *self {
            Run::Count { moduli, targets, double_check } => {
                // the engines' layers, the modular arrays and residues, the values where they are
                // kept (always for a double check, with its second plan), and one result's decimals;
                // from both ends the plan is freed as the layers grow, but its bitsets are small
                // blocks of the allocator's heap that the layers' large arrays cannot reuse, so
                // that the address space holds both
                let layers = engines::layer_bytes(sizes, n as usize, double_check);
                let modular = modular::memory_bytes_for(sizes, moduli, targets);
                let kept = kept_values(targets, n, double_check).unwrap_or(0);
                let again = if double_check { sizes.plan } else { 0 };
                let listing = (targets as u64).saturating_mul(TARGET_BYTES + 8 * moduli as u64);
                [layers, modular, kept, again, n, listing].into_iter().fold(0, u64::saturating_add)
            }
            Run::Residues { moduli, at_once } => {
                modular::memory_bytes_for(sizes, moduli, 1).saturating_mul(at_once as u64)
            }
            Run::Distribution { words, targets } => {
                // the engine's layers (the exact engine's, or the modular engine's arrays for one
                // modulus), every target's value kept to the end and, as the values are handed
                // over, the words of each beside its number, and every target's bookkeeping
                let listing = (targets as u64).saturating_mul(TARGET_BYTES);
                let (layers, values) = match words {
                    1 => (modular::memory_bytes_for(sizes, 1, targets), 0),
                    _ => (
                        engines::layer_bytes_for(sizes.widest, n as usize),
                        (16 * words).saturating_mul(targets as u64),
                    ),
                };
                [layers, values, listing].into_iter().fold(0, u64::saturating_add)
            }
            Run::Moves => {
                let block = block_of(n) as u64;
                let blocks = n.saturating_sub(1).div_ceil(block);
                let widest = sizes.widest.saturating_mul(8 * (2 + limbs));
                widest.saturating_mul(2 * blocks + CACHED_BLOCKS as u64 * block + 3)
            }
            Run::Exact { values } => {
                engines::layer_bytes_for(sizes.widest, n as usize).saturating_add(values * 8 * limbs)
            }
        };
        PROCESS_BYTES.saturating_add(sizes.plan).saturating_add(run)
    }

    /// The smallest size the run can have up to layer `n` with a target as high as `highest`: the
    /// plan at one word and one state a layer (for residues only, the Grundy values alone: the
    /// dense route needs no plan), and for a count the list of its targets. Cost O(1).
    pub(crate) fn floor(&self, n: u64, highest: u64) -> u64 {
        match *self {
            Run::Residues { .. } => PROCESS_BYTES + 4 * (n + 1),
            _ => self.bytes(n, &Sizes { plan: bytes_at(n, 64), widest: 1, highest, held: None }),
        }
    }

    /// The runs of the modular engine at the same time (1 but for [`Run::Residues`]).
    pub(crate) fn at_once(&self) -> u64 {
        match *self {
            Run::Residues { at_once, .. } => at_once as u64,
            _ => 1,
        }
    }
}

/// The whole distribution of layer `n` with `words` words a state, predicted before its support is
/// known, and its plan: the plan holds nearly every g below about 11 k in each layer k (about
/// 11 n^2 / 16 bytes of bitsets), its widest layer about 11 n states, and there are about 6.5 n
/// targets. Cost O(1).
pub(crate) fn distribution_predicted(n: u64, words: u64) -> (u64, u64) {
    let (n, per_state) = (n as u128, 8 * words as u128);
    let plan = n * n * 11 / 16;
    let predicted = PROCESS_BYTES as u128 + plan + per_state * (3 * 11 * n + 7 * n);
    (predicted.min(u64::MAX as u128) as u64, plan.min(u64::MAX as u128) as u64)
}
