//! The task graph of a run of the blocked exact engine, as recorded, and what it says about
//! parallelism: its work, its span ([`span`]) and the time a greedy scheduler would take on P
//! workers ([`greedy`]).
//!
//! A run records its graph when asked (`fibtree bench` asks): every task, a block's description or
//! one pass over a lane chunk of a block, with the thread CPU time it took and the tasks it waited
//! for; and the time the run spent on one thread outside the graph (setting up, converting the
//! values to big integers). Thread CPU time, not wall time: on more threads than cores a task's wall
//! time counts the time its thread waited for a core.

pub(crate) mod greedy;
pub(crate) mod span;

use std::sync::Mutex;

/// What a task does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum TaskKind {
    /// D(b): a block's non-zero states, layer after layer.
    Describe,
    /// S(b, q): where the states of the q-th group of layers of block b read from.
    Sources,
    /// P(b, j): lane chunk j of every layer of block b.
    Pass,
}

/// One task of a recorded graph.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Task {
    /// What it does.
    pub(crate) kind: TaskKind,
    /// Its block, counted from the run's first.
    pub(crate) block: usize,
    /// Its lane chunk for a pass, its group of layers for a source task, 0 for a description.
    pub(crate) chunk: usize,
    /// Its thread CPU time in seconds.
    pub(crate) seconds: f64,
    /// The ids (indices in the graph's tasks) of the tasks it waits for, all below its own.
    pub(crate) deps: Vec<usize>,
}

/// A recorded graph of tasks, in an order where every task comes after those it waits for, and the
/// seconds of the run's work outside it, done on one thread.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct TaskGraph {
    /// The tasks, every one after those it waits for.
    tasks: Vec<Task>,
    /// The seconds of the run's work outside the graph, on one thread.
    serial_seconds: f64,
}

/// How far the blocked engine's descriptions run ahead of its passes, in blocks: D(b) waits for the
/// end of block b - `DESCRIBED_AHEAD` (the schedule's rule, which [`Recorder::take`] draws). Eight:
/// two groups of the blocks a worker walks one chunk through, so that one group is described while
/// the other is walked; at layers of 8192 states a description is about 1.4 MiB.
pub(crate) const DESCRIBED_AHEAD: usize = 8;

/// The worker counts a prediction is made for: 1, 2, 4, ..., 128.
pub(crate) const PREDICTED_THREADS: [usize; 8] = [1, 2, 4, 8, 16, 32, 64, 128];

impl TaskGraph {
    /// The graph of `tasks` and the `serial_seconds` outside it. A dependency that is not below its
    /// task's id is dropped (it could not have been waited for in that order), as is a negative or
    /// non-finite time (taken as 0). Cost O(tasks + dependencies).
    pub(crate) fn new(mut tasks: Vec<Task>, serial_seconds: f64) -> TaskGraph {
        for (id, task) in tasks.iter_mut().enumerate() {
            task.deps.retain(|&d| d < id);
            task.seconds = clean(task.seconds);
        }
        TaskGraph { tasks, serial_seconds: clean(serial_seconds) }
    }

    /// The sum of the tasks' seconds. Cost O(tasks).
    pub(crate) fn work(&self) -> f64 {
        self.tasks.iter().map(|t| t.seconds).sum()
    }

    /// The seconds of the longest chain of tasks ([`span::span`]). Cost O(tasks + dependencies).
    pub(crate) fn span(&self) -> f64 {
        span::span(&self.tasks)
    }

    /// The figures of the graph: work, span, parallelism, the serial part and the predicted time on
    /// each of [`PREDICTED_THREADS`] workers. Cost: 8 schedules, O((tasks + dependencies) log tasks).
    pub(crate) fn summary(&self) -> Summary {
        let predicted = PREDICTED_THREADS.iter().map(|&p| (p, self.predicted_seconds(p))).collect();
        let (work, span) = (self.work(), self.span());
        Summary {
            tasks: self.tasks.len(),
            work,
            span,
            parallelism: ratio(work, span),
            serial: self.serial_seconds,
            predicted,
        }
    }

