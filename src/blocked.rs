//! The fast exact engine: the recurrence over blocks of layers, one lane chunk at a time, with
//! delayed carries.
//!
//! A value is held in lanes of [`PAYLOAD`] bits in `u64` words: value = sum of lane_i x 2^(48 i),
//! where a lane may hold more than 48 bits between normalisations. Adding two values is then a
//! plain lane-wise addition, with no carry chain, which the compiler vectorises. A lane grows at
//! most like the counts do (c(k) = c(k-1) + c(k-2) + 2), so a block of layers (at most
//! [`MAX_BLOCK_LAYERS`], about 22) can run from normalised lanes without overflowing a word.
//!
//! Because lanes are independent within a block, chunk j (lanes jC .. (j+1)C) of every value of
//! every layer of the block depends only on chunk j of the two layers before the block. So a block
//! is a set of independent passes, pass j computing chunk j of every layer of the block while only
//! three layers of one chunk (a few hundred KiB) are live: the working set stays in cache however
//! long the numbers grow, and the passes run on any number of threads without waiting for each
//! other.
//!
//! The passes are tasks of a graph rather than rounds with a barrier: pass j of block b waits
//! only for the description of block b and for passes j-1, j and j+1 of block b-1, so a thread
//! that finishes early starts the next block (see `Segment`).
//!
//! At the end of a block each pass normalises chunk j of the block's last two layers: each lane
//! keeps its low 48 bits and adds the high bits of the lane below; the high bits of the chunk's top
//! lane (the carry out, per state) are handed to pass j + 1 of the next block, which adds them to
//! its lane 0 before it starts. Targets are taken from the raw lanes and fully normalised once.
//!
//! Invariants:
//! - at a block's start every lane of its two edge layers (carries applied) is below
//!   [`LANE_START`]; the block is short enough that no lane of its layers can exceed `u64::MAX`;
//! - a state whose count is zero is known before any pass: its g is in the plan but in none of
//!   the images of the earlier layers' non-zero states, and it is not a direct move. It is dropped;
//!   readers of it read a zero chunk kept after each layer's states;
//! - the carry out of a value's top chunk is zero: the lanes hold every count of the layer.
//!
//! Memory: the two layers at a block's edge in full, a carry word per state and chunk of them,
//! per thread three layers of one chunk, per block in flight two source indices per state
//! ([`memory_bytes`]).

use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::engine::{Hooks, ProgressFn};
use crate::game::count_bits_bound;
use crate::plan::{LayerSet, Plan, Step};
use crate::{Error, Result};

/// Payload bits per lane.
pub const PAYLOAD: u32 = 48;
/// The payload bits of a lane.
const MASK: u64 = (1 << PAYLOAD) - 1;
/// A bound on every lane of a normalised value: its own payload plus the high bits carried in from
/// the lane below.
pub const LANE_START: u64 = MASK + (u64::MAX >> PAYLOAD);

/// The most layers a block may have: lanes starting below [`LANE_START`] and growing as
/// x(k) = x(k-1) + x(k-2) + 2 stay within a `u64` for this many layers.
pub const MAX_BLOCK_LAYERS: usize = max_block_layers();

const fn max_block_layers() -> usize {
    let (mut older, mut old, mut layers) = (LANE_START as u128, LANE_START as u128, 0);
    loop {
        let next = older + old + 2;
        if next > u64::MAX as u128 {
            return layers;
        }
        (older, old, layers) = (old, next, layers + 1);
    }
}

/// Lanes per value of layer `k`: enough for every count c(k, g) <= |T(k)| - 1.
pub fn lanes(k: usize) -> usize {
    count_bits_bound(k as u64).div_ceil(PAYLOAD as u64) as usize
}

/// The bytes a run over `plan` up to layer `n` holds at its peak on `threads` threads: the two
/// edge layers, their carries (two blocks' worth), three layers of one chunk per running pass, and
/// the source positions of the blocks in flight (their descriptions run up to three blocks ahead).
pub fn memory_bytes(plan: &Plan, n: usize, threads: usize) -> u64 {
    let widest = plan.widest_layer() as u64 + 1;
    let tuning = Tuning::for_width(plan.widest_layer());
    let c = tuning.chunk_lanes as u64;
    let lanes = (lanes(n) as u64).div_ceil(c) * c;
    let edges = 2 * widest * lanes * 8;
    let carries = 2 * 2 * widest * (lanes / c) * 8;
    let passes = 3 * threads as u64 * widest * c * 8;
    let block = 4 * tuning.block_layers as u64 * widest * 8;
    edges + carries + passes + block
}

/// How a run is cut into blocks and chunks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tuning {
    /// Layers per block, at most [`MAX_BLOCK_LAYERS`] (larger values are cut to it).
    pub block_layers: usize,
    /// Lanes per chunk: 4, 8, 16, 32 or 64 ([`Tuning::for_width`] picks 4 to 16).
    pub chunk_lanes: usize,
}

impl Tuning {
    /// A tuning for layers of at most `widest` states: three layers of a chunk in about 1 MiB (the
    /// L2 cache of one core), blocks as long as the lanes allow.
    pub fn for_width(widest: usize) -> Tuning {
        let widest = widest.max(1);
        let chunk_lanes = match (1 << 20) / (24 * widest) {
            0..8 => 4,
            8..16 => 8,
            _ => 16,
        };
        Tuning { block_layers: MAX_BLOCK_LAYERS, chunk_lanes }
    }
}

/// A layer as the layers after it read it: its non-zero states (a subset of the plan's), with the
/// rank of each word's first member, so that the position of a state among them is O(1).
#[derive(Debug, Default, PartialEq)]
struct Edge {
    set: LayerSet,
    rank: Vec<u32>,
    len: u32,
}

