//! The fast exact engine: the recurrence over blocks of layers, one limb chunk at a time.
//!
//! Chunk j (limbs `jC .. (j+1)C`) of c(k, g) depends only on chunk j of its two sources and the carry
//! (0, 1 or 2) out of chunk j - 1 of the same value. So a block of B layers is computed as a
//! sequence of passes, pass j computing chunk j of every value of every layer in the block while
//! only three layers of chunk j (a few hundred KiB) are live: the working set stays in cache however
//! long the numbers grow, and only the carries (one byte a state) go from one pass to the next.
//!
//! Invariants:
//! - pass j reaches layer k of the block only after pass j - 1 has finished it (the carries it
//!   reads are then final; it overwrites them with its own for pass j + 1); passes are claimed in
//!   increasing order by the running workers, so the pass each one waits for is always running;
//! - a state whose count is zero is known before any pass (no move leads to it: no direct move and
//!   no non-zero source) and is skipped by every pass; readers treat it as absent;
//! - pass j keeps chunk j of the block's last two layers: they are the first two layers of pass j
//!   of the next block. Chunks above a layer's limb count are zero.
//!
//! Memory: the two layers at a block's edge in full, plus per thread three layers of one chunk,
//! plus per block one index pair, one direct count, a zero flag and a carry byte per state.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};

use crate::engine::Hooks;
use crate::exact::limbs;
use crate::plan::Plan;
use crate::{Error, Result};

/// An index meaning "no source" (or a source whose count is zero).
const NONE: u32 = u32::MAX;

/// Bytes of per-state bookkeeping in a block (two source indices, direct, carry).
const META_BYTES: usize = 10;

/// How a run is cut into blocks and chunks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tuning {
    /// Layers per block.
    pub block_layers: usize,
    /// Limbs per chunk: 4, 8 or 16.
    pub chunk_limbs: usize,
}

impl Tuning {
    /// A tuning for layers of at most `widest` states: three layers of a chunk in at most about 4 MiB
    /// per thread, a block's bookkeeping in about 4 MiB.
    pub fn for_width(widest: usize) -> Tuning {
        let widest = widest.max(1);
        let chunk_limbs = match (4 << 20) / (24 * widest) {
            0..8 => 4,
            8..16 => 8,
            _ => 16,
        };
        let block_layers = ((4 << 20) / (META_BYTES * widest)).clamp(4, 512);
        Tuning { block_layers, chunk_limbs }
    }
}

/// A layer before a block, as the block reads it: the position of each g among the layer's `len`
/// non-zero counts, [`NONE`] where the count is zero.
#[derive(Debug, Default, PartialEq)]
struct Edge {
    base: u64,
    slot: Vec<u32>,
    len: u32,
}

impl Edge {
    /// The position of `g`, or `len` (the layer's zero chunk) where the count is zero.
    #[inline]
    fn index(&self, g: u64) -> u32 {
        match self.slot[(g - self.base) as usize] {
            NONE => self.len,
            i => i,
        }
    }
}

/// The non-zero counts of one layer of a block (a count is zero when no move leads to its g, which
/// the plan alone tells): where each reads from, its direct moves, and its place among the block's
/// carries.
struct Layer {
    left: Vec<u32>,
    right: Vec<u32>,
    direct: Vec<u8>,
    carry_at: usize,
    /// (target index, position among the non-zero counts or [`NONE`]) of the targets in this layer.
    targets: Vec<(usize, u32)>,
}

impl Layer {
    fn len(&self) -> usize {
        self.left.len()
    }
}

/// Chunk j of the two layers before a block (the older first), `states x C` limbs each.
type Chunk = [Vec<u64>; 2];

/// What pass j leaves: chunk j of the block's last two layers, and of its targets' values in order.
type PassResult = (Chunk, Vec<u64>);

/// Runs the exact recurrence over `plan`, handing each target's value to `sink` in the words format
/// of [`crate::exact::Limbs`] (a length word, then limbs), in order of layer.
///
/// Cost: O(plan states x limbs(n)) limb additions, in cache; memory as the module says.
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
    chunk_limbs: usize,
    edges: [Edge; 2],
    chunks: Vec<Chunk>,
    last_widths: [usize; 2],
}

