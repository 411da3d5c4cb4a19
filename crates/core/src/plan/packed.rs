//! A layer's set as the plan keeps it: its words, or runs of equal words where that is smaller.
//!
//! The states of a layer of a target's plan mostly step by 4, in long stretches (measured: at
//! n = 10000, 10.4 million states of which all but 20,000 lie 4 above the one before), so most
//! words of its bitset are one word repeated. A run of equal words is kept as the word and where the
//! run ends, 12 bytes, so such a layer takes a few hundred bytes where its words took W / 8.
//! A layer of no such shape keeps its words: a packed layer is never larger than its bitset.
//! Written by hand: what is needed is one scan a layer each way, which a compressed-bitmap crate
//! would do through its own containers of 2^16 values.

use std::borrow::Cow;

use super::layer_set::LayerSet;

/// The bytes of one run: its word and the index one past its last word.
const RUN_BYTES: u64 = 8 + 4;

/// A layer's set, as its words or as runs of equal words (whichever is smaller).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Packed {
    /// The bitset itself.
    Words(LayerSet),
    /// The words of a bitset over `[base, base + 64 x ends.last())`: word i is `words[r]` for the
    /// run r with `ends[r - 1] <= i < ends[r]`.
    Runs {
        /// The g of bit 0 of the first word (a multiple of 64).
        base: u64,
        /// The word of each run.
        words: Vec<u64>,
        /// The index one past the last word of each run, ascending.
        ends: Vec<u32>,
    },
}

impl Default for Packed {
    fn default() -> Self {
        Packed::Words(LayerSet::default())
    }
}

impl Packed {
    /// `set` as runs of equal words where they take fewer bytes than its words, else as it is.
    /// Cost O(window / 64).
    pub(crate) fn new(set: LayerSet) -> Packed {
        let words = set.words();
        // a window of more than 2^32 words keeps its words (a window that wide is far past any
        // memory)
        if runs(words) as u64 * RUN_BYTES >= set.bytes() || u32::try_from(words.len()).is_err() {
            return Packed::Words(set);
        }
        let (mut packed, mut ends) = (Vec::new(), Vec::new());
        for (i, &w) in words.iter().enumerate() {
            if packed.last() != Some(&w) {
                if i > 0 {
                    ends.push(i as u32);
                }
                packed.push(w);
            }
        }
        ends.push(words.len() as u32);
        Packed::Runs { base: set.base(), words: packed, ends }
    }

    /// The bytes [`Packed::new`] would hold for a set of these words. Cost O(words).
    pub(crate) fn bytes_of(words: &[u64]) -> u64 {
        let bits = 8 * words.len() as u64;
        let runs = runs(words) as u64 * RUN_BYTES;
        if runs < bits { runs } else { bits }
    }

    /// The set, borrowed where it is kept as its words. Cost O(1), or O(window / 64) to unpack runs.
    pub(crate) fn set(&self) -> Cow<'_, LayerSet> {
        match self {
            Packed::Words(set) => Cow::Borrowed(set),
            Packed::Runs { .. } => Cow::Owned(self.clone().into_set()),
        }
    }

    /// The set, unpacked. Cost O(window / 64).
    pub(crate) fn into_set(self) -> LayerSet {
        match self {
            Packed::Words(set) => set,
            Packed::Runs { base, words, ends } => {
                let mut all = Vec::with_capacity(ends.last().map_or(0, |&e| e as usize));
                for (&w, &end) in words.iter().zip(&ends) {
                    all.resize(end as usize, w);
                }
                LayerSet::from_words(base, all).expect("the window of a set")
            }
        }
    }

    /// Whether `g` is in the set. Cost O(1) as words, O(log runs) as runs.
    pub(crate) fn contains(&self, g: u64) -> bool {
        match self {
            Packed::Words(set) => set.contains(g),
            Packed::Runs { base, words, ends } => {
                let Some(off) = g.checked_sub(*base) else { return false };
                let word = off / 64;
                let run = ends.partition_point(|&end| end as u64 <= word);
                words.get(run).is_some_and(|w| (w >> (off % 64)) & 1 == 1)
            }
        }
    }

    /// The union of the set's words: bit b is set where some member is b above a multiple of 64
    /// past the base. Cost O(window / 64) as words, O(runs) as runs.
    pub(crate) fn word_union(&self) -> u64 {
        match self {
            Packed::Words(set) => set.words().iter().fold(0, |a, &w| a | w),
            Packed::Runs { words, .. } => words.iter().fold(0, |a, &w| a | w),
        }
    }

    /// The bytes held. Cost O(1).
    pub(crate) fn bytes(&self) -> u64 {
        match self {
            Packed::Words(set) => set.bytes(),
            Packed::Runs { words, .. } => words.len() as u64 * RUN_BYTES,
        }
    }

    /// The smallest g the window can hold (a multiple of 64), as [`LayerSet::base`].
    pub(crate) fn base(&self) -> u64 {
        match self {
            Packed::Words(set) => set.base(),
            Packed::Runs { base, .. } => *base,
        }
    }

    /// The width of the window, in values of g, as [`LayerSet::window`].
    pub(crate) fn window(&self) -> usize {
        match self {
            Packed::Words(set) => set.window(),
            Packed::Runs { ends, .. } => 64 * ends.last().map_or(0, |&e| e as usize),
        }
    }
}