impl Edge {
    fn new(set: LayerSet) -> Edge {
        let mut len = 0u32;
        let rank = set
            .words()
            .iter()
            .map(|w| {
                let r = len;
                len += w.count_ones();
                r
            })
            .collect();
        Edge { set, rank, len }
    }

    /// The position of `g` among the non-zero states, or `len` (the layer's zero chunk) where the
    /// count is zero or g is no state (g = u64::MAX stands for a negative g).
    #[inline]
    fn index(&self, g: u64) -> u32 {
        let off = g.wrapping_sub(self.set.base());
        let (w, bit) = ((off / 64) as usize, off % 64);
        let (word, rank) = match (self.set.words().get(w), self.rank.get(w)) {
            (Some(&word), Some(&rank)) => (word, rank),
            _ => (0, 0),
        };
        // branch-free: membership is as good as random
        let member = 0u32.wrapping_sub(((word >> bit) & 1) as u32);
        let position = rank + (word & ((1 << bit) - 1)).count_ones();
        (position & member) | (self.len & !member)
    }
}

/// The non-zero counts of one layer of a block: where each reads from, and the direct moves.
struct Layer {
    left: Vec<u32>,
    right: Vec<u32>,
    /// (position, 1 or 2): the states that a whole child's deletion leads to.
    direct: Vec<(u32, u8)>,
    /// (target index, position among the non-zero counts, or the zero chunk's) of the targets in
    /// this layer.
    targets: Vec<(usize, u32)>,
}

impl Layer {
    fn len(&self) -> usize {
        self.left.len()
    }
}

/// Chunk j of the two layers before a block (the older first), `(states + 1) x C` lanes each (the
/// last chunk is the zero chunk).
type Chunk = [Vec<u64>; 2];

/// What pass j leaves: chunk j of the block's last two layers (normalised), the carries out of its
/// top lane (one per state of each), and chunk j of its targets' values (raw lanes), in order.
struct PassResult {
    chunk: Chunk,
    carries: Chunk,
    targets: Vec<u64>,
}

/// What pass j starts from: chunk j of the block's edge layers, and buffers for its carries.
struct PassInput {
    chunk: Chunk,
    spare_carries: Chunk,
}

/// Runs the exact recurrence over `plan`, handing each target's value to `sink` in the words format
/// of [`crate::exact::Limbs`] (a length word, then limbs), in order of layer.
///
/// Cost: O(plan states x lanes(n)) lane additions, in cache; memory as the module says.
///
/// # Errors
/// [`Error::Interrupted`] when `hooks.cancel` is set.
pub fn run_with(
    plan: &Plan,
    targets: &[(u64, u64)],
    hooks: Hooks,
    tuning: Tuning,
    sink: impl FnMut(usize, &[u64]) + Send,
) -> Result<()> {
    run_resumable(plan, targets, hooks, tuning, None, None::<fn(&State, bool) -> Result<()>>, sink)
}

/// Where a run stands between two blocks: enough to go on from there (see
/// [`crate::checkpoint`]). The layers before `k0` are done.
#[derive(Debug, Default, PartialEq)]
pub struct State {
    /// The first layer not yet computed.
    pub k0: usize,
    chunk_lanes: usize,
    edges: [Edge; 2],
    chunks: Vec<Chunk>,
    carries: Vec<Chunk>,
}

impl State {
    /// Appends the state to `out` (little-endian words).
    pub fn write(&self, out: &mut Vec<u8>) {
        let mut put = |w: u64| out.extend_from_slice(&w.to_le_bytes());
        put(self.k0 as u64);
        put(self.chunk_lanes as u64);
        for e in &self.edges {
            put(e.set.base());
            put(e.set.words().len() as u64);
            e.set.words().iter().for_each(|&w| put(w));
        }
        put(self.chunks.len() as u64);
        for chunk in self.chunks.iter().chain(&self.carries) {
            for layer in chunk {
                put(layer.len() as u64);
                layer.iter().for_each(|&w| put(w));
            }
        }
    }

    /// Reads a state written by [`State::write`] from the front of `bytes`, or `None` if it is not one.
    pub fn read(bytes: &mut &[u8]) -> Option<State> {
        fn get(bytes: &mut &[u8]) -> Option<u64> {
            let (word, rest) = bytes.split_first_chunk::<8>()?;
            *bytes = rest;
            Some(u64::from_le_bytes(*word))
        }
        let size = |bytes: &mut &[u8]| -> Option<usize> {
            let n = usize::try_from(get(bytes)?).ok()?;
            (n <= bytes.len()).then_some(n) // a length never exceeds what is left: no huge allocation
        };
        let words = |bytes: &mut &[u8]| -> Option<Vec<u64>> {
            let n = size(bytes)?;
            (0..n).map(|_| get(bytes)).collect()
        };
        let k0 = get(bytes)? as usize;
        let chunk_lanes = get(bytes)? as usize;
        let mut edges: [Edge; 2] = Default::default();
        for e in &mut edges {
            let base = get(bytes)?;
            *e = Edge::new(LayerSet::from_words(base, words(bytes)?)?);
        }
        let passes = size(bytes)?;
        let mut chunks = Vec::with_capacity(passes);
        let mut carries = Vec::with_capacity(passes);
        for i in 0..2 * passes {
            let chunk: Chunk = [words(bytes)?, words(bytes)?];
            if i < passes { chunks.push(chunk) } else { carries.push(chunk) }
        }
        Some(State { k0, chunk_lanes, edges, chunks, carries })
    }
}

