//! The recurrence, written once, over any number system.
//!
//! For k >= 2, with L = 1 + G(k-1) and R = 1 + G(k-2):
//!
//! ```text
//! c(k, g) = [g == R] + [k >= 3][g == L] + c(k-1, (g xor R) - 1) + c(k-2, (g xor L) - 1)
//! ```
//!
//! where a term whose second argument is negative is 0 and c(0, g) = c(1, g) = 0.
//!
//! Layers: layer k holds c(k, g) for the g the [`Plan`] marks, packed densely in ascending g, each value
//! `width(k)` words wide. Layer k reads only layers k-1 and k-2, so three buffers roll: memory is
//! O(one layer), never O(n x layer).
//!
//! Invariants: every state a marked state reads is marked or counts zero (the plan leaves out the
//! states of count zero, docs/math.md "Zero states"), so a read of layer k-1 or k-2 at g >= 0 finds
//! its value or reads nothing there; a layer's range of states is split
//! into contiguous chunks computed by rayon threads, each writing only its own slice, so the result is
//! the same for every thread count.

use rayon::prelude::*;

use crate::error::Result;
use crate::hooks::Hooks;
use crate::plan::{LayerSet, Plan};
use crate::targets::Targets;

/// A number system the recurrence can run in: each value is a fixed number of `u64` words per layer.
pub(crate) trait Numbers: Sync {
    /// A short name for progress reports.
    const NAME: &'static str;

    /// Words per value in layer `k`; must not decrease with `k`.
    fn width(&self, k: usize) -> usize;

    /// Sets `out` (`width(k)` words) to `left + right + direct`, where `left` is a value of layer k-1,
    /// `right` one of layer k-2, each absent when the recurrence reads nothing there.
    fn combine(&self, k: usize, out: &mut [u64], left: Option<&[u64]>, right: Option<&[u64]>, direct: u64);
}

/// Words of output per rayon task at least: 2^14 words, each about one word addition (a limb with
/// its carry, or a residue modulo m), enough work to amortise the scheduling and the wait at the end
/// of each layer. Smaller layers run on one thread.
const MIN_TASK_WORDS: usize = 1 << 14;

/// The work of a run over `plan` in `numbers`: the sum over layers of states x words, the unit of
/// its progress reports. Cost O(n).
pub(crate) fn work<N: Numbers>(plan: &Plan, numbers: &N) -> u64 {
    (2..=plan.top()).map(|k| plan.layer_len(k) as u64 * numbers.width(k) as u64).sum()
}

/// Runs the recurrence over `plan` and returns the words of c(n, g) for every target, in order
/// (an empty vector for a target in layer 0 or 1, whose count is 0).
///
/// Cost: O(plan states x width) word operations, memory three layers of the widest size plus the
/// results.
///
/// # Errors
/// [`crate::Error::Interrupted`] when cancelled.
///
/// # Panics
/// If a target is not marked in `plan`.
pub(crate) fn run<N: Numbers>(plan: &Plan, numbers: &N, targets: &Targets, hooks: Hooks) -> Result<Vec<Vec<u64>>> {
    let mut found: Vec<Vec<u64>> = vec![Vec::new(); targets.len()];
    run_streaming(plan, numbers, targets, hooks, |t, words| found[t] = words.to_vec())?;
    Ok(found)
}

/// [`run`], streaming: hands each target's words to `sink(index, words)` as soon as
/// its layer is done, in order of layer (targets of one layer in the order given). Targets in layers
/// 0 and 1 (count 0) are handed an empty slice first.
///
/// Cost and errors as [`run`]; memory three layers, nothing per target.
pub(crate) fn run_streaming<N: Numbers>(
    plan: &Plan,
    numbers: &N,
    targets: &Targets,
    hooks: Hooks,
    sink: impl FnMut(usize, &[u64]) + Send,
) -> Result<()> {
    // The layer loop runs on a worker of the current pool, so that each layer's split is a cheap
    // fork within the pool rather than a job sent in from outside.
    rayon::scope(|_| run_layers(plan, numbers, targets, hooks, sink))
}

