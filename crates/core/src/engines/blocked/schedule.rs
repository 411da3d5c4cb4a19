//! The schedule of a run: its blocks as a graph of tasks, taken from one queue of ready tasks in an
//! order that keeps a pass's chunks in the level-2 cache from one block to the next.
//!
//! **The graph.** Block b's describe task D(b) (its non-zero sets, cheap) follows D(b-1) (it extends
//! the non-zero sets) and the end of block b - [`DESCRIBED_AHEAD`] (which bounds the descriptions
//! held). The source tasks S(b, q), where the states of the q-th group of the block's layers read
//! from (groups of at least [`SOURCE_STATES`] states; the bulk of a description), follow D(b), so
//! that the chain of D tasks stays short. Pass P(b, j) follows every S(b, q), pass j of block b-1
//! (its own chunk) and, for exact lanes, pass j-1 of block b-1 (the carries it adds); each pass
//! keeps its carries in its block until pass j+1 of the next block takes them. A block ends when its
//! last pass does, after the block before it (each of its passes follows one of the block before):
//! its targets reach the sink in order.
//!
//! **The order.** The tasks whose dependencies are done wait in one queue per segment, and each
//! worker takes the first in this order: the descriptions, by block (they let the passes go), then
//! the passes by (b / [`WALK_BLOCKS`], j, b). So a worker walks chunk j through a group of
//! [`WALK_BLOCKS`] blocks, one pass after the other, and the chunk's two edge layers (written by
//! its pass of the block before, read first by the next) are still in its cache; the next worker
//! walks chunk j + 1 a block behind. In the order of blocks instead, as a plain spawn of each ready
//! task runs them, every pass found its edge layers gone to L3 or memory since its pass of the block
//! before. Workers are rayon jobs that take tasks until the queue is empty; a finished task puts
//! the tasks it releases in the queue, takes the first for itself and starts a job for each other.
//!
//! When the hooks carry a [`Recorder`], every task records its kind, block, chunk and thread CPU
//! time (a block's end counts in the pass that ends it), and the segment declares its blocks' passes
//! so that the dependencies above can be drawn ([`crate::graph`]).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::choice::{Costs, TileRule, Timed};
use super::describe::{Handed, Sources, layer_sources, nonzero_sets};
use super::lanes::limbs_of;
use super::nonzero::NonZeroSet;
use super::pass::{Carries, Chunk, PassContext, PassInput, Spares};
use super::tiles::{Tiles, tiles};
use super::{LaneKind, State, Sweep, Tally};
pub(crate) use crate::graph::DESCRIBED_AHEAD;
use crate::graph::{Recorder, TaskKind};
use crate::hooks::Hooks;
use crate::kernels::Isa;
use crate::machine::thread_cpu_seconds;
use crate::plan::Plan;

/// The states a source task of a block takes at least (whole layers of it, one layer at least):
/// two rank lookups a state, 8192 at least a task, so that the two clock reads of a recorded task
/// stay small beside its work, while a block of wide layers is described by many tasks at once.
const SOURCE_STATES: usize = 4096;

/// The blocks a worker walks one chunk through before it takes the next chunk: half of
/// [`DESCRIBED_AHEAD`], so that the next group's descriptions are made while one is walked.
pub(crate) const WALK_BLOCKS: usize = DESCRIBED_AHEAD / 2;

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
    /// Which blocks run in tiles, and how large.
    pub(super) tiling: Tiling,
    pub(super) isa: Isa,
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

/// How a run tiles its blocks: its rule, the positions (chunks) a tile's buffer aims at
/// ([`super::tiles`]), the level-2 cache's bytes and what the run has measured ([`super::choice`]).
pub(super) struct Tiling {
    pub(super) rule: TileRule,
    pub(super) positions: usize,
    pub(super) l2: u64,
    pub(super) costs: Costs,
}

/// A task of the graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Job {
    Describe(usize),
    Sources(usize, usize),
    Pass(usize, usize),
}