/// [`run_with`], starting from `start` (or from the beginning), and, where `at_boundary` is given,
/// calling `at_boundary(state, stopping)` between segments of four blocks: with `stopping` false as
/// it goes (the caller may save the state), with `stopping` true once when the cancel flag stops
/// the run, before [`Error::Interrupted`] is returned. With `at_boundary`, segments are not cut
/// short by the cancel flag (so that the stop comes at a boundary, with a state to save), which
/// makes a stop take up to one segment's time.
///
/// # Errors
/// [`Error::Interrupted`] when cancelled; [`Error::InvalidArgument`] naming `--checkpoint` when
/// `start` does not fit the plan's tuning or is past a target; whatever `at_boundary` returns.
pub fn run_resumable(
    plan: &Plan,
    targets: &[(u64, u64)],
    hooks: Hooks,
    tuning: Tuning,
    start: Option<State>,
    mut at_boundary: Option<impl FnMut(&State, bool) -> Result<()>>,
    mut sink: impl FnMut(usize, &[u64]) + Send,
) -> Result<()> {
    let resumable = at_boundary.is_some();
    let c = tuning.chunk_lanes;
    assert!([4, 8, 16, 32, 64].contains(&c), "a chunk is 4, 8, 16, 32 or 64 lanes");
    let block_layers = tuning.block_layers.clamp(1, MAX_BLOCK_LAYERS);
    let mut state = start.unwrap_or(State { k0: 2, chunk_lanes: c, ..State::default() });
    if state.chunk_lanes != c || state.k0 < 2 || state.k0 > plan.top().max(1) + 1 {
        return Err(Error::invalid("--checkpoint", "the saved state does not fit this run"));
    }
    let mut by_layer: Vec<usize> = (0..targets.len()).collect();
    by_layer.sort_by_key(|&t| targets[t].0);
    let mut next = by_layer.iter().peekable();
    while let Some(&t) = next.next_if(|&&t| targets[t].0 < 2) {
        sink(t, &[]); // layers 0 and 1 hold no moves
    }
    // A resumed run has no values for the layers it skips: a target there cannot be answered.
    if next.peek().is_some_and(|&&t| (targets[t].0 as usize) < state.k0) {
        return Err(Error::invalid("--checkpoint", "the saved state is past a target of this run"));
    }
    let work = |k: usize| plan.layer_len(k) as u64 * lanes(k) as u64;
    let total: u64 = (2..=plan.top()).map(work).sum();
    let done = AtomicU64::new((2..state.k0).map(work).sum());
    let cancelled = || hooks.cancel.is_some_and(|c| c.load(Ordering::Relaxed));
    let shared = Shared {
        plan,
        targets,
        c,
        cancel: if resumable { None } else { hooks.cancel },
        sink: Mutex::new(&mut sink),
        spares: Default::default(),
        progress: hooks.progress,
        done,
        total,
    };
    while state.k0 <= plan.top() {
        let stopping = cancelled();
        if let Some(at_boundary) = &mut at_boundary {
            at_boundary(&state, stopping)?;
        }
        if stopping {
            return Err(Error::Interrupted);
        }
        // A resumable run stops only between segments, so that it has a state to save.
        let blocks = if resumable { SEGMENT_BLOCKS } else { usize::MAX };
        let bounds: Vec<(usize, usize)> = std::iter::successors(Some(state.k0), |&k| Some(k + block_layers))
            .take_while(|&k| k <= plan.top())
            .take(blocks)
            .map(|k0| (k0, (k0 + block_layers - 1).min(plan.top())))
            .collect();
        let block_targets: Vec<Vec<usize>> = bounds
            .iter()
            .map(|&(_, k1)| std::iter::from_fn(|| next.next_if(|&&t| targets[t].0 as usize <= k1).copied()).collect())
            .collect();
        let segment = Segment::new(&shared, &bounds, block_targets, std::mem::take(&mut state));
        rayon::scope(|s| segment.describe(s, 0));
        if !resumable && cancelled() {
            return Err(Error::Interrupted);
        }
        state = segment.finish();
    }
    Ok(())
}

/// Blocks in a segment of a resumable run: it stops and saves only between segments.
const SEGMENT_BLOCKS: usize = 4;

/// Where a run hands its targets' values.
type SinkFn<'s> = dyn FnMut(usize, &[u64]) + Send + 's;

/// What the segments of a run share.
struct Shared<'a, 's> {
    plan: &'a Plan,
    targets: &'a [(u64, u64)],
    c: usize,
    cancel: Option<&'a AtomicBool>,
    sink: Mutex<&'s mut SinkFn<'s>>,
    /// Buffers to reuse: a pass's third layer chunk, and carry vectors.
    spares: Mutex<(Vec<Vec<u64>>, Vec<Chunk>)>,
    progress: Option<&'a ProgressFn<'a>>,
    done: AtomicU64,
    total: u64,
}

/// A run of blocks scheduled as a graph of tasks, so that no thread waits at the end of a block.
/// Block b's describe task D(b) follows D(b-1) (it extends the non-zero sets) and the end of block
/// b-3 (which bounds the descriptions held); its pass P(b, j) follows D(b) and the passes j-1, j
/// and j+1 of block b-1 (its own chunk, the carries it adds, and the carry buffer it overwrites).
/// A block ends when its last pass does, after the block before it: its targets reach the sink in
/// order.
struct Segment<'a, 's> {
    shared: &'a Shared<'a, 's>,
    blocks: Vec<BlockTask>,
    /// Per pass j: its chunk of the two newest layers finished, and its carries out by block parity.
    chunks: Vec<Mutex<Option<Chunk>>>,
    carries: Vec<[Mutex<Option<Chunk>>; 2]>,
    /// The non-zero states of the two layers before the segment.
    edges: Mutex<Option<[Edge; 2]>>,
}

