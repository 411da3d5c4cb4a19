//! The fast exact engine: the recurrence over blocks of layers, one lane chunk at a time, with
//! delayed carries; and, with lanes of residues instead, the residues of a count modulo many primes
//! at once.
//!
//! **The recurrence.** For k >= 2, with L = 1 + G(k-1) and R = 1 + G(k-2),
//! c(k, g) = [g == R] + [k >= 3][g == L] + c(k-1, (g xor R) - 1) + c(k-2, (g xor L) - 1), over the
//! states (k, g) of the [`Plan`]. Layer k reads only layers k-1 and k-2.
//!
//! **Two lane kinds.** A state holds C-lane chunks of `u64` lanes, of one of two kinds:
//! - *exact* ([`Lanes::Exact`]): the value itself, in [`lanes`]`(k)` lanes of 56-bit
//!   payload in layer k (below), with carries between chunks and the number of passes growing with
//!   the lanes;
//! - *residues* ([`Lanes::Residues`], the residues of [`crate::engines::Engine::Crt`]): lane i holds
//!   the count modulo the i-th modulus (the CRT primes, the last chunk padded with the modulus 2), in
//!   every layer. The sum adds modulo each lane's modulus ([`crate::kernels::sum_layer_mod`]); a direct
//!   move adds to every lane of every pass (exact: lane 0 of pass 0); there are no carries and no
//!   normalisation, so pass j of a block follows only pass j of the block before, blocks may be
//!   longer ([`MAX_RESIDUE_BLOCK_LAYERS`]), and every block has all ceil(K / C) passes. Not
//!   resumable. The recurrence, the plan, the block descriptions and the task graph are the exact
//!   kind's.
//!
//! **Lanes** ([`mod@lanes`]). A value is held in lanes of 56 payload bits in `u64` words: value = sum of
//! lane_i x 2^(56 i), where a lane may hold more than 56 bits between normalisations. Adding two
//! values is then a plain lane-wise addition, with no carry chain, which the compiler vectorises
//! ([`crate::kernels::sum_layer`]). A lane grows at most like the counts do (c(k) = c(k-1) + c(k-2) + 2),
//! so a block of layers (at most [`MAX_BLOCK_LAYERS`], 11) can run from normalised lanes
//! without overflowing a word.
//!
//! **Blocks and passes** ([`pass`]). Because lanes are independent within a block, chunk j (lanes
//! jC .. (j+1)C) of every value of every layer of the block depends only on chunk j of the two
//! layers before the block. So a block is a set of independent passes, pass j computing chunk j of
//! every layer of the block while only three layers of one chunk (their size chosen for this CPU's
//! caches, [`Tuning::for_width`]) are live: the working set stays in cache (L2 or L3) however long
//! the numbers grow, and the passes run on any number of threads without waiting for each other.
//! Before its passes, a block is described ([`describe`]): which states are non-zero, and where
//! each reads from. Where three layers of a chunk would leave L2, a pass may instead run the block in
//! tiles ([`mod@tiles`]: ranges of its top layer's states with what they read, each from the block's
//! first layer to its last in a buffer of half the L2), made once a block for all its passes, where the
//! run's own timings say they pay for their making ([`mod@choice`]).
//!
//! **The schedule** ([`schedule`]). The passes are tasks of a graph rather than rounds with a
//! barrier: pass j of block b waits only for the description of block b and for passes j-1 and j
//! of block b-1 (pass j alone for residues), so a thread that finishes early starts the next block.
//! A description is itself a short task for the non-zero sets (a chain from block to block) and a
//! few tasks for the source positions (off that chain). The ready tasks are taken in an order that
//! walks a chunk through a few blocks in a row, so that its edge layers stay in the cache between
//! them. The longest chain of the graph is about one chunk's pass per block, so the parallelism is
//! about the number of chunks of a block: [`Tuning::for_run`] cuts smaller chunks (down to one lane)
//! when there are many threads, and keeps the width's cut on one or two. A run can record its graph
//! ([`crate::graph`]).
//!
//! **Carries** (exact lanes only). At the end of a block each pass normalises chunk j of the
//! block's last two layers: each lane keeps its low 56 bits and adds the high bits of the lane
//! below; the high bits of the chunk's top lane (the carry out, per state, below 2^8) are handed to
//! pass j + 1 of the next block, which adds them to its lane 0 before it starts. Targets are taken
//! from the raw lanes and fully normalised once.
//!
//! **Invariants.**
//! - (exact lanes) at a block's start every lane of its two edge layers (carries applied) is below
//!   [`lanes::LANE_START`]; the block is short enough that no lane of its layers can exceed `u64::MAX`;
//! - a state whose count is zero is known before any pass: its g is in the plan but in none of
//!   the images of the earlier layers' non-zero states, and it is not a direct move. It is dropped;
//!   readers of it read a zero chunk kept after each layer's states;
//! - (exact lanes) the carry out of a value's top chunk is zero: the lanes hold every count of the
//!   layer;
//! - (residues) every lane is below its modulus at the end of every layer.
//!
//! **Memory**: the two layers at a block's edge in full, an 8-bit carry per state and chunk of the
//! last two layers of each block in flight, per thread four layers of one chunk (and a tile's
//! buffer), per block in flight two source indices per state and its tiles
//! ([`memory_bytes`]; residues: the moduli in place of the lanes and no carries,
//! [`residue_memory_bytes`]).

