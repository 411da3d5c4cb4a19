//! Which states (k, g) a set of targets needs: the backward pass.
//!
//! c(k, g) reads c(k-1, (g xor R) - 1) and c(k-2, (g xor L) - 1) with L = 1 + G(k-1), R = 1 + G(k-2),
//! so walking those edges backwards from the targets marks every state the forward pass must compute.
//! Layers 0 and 1 hold no moves and are never marked. Each layer is a bitset over a window of g (a
//! multiple of 64 wide), so a target g far above every Grundy value costs no more than g = 0.

use crate::budget;
use crate::error::{Error, Param, Result};
use crate::hooks::Hooks;

/// A set of g values of one layer: a bitset over `[base, base + 64 * words.len())`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LayerSet {
    base: u64,
    words: Vec<u64>,
}

impl LayerSet {
    /// An empty set able to hold every g in `[lo, hi]`.
    fn with_range(lo: u64, hi: u64) -> Self {
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

    /// The union of the images of `sources` (set, edge) under `step` and of the values `singles`,
    /// trimmed. Cost O(the sources' windows / 64 + singles).
    pub(crate) fn image(sources: &[(&LayerSet, u64)], step: Step, singles: &[u64]) -> LayerSet {
        let mut bounds = singles.iter().fold(None, |b, &g| Some(widen(b, g / 64, g / 64)));
        for &(set, e) in sources {
            if let Some((lo, hi)) = set.image_bounds(e, step) {
                bounds = Some(widen(bounds, lo, hi));
            }
        }
        let Some((lo, hi)) = bounds else { return LayerSet::default() };
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

    #[inline]
    fn insert(&mut self, g: u64) {
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

/// The states a set of targets needs, layer by layer, with the edge values `1 + G(k)` the
/// recurrence uses.
#[derive(Debug)]
pub struct Plan {
    edge: Vec<u32>,
    layers: Vec<LayerSet>,
    /// The number of states of each layer.
    lens: Vec<u32>,
}

impl Plan {
    /// The states needed to compute c(n, g) for every `(n, g)` in `targets`, checking `hooks`'
    /// cancel flags every layer.
    ///
    /// Cost: O(states) time after O(top n) for the Grundy values; memory one bit per g of each
    /// layer's window (for g = 0 the window is the smallest power of two above every G(k) + 1, 8192
    /// at n = 10000: 10 MB in all) plus 4 bytes per layer for the Grundy values.
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] for an n above [`crate::game::MAX_N`];
    /// [`crate::Error::OutOfMemory`] as soon as the bitsets are projected to exceed `memory_limit`
    /// bytes; [`crate::Error::Interrupted`] once cancelled.
    pub fn new(targets: &[(u64, u64)], memory_limit: u64, hooks: Hooks) -> Result<Plan> {
        let top = targets.iter().map(|t| t.0).max().unwrap_or(0);
        crate::game::check_n(top)?;
        // Before allocating anything: the Grundy values, one set per layer and at least one word in
        // each are a floor under the plan's size.
        let per_layer = 4 + std::mem::size_of::<LayerSet>() as u64;
        let floor = (top + 1) * (per_layer + 8);
        budget::check_memory(Param::N, floor, memory_limit)?;
        let edge = crate::game::edge_values(top)?;
        // Every g a layer needs differs from the nearest target's g in bits below the smallest power
        // of two above every edge value, so a window is about that wide: that many bits a layer.
        let window = (edge.iter().copied().max().unwrap_or(0) as u64 + 1).next_power_of_two().max(64);
        let estimate = (top + 1).saturating_mul(per_layer + window / 8);
        budget::check_memory(Param::N, estimate, memory_limit)?;
        let n = top as usize;
        let mut by_layer = targets.to_vec();
        by_layer.sort_unstable();
        // by_layer[first_at[i]..first_at[i + 1]] are the targets at layer i
        let first_at: Vec<usize> = (0..=n + 1).map(|i| by_layer.partition_point(|t| (t.0 as usize) < i)).collect();
        let mut layers = vec![LayerSet::default(); n + 1];
        let mut used = (top + 1) * per_layer;
        // Layer i's members come from the targets at i, layer i + 1 (through R of layer i + 1,
        // which is edge[i - 1]) and layer i + 2 (through L of layer i + 2, which is edge[i + 1]).
        for i in (2..=n).rev() {
            hooks.check()?;
            let own: Vec<u64> = by_layer[first_at[i]..first_at[i + 1]].iter().map(|t| t.1).collect();
            let sources = back_sources(i, [layers.get(i + 1), layers.get(i + 2)], &edge);
            let mut bounds = own.iter().fold(None, |b, &g| Some(widen(b, g / 64, g / 64)));
            for &(set, e) in &sources {
                if let Some((lo, hi)) = set.image_bounds(e, Step::Back) {
                    bounds = Some(widen(bounds, lo, hi));
                }
            }
            let Some((lo, hi)) = bounds else { continue };
            let window_bytes = (hi - lo + 1).saturating_mul(8);
            if used.saturating_add(window_bytes) > memory_limit {
                let estimate = used.saturating_add(window_bytes.saturating_mul(i as u64 - 1));
                budget::check_memory(Param::N, estimate, memory_limit)?;
            }
            let set = LayerSet::image(&sources, Step::Back, &own);
            used += set.bytes();
            budget::check_memory(Param::N, used + set.bytes() * (i as u64 - 2), memory_limit)?;
            layers[i] = set;
        }
        let lens = layers.iter().map(|l| l.len() as u32).collect();
        Ok(Plan { edge, layers, lens })
    }

    /// The highest layer.
    pub fn top(&self) -> usize {
        self.layers.len() - 1
    }

    /// The states of layer `k`.
    pub fn layer(&self, k: usize) -> &LayerSet {
        &self.layers[k]
    }

    /// The edge value `1 + G(k)`: what T(k) contributes hung under a root edge (0 for k = 0).
    pub fn edge_value(&self, k: usize) -> u32 {
        self.edge[k]
    }

    /// The number of states in all layers. Cost O(n).
    pub fn states(&self) -> u64 {
        self.lens.iter().map(|&l| l as u64).sum()
    }

    /// The number of states of each layer, 0 to the top. Cost O(1).
    pub(crate) fn lens(&self) -> &[u32] {
        &self.lens
    }

    /// The number of states of layer `k`. Cost O(1).
    pub fn layer_len(&self, k: usize) -> usize {
        self.lens[k] as usize
    }

    /// The largest number of states in one layer. Cost O(n).
    pub fn widest_layer(&self) -> usize {
        self.lens.iter().copied().max().unwrap_or(0) as usize
    }

    /// Bytes held by the plan.
    pub fn bytes(&self) -> u64 {
        4 * self.edge.len() as u64 + self.layers.iter().map(LayerSet::bytes).sum::<u64>()
    }

    /// The plan's [`Sizes`]: its bytes, its widest layer and the highest g of a window or edge.
    /// Cost O(n).
    pub(crate) fn sizes(&self) -> Sizes {
        let edges = self.edge.iter().copied().max().unwrap_or(0) as u64;
        let windows = self.layers.iter().filter(|l| l.window() > 0).map(|l| l.base() + l.window() as u64 - 1);
        Sizes { plan: self.bytes(), widest: self.widest_layer() as u64, highest: windows.fold(edges, u64::max) }
    }
}

/// Where layer `i`'s states are read from by the layers above it: layer i + 1 through its R (edge
/// i - 1) and layer i + 2 through its L (edge i + 1), those that exist and are not empty.
fn back_sources<'a>(i: usize, above: [Option<&'a LayerSet>; 2], edge: &[u32]) -> Vec<(&'a LayerSet, u64)> {
    above
        .into_iter()
        .zip([i - 1, i + 1])
        .filter_map(|(set, e)| set.filter(|s| !s.is_empty()).map(|s| (s, edge[e] as u64)))
        .collect()
}

/// The sizes of the plan of a set of targets, counted layer by layer without keeping the plan:
/// what [`Plan::new`] would hold, in two layers' memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Census {
    /// The number of states of each layer, 0 to the top.
    pub(crate) lens: Vec<u32>,
    /// The bytes [`Plan::bytes`] would give.
    pub(crate) plan_bytes: u64,
    /// The highest g of any layer's window, or edge value (as in [`Sizes::highest`]).
    pub(crate) highest: u64,
}