impl State {
    /// Appends the state to `out` (little-endian words).
    pub fn write(&self, out: &mut Vec<u8>) {
        let mut put = |w: u64| out.extend_from_slice(&w.to_le_bytes());
        put(self.k0 as u64);
        put(self.chunk_limbs as u64);
        for e in &self.edges {
            put(e.base);
            put(e.len as u64);
            put(e.slot.len() as u64);
            for pair in e.slot.chunks(2) {
                put(pair[0] as u64 | (pair.get(1).copied().unwrap_or(0) as u64) << 32);
            }
        }
        put(self.last_widths[0] as u64);
        put(self.last_widths[1] as u64);
        put(self.chunks.len() as u64);
        for chunk in &self.chunks {
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
        let k0 = get(bytes)? as usize;
        let chunk_limbs = get(bytes)? as usize;
        let mut edges: [Edge; 2] = Default::default();
        for e in &mut edges {
            e.base = get(bytes)?;
            e.len = u32::try_from(get(bytes)?).ok()?;
            let slots = size(bytes)?;
            e.slot = Vec::with_capacity(slots);
            for _ in 0..slots.div_ceil(2) {
                let pair = get(bytes)?;
                e.slot.push(pair as u32);
                e.slot.push((pair >> 32) as u32);
            }
            e.slot.truncate(slots);
        }
        let last_widths = [get(bytes)? as usize, get(bytes)? as usize];
        let passes = size(bytes)?;
        let mut chunks = Vec::with_capacity(passes);
        for _ in 0..passes {
            let mut chunk: Chunk = Default::default();
            for layer in &mut chunk {
                let words = size(bytes)?;
                *layer = (0..words).map(|_| get(bytes)).collect::<Option<Vec<u64>>>()?;
            }
            chunks.push(chunk);
        }
        Some(State { k0, chunk_limbs, edges, chunks, last_widths })
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
    let c = tuning.chunk_limbs;
    let mut state = start.unwrap_or(State { k0: 2, chunk_limbs: c, ..State::default() });
    if state.chunk_limbs != c || state.k0 < 2 || state.k0 > plan.top().max(1) + 1 {
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
    let total: u64 = (2..=plan.top()).map(|k| plan.layer(k).len() as u64 * limbs(k) as u64).sum();
    let mut done: u64 = (2..state.k0).map(|k| plan.layer(k).len() as u64 * limbs(k) as u64).sum();
    while state.k0 <= plan.top() {
        let stopping = hooks.cancel.is_some_and(|c| c.load(Ordering::Relaxed));
        if let Some(at_boundary) = &mut at_boundary {
            at_boundary(&state, stopping)?;
        }
        if stopping {
            return Err(Error::Interrupted);
        }
        let State { k0, edges, chunks, last_widths, .. } = &mut state;
        let k1 = (*k0 + tuning.block_layers - 1).min(plan.top());
        let edge_widths = *last_widths;
        let mut layers: Vec<Layer> = Vec::with_capacity(k1 - *k0 + 1);
        for k in *k0..=k1 {
            let carry_at = layers.last().map_or(0, |l| l.carry_at + l.len());
            let (mut layer, edge) = describe(plan, k, edges, carry_at);
            while let Some(&t) = next.next_if(|&&t| targets[t].0 as usize == k) {
                layer.targets.push((t, edge.index(targets[t].1)));
            }
            edges.rotate_left(1);
            edges[1] = edge;
            layers.push(layer);
        }
        let carry_count = layers.last().map_or(0, |l| l.carry_at + l.len());
        *last_widths =
            [layers.len().checked_sub(2).map_or(edge_widths[1], |i| layers[i].len()), layers[layers.len() - 1].len()];
        // Chunks of the edge layers beyond what the previous block computed are zero.
        let passes = limbs(k1).div_ceil(c);
        let widths = [(edge_widths[0] + 1) * c, (edge_widths[1] + 1) * c]; // with their zero chunks
        chunks.resize_with(passes, || [vec![0; widths[0]], vec![0; widths[1]]]);
        let carries: Vec<AtomicU8> = (0..carry_count).map(|_| AtomicU8::new(0)).collect();
        let block = Block {
            layers: &layers,
            carries: &carries,
            cancel: if resumable { None } else { hooks.cancel },
            progress: (0..passes).map(|_| Padded(AtomicUsize::new(0))).collect(),
        };
        let results = block.run(std::mem::take(chunks), c);
        if !resumable && hooks.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Err(Error::Interrupted);
        }
        let mut values: Vec<(usize, Vec<u64>)> =
            layers.iter().flat_map(|l| &l.targets).map(|&(t, _)| (t, vec![0; 1 + passes * c])).collect();
        for (j, (chunk, target_chunks)) in results.into_iter().enumerate() {
            for (value, limbs) in values.iter_mut().zip(target_chunks.chunks_exact(c)) {
                value.1[1 + j * c..1 + (j + 1) * c].copy_from_slice(limbs);
            }
            chunks.push(chunk);
        }
        for (t, mut words) in values {
            words[0] = (words.len() - 1) as u64;
            sink(t, &words);
        }
        if let Some(progress) = hooks.progress {
            done += (*k0..=k1).map(|k| plan.layer(k).len() as u64 * limbs(k) as u64).sum::<u64>();
            progress("exact", done, total);
        }
        *k0 = k1 + 1;
    }
    Ok(())
}

/// The non-zero counts of layer `k` and where each reads from, given the two layers before it, and
/// the layer as the next layers read it.
fn describe(plan: &Plan, k: usize, edges: &[Edge; 2], carry_at: usize) -> (Layer, Edge) {
    let right_edge = plan.edge(k - 2) as u64;
    let left_edge = plan.edge(k - 1) as u64;
    let set = plan.layer(k);
    let mut layer = Layer { left: Vec::new(), right: Vec::new(), direct: Vec::new(), carry_at, targets: Vec::new() };
    let mut slot = vec![NONE; set.window()];
    for g in set.iter() {
        // absent sources read the zero chunk that follows each layer's counts
        let left = (g ^ right_edge).checked_sub(1).filter(|_| k >= 3).map_or(edges[1].len, |a| edges[1].index(a));
        let right = (g ^ left_edge).checked_sub(1).filter(|_| k >= 4).map_or(edges[0].len, |b| edges[0].index(b));
        let direct = (g == right_edge) as u8 + (k >= 3 && g == left_edge) as u8;
        if direct == 0 && left == edges[1].len && right == edges[0].len {
            continue; // no move leads to g: the count is zero
        }
        slot[(g - set.base()) as usize] = layer.len() as u32;
        layer.left.push(left);
        layer.right.push(right);
        layer.direct.push(direct);
    }
    let len = layer.len() as u32;
    (layer, Edge { base: set.base(), slot, len })
}

/// One block's shared state while its passes run.
struct Block<'a> {
    layers: &'a [Layer],
    carries: &'a [AtomicU8],
    cancel: Option<&'a AtomicBool>,
    /// progress[j]: the number of the block's layers pass j has finished.
    progress: Vec<Padded>,
}

/// A counter alone on its cache lines, so that neighbouring passes do not contend for one line.
#[repr(align(128))]
struct Padded(AtomicUsize);

impl Block<'_> {
    /// Runs every pass on the current pool's threads and returns, per pass, chunk j of the block's
    /// last two layers and of its targets' values.
    fn run(&self, chunks: Vec<Chunk>, c: usize) -> Vec<PassResult> {
        let passes = chunks.len();
        let inputs: Vec<Mutex<Option<Chunk>>> = chunks.into_iter().map(|c| Mutex::new(Some(c))).collect();
        let outputs: Vec<Mutex<Option<PassResult>>> = (0..passes).map(|_| Mutex::new(None)).collect();
        let next = AtomicUsize::new(0);
        let work = || {
            loop {
                let j = next.fetch_add(1, Ordering::Relaxed);
                if j >= passes {
                    break;
                }
                let input = inputs[j].lock().expect("not poisoned").take().expect("each pass is claimed once");
                let output = match c {
                    4 => self.pass::<4>(j, input),
                    8 => self.pass::<8>(j, input),
                    _ => self.pass::<16>(j, input),
                };
                *outputs[j].lock().expect("not poisoned") = Some(output);
            }
        };
        // One claiming loop per thread, spawned rather than broadcast: a thread busy elsewhere (with
        // the modular engine, say) joins when it is free, and the others do not wait for it.
        let workers = rayon::current_num_threads().min(passes);
        if workers > 1 {
            rayon::scope(|scope| {
                for _ in 0..workers {
                    scope.spawn(|_| work());
                }
            });
        } else {
            work();
        }
        outputs.into_iter().map(|o| o.into_inner().expect("not poisoned").expect("every pass ran")).collect()
    }