mod choice;
mod describe;
mod lanes;
mod memory;
mod nonzero;
mod pass;
mod schedule;
mod sweep;
#[cfg(test)]
mod tests;
mod tiles;
mod tuning;

use std::sync::Mutex;
use std::sync::atomic::AtomicU64;

pub use choice::TileRule;
pub(crate) use describe::Handed;
pub(crate) use lanes::{MAX_BLOCK_LAYERS, lanes};
pub(crate) use memory::{held_bytes, memory_bytes, residue_memory_bytes};
pub(crate) use nonzero::NonZeroSet;
pub(crate) use pass::{Carries, Chunk};
pub(crate) use sweep::Sweep;
pub(crate) use tuning::Tuning;

use crate::error::{Error, Param, Result};
use crate::hooks::Hooks;
use crate::plan::Plan;
use crate::targets::Targets;
use schedule::{Segment, Shared};

/// Why words are not a saved position ([`crate::Position::read`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unread {
    /// Too few words, or a length longer than the words left.
    Short,
    /// An unknown half (0 is bottom-up, 1 top-down).
    Half(u64),
    /// A non-zero set whose window is not one (a base not a multiple of 64, or past 2^64).
    Set,
    /// A carry between two chunks above 2^8 - 1: no run holds one (its lanes' high bits).
    Carry(u64),
}

/// The chunk sizes the engine has kernels for, in lanes.
pub const CHUNK_LANES: [usize; 7] = [1, 2, 4, 8, 16, 32, 64];

/// Where a run stands between two blocks: enough to go on from there (a checkpoint holds it). The
/// layers before `k0` are done.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct State {
    /// The first layer not yet computed.
    pub(crate) k0: usize,
    /// The lanes per chunk the run was cut into.
    pub(crate) chunk_lanes: usize,
    /// The non-zero states of the two layers before `k0` (the older first).
    pub(crate) edges: [NonZeroSet; 2],
    /// Per pass: its chunk of those two layers, and the carries out of its top lane (a byte a
    /// state, as the passes keep them: a checkpoint writes each as a word).
    pub(crate) chunks: Vec<Chunk>,
    pub(crate) carries: Vec<Carries>,
}

impl State {
    /// Whether a state read from a file is at a step of `sweep` over `plan` with the two edge
    /// layers that step has: its first step within the sweep, and the non-zero sets of the two
    /// steps before it those the plan gives (a forged first step would hand the engine values of
    /// another layer, of other lanes). Call it while the plan still holds its layers. Cost: the
    /// non-zero sets of the steps before it, O(window / 64) each.
    pub(crate) fn fits_plan(&self, plan: &Plan, sweep: Sweep) -> bool {
        let empty = [NonZeroSet::default(), NonZeroSet::default()];
        if self.k0 <= 2 || self.k0 > sweep.last_step() + 1 {
            return self.k0 == 2 && self.edges == empty;
        }
        let sets = describe::nonzero_sets(plan, sweep, 2..=self.k0 - 1, &empty, None);
        let at = |step: usize| if step >= 2 { &sets[step - 2] } else { &empty[0] };
        self.edges[0] == *at(self.k0 - 2) && self.edges[1] == *at(self.k0 - 1)
    }