impl Census {
    /// The largest number of states in one layer. Cost O(n).
    pub(crate) fn widest_layer(&self) -> u64 {
        self.lens.iter().copied().max().unwrap_or(0) as u64
    }

    /// The plan's [`Sizes`], as [`Plan::sizes`] would give them.
    pub(crate) fn sizes(&self) -> Sizes {
        Sizes { plan: self.plan_bytes, widest: self.widest_layer(), highest: self.highest }
    }
}

/// The [`Census`] of the plan of `targets`: every layer of [`Plan::new`] made in turn, from the top
/// down, counted and dropped once the two layers below it are made.
///
/// Cost: the time of [`Plan::new`] (O(window / 64) word operations a layer: 2 x 10^8 at n = 100000,
/// where the window is 2^17; for targets below W, as for g = 0, by whole-array passes in 0.6 s at
/// n = 100000 and about a minute at n = 1,000,000) without its memory: two layers' bitsets (W / 8 bytes each, 128 KiB
/// at n = 1,000,000) and 8 bytes a layer for the edge values and the counts.
///
/// # Errors
/// [`crate::Error::InvalidArgument`] for an n above [`crate::game::MAX_N`];
/// [`crate::Error::Interrupted`] once cancelled (checked every layer).
pub(crate) fn census(targets: &[(u64, u64)], hooks: Hooks) -> Result<Census> {
    census_in(targets, crate::kernel()?.isa(), hooks)
}

