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
//! per thread three layers of one chunk, per block two source indices per state.

use rayon::prelude::*;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::engine::Hooks;
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
/// edge layers, their carries (read and written), three layers of one chunk per running pass, and a
/// block's source positions.
pub fn memory_bytes(plan: &Plan, n: usize, threads: usize) -> u64 {
    let widest = plan.widest_layer() as u64 + 1;
    let tuning = Tuning::for_width(plan.widest_layer());
    let c = tuning.chunk_lanes as u64;
    let lanes = (lanes(n) as u64).div_ceil(c) * c;
    let edges = 2 * widest * lanes * 8;
    let carries = 2 * 2 * widest * (lanes / c) * 8;
    let passes = 3 * threads as u64 * widest * c * 8;
    let block = tuning.block_layers as u64 * widest * 8;
    edges + carries + passes + block
}

/// How a run is cut into blocks and chunks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tuning {
    /// Layers per block, at most [`MAX_BLOCK_LAYERS`] (larger values are cut to it).
    pub block_layers: usize,
    /// Lanes per chunk: 4, 8 or 16.
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
/// calling `at_boundary(state, stopping)` between blocks: with `stopping` false as it goes (the
/// caller may save the state), with `stopping` true once when the cancel flag stops the run, before
/// [`Error::Interrupted`] is returned. With `at_boundary`, blocks are not cut short by the cancel
/// flag (so that the stop comes at a boundary, with a state to save), which makes a stop take up to
/// one block's time.
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
    let mut done: u64 = (2..state.k0).map(work).sum();
    let cancelled = || hooks.cancel.is_some_and(|c| c.load(Ordering::Relaxed));
    // buffers to reuse: a pass's third layer chunk (one per running pass), the carries read by
    // the last block
    let spares: Mutex<Vec<Vec<u64>>> = Mutex::new(Vec::new());
    let mut spare_carries: Vec<Chunk> = Vec::new();
    while state.k0 <= plan.top() {
        let stopping = cancelled();
        if let Some(at_boundary) = &mut at_boundary {
            at_boundary(&state, stopping)?;
        }
        if stopping {
            return Err(Error::Interrupted);
        }
        let State { k0, edges, chunks, carries, .. } = &mut state;
        let k1 = (*k0 + block_layers - 1).min(plan.top());
        let edge_lens = [edges[0].len as usize, edges[1].len as usize];
        let (mut layers, new_edges) = describe_block(plan, *k0..=k1, edges);
        for (layer, k) in layers.iter_mut().zip(*k0..) {
            let edge = &new_edges[k - *k0];
            while let Some(&t) = next.next_if(|&&t| targets[t].0 as usize == k) {
                layer.targets.push((t, edge.index(targets[t].1)));
            }
        }
        // Chunks of the edge layers beyond what the previous block computed are zero.
        let passes = lanes(k1).div_ceil(c);
        let widths = [(edge_lens[0] + 1) * c, (edge_lens[1] + 1) * c]; // with their zero chunks
        chunks.resize_with(passes, || [vec![0; widths[0]], vec![0; widths[1]]]);
        carries.resize_with(passes, || [vec![0; edge_lens[0]], vec![0; edge_lens[1]]]);
        let block = Block { layers: &layers, cancel: if resumable { None } else { hooks.cancel }, spares: &spares };
        let carries_in = std::mem::take(carries);
        spare_carries.resize_with(passes, Default::default);
        let inputs: Vec<(usize, PassInput)> = std::mem::take(chunks)
            .into_iter()
            .zip(spare_carries.drain(..))
            .map(|(chunk, spare_carries)| PassInput { chunk, spare_carries })
            .enumerate()
            .collect();
        let results: Vec<PassResult> = inputs
            .into_par_iter()
            .map(|(j, input)| {
                let carry_in = j.checked_sub(1).map(|i| &carries_in[i]);
                match c {
                    4 => block.pass::<4>(j, input, carry_in),
                    8 => block.pass::<8>(j, input, carry_in),
                    32 => block.pass::<32>(j, input, carry_in),
                    64 => block.pass::<64>(j, input, carry_in),
                    _ => block.pass::<16>(j, input, carry_in),
                }
            })
            .collect();
        spare_carries.extend(carries_in);
        if !resumable && cancelled() {
            return Err(Error::Interrupted);
        }
        let in_order = layers.iter().flat_map(|l| &l.targets);
        let mut values: Vec<(usize, Vec<u64>)> = in_order.map(|&(t, _)| (t, vec![0; passes * c])).collect();
        for (j, result) in results.into_iter().enumerate() {
            for (value, lanes) in values.iter_mut().zip(result.targets.chunks_exact(c)) {
                value.1[j * c..(j + 1) * c].copy_from_slice(lanes);
            }
            chunks.push(result.chunk);
            carries.push(result.carries);
        }
        for (t, lanes) in values {
            sink(t, &limbs_of(&lanes));
        }
        let mut new_edges = new_edges;
        let old = new_edges.pop().expect("a block has a layer");
        let older = new_edges.pop().unwrap_or_else(|| std::mem::take(&mut edges[1]));
        *edges = [older, old];
        if let Some(progress) = hooks.progress {
            done += (*k0..=k1).map(work).sum::<u64>();
            progress("exact", done, total);
        }
        *k0 = k1 + 1;
    }
    Ok(())
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
        let before =
            |back: usize| if k - back >= k0 { &new_edges[k - back - k0] } else { &edges[2 - (k0 - (k - back))] };
        let direct: &[u64] = if k >= 3 { &[r, l] } else { &[r] };
        let mut set = LayerSet::image(&[(&before(1).set, r), (&before(2).set, l)], Step::Forward, direct);
        set.retain_in(plan.layer(k));
        new_edges.push(Edge::new(set));
    }
    let layers = range
        .into_par_iter()
        .map(|k| {
            let (r, l) = (plan.edge(k - 2) as u64, plan.edge(k - 1) as u64);
            let before =
                |back: usize| if k - back >= k0 { &new_edges[k - back - k0] } else { &edges[2 - (k0 - (k - back))] };
            positions(&new_edges[k - k0], before(1), before(2), k, r, l)
        })
        .collect();
    (layers, new_edges)
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
    /// Buffers left by finished passes.
    spares: &'a Mutex<Vec<Vec<u64>>>,
}

impl Block<'_> {
    /// Pass j: chunk j of every layer of the block, from chunk j of the two layers before it and the
    /// carries out of chunk j - 1 of those layers.
    fn pass<const C: usize>(&self, j: usize, input: PassInput, carry_in: Option<&Chunk>) -> PassResult {
        let PassInput { chunk: [mut older, mut old], spare_carries } = input;
        let mut cur = self.spares.lock().expect("not poisoned").pop().unwrap_or_default();
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
        self.spares.lock().expect("not poisoned").push(cur);
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
