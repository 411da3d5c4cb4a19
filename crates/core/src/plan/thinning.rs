//! The plan thinned to the states that count (docs/math.md, "Zero states"): each layer of a plan
//! whose states lie below W intersected with the support of c(k, .), the g with c(k, g) > 0.
//!
//! The support below W is made by its forward pass from layer 2 up ([`super::support`], restricted
//! to [0, W): a value at or above W never comes back below it, since (t + 1) xor e >= W iff
//! t + 1 >= W for an edge value e < W), while the plan is made from the top down and the top-down
//! half of a count from both ends walks down too. So the support is kept in checkpoints
//! ([`Support`]): one forward pass keeps the support of the two layers before every segment of B
//! layers (B about sqrt(n)), and a walk over the layers ([`Walk`]) recomputes a segment from its
//! checkpoint when it enters it. A walk downwards costs one more forward pass, and the memory is
//! O((n / B + B) x W / 8) bytes, not n x W / 8 (at n = 100000, W = 2^17: 16 KiB a layer, 14 MiB
//! in all, where every layer would take 1.6 GB).
//!
//! The states at or above W (those of targets at or above W, whose layers lie in the W-aligned
//! block of their g) are left in: a layer keeps every member at or above the end of its support.

use std::sync::Mutex;

use super::arrays::{clear_from, forward_image_into, words_below};
use super::layer_set::LayerSet;
use crate::error::Result;
use crate::hooks::Hooks;
use crate::kernels::{Isa, Kernel, compiled};

/// The support of every layer below W, in checkpoints: the two layers before each segment of
/// `every` layers, and the walk of the top-down sweeps ([`Support::layer_set`]).
#[derive(Debug)]
pub(crate) struct Support {
    /// The edge values 1 + G(k), 0 to the top layer.
    edge: Vec<u32>,
    /// W: every edge value is below it.
    w: u64,
    /// The layers of a segment: segment j holds the layers 2 + j B to 2 + (j + 1) B - 1.
    every: usize,
    /// For each segment, the support of the two layers before it (the older first).
    checkpoints: Vec<[Vec<u64>; 2]>,
    /// The instruction set the passes are compiled for.
    isa: Isa,
    /// The segment last recomputed for [`Support::layer_set`].
    shared: Mutex<Segment>,
}

/// The layers of one segment, recomputed from its checkpoint.
#[derive(Debug, Default)]
struct Segment {
    /// The segment held, if any.
    at: Option<usize>,
    layers: Vec<Vec<u64>>,
}

/// The layers of a segment for `layers` layers from 2 up: about the square root of them, so that
/// the checkpoints (two layers a segment) and a segment take about as much. Cost O(1).
fn segment_layers(layers: u64) -> usize {
    ((layers as f64).sqrt().ceil() as usize).max(1)
}

impl Support {
    /// The bytes of the support of the layers up to `top` below `w` ([`Support::new`]): the
    /// checkpoints, two segments (the shared walk's and one more walking at the same time) and the
    /// edge values. Cost O(1).
    pub(crate) fn bytes_for(top: u64, w: u64) -> u64 {
        if top < 2 {
            return 0;
        }
        let every = segment_layers(top - 1) as u64;
        let segments = (top - 1).div_ceil(every);
        let layer = 8 * words_below(w) as u64;
        (2 * segments + 2 * every).saturating_mul(layer).saturating_add(4 * (top + 1))
    }

    /// The support below `w` (a power of two above every edge value) of every layer from 2 to the
    /// top, `edge` holding the edge values 0 to the top (at least layer 2): one forward pass,
    /// keeping the checkpoints. `hooks` are checked every layer.
    ///
    /// Cost: O(n x w / 64) word operations, compiled for `isa` (as every recomputation of a
    /// segment); memory [`Support::bytes_for`].
    ///
    /// # Errors
    /// [`crate::Error::Interrupted`] once cancelled.
    pub(crate) fn new(edge: &[u32], w: u64, isa: Isa, hooks: Hooks) -> Result<Support> {
        let top = edge.len() - 1;
        assert!(top >= 2 && edge.iter().all(|&e| (e as u64) < w), "layers above 1, edge values below w");
        let every = segment_layers(top as u64 - 1);
        let words = words_below(w);
        let empty = vec![0; words];
        let mut checkpoints = vec![[empty.clone(), empty.clone()]];
        let pass = Pass { edge, w, from: 2, to: top, before: [&empty, &empty], hooks };
        compiled(
            isa,
            pass.with(|k, older, old, _| {
                if k > 2 && (k - 2) % every == 0 {
                    checkpoints.push([older.to_vec(), old.to_vec()]);
                }
            }),
        )?;
        let shared = Mutex::new(Segment::default());
        Ok(Support { edge: edge.to_vec(), w, every, checkpoints, isa, shared })
    }