    /// Whether a state read from a file is one this engine could have saved for a run whose states
    /// all lie at or below `hi`: the members of its two non-zero sets within that bound, a whole
    /// number of passes, each pass's chunks as long as its sets say (C lanes a state and the zero
    /// chunk's) and a carry per state, with the carries of every pass (exact lanes; [`State::read`]
    /// refuses a carry above [`lanes::CARRY_MAX`]). A file that passes its checksum but not this is
    /// refused before any work, not run into a panic.
    /// Cost O(passes).
    pub(crate) fn fits(&self, hi: u64) -> bool {
        let c = self.chunk_lanes;
        // every member at most `hi` (the layers of a target's g at or above W reach down to 0)
        let sets = self.edges.iter().all(|e| {
            let Some(last) = e.set.words().iter().rposition(|&w| w != 0) else { return true };
            e.set.base().checked_add(64 * last as u64 + 63).is_some_and(|t| t <= hi | 63)
        });
        let lens = [self.edges[0].len as usize, self.edges[1].len as usize];
        let chunks = self.chunks.iter().all(|[a, b]| a.len() == (lens[0] + 1) * c && b.len() == (lens[1] + 1) * c);
        let carries = self.carries.iter().all(|[a, b]| a.len() == lens[0] && b.len() == lens[1]);
        CHUNK_LANES.contains(&c) && sets && chunks && carries && self.carries.len() == self.chunks.len()
    }

    /// Hands the state's words to `put`: k0, the chunks' lanes, the two non-zero sets (base,
    /// length, words each), the passes' count, then each pass's chunks and then each pass's
    /// carries, a layer at a time (length, words). Cost O(the state's words).
    ///
    /// # Errors
    /// Whatever `put` returns.
    pub(crate) fn write(&self, put: &mut dyn FnMut(u64) -> std::io::Result<()>) -> std::io::Result<()> {
        let words = |put: &mut dyn FnMut(u64) -> std::io::Result<()>, words: &[u64]| {
            put(words.len() as u64)?;
            words.iter().try_for_each(|&w| put(w))
        };
        put(self.k0 as u64)?;
        put(self.chunk_lanes as u64)?;
        for e in &self.edges {
            put(e.set.base())?;
            words(put, e.set.words())?;
        }
        put(self.chunks.len() as u64)?;
        for chunk in &self.chunks {
            chunk.iter().try_for_each(|layer| words(put, layer))?;
        }
        for carries in self.carries.iter().flatten() {
            put(carries.len() as u64)?;
            carries.iter().try_for_each(|&c| put(c as u64))?;
        }
        Ok(())
    }

    /// The state [`State::write`] wrote, each word from `next` (told whether it is a length), or
    /// why the words are not one ([`Unread`]: a carry above [`lanes::CARRY_MAX`], the high bits of
    /// no lane, among them). Cost O(the state's words).
    pub(crate) fn read(next: &mut dyn FnMut(bool) -> Option<u64>) -> std::result::Result<State, Unread> {
        let mut word = |length: bool| next(length).ok_or(Unread::Short);
        let words = |word: &mut dyn FnMut(bool) -> std::result::Result<u64, Unread>| {
            let len = usize::try_from(word(true)?).map_err(|_| Unread::Short)?;
            (0..len).map(|_| word(false)).collect::<std::result::Result<Vec<u64>, Unread>>()
        };
        let k0 = word(false)? as usize;
        let chunk_lanes = word(false)? as usize;
        let mut edges: [NonZeroSet; 2] = Default::default();
        for e in &mut edges {
            let base = word(false)?;
            let set = crate::plan::LayerSet::from_words(base, words(&mut word)?).ok_or(Unread::Set)?;
            *e = NonZeroSet::new(set);
        }
        let passes = usize::try_from(word(true)?).map_err(|_| Unread::Short)?;
        let mut chunks: Vec<Chunk> = Vec::new();
        for _ in 0..passes {
            chunks.push([words(&mut word)?, words(&mut word)?]);
        }
        let carry = |w: u64| u8::try_from(w).ok().filter(|&c| c as u64 <= lanes::CARRY_MAX).ok_or(Unread::Carry(w));
        let mut carries: Vec<Carries> = Vec::new();
        for _ in 0..passes {
            let mut layer =
                || words(&mut word)?.into_iter().map(carry).collect::<std::result::Result<Vec<u8>, Unread>>();
            carries.push([layer()?, layer()?]);
        }
        Ok(State { k0, chunk_lanes, edges, chunks, carries })
    }

