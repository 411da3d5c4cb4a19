//! The order in which a run visits the layers, and what each step of it computes.
//!
//! A run is a sequence of steps t = 2, 3, ...; step t reads the two steps before it (steps 0 and 1
//! are empty layers) and the lanes grow with t. Two sweeps share that shape:
//!
//! - [`Sweep::Up`], the bottom-up count: step t is layer t, c(t, g) read from layers t - 1 and t - 2
//!   through the edge values R = 1 + G(t - 2) and L = 1 + G(t - 1) (g -> (g xor e) - 1), with the
//!   direct moves of R and L added;
//! - [`Sweep::Down`], the top-down count of paths from a target (n, G) (docs/math.md, "Counting from
//!   both ends"): step t is layer k = n + 2 - t, N(k, h) = N(k + 1, (h + 1) xor R(k + 1)) +
//!   N(k + 2, (h + 1) xor L(k + 2)), with N(n, G) = 1, down to the cut m and then the part of layer
//!   m - 1 that layer m + 1 passes on (N_in(m - 1, .): layer m is not read). A value of layer k is
//!   at most F(n - k + 1), the paths of steps 1 and 2 from n to k, so it has the lanes of a count
//!   of layer n - k + 1 (one at least). What the run hands out are the values at the direct-move
//!   states R(k), L(k) of the layers above the cut, with their multiplicity in place of a target's
//!   index: the first sum of the join.
//!
//! The non-zero states of a step are the image of the two before it: forward for `Up` (kept within
//! the plan's layer), backward for `Down` (the backward pass of the plan itself, so that the layers
//! above the cut need no plan), thinned as the plan's layers are to the states whose count c is not
//! zero (docs/math.md, "Zero states"): a path count N only ever multiplies such a count.

use super::lanes::lanes;
use super::nonzero::NonZeroSet;
use crate::plan::{LayerSet, Plan, Step};

/// Which layers a run visits, in which order (the module's two sweeps).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sweep {
    /// c(k, g), layers 2 to `last`: step t is layer t.
    Up {
        /// The last layer computed.
        last: usize,
    },
    /// N(k, g), the paths from the target (n, seed) down to the layers `cut` and `cut` - 1: step t
    /// is layer n + 2 - t (2 <= cut <= n).
    Down { n: usize, seed: u64, cut: usize },
}

impl Sweep {
    /// The last step. Cost O(1).
    pub(crate) fn last_step(self) -> usize {
        match self {
            Sweep::Up { last } => last,
            Sweep::Down { n, .. } => n + 2 - self.last_layer(),
        }
    }

    /// The lowest layer of a top-down sweep: m - 1, or m = 2 itself (layer 1 holds no moves).
    fn last_layer(self) -> usize {
        match self {
            Sweep::Up { last } => last,
            Sweep::Down { cut, .. } if cut >= 3 => cut - 1,
            Sweep::Down { cut, .. } => cut,
        }
    }

    /// The layer of step `t`. Cost O(1).
    pub(crate) fn layer(self, t: usize) -> usize {
        match self {
            Sweep::Up { .. } => t,
            Sweep::Down { n, .. } => n + 2 - t,
        }
    }

    /// The lanes of a value of step `t`. Cost O(1).
    pub(crate) fn lanes(self, t: usize) -> usize {
        match self {
            Sweep::Up { .. } => lanes(t),
            Sweep::Down { .. } => lanes(t - 1).max(1),
        }
    }

    /// The edge values through which step `t` reads the steps t - 1 and t - 2.
    pub(crate) fn edges(self, plan: &Plan, t: usize) -> (u64, u64) {
        let k = self.layer(t);
        // the layer above the top is empty: its edge value is never used
        let e = |k: usize| if k <= plan.top() { plan.edge_value(k) as u64 } else { 0 };
        match self {
            Sweep::Up { .. } => (e(k - 2), e(k - 1)),
            Sweep::Down { .. } => (e(k - 1), e(k + 1)),
        }
    }

