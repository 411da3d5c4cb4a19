//! What a run of the blocked engine holds at its peak, for the memory guard: from the widest layer
//! and the top layer's lanes, or from what each sweep holds where the plan's layers are known.

use super::lanes::lanes;
use super::pass::ROOM;
use super::{Tuning, schedule};
use crate::plan::Held;

/// The blocks a run holds at once beside its edge layers: those described ahead of the passes
/// ([`schedule::DESCRIBED_AHEAD`]) and the one whose passes run.
const IN_FLIGHT: u64 = schedule::DESCRIBED_AHEAD as u64 + 1;

/// The bytes a run up to layer `n` over a plan whose widest layer has `widest_layer` states holds
/// at its peak on `threads` threads: the two edge layers (with a pass's room to grow, [`ROOM`]);
/// the carries of every block described and
/// not yet ended (a byte a state of each of its two last layers and passes), since a pass keeps its
/// carries until the next block's pass j + 1 takes them; three layers of one chunk (four where tiled) per running
/// pass; and the source positions of those blocks (the descriptions run up to
/// [`schedule::DESCRIBED_AHEAD`] blocks ahead of the passes). The chunk size is measured on some
/// CPUs ([`Tuning::for_width`]), so the figure is the largest over every chunk size the run may
/// take: the same in every process, whatever a measurement finds. Cost O(1).
pub(crate) fn memory_bytes(widest_layer: usize, n: usize, threads: usize) -> u64 {
    let possible = Tuning::possible(lanes(n.max(2)), threads);
    possible.map(|tuning| bytes_with(tuning, widest_layer, n, threads)).max().unwrap_or(0)
}

/// [`memory_bytes`] for one cut. Cost O(1).
pub(super) fn bytes_with(tuning: Tuning, widest_layer: usize, n: usize, threads: usize) -> u64 {
    let c = tuning.chunk_lanes as u64;
    let lanes = (lanes(n) as u64).div_ceil(c) * c;
    let per_state =
        with_room(2 * lanes * 8) + IN_FLIGHT * 2 * (lanes / c) + beside(tuning, threads, widest_layer as u64);
    (widest_layer as u64 + 1).saturating_mul(per_state)
}

/// The bytes the exact sweeps of a count hold at their peak on `threads` threads, where the plan's
/// layers and the route are known ([`Held`]): as [`memory_bytes`], the edge layers (with their room
/// to grow) and the carries a lane of each sweep's largest layer (its states times its own lanes,
/// each value rounded up to whole chunks), and the chunks of the running passes and the source
/// positions a state of each sweep's widest layer; the largest over every chunk size the run may
/// take. Cost O(1).
pub(crate) fn held_bytes(held: Held, threads: usize) -> u64 {
    let possible = Tuning::possible((held.top_lanes as usize).max(1), threads);
    let bytes = |tuning: Tuning| {
        // each value rounded up to whole chunks: at most c - 1 lanes more a state
        let c = tuning.chunk_lanes as u64;
        let lanes = held.lane_states.saturating_add(held.states.saturating_mul(c - 1));
        let chunks = (held.lane_states / c).saturating_add(held.states);
        [
            with_room(lanes.saturating_mul(2 * 8)),
            chunks.saturating_mul(IN_FLIGHT * 2),
            held.states.saturating_mul(beside(tuning, threads, held.states)),
        ]
        .into_iter()
        .fold(0, u64::saturating_add)
    };
    possible.map(bytes).max().unwrap_or(0)
}

/// The bytes a run of the residue kind ([`Lanes::Residues`]) modulo `moduli` moduli over a plan whose
/// widest layer has `widest_layer` states holds at its peak on `threads` threads: as
/// [`memory_bytes`], with the moduli (rounded up to whole chunks) in place of the lanes and no
/// carries, the largest over every chunk size the run may take. Cost O(1).
pub(crate) fn residue_memory_bytes(widest_layer: usize, moduli: usize, threads: usize) -> u64 {
    let possible = Tuning::possible(moduli.max(1), threads);
    possible.map(|tuning| residue_bytes_with(tuning, widest_layer, moduli, threads)).max().unwrap_or(0)
}

/// [`residue_memory_bytes`] for one cut. Cost O(1).
pub(super) fn residue_bytes_with(tuning: Tuning, widest_layer: usize, moduli: usize, threads: usize) -> u64 {
    let c = tuning.chunk_lanes as u64;
    let lanes = (moduli as u64).div_ceil(c) * c;
    let per_state = 2 * lanes * 8 + beside(tuning, threads, widest_layer as u64);
    (widest_layer as u64 + 1).saturating_mul(per_state)
}

/// `bytes` of a layer's lanes with the room a pass's buffer may have beyond them ([`ROOM`]). Cost O(1).
fn with_room(bytes: u64) -> u64 {
    bytes.saturating_add(bytes / ROOM as u64)
}

/// What a run holds a state of its widest layer (of `widest` states) beside the edge layers, cut by
/// `tuning` on `threads` threads: three layers of one chunk per running pass, and two source
/// positions a state of each layer of the blocks in flight; where the widest layer's three layers
/// of a chunk leave L2, so that its blocks may run in tiles ([`super::tiles`]), a fourth layer of a
/// chunk (a tiled pass's two new layers beside its two old ones, which the edge layers count) and,
/// while a block's tiles are made, their source positions and the map of a state to its place
/// beside the block's (which the tiles then replace). A tile's own buffer (about
/// [`Tuning::tile_bytes`], half of L2, a thread) is then below the two chunks of a layer counted
/// beyond a whole-layer pass's. Cost O(1).
fn beside(tuning: Tuning, threads: usize, widest: u64) -> u64 {
    let chunk = tuning.chunk_lanes as u64 * 8;
    let layers = tuning.block_layers as u64;
    let tiled = 3 * widest.saturating_mul(chunk) > 2 * tuning.tile_bytes as u64;
    let (live, making) = if tiled { (4, layers * 12) } else { (3, 0) };
    live * threads as u64 * chunk + IN_FLIGHT * layers * 8 + making
}