    /// The value of state `s` (its position among the non-zero states) of edge layer `i` (0 the
    /// older) in the words format of the exact engines, from a run of exact lanes: its chunks'
    /// lanes with the carries between them. Cost O(lanes).
    pub(crate) fn words(&self, i: usize, s: usize) -> Vec<u64> {
        let c = self.chunk_lanes;
        let mut raw = Vec::with_capacity(self.chunks.len() * c);
        for (j, chunk) in self.chunks.iter().enumerate() {
            let start = raw.len();
            raw.extend_from_slice(&chunk[i][s * c..(s + 1) * c]);
            if let Some(carries) = j.checked_sub(1).and_then(|j| self.carries.get(j)) {
                // the lane is normalised, the carry below 2^8 (but in a forged checkpoint's state)
                raw[start] = raw[start].wrapping_add(carries[i][s] as u64);
            }
        }
        lanes::limbs_of(&raw)
    }
}

/// What a resumable run calls between segments: `(state, stopping)`, see [`run`].
pub(crate) type AtBoundary<'b> = dyn FnMut(&State, bool) -> Result<()> + 'b;

/// What the lanes of a run hold, as its caller asks: the exact values, or their residues modulo
/// each of `moduli` (any 2 <= m < 2^63; [`crate::crt::primes`] in use).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) enum Lanes<'m> {
    /// The exact values, handed to the sink in the words format of the exact engines (a length
    /// word, then limbs).
    #[default]
    Exact,
    /// The residues, handed to the sink as `moduli.len()` residues in the order of `moduli`.
    Residues(&'m [u64]),
}

/// A run of the blocked engine: what it counts over (`plan`, `targets`), what its lanes hold, how
/// it is cut, the sweep it runs (bottom-up over the whole plan where `sweep` is `None`), where it
/// adds its work (its own tally where `None`), the plan's layers handed over to it, and the state
/// it starts from (the beginning where `None`).
pub(crate) struct Run<'a> {
    pub(crate) plan: &'a Plan,
    pub(crate) targets: &'a Targets,
    pub(crate) lanes: Lanes<'a>,
    pub(crate) tuning: Tuning,
    pub(crate) hooks: Hooks<'a>,
    pub(crate) sweep: Option<Sweep>,
    pub(crate) tally: Option<Tally<'a>>,
    pub(crate) handed: Option<&'a Handed>,
    pub(crate) start: Option<State>,
}

