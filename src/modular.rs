//! The recurrence in machine arithmetic modulo m, for several moduli at once.
//!
//! Its arithmetic is its own (a conditional subtraction per addition, residues below m < 2^63), so
//! that a slip in the big-integer engine's carries cannot hide in it.
//!
//! Two engines, one answer:
//!
//! - **Dense** (the default). Let W be the smallest power of two above every g of every window of
//!   the plan and every edge value 1 + G(k). Each modulus keeps three rolling arrays of W + 1
//!   residues with `D_k[x] = c(k, x - 1)` for x >= 1 and `D_k[0] = 0`, so that for k >= 2, with
//!   R = 1 + G(k-2) and L = 1 + G(k-1),
//!
//!   ```text
//!   D_k[g + 1] = [g == R] + [k >= 3][g == L] + D_{k-1}[g xor R] + D_{k-2}[g xor L]
//!   ```
//!
//!   (layers 0 and 1 are all zero, which takes care of the k >= 3 and k >= 4 conditions): the
//!   window first, then the direct moves add 1 at R + 1 and (k >= 3) L + 1. Every g
//!   of a layer's window is computed, members of the plan or not: a non-member's value is never
//!   read by a member, since the plan is closed under the recurrence, and every stored value stays
//!   below m because the arrays start at zero and every write is a sum reduced mod m. A block of V
//!   consecutive g aligned to V reads an aligned block of V values permuted by xor with the low bits
//!   of R (or L): with AVX-512 one load, one lane permutation, an add and a min per 8 lanes (16 lanes
//!   of `u32` for m < 2^31). The moduli run in parallel, one rayon task each.
//! - **Generic**: [`engine::run`] over [`Residues`], member states only. It serves plans whose W is
//!   too large for dense arrays (a target g such as 2^40): see [`dense_width`].

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use rayon::prelude::*;

use crate::engine::{self, Hooks, Numbers};
use crate::plan::Plan;
use crate::{Error, Result};

/// The largest modulus (exclusive) the modular engine accepts: sums of two residues fit in a `u64`.
pub const MODULUS_LIMIT: u64 = 1 << 63;

/// The most memory the dense engine's arrays may take (three arrays of W + 1 words per modulus):
/// above it the generic engine runs instead.
pub const DENSE_LIMIT_BYTES: u64 = 256 << 20;

/// Moduli below this run the dense engine in `u32` lanes, twice as many per vector (a sum of two
/// residues is below 2^32).
const NARROW_LIMIT: u64 = 1 << 31;

/// Lanes of work (g values of one modulus) between two calls of the progress callback.
const PROGRESS_EVERY: u64 = 1 << 20;

/// Residues modulo each of a list of moduli, one word per modulus: the number system of the generic
/// engine ([`engine::run`]).
pub struct Residues<'a> {
    moduli: &'a [u64],
}

impl<'a> Residues<'a> {
    /// Residues modulo each of `moduli` (each 2 <= m < 2^63, see [`check_modulus`]). Cost O(1).
    pub fn new(moduli: &'a [u64]) -> Self {
        Residues { moduli }
    }
}

#[inline]
fn add_mod(a: u64, b: u64, m: u64) -> u64 {
    let s = a + b; // a, b < m < 2^63: no overflow
    // Branch-free: below m, s - m wraps above s and the minimum is s.
    s.min(s.wrapping_sub(m))
}

impl Numbers for Residues<'_> {
    const NAME: &'static str = "modular";

    fn width(&self, _k: usize) -> usize {
        self.moduli.len()
    }

    fn combine(&self, _k: usize, out: &mut [u64], left: Option<&[u64]>, right: Option<&[u64]>, direct: u64) {
        for (t, (o, &m)) in out.iter_mut().zip(self.moduli).enumerate() {
            let mut r = direct.min(direct.wrapping_sub(m)); // direct <= 2 <= m, so this is direct mod m
            if let Some(l) = left {
                r = add_mod(r, l[t], m);
            }
            if let Some(x) = right {
                r = add_mod(r, x[t], m);
            }
            *o = r;
        }
    }
}