fn run_layers<N: Numbers>(
    plan: &Plan,
    numbers: &N,
    targets: &Targets,
    hooks: Hooks,
    mut sink: impl FnMut(usize, &[u64]),
) -> Result<()> {
    // the targets are in order of layer
    let mut next = (0..targets.len()).peekable();
    while let Some(t) = next.next_if(|&t| targets[t].0 < 2) {
        sink(t, &[]);
    }
    run_range(plan, numbers, Default::default(), 2..=plan.top(), hooks, |layer| {
        while let Some(t) = next.next_if(|&t| targets[t].0 as usize == layer.k) {
            sink(t, layer.value(targets[t].1).expect("every target is in its plan"));
        }
    })?;
    Ok(())
}

/// Runs the layers `range` of `plan`, starting from `before` (the two layers before the range's
/// start, older first; empty layers for a start of 2), calls `on_layer` with each layer as it is
/// done, and returns the last two layers (older first).
///
/// Cost: as [`run`] for the layers in the range; memory three layers.
///
/// # Errors
/// [`crate::Error::Interrupted`] when cancelled.
pub(crate) fn run_range<N: Numbers>(
    plan: &Plan,
    numbers: &N,
    before: [Layer; 2],
    range: std::ops::RangeInclusive<usize>,
    hooks: Hooks,
    mut on_layer: impl FnMut(&Layer),
) -> Result<[Layer; 2]> {
    // layers k-2, k-1 and k; buffers are reused as they roll
    let [older, old] = before;
    let mut live: [Layer; 3] = [older, old, Layer::default()];
    let threads = rayon::current_num_threads();
    let total = if hooks.wants_progress() { work(plan, numbers) } else { 0 };
    let mut done: u64 = (2..*range.start()).map(|k| plan.layer_len(k) as u64 * numbers.width(k) as u64).sum();
    for k in range {
        hooks.check()?;
        let [older, old, cur] = &mut live;
        cur.fill(k, &plan.layer(k), numbers.width(k));
        let right_edge = plan.edge_value(k - 2) as u64;
        let left_edge = plan.edge_value(k - 1) as u64;
        let (old, older) = (&*old, &*older);
        let width = cur.width;
        let task = |(out, gs): (&mut [u64], &[u64])| {
            for (o, &g) in out.chunks_exact_mut(width).zip(gs) {
                let left = (g ^ right_edge).checked_sub(1).filter(|_| k >= 3).and_then(|a| old.value(a));
                let right = (g ^ left_edge).checked_sub(1).filter(|_| k >= 4).and_then(|b| older.value(b));
                let direct = (g == right_edge) as u64 + (k >= 3 && g == left_edge) as u64;
                numbers.combine(k, o, left, right, direct);
            }
        };
        let states = cur.states.len();
        let grain = (states / (4 * threads)).max(MIN_TASK_WORDS / width).max(1);
        if grain >= states {
            task((&mut cur.data, &cur.states));
        } else {
            cur.data.par_chunks_mut(grain * width).zip(cur.states.par_chunks(grain)).for_each(task);
        }
        on_layer(cur);
        live.rotate_left(1);
        done += (states * width) as u64;
        hooks.progress(N::NAME, done, total);
    }
    let [older, old, _] = live;
    Ok([older, old])
}

/// One whole layer k of values: its states in ascending g, a slot map from g to position, and the
/// values packed, `width` words each.
#[derive(Clone, Debug, Default)]
pub(crate) struct Layer {
    /// The layer's index k.
    pub k: usize,
    states: Vec<u64>,
    base: u64,
    slot: Vec<u32>,
    data: Vec<u64>,
    width: usize,
}

impl Layer {
    /// Takes the states of layer `k`, reusing the buffers. Only members' slots are written: a read
    /// of another g ([`Layer::value`]) finds a slot whose state is not it.
    fn fill(&mut self, k: usize, set: &LayerSet, width: usize) {
        self.k = k;
        self.states.clear();
        self.states.extend(set.iter());
        self.base = set.base();
        self.slot.resize(set.window(), 0);
        for (i, &g) in self.states.iter().enumerate() {
            self.slot[(g - self.base) as usize] = i as u32;
        }
        self.width = width;
        self.data.resize(self.states.len() * width, 0); // every word is rewritten before it is read
    }

    /// The value of state `g`, or `None` if the layer does not hold it. Cost O(1).
    #[inline]
    pub(crate) fn value(&self, g: u64) -> Option<&[u64]> {
        let i = *self.slot.get(usize::try_from(g.checked_sub(self.base)?).ok()?)? as usize;
        (self.states.get(i) == Some(&g)).then(|| &self.data[i * self.width..(i + 1) * self.width])
    }
}
