//! A greedy list scheduler run on a recorded task graph: P identical workers; whenever one is free
//! it takes the ready task released first (the one whose last dependency ended earliest, ties by id),
//! roughly as rayon's workers pick up spawned tasks. By Graham's bound its time is at most
//! work / P + span.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::Task;

/// A time in a heap: seconds, ordered totally.
#[derive(Clone, Copy)]
struct At(f64);

impl PartialEq for At {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for At {}

impl PartialOrd for At {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for At {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// The time greedy list scheduling of `tasks` (each after the tasks it waits for, which have lower
/// indices) takes on `workers` identical workers (0 is taken as 1), by event simulation.
///
/// Cost O((tasks + dependencies) log tasks) time, O(tasks + dependencies) memory.
pub(crate) fn makespan(tasks: &[Task], workers: usize) -> f64 {
    let workers = workers.max(1);
    let mut waiting: Vec<usize> = Vec::with_capacity(tasks.len());
    let mut followers: Vec<Vec<usize>> = vec![Vec::new(); tasks.len()];
    for (i, task) in tasks.iter().enumerate() {
        let deps: Vec<usize> = {
            let mut d: Vec<usize> = task.deps.iter().copied().filter(|&d| d < i).collect();
            d.sort_unstable();
            d.dedup();
            d
        };
        waiting.push(deps.len());
        for d in deps {
            followers[d].push(i);
        }
    }
    // ready tasks by (release time, id); running tasks by (finish time, id)
    let mut ready: BinaryHeap<Reverse<(At, usize)>> =
        (0..tasks.len()).filter(|&i| waiting[i] == 0).map(|i| Reverse((At(0.0), i))).collect();
    let mut running: BinaryHeap<Reverse<(At, usize)>> = BinaryHeap::new();
    let (mut now, mut end) = (0.0f64, 0.0f64);
    loop {
        while running.len() < workers {
            let Some(Reverse((_, i))) = ready.pop() else { break };
            running.push(Reverse((At(now + tasks[i].seconds), i)));
        }
        let Some(Reverse((At(finish), i))) = running.pop() else { break };
        now = finish;
        end = end.max(finish);
        for &f in &followers[i] {
            waiting[f] -= 1;
            if waiting[f] == 0 {
                ready.push(Reverse((At(now), f)));
            }
        }
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::TaskKind;
    use crate::graph::span::span;

    fn task(seconds: f64, deps: &[usize]) -> Task {
        Task { kind: TaskKind::Pass, block: 0, chunk: 0, seconds, deps: deps.to_vec() }
    }

    #[test]
    fn independent_tasks_fill_the_workers_in_order() {
        let tasks = [task(3.0, &[]), task(2.0, &[]), task(2.0, &[]), task(1.0, &[])];
        assert_eq!(makespan(&tasks, 1), 8.0);
        // worker 1: 3; worker 2: 2, then 2 at t=2 -> 4; the 1 at t=3 -> 4
        assert_eq!(makespan(&tasks, 2), 4.0);
        assert_eq!(makespan(&tasks, 4), 3.0);
        assert_eq!(makespan(&tasks, 100), 3.0);
        assert_eq!(makespan(&tasks, 0), 8.0);
        assert_eq!(makespan(&[], 4), 0.0);
    }

    #[test]
    fn dependencies_delay_and_greed_can_lose() {
        // a chain 0 -> 1 -> 2 of 1 s each beside three free 2 s tasks, on 2 workers. Greedy by id at
        // t=0 takes 0 and 3; at 1: 1 (released at 1) waits behind 4 (released at 0): 4 runs 1..3,
        // then at 2 task 3 ends: 1 runs 2..3, 5 runs 3..5, 2 runs 3..4: 5 s, where 4 s were possible.
        let tasks = [task(1.0, &[]), task(1.0, &[0]), task(1.0, &[1]), task(2.0, &[]), task(2.0, &[]), task(2.0, &[])];
        assert_eq!(makespan(&tasks, 2), 5.0);
        assert_eq!(makespan(&tasks, 1), 9.0);
        assert_eq!(makespan(&tasks, 4), 3.0);
        // a diamond on two workers: 1 + max(5, 2) + 1
        let diamond = [task(1.0, &[]), task(5.0, &[0]), task(2.0, &[0]), task(1.0, &[1, 2])];
        assert_eq!(makespan(&diamond, 2), 7.0);
        assert_eq!(makespan(&diamond, 1), 9.0);
    }

    #[test]
    fn between_the_bounds_on_a_layered_graph() {
        // blocks of chunks: (b, j) waits for (b-1, j-1..=j+1), more than the engine's (b-1, j-1..=j)
        let (blocks, chunks) = (12usize, 9usize);
        let mut tasks = Vec::new();
        for b in 0..blocks {
            for j in 0..chunks {
                let deps: Vec<usize> = if b == 0 {
                    vec![]
                } else {
                    (j.saturating_sub(1)..=(j + 1).min(chunks - 1)).map(|i| (b - 1) * chunks + i).collect()
                };
                tasks.push(task(1.0 + ((b * 7 + j * 3) % 5) as f64, &deps));
            }
        }
        let work: f64 = tasks.iter().map(|t| t.seconds).sum();
        let span = span(&tasks);
        let mut last = f64::INFINITY;
        for p in [1, 2, 3, 4, 8, 16, 64] {
            let t = makespan(&tasks, p);
            assert!(t >= work / p as f64 - 1e-9 && t >= span - 1e-9, "P={p}: {t}");
            assert!(t <= work / p as f64 + span + 1e-9, "Graham's bound at P={p}: {t}");
            assert!(t <= last + 1e-9, "more workers never hurt here: {t} after {last}");
            last = t;
        }
        assert_eq!(makespan(&tasks, 1), work);
        assert_eq!(makespan(&tasks, 64), span, "as many workers as chunks: the span");
    }
}
