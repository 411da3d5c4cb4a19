//! The non-zero states of a layer as the layers after it read them ([`NonZeroSet`]): what the
//! sweep makes and the description of a block reads.

use crate::plan::LayerSet;

/// A layer as the layers after it read it: its non-zero states (a subset of the plan's), with the
/// rank of each word's first member, so that the position of a state among them is O(1).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct NonZeroSet {
    pub(crate) set: LayerSet,
    rank: Vec<u32>,
    pub(crate) len: u32,
}

impl NonZeroSet {
    /// The set with its ranks. Cost O(window / 64).
    pub(crate) fn new(set: LayerSet) -> NonZeroSet {
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
        NonZeroSet { set, rank, len }
    }

    /// The position of `g` among the non-zero states, or `len` (the layer's zero chunk) where the
    /// count is zero or g is no state (g = u64::MAX stands for a negative g).
    #[inline(always)]
    pub(crate) fn index(&self, g: u64) -> u32 {
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
    /// The word of the set that holds g = `at` .. `at` + 63 (`at` - base a multiple of 64), with the
    /// rank of its first bit and the number of non-zero states: `(0, 0, len)` where the window holds
    /// none of them. Cost O(1).
    #[inline(always)]
    pub(crate) fn word_at(&self, at: u64) -> (u64, u32, u32) {
        let w = (at.wrapping_sub(self.set.base()) / 64) as usize;
        match (self.set.words().get(w), self.rank.get(w)) {
            (Some(&word), Some(&rank)) => (word, rank, self.len),
            _ => (0, 0, self.len),
        }
    }

    /// The positions of the states `named` among the non-zero ones, each once with the times it is
    /// named (the direct moves R and L may be one state); a g that is no non-zero state is left out.
    /// Cost O(named^2), for the one or two states of a layer.
    pub(crate) fn named(&self, named: &[u64]) -> Vec<(u32, u32)> {
        let mut found: Vec<(u32, u32)> = Vec::with_capacity(named.len());
        for &g in named {
            let s = self.index(g);
            match found.iter_mut().find(|d| d.0 == s) {
                Some(d) => d.1 += 1,
                None if s < self.len => found.push((s, 1)),
                None => {} // no count reaches it, or not a state of the plan: nothing reads it
            }
        }
        found
    }
}