/// [`census`] with its kernel compiled for `isa`.
fn census_in(targets: &[(u64, u64)], isa: crate::arch::Isa, hooks: Hooks) -> Result<Census> {
    let top = targets.iter().map(|t| t.0).max().unwrap_or(0);
    crate::game::check_n(top)?;
    let edge = crate::game::edge_values(top)?;
    let n = top as usize;
    let mut by_layer = targets.to_vec();
    by_layer.sort_unstable();
    let w = (edge.iter().copied().max().unwrap_or(0) as u64 + 1).next_power_of_two().max(64);
    if targets.iter().all(|t| t.1 < w) {
        return crate::arch::compiled(isa, CensusBelow { targets: by_layer, edge: &edge, w: w as usize, hooks });
    }
    let mut lens = vec![0u32; n + 1];
    let mut plan_bytes = 4 * (top + 1);
    let mut highest = edge.iter().copied().max().unwrap_or(0) as u64;
    // layers i + 1 and i + 2 as layer i is made
    let (mut above1, mut above2) = (LayerSet::default(), LayerSet::default());
    for i in (2..=n).rev() {
        hooks.check()?;
        let own: Vec<u64> = std::iter::from_fn(|| by_layer.pop_if(|t| t.0 as usize == i).map(|t| t.1)).collect();
        let set = LayerSet::image(&back_sources(i, [Some(&above1), Some(&above2)], &edge), Step::Back, &own);
        lens[i] = set.len() as u32;
        plan_bytes += set.bytes();
        if set.window() > 0 {
            highest = highest.max(set.base() + set.window() as u64 - 1);
        }
        (above1, above2) = (set, above1);
    }
    Ok(Census { lens, plan_bytes, highest })
}

/// The census where every target's g is below `w`, the smallest power of two (at least 64) above
/// every edge value (`edge`, 0 to the top layer): every state of the plan is then below `w` too
/// (xor with a value below `w` and subtracting one cannot leave [0, w)), so each layer is a bitset
/// of w / 64 words at fixed places, and its image a few passes over whole arrays that the compiler
/// vectorises: 0.6 s at n = 100000 on a 2-core AMD EPYC with AVX2, against 2.9 s by [`LayerSet::image`].
/// `targets` is sorted.
///
/// Cost: O(n x w / 64) word operations; memory five arrays of w / 64 words, and 4 bytes a layer.
/// Compiled for the kernel set in use ([`crate::arch::compiled`]), for its vectors and `popcnt`.
struct CensusBelow<'a> {
    targets: Vec<(u64, u64)>,
    edge: &'a [u32],
    w: usize,
    hooks: Hooks<'a>,
}

