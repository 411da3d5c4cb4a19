//! The sets of g of one layer: bitsets over a window of g, and their images under a step of the
//! recurrence, computed on whole words.

/// A set of g values of one layer: a bitset over `[base, base + 64 * words.len())`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LayerSet {
    base: u64,
    words: Vec<u64>,
}

/// The empty set: a layer above the top, or one no target needs.
pub(super) static EMPTY: LayerSet = LayerSet { base: 0, words: Vec::new() };

impl LayerSet {
    /// An empty set able to hold every g in `[lo, hi]`.
    pub(super) fn with_range(lo: u64, hi: u64) -> Self {
        let base = lo & !63;
        let words = ((hi - base) / 64 + 1) as usize;
        LayerSet { base, words: vec![0; words] }
    }

    /// Drops empty words at both ends of the window.
    fn trim(&mut self) {
        let lead = self.words.iter().take_while(|&&w| w == 0).count();
        if lead == self.words.len() {
            *self = LayerSet::default();
            return;
        }
        let trail = self.words.iter().rev().take_while(|&&w| w == 0).count();
        self.words.truncate(self.words.len() - trail);
        self.words.drain(..lead);
        self.base += 64 * lead as u64;
    }

    /// Calls `f(word index, bits)` for the words of the image of the set under `step` with edge
    /// `e` (a word index times 64 is the g of its bit 0); a word index may come more than once, and
    /// only non-zero bits are handed on. Cost O(window / 64): the xor permutes whole words and the
    /// bits within a word, and the shift by one moves bits across one word boundary.
    fn for_image_words(&self, e: u64, step: Step, mut f: impl FnMut(u64, u64)) {
        let (high, low) = (e >> 6, e & 63);
        let first = self.base / 64;
        for (i, &w) in self.words.iter().enumerate().filter(|(_, w)| **w != 0) {
            let at = first + i as u64;
            match step {
                Step::Back => {
                    // j -> j xor e, then -1: bit 0 of word v is g = 64 v - 1, bit 63 of word v - 1
                    let (x, v) = (xor_bits(w, low), at ^ high);
                    if x >> 1 != 0 {
                        f(v, x >> 1);
                    }
                    // (v = 0 only where the window starts at g = 0: bit 0 is g = -1, no state)
                    if x & 1 == 1 && v > 0 {
                        f(v - 1, 1 << 63);
                    }
                }
                Step::Forward => {
                    // a -> a + 1 (bit 63 moves to the next word), then xor e
                    if w << 1 != 0 {
                        f(at ^ high, xor_bits(w << 1, low));
                    }
                    if w >> 63 == 1 {
                        f((at + 1) ^ high, xor_bits(1, low));
                    }
                }
            }
        }
    }

    /// Bounds on the word indices of the image of the set under `step` with edge `e` (at most one
    /// word wider than the image at each end), or `None` for an empty set. Cost O(window / 64),
    /// without touching the bits.
    fn image_bounds(&self, e: u64, step: Step) -> Option<(u64, u64)> {
        let high = e >> 6;
        let first = self.base / 64;
        let (mut lo, mut hi) = (u64::MAX, 0);
        for (i, _) in self.words.iter().enumerate().filter(|(_, w)| **w != 0) {
            let at = first + i as u64;
            // Back: the word at xor high and the one below it; Forward: at and at + 1, xor high
            let (a, b) = match step {
                Step::Back => ((at ^ high).saturating_sub(1), at ^ high),
                Step::Forward => (at ^ high, (at + 1) ^ high),
            };
            (lo, hi) = (lo.min(a).min(b), hi.max(a).max(b));
        }
        (lo <= hi).then_some((lo, hi))
    }

    /// Adds the image of `src` under `step` with edge `e`; the window must hold it. Cost O(window
    /// of `src` / 64).
    fn add_image(&mut self, src: &LayerSet, e: u64, step: Step) {
        let first = self.base / 64;
        let words = &mut self.words;
        match step {
            // the backward pass's hot loop: `for_image_words` written out, without a call per word
            Step::Back => {
                let (high, low, src_first) = (e >> 6, e & 63, src.base / 64);
                for (at, &w) in (src_first..).zip(&src.words).filter(|(_, w)| **w != 0) {
                    let x = xor_bits(w, low);
                    let v = ((at ^ high) - first) as usize;
                    // the word v exists unless x >> 1 is 0 (the bounds count only words that gain a bit)
                    match words.get_mut(v) {
                        Some(word) => *word |= x >> 1,
                        None => debug_assert_eq!(x >> 1, 0, "the window holds the image"),
                    }
                    // (v = 0 only where the window starts at g = 0: bit 0 is g = -1, no state)
                    if x & 1 == 1 && v > 0 {
                        words[v - 1] |= 1 << 63;
                    }
                }
            }
            Step::Forward => src.for_image_words(e, step, |v, bits| words[(v - first) as usize] |= bits),
        }
    }

