//! The schedule of a run: its blocks as a graph of tasks, so that no thread waits at the end of a
//! block. Block b's describe task D(b) (its non-zero sets, cheap) follows D(b-1) (it extends the
//! non-zero sets) and the end of block b-3 (which bounds the descriptions held). The source tasks
//! S(b, q), where the states of the q-th group of the block's layers read from (groups of at least
//! [`SOURCE_STATES`] states; the bulk of a description), follow D(b), so that the chain of D tasks
//! stays short. Pass P(b, j) follows every S(b, q) and the passes j-1, j and j+1 of block b-1 (its
//! own chunk, the carries it adds, and the carry buffer it overwrites); in a run of residues, which
//! has no carries, only pass j of block b-1. A block ends when its last pass does, after the block
//! before it (each of its passes follows one of the block before that ended it): its targets reach
//! the sink in order.
//!
//! When the hooks carry a [`Recorder`], every task records its kind, block, chunk and thread CPU
//! time (a block's end counts in the pass that ends it), and the segment declares its blocks' passes
//! so that the dependencies above can be drawn ([`crate::graph`]).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::describe::{Handed, Sources, layer_sources, nonzero_sets};
use super::lanes::limbs_of;
use super::nonzero::NonZeroSet;
use super::pass::{Chunk, PassContext, PassInput, Spares};
use super::{LaneKind, State, Sweep, Tally};
use crate::arch::{Kernel, thread_cpu_seconds};
use crate::graph::{Recorder, TaskKind};
use crate::hooks::Hooks;
use crate::plan::Plan;

/// The states a source task of a block takes at least (whole layers of it, one layer at least):
/// two rank lookups a state, 8192 at least a task, so that the two clock reads of a recorded task
/// stay small beside its work, while a block of wide layers is described by many tasks at once.
const SOURCE_STATES: usize = 4096;

/// Where a run hands its targets' values.
pub(super) type SinkFn<'s> = dyn FnMut(usize, &[u64]) + Send + 's;

/// What the segments of a run share.
pub(super) struct Shared<'a, 's> {
    pub(super) plan: &'a Plan,
    /// The order of the steps, and what each computes.
    pub(super) sweep: Sweep,
    /// The plan's layers where they are handed over to the run, to free as it goes.
    pub(super) handed: Option<&'a Handed>,
    pub(super) targets: &'a [(u64, u64)],
    /// Lanes per chunk.
    pub(super) c: usize,
    pub(super) isa: Kernel,
    /// What the lanes hold.
    pub(super) kind: LaneKind<'a>,
    /// The run's hooks, for progress; and the hooks that stop a segment midway (without cancel flags
    /// in a resumable run, which stops only between segments).
    pub(super) hooks: Hooks<'a>,
    pub(super) segment_hooks: Hooks<'a>,
    pub(super) sink: Mutex<&'s mut SinkFn<'s>>,
    pub(super) spares: Spares,
    /// The work done so far and in all, in lane additions, for the progress callback.
    pub(super) tally: Tally<'a>,
}

/// A segment of a run: a few blocks (all of them, unless the run saves checkpoints) scheduled as the
/// graph of tasks the module describes.
pub(super) struct Segment<'a, 's> {
    shared: &'a Shared<'a, 's>,
    blocks: Vec<Block>,
    /// Per pass j: its chunk of the two newest layers finished, and its carries out by block parity.
    chunks: Vec<Mutex<Option<Chunk>>>,
    carries: Vec<[Mutex<Option<Chunk>>; 2]>,
    /// The non-zero states of the two layers before the segment.
    edges: Mutex<Option<[NonZeroSet; 2]>>,
    /// Where the tasks are recorded, if anywhere, and the run's number of the segment's first block.
    recorder: Option<&'a Recorder>,
    first_block: usize,
}

