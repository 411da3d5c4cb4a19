//! The span of a task graph: the seconds of its longest chain of dependent tasks, the time no number
//! of workers can beat.

use super::Task;

/// The longest weighted chain of `tasks` (each after the tasks it waits for, which have lower
/// indices): the largest finish time when every task starts as soon as the tasks it waits for end.
///
/// Cost O(tasks + dependencies) time, O(tasks) memory.
pub(crate) fn span(tasks: &[Task]) -> f64 {
    let mut finish = vec![0.0f64; tasks.len()];
    for (i, task) in tasks.iter().enumerate() {
        let start = task.deps.iter().filter(|&&d| d < i).map(|&d| finish[d]).fold(0.0, f64::max);
        finish[i] = start + task.seconds;
    }
    finish.into_iter().fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::TaskKind;

    fn task(seconds: f64, deps: &[usize]) -> Task {
        Task { kind: TaskKind::Pass, block: 0, chunk: 0, seconds, deps: deps.to_vec() }
    }

    #[test]
    fn spans_of_small_graphs() {
        assert_eq!(span(&[]), 0.0);
        // independent tasks: the longest
        assert_eq!(span(&[task(1.0, &[]), task(3.0, &[]), task(2.0, &[])]), 3.0);
        // a chain: the sum
        assert_eq!(span(&[task(1.0, &[]), task(2.0, &[0]), task(4.0, &[1])]), 7.0);
        // a diamond 0 -> {1, 2} -> 3: the heavier side
        assert_eq!(span(&[task(1.0, &[]), task(5.0, &[0]), task(2.0, &[0]), task(1.0, &[1, 2])]), 7.0);
        // a long light chain beside a short heavy task
        let mut tasks: Vec<Task> =
            (0..10usize).map(|i| task(1.0, &(0..i).skip(i.saturating_sub(1)).collect::<Vec<_>>())).collect();
        tasks.push(task(9.5, &[]));
        assert_eq!(span(&tasks), 10.0);
    }
}