impl Job {
    /// Where the task stands in the queue, the first taken first (the module's order).
    fn key(self) -> (u8, usize, usize, usize) {
        match self {
            Job::Describe(b) => (0, b, 0, 0),
            Job::Sources(b, q) => (0, b, 1, q),
            Job::Pass(b, j) => (1, b / WALK_BLOCKS, j, b),
        }
    }
}

/// The ready tasks, the first in the module's order on top.
type Queue = BinaryHeap<Reverse<((u8, usize, usize, usize), Job)>>;

/// A segment of a run: a few blocks (all of them, unless the run saves checkpoints) scheduled as the
/// graph of tasks the module describes.
pub(super) struct Segment<'a, 's> {
    shared: &'a Shared<'a, 's>,
    blocks: Vec<Block>,
    /// Per pass j: its chunk of the two newest layers finished.
    chunks: Vec<Mutex<Option<Chunk>>>,
    /// The carries out of the passes of the block before the segment (from its state).
    carries_before: Vec<Mutex<Option<Carries>>>,
    /// The non-zero states of the two layers before the segment.
    edges: Mutex<Option<[NonZeroSet; 2]>>,
    ready: Mutex<Queue>,
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
    /// The S(b, q) of the block (set by D(b)), those not yet finished, and what each found per layer.
    groups: AtomicUsize,
    sources_left: AtomicUsize,
    sources: Mutex<Vec<Option<Sources>>>,
    /// Set by the last S(b, q), dropped when the block ends.
    described: Mutex<Option<Arc<Described>>>,
    /// The non-zero states of the block's last two layers, for D(b+1) (or the segment's end).
    edges_out: Mutex<Option<[NonZeroSet; 2]>>,
    /// The unfinished tasks that D(b) and each P(b, j) wait for (P(b, j): at most three).
    waiting_describe: AtomicUsize,
    waiting: Vec<AtomicU8>,
    /// Per pass: its carries out, until pass j + 1 of the next block takes them (empty until the
    /// first pass leaves its carries, emptied when the next block ends).
    carries_out: Mutex<Vec<Option<Carries>>>,
    /// Passes not yet finished, and the chunk of the targets' lanes each left (empty in a block
    /// without targets).
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
    /// The block's layers: where each state reads from (the tiles' where it has them), and the targets.
    layers: Vec<Sources>,
    /// The block's tiles, where it runs in tiles.
    tiles: Option<Tiles>,
    /// Whether its passes are timed for the choice of tiles: its whole layers leave L2, and the run
    /// measures ([`super::choice`]).
    timed: bool,
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
                    .map(|j| AtomicU8::new(1 + neighbours(shared.kind, j).filter(|&i| i < before).count() as u8))
                    .collect();
                let ahead = (b >= 1) as usize + (b >= DESCRIBED_AHEAD) as usize;
                Block {
                    k0,
                    k1,
                    passes: passes[b],
                    targets,
                    sets: Mutex::new(None),
                    groups: AtomicUsize::new(1),
                    sources_left: AtomicUsize::new(0),
                    sources: Mutex::new(Vec::new()),
                    described: Mutex::new(None),
                    edges_out: Mutex::new(None),
                    waiting_describe: AtomicUsize::new(ahead),
                    waiting,
                    carries_out: Mutex::new(Vec::new()),
                    unfinished: AtomicUsize::new(passes[b]),
                    target_lanes: Mutex::new(Vec::new()),
                }
            })
            .collect();
        let State { edges, chunks, carries, .. } = state;
        let mut chunks: Vec<Mutex<Option<Chunk>>> = chunks.into_iter().map(|c| Mutex::new(Some(c))).collect();
        chunks.resize_with(most, || Mutex::new(None));
        let carries_before = carries.into_iter().map(|c| Mutex::new(Some(c))).collect();
        let recorder = shared.hooks.recorder();
        let first_block = recorder.map_or(0, |r| r.blocks(passes.iter().copied(), state.k0 == 2));
        Segment {
            shared,
            blocks,
            chunks,
            carries_before,
            edges: Mutex::new(Some(edges)),
            ready: Mutex::new(BinaryHeap::new()),
            recorder,
            first_block,
        }
    }

    /// Runs the segment's graph on the current rayon pool, returning when every task has run.
    pub(super) fn run(&self) {
        rayon::scope(|s| self.work(s, Some(Job::Describe(0))));
    }

    /// A worker: runs `first`, then the first ready task while there is one. Each finished task's
    /// released tasks go to the queue; the worker takes the first of the queue and starts a worker
    /// for each other task it released.
    fn work<'x>(&'x self, s: &rayon::Scope<'x>, first: Option<Job>) {
        let mut job = first.or_else(|| self.queue().pop().map(|Reverse((_, job))| job));
        while let Some(now) = job {
            let released = self.run_job(now);
            let more = released.len().saturating_sub(1);
            let mut queue = self.queue();
            queue.extend(released.into_iter().map(|job| Reverse((job.key(), job))));
            job = queue.pop().map(|Reverse((_, job))| job);
            drop(queue);
            for _ in 0..more {
                s.spawn(move |s| self.work(s, None));
            }
        }
    }

    fn queue(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.ready.lock().expect("not poisoned")
    }

    /// Runs one task, returning the tasks it released.
    fn run_job(&self, job: Job) -> Vec<Job> {
        match job {
            Job::Describe(b) => self.describe(b),
            Job::Sources(b, q) => self.layer_sources(b, q),
            Job::Pass(b, j) => self.pass(b, j),
        }
    }

    /// One dependency of D(b) is done: D(b), if it was the last.
    fn release_describe(&self, b: usize) -> Option<Job> {
        let last = b < self.blocks.len() && self.blocks[b].waiting_describe.fetch_sub(1, Ordering::AcqRel) == 1;
        last.then_some(Job::Describe(b))
    }

    /// One dependency of P(b, j) is done: P(b, j), if it was the last.
    fn release_pass(&self, b: usize, j: usize) -> Option<Job> {
        let last = b < self.blocks.len()
            && j < self.blocks[b].passes
            && self.blocks[b].waiting[j].fetch_sub(1, Ordering::AcqRel) == 1;
        last.then_some(Job::Pass(b, j))
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
    fn describe(&self, b: usize) -> Vec<Job> {
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
                Some(Arc::new(Described { layers: Vec::new(), tiles: None, timed: false, edge_lens }));
            return self.release_passes(b).into_iter().chain(self.release_describe(b + 1)).collect();
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
        let groups = (states / SOURCE_STATES).clamp(1, count);
        block.groups.store(groups, Ordering::Release);
        block.sources_left.store(groups, Ordering::Release);
        let mut released: Vec<Job> = self.release_describe(b + 1).into_iter().collect();
        released.extend((0..groups).map(|q| Job::Sources(b, q)));
        released
    }

    /// S(b, q): where the states of the q-th of the block's groups of layers read from. The last of
    /// a block's source tasks puts the description together and lets its passes go.
    fn layer_sources(&self, b: usize, q: usize) -> Vec<Job> {
        let start = self.clock();
        let block = &self.blocks[b];
        let sets = block.sets.lock().expect("not poisoned").clone().expect("S(b, q) follows D(b)");
        let (count, groups) = (sets.layers.len(), block.groups.load(Ordering::Acquire));
        for i in q * count / groups..(q + 1) * count / groups {
            let (plan, sweep, isa) = (self.shared.plan, self.shared.sweep, self.shared.isa);
            let mut sources = layer_sources(plan, sweep, block.k0, block.k0 + i, &sets.layers, &sets.edges, isa);
            sources.targets = sets.targets[i].clone();
            block.sources.lock().expect("not poisoned")[i] = Some(sources);
        }
        let last = block.sources_left.fetch_sub(1, Ordering::AcqRel) == 1;
        if last {
            let mut layers: Vec<Sources> = std::mem::take(&mut *block.sources.lock().expect("not poisoned"))
                .into_iter()
                .map(|l| l.expect("every S(b, q) ran"))
                .collect();
            let tiling = &self.shared.tiling;
            let widest = layers.iter().map(Sources::len).chain(sets.edge_lens).max().unwrap_or(0) as u64;
            let live = 3 * widest * self.shared.c as u64 * 8;
            // the passes of blocks that could be tiled are timed, either way, while the run measures
            let timed = tiling.rule == TileRule::Measured && live > tiling.l2;
            let tiles = tiling.costs.tiles(tiling.rule, live, tiling.l2, block.passes, self.shared.c).then(|| {
                let making = tiling.costs.timing(Timed::Making).then(thread_cpu_seconds);
                let tiles = tiles(&layers, sets.edge_lens, tiling.positions);
                if let Some(start) = making {
                    tiling.costs.record(Timed::Making, thread_cpu_seconds() - start, tiles.states);
                }
                for layer in &mut layers {
                    // the tiles hold where each state reads from
                    (layer.left, layer.right) = (Vec::new(), Vec::new());
                }
                tiles
            });
            *block.described.lock().expect("not poisoned") =
                Some(Arc::new(Described { layers, tiles, timed, edge_lens: sets.edge_lens }));
            *block.sets.lock().expect("not poisoned") = None;
        }
        drop(sets);
        self.record(start, TaskKind::Sources, b, q);
        if last { self.release_passes(b) } else { Vec::new() }
    }

    /// The description of block b is complete: the passes it lets go.
    fn release_passes(&self, b: usize) -> Vec<Job> {
        (0..self.blocks[b].passes).filter_map(|j| self.release_pass(b, j)).collect()
    }

    fn cancelled(&self) -> bool {
        self.shared.segment_hooks.cancelled()
    }

    /// P(b, j): chunk j of every layer of block b.
    fn pass(&self, b: usize, j: usize) -> Vec<Job> {
        let start = self.clock();
        if !self.cancelled() {
            self.compute_pass(b, j);
        } // else the run is stopping: its results are discarded (see `end_block`)
        let block = &self.blocks[b];
        let mut released = Vec::new();
        // the block's end first: the next block cannot end before it (see the module)
        if block.unfinished.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.end_block(b);
            released.extend(self.release_describe(b + DESCRIBED_AHEAD));
        }
        self.record(start, TaskKind::Pass, b, j);
        released.extend(followers(self.shared.kind, j).filter_map(|next| self.release_pass(b + 1, next)));
        released
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
        // the carries of P(b-1, j-1), or of the state's pass j-1 for the segment's first block
        let carry_in = match j.checked_sub(1) {
            Some(below) if exact => match b.checked_sub(1) {
                Some(before) => {
                    self.blocks[before].carries_out.lock().expect("not poisoned").get_mut(below).and_then(Option::take)
                }
                None => self.carries_before.get(below).and_then(|slot| slot.lock().expect("not poisoned").take()),
            },
            _ => None,
        };
        let spare_carries = match exact {
            true => self.shared.spares.lock().expect("not poisoned").carries.pop().unwrap_or_default(),
            false => Default::default(),
        };
        let input = PassInput { chunk, spare_carries };
        let moduli = match self.shared.kind {
            LaneKind::Exact => None,
            LaneKind::Residues { moduli, .. } => Some(&moduli[j * c..(j + 1) * c]),
        };
        let context = PassContext {
            layers: &described.layers,
            tiles: described.tiles.as_ref(),
            hooks: self.shared.segment_hooks,
            spares: &self.shared.spares,
            isa: self.shared.isa,
            moduli,
        };
        let timed = match &described.tiles {
            Some(_) => Timed::Tiled,
            None => Timed::Rolling,
        };
        let costs = &self.shared.tiling.costs;
        let timed = (described.timed && costs.timing(timed)).then(|| (timed, thread_cpu_seconds()));
        let result = context.pass(c, j, input, carry_in.as_ref());
        if let Some((what, start)) = timed {
            let states: usize = described
                .tiles
                .as_ref()
                .map_or_else(|| described.layers.iter().map(Sources::len).sum(), |t| t.lens.iter().sum());
            costs.record(what, thread_cpu_seconds() - start, (states * c) as u64);
        }
        drop(described);
        let mut spares = self.shared.spares.lock().expect("not poisoned");
        spares.carries.extend(carry_in);
        // the carries out go to pass j + 1 of the next block, where there is one (the top chunk's are
        // zero), or to the segment's state after its last block
        let next_passes = self.blocks.get(b + 1).map(|next| next.passes);
        match exact && next_passes.is_none_or(|passes| j + 1 < passes) {
            true => {
                let mut carries_out = block.carries_out.lock().expect("not poisoned");
                if carries_out.is_empty() {
                    carries_out.resize_with(block.passes, || None);
                }
                carries_out[j] = Some(result.carries);
            }
            false => spares.carries.push(result.carries),
        }
        drop(spares);
        *self.chunks[j].lock().expect("not poisoned") = Some(result.chunk);
        if !result.targets.is_empty() {
            let mut target_lanes = block.target_lanes.lock().expect("not poisoned");
            if target_lanes.is_empty() {
                target_lanes.resize(block.passes, Vec::new());
            }
            target_lanes[j] = result.targets;
        }
    }

    /// Every pass of block b is done: its targets go to the sink, in order.
    fn end_block(&self, b: usize) {
        let block = &self.blocks[b];
        let c = self.shared.c;
        let described = block.described.lock().expect("not poisoned").take().expect("described once");
        if let Some(before) = b.checked_sub(1) {
            // every pass of this block took its carries from the block before
            *self.blocks[before].carries_out.lock().expect("not poisoned") = Vec::new();
        }
        let chunks = std::mem::take(&mut *block.target_lanes.lock().expect("not poisoned"));
        let targets = described.layers.iter().flat_map(|l| &l.targets);
        let wanted = targets.clone().count() * c;
        let short = wanted > 0 && (chunks.len() != block.passes || chunks.iter().any(|chunk| chunk.len() != wanted));
        if self.cancelled() || short {
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
        let mut carries_out = self.blocks[last].carries_out.lock().expect("not poisoned");
        let take_carries = |m: &mut Option<Carries>| m.take().expect("every pass ran");
        State {
            k0: self.blocks[last].k1 + 1,
            chunk_lanes: self.shared.c,
            edges: self.blocks[last].edges_out.lock().expect("not poisoned").take().expect("described"),
            chunks: self.chunks[..passes].iter().map(take).collect(),
            carries: match self.shared.kind {
                LaneKind::Exact => carries_out[..passes].iter_mut().map(take_carries).collect(),
                LaneKind::Residues { .. } => Vec::new(), // no carries
            },
        }
    }
}

/// The passes of block b-1 that P(b, j) follows: j-1 (its carries) and j (its chunk) for exact
/// lanes, j alone for residues. Cost O(1).
fn neighbours(kind: LaneKind, j: usize) -> std::ops::RangeInclusive<usize> {
    match kind {
        LaneKind::Exact => j.saturating_sub(1)..=j,
        LaneKind::Residues { .. } => j..=j,
    }
}

/// The passes of block b + 1 that P(b, j) lets go: j (its chunk) and j + 1 (its carries) for exact
/// lanes, j alone for residues. Cost O(1).
fn followers(kind: LaneKind, j: usize) -> std::ops::RangeInclusive<usize> {
    match kind {
        LaneKind::Exact => j..=j + 1,
        LaneKind::Residues { .. } => j..=j,
    }
}