/// Checks that `m` is a modulus the modular engine accepts: 2 <= m < 2^63.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `--mod`.
pub fn check_modulus(m: u64) -> Result<()> {
    if (2..MODULUS_LIMIT).contains(&m) {
        Ok(())
    } else {
        Err(Error::invalid("--mod", format!("a modulus with 2 <= M < 2^63, got {m}")))
    }
}

/// c(n, g) modulo each of `moduli` for every target of an existing plan: one vector of residues per
/// target, in order, each in the order of `moduli` (all zero for a target in layer 0 or 1).
///
/// Runs the dense engine (see the module's documentation) when [`dense_width`] allows it, one rayon
/// task per modulus in the current pool; otherwise the generic engine over the plan's states.
///
/// Cost, dense: O(sum of the plan's window widths) lane operations per modulus, about 69 million
/// lanes at n = 10000 (8 or 16 to a vector instruction with AVX-512); memory three arrays of
/// W + 1 words per modulus ([`memory_bytes`]). Generic: O(plan states x moduli) word operations;
/// memory three layers of 8 bytes per state and modulus.
///
/// # Errors
/// [`Error::InvalidArgument`] for a modulus outside 2..2^63; [`Error::Interrupted`] when
/// `hooks.cancel` is set (checked every layer).
///
/// # Panics
/// If a target is not marked in `plan`.
pub fn count_mod_with_plan(plan: &Plan, targets: &[(u64, u64)], moduli: &[u64], hooks: Hooks) -> Result<Vec<Vec<u64>>> {
    for &m in moduli {
        check_modulus(m)?;
    }
    match dense_width(plan, moduli.len()) {
        Some(w) => dense(&Shape::of_plan(plan), targets, moduli, hooks, w, Kernel::detect(), true),
        None => generic(plan, targets, moduli, hooks),
    }
}

/// The width W of the dense engine's arrays for `plan` and `moduli` moduli: the smallest power of
/// two (at least 64) above every g of every layer window and every edge value `1 + G(k)`, or `None`
/// when the generic engine runs instead (W would take more than [`DENSE_LIMIT_BYTES`] of arrays, or
/// the plan has no layer above 1). Cost O(n).
pub fn dense_width(plan: &Plan, moduli: usize) -> Option<u64> {
    let top = plan.top();
    if top < 2 {
        return None;
    }
    let mut highest = (0..=top).map(|k| plan.edge(k) as u64).max().unwrap_or(0);
    for k in 2..=top {
        let layer = plan.layer(k);
        if layer.window() > 0 {
            highest = highest.max(layer.base().checked_add(layer.window() as u64 - 1)?);
        }
    }
    dense_width_above(highest, moduli)
}

/// The smallest power of two (at least 64) above `highest`, if arrays of that width for `moduli`
/// moduli stay within [`DENSE_LIMIT_BYTES`].
fn dense_width_above(highest: u64, moduli: usize) -> Option<u64> {
    let w = highest.checked_add(1)?.checked_next_power_of_two()?.max(64);
    (dense_bytes(w, moduli) <= DENSE_LIMIT_BYTES).then_some(w)
}

/// The bytes of the dense engine's arrays of width `w` for `moduli` moduli (as `u64`, the widest
/// lane, with the alignment slack).
fn dense_bytes(w: u64, moduli: usize) -> u64 {
    3u64.saturating_mul(w.saturating_add(1 + 8)).saturating_mul(8).saturating_mul(moduli as u64)
}

/// The peak memory [`count_mod_with_plan`] allocates for `moduli` moduli and `targets` targets, in
/// bytes: the dense engine's arrays (all moduli at once), or the generic engine's three layers, plus
/// the residues of the targets. Cost O(n + total window / 64).
pub fn memory_bytes(plan: &Plan, moduli: usize, targets: usize) -> u64 {
    let results = 8 * moduli as u64 * targets as u64;
    match dense_width(plan, moduli) {
        Some(w) => dense_bytes(w, moduli) + results,
        None => 8 * moduli as u64 * 3 * plan.widest_layer() as u64 + results,
    }
}

/// The generic engine: [`engine::run`] over [`Residues`].
fn generic(plan: &Plan, targets: &[(u64, u64)], moduli: &[u64], hooks: Hooks) -> Result<Vec<Vec<u64>>> {
    let words = engine::run(plan, &Residues { moduli }, targets, hooks)?;
    Ok(words.into_iter().map(|w| if w.is_empty() { vec![0; moduli.len()] } else { w }).collect())
}

