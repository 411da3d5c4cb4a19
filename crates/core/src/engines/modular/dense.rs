//! The dense modular engine: every g of each layer's window, in three rolling layers of arrays per
//! modulus, each layer split by the class of g modulo 4.
//!
//! Let W be the smallest power of two above every g of every window and every edge value 1 + G(k)
//! (at least 256 here), and V = W / 4. The states a target needs fall in few classes of g modulo 4
//! ([`classes`]: for f(n) one or two a layer), so each layer keeps one array per class it needs, of
//! V + 1 residues with `D_{k,c}[x] = c(k, 4 (x - 1) + c)` for x >= 1 and `D_{k,c}[0] = 0`. For
//! k >= 2, with R = 1 + G(k-2), L = 1 + G(k-1) and g = 4 q + c, the recurrence
//! `c(k, g) = [g == R] + [k >= 3][g == L] + c(k-1, (g xor R) - 1) + c(k-2, (g xor L) - 1)` reads
//!
//! ```text
//! (g xor R) - 1 = 4 (q xor (R >> 2)) + (c xor (R & 3)) - 1
//! D_{k,c}[q + 1] = D_{k-1,c'}[(q xor (R >> 2)) + a] + D_{k-2,c''}[(q xor (L >> 2)) + b] (+ the direct moves)
//! ```
//!
//! with c' = (c xor (R & 3)) - 1 mod 4 and a = 1, or, where c xor (R & 3) = 0, c' = 3 and a = 0 (the
//! borrow of the - 1; `D[0] = 0` is the term of a negative g); c'' and b likewise with L. Each array
//! is thus the dense sweep of [`crate::kernels::window`] over V lanes, its sources shifted by a and b:
//! a quarter of the lanes of a sweep over all of W where a layer needs one class. Layers 0 and 1 are
//! all zero (which takes care of the k >= 3 and k >= 4 conditions). Every q of a layer's window is
//! computed, members of the plan or not, and every lane outside the window and the classes kept is
//! 0 (what an earlier layer left there is cleared): a member reads members and states of count zero
//! (the plan leaves those out, docs/math.md "Zero states"), and a state of count zero reads only
//! such states, so that by induction each reads 0 or its count, whatever a non-member of non-zero
//! count holds; every stored value stays below m because the arrays start at zero and every write is
//! a sum reduced mod m or a clearing. A block of lanes
//! aligned to the vector reads a block of the source aligned to it (offset by a) permuted by xor
//! with the low bits of R >> 2 (or L >> 2): with AVX-512 one load, one lane permutation, an add and
//! a min per 8 lanes (16 lanes of `u32` for m < 2^31). The moduli run in parallel, one rayon task
//! each.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::NAME;
use crate::error::Result;
use crate::hooks::Hooks;
use crate::kernels::{AlignedLanes, Isa, Residue, WindowStep, window};
use crate::plan::Plan;
use crate::targets::Targets;

/// Moduli below this run in `u32` lanes, twice as many per vector (a sum of two residues is below
/// 2^32).
pub(crate) const NARROW_LIMIT: u64 = 1 << 31;

/// Lanes of work (g values of one modulus) between two calls of the progress callback.
const PROGRESS_EVERY: u64 = 1 << 20;

/// The classes of g modulo 4 a layer may hold: bit c of a layer's mask is set where the layer keeps
/// the array of the g with g mod 4 = c.
const CLASSES: usize = 4;

/// The g of one class that are 1 in a plan's bitset word: bit c of each group of four.
const CLASS_BITS: u64 = 0x1111_1111_1111_1111;

/// What a dense sweep computes: the edge values `1 + G(k)` for k up to the top layer, and for each
/// layer the window `[lo, hi)` of g it computes (empty for layers 0 and 1) and the classes of g
/// modulo 4 it keeps; with the plan the windows come from, if any, which every target must be a
/// member of.
pub(super) struct Shape<'a> {
    edge: Vec<u32>,
    windows: Vec<(usize, usize)>,
    classes: Vec<u8>,
    plan: Option<&'a Plan>,
}

impl<'a> Shape<'a> {
    /// The plan's windows, and the classes of its members. Cost O(the plan's words).
    pub(super) fn of_plan(plan: &'a Plan) -> Shape<'a> {
        let top = plan.top();
        let windows = (0..=top)
            .map(|k| {
                let (lo, window) = plan.window(k);
                if k < 2 || window == 0 { (0, 0) } else { (lo as usize, lo as usize + window) }
            })
            .collect();
        let classes = (0..=top)
            .map(|k| {
                let any = plan.word_union(k);
                (0..CLASSES).filter(|&c| any & (CLASS_BITS << c) != 0).fold(0, |mask, c| mask | 1 << c)
            })
            .collect();
        Shape { edge: (0..=top).map(|k| plan.edge_value(k)).collect(), windows, classes, plan: Some(plan) }
    }

    /// Every g below `w` in every layer from 2 to the top, with the edge values `edge`, in the
    /// classes that `targets` (each at most the top layer) need ([`classes`]). Cost O(top + targets).
    pub(super) fn full(edge: Vec<u32>, w: usize, targets: &Targets) -> Shape<'static> {
        let windows = (0..edge.len()).map(|k| if k < 2 { (0, 0) } else { (0, w) }).collect();
        let classes = classes(&edge, targets);
        Shape { edge, windows, classes, plan: None }
    }