impl crate::arch::Vectorised for CensusBelow<'_> {
    type Output = Result<Census>;

    #[inline(always)]
    fn run(self) -> Result<Census> {
        census_below(self.targets, self.edge, self.w, self.hooks)
    }
}

/// The loop of [`CensusBelow`].
#[inline(always)]
fn census_below(mut targets: Vec<(u64, u64)>, edge: &[u32], w: usize, hooks: Hooks) -> Result<Census> {
    let n = edge.len() - 1;
    // at least a block of back_image_into: the words above w stay empty
    let words = (w / 64).max(8);
    let mut lens = vec![0u32; n + 1];
    let mut plan_bytes = 4 * (n as u64 + 1);
    let mut highest = edge.iter().copied().max().unwrap_or(0) as u64;
    // layers i + 1 and i + 2 (and whether they have a member) as layer i is made, and scratch
    let (mut above1, mut above2) = ((vec![0u64; words], false), (vec![0u64; words], false));
    let mut cur = vec![0u64; words];
    let mut image = vec![0u64; words + 1];
    for i in (2..=n).rev() {
        hooks.check()?;
        cur.fill(0);
        for ((set, any), e) in [(&above1, i - 1), (&above2, i + 1)] {
            if *any {
                back_image_into(&mut cur, set, edge[e] as usize, &mut image);
            }
        }
        while let Some((_, g)) = targets.pop_if(|t| t.0 as usize == i) {
            cur[g as usize / 64] |= 1 << (g % 64);
        }
        let count: u64 = cur.iter().map(|w| w.count_ones() as u64).sum();
        lens[i] = count as u32;
        if count > 0 {
            let first = cur.iter().position(|&w| w != 0).expect("a member");
            let last = cur.iter().rposition(|&w| w != 0).expect("a member");
            plan_bytes += 8 * (last - first + 1) as u64;
            highest = highest.max(64 * (last as u64 + 1) - 1);
        }
        // roll: layer i + 2 <- i + 1 <- i, the oldest buffer reused
        std::mem::swap(&mut above2, &mut above1);
        std::mem::swap(&mut above1.0, &mut cur);
        above1.1 = count > 0;
    }
    Ok(Census { lens, plan_bytes, highest })
}

/// Adds to `dst` the image of `src` under the backward step with edge `e` (g -> (g xor e) - 1), both
/// bitsets of the same power-of-two number of words (at least 8) from g = 0, e below their width;
/// `scratch` has one word more. Cost: two passes over the words, one for the xor (of the words'
/// indices, and within them the swaps of [`xor_bits`]) and one for the shift by one.
#[inline(always)]
fn back_image_into(dst: &mut [u64], src: &[u64], e: usize, scratch: &mut [u64]) {
    const BLOCK: usize = 8;
    let (high, low) = (e / 64, e % 64);
    let len = src.len();
    assert!(len.is_power_of_two() && len >= BLOCK && scratch.len() > len && high < len, "bitsets from g = 0");
    // g xor e: whole words move to index v xor high (aligned blocks of 8 words move whole, the words
    // within them by the low three bits of high), the bits within them as xor_bits moves them (the
    // swaps `low` selects, each over the whole block)
    for (b, out) in scratch[..len].chunks_exact_mut(BLOCK).enumerate() {
        let from = (b * BLOCK) ^ (high & !(BLOCK - 1));
        let block: [u64; BLOCK] = src[from..from + BLOCK].try_into().expect("a block");
        let mut words: [u64; BLOCK] = std::array::from_fn(|v| block[v ^ (high % BLOCK)]);
        for (t, &mask) in LOWER_HALVES.iter().enumerate() {
            if (low >> t) & 1 == 1 {
                let d = 1 << t;
                for x in &mut words {
                    *x = ((*x & mask) << d) | ((*x >> d) & mask);
                }
            }
        }
        out.copy_from_slice(&words);
    }
    scratch[len] = 0;
    // minus one: bit 0 of word v + 1 becomes bit 63 of word v; bit 0 of word 0 is g = -1, no state
    for (v, out) in dst.iter_mut().enumerate() {
        *out |= (scratch[v] >> 1) | (scratch[v + 1] << 63);
    }
}