/// How the dense engine computes a layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kernel {
    /// Plain Rust, one g at a time: any CPU.
    Scalar,
    /// AVX-512F vectors (x86-64 only, chosen at run time).
    Avx512,
}

impl Kernel {
    /// The fastest kernel this CPU runs.
    fn detect() -> Kernel {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f") {
            return Kernel::Avx512;
        }
        Kernel::Scalar
    }
}

/// What a dense sweep computes: the edge values `1 + G(k)` for k up to the top layer, and for each
/// layer the window `[lo, hi)` of g it computes (empty for layers 0 and 1); with the plan the windows
/// come from, if any, which every target must be a member of.
struct Shape<'a> {
    edge: Vec<u32>,
    windows: Vec<(usize, usize)>,
    plan: Option<&'a Plan>,
    /// A second flag that stops the sweep, besides the hooks' cancel flag.
    stop: Option<&'a AtomicBool>,
}

impl<'a> Shape<'a> {
    /// The plan's windows.
    fn of_plan(plan: &'a Plan) -> Shape<'a> {
        let top = plan.top();
        let windows = (0..=top)
            .map(|k| {
                let layer = plan.layer(k);
                let lo = layer.base() as usize;
                if k < 2 || layer.window() == 0 { (0, 0) } else { (lo, lo + layer.window()) }
            })
            .collect();
        Shape { edge: (0..=top).map(|k| plan.edge(k)).collect(), windows, plan: Some(plan), stop: None }
    }

    /// Every g below `w` in every layer from 2 to `top`, with the edge values `edge`.
    fn full(edge: Vec<u32>, w: usize) -> Shape<'static> {
        let windows = (0..edge.len()).map(|k| if k < 2 { (0, 0) } else { (0, w) }).collect();
        Shape { edge, windows, plan: None, stop: None }
    }

    fn top(&self) -> usize {
        self.edge.len() - 1
    }
}

/// c(n, g) modulo each of `moduli` for every target, without a plan: the dense engine over every g
/// below W in every layer, where W is the smallest power of two (at least 64) above every target's g
/// and every edge value. Exact for every target, because xor with a value below W and subtracting
/// one cannot leave [0, W). `None` when the arrays would take more than [`DENSE_LIMIT_BYTES`] (then
/// plan the run and use [`count_mod_with_plan`]).
///
/// Cost: n x W lane operations per modulus (83 million at n = 10000, where W = 8192, about 18 %
/// more than over the plan's windows, but with no plan to build); memory three arrays of W + 1
/// words per modulus ([`unplanned_bytes`]) and the Grundy values.
///
/// # Errors
/// [`Error::InvalidArgument`] for a modulus outside 2..2^63 or an n above [`crate::game::MAX_N`];
/// [`Error::Interrupted`] when `hooks.cancel` is set.
pub fn count_mod_unplanned(targets: &[(u64, u64)], moduli: &[u64], hooks: Hooks) -> Result<Option<Vec<Vec<u64>>>> {
    count_mod_unplanned_until(targets, moduli, hooks, None)
}

/// [`count_mod_unplanned`], stopping with [`Error::Interrupted`] also when `stop` is set.
pub(crate) fn count_mod_unplanned_until(
    targets: &[(u64, u64)],
    moduli: &[u64],
    hooks: Hooks,
    stop: Option<&AtomicBool>,
) -> Result<Option<Vec<Vec<u64>>>> {
    for &m in moduli {
        check_modulus(m)?;
    }
    let top = targets.iter().map(|t| t.0).max().unwrap_or(0);
    let Some(w) = unplanned_width(targets, moduli.len())? else { return Ok(None) };
    if top < 2 {
        return Ok(Some(vec![vec![0; moduli.len()]; targets.len()]));
    }
    let edge = crate::game::edge_values(top)?;
    let shape = Shape { stop, ..Shape::full(edge, w as usize) };
    dense(&shape, targets, moduli, hooks, w, Kernel::detect(), true).map(Some)
}