/// One block of a segment.
struct BlockTask {
    k0: usize,
    k1: usize,
    passes: usize,
    /// The targets in the block's layers, in order of layer.
    targets: Vec<usize>,
    /// Set by D(b), dropped when the block ends.
    described: Mutex<Option<Arc<Described>>>,
    /// The non-zero states of the block's last two layers, for D(b+1) (or the segment's end).
    edges_out: Mutex<Option<[Edge; 2]>>,
    /// The unfinished tasks that D(b) and each P(b, j) wait for.
    waiting_describe: AtomicUsize,
    waiting: Vec<AtomicUsize>,
    /// Passes not yet finished, and the chunk of the targets' lanes each left.
    unfinished: AtomicUsize,
    target_lanes: Mutex<Vec<Vec<u64>>>,
}

/// A block as its passes read it.
struct Described {
    layers: Vec<Layer>,
    /// The non-zero counts of the two layers before the block: the sizes of a new pass's chunks.
    edge_lens: [usize; 2],
}

impl<'a, 's> Segment<'a, 's> {
    fn new(
        shared: &'a Shared<'a, 's>,
        bounds: &[(usize, usize)],
        block_targets: Vec<Vec<usize>>,
        state: State,
    ) -> Segment<'a, 's> {
        let passes_before = state.chunks.len();
        let passes: Vec<usize> =
            bounds.iter().map(|&(_, k1)| lanes(k1).div_ceil(shared.c).max(passes_before)).collect();
        let most = passes.last().copied().unwrap_or(passes_before);
        let blocks = bounds
            .iter()
            .zip(block_targets)
            .enumerate()
            .map(|(b, (&(k0, k1), targets))| {
                // block -1 (the state) is done: only later blocks' passes are waited for
                let before = if b == 0 { 0 } else { passes[b - 1] };
                let waiting = (0..passes[b])
                    .map(|j| AtomicUsize::new(1 + (j.saturating_sub(1)..=j + 1).filter(|&i| i < before).count()))
                    .collect();
                BlockTask {
                    k0,
                    k1,
                    passes: passes[b],
                    targets,
                    described: Mutex::new(None),
                    edges_out: Mutex::new(None),
                    waiting_describe: AtomicUsize::new((b >= 1) as usize + (b >= 3) as usize),
                    waiting,
                    unfinished: AtomicUsize::new(passes[b]),
                    target_lanes: Mutex::new(vec![Vec::new(); passes[b]]),
                }
            })
            .collect();
        let State { edges, chunks, carries, .. } = state;
        let mut chunks: Vec<Mutex<Option<Chunk>>> = chunks.into_iter().map(|c| Mutex::new(Some(c))).collect();
        chunks.resize_with(most, || Mutex::new(None));
        // the state's carries are those of block -1, of parity 1
        let mut carries: Vec<[Mutex<Option<Chunk>>; 2]> =
            carries.into_iter().map(|c| [Mutex::new(None), Mutex::new(Some(c))]).collect();
        carries.resize_with(most, Default::default);
        Segment { shared, blocks, chunks, carries, edges: Mutex::new(Some(edges)) }
    }