    /// Whether step `t` reads step t - 1: not at layer m - 1 of a top-down sweep.
    pub(crate) fn reads_old(self, t: usize) -> bool {
        match self {
            Sweep::Up { .. } => true,
            Sweep::Down { cut, .. } => self.layer(t) >= cut,
        }
    }

    /// The state step `t` reads in a step before it through edge value `e`, or u64::MAX (no
    /// state) where there is none: the definition [`Sweep::sources_of_word`] computes by words.
    #[cfg(test)]
    fn source(self, g: u64, e: u64) -> u64 {
        match self {
            // a negative source (g xor e = 0) wraps to u64::MAX
            Sweep::Up { .. } => (g ^ e).wrapping_sub(1),
            Sweep::Down { .. } => g.wrapping_add(1) ^ e,
        }
    }

    /// Where the 64 states g0 .. g0 + 63 (g0 a multiple of 64) read from in `from` through the edge
    /// value `e`: [`Sweep::source`] of each, as the words of `from` that hold them. Cost O(1).
    #[inline(always)]
    pub(crate) fn sources_of_word(self, g0: u64, e: u64, from: &NonZeroSet) -> WordSources {
        let (high, low) = (e & !63, e & 63);
        match self {
            // (g xor e) - 1: in the word at g0 xor high, one bit down; the state whose low bits
            // equal e's reads bit 63 of the word before (none below g = 0)
            Sweep::Up { .. } => {
                let at = g0 ^ high;
                WordSources { step: Step::Back, low, here: from.word_at(at), next: from.word_at(at.wrapping_sub(64)) }
            }
            // (g + 1) xor e: one bit up in the word at g0 xor high, the top state's in bit 0 of the
            // word at (g0 + 64) xor high
            Sweep::Down { .. } => WordSources {
                step: Step::Forward,
                low,
                here: from.word_at(g0 ^ high),
                next: from.word_at(g0.wrapping_add(64) ^ high),
            },
        }
    }

    /// The states of step `t` that get one (each time it is named) on top of what they read: the
    /// direct moves R and L (k >= 3) of layer k bottom-up, the target alone top-down.
    pub(crate) fn direct(self, plan: &Plan, t: usize) -> Vec<u64> {
        let k = self.layer(t);
        match self {
            Sweep::Up { .. } => self.direct_moves(plan, k),
            Sweep::Down { n, seed, .. } if k == n => vec![seed],
            Sweep::Down { .. } => Vec::new(),
        }
    }

    /// The direct-move states R and L (k >= 3) of layer `k`.
    fn direct_moves(self, plan: &Plan, k: usize) -> Vec<u64> {
        let (r, l) = (plan.edge_value(k - 2) as u64, plan.edge_value(k - 1) as u64);
        if k >= 3 { vec![r, l] } else { vec![r] }
    }

    /// The states of step `t` whose values a top-down sweep hands out (each time it is named):
    /// the direct moves of the layers above the cut. None bottom-up (its targets are the run's).
    pub(crate) fn counted(self, plan: &Plan, t: usize) -> Vec<u64> {
        match self {
            Sweep::Down { cut, .. } if self.layer(t) > cut => self.direct_moves(plan, self.layer(t)),
            _ => Vec::new(),
        }
    }

    /// The non-zero states of step `t`, from those of the steps t - 1 (`old`) and t - 2 (`older`):
    /// bottom-up within the plan's layer `within`; top-down thinned by `within`, the support of the
    /// layer below W ([`crate::plan::Plan::support_below`]). Cost O(window / 64).
    pub(crate) fn nonzero_set(
        self,
        plan: &Plan,
        t: usize,
        old: &NonZeroSet,
        older: &NonZeroSet,
        within: &LayerSet,
    ) -> NonZeroSet {
        let (r, l) = self.edges(plan, t);
        let direct = self.direct(plan, t);
        let set = match self {
            Sweep::Up { .. } => {
                let mut set = LayerSet::image(&[(&old.set, r), (&older.set, l)], Step::Forward, &direct);
                set.retain_in(within);
                set
            }
            Sweep::Down { .. } => {
                let mut sources = vec![(&older.set, l)];
                if self.reads_old(t) {
                    sources.push((&old.set, r));
                }
                sources.retain(|(s, _)| !s.is_empty());
                let mut set = LayerSet::image(&sources, Step::Back, &direct);
                set.retain_below(within.words(), &[]);
                set
            }
        };
        NonZeroSet::new(set)
    }
}