/// The width W of [`count_mod_unplanned`], or `None` where its arrays would exceed
/// [`DENSE_LIMIT_BYTES`]. Cost O(top n).
///
/// # Errors
/// [`Error::InvalidArgument`] for an n above [`crate::game::MAX_N`].
fn unplanned_width(targets: &[(u64, u64)], moduli: usize) -> Result<Option<u64>> {
    let top = targets.iter().map(|t| t.0).max().unwrap_or(0);
    crate::game::check_n(top)?;
    let edges = crate::game::max_edge_value(top)? as u64;
    let highest = targets.iter().map(|t| t.1).max().unwrap_or(0).max(edges);
    Ok(dense_width_above(highest, moduli))
}

/// The bytes [`count_mod_unplanned`] allocates, or `None` where it would not run.
///
/// # Errors
/// As [`count_mod_unplanned`].
pub fn unplanned_bytes(targets: &[(u64, u64)], moduli: usize) -> Result<Option<u64>> {
    let top = targets.iter().map(|t| t.0).max().unwrap_or(0);
    Ok(unplanned_width(targets, moduli)?
        .map(|w| dense_bytes(w, moduli) + 4 * (top + 1) + 8 * moduli as u64 * targets.len() as u64))
}

/// The dense engine over arrays of width `w` (from [`dense_width`]), one rayon task per modulus;
/// `narrow` allows `u32` lanes for moduli below 2^31.
fn dense(
    shape: &Shape,
    targets: &[(u64, u64)],
    moduli: &[u64],
    hooks: Hooks,
    w: u64,
    kernel: Kernel,
    narrow: bool,
) -> Result<Vec<Vec<u64>>> {
    // (layer, g, index) of the targets above layer 1, in order of layer
    let mut by_layer: Vec<(usize, u64, usize)> =
        targets.iter().enumerate().filter(|(_, t)| t.0 >= 2).map(|(i, &(k, g))| (k as usize, g, i)).collect();
    by_layer.sort_unstable();
    let windows: u64 = shape.windows.iter().map(|(lo, hi)| (hi - lo) as u64).sum();
    let total = windows * moduli.len() as u64;
    let sweep = Sweep { shape, by_layer: &by_layer, w: w as usize, hooks, total, done: AtomicU64::new(0) };
    let per_modulus: Vec<Vec<u64>> = moduli
        .par_iter()
        .map(|&m| if narrow && m < NARROW_LIMIT { sweep.run::<u32>(m, kernel) } else { sweep.run::<u64>(m, kernel) })
        .collect::<Result<_>>()?;
    let mut found = vec![vec![0; moduli.len()]; targets.len()];
    for (j, residues) in per_modulus.iter().enumerate() {
        for (&(_, _, t), &r) in by_layer.iter().zip(residues) {
            found[t][j] = r;
        }
    }
    Ok(found)
}

/// What every modulus's sweep shares: the plan, the targets, the width and the hooks, and the work
/// done by all of them for the progress callback.
struct Sweep<'a> {
    shape: &'a Shape<'a>,
    by_layer: &'a [(usize, u64, usize)],
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
    fn run<T: Lane>(&self, m: u64, kernel: Kernel) -> Result<Vec<u64>> {
        let w = self.w;
        let mut live = [Lanes::<T>::zeroed(w + 1), Lanes::zeroed(w + 1), Lanes::zeroed(w + 1)];
        let mut found = Vec::with_capacity(self.by_layer.len());
        let mut next = self.by_layer.iter().peekable();
        let (one, modulus) = (T::from_u64(1), T::from_u64(m));
        let mut unreported = 0u64;
        for k in 2..=self.shape.top() {
            if [self.hooks.cancel, self.shape.stop].iter().flatten().any(|c| c.load(Ordering::Relaxed)) {
                return Err(Error::Interrupted);
            }
            let (lo, hi) = self.shape.windows[k];
            let (r, l) = (self.shape.edge[k - 2] as usize, self.shape.edge[k - 1] as usize);
            // live = [D_{k-2}, D_{k-1}, D_k]
            let [older, old, cur] = &mut live;
            let cur = cur.as_mut_slice();
            if hi > lo {
                window(kernel, cur, old.as_slice(), older.as_slice(), lo, hi, r, l, modulus);
            }
            cur[r + 1] = T::add_mod(cur[r + 1], one, modulus);
            if k >= 3 {
                cur[l + 1] = T::add_mod(cur[l + 1], one, modulus);
            }
            while let Some(&(_, g, _)) = next.next_if(|t| t.0 == k) {
                assert!(self.shape.plan.is_none_or(|p| p.layer(k).contains(g)), "every target is in its plan");
                found.push(cur[g as usize + 1].to_u64());
            }
            live.rotate_left(1);
            unreported += (hi - lo) as u64;
            if let Some(progress) = self.hooks.progress
                && (unreported >= PROGRESS_EVERY || k == self.shape.top())
            {
                let done = self.done.fetch_add(unreported, Ordering::Relaxed) + unreported;
                progress(Residues::NAME, done, self.total);
                unreported = 0;
            }
        }
        Ok(found)
    }
}