    /// One dependency of D(b) is done: run it if it was the last.
    fn release_describe<'x>(&'x self, s: &rayon::Scope<'x>, b: usize) {
        if b < self.blocks.len() && self.blocks[b].waiting_describe.fetch_sub(1, Ordering::AcqRel) == 1 {
            s.spawn(move |s| self.describe(s, b));
        }
    }

    /// One dependency of P(b, j) is done: run it if it was the last.
    fn release_pass<'x>(&'x self, s: &rayon::Scope<'x>, b: usize, j: usize) {
        if b < self.blocks.len()
            && j < self.blocks[b].passes
            && self.blocks[b].waiting[j].fetch_sub(1, Ordering::AcqRel) == 1
        {
            s.spawn(move |s| self.pass(s, b, j));
        }
    }

    /// D(b): the block's layers described, its targets placed, its last two non-zero sets kept.
    fn describe<'x>(&'x self, s: &rayon::Scope<'x>, b: usize) {
        let block = &self.blocks[b];
        let edges = match b {
            0 => self.edges.lock().expect("not poisoned").take(),
            _ => self.blocks[b - 1].edges_out.lock().expect("not poisoned").take(),
        }
        .expect("D(b) follows D(b-1)");
        let edge_lens = [edges[0].len as usize, edges[1].len as usize];
        if self.cancelled() {
            // the run is stopping: the rest of the graph runs out without work
            *block.edges_out.lock().expect("not poisoned") = Some(edges);
            *block.described.lock().expect("not poisoned") =
                Some(Arc::new(Described { layers: Vec::new(), edge_lens }));
            return self.described(s, b);
        }
        let (mut layers, mut new_edges) = describe_block(self.shared.plan, block.k0..=block.k1, &edges);
        let mut targets = block.targets.iter().peekable();
        for (layer, k) in layers.iter_mut().zip(block.k0..) {
            let edge = &new_edges[k - block.k0];
            while let Some(&t) = targets.next_if(|&&t| self.shared.targets[t].0 as usize == k) {
                layer.targets.push((t, edge.index(self.shared.targets[t].1)));
            }
        }
        let [_, newer] = edges;
        let old = new_edges.pop().expect("a block has a layer");
        let older = new_edges.pop().unwrap_or(newer);
        *block.edges_out.lock().expect("not poisoned") = Some([older, old]);
        *block.described.lock().expect("not poisoned") = Some(Arc::new(Described { layers, edge_lens }));
        self.described(s, b);
    }

    /// D(b) is done: its passes and D(b+1) may go.
    fn described<'x>(&'x self, s: &rayon::Scope<'x>, b: usize) {
        for j in 0..self.blocks[b].passes {
            self.release_pass(s, b, j);
        }
        self.release_describe(s, b + 1);
    }

    fn cancelled(&self) -> bool {
        self.shared.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
    }

    /// P(b, j): chunk j of every layer of block b.
    fn pass<'x>(&'x self, s: &rayon::Scope<'x>, b: usize, j: usize) {
        if !self.cancelled() {
            self.compute_pass(b, j);
        } // else the run is stopping: its results are discarded (see `end_block`)
        let block = &self.blocks[b];
        // the block's end first: the next block cannot end before it (see the type)
        if block.unfinished.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.end_block(b);
            self.release_describe(s, b + 3);
        }
        for next in j.saturating_sub(1)..=j + 1 {
            self.release_pass(s, b + 1, next);
        }
    }

    /// The work of P(b, j).
    fn compute_pass(&self, b: usize, j: usize) {
        let block = &self.blocks[b];
        let c = self.shared.c;
        let described = block.described.lock().expect("not poisoned").clone().expect("P(b, j) follows D(b)");
        let chunk = self.chunks[j].lock().expect("not poisoned").take().unwrap_or_else(|| {
            // a new pass: the chunks of the layers before the block are zero
            let [a, b] = described.edge_lens;
            [vec![0; (a + 1) * c], vec![0; (b + 1) * c]]
        });
        let carry_in = match j {
            0 => None,
            // the carries of P(b-1, j-1): block b-1 has parity (b + 1) & 1
            _ => self.carries[j - 1][(b + 1) & 1].lock().expect("not poisoned").take(),
        };
        let spare_carries = self.shared.spares.lock().expect("not poisoned").1.pop().unwrap_or_default();
        let input = PassInput { chunk, spare_carries };
        let run = Block { layers: &described.layers, cancel: self.shared.cancel, spares: &self.shared.spares };
        let result = match c {
            4 => run.pass::<4>(j, input, carry_in.as_ref()),
            8 => run.pass::<8>(j, input, carry_in.as_ref()),
            32 => run.pass::<32>(j, input, carry_in.as_ref()),
            64 => run.pass::<64>(j, input, carry_in.as_ref()),
            _ => run.pass::<16>(j, input, carry_in.as_ref()),
        };
        drop(described);
        if let Some(carries) = carry_in {
            self.shared.spares.lock().expect("not poisoned").1.push(carries);
        }
        *self.chunks[j].lock().expect("not poisoned") = Some(result.chunk);
        *self.carries[j][b & 1].lock().expect("not poisoned") = Some(result.carries);
        block.target_lanes.lock().expect("not poisoned")[j] = result.targets;
    }

    /// Every pass of block b is done: its targets go to the sink, in order.
    fn end_block(&self, b: usize) {
        let block = &self.blocks[b];
        let c = self.shared.c;
        let described = block.described.lock().expect("not poisoned").take().expect("described once");
        let chunks = std::mem::take(&mut *block.target_lanes.lock().expect("not poisoned"));
        let targets = described.layers.iter().flat_map(|l| &l.targets);
        if self.cancelled() || chunks.iter().any(|chunk| chunk.len() != targets.clone().count() * c) {
            return; // a pass stopped early on the cancel flag: the run's results are discarded
        }
        let mut sink = self.shared.sink.lock().expect("not poisoned");
        for (i, &(t, _)) in targets.enumerate() {
            let lanes: Vec<u64> = chunks.iter().flat_map(|chunk| &chunk[i * c..(i + 1) * c]).copied().collect();
            (*sink)(t, &limbs_of(&lanes));
        }
        if let Some(progress) = self.shared.progress {
            let work: u64 = (block.k0..=block.k1).map(|k| self.shared.plan.layer_len(k) as u64 * lanes(k) as u64).sum();
            let done = self.shared.done.fetch_add(work, Ordering::Relaxed) + work;
            progress("exact", done, self.shared.total);
        }
    }

    /// The state after the segment's last block.
    fn finish(self) -> State {
        let last = self.blocks.len() - 1;
        let passes = self.blocks[last].passes;
        let take = |m: &Mutex<Option<Chunk>>| m.lock().expect("not poisoned").take().expect("every pass ran");
        State {
            k0: self.blocks[last].k1 + 1,
            chunk_lanes: self.shared.c,
            edges: self.blocks[last].edges_out.lock().expect("not poisoned").take().expect("described"),
            chunks: self.chunks[..passes].iter().map(take).collect(),
            carries: self.carries[..passes].iter().map(|pair| take(&pair[last & 1])).collect(),
        }
    }
}

/// The value of raw lanes (each below 2^64, value = sum of lane_i 2^(48 i)) as words of
/// [`crate::exact::Limbs`]: a length word, then 64-bit limbs. Cost O(lanes).
fn limbs_of(lanes: &[u64]) -> Vec<u64> {
    let bits = lanes.len() * PAYLOAD as usize;
    let mut words = vec![0u64; 1 + bits.div_ceil(64) + 1];
    let mut carry: u128 = 0;
    for (i, &lane) in lanes.iter().enumerate() {
        let t = lane as u128 + carry;
        let payload = (t as u64) & MASK;
        carry = t >> PAYLOAD;
        let at = i * PAYLOAD as usize;
        let (w, shift) = (1 + at / 64, at % 64);
        words[w] |= payload << shift;
        if shift + PAYLOAD as usize > 64 {
            words[w + 1] |= payload >> (64 - shift);
        }
    }
    assert_eq!(carry, 0, "the lanes hold the whole value");
    let len = words[1..].iter().rposition(|&w| w != 0).map_or(0, |i| i + 1);
    words.truncate(1 + len);
    words[0] = len as u64;
    words
}