/// Where the 64 states of a word read from in one source layer ([`Sweep::sources_of_word`]): the
/// two words of the source layer that hold their sources, with their ranks.
#[derive(Clone, Copy)]
pub(crate) struct WordSources {
    step: Step,
    /// The low six bits of the edge value.
    low: u64,
    /// The word holding most of the sources, and the one holding the rest (bottom-up the word
    /// below, top-down the word above), each as [`NonZeroSet::word_at`] gives it.
    here: (u64, u32, u32),
    next: (u64, u32, u32),
}

impl WordSources {
    /// The position among the non-zero states of its source layer of the source of the state at bit
    /// `b` of the word, or the layer's zero chunk's (its count of states) where there is none; as
    /// [`NonZeroSet::index`] of [`Sweep::source`]. Cost: a population count.
    #[inline(always)]
    pub(crate) fn index(&self, b: u64) -> u32 {
        let ((word, rank, len), bit) = match self.step {
            Step::Back => match b ^ self.low {
                0 => (self.next, 63),
                y => (self.here, y - 1),
            },
            _ => match b {
                63 => (self.next, self.low),
                b => (self.here, (b + 1) ^ self.low),
            },
        };
        // branch-free, as `NonZeroSet::index`: membership is as good as random
        let member = 0u32.wrapping_sub(((word >> bit) & 1) as u32);
        let position = rank + (word & ((1 << bit) - 1)).count_ones();
        (position & member) | (len & !member)
    }

    /// The positions of the sources of the states of `word` ([`WordSources::index`] of each of its
    /// bits, in order), appended to `out`. Cost: a population count a state; a few additions a state
    /// where `word` and the source word that holds most of its sources each repeat one nibble.
    #[inline(always)]
    pub(crate) fn extend(&self, word: u64, out: &mut Vec<u32>) {
        if !self.extend_periodic(word, out) {
            let mut rest = word;
            while rest != 0 {
                out.push(self.index(rest.trailing_zeros() as u64));
                rest &= rest - 1;
            }
        }
    }

    /// [`WordSources::extend`] where `word` and the word holding most of its sources each repeat
    /// their low nibble (the states of a layer fall in classes of g modulo 4, in long stretches),
    /// else nothing (`false`). State b = 4q + p reads bit t = 4q' + p' of that word, where q' is q
    /// xor the edge's bits 2..6, plus or minus one for one p, and p' depends on p alone: its
    /// position is the word's rank plus q' times the nibble's states plus p''s rank in the nibble,
    /// derived with no population count; the one state that reads the other word is looked up.
    #[inline(always)]
    fn extend_periodic(&self, word: u64, out: &mut Vec<u32>) -> bool {
        let ((here, rank, len), states) = (self.here, word & 15);
        let sources = here & 15;
        if states * EVERY_NIBBLE != word || sources * EVERY_NIBBLE != here {
            return false;
        }
        let (per, lq, lr) = (sources.count_ones(), (self.low >> 2) as u32, self.low & 3);
        // each state p of the nibble: q' = ((q + up) xor lq) - down, p', and p''s rank in the nibble
        let mut columns = [(0u32, 0u32, None::<u32>); 4];
        let mut m = 0;
        for p in (0..4u64).filter(|p| (states >> p) & 1 == 1) {
            let (up, down, t) = match self.step {
                Step::Back if p ^ lr == 0 => (0, 1, 3),
                Step::Back => (0, 0, (p ^ lr) - 1),
                Step::Forward => ((p == 3) as u32, 0, ((p + 1) & 3) ^ lr),
            };
            let within = ((sources >> t) & 1 == 1).then(|| (sources & ((1 << t) - 1)).count_ones());
            columns[m] = (up, down, within);
            m += 1;
        }
        if m == 0 {
            return true; // no state
        }
        let at = out.len();
        out.resize(at + 16 * m, len);
        for (q, row) in out[at..].chunks_exact_mut(m).enumerate() {
            for (slot, &(up, down, within)) in row.iter_mut().zip(&columns) {
                if let Some(w) = within {
                    // wraps only for the state that reads the other word, put right below
                    let q = ((q as u32 + up) ^ lq).wrapping_sub(down);
                    *slot = rank.wrapping_add(q.wrapping_mul(per)).wrapping_add(w);
                }
            }
        }
        // the state that reads the other word: bottom-up the one whose bits equal the edge's low
        // bits (bit 63 of the word below), top-down bit 63 (bit `low` of the word above)
        let other = match self.step {
            Step::Back => self.low,
            Step::Forward => 63,
        };
        if (word >> other) & 1 == 1 {
            let i = (word & ((1 << other) - 1)).count_ones() as usize;
            out[at + i] = self.index(other);
        }
        true
    }
}