    fn top(&self) -> usize {
        self.edge.len() - 1
    }
}

/// The classes of g modulo 4 that each layer from 0 to the top (`edge.len() - 1`) needs for
/// `targets` (each at most the top layer): bit c of mask k is set where a state (k, g) with g mod 4
/// = c may be needed, closed under the recurrence (a state of class c at layer k reads class
/// `(c xor (R & 3)) - 1 mod 4` of layer k-1, and likewise with L of layer k-2); layers 0 and 1 none.
/// For f(n) it is one or two classes a layer (one at n = 10000, two at n = 20000). Cost O(top +
/// targets).
pub(super) fn classes(edge: &[u32], targets: &Targets) -> Vec<u8> {
    let top = edge.len() - 1;
    let mut mask = vec![0u8; top + 1];
    for &(n, g) in targets.iter().filter(|t| t.0 >= 2) {
        mask[n as usize] |= 1 << (g & 3);
    }
    // layer i is read by layer i + 1 through its R (edge i - 1) and by layer i + 2 through its L (edge i + 1)
    for i in (2..=top).rev() {
        for (from, e) in [(i + 1, i - 1), (i + 2, i + 1)] {
            let Some(&from) = mask.get(from) else { continue };
            let e = edge[e] as u8 & 3;
            for c in (0..CLASSES as u8).filter(|c| from >> c & 1 == 1) {
                mask[i] |= 1 << ((c ^ e).wrapping_sub(1) & 3);
            }
        }
    }
    mask
}

/// The array a lane of class `c` reads through the edge `e`, and its offset: `(c xor (e & 3)) - 1`
/// mod 4, and 1, or 0 where `c xor (e & 3)` is 0 (the borrow of the - 1, see the module docs).
fn source(c: usize, e: usize) -> (usize, usize) {
    let x = c ^ (e & 3);
    (x.wrapping_sub(1) & 3, (x != 0) as usize)
}

/// The dense engine over arrays for g below `w` (from [`super::dense_width`]), one rayon task per
/// modulus, its kernel compiled for `isa`; `narrow` allows `u32` lanes for moduli below 2^31.
///
/// Cost: the sum over layers of the window's width times its classes / 4, in lane operations per
/// modulus; memory [`arrays_bytes`] per modulus.
///
/// # Errors
/// [`crate::Error::Interrupted`] when cancelled (checked every layer).
pub(super) fn run(
    shape: &Shape,
    targets: &Targets,
    moduli: &[u64],
    hooks: Hooks,
    w: u64,
    isa: Isa,
    narrow: bool,
) -> Result<Vec<Vec<u64>>> {
    // the targets in order of layer; those of layers 0 and 1 (count 0) first
    let first = targets.partition_point(|t| t.0 < 2);
    let v = class_width(w);
    let windows = lane_windows(shape, v);
    let total = layer_lanes(shape, w).iter().sum::<u64>() * moduli.len() as u64;
    let sweep = SharedSweep { shape, windows, targets: &targets[first..], v, hooks, total, done: AtomicU64::new(0) };
    let per_modulus: Vec<Vec<u64>> = moduli
        .par_iter()
        .map(|&m| if narrow && m < NARROW_LIMIT { sweep.run::<u32>(m, isa) } else { sweep.run::<u64>(m, isa) })
        .collect::<Result<_>>()?;
    let mut found = vec![vec![0; moduli.len()]; targets.len()];
    for (j, residues) in per_modulus.iter().enumerate() {
        for (found, &r) in found[first..].iter_mut().zip(residues) {
            found[j] = r;
        }
    }
    Ok(found)
}

/// Each layer's window in lanes of a class array of V lanes: whole blocks of 64 lanes, within V.
fn lane_windows(shape: &Shape, v: usize) -> Vec<(usize, usize)> {
    shape
        .windows
        .iter()
        .map(|&(lo, hi)| if hi > lo { ((lo / 4) & !63, (hi / 4).next_multiple_of(64).min(v)) } else { (0, 0) })
        .collect()
}

/// The lane operations of each layer of a sweep of `shape` with arrays for g below `w`, per
/// modulus: its window in lanes times the classes it keeps. Cost O(top).
pub(super) fn layer_lanes(shape: &Shape, w: u64) -> Vec<u64> {
    let windows = lane_windows(shape, class_width(w));
    windows.iter().zip(&shape.classes).map(|(&(lo, hi), c)| ((hi - lo) * c.count_ones() as usize) as u64).collect()
}