impl<'a> Run<'a> {
    /// The bottom-up run of exact lanes over `plan` for `targets`, cut as `tuning` says, from the
    /// beginning. Cost O(1).
    pub(crate) fn exact(plan: &'a Plan, targets: &'a Targets, hooks: Hooks<'a>, tuning: Tuning) -> Run<'a> {
        let lanes = Lanes::Exact;
        Run { plan, targets, lanes, tuning, hooks, sweep: None, tally: None, handed: None, start: None }
    }
}

/// Blocks in a segment of a resumable run: it stops and saves only between segments.
const SEGMENT_BLOCKS: usize = 4;

/// Runs the recurrence as `run` says and returns where it ends: the values of its last two steps.
///
/// Bottom-up, each target's value goes to `sink` in order of layer (as [`Lanes`] says). Top-down
/// ([`Sweep::Down`], exact lanes), the values of the direct-move states of the layers above the
/// cut go to `sink`, each with its multiplicity (1 or 2) in place of a target's index. A bottom-up
/// sweep reads the plan's layers from `run.handed` where they are handed over ([`Plan::hand_over`]),
/// freeing each as it goes.
///
/// Where `at_boundary` is given, the run is resumable: it calls `at_boundary(state, stopping)`
/// between segments of four blocks, with `stopping` false as it goes (the caller may save the
/// state) and true once when the cancel flag stops the run, before [`Error::Interrupted`] is
/// returned; its segments are not cut short by the cancel flag (so that the stop comes at a
/// boundary, with a state to save), which makes a stop take up to one segment's time. Residue
/// lanes are not resumable: a run stops only when cancelled, and starts again from the beginning.
///
/// Cost: O(the steps' states x their lanes) lane additions (modulo a lane's modulus for residues),
/// in cache; memory as the module says (for residues the moduli, rounded up to whole chunks, in
/// place of the lanes of the top layer: [`residue_memory_bytes`]).
///
/// # Errors
/// [`Error::Interrupted`] when cancelled; [`Error::InvalidArgument`] naming [`Param::Modulus`] for a
/// modulus outside 2..2^63, or naming [`Param::Resume`] when `run.start` does not fit the
/// plan's tuning or is past a target; whatever `at_boundary` returns.
pub(crate) fn run(
    run: Run,
    at_boundary: Option<&mut AtBoundary>,
    mut sink: impl FnMut(usize, &[u64]) + Send,
) -> Result<State> {
    let Lanes::Residues(moduli) = run.lanes else { return run_kind(run, LaneKind::Exact, at_boundary, sink) };
    for &m in moduli {
        crate::engines::modular::check_modulus(m)?;
    }
    if moduli.is_empty() {
        (0..run.targets.len()).for_each(|t| sink(t, &[]));
        return Ok(State::default());
    }
    let c = run.tuning.chunk_lanes.max(1);
    // the last chunk padded with the modulus 2, whose lanes are dropped at the end
    let mut padded = moduli.to_vec();
    padded.resize(moduli.len().div_ceil(c) * c, PAD_MODULUS);
    let kind = LaneKind::Residues { moduli: &padded, count: moduli.len() };
    run_kind(run, kind, at_boundary, sink)
}

/// The most layers a block of residues may have ([`Tuning::block_layers`] is cut to it): residues
/// cannot overflow, and this bounds only the source positions held per block. (Eight blocks of
/// exact lanes of 48 bits, whose measured speed it kept when the lanes grew to 56 bits.)
const MAX_RESIDUE_BLOCK_LAYERS: usize = 176;

/// The modulus of the lanes that pad the last chunk of a residue run to C lanes.
const PAD_MODULUS: u64 = 2;

/// What the lanes of a run's states hold (the module's two lane kinds).
#[derive(Clone, Copy, Debug)]
pub(super) enum LaneKind<'m> {
    /// The exact value, in lanes of [`lanes::PAYLOAD`] bits: [`lanes`]`(k)` lanes in layer k.
    Exact,
    /// The residues modulo `moduli` (lane i modulo `moduli[i]`), a whole number of chunks; the
    /// first `count` are the run's, the rest pad the last chunk.
    Residues { moduli: &'m [u64], count: usize },
}

impl LaneKind<'_> {
    /// The lanes of a value of step `t` of `sweep`. Cost O(1).
    pub(super) fn lanes(self, sweep: Sweep, t: usize) -> usize {
        match self {
            LaneKind::Exact => sweep.lanes(t),
            LaneKind::Residues { moduli, .. } => moduli.len(),
        }
    }

    /// The lane additions of step `t` of `sweep` over `plan`: its layer's states times its lanes,
    /// what the progress callback counts. Cost O(1).
    pub(super) fn work(self, plan: &Plan, sweep: Sweep, t: usize) -> u64 {
        plan.layer_len(sweep.layer(t)) as u64 * self.lanes(sweep, t) as u64
    }
}

/// Where a run adds its work done, in lane additions, and the work of all the runs that share it:
/// what the progress callback is told.
#[derive(Clone, Copy)]
pub(crate) struct Tally<'a> {
    pub(crate) done: &'a AtomicU64,
    pub(crate) total: u64,
}

/// The lane additions of the steps `steps` of `sweep` over `plan`, with lanes of the exact kind.
/// Cost O(steps).
pub(crate) fn sweep_work(plan: &Plan, sweep: Sweep, steps: std::ops::RangeInclusive<usize>) -> u64 {
    steps.map(|t| LaneKind::Exact.work(plan, sweep, t)).sum()
}

/// The time outside the segments' task graphs, on the calling thread, where the run's graph is
/// recorded ([`crate::graph`]).
struct Serial<'r> {
    recorder: Option<&'r crate::graph::Recorder>,
    since: Option<f64>,
}