/// What a run's memory estimate depends on in its plan: what [`Guard`] hands the estimate of a whole
/// run, from a prediction before the plan exists and from the plan itself afterwards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Sizes {
    /// The plan's bytes.
    pub(crate) plan: u64,
    /// The states of its widest layer.
    pub(crate) widest: u64,
    /// The highest g of any layer's window, or edge value.
    pub(crate) highest: u64,
}

/// The memory a prediction may spend to give a refusal the estimate of the whole run rather than a
/// bound: a plan up to this size (n up to about 15,000 at g = 0) is built even past the limit, then
/// measured.
pub(crate) const ESTIMATE_ALLOWANCE: u64 = 16 << 20;

/// The bytes of a plan's bookkeeping per layer: one edge value and one (empty) set.
const PER_LAYER: u64 = 4 + std::mem::size_of::<LayerSet>() as u64;

/// The memory guard of a run over a plan, in the order that lets nothing large be allocated and
/// every refusal show the estimate of the whole run: `whole` gives that estimate from the plan's
/// [`Sizes`].
///
/// 1. the floor, O(1): the plan at one word a layer and one state a layer;
/// 2. the prediction, O(n) time and no memory: windows as wide as the targets' spread plus twice
///    the smallest power of two W above every edge value, a widest layer of a quarter of its window
///    (docs/math.md: 2048 of 8192 at n = 10000);
/// 3. the plan itself, when the prediction fits or the plan is small ([`ESTIMATE_ALLOWANCE`]), and
///    the estimate from its real sizes.
///
/// Cost: O(top n) time before the plan; then the plan's own. Cancellable (`hooks`) throughout.
///
/// # Errors
/// [`crate::Error::InvalidArgument`] for an n above [`crate::game::MAX_N`];
/// [`crate::Error::OutOfMemory`] naming [`Param::N`], with the whole run's estimate, past `limit`;
/// [`crate::Error::Interrupted`] once cancelled.
pub(crate) fn guarded(
    targets: &[(u64, u64)],
    limit: u64,
    hooks: Hooks,
    whole: impl Fn(&Sizes) -> u64,
) -> Result<(Plan, u64)> {
    let floor = floor_estimate(targets, &whole)?;
    if floor > limit.max(ESTIMATE_ALLOWANCE) {
        return Err(Error::OutOfMemory { param: Param::N, estimate: floor, limit });
    }
    let top = targets.iter().map(|t| t.0).max().unwrap_or(0);
    let w = (crate::game::max_edge_value_with(top, hooks)? as u64 + 1).next_power_of_two().max(64);
    let lo = targets.iter().map(|t| t.1).min().unwrap_or(0);
    let hi = targets.iter().map(|t| t.1).max().unwrap_or(0);
    let window = (hi - lo).saturating_add(2 * w);
    let predicted_sizes = Sizes {
        plan: (top + 1).saturating_mul(PER_LAYER + 8 * (window / 64 + 1)),
        widest: (window / 4).max(1),
        highest: hi.saturating_add(w),
    };
    let predicted = whole(&predicted_sizes);
    if predicted > limit && predicted_sizes.plan > ESTIMATE_ALLOWANCE {
        return Err(Error::OutOfMemory { param: Param::N, estimate: predicted, limit });
    }
    let budget = if predicted <= limit { limit } else { limit.max(ESTIMATE_ALLOWANCE) };
    let plan = Plan::new(targets, budget, hooks).map_err(|e| match e {
        // the plan outgrew its prediction: the whole run with the plan as far as it was projected
        Error::OutOfMemory { estimate, .. } => {
            let estimate = whole(&Sizes { plan: estimate, ..predicted_sizes }).max(predicted);
            Error::OutOfMemory { param: Param::N, estimate, limit }
        }
        e => e,
    })?;
    let estimate = whole(&plan.sizes());
    budget::check_memory(Param::N, estimate, limit)?;
    Ok((plan, estimate))
}