    /// The top layer.
    fn top(&self) -> usize {
        self.edge.len() - 1
    }

    /// The bytes held: [`Support::bytes_for`] of its top and W.
    pub(crate) fn bytes(&self) -> u64 {
        Support::bytes_for(self.top() as u64, self.w)
    }

    /// The support of layer `k` (2 to the top) below W as a set over exactly [0, W), for
    /// [`LayerSet::retain_below`], through the walk this support keeps for such calls (one at a
    /// time): the top-down sweeps' ([`crate::engines::blocked::sweeps::Sweep::Down`]). Cost
    /// O(W / 64), and a segment's recomputation when `k` is in another segment than the last call's.
    pub(crate) fn layer_set(&self, k: usize) -> LayerSet {
        let mut shared = self.shared.lock().expect("not poisoned");
        let words = shared.layer(self, k, Hooks::default()).expect("a walk without a cancel flag").to_vec();
        LayerSet::from_words(0, words).expect("a window from 0")
    }

    /// Recomputes the layers of segment `j` into `layers` (reusing its buffers).
    ///
    /// # Errors
    /// [`crate::Error::Interrupted`] once cancelled.
    fn recompute(&self, j: usize, layers: &mut Vec<Vec<u64>>, hooks: Hooks) -> Result<()> {
        let from = 2 + j * self.every;
        let to = (from + self.every - 1).min(self.top());
        layers.resize_with(to + 1 - from, Vec::new);
        let [older, old] = &self.checkpoints[j];
        let pass = Pass { edge: &self.edge, w: self.w, from, to, before: [older, old], hooks };
        compiled(
            self.isa,
            pass.with(|k, _, _, new| {
                let layer = &mut layers[k - from];
                layer.clear();
                layer.extend_from_slice(new);
            }),
        )
    }
}

/// A walk over the support's layers in any order (best downwards or upwards, a segment at a time),
/// with a segment of its own.
pub(crate) struct Walk<'a> {
    support: &'a Support,
    segment: Segment,
}

impl<'a> Walk<'a> {
    /// A walk that holds no segment yet. Cost O(1).
    pub(crate) fn new(support: &'a Support) -> Walk<'a> {
        Walk { support, segment: Segment::default() }
    }

    /// The support of layer `k` (2 to the top) below W: W / 64 words from g = 0. `hooks` are
    /// checked every layer of a recomputation. Cost O(1), or a segment's recomputation (O(B x W / 64)
    /// word operations) when `k` is in another segment than the last call's.
    ///
    /// # Errors
    /// [`crate::Error::Interrupted`] once cancelled.
    pub(crate) fn layer(&mut self, k: usize, hooks: Hooks) -> Result<&[u64]> {
        self.segment.layer(self.support, k, hooks)
    }
}

impl Segment {
    /// Layer `k` of `support` below W, recomputing its segment where this is not it.
    fn layer(&mut self, support: &Support, k: usize, hooks: Hooks) -> Result<&[u64]> {
        assert!((2..=support.top()).contains(&k), "a layer from 2 to the top");
        let j = (k - 2) / support.every;
        if self.at != Some(j) {
            self.at = None;
            support.recompute(j, &mut self.layers, hooks)?;
            self.at = Some(j);
        }
        let whole = (support.w / 64) as usize;
        Ok(&self.layers[(k - 2) % support.every][..whole])
    }
}

/// The support's forward pass over the layers `from` to `to`, from the two layers before `from`
/// (`before`, the older first), arrays of [`words_below`] words: layer k is the image of layer
/// k - 1 through R = 1 + G(k - 2) and of layer k - 2 through L = 1 + G(k - 1) under
/// a -> (a + 1) xor e, below W, with R and (k >= 3) L themselves, the direct moves.
struct Pass<'a> {
    edge: &'a [u32],
    w: u64,
    from: usize,
    to: usize,
    before: [&'a [u64]; 2],
    hooks: Hooks<'a>,
}

impl<'a> Pass<'a> {
    /// The pass, calling `at(k, layer k - 2, layer k - 1, layer k)` as each layer is made.
    fn with<F: FnMut(usize, &[u64], &[u64], &[u64])>(self, at: F) -> PassWith<'a, F> {
        PassWith { pass: self, at }
    }
}