/// A word whose every nibble is 1: `x * EVERY_NIBBLE` repeats the nibble x.
const EVERY_NIBBLE: u64 = 0x1111_1111_1111_1111;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_top_down_sweep_ends_at_the_cut() {
        let down = |cut| Sweep::Down { n: 30, seed: 0, cut };
        // the layers 30 .. m - 1, or 30 .. 2 for m = 2
        assert_eq!((down(10).last_step(), down(10).layer(down(10).last_step())), (23, 9));
        assert_eq!((down(2).last_step(), down(2).layer(30)), (30, 2));
        assert_eq!((down(30).last_step(), down(30).layer(3)), (3, 29));
        assert!(!down(10).reads_old(23) && down(10).reads_old(22));
        assert_eq!((down(10).lanes(2), down(10).lanes(30)), (1, lanes(29)));
        assert_eq!(Sweep::Up { last: 17 }.last_step(), 17);
    }

    /// The positions of a word's sources, looked up once a word (derived where the words repeat a
    /// nibble), against [`Sweep::source`] and [`NonZeroSet::index`] state by state: random source
    /// sets in windows far from 0 and at 0, every edge value's low bits, both sweeps (fixed, printed
    /// seed).
    #[test]
    fn sources_by_words_match_the_definition() {
        let seed = 0x0500_ace5_u64;
        println!("SplitMix64 seed {seed:#x}");
        let mut rng = fibtree_util::SplitMix64(seed);
        for case in 0..400 {
            let base = [0u64, 64, 640, 1 << 20][case % 4];
            // words that repeat a nibble often (a wide layer's stretches), else any
            let word = |rng: &mut fibtree_util::SplitMix64| match rng.below(3) {
                0 => EVERY_NIBBLE * rng.below(16),
                _ => rng.next_u64() & rng.next_u64(),
            };
            let words: Vec<u64> = (0..1 + rng.below(6)).map(|_| word(&mut rng)).collect();
            let from = NonZeroSet::new(LayerSet::from_words(base, words).unwrap());
            let e = rng.below(if case % 2 == 0 { 64 } else { 1024 });
            for sweep in [Sweep::Up { last: 9 }, Sweep::Down { n: 9, seed: 0, cut: 3 }] {
                for g0 in (0..base + 512).step_by(64) {
                    let by_word = sweep.sources_of_word(g0, e, &from);
                    for word in [u64::MAX, EVERY_NIBBLE * rng.below(16), rng.next_u64()] {
                        let mut got = vec![7];
                        by_word.extend(word, &mut got);
                        let want: Vec<u32> =
                            (0..64).filter(|b| (word >> b) & 1 == 1).map(|b| by_word.index(b)).collect();
                        assert_eq!(
                            got[1..],
                            want,
                            "seed {seed:#x}, case {case}, {sweep:?}, e {e}, g0 {g0}, word {word:#x}"
                        );
                    }
                    for b in 0..64 {
                        let want = from.index(sweep.source(g0 + b, e));
                        assert_eq!(
                            by_word.index(b),
                            want,
                            "seed {seed:#x}, case {case}, {sweep:?}, e {e}, g {}",
                            g0 + b
                        );
                    }
                }
            }
        }
    }
}