/// The runs of equal words in `words`. Cost O(words).
fn runs(words: &[u64]) -> usize {
    words.first().map_or(0, |_| 1 + words.windows(2).filter(|p| p[0] != p[1]).count())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sets of every shape packed and unpacked to themselves, their bytes as `bytes_of` says and
    /// never above their words'; runs only where they are smaller (fixed, printed seed).
    #[test]
    fn a_packed_set_unpacks_to_itself() {
        let seed = 0x9ac4_ed01u64;
        println!("SplitMix64 seed {seed:#x}");
        let mut rng = fibtree_util::SplitMix64(seed);
        for case in 0..400 {
            let base = [0u64, 64, 1 << 20, 1 << 40][case % 4];
            let len = (rng.next_u64() % 300) as usize;
            let class = 0x1111_1111_1111_1111u64 << (rng.next_u64() % 4);
            // stretches of one class of g mod 4, broken by random words, or random words alone
            let words: Vec<u64> = (0..len)
                .map(|_| match (case % 3, rng.next_u64() % 16) {
                    (0, _) => rng.next_u64(),
                    (_, 0) => rng.next_u64(),
                    (1, 1) => 0,
                    _ => class,
                })
                .collect();
            let set = LayerSet::from_words(base, words.clone()).unwrap();
            let packed = Packed::new(set.clone());
            assert_eq!(packed.bytes(), Packed::bytes_of(&words), "seed {seed:#x}, case {case}");
            assert!(packed.bytes() <= set.bytes(), "seed {seed:#x}, case {case}");
            assert_eq!(matches!(packed, Packed::Runs { .. }), packed.bytes() < set.bytes(), "case {case}");
            assert_eq!((packed.base(), packed.window()), (set.base(), set.window()), "case {case}");
            for g in (base.saturating_sub(70)..base + 64 * len as u64 + 70).step_by(7) {
                assert_eq!(packed.contains(g), set.contains(g), "seed {seed:#x}, case {case}, g {g}");
            }
            assert_eq!(packed.word_union(), words.iter().fold(0, |a, &w| a | w), "case {case}");
            assert_eq!(*packed.set(), set, "seed {seed:#x}, case {case}");
            assert_eq!(packed.into_set(), set, "seed {seed:#x}, case {case}");
        }
        assert_eq!(Packed::new(LayerSet::default()).into_set(), LayerSet::default());
    }

    /// The layers of a plan of f(3000) as runs: a small share of their words (a tenth).
    #[test]
    fn a_plan_of_one_target_packs_into_runs() {
        let plan = super::super::Plan::new(&[(3000, 0)], u64::MAX, crate::Hooks::default()).unwrap();
        let words: u64 = (0..=plan.top()).map(|k| plan.layer(k).bytes()).sum();
        let packed: u64 = (0..=plan.top()).map(|k| Packed::new(plan.layer(k).into_owned()).bytes()).sum();
        println!("f(3000): {packed} bytes packed, {words} as words");
        assert!(packed * 8 < words, "{packed} of {words}");
    }
}