/// The layers `range` of a block, described from the plan and the block's two edge layers: the
/// non-zero states of each layer (as the layers after it read them) and where each reads from.
///
/// The non-zero states are found layer after layer by whole-word set operations (cheap); the
/// source positions, one rank lookup each, are found for all layers at once on the pool.
fn describe_block(plan: &Plan, range: std::ops::RangeInclusive<usize>, edges: &[Edge; 2]) -> (Vec<Layer>, Vec<Edge>) {
    let k0 = *range.start();
    let mut new_edges: Vec<Edge> = Vec::with_capacity(range.clone().count());
    for k in range.clone() {
        let (r, l) = (plan.edge(k - 2) as u64, plan.edge(k - 1) as u64);
        let before = |back| layer_before(&new_edges, edges, k0, k - back);
        let direct: &[u64] = if k >= 3 { &[r, l] } else { &[r] };
        let mut set = LayerSet::image(&[(&before(1).set, r), (&before(2).set, l)], Step::Forward, direct);
        set.retain_in(plan.layer(k));
        new_edges.push(Edge::new(set));
    }
    let layers = range
        .into_par_iter()
        .map(|k| {
            let (r, l) = (plan.edge(k - 2) as u64, plan.edge(k - 1) as u64);
            let before = |back| layer_before(&new_edges, edges, k0, k - back);
            positions(&new_edges[k - k0], before(1), before(2), k, r, l)
        })
        .collect();
    (layers, new_edges)
}

/// Layer `k` (at least k0 - 2) as the layers after it read it: one of the block's layers from k0 on
/// (`new_edges`), else one of the two before the block (`edges`, the older first).
fn layer_before<'e>(new_edges: &'e [Edge], edges: &'e [Edge; 2], k0: usize, k: usize) -> &'e Edge {
    if k >= k0 { &new_edges[k - k0] } else { &edges[2 - (k0 - k)] }
}

/// Where each non-zero state `me` of layer k reads from in the layers `old` (k - 1) and `older`
/// (k - 2), and its direct moves. Cost: two rank lookups a state (a population count each),
/// compiled for the CPU's population-count instruction where it has one.
fn positions(me: &Edge, old: &Edge, older: &Edge, k: usize, r: u64, l: u64) -> Layer {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") && std::arch::is_x86_feature_detected!("bmi1") {
        #[target_feature(enable = "popcnt,bmi1")]
        fn fast(me: &Edge, old: &Edge, older: &Edge, k: usize, r: u64, l: u64) -> Layer {
            positions_portable(me, old, older, k, r, l)
        }
        // SAFETY: the CPU has both features, checked just above.
        return unsafe { fast(me, old, older, k, r, l) };
    }
    positions_portable(me, old, older, k, r, l)
}

#[inline(always)]
fn positions_portable(me: &Edge, old: &Edge, older: &Edge, k: usize, r: u64, l: u64) -> Layer {
    let states = me.len as usize;
    let (mut left, mut right) = (vec![0u32; states], vec![0u32; states]);
    let mut s = 0;
    let base = me.set.base();
    for (w, &word) in me.set.words().iter().enumerate() {
        let mut rest = word;
        while rest != 0 {
            let g = base + 64 * w as u64 + rest.trailing_zeros() as u64;
            rest &= rest - 1;
            // a negative source (g xor e = 0) wraps to u64::MAX, which no layer holds
            left[s] = old.index((g ^ r).wrapping_sub(1));
            right[s] = older.index((g ^ l).wrapping_sub(1));
            s += 1;
        }
    }
    // the direct moves: deleting the right child leaves R, deleting the left child (k >= 3) L
    let mut direct: Vec<(u32, u8)> = Vec::with_capacity(2);
    for g in std::iter::once(r).chain((k >= 3).then_some(l)) {
        let s = me.index(g);
        debug_assert!(s < me.len || !me.set.contains(g), "a direct move's state is not zero");
        match direct.iter_mut().find(|d| d.0 == s) {
            Some(d) => d.1 += 1,
            None if s < me.len => direct.push((s, 1)),
            None => {} // not a state of the plan: nothing reads it
        }
    }
    Layer { left, right, direct, targets: Vec::new() }
}

/// One block's shared state while its passes run.
struct Block<'a> {
    layers: &'a [Layer],
    cancel: Option<&'a AtomicBool>,
    /// Buffers left by finished passes (the first: layer chunks).
    spares: &'a Mutex<(Vec<Vec<u64>>, Vec<Chunk>)>,
}