impl<'r> Serial<'r> {
    fn start(recorder: Option<&'r crate::graph::Recorder>) -> Serial<'r> {
        Serial { recorder, since: recorder.map(|_| crate::machine::thread_cpu_seconds()) }
    }

    /// Records the serial time since the last start, and stops counting.
    fn stop(&mut self) {
        if let (Some(recorder), Some(since)) = (self.recorder, self.since.take()) {
            recorder.serial(crate::machine::thread_cpu_seconds() - since);
        }
    }

    fn restart(&mut self) {
        self.since = self.recorder.map(|_| crate::machine::thread_cpu_seconds());
    }
}

/// [`run`] for lanes of `kind`, ending with the state after its last step.
fn run_kind(
    run: Run,
    kind: LaneKind,
    mut at_boundary: Option<&mut AtBoundary>,
    mut sink: impl FnMut(usize, &[u64]) + Send,
) -> Result<State> {
    let Run { plan, targets, tuning, hooks, sweep, tally, handed, start, .. } = run;
    let mut serial = Serial::start(hooks.recorder());
    let resumable = at_boundary.is_some();
    let c = tuning.chunk_lanes;
    assert!(CHUNK_LANES.contains(&c), "a chunk is 1, 2, 4, 8, 16, 32 or 64 lanes");
    let longest = match kind {
        LaneKind::Exact => MAX_BLOCK_LAYERS,
        LaneKind::Residues { .. } => MAX_RESIDUE_BLOCK_LAYERS, // residues cannot overflow
    };
    let block_layers = tuning.block_layers.clamp(1, longest);
    let sweep = sweep.unwrap_or(Sweep::Up { last: plan.top() });
    let mut state = start.unwrap_or(State { k0: 2, chunk_lanes: c, ..State::default() });
    let last = sweep.last_step();
    if state.chunk_lanes != c || state.k0 < 2 || state.k0 > last.max(1) + 1 {
        return Err(Error::invalid(Param::Resume, "the saved state does not fit this run"));
    }
    let mut next = first_targets(targets, kind, state.k0, &mut sink)?;
    let work = |t: usize| kind.work(plan, sweep, t);
    let own = AtomicU64::new((2..state.k0).map(work).sum());
    let tally = tally.unwrap_or(Tally { done: &own, total: (2..=last).map(work).sum() });
    // A resumable run stops only between segments, so that it has a state to save.
    let segment_hooks = if resumable { hooks.uncancellable() } else { hooks };
    let sink: &mut schedule::SinkFn = &mut sink;
    let (isa, spares, sink) = (tuning.isa, Default::default(), Mutex::new(sink));
    let tiling = schedule::Tiling {
        rule: tuning.tiles,
        positions: tuning.tile_positions(),
        l2: 2 * tuning.tile_bytes as u64,
        costs: Default::default(),
    };
    let shared =
        Shared { plan, sweep, handed, targets, c, tiling, isa, kind, hooks, segment_hooks, sink, spares, tally };
    while state.k0 <= last {
        let stopping = hooks.cancelled();
        if let Some(at_boundary) = &mut at_boundary {
            at_boundary(&state, stopping)?;
        }
        if stopping {
            return Err(Error::Interrupted);
        }
        let blocks = if resumable { SEGMENT_BLOCKS } else { usize::MAX };
        let bounds: Vec<(usize, usize)> = std::iter::successors(Some(state.k0), |&k| Some(k + block_layers))
            .take_while(|&k| k <= last)
            .take(blocks)
            .map(|k0| (k0, (k0 + block_layers - 1).min(last)))
            .collect();
        let block_targets: Vec<Vec<usize>> = bounds
            .iter()
            .map(|&(_, k1)| std::iter::from_fn(|| next.next_if(|&t| targets[t].0 as usize <= k1)).collect())
            .collect();
        let segment = Segment::new(&shared, &bounds, block_targets, std::mem::take(&mut state));
        serial.stop();
        segment.run();
        serial.restart();
        if !resumable && hooks.cancelled() {
            return Err(Error::Interrupted);
        }
        state = segment.finish();
    }
    serial.stop();
    Ok(state)
}

/// The targets of `targets` (in order of layer) from the first a run starting at layer `k0` computes:
/// those of layers 0 and 1, which hold no moves, answered 0 through `sink` at once.
///
/// # Errors
/// [`Error::InvalidArgument`] naming [`Param::Resume`] for a target below `k0` (a resumed run has
/// no values for the layers it skips).
fn first_targets(
    targets: &Targets,
    kind: LaneKind,
    k0: usize,
    sink: &mut impl FnMut(usize, &[u64]),
) -> Result<std::iter::Peekable<std::ops::Range<usize>>> {
    let mut next = (0..targets.len()).peekable();
    let zero = match kind {
        LaneKind::Exact => Vec::new(),
        LaneKind::Residues { count, .. } => vec![0; count],
    };
    while let Some(t) = next.next_if(|&t| targets[t].0 < 2) {
        sink(t, &zero); // layers 0 and 1 hold no moves
    }
    if next.peek().is_some_and(|&t| (targets[t].0 as usize) < k0) {
        return Err(Error::invalid(Param::Resume, "the saved state is past a target of this run"));
    }
    Ok(next)
}
