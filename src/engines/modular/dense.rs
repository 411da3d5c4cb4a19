//! The dense modular engine: every g of each layer's window, in three rolling arrays per modulus.
//!
//! Let W be the smallest power of two above every g of every window and every edge value 1 + G(k).
//! Each modulus keeps three rolling arrays of W + 1 residues with `D_k[x] = c(k, x - 1)` for x >= 1
//! and `D_k[0] = 0`, so that for k >= 2, with R = 1 + G(k-2) and L = 1 + G(k-1),
//!
//! ```text
//! D_k[g + 1] = [g == R] + [k >= 3][g == L] + D_{k-1}[g xor R] + D_{k-2}[g xor L]
//! ```
//!
//! (layers 0 and 1 are all zero, which takes care of the k >= 3 and k >= 4 conditions): the window
//! first ([`crate::arch::window`]), then the direct moves add 1 at R + 1 and (k >= 3) L + 1. Every g
//! of a layer's window is computed, members of the plan or not: a non-member's value is never read
//! by a member, since the plan is closed under the recurrence, and every stored value stays below m
//! because the arrays start at zero and every write is a sum reduced mod m. A block of V consecutive
//! g aligned to V reads an aligned block of V values permuted by xor with the low bits of R (or L):
//! with AVX-512 one load, one lane permutation, an add and a min per 8 lanes (16 lanes of `u32` for
//! m < 2^31). The moduli run in parallel, one rayon task each.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::NAME;
use crate::arch::{AlignedLanes, Isa, Residue, window};
use crate::error::Result;
use crate::hooks::Hooks;
use crate::plan::Plan;

/// Moduli below this run in `u32` lanes, twice as many per vector (a sum of two residues is below
/// 2^32).
const NARROW_LIMIT: u64 = 1 << 31;

/// Lanes of work (g values of one modulus) between two calls of the progress callback.
const PROGRESS_EVERY: u64 = 1 << 20;

/// What a dense sweep computes: the edge values `1 + G(k)` for k up to the top layer, and for each
/// layer the window `[lo, hi)` of g it computes (empty for layers 0 and 1); with the plan the windows
/// come from, if any, which every target must be a member of.
pub(super) struct Shape<'a> {
    edge: Vec<u32>,
    windows: Vec<(usize, usize)>,
    plan: Option<&'a Plan>,
}

impl<'a> Shape<'a> {
    /// The plan's windows.
    pub(super) fn of_plan(plan: &'a Plan) -> Shape<'a> {
        let top = plan.top();
        let windows = (0..=top)
            .map(|k| {
                let layer = plan.layer(k);
                let lo = layer.base() as usize;
                if k < 2 || layer.window() == 0 { (0, 0) } else { (lo, lo + layer.window()) }
            })
            .collect();
        Shape { edge: (0..=top).map(|k| plan.edge_value(k)).collect(), windows, plan: Some(plan) }
    }

    /// Every g below `w` in every layer from 2 to the top, with the edge values `edge`.
    pub(super) fn full(edge: Vec<u32>, w: usize) -> Shape<'static> {
        let windows = (0..edge.len()).map(|k| if k < 2 { (0, 0) } else { (0, w) }).collect();
        Shape { edge, windows, plan: None }
    }

    fn top(&self) -> usize {
        self.edge.len() - 1
    }
}

/// The dense engine over arrays of width `w` (from [`super::dense_width`]), one rayon task per
/// modulus, its kernel compiled for `isa`; `narrow` allows `u32` lanes for moduli below 2^31.
///
/// Cost: the sum of the windows' widths in lane operations per modulus; memory three arrays of
/// W + 1 residues per modulus.
///
/// # Errors
/// [`crate::Error::Interrupted`] when cancelled (checked every layer).
pub(super) fn run(
    shape: &Shape,
    targets: &[(u64, u64)],
    moduli: &[u64],
    hooks: Hooks,
    w: u64,
    isa: Isa,
    narrow: bool,
) -> Result<Vec<Vec<u64>>> {
    let by_layer: Vec<usize> = crate::engines::by_layer(targets).into_iter().filter(|&t| targets[t].0 >= 2).collect();
    let windows: u64 = shape.windows.iter().map(|(lo, hi)| (hi - lo) as u64).sum();
    let total = windows * moduli.len() as u64;
    let sweep = Sweep { shape, targets, by_layer: &by_layer, w: w as usize, hooks, total, done: AtomicU64::new(0) };
    let per_modulus: Vec<Vec<u64>> = moduli
        .par_iter()
        .map(|&m| if narrow && m < NARROW_LIMIT { sweep.run::<u32>(m, isa) } else { sweep.run::<u64>(m, isa) })
        .collect::<Result<_>>()?;
    let mut found = vec![vec![0; moduli.len()]; targets.len()];
    for (j, residues) in per_modulus.iter().enumerate() {
        for (&t, &r) in by_layer.iter().zip(residues) {
            found[t][j] = r;
        }
    }
    Ok(found)
}

/// What every modulus's sweep shares: the shape, the targets (those above layer 1 in order of
/// layer), the width and the hooks, and the work done by all of them for the progress callback.
struct Sweep<'a> {
    shape: &'a Shape<'a>,
    targets: &'a [(u64, u64)],
    by_layer: &'a [usize],
    w: usize,
    hooks: Hooks<'a>,
    /// The work of all the sweeps, in lanes: the sum of the windows times the moduli.
    total: u64,
    /// The work done so far by all the sweeps together.
    done: AtomicU64,
}

impl Sweep<'_> {
    /// One modulus: every layer in turn over three rolling arrays of W + 1 lanes. Returns the
    /// residue of each target of `by_layer`, in its order.
    fn run<T: Residue>(&self, m: u64, isa: Isa) -> Result<Vec<u64>> {
        let w = self.w;
        let mut live = [AlignedLanes::<T>::zeroed(w + 1), AlignedLanes::zeroed(w + 1), AlignedLanes::zeroed(w + 1)];
        let mut found = Vec::with_capacity(self.by_layer.len());
        let mut next = self.by_layer.iter().map(|&t| self.targets[t]).peekable();
        let (one, modulus) = (T::from_u64(1), T::from_u64(m));
        let mut unreported = 0u64;
        for k in 2..=self.shape.top() {
            self.hooks.check()?;
            let (lo, hi) = self.shape.windows[k];
            let (r, l) = (self.shape.edge[k - 2] as usize, self.shape.edge[k - 1] as usize);
            // live = [D_{k-2}, D_{k-1}, D_k]
            let [older, old, cur] = &mut live;
            let cur = cur.as_mut_slice();
            if hi > lo {
                window(isa, cur, old.as_slice(), older.as_slice(), lo, hi, r, l, modulus);
            }
            cur[r + 1] = T::add_mod(cur[r + 1], one, modulus);
            if k >= 3 {
                cur[l + 1] = T::add_mod(cur[l + 1], one, modulus);
            }
            while let Some((_, g)) = next.next_if(|t| t.0 as usize == k) {
                assert!(self.shape.plan.is_none_or(|p| p.layer(k).contains(g)), "every target is in its plan");
                found.push(cur[g as usize + 1].to_u64());
            }
            live.rotate_left(1);
            unreported += (hi - lo) as u64;
            if self.hooks.wants_progress() && (unreported >= PROGRESS_EVERY || k == self.shape.top()) {
                let done = self.done.fetch_add(unreported, Ordering::Relaxed) + unreported;
                self.hooks.progress(NAME, done, self.total);
                unreported = 0;
            }
        }
        Ok(found)
    }
}