/// The floor of the whole run's estimate (step 1 of [`guarded`]): the plan at one word and one
/// state a layer. Cost O(targets).
///
/// # Errors
/// [`crate::Error::InvalidArgument`] for an n above [`crate::game::MAX_N`].
pub(crate) fn floor_estimate(targets: &[(u64, u64)], whole: impl Fn(&Sizes) -> u64) -> Result<u64> {
    let top = targets.iter().map(|t| t.0).max().unwrap_or(0);
    crate::game::check_n(top)?;
    let highest = targets.iter().map(|t| t.1).max().unwrap_or(0);
    Ok(whole(&Sizes { plan: (top + 1) * (PER_LAYER + 8), widest: 1, highest }))
}

/// Whether c(n, g) = 0 is known without counting: g above [`crate::game::value_bound`], or g at or
/// above W (the smallest power of two, at least 64, above every edge value up to n, where a plan
/// would be spent on states of no move) and outside the support of c(n, .). Below W the count
/// itself is the cheaper way to the answer.
///
/// Cost: nothing for g < 64; else O(n) for the bound, and where g lies between W and the bound the
/// support's forward pass ([`support`]).
///
/// # Errors
/// [`crate::Error::InvalidArgument`] for an n above [`crate::game::MAX_N`];
/// [`crate::Error::Interrupted`] once cancelled.
pub(crate) fn known_zero(n: u64, g: u64, hooks: Hooks) -> Result<bool> {
    crate::game::check_n(n)?;
    if n < 2 {
        return Ok(true);
    }
    if g < 64 {
        return Ok(false);
    }
    let e = crate::game::max_edge_value_with(n, hooks)? as u64;
    let bound = crate::game::value_bound(n, e).unwrap_or(0);
    if g > bound {
        return Ok(true);
    }
    if g < (e + 1).next_power_of_two().max(64) {
        return Ok(false);
    }
    Ok(!support(n, hooks)?.contains(g))
}