/// One block of a segment: its layers, and the counters and results of its tasks.
struct Block {
    k0: usize,
    k1: usize,
    passes: usize,
    /// The targets in the block's layers, in order of layer.
    targets: Vec<usize>,
    /// Set by D(b) for the S(b, q), dropped by the last of them.
    sets: Mutex<Option<Arc<BlockSets>>>,
    /// The S(b, q) not yet finished, and what each found per layer.
    sources_left: AtomicUsize,
    sources: Mutex<Vec<Option<Sources>>>,
    /// Set by the last S(b, q), dropped when the block ends.
    described: Mutex<Option<Arc<Described>>>,
    /// The non-zero states of the block's last two layers, for D(b+1) (or the segment's end).
    edges_out: Mutex<Option<[NonZeroSet; 2]>>,
    /// The unfinished tasks that D(b) and each P(b, j) wait for.
    waiting_describe: AtomicUsize,
    waiting: Vec<AtomicUsize>,
    /// Passes not yet finished, and the chunk of the targets' lanes each left.
    unfinished: AtomicUsize,
    target_lanes: Mutex<Vec<Vec<u64>>>,
}

/// What D(b) finds and the S(b, q) read: the non-zero sets of the block's layers and of the two
/// before it, and the targets of each layer with their positions.
struct BlockSets {
    edges: [NonZeroSet; 2],
    layers: Vec<NonZeroSet>,
    targets: Vec<Vec<(usize, u32)>>,
    edge_lens: [usize; 2],
}

/// A block as its passes read it.
struct Described {
    layers: Vec<Sources>,
    /// The non-zero counts of the two layers before the block: the sizes of a new pass's chunks.
    edge_lens: [usize; 2],
}