impl Block<'_> {
    /// Pass j: chunk j of every layer of the block, from chunk j of the two layers before it and the
    /// carries out of chunk j - 1 of those layers.
    fn pass<const C: usize>(&self, j: usize, input: PassInput, carry_in: Option<&Chunk>) -> PassResult {
        let PassInput { chunk: [mut older, mut old], spare_carries } = input;
        let mut cur = self.spares.lock().expect("not poisoned").0.pop().unwrap_or_default();
        if let Some([a, b]) = carry_in {
            for (layer, carries) in [(&mut older, a), (&mut old, b)] {
                for (lane0, &carry) in layer.iter_mut().step_by(C).zip(carries) {
                    *lane0 += carry;
                }
            }
        }
        let kernels = kernels::<C>();
        let mut targets = Vec::new();
        for layer in self.layers {
            if self.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                break; // the block's results are discarded
            }
            // the layer's counts, then one zero chunk for the states that read nothing
            let len = layer.len() * C;
            cur.resize(len + C, 0); // every chunk but the zero one is rewritten below
            cur[len..].fill(0);
            (kernels.add)(&mut cur[..len], &old, &older, &layer.left, &layer.right);
            if j == 0 {
                for &(s, d) in &layer.direct {
                    cur[s as usize * C] += d as u64;
                }
            }
            for &(_, s) in &layer.targets {
                targets.extend_from_slice(&cur[s as usize * C..(s as usize + 1) * C]);
            }
            // roll: older <- old <- cur, and the oldest buffer is reused
            std::mem::swap(&mut older, &mut old);
            std::mem::swap(&mut old, &mut cur);
        }
        let [mut a, mut b] = spare_carries;
        (kernels.normalise)(&mut older, &mut a);
        (kernels.normalise)(&mut old, &mut b);
        self.spares.lock().expect("not poisoned").0.push(cur);
        PassResult { chunk: [older, old], carries: [a, b], targets }
    }
}

/// Normalises each state's chunk of `layer` (but its zero chunk) in place: every lane keeps its
/// payload and adds the high bits of the lane below, lane 0 only its payload. Writes each state's
/// carry out of the top lane, which lane 0 of the next chunk must add, to `carries`.
#[inline(always)]
fn normalise<const C: usize>(layer: &mut [u64], carries: &mut Vec<u64>) {
    let states = layer.len() / C - 1;
    carries.clear();
    for chunk in layer[..states * C].chunks_exact_mut(C) {
        let chunk: &mut [u64; C] = chunk.try_into().expect("C lanes");
        let high: [u64; C] = std::array::from_fn(|i| chunk[i] >> PAYLOAD);
        carries.push(high[C - 1]);
        for i in 0..C {
            chunk[i] = (chunk[i] & MASK) + if i > 0 { high[i - 1] } else { 0 };
        }
    }
}

/// The kernel of the engine, on its own (for benchmarks): `out[s] = old[left[s]] + older[right[s]]`
/// lane by lane, for chunks of `chunk_lanes` lanes (4, 8, 16, 32 or 64), `out` holding
/// `left.len()` chunks, compiled for the widest vector unit of the CPU.
///
/// Cost: `left.len() x chunk_lanes` additions, reading two chunks and writing one per state.
///
/// # Panics
/// If a chunk size is not one of those, `left` and `right` differ in length, `out` is too short, or
/// an index reads past `old` or `older`.
pub fn sum_layer(chunk_lanes: usize, out: &mut [u64], old: &[u64], older: &[u64], left: &[u32], right: &[u32]) {
    assert_eq!(left.len(), right.len(), "one right source per left source");
    assert!(out.len() >= left.len() * chunk_lanes, "out holds every chunk");
    let add = match chunk_lanes {
        4 => kernels::<4>().add,
        8 => kernels::<8>().add,
        16 => kernels::<16>().add,
        32 => kernels::<32>().add,
        64 => kernels::<64>().add,
        _ => panic!("a chunk is 4, 8, 16, 32 or 64 lanes"),
    };
    add(&mut out[..left.len() * chunk_lanes], old, older, left, right)
}

/// `out[s] = old[left[s]] + older[right[s]]` over chunks: (out, old, older, left, right).
type SumFn = fn(&mut [u64], &[u64], &[u64], &[u32], &[u32]);

/// The two loops of a pass, compiled for one instruction set: a layer's sums
/// `out[s] = old[left[s]] + older[right[s]]` chunk by chunk (C lanes each), and [`normalise`].
#[derive(Clone, Copy)]
struct Kernels {
    add: SumFn,
    normalise: fn(&mut [u64], &mut Vec<u64>),
}

/// The kernels for chunks of C lanes, compiled for the widest vector unit the CPU has (chosen at
/// run time, so that the default build is fast on every x86-64).
fn kernels<const C: usize>() -> Kernels {
    #[cfg(target_arch = "x86_64")]
    {
        macro_rules! compiled_for {
            ($features:literal) => {{
                #[target_feature(enable = $features)]
                fn add<const C: usize>(out: &mut [u64], old: &[u64], older: &[u64], left: &[u32], right: &[u32]) {
                    add_layer::<C>(out, old, older, left, right)
                }
                #[target_feature(enable = $features)]
                fn norm<const C: usize>(layer: &mut [u64], carries: &mut Vec<u64>) {
                    normalise::<C>(layer, carries)
                }
                Kernels {
                    // SAFETY: called only when the CPU has the features, checked by the caller.
                    add: |out, old, older, left, right| unsafe { add::<C>(out, old, older, left, right) },
                    // SAFETY: as above.
                    normalise: |layer, carries| unsafe { norm::<C>(layer, carries) },
                }
            }};
        }
        if std::arch::is_x86_feature_detected!("avx512f") {
            return compiled_for!("avx512f");
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            return compiled_for!("avx2");
        }
    }
    Kernels { add: add_layer::<C>, normalise: normalise::<C> }
}