/// A [`Pass`] with what it calls at each layer: the kernel [`compiled`] runs.
struct PassWith<'a, F> {
    pass: Pass<'a>,
    at: F,
}

impl<F: FnMut(usize, &[u64], &[u64], &[u64])> Kernel for PassWith<'_, F> {
    type Output = Result<()>;

    #[inline(always)]
    fn run(self) -> Result<()> {
        let PassWith { pass: Pass { edge, w, from, to, before: [older, old], hooks }, mut at } = self;
        let words = older.len();
        let (mut older, mut old) = (older.to_vec(), old.to_vec());
        let (mut new, mut scratch) = (vec![0u64; words], vec![0u64; words]);
        for k in from..=to {
            hooks.check()?;
            new.fill(0);
            let (r, l) = (edge[k - 2] as usize, edge[k - 1] as usize);
            // layers 0 and 1 hold no moves
            if k >= 3 {
                forward_image_into(&mut new, &old, r, &mut scratch);
            }
            if k >= 4 {
                forward_image_into(&mut new, &older, l, &mut scratch);
            }
            new[r / 64] |= 1 << (r % 64);
            if k >= 3 {
                new[l / 64] |= 1 << (l % 64);
            }
            clear_from(&mut new, w);
            at(k, &older, &old, &new);
            // roll: layer k - 2 <- k - 1 <- k, the oldest buffer reused
            std::mem::swap(&mut older, &mut old);
            std::mem::swap(&mut old, &mut new);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every layer's support below W, walked down, up and at random (fixed, printed seed), as the
    /// support's own forward pass gives it, for tops whose segments end anywhere.
    #[test]
    fn a_walk_gives_the_support_below_w() {
        let seed = 0x005a_1ce7_u64;
        println!("SplitMix64 seed {seed:#x}");
        let mut rng = fibtree_util::SplitMix64(seed);
        for top in [2u64, 3, 4, 5, 17, 50, 301] {
            let edge = crate::game::edge_values(top).unwrap();
            let w = crate::game::window_of_edge(edge.iter().copied().max().unwrap());
            let support = Support::new(&edge, w, crate::kernels::isa(), Hooks::default()).unwrap();
            let want: Vec<Vec<u64>> = (2..=top)
                .map(|k| super::super::support_set(k, Hooks::default()).unwrap().iter().filter(|&g| g < w).collect())
                .collect();
            let members = |words: &[u64]| -> Vec<u64> {
                (0..64 * words.len() as u64).filter(|&g| words[g as usize / 64] >> (g % 64) & 1 == 1).collect()
            };
            let mut walk = Walk::new(&support);
            let mut order: Vec<usize> = (2..=top as usize).rev().chain(2..=top as usize).collect();
            order.extend((0..40).map(|_| 2 + rng.below(top - 1) as usize));
            for k in order {
                let got = walk.layer(k, Hooks::default()).unwrap();
                assert_eq!(got.len() as u64, w / 64);
                assert_eq!(members(got), want[k - 2], "top {top}, layer {k}, seed {seed:#x}");
                assert_eq!(support.layer_set(k).iter().collect::<Vec<_>>(), want[k - 2]);
            }
            assert!(support.bytes() >= 8 * (w / 64) * (2 * support.checkpoints.len() as u64));
        }
    }
}