impl<'a, 's> Segment<'a, 's> {
    pub(super) fn new(
        shared: &'a Shared<'a, 's>,
        bounds: &[(usize, usize)],
        block_targets: Vec<Vec<usize>>,
        state: State,
    ) -> Segment<'a, 's> {
        let passes_before = state.chunks.len();
        let passes: Vec<usize> = bounds
            .iter()
            .map(|&(_, k1)| shared.kind.lanes(shared.sweep, k1).div_ceil(shared.c).max(passes_before))
            .collect();
        let most = passes.last().copied().unwrap_or(passes_before);
        let blocks = bounds
            .iter()
            .zip(block_targets)
            .enumerate()
            .map(|(b, (&(k0, k1), targets))| {
                // block -1 (the state) is done: only later blocks' passes are waited for
                let before = if b == 0 { 0 } else { passes[b - 1] };
                let waiting = (0..passes[b])
                    .map(|j| AtomicUsize::new(1 + neighbours(shared.kind, j).filter(|&i| i < before).count()))
                    .collect();
                Block {
                    k0,
                    k1,
                    passes: passes[b],
                    targets,
                    sets: Mutex::new(None),
                    sources_left: AtomicUsize::new(0),
                    sources: Mutex::new(Vec::new()),
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
        let recorder = shared.hooks.recorder();
        let first_block = recorder.map_or(0, |r| r.blocks(passes.iter().copied(), state.k0 == 2));
        Segment { shared, blocks, chunks, carries, edges: Mutex::new(Some(edges)), recorder, first_block }
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

    /// The thread CPU time now, if the tasks are recorded. Cost: a branch, and then a clock read.
    #[inline]
    fn clock(&self) -> Option<f64> {
        self.recorder.map(|_| thread_cpu_seconds())
    }

    /// Records a task that started at `start` (from [`Segment::clock`]).
    #[inline]
    fn record(&self, start: Option<f64>, kind: TaskKind, b: usize, j: usize) {
        if let (Some(recorder), Some(start)) = (self.recorder, start) {
            recorder.task(kind, self.first_block + b, j, thread_cpu_seconds() - start);
        }
    }

    /// D(b): the block's layers described, its targets placed, its last two non-zero sets kept.
    pub(super) fn describe<'x>(&'x self, s: &rayon::Scope<'x>, b: usize) {
        let start = self.clock();
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
        let (plan, sweep) = (self.shared.plan, self.shared.sweep);
        let layers = nonzero_sets(plan, sweep, block.k0..=block.k1, &edges, self.shared.handed);
        let mut targets = vec![Vec::new(); layers.len()];
        let mut block_targets = block.targets.iter().peekable();
        for ((layer, here), k) in layers.iter().zip(&mut targets).zip(block.k0..) {
            while let Some(&t) = block_targets.next_if(|&&t| self.shared.targets[t].0 as usize == k) {
                here.push((t, layer.index(self.shared.targets[t].1)));
            }
            // a top-down sweep's direct-move states, with their multiplicity in place of an index
            here.extend(layer.named(&sweep.counted(plan, k)).into_iter().map(|(s, times)| (times as usize, s)));
        }
        let count = layers.len();
        let older = if count >= 2 { layers[count - 2].clone() } else { edges[1].clone() };
        let old = layers.last().expect("a block has a layer").clone();
        *block.edges_out.lock().expect("not poisoned") = Some([older, old]);
        *block.sources.lock().expect("not poisoned") = (0..count).map(|_| None).collect();
        let states: usize = layers.iter().map(|l| l.len as usize).sum();
        *block.sets.lock().expect("not poisoned") = Some(Arc::new(BlockSets { edges, layers, targets, edge_lens }));
        self.record(start, TaskKind::Describe, b, 0);
        self.release_describe(s, b + 1);
        let groups = (states / SOURCE_STATES).clamp(1, count);
        block.sources_left.store(groups, Ordering::Release);
        for q in 0..groups {
            s.spawn(move |s| self.layer_sources(s, b, q, q * count / groups..(q + 1) * count / groups));
        }
    }

    /// S(b, q): where the states of the layers `layers` (the q-th of the block's groups) of block b
    /// read from. The last of a block's source tasks puts the description together and lets its
    /// passes go.
    fn layer_sources<'x>(&'x self, s: &rayon::Scope<'x>, b: usize, q: usize, layers: std::ops::Range<usize>) {
        let start = self.clock();
        let block = &self.blocks[b];
        let sets = block.sets.lock().expect("not poisoned").clone().expect("S(b, q) follows D(b)");
        for i in layers {
            let (plan, sweep, isa) = (self.shared.plan, self.shared.sweep, self.shared.isa);
            let mut sources = layer_sources(plan, sweep, block.k0, block.k0 + i, &sets.layers, &sets.edges, isa);
            sources.targets = sets.targets[i].clone();
            block.sources.lock().expect("not poisoned")[i] = Some(sources);
        }
        let last = block.sources_left.fetch_sub(1, Ordering::AcqRel) == 1;
        if last {
            let layers: Vec<Sources> = std::mem::take(&mut *block.sources.lock().expect("not poisoned"))
                .into_iter()
                .map(|l| l.expect("every S(b, q) ran"))
                .collect();
            *block.described.lock().expect("not poisoned") =
                Some(Arc::new(Described { layers, edge_lens: sets.edge_lens }));
            *block.sets.lock().expect("not poisoned") = None;
        }
        drop(sets);
        self.record(start, TaskKind::Sources, b, q);
        if last {
            self.release_passes(s, b);
        }
    }

    /// D(b) is done (on a stopping run): its passes and D(b+1) may go.
    fn described<'x>(&'x self, s: &rayon::Scope<'x>, b: usize) {
        self.release_passes(s, b);
        self.release_describe(s, b + 1);
    }

    /// The description of block b is complete: its passes may go.
    fn release_passes<'x>(&'x self, s: &rayon::Scope<'x>, b: usize) {
        for j in 0..self.blocks[b].passes {
            self.release_pass(s, b, j);
        }
    }

    fn cancelled(&self) -> bool {
        self.shared.segment_hooks.cancelled()
    }