/// The support of c(n, .): every g that some move of T(n) leaves, that is every g with c(n, g) > 0.
///
/// Forward pass: the moves of T(k) leave R, L (for k >= 3), (t + 1) xor R for t in the support of
/// layer k-1 and (t + 1) xor L for t in that of layer k-2.
///
/// Cost: O(sum over layers of the support's window / 64) time, two windows of memory (the support of
/// layer n has about 6.5 n members below about 11 n); `hooks` are checked every layer.
///
/// # Errors
/// [`crate::Error::InvalidArgument`] for an n above [`crate::game::MAX_N`];
/// [`crate::Error::Interrupted`] once cancelled.
pub fn support(n: u64, hooks: Hooks) -> Result<LayerSet> {
    let edge = crate::game::edge_values(n)?;
    let (mut older, mut old) = (LayerSet::default(), LayerSet::default());
    for k in 2..=n as usize {
        hooks.check()?;
        let (l, r) = (edge[k - 1] as u64, edge[k - 2] as u64);
        let direct: &[u64] = if k >= 3 { &[r, l] } else { &[r] };
        let set = LayerSet::image(&[(&old, r), (&older, l)], Step::Forward, direct);
        older = std::mem::replace(&mut old, set);
    }
    Ok(if n >= 2 { old } else { LayerSet::default() })
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
const LOWER_HALVES: [u64; 6] = [
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
fn xor_bits(mut x: u64, s: u64) -> u64 {
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
        let mut rng = crate::rng::SplitMix64(seed);
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

    #[test]
    fn state_count_at_10000_matches_math_md() {
        let plan = Plan::new(&[(10_000, 0)], u64::MAX, Hooks::default()).unwrap();
        let states = plan.states();
        assert!((16_600_000..16_800_000).contains(&states), "{states}");
        assert_eq!(plan.widest_layer(), 2048);
        assert!(plan.layers.iter().all(|l| l.iter().all(|g| g < 8192)));
    }

    #[test]
    fn the_census_counts_what_the_plan_holds() {
        let cases: Vec<Vec<(u64, u64)>> = vec![
            vec![(0, 0)],
            vec![(2, 0), (3, 1)],
            vec![(3000, 0)],
            vec![(12_000, 0), (11_999, 3)],
            vec![(1200, 5), (1100, 0), (1200, 7), (40, 9)],
            vec![(333, 1 << 40)],
            (0..=300).map(|k| (k, k % 5)).collect(),
        ];
        for targets in &cases {
            let plan = Plan::new(targets, u64::MAX, Hooks::default()).unwrap();
            for isa in crate::arch::Isa::available() {
                let census = census_in(targets, isa, Hooks::default()).unwrap();
                assert_eq!(census.lens, plan.lens(), "{targets:?} with {isa:?}");
                assert_eq!(census.lens.iter().map(|&l| l as u64).sum::<u64>(), plan.states());
                assert_eq!(census.sizes(), plan.sizes(), "{targets:?} with {isa:?}");
            }
        }
    }

    #[test]
    fn plan_is_closed_under_the_recurrence() {
        for (n, g) in [(40u64, 0u64), (57, 9), (30, 1 << 40)] {
            let plan = Plan::new(&[(n, g)], u64::MAX, Hooks::default()).unwrap();
            assert!(plan.layer(n as usize).contains(g));
            for i in 3..=n as usize {
                for j in plan.layer(i).iter() {
                    let r = plan.edge_value(i - 2) as u64;
                    let l = plan.edge_value(i - 1) as u64;
                    if let Some(a) = (j ^ r).checked_sub(1) {
                        assert!(i - 1 < 2 || plan.layer(i - 1).contains(a));
                    }
                    if let Some(b) = (j ^ l).checked_sub(1) {
                        assert!(i - 2 < 2 || plan.layer(i - 2).contains(b));
                    }
                }
            }
        }
    }

    #[test]
    fn support_matches_math_md_at_2000() {
        let s = support(2000, Hooks::default()).unwrap();
        assert_eq!(s.len(), 13_084);
        assert_eq!(s.iter().last(), Some(22_526));
        assert!(support(1, Hooks::default()).unwrap().is_empty());
        assert_eq!(support(2, Hooks::default()).unwrap().iter().collect::<Vec<_>>(), vec![0]);
    }

    /// docs/math.md, "Where the counts are zero": every value a move leaves is at most the bound.
    #[test]
    fn value_bound_holds_and_known_zero_matches_the_support() {
        for n in 2..=400u64 {
            let s = support(n, Hooks::default()).unwrap();
            let e = crate::game::max_edge_value(n).unwrap() as u64;
            let bound = crate::game::value_bound(n, e).unwrap();
            assert!(s.iter().all(|g| g <= bound), "n = {n}");
        }
        assert_eq!(crate::game::value_bound(1, 1), None);
        for n in [0u64, 1, 2, 10, 57, 300] {
            let s = support(n, Hooks::default()).unwrap();
            for g in (0..3000).chain([1 << 40, u64::MAX]) {
                if known_zero(n, g, Hooks::default()).unwrap() {
                    assert!(!s.contains(g), "({n}, {g})");
                } else if g >= 1024 {
                    assert!(s.contains(g), "({n}, {g}): a g far above the edge values is counted only in the support");
                }
            }
        }
        assert!(known_zero(20_000, 1 << 60, Hooks::default()).unwrap());
        assert!(known_zero(10_000, u64::MAX, Hooks::default()).unwrap());
    }

    /// The guard refuses with the estimate of the whole run, not of the part that first fails.
    #[test]
    fn guard_refuses_with_the_whole_estimate() {
        let whole = |s: &Sizes| 1_000_000 + s.plan + 100 * s.widest;
        let (plan, estimate) = guarded(&[(1000, 0)], u64::MAX, Hooks::default(), whole).unwrap();
        assert_eq!(estimate, whole(&plan.sizes()));
        for limit in [1, 44 << 10, estimate - 1] {
            match guarded(&[(1000, 0)], limit, Hooks::default(), whole) {
                Err(Error::OutOfMemory { estimate: e, limit: l, .. }) => assert_eq!((e, l), (estimate, limit)),
                other => panic!("{other:?}"),
            }
        }
        // too large to plan: refused at once with the prediction, far above the limit
        let refused = guarded(&[(crate::game::MAX_N, 0)], 1 << 30, Hooks::default(), whole);
        assert!(matches!(refused, Err(Error::OutOfMemory { estimate, .. }) if estimate > 1 << 36), "{refused:?}");
    }

    #[test]
    fn memory_limit_is_enforced() {
        assert!(matches!(Plan::new(&[(5_000, 0)], 100_000, Hooks::default()), Err(crate::Error::OutOfMemory { .. })));
    }
}