    /// Bounds on the word indices of the union of the images of `sources` (set, edge) under `step`
    /// and of the values `singles` (at most one word wider than the union at each end), or `None`
    /// where it is empty: the window [`LayerSet::image`] allocates. Cost O(the sources' windows / 64),
    /// without touching the bits.
    pub(super) fn union_bounds(sources: &[(&LayerSet, u64)], step: Step, singles: &[u64]) -> Option<(u64, u64)> {
        let mut bounds = singles.iter().fold(None, |b, &g| Some(widen(b, g / 64, g / 64)));
        for &(set, e) in sources {
            if let Some((lo, hi)) = set.image_bounds(e, step) {
                bounds = Some(widen(bounds, lo, hi));
            }
        }
        bounds
    }

    /// The union of the images of `sources` (set, edge) under `step` and of the values `singles`,
    /// trimmed. Cost O(the sources' windows / 64 + singles).
    pub(crate) fn image(sources: &[(&LayerSet, u64)], step: Step, singles: &[u64]) -> LayerSet {
        let Some((lo, hi)) = LayerSet::union_bounds(sources, step, singles) else { return LayerSet::default() };
        let mut set = LayerSet::with_range(64 * lo, 64 * hi);
        for &(src, e) in sources {
            set.add_image(src, e, step);
        }
        singles.iter().for_each(|&g| set.insert(g));
        set.trim();
        set
    }

    /// Keeps only the members that are also in `other`. Cost O(window / 64).
    pub(crate) fn retain_in(&mut self, other: &LayerSet) {
        let first = self.base / 64;
        let other_first = other.base / 64;
        for (i, w) in self.words.iter_mut().enumerate() {
            let at = first + i as u64;
            *w &= at.checked_sub(other_first).and_then(|j| other.words.get(j as usize)).copied().unwrap_or(0);
        }
        self.trim();
    }

    /// Keeps of the members below 64 x `support.len()` only those in `support` (the words of a set
    /// from g = 0: the support of a layer below W), every member at or above that, and every g of
    /// `keep` that is a member: a layer thinned to its states of non-zero count (docs/math.md,
    /// "Zero states"), the targets `keep` left in whatever they count. An empty `support` keeps
    /// every member. Cost O(window / 64 + keep).
    pub(crate) fn retain_below(&mut self, support: &[u64], keep: &[u64]) {
        let kept: Vec<u64> = keep.iter().copied().filter(|&g| self.contains(g)).collect();
        let first = self.base / 64;
        for (at, w) in (first..).zip(self.words.iter_mut()) {
            if let Some(s) = usize::try_from(at).ok().and_then(|at| support.get(at)) {
                *w &= s;
            }
        }
        kept.iter().for_each(|&g| self.insert(g));
        self.trim();
    }

    /// The set with the given window, or `None` if `base` is not a multiple of 64 or the window
    /// does not fit in u64.
    pub(crate) fn from_words(base: u64, words: Vec<u64>) -> Option<LayerSet> {
        let end = (words.len() as u64).checked_mul(64).and_then(|w| base.checked_add(w));
        (base.is_multiple_of(64) && end.is_some()).then_some(LayerSet { base, words })
    }