    /// P(b, j): chunk j of every layer of block b.
    fn pass<'x>(&'x self, s: &rayon::Scope<'x>, b: usize, j: usize) {
        let start = self.clock();
        if !self.cancelled() {
            self.compute_pass(b, j);
        } // else the run is stopping: its results are discarded (see `end_block`)
        let block = &self.blocks[b];
        // the block's end first: the next block cannot end before it (see the type)
        if block.unfinished.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.end_block(b);
            self.release_describe(s, b + 3);
        }
        self.record(start, TaskKind::Pass, b, j);
        for next in neighbours(self.shared.kind, j) {
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
        let exact = matches!(self.shared.kind, LaneKind::Exact);
        let carry_in = match j {
            _ if !exact => None,
            0 => None,
            // the carries of P(b-1, j-1): block b-1 has parity (b + 1) & 1
            _ => self.carries[j - 1][(b + 1) & 1].lock().expect("not poisoned").take(),
        };
        let spare_carries = match exact {
            true => self.shared.spares.lock().expect("not poisoned").1.pop().unwrap_or_default(),
            false => Default::default(),
        };
        let input = PassInput { chunk, spare_carries };
        let moduli = match self.shared.kind {
            LaneKind::Exact => None,
            LaneKind::Residues { moduli, .. } => Some(&moduli[j * c..(j + 1) * c]),
        };
        let context = PassContext {
            layers: &described.layers,
            hooks: self.shared.segment_hooks,
            spares: &self.shared.spares,
            isa: self.shared.isa,
            moduli,
        };
        let result = context.pass(c, j, input, carry_in.as_ref());
        drop(described);
        if let Some(carries) = carry_in {
            self.shared.spares.lock().expect("not poisoned").1.push(carries);
        }
        *self.chunks[j].lock().expect("not poisoned") = Some(result.chunk);
        if exact {
            *self.carries[j][b & 1].lock().expect("not poisoned") = Some(result.carries);
        }
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
            let mut lanes: Vec<u64> = chunks.iter().flat_map(|chunk| &chunk[i * c..(i + 1) * c]).copied().collect();
            match self.shared.kind {
                LaneKind::Exact => (*sink)(t, &limbs_of(&lanes)),
                LaneKind::Residues { count, .. } => {
                    lanes.truncate(count); // the padding's lanes dropped
                    (*sink)(t, &lanes)
                }
            }
        }
        if self.shared.hooks.wants_progress() {
            let (plan, sweep, kind) = (self.shared.plan, self.shared.sweep, self.shared.kind);
            let work: u64 = (block.k0..=block.k1).map(|t| kind.work(plan, sweep, t)).sum();
            let done = self.shared.tally.done.fetch_add(work, Ordering::Relaxed) + work;
            self.shared.hooks.progress("exact", done, self.shared.tally.total);
        }
    }

    /// The state after the segment's last block (with no carries in a run of residues).
    pub(super) fn finish(self) -> State {
        let last = self.blocks.len() - 1;
        let passes = self.blocks[last].passes;
        let take = |m: &Mutex<Option<Chunk>>| m.lock().expect("not poisoned").take().expect("every pass ran");
        State {
            k0: self.blocks[last].k1 + 1,
            chunk_lanes: self.shared.c,
            edges: self.blocks[last].edges_out.lock().expect("not poisoned").take().expect("described"),
            chunks: self.chunks[..passes].iter().map(take).collect(),
            carries: match self.shared.kind {
                LaneKind::Exact => self.carries[..passes].iter().map(|pair| take(&pair[last & 1])).collect(),
                LaneKind::Residues { .. } => Vec::new(), // no carries
            },
        }
    }
}

/// The passes of block b-1 that P(b, j) follows, which are also the passes of block b + 1 that
/// P(b, j) lets go: j-1, j and j+1 for exact lanes (carries cross from chunk j - 1 to chunk j), j
/// alone for residues. Cost O(1).
fn neighbours(kind: LaneKind, j: usize) -> std::ops::RangeInclusive<usize> {
    match kind {
        LaneKind::Exact => j.saturating_sub(1)..=j + 1,
        LaneKind::Residues { .. } => j..=j,
    }
}
