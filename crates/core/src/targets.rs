//! The targets of a run: the (n, g) whose counts c(n, g) it computes, sorted and without repeats.

use std::ops::Deref;

/// A set of targets (n, g), sorted by n, then g, each once: the order in which every engine finds
/// them (layer by layer, from the bottom) and the order of the results it gives.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Targets {
    sorted: Vec<(u64, u64)>,
}

impl Targets {
    /// The targets of `targets`, sorted, repeats removed. Cost O(t log t).
    pub(crate) fn new(targets: &[(u64, u64)]) -> Targets {
        let mut sorted = targets.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        Targets { sorted }
    }

    /// The one target (n, g).
    pub(crate) fn one(n: u64, g: u64) -> Targets {
        Targets { sorted: vec![(n, g)] }
    }

    /// The highest layer of a target (0 where there is none). Cost O(1).
    pub(crate) fn top(&self) -> u64 {
        self.sorted.last().map_or(0, |t| t.0)
    }

    /// The lowest and the highest g of a target (`(0, 0)` where there is none). Cost O(t).
    pub(crate) fn g_range(&self) -> (u64, u64) {
        let g = self.sorted.iter().map(|t| t.1);
        (g.clone().min().unwrap_or(0), g.max().unwrap_or(0))
    }

    /// The targets of layer `k`, in ascending g. Cost O(log t).
    pub(crate) fn at_layer(&self, k: u64) -> &[(u64, u64)] {
        let from = self.sorted.partition_point(|t| t.0 < k);
        let to = self.sorted.partition_point(|t| t.0 <= k);
        &self.sorted[from..to]
    }

    /// The index of `target`, if it is one. Cost O(log t).
    pub(crate) fn index_of(&self, target: (u64, u64)) -> Option<usize> {
        self.sorted.binary_search(&target).ok()
    }
}

impl Deref for Targets {
    type Target = [(u64, u64)];

    fn deref(&self) -> &[(u64, u64)] {
        &self.sorted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_without_repeats_and_found_by_layer() {
        let t = Targets::new(&[(7, 3), (2, 0), (7, 1), (7, 3), (40, 9)]);
        assert_eq!(&t[..], &[(2, 0), (7, 1), (7, 3), (40, 9)]);
        assert_eq!(t.top(), 40);
        assert_eq!(t.g_range(), (0, 9));
        assert_eq!(t.at_layer(7), &[(7, 1), (7, 3)]);
        assert!(t.at_layer(8).is_empty());
        assert_eq!(t.index_of((7, 3)), Some(2));
        assert_eq!(t.index_of((7, 2)), None);
        let none = Targets::new(&[]);
        assert_eq!((none.top(), none.g_range(), none.at_layer(0).len()), (0, (0, 0), 0));
    }
}