/// The portable kernel (vectorised by the compiler for the target it is compiled for).
#[inline(always)]
fn add_layer<const C: usize>(out: &mut [u64], old: &[u64], older: &[u64], left: &[u32], right: &[u32]) {
    for ((out, &l), &r) in out.chunks_exact_mut(C).zip(left).zip(right) {
        let out: &mut [u64; C] = out.try_into().expect("C lanes");
        let a: &[u64; C] = old[l as usize * C..][..C].try_into().expect("C lanes");
        let b: &[u64; C] = older[r as usize * C..][..C].try_into().expect("C lanes");
        for i in 0..C {
            out[i] = a[i] + b[i];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_cannot_overflow_a_lane() {
        assert!((16..=30).contains(&MAX_BLOCK_LAYERS), "{MAX_BLOCK_LAYERS}");
        // the worst lane of the block's last layer, from two edge layers at the bound
        let (mut a, mut b) = (LANE_START as u128, LANE_START as u128);
        for _ in 0..MAX_BLOCK_LAYERS {
            (a, b) = (b, a + b + 2);
        }
        assert!(b <= u64::MAX as u128);
        assert!(a + b + 2 > u64::MAX as u128, "a block could be one layer longer");
    }

    #[test]
    fn limbs_of_normalises_raw_lanes() {
        use num_bigint::BigUint;
        let lanes = [u64::MAX, u64::MAX, 5, 0];
        let want =
            BigUint::from(u64::MAX) + (BigUint::from(u64::MAX) << PAYLOAD) + (BigUint::from(5u64) << (2 * PAYLOAD));
        assert_eq!(crate::exact::to_biguint(&limbs_of(&lanes)), want);
        assert_eq!(limbs_of(&[0, 0]), vec![0]);
    }

    #[test]
    fn kernels_agree() {
        let mut seed = 0x5eed_u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            seed >> 1
        };
        let old: Vec<u64> = (0..64 * 16).map(|_| next() >> 2).collect();
        let older: Vec<u64> = (0..64 * 16).map(|_| next() >> 2).collect();
        let left: Vec<u32> = (0..50).map(|_| (next() % 64) as u32).collect();
        let right: Vec<u32> = (0..50).map(|_| (next() % 64) as u32).collect();
        let mut want = vec![0; 50 * 16];
        add_layer::<16>(&mut want, &old, &older, &left, &right);
        for (s, w) in want.chunks_exact(16).enumerate() {
            for i in 0..16 {
                assert_eq!(w[i], old[left[s] as usize * 16 + i] + older[right[s] as usize * 16 + i]);
            }
        }
        let mut got = vec![0; 50 * 16];
        (kernels::<16>().add)(&mut got, &old, &older, &left, &right);
        assert_eq!(got, want);
    }

    /// Every tuning of the blocked engine gives the reference engine's values, for single targets,
    /// many targets across layers (as `table` asks) and whole distributions (as `dist` asks).
    #[test]
    fn blocked_equals_reference() {
        use crate::exact::{Engine, count_with_engine, to_biguint};
        let cases: Vec<Vec<(u64, u64)>> = vec![
            vec![(700, 0)],
            vec![(1200, 5)],
            vec![(333, 1 << 40)],
            vec![(2, 0), (3, 1), (4, 3), (5, 7)],
            (0..=150).map(|k| (k, 0)).chain([(150, 3), (149, 0)]).collect(),
            crate::plan::support(260).unwrap().iter().map(|g| (260, g)).collect(),
        ];
        for targets in &cases {
            let plan = Plan::new(targets, u64::MAX).unwrap();
            let want = count_with_engine(Engine::Reference, &plan, targets, Hooks::default()).unwrap();
            let widest = plan.widest_layer();
            for tuning in [
                Tuning { block_layers: 1, chunk_lanes: 4 },
                Tuning { block_layers: 4, chunk_lanes: 4 },
                Tuning { block_layers: 7, chunk_lanes: 8 },
                Tuning { block_layers: 64, chunk_lanes: 16 },
                Tuning { block_layers: 22, chunk_lanes: 32 },
                Tuning { block_layers: 9, chunk_lanes: 64 },
                Tuning::for_width(widest),
            ] {
                for threads in [1, 2, 3] {
                    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                    let mut got = vec![None; targets.len()];
                    pool.install(|| {
                        run_with(&plan, targets, Hooks::default(), tuning, |t, w| got[t] = Some(to_biguint(w)))
                    })
                    .unwrap();
                    let got: Vec<_> = got.into_iter().map(|v| v.expect("every target reported")).collect();
                    assert_eq!(
                        got,
                        want,
                        "{tuning:?}, {threads} threads, {} targets up to {:?}",
                        targets.len(),
                        targets.last()
                    );
                    // in segments, as a run that saves checkpoints goes
                    let mut segmented = vec![None; targets.len()];
                    let mut boundaries = 0;
                    pool.install(|| {
                        run_resumable(
                            &plan,
                            targets,
                            Hooks::default(),
                            tuning,
                            None,
                            Some(|_: &State, _| {
                                boundaries += 1;
                                Ok(())
                            }),
                            |t, w| segmented[t] = Some(to_biguint(w)),
                        )
                    })
                    .unwrap();
                    let segmented: Vec<_> = segmented.into_iter().map(|v| v.expect("every target reported")).collect();
                    assert_eq!(segmented, want, "{tuning:?}, {threads} threads, in segments");
                    assert!(boundaries > 1 || plan.top() < 2 + 4 * tuning.block_layers.min(MAX_BLOCK_LAYERS));
                }
            }
        }
    }

    #[test]
    fn tuning_stays_in_range() {
        for widest in [0, 1, 100, 2048, 8192, 40_000, 1 << 20] {
            let t = Tuning::for_width(widest);
            assert!([4, 8, 16].contains(&t.chunk_lanes));
            assert!((1..=MAX_BLOCK_LAYERS).contains(&t.block_layers));
        }
    }
}