    /// The seconds a greedy list scheduler ([`greedy::makespan`]) takes on `workers` workers
    /// (at least 1), plus the serial part. Cost O((tasks + dependencies) log tasks).
    pub(crate) fn predicted_seconds(&self, workers: usize) -> f64 {
        greedy::makespan(&self.tasks, workers) + self.serial_seconds
    }
}

/// What a recorded task graph says about parallelism, in seconds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// The graph's tasks.
    pub tasks: usize,
    /// The sum of the tasks' times.
    pub work: f64,
    /// The longest chain.
    pub span: f64,
    /// Work / span.
    pub parallelism: f64,
    /// The time outside the graph, on one thread.
    pub serial: f64,
    /// `(P, seconds)`: the greedy scheduler's time on P workers plus the serial part, for each of
    /// [`Summary::PREDICTED_THREADS`].
    pub predicted: Vec<(usize, f64)>,
}

impl Summary {
    /// The worker counts a summary predicts the time of: 1, 2, 4, ..., 128.
    pub const PREDICTED_THREADS: [usize; 8] = PREDICTED_THREADS;

    /// The predicted seconds on `workers` workers, if predicted.
    pub fn predicted_seconds(&self, workers: usize) -> Option<f64> {
        self.predicted.iter().find(|&&(p, _)| p == workers).map(|&(_, s)| s)
    }

    /// The predicted speedup on `workers` workers: predicted seconds on 1 / on `workers`.
    pub fn predicted_speedup(&self, workers: usize) -> Option<f64> {
        let (one, p) = (self.predicted_seconds(1)?, self.predicted_seconds(workers)?);
        (p > 0.0).then(|| one / p)
    }
}

/// Work / span, 1 for an empty graph.
fn ratio(work: f64, span: f64) -> f64 {
    if span > 0.0 { work / span } else { 1.0 }
}

/// A time as a finite non-negative number.
fn clean(seconds: f64) -> f64 {
    if seconds.is_finite() && seconds > 0.0 { seconds } else { 0.0 }
}

/// A task as it is recorded, before the graph's ids are known.
#[derive(Clone, Copy, Debug)]
struct Raw {
    kind: TaskKind,
    block: usize,
    chunk: usize,
    seconds: f64,
}

/// What a recording run fills in: the tasks as they finish, the passes of each block, and the
/// serial time. Shared by the run's threads.
#[derive(Debug, Default)]
pub(crate) struct Recorder {
    inner: Mutex<Recorded>,
}

#[derive(Debug, Default)]
struct Recorded {
    raw: Vec<Raw>,
    /// Per block of the run: its passes, and the first block of its sweep (the blocks of a sweep
    /// follow one another; two sweeps of one run do not wait for each other).
    passes: Vec<usize>,
    chains: Vec<usize>,
    serial_seconds: f64,
}

impl Recorder {
    /// An empty recorder.
    pub(crate) fn new() -> Recorder {
        Recorder::default()
    }

    /// Records a task. Cost O(1) amortised, one lock.
    pub(crate) fn task(&self, kind: TaskKind, block: usize, chunk: usize, seconds: f64) {
        self.lock().raw.push(Raw { kind, block, chunk, seconds });
    }

    /// Declares the next blocks of a sweep and their passes, after the blocks it declared before
    /// or, where `fresh`, as a new sweep; returns the first one's number. Cost O(blocks).
    pub(crate) fn blocks(&self, passes: impl IntoIterator<Item = usize>, fresh: bool) -> usize {
        let mut inner = self.lock();
        let first = inner.passes.len();
        inner.passes.extend(passes);
        let chain = match (fresh, inner.chains.last()) {
            (false, Some(&chain)) => chain,
            _ => first,
        };
        let declared = inner.passes.len();
        inner.chains.resize(declared, chain);
        first
    }