/// Which element of a [`Lanes`] array sits on a 64-byte boundary: 0 makes the loads of aligned
/// blocks aligned (the stores, one element on, then straddle two cache lines).
const ALIGNED_INDEX: usize = 0;

/// A zeroed array of lanes whose element [`ALIGNED_INDEX`] is 64-byte aligned.
struct Lanes<T> {
    buf: Vec<T>,
    start: usize,
    len: usize,
}

impl<T: Lane> Lanes<T> {
    /// `len` zeros (allocated zeroed: pages never written are never touched).
    fn zeroed(len: usize) -> Self {
        let slack = 64 / std::mem::size_of::<T>();
        let buf = vec![T::ZERO; len + slack];
        let offset = buf.as_ptr().align_offset(64).min(slack);
        let start = (offset + slack - ALIGNED_INDEX % slack) % slack;
        Lanes { buf, start, len }
    }

    fn as_slice(&self) -> &[T] {
        &self.buf[self.start..self.start + self.len]
    }

    fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.buf[self.start..self.start + self.len]
    }
}

/// A residue type of the dense engine: `u64` for any modulus, `u32` for moduli below 2^31.
trait Lane: Copy + Send + Sync + 'static {
    const ZERO: Self;

    /// `x`, which fits.
    fn from_u64(x: u64) -> Self;

    fn to_u64(self) -> u64;

    /// `(a + b) mod m` for a, b < m.
    fn add_mod(a: Self, b: Self, m: Self) -> Self;

    /// [`window`] with AVX-512F, `V` lanes at a time.
    ///
    /// # Safety
    /// The CPU has AVX-512F, and the arguments are as [`window`] checks them.
    #[cfg(target_arch = "x86_64")]
    #[allow(clippy::too_many_arguments)]
    unsafe fn avx512(cur: &mut [Self], old: &[Self], older: &[Self], lo: usize, hi: usize, r: usize, l: usize, m: Self);
}

impl Lane for u64 {
    const ZERO: Self = 0;

    fn from_u64(x: u64) -> Self {
        x
    }

    fn to_u64(self) -> u64 {
        self
    }

    #[inline(always)]
    fn add_mod(a: u64, b: u64, m: u64) -> u64 {
        add_mod(a, b, m)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn avx512(cur: &mut [u64], old: &[u64], older: &[u64], lo: usize, hi: usize, r: usize, l: usize, m: u64) {
        use std::arch::x86_64::*;
        // lane i of the block at g0 reads element i xor (r & 7) of the aligned block at g0 xor r
        let lanes = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
        let by_r = _mm512_xor_si512(lanes, _mm512_set1_epi64((r & 7) as i64));
        let by_l = _mm512_xor_si512(lanes, _mm512_set1_epi64((l & 7) as i64));
        let modulus = _mm512_set1_epi64(m as i64);
        let (r, l) = (r & !7, l & !7);
        let (out, a, b) = (cur.as_mut_ptr(), old.as_ptr(), older.as_ptr());
        for g in (lo..hi).step_by(8) {
            // SAFETY: g, r and l are below W, g a multiple of 8 and hi <= W, so g ^ r + 8 <= W and
            // g + 1 + 8 <= W + 1: every access is within the W + 1 elements `window` checked.
            unsafe {
                let x = _mm512_permutexvar_epi64(by_r, _mm512_loadu_si512(a.add(g ^ r).cast()));
                let y = _mm512_permutexvar_epi64(by_l, _mm512_loadu_si512(b.add(g ^ l).cast()));
                let s = _mm512_add_epi64(x, y);
                _mm512_storeu_si512(out.add(g + 1).cast(), _mm512_min_epu64(s, _mm512_sub_epi64(s, modulus)));
            }
        }
    }
}

impl Lane for u32 {
    const ZERO: Self = 0;