    /// The words of the set, the first holding g = `base()` .. `base()` + 63.
    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }

    /// Whether `g` is in the set. Cost O(1).
    #[inline]
    pub fn contains(&self, g: u64) -> bool {
        match g.checked_sub(self.base) {
            Some(off) => self.words.get((off / 64) as usize).is_some_and(|w| (w >> (off % 64)) & 1 == 1),
            None => false,
        }
    }

    /// Adds `g`, which the window must hold. Cost O(1).
    #[inline]
    pub(super) fn insert(&mut self, g: u64) {
        let off = g - self.base;
        self.words[(off / 64) as usize] |= 1 << (off % 64);
    }

    /// The members in ascending order. Cost O(window / 64 + members).
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.words.iter().enumerate().flat_map(move |(w, &word)| {
            let base = self.base + 64 * w as u64;
            let mut rest = word;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let bit = rest.trailing_zeros() as u64;
                    rest &= rest - 1;
                    base + bit
                })
            })
        })
    }

    /// The number of members. Cost O(window / 64).
    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether the set is empty. Cost O(window / 64).
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// The smallest g the window can hold (a multiple of 64).
    pub fn base(&self) -> u64 {
        self.base
    }

    /// The width of the window, in values of g.
    pub fn window(&self) -> usize {
        64 * self.words.len()
    }

    /// Bytes held by the set.
    pub fn bytes(&self) -> u64 {
        8 * self.words.len() as u64
    }
}

/// Which way a step of the recurrence goes between layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// g -> (g xor e) - 1: from a state to the state of an earlier layer that it reads.
    Back,
    /// a -> (a + 1) xor e: from a state to the state of a later layer that reads it.
    Forward,
}

/// The bits of a word whose index has bit t clear, for t = 0..6: the swaps of [`xor_bits`].
pub(super) const LOWER_HALVES: [u64; 6] = [
    0x5555_5555_5555_5555,
    0x3333_3333_3333_3333,
    0x0f0f_0f0f_0f0f_0f0f,
    0x00ff_00ff_00ff_00ff,
    0x0000_ffff_0000_ffff,
    0x0000_0000_ffff_ffff,
];

/// `x` with bit i moved to bit i xor s for every i (s < 64): the permutation g -> g xor s within a
/// word. Cost: at most six mask-and-shift swaps.
#[inline]
pub(super) fn xor_bits(mut x: u64, s: u64) -> u64 {
    for (t, mask) in LOWER_HALVES.iter().enumerate() {
        if (s >> t) & 1 == 1 {
            let d = 1 << t;
            x = ((x & mask) << d) | ((x >> d) & mask);
        }
    }
    x
}

/// The smallest interval holding `bounds` and `[lo, hi]`.
fn widen(bounds: Option<(u64, u64)>, lo: u64, hi: u64) -> (u64, u64) {
    bounds.map_or((lo, hi), |(a, b)| (a.min(lo), b.max(hi)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_set_iter_len_contains() {
        let mut s = LayerSet::with_range(70, 300);
        for g in [70u64, 71, 127, 128, 200, 300] {
            s.insert(g);
        }
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![70, 71, 127, 128, 200, 300]);
        assert_eq!(s.len(), 6);
        for g in s.iter() {
            assert!(s.contains(g));
        }
        for g in [0u64, 69, 72, 129, 301, 10_000] {
            assert!(!s.contains(g));
        }
    }

    /// The whole-word images against the definition, member by member, for random sets (fixed,
    /// printed seed), edges with high bits, and windows far from 0.
    #[test]
    fn images_match_the_definition() {
        let seed = 0x1ace_5e7du64;
        println!("SplitMix64 seed {seed:#x}");
        let mut rng = fibtree_util::SplitMix64(seed);
        for case in 0..300 {
            let base = [0u64, 64, 1 << 20, 1 << 40][case % 4];
            let width = 1 + rng.next_u64() % 700;
            let members: Vec<u64> = (0..rng.next_u64() % 60).map(|_| base + rng.next_u64() % width).collect();
            let set = LayerSet::image(&[], Step::Back, &members);
            let e = rng.next_u64() % [64, 4096, 1 << 20][case % 3];
            let singles = [base + rng.next_u64() % (width + 5000)];
            for step in [Step::Back, Step::Forward] {
                let got: Vec<u64> = LayerSet::image(&[(&set, e)], step, &singles).iter().collect();
                let mut want: Vec<u64> = members
                    .iter()
                    .filter_map(|&j| match step {
                        Step::Back => (j ^ e).checked_sub(1),
                        Step::Forward => Some((j + 1) ^ e),
                    })
                    .chain(singles)
                    .collect();
                want.sort_unstable();
                want.dedup();
                assert_eq!(got, want, "seed {seed:#x}, case {case}, e {e}, {step:?}");
            }
        }
    }
}