    /// Adds to the time spent outside the graph.
    pub(crate) fn serial(&self, seconds: f64) {
        self.lock().serial_seconds += clean(seconds);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Recorded> {
        self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The graph recorded so far, emptying the recorder. D(b) waits for D(b-1) and every pass of
    /// block b - [`DESCRIBED_AHEAD`]; S(b, q) for D(b); P(b, j) for every S(b, q) and passes j-1 and
    /// j of block b-1 (the schedule of the blocked engine; a run of residues waits for pass j alone,
    /// which the graph takes as both). A task declared but not recorded (a stopped run) is left
    /// out, and so are the dependencies on it.
    ///
    /// Cost O(tasks log tasks + dependencies); memory the graph.
    pub(crate) fn take(&self) -> TaskGraph {
        let Recorded { mut raw, passes, chains, serial_seconds } = std::mem::take(&mut *self.lock());
        // the block before b in its sweep, if any
        let before = |b: usize, back: usize| b.checked_sub(back).filter(|&p| chains.get(b).is_none_or(|&c| p >= c));
        raw.sort_by_key(|r| (r.block, r.kind, r.chunk));
        let key = |r: &Raw| (r.block, r.kind, r.chunk);
        let id = |kind: TaskKind, block: usize, chunk: usize| raw.binary_search_by_key(&(block, kind, chunk), key).ok();
        let tasks = raw
            .iter()
            .map(|r| {
                let b = r.block;
                let deps: Vec<usize> = match r.kind {
                    TaskKind::Describe => {
                        let previous = before(b, 1).and_then(|p| id(TaskKind::Describe, p, 0));
                        let ended = before(b, DESCRIBED_AHEAD).into_iter().flat_map(|e| {
                            (0..passes.get(e).copied().unwrap_or(0)).filter_map(move |j| id(TaskKind::Pass, e, j))
                        });
                        previous.into_iter().chain(ended).collect()
                    }
                    TaskKind::Sources => id(TaskKind::Describe, b, 0).into_iter().collect(),
                    TaskKind::Pass => {
                        // every source task of the block (or its description, where none ran)
                        let first = raw.partition_point(|q| key(q) < (b, TaskKind::Sources, 0));
                        let last = raw.partition_point(|q| key(q) < (b, TaskKind::Pass, 0));
                        let described: Vec<usize> = if first < last {
                            (first..last).collect()
                        } else {
                            id(TaskKind::Describe, b, 0).into_iter().collect()
                        };
                        let above = before(b, 1).into_iter().flat_map(|p| {
                            (r.chunk.saturating_sub(1)..=r.chunk).filter_map(move |j| id(TaskKind::Pass, p, j))
                        });
                        described.into_iter().chain(above).collect()
                    }
                };
                Task { kind: r.kind, block: r.block, chunk: r.chunk, seconds: r.seconds, deps }
            })
            .collect();
        TaskGraph::new(tasks, serial_seconds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_graph_by_hand() {
        // a describe task, then two passes that follow it: work 4, span 3
        let task = |kind, chunk, seconds, deps: Vec<usize>| Task { kind, block: 0, chunk, seconds, deps };
        let graph = TaskGraph::new(
            vec![
                task(TaskKind::Describe, 0, 1.0, vec![]),
                task(TaskKind::Pass, 0, 2.0, vec![0]),
                task(TaskKind::Pass, 1, 1.0, vec![0]),
            ],
            0.5,
        );
        let summary = graph.summary();
        assert_eq!((graph.work(), graph.span(), summary.parallelism), (4.0, 3.0, 4.0 / 3.0));
        assert_eq!(graph.predicted_seconds(1), 4.5); // the work and the serial part
        assert_eq!(graph.predicted_seconds(2), 3.5);
        assert_eq!(summary.predicted_speedup(2), Some(4.5 / 3.5));
    }

    #[test]
    fn a_recording_becomes_the_engines_graph() {
        let r = Recorder::new();
        assert_eq!(r.blocks([1, 2], true), 0);
        assert_eq!(r.blocks([2, 3], false), 2); // the same sweep, in a second segment
        // recorded out of order, as threads finish
        for b in (0..4).rev() {
            for j in 0..[1, 2, 2, 3][b] {
                r.task(TaskKind::Pass, b, j, 1.0);
            }
            r.task(TaskKind::Describe, b, 0, 0.5);
        }
        // block 3's positions in two source tasks
        r.task(TaskKind::Sources, 3, 1, 0.125);
        r.task(TaskKind::Sources, 3, 0, 0.125);
        r.serial(0.25);
        let g = r.take();
        let key = |t: &Task| (t.kind, t.block, t.chunk);
        let find = |kind, b, j| g.tasks.iter().position(|t| key(t) == (kind, b, j)).unwrap();
        let deps = |kind, b, j| g.tasks[find(kind, b, j)].deps.clone();
        use TaskKind::{Describe as D, Pass as P, Sources as S};
        assert_eq!(deps(D, 0, 0), Vec::<usize>::new());
        assert_eq!(deps(P, 0, 0), [find(D, 0, 0)]);
        assert_eq!(deps(P, 1, 1), [find(D, 1, 0), find(P, 0, 0)]);
        assert_eq!(deps(P, 3, 2), [find(S, 3, 0), find(S, 3, 1), find(P, 2, 1)]);
        assert_eq!(deps(S, 3, 1), [find(D, 3, 0)]);
        assert_eq!(deps(D, 3, 0), [find(D, 2, 0)]); // block 3 - DESCRIBED_AHEAD is none
        assert_eq!(deps(P, 2, 1), [find(D, 2, 0), find(P, 1, 0), find(P, 1, 1)]); // not pass 2 of block 1
        assert_eq!(g.tasks.len(), 4 + 2 + 8);
        assert_eq!(g.work(), 4.0 * 0.5 + 0.25 + 8.0);
        assert_eq!(g.serial_seconds, 0.25);
        // every task after those it waits for
        assert!(g.tasks.iter().enumerate().all(|(i, t)| t.deps.iter().all(|&d| d < i)));
        // the recorder starts over
        assert_eq!(r.take(), TaskGraph::default());
        // a description waits for the end of the block DESCRIBED_AHEAD before it
        assert_eq!(r.blocks([2; DESCRIBED_AHEAD + 1], true), 0);
        for b in 0..=DESCRIBED_AHEAD {
            r.task(TaskKind::Describe, b, 0, 0.5);
            (0..2).for_each(|j| r.task(TaskKind::Pass, b, j, 1.0));
        }
        let g = r.take();
        let find = |kind, b, j| g.tasks.iter().position(|t| key(t) == (kind, b, j)).unwrap();
        let ahead = g.tasks[find(D, DESCRIBED_AHEAD, 0)].deps.clone();
        assert_eq!(ahead, [find(D, DESCRIBED_AHEAD - 1, 0), find(P, 0, 0), find(P, 0, 1)]);
    }

    #[test]
    fn two_sweeps_do_not_wait_for_each_other() {
        let r = Recorder::new();
        assert_eq!(r.blocks([1, 1], true), 0);
        assert_eq!(r.blocks([1, 1], true), 2);
        for b in 0..4 {
            r.task(TaskKind::Describe, b, 0, 0.5);
            r.task(TaskKind::Pass, b, 0, 1.0);
        }
        let g = r.take();
        let find = |kind, b| g.tasks.iter().position(|t| (t.kind, t.block) == (kind, b)).unwrap();
        assert_eq!(g.tasks[find(TaskKind::Describe, 2)].deps, Vec::<usize>::new());
        assert_eq!(g.tasks[find(TaskKind::Pass, 2)].deps, [find(TaskKind::Describe, 2)]);
        assert_eq!(g.tasks[find(TaskKind::Pass, 3)].deps, [find(TaskKind::Describe, 3), find(TaskKind::Pass, 2)]);
        assert_eq!(g.span(), 2.5, "two chains side by side: D(0), P(0) and P(1), not four passes in a row");
    }

    #[test]
    fn bad_dependencies_and_times_are_dropped() {
        let task = |seconds, deps: Vec<usize>| Task { kind: TaskKind::Pass, block: 0, chunk: 0, seconds, deps };
        let g = TaskGraph::new(vec![task(f64::NAN, vec![0, 1]), task(-1.0, vec![0, 5]), task(2.0, vec![1])], -3.0);
        assert_eq!(g.tasks[0].deps, Vec::<usize>::new());
        assert_eq!(g.tasks[1].deps, [0]);
        assert_eq!((g.work(), g.serial_seconds, g.span()), (2.0, 0.0, 2.0));
        assert_eq!(TaskGraph::default().summary().parallelism, 1.0);
    }
}