    /// Pass j: chunk j of every layer of the block, from chunk j of the two layers before it.
    fn pass<const C: usize>(&self, j: usize, [mut older, mut old]: Chunk) -> PassResult {
        let mut cur: Vec<u64> = Vec::new();
        let mut target_chunks = Vec::new();
        for (i, layer) in self.layers.iter().enumerate() {
            if self.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                // Let every later pass run through (their results are discarded with this one's).
                self.progress[j].0.store(usize::MAX, Ordering::Release);
                break;
            }
            if j > 0 {
                self.wait(j - 1, i);
            }
            // the layer's counts, then one zero chunk for the states that read nothing
            let len = layer.len() * C;
            if cur.len() < len + C {
                cur.resize(len + C, 0); // every chunk is rewritten below: stale contents are harmless
            }
            cur.truncate(len + C);
            cur[len..].fill(0);
            let carries = &self.carries[layer.carry_at..layer.carry_at + layer.len()];
            for (s, out) in cur[..len].chunks_exact_mut(C).enumerate() {
                let carry_in = if j == 0 { layer.direct[s] } else { carries[s].load(Ordering::Relaxed) };
                let (l, r) = (layer.left[s] as usize * C, layer.right[s] as usize * C);
                let carry_out = add_chunk::<C>(out, &old[l..l + C], &older[r..r + C], carry_in);
                carries[s].store(carry_out, Ordering::Relaxed);
            }
            for &(_, s) in &layer.targets {
                target_chunks.extend_from_slice(&cur[s as usize * C..(s as usize + 1) * C]);
            }
            self.progress[j].0.store(i + 1, Ordering::Release);
            // roll: older <- old <- cur, and the oldest buffer is reused
            std::mem::swap(&mut older, &mut old);
            std::mem::swap(&mut old, &mut cur);
        }
        ([older, old], target_chunks)
    }

    /// Waits until pass `j` has finished the block's layer `i`: that pass is running (passes are
    /// claimed in order), so it will.
    fn wait(&self, j: usize, i: usize) {
        let mut spins = 0u32;
        while self.progress[j].0.load(Ordering::Acquire) <= i {
            if spins < 64 {
                spins += 1;
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// `out = a + b + carry_in` over one chunk; returns the carry out, 0..=2 (2 only when both chunks
/// are all ones and the carry in is 2).
#[inline(always)]
fn add_chunk<const C: usize>(out: &mut [u64], a: &[u64], b: &[u64], carry_in: u8) -> u8 {
    let (out, a, b): (&mut [u64; C], &[u64; C], &[u64; C]) =
        (out.try_into().expect("C limbs"), a.try_into().expect("C limbs"), b.try_into().expect("C limbs"));
    if carry_in <= 1 {
        return add_fixed(out, a, b, carry_in);
    }
    // carry_in = 2 (two direct moves): rare
    let mut carry = add_fixed(out, a, b, 1);
    for o in out.iter_mut() {
        let (sum, overflow) = o.overflowing_add(1);
        *o = sum;
        if !overflow {
            return carry;
        }
    }
    carry += 1;
    carry
}

/// `out = a + b + carry` over C limbs with a one-bit carry, fully unrolled; returns the carry out.
#[inline(always)]
fn add_fixed<const C: usize>(out: &mut [u64; C], a: &[u64; C], b: &[u64; C], mut carry: u8) -> u8 {
    #[cfg(target_arch = "x86_64")]
    for i in 0..C {
        carry = core::arch::x86_64::_addcarry_u64(carry, a[i], b[i], &mut out[i]);
    }
    #[cfg(not(target_arch = "x86_64"))]
    for i in 0..C {
        let s = a[i] as u128 + b[i] as u128 + carry as u128;
        out[i] = s as u64;
        carry = (s >> 64) as u8;
    }
    carry
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_chunk_carries() {
        let mut out = [9u64; 4];
        let (m, zero) = (u64::MAX, [0u64; 4]);
        assert_eq!(add_chunk::<4>(&mut out, &[m, m, m, m], &[m, m, m, m], 2), 2);
        assert_eq!(out, [0, 0, 0, 0]);
        assert_eq!(add_chunk::<4>(&mut out, &[m, m, m, m], &zero, 1), 1);
        assert_eq!(out, [0, 0, 0, 0]);
        assert_eq!(add_chunk::<4>(&mut out, &zero, &zero, 2), 0);
        assert_eq!(out, [2, 0, 0, 0]);
        assert_eq!(add_chunk::<4>(&mut out, &[m, 1, 0, 0], &[1, 2, 0, 0], 0), 0);
        assert_eq!(out, [0, 4, 0, 0]);
        assert_eq!(add_chunk::<4>(&mut out, &[m, m, 0, 0], &zero, 2), 0);
        assert_eq!(out, [1, 0, 1, 0]);
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
            (0..=150).map(|k| (k, 0)).chain([(150, 3), (149, 0)]).collect(),
            crate::plan::support(260).unwrap().iter().map(|g| (260, g)).collect(),
        ];
        for targets in &cases {
            let plan = Plan::new(targets, u64::MAX).unwrap();
            let want = count_with_engine(Engine::Reference, &plan, targets, Hooks::default()).unwrap();
            let widest = plan.widest_layer();
            for tuning in [
                Tuning { block_layers: 4, chunk_limbs: 4 },
                Tuning { block_layers: 7, chunk_limbs: 8 },
                Tuning { block_layers: 64, chunk_limbs: 16 },
                Tuning { block_layers: 1000, chunk_limbs: 4 },
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
            assert!([4, 8, 16].contains(&t.chunk_limbs));
            assert!((4..=512).contains(&t.block_layers));
        }
    }
}