    fn from_u64(x: u64) -> Self {
        x as u32
    }

    fn to_u64(self) -> u64 {
        self as u64
    }

    #[inline(always)]
    fn add_mod(a: u32, b: u32, m: u32) -> u32 {
        let s = a + b; // a, b < m < 2^31: no overflow
        s.min(s.wrapping_sub(m))
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn avx512(cur: &mut [u32], old: &[u32], older: &[u32], lo: usize, hi: usize, r: usize, l: usize, m: u32) {
        use std::arch::x86_64::*;
        let lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
        let by_r = _mm512_xor_si512(lanes, _mm512_set1_epi32((r & 15) as i32));
        let by_l = _mm512_xor_si512(lanes, _mm512_set1_epi32((l & 15) as i32));
        let modulus = _mm512_set1_epi32(m as i32);
        let (r, l) = (r & !15, l & !15);
        let (out, a, b) = (cur.as_mut_ptr(), old.as_ptr(), older.as_ptr());
        for g in (lo..hi).step_by(16) {
            // SAFETY: as for u64, with blocks of 16 (W and the window ends are multiples of 64).
            unsafe {
                let x = _mm512_permutexvar_epi32(by_r, _mm512_loadu_si512(a.add(g ^ r).cast()));
                let y = _mm512_permutexvar_epi32(by_l, _mm512_loadu_si512(b.add(g ^ l).cast()));
                let s = _mm512_add_epi32(x, y);
                _mm512_storeu_si512(out.add(g + 1).cast(), _mm512_min_epu32(s, _mm512_sub_epi32(s, modulus)));
            }
        }
    }
}

/// One layer's window of the dense engine: `cur[g + 1] = old[g ^ r] + older[g ^ l] mod m` for every
/// g in `lo..hi`, where `old` is layer k-1, `older` layer k-2, r = 1 + G(k-2) and l = 1 + G(k-1).
///
/// # Panics
/// Unless the three arrays have W + 1 elements for a power of two W >= 64, `lo` and `hi` are
/// multiples of 64 with `lo <= hi <= W`, and `r, l < W`: what makes the vector accesses safe.
#[allow(clippy::too_many_arguments)]
fn window<T: Lane>(
    kernel: Kernel,
    cur: &mut [T],
    old: &[T],
    older: &[T],
    lo: usize,
    hi: usize,
    r: usize,
    l: usize,
    m: T,
) {
    let w = cur.len() - 1;
    assert!(w.is_power_of_two() && w >= 64 && old.len() == w + 1 && older.len() == w + 1, "arrays of W + 1");
    assert!(
        lo.is_multiple_of(64) && hi.is_multiple_of(64) && lo <= hi && hi <= w && r < w && l < w,
        "a window within W"
    );
    match kernel {
        Kernel::Scalar => {
            for g in lo..hi {
                cur[g + 1] = T::add_mod(old[g ^ r], older[g ^ l], m);
            }
        }
        // SAFETY: Kernel::Avx512 is chosen only where the CPU has AVX-512F; the bounds are checked.
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 => unsafe { T::avx512(cur, old, older, lo, hi, r, l, m) },
        #[cfg(not(target_arch = "x86_64"))]
        Kernel::Avx512 => unreachable!("AVX-512 is chosen only on x86-64"),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::sync::atomic::AtomicBool;

    use num_bigint::BigUint;
    use num_traits::ToPrimitive;

    use super::*;

    /// Small, prime, either side of the `u32` lanes' limit, 10^18 and a prime just below 2^63.
    const MODULI: [u64; 8] =
        [2, 3, 998_244_353, (1 << 31) - 1, 1 << 31, 1_000_000_007, 1_000_000_000_000_000_000, (1 << 63) - 25];

    fn kernels() -> Vec<Kernel> {
        let mut kernels = vec![Kernel::Scalar];
        if Kernel::detect() == Kernel::Avx512 {
            kernels.push(Kernel::Avx512);
        }
        kernels
    }

    /// Every dense variant (scalar and SIMD, `u64` and `u32` lanes) and `count_mod_with_plan` against
    /// the generic engine over the targets' plan; returns the residues.
    fn all_agree(targets: &[(u64, u64)]) -> Vec<Vec<u64>> {
        let plan = Plan::new(targets, u64::MAX).unwrap();
        let want = generic(&plan, targets, &MODULI, Hooks::default()).unwrap();
        assert_eq!(count_mod_with_plan(&plan, targets, &MODULI, Hooks::default()).unwrap(), want);
        if let Some(got) = count_mod_unplanned(targets, &MODULI, Hooks::default()).unwrap() {
            assert_eq!(got, want, "unplanned, targets {targets:?}");
        }
        let Some(w) = dense_width(&plan, MODULI.len()) else {
            assert!(plan.top() < 2, "only a plan without layers above 1 is not dense: {targets:?}");
            return want;
        };
        for kernel in kernels() {
            for narrow in [false, true] {
                let got = dense(&Shape::of_plan(&plan), targets, &MODULI, Hooks::default(), w, kernel, narrow).unwrap();
                assert_eq!(got, want, "{kernel:?}, narrow {narrow}, targets {targets:?}");
            }
        }
        want
    }

    fn residue(v: &BigUint, m: u64) -> u64 {
        (v % m).to_u64().unwrap()
    }

    #[test]
    fn small_trees_match_the_explicit_tree() {
        for n in 0..=16u64 {
            let counts = crate::brute::explicit_tree_counts(n as u32).unwrap();
            // every g with a move, and as many again above the support
            let targets: Vec<(u64, u64)> = (0..2 * counts.len() as u64 + 3).map(|g| (n, g)).collect();
            let got = all_agree(&targets);
            for (&(_, g), residues) in targets.iter().zip(&got) {
                let c = counts.get(g as usize).copied().unwrap_or(0);
                let want: Vec<u64> = MODULI.iter().map(|&m| c % m).collect();
                assert_eq!(residues, &want, "c({n}, {g})");
            }
        }
    }

    #[test]
    fn one_target_at_a_time_for_n_2_3_4() {
        for n in 2..=4u64 {
            let counts = crate::brute::explicit_tree_counts(n as u32).unwrap();
            assert_eq!(counts.iter().sum::<u64>(), [1, 3, 6][n as usize - 2], "|T(n)| - 1 moves");
            for g in 0..8 {
                let c = counts.get(g as usize).copied().unwrap_or(0);
                assert_eq!(all_agree(&[(n, g)]), [MODULI.map(|m| c % m)], "c({n}, {g})");
            }
        }
    }

    #[test]
    fn table_of_f_up_to_300() {
        let targets: Vec<(u64, u64)> = (0..=300).map(|k| (k, 0)).collect();
        let got = all_agree(&targets);
        assert!(got[0].iter().chain(&got[1]).all(|&r| r == 0), "layers 0 and 1 have no moves");
        let f = |k: usize| got[k][2]; // mod 998244353: the small values themselves
        assert_eq!((1..=7).map(f).collect::<Vec<_>>(), [0, 1, 1, 1, 1, 3, 0]);
        assert_eq!(f(10), 17);
    }

    #[test]
    fn other_grundy_values() {
        all_agree(&[(300, 5)]);
        all_agree(&[(1000, 5), (999, 0), (700, 3), (2, 1)]);
    }

    #[test]
    fn whole_distribution_sums_to_the_moves() {
        let n = 200;
        let targets: Vec<(u64, u64)> = crate::plan::support(n).unwrap().iter().map(|g| (n, g)).collect();
        let got = all_agree(&targets);
        let moves = crate::tree_size(n) - 1u32;
        for (j, &m) in MODULI.iter().enumerate() {
            let sum = got.iter().fold(0, |s, r| add_mod(s, r[j], m));
            assert_eq!(sum, residue(&moves, m), "mod {m}");
        }
    }

    #[test]
    fn public_values_at_10000() {
        let targets = [(10_000, 0)];
        let plan = Plan::new(&targets, u64::MAX).unwrap();
        let moduli = [1_000_000_000_000_000_000, 998_244_353];
        let w = dense_width(&plan, 2).unwrap();
        assert_eq!(w, 8192, "docs/math.md: every g below 8192");
        for kernel in kernels() {
            for narrow in [false, true] {
                let got =
                    dense(&Shape::of_plan(&plan), &targets, &moduli, Hooks::default(), w, kernel, narrow).unwrap();
                assert_eq!(got, [[438_505_383_468_410_633, 163_314_502]], "{kernel:?}, narrow {narrow}");
            }
        }
    }

    #[test]
    fn a_target_far_above_every_grundy_value_runs_the_generic_engine() {
        // (A plan mixing such a target with g = 0 would need a window from 0 to 2^40.)
        for targets in [[(30, 1 << 40)], [(1000, (1 << 40) + 5)], [(10, u64::MAX)]] {
            let plan = Plan::new(&targets, u64::MAX).unwrap();
            assert_eq!(dense_width(&plan, MODULI.len()), None, "{targets:?}");
            let got = count_mod_with_plan(&plan, &targets, &MODULI, Hooks::default()).unwrap();
            assert_eq!(got, generic(&plan, &targets, &MODULI, Hooks::default()).unwrap());
            assert_eq!(got, [[0; MODULI.len()]], "no move of T(n) leaves such a value");
            let bytes = memory_bytes(&plan, MODULI.len(), targets.len());
            assert!(bytes < 1 << 20, "{bytes}");
        }
    }

    #[test]
    fn dense_width_and_memory() {
        let plan = Plan::new(&[(10, 0)], u64::MAX).unwrap();
        assert_eq!(dense_width(&plan, 1), Some(64));
        assert_eq!(memory_bytes(&plan, 2, 1), dense_bytes(64, 2) + 16);
        for trivial in [[(0, 0)], [(1, 5)]] {
            let plan = Plan::new(&trivial, u64::MAX).unwrap();
            assert_eq!(dense_width(&plan, 1), None);
            assert_eq!(count_mod_with_plan(&plan, &trivial, &[7, 11], Hooks::default()).unwrap(), [[0, 0]]);
        }
        // 2^25 lanes of three arrays for one modulus is 768 MiB: too much.
        let plan = Plan::new(&[(40, 1 << 25)], u64::MAX).unwrap();
        assert_eq!(dense_width(&plan, 1), None);
        let plan = Plan::new(&[(40, 1 << 20)], u64::MAX).unwrap();
        assert_eq!(dense_width(&plan, 1), Some(1 << 21));
        assert_eq!(dense_width(&plan, 6), None);
    }

    #[test]
    fn bad_moduli_are_refused() {
        let plan = Plan::new(&[(10, 0)], u64::MAX).unwrap();
        for m in [0, 1, 1 << 63, u64::MAX] {
            let result = count_mod_with_plan(&plan, &[(10, 0)], &[7, m], Hooks::default());
            assert!(matches!(result, Err(Error::InvalidArgument { arg: "--mod", .. })), "{m}: {result:?}");
        }
    }

    #[test]
    fn cancel_and_progress() {
        let targets = [(2000, 0)];
        let plan = Plan::new(&targets, u64::MAX).unwrap();
        let cancel = AtomicBool::new(true);
        let hooks = Hooks { cancel: Some(&cancel), progress: None };
        assert!(matches!(count_mod_with_plan(&plan, &targets, &[7, 11], hooks), Err(Error::Interrupted)));

        let calls = Mutex::new(Vec::new());
        let record = |name: &str, done: u64, total: u64| calls.lock().unwrap().push((name.to_string(), done, total));
        let hooks = Hooks { cancel: None, progress: Some(&record) };
        count_mod_with_plan(&plan, &targets, &[7, 11], hooks).unwrap();
        let calls = calls.into_inner().unwrap();
        let windows: u64 = (2..=2000).map(|k| plan.layer(k).window() as u64).sum();
        assert!(calls.iter().all(|c| c.0 == "modular" && c.2 == 2 * windows), "{calls:?}");
        assert_eq!(calls.iter().map(|c| c.1).max(), Some(2 * windows), "the last call says all is done");
    }
}