/// The lanes V of a class array for g below `w`: w / 4, at least 64 (the kernel's block).
fn class_width(w: u64) -> usize {
    (w as usize / CLASSES).max(64)
}

/// The bytes of the dense engine's arrays for g below `w`, for one modulus: three layers of four
/// class arrays of V + 1 lanes (as `u64`, the widest, with the alignment slack).
pub(super) fn arrays_bytes(w: u64) -> u64 {
    let v = (w / CLASSES as u64).max(64);
    (3 * CLASSES as u64).saturating_mul(v + 1 + 8).saturating_mul(8)
}

/// What the sweeps of every modulus share: the shape, its windows in lanes of a class array, the targets
/// (those above layer 1 in order of layer), the class width and the hooks, and the work done by all
/// of them for the progress callback.
struct SharedSweep<'a> {
    shape: &'a Shape<'a>,
    windows: Vec<(usize, usize)>,
    /// The targets above layer 1, in order of layer.
    targets: &'a [(u64, u64)],
    v: usize,
    hooks: Hooks<'a>,
    /// The work of all the sweeps, in lanes: the sum of the windows times their classes and the
    /// moduli.
    total: u64,
    /// The work done so far by all the sweeps together.
    done: AtomicU64,
}

impl SharedSweep<'_> {
    /// One modulus: every layer in turn over three rolling layers of class arrays of V + 1 lanes.
    /// Returns the residue of each of its targets, in their order.
    fn run<T: Residue>(&self, m: u64, isa: Isa) -> Result<Vec<u64>> {
        let v = self.v;
        let layer = || -> [AlignedLanes<T>; CLASSES] { std::array::from_fn(|_| AlignedLanes::zeroed(v + 1)) };
        let mut live = [layer(), layer(), layer()];
        // the lanes of each array that may hold a value (the rest are 0), as `live` rolls
        let mut written = [[(0usize, 0usize); CLASSES]; 3];
        let mut found = Vec::with_capacity(self.targets.len());
        let mut next = self.targets.iter().copied().peekable();
        let (one, modulus) = (T::from_u64(1), T::from_u64(m));
        let mut unreported = 0u64;
        for k in 2..=self.shape.top() {
            self.hooks.check()?;
            let (lo, hi) = self.windows[k];
            let classes = self.shape.classes[k];
            let (r, l) = (self.shape.edge[k - 2] as usize, self.shape.edge[k - 1] as usize);
            // live = [D_{k-2}, D_{k-1}, D_k], each by class
            let [older, old, cur] = &mut live;
            // what D_{k-3} left in the arrays of D_k outside this layer's window and classes, cleared:
            // a state read there counts zero (the plan leaves such states out: docs/math.md, "Zero
            // states")
            for (c, was) in written[2].iter_mut().enumerate() {
                let now = if classes >> c & 1 == 1 && hi > lo { (lo + 1, hi + 1) } else { (0, 0) };
                let lanes = cur[c].as_mut_slice();
                lanes[was.0..was.1.min(now.0).max(was.0)].fill(T::from_u64(0));
                lanes[was.0.max(now.1).min(was.1)..was.1].fill(T::from_u64(0));
                *was = now;
            }
            for c in (0..CLASSES).filter(|c| classes >> c & 1 == 1) {
                let ((c1, a), (c2, b)) = (source(c, r), source(c, l));
                if hi > lo {
                    let (old, older) = (&old[c1].as_slice()[a..], &older[c2].as_slice()[b..]);
                    window(
                        isa,
                        cur[c].as_mut_slice(),
                        old,
                        older,
                        WindowStep { lo, hi, r: r >> 2, l: l >> 2, m: modulus },
                    );
                }
            }
            let direct = [r, l];
            for &e in &direct[..if k >= 3 { 2 } else { 1 }] {
                if classes >> (e & 3) & 1 == 1 {
                    let x = &mut cur[e & 3].as_mut_slice()[(e >> 2) + 1];
                    *x = T::add_mod(*x, one, modulus);
                    let (was, at) = (&mut written[2][e & 3], (e >> 2) + 1);
                    *was = if was.1 > was.0 { (was.0.min(at), was.1.max(at + 1)) } else { (at, at + 1) };
                }
            }
            while let Some((_, g)) = next.next_if(|t| t.0 as usize == k) {
                assert!(self.shape.plan.is_none_or(|p| p.contains(k, g)), "every target is in its plan");
                let c = (g & 3) as usize;
                assert!(classes >> c & 1 == 1, "every target's class is kept");
                found.push(cur[c].as_slice()[(g >> 2) as usize + 1].to_u64());
            }
            live.rotate_left(1);
            written.rotate_left(1);
            unreported += ((hi - lo) * classes.count_ones() as usize) as u64;
            if self.hooks.wants_progress() && (unreported >= PROGRESS_EVERY || k == self.shape.top()) {
                let done = self.done.fetch_add(unreported, Ordering::Relaxed) + unreported;
                self.hooks.progress(NAME, done, self.total);
                unreported = 0;
            }
        }
        Ok(found)
    }
}
