//! How a run is cut: layers a block, lanes a chunk (from the width of its layers, the level-2
//! cache and the threads), the kernels' instruction set, and its tiles' size.

use super::choice::TileRule;
use super::lanes::{MAX_BLOCK_LAYERS, lanes};
use crate::kernels::{self, Isa};

/// How a run is cut into blocks and chunks, and the instruction set its kernels are compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tuning {
    /// Layers per block, at most [`MAX_BLOCK_LAYERS`] for exact lanes and
    /// [`super::MAX_RESIDUE_BLOCK_LAYERS`] for residues (larger values are cut to it).
    pub(crate) block_layers: usize,
    /// Lanes per chunk, one of [`super::CHUNK_LANES`] ([`Tuning::for_width`] picks 4 to 16,
    /// [`Tuning::for_run`] down to 1 for many threads).
    pub(crate) chunk_lanes: usize,
    /// The instruction set of the kernels.
    pub(crate) isa: Isa,
    /// The bytes of lanes a tile's buffer aims at ([`super::tiles`]): half of the level-2 cache.
    pub(crate) tile_bytes: usize,
    /// Which blocks run in tiles ([`super::choice`]).
    pub(crate) tiles: TileRule,
}

/// The level-2 cache assumed where the machine does not report one: the smallest of our CPUs'.
const L2_UNKNOWN: u64 = 512 << 10;

/// The fewest positions a tile's buffer has, whatever its bytes: below it the states a tile computes
/// twice (at its borders) would outweigh its own.
const TILE_POSITIONS_MIN: usize = 64;

/// The chunk sizes [`Tuning::for_width`] chooses from, in lanes.
const WIDTH_CHUNKS: [usize; 3] = [4, 8, 16];

impl Tuning {
    /// A tuning for layers of at most `widest` states: the kernels in use ([`crate::isa`]: those
    /// the machine's setting forces, or the fastest as measured), blocks as long as the lanes allow, and
    /// chunks of 4, 8 or 16 lanes. Larger chunks cost fewer instructions per lane (each state reads
    /// its pair of source indices once a chunk, for C lanes), until their three layers (what a pass
    /// keeps live) leave the level-2 cache, which costs little on some CPUs and much on others (the
    /// performance guide gives both): so the largest is taken where its three layers fit in half of
    /// L2, and otherwise the fastest as measured on this CPU at this width ([`kernels::chunk_lanes`]).
    /// Cost O(1), or a few milliseconds the first time a width is measured.
    pub(crate) fn for_width(widest: usize) -> Tuning {
        let isa = crate::kernels::isa();
        let chunk_lanes = kernels::chunk_lanes(isa, widest.max(1), &WIDTH_CHUNKS, crate::machine::l2_bytes());
        Tuning { block_layers: MAX_BLOCK_LAYERS, chunk_lanes, isa, tile_bytes: tile_bytes(), tiles: TileRule::Measured }
    }

    /// The positions (chunks of C lanes) a tile's buffer aims at. Cost O(1).
    pub(crate) fn tile_positions(&self) -> usize {
        (self.tile_bytes / (self.chunk_lanes.max(1) * 8)).max(TILE_POSITIONS_MIN)
    }

    /// A tuning for a run up to layer `n` whose layers have at most `widest` states, on `threads`
    /// threads: [`Tuning::for_width`]'s, with chunks halved (down to one lane) while the top layer
    /// has fewer than [`CHUNKS_PER_THREAD`] chunks per thread, so that many threads find passes to
    /// run (the parallelism of a run is about the average number of chunks of its blocks). On one
    /// or two threads the cut is [`Tuning::for_width`]'s: smaller chunks cost more per lane (each
    /// state's source positions are read once per chunk). Cost O(1).
    pub(crate) fn for_run(widest: usize, n: usize, threads: usize) -> Tuning {
        Tuning::for_lanes(widest, lanes(n.max(2)), threads)
    }

    /// A tuning for a run of the residue kind ([`super::Lanes::Residues`]) modulo `moduli` moduli over
    /// layers of at most `widest` states, on `threads` threads: as [`Tuning::for_run`], with the
    /// `moduli` lanes of every value in place of the top layer's lanes. Cost O(1).
    pub(crate) fn for_residues(widest: usize, moduli: usize, threads: usize) -> Tuning {
        Tuning::for_lanes(widest, moduli.max(1), threads)
    }

    /// [`Tuning::for_width`]'s cut, with chunks halved (down to one lane) on more than two threads
    /// while values of `top_lanes` lanes have fewer than [`CHUNKS_PER_THREAD`] chunks per thread.
    pub(crate) fn for_lanes(widest: usize, top_lanes: usize, threads: usize) -> Tuning {
        Tuning::for_width(widest).halved(top_lanes, threads)
    }

    /// This cut with chunks halved (down to one lane) on more than two threads while values of
    /// `top_lanes` lanes have fewer than [`CHUNKS_PER_THREAD`] chunks per thread.
    fn halved(mut self, top_lanes: usize, threads: usize) -> Tuning {
        let wanted = CHUNKS_PER_THREAD.saturating_mul(threads);
        while threads > 2 && self.chunk_lanes > 1 && top_lanes.div_ceil(self.chunk_lanes) < wanted {
            self.chunk_lanes /= 2;
        }
        self
    }

    /// Every cut [`Tuning::for_lanes`] may give values of `top_lanes` lanes on `threads` threads,
    /// whichever chunk size [`Tuning::for_width`] finds (without measuring): what the memory
    /// estimates bound. Cost O(1).
    pub(super) fn possible(top_lanes: usize, threads: usize) -> impl Iterator<Item = Tuning> {
        WIDTH_CHUNKS.into_iter().map(move |chunk_lanes| {
            let tile_bytes = tile_bytes();
            let tiles = TileRule::Measured;
            Tuning { block_layers: MAX_BLOCK_LAYERS, chunk_lanes, isa: Isa::Baseline, tile_bytes, tiles }
                .halved(top_lanes, threads)
        })
    }
}

/// The bytes of lanes a tile's buffer aims at: half of the level-2 cache the machine reports (or its
/// setting gives, [`crate::Machine::l2`]), so that a tile stays there with what it reads. Cost O(1).
fn tile_bytes() -> usize {
    (crate::machine::l2_bytes().unwrap_or(L2_UNKNOWN) / 2).try_into().unwrap_or(usize::MAX)
}

/// The chunks per thread [`Tuning::for_run`] aims at in the top layer: passes of a block wait for
/// three of the block before, and the early blocks are narrower, so the graph needs several chunks
/// per thread at the top to keep every thread busy.
pub(crate) const CHUNKS_PER_THREAD: usize = 2;
