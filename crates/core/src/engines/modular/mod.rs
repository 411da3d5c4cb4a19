//! The recurrence in machine arithmetic modulo m, for several moduli at once.
//!
//! Its arithmetic is its own (a conditional subtraction per addition, residues below m < 2^63), so
//! that a slip in the big-integer engines' carries cannot hide in it. Two engines, one answer:
//!
//! - [`dense`] (the default): every g of each layer's window in the classes modulo 4 the targets
//!   need, in three rolling layers of arrays per modulus, the recurrence's xor with an edge value a
//!   load and a lane permutation;
//! - [`generic`]: the recurrence ([`super::recurrence`]) over residues, member states only. It
//!   serves plans whose window would be too wide for dense arrays (a target g such as 2^40): see
//!   [`dense_width`].

mod dense;
mod generic;

use crate::error::{Error, Param, Result};
use crate::hooks::Hooks;
use crate::plan::{Plan, Sizes};
use crate::targets::Targets;

/// The largest modulus (exclusive) the modular engine accepts: sums of two residues fit in a `u64`.
///
/// # Examples
///
/// ```
/// use fibtree_core::{Error, MODULUS_LIMIT, Param, Request};
/// let mut found = 0;
/// Request::residues(&[(10, 0)], [MODULUS_LIMIT - 1]).plan()?.run(|_, _, r| Ok(found = r[0]))?;
/// assert_eq!(found, 17); // f(10)
/// let refused = Request::residues(&[(10, 0)], [MODULUS_LIMIT]).plan();
/// assert!(matches!(refused, Err(Error::InvalidArgument { param: Param::Modulus, .. })));
/// # Ok::<(), fibtree_core::Error>(())
/// ```
pub const MODULUS_LIMIT: u64 = 1 << 63;

/// The most memory the dense engine's arrays may take (three layers of W + 4 words, about, per
/// modulus): above it the generic engine runs instead.
pub(crate) const DENSE_LIMIT_BYTES: u64 = 256 << 20;

/// The name the modular engines report their progress under.
const NAME: &str = "modular";

/// `(a + b) mod m` for a, b < m < 2^63. Branch-free: below m, `s - m` wraps above `s`.
#[inline]
pub(crate) fn add_mod(a: u64, b: u64, m: u64) -> u64 {
    let s = a + b;
    s.min(s.wrapping_sub(m))
}

/// Checks that `m` is a modulus the modular engine accepts: 2 <= m < 2^63.
///
/// # Errors
/// [`Error::InvalidArgument`] naming [`Param::Modulus`].
pub(crate) fn check_modulus(m: u64) -> Result<()> {
    if (2..MODULUS_LIMIT).contains(&m) {
        Ok(())
    } else {
        Err(Error::invalid(Param::Modulus, format!("a modulus with 2 <= M < 2^63, got {m}")))
    }
}

/// c(n, g) modulo each of `moduli` for every target of an existing plan: one vector of residues per
/// target, in order, each in the order of `moduli` (all zero for a target in layer 0 or 1).
///
/// Runs the dense engine when [`dense_width`] allows it, one rayon task per modulus in the current
/// pool; otherwise the generic engine over the plan's states.
///
/// Cost, dense: O(sum of the plan's window widths times the classes modulo 4 they need / 4) lane
/// operations per modulus, 11.8 million lanes at n = 10000 (10.4 million states), 152 million at
/// n = 20000 (149 million states); memory three layers of W + 4 words, about, per modulus
/// ([`memory_bytes`]). Generic:
/// O(plan states x moduli) word operations; memory three layers of 8 bytes per state and modulus.
///
/// # Errors
/// [`Error::InvalidArgument`] for a modulus outside 2..2^63; [`Error::Interrupted`] when cancelled (checked every layer).
///
/// # Panics
/// If a target is not marked in `plan`.
pub(crate) fn count_mod_with_plan(
    plan: &Plan,
    targets: &Targets,
    moduli: &[u64],
    hooks: Hooks,
) -> Result<Vec<Vec<u64>>> {
    for &m in moduli {
        check_modulus(m)?;
    }
    let isa = crate::kernels::chosen::dense_isa();
    match dense_width(plan, moduli.len()) {
        Some(w) => dense::run(&dense::Shape::of_plan(plan), targets, moduli, hooks, w, isa, true),
        None => generic::run(plan, targets, moduli, hooks),
    }
}

/// c(n, g) modulo each of `moduli` for every target, without a plan: the dense engine over every g
/// below W in every layer, where W is the smallest power of two (at least 64) above every target's g
/// and every edge value. Exact for every target, because xor with a value below W and subtracting
/// one cannot leave [0, W). `None` when the arrays would take more than [`DENSE_LIMIT_BYTES`] (then
/// plan the run and use [`count_mod_with_plan`]).
///
/// Cost: n x W x (the classes modulo 4 a layer needs) / 4 lane operations per modulus (20.5 million
/// at n = 10000, where W = 8192 and a layer needs one class, 1.7 times those over the plan's windows,
/// but with no plan to build; 164 million at n = 20000, two classes a layer); memory three layers of
/// W + 4 words, about, per modulus ([`unplanned_bytes`]) and the Grundy values.
///
/// # Errors
/// [`Error::InvalidArgument`] for a modulus outside 2..2^63, an n above [`crate::game::MAX_N`] or
/// [`Error::Interrupted`] when cancelled.
pub(crate) fn count_mod_unplanned(targets: &Targets, moduli: &[u64], hooks: Hooks) -> Result<Option<Vec<Vec<u64>>>> {
    for &m in moduli {
        check_modulus(m)?;
    }
    let isa = crate::kernels::chosen::dense_isa();
    let top = targets.top();
    let Some(w) = unplanned_width(targets, moduli.len(), hooks)? else { return Ok(None) };
    if top < 2 {
        return Ok(Some(vec![vec![0; moduli.len()]; targets.len()]));
    }
    let shape = dense::Shape::full(crate::game::edge_values(top)?, w as usize, targets);
    dense::run(&shape, targets, moduli, hooks, w, isa, true).map(Some)
}

/// The width W of the dense engine's arrays for `plan` and `moduli` moduli: the smallest power of
/// two (at least 64) above every g of every layer window and every edge value `1 + G(k)`, or `None`
/// when the generic engine runs instead (W would take more than [`DENSE_LIMIT_BYTES`] of arrays, or
/// the plan has no layer above 1). Cost O(n).
pub(crate) fn dense_width(plan: &Plan, moduli: usize) -> Option<u64> {
    let top = plan.top();
    if top < 2 {
        return None;
    }
    let mut highest = (0..=top).map(|k| plan.edge_value(k) as u64).max().unwrap_or(0);
    for k in 2..=top {
        let (base, window) = plan.window(k);
        if window > 0 {
            highest = highest.max(base.checked_add(window as u64 - 1)?);
        }
    }
    dense_width_above(highest, moduli)
}

/// The smallest power of two (at least 64) above `highest`, if arrays of that width for `moduli`
/// moduli stay within [`DENSE_LIMIT_BYTES`].
fn dense_width_above(highest: u64, moduli: usize) -> Option<u64> {
    let w = crate::game::window_above(highest)?;
    (dense_bytes(w, moduli) <= DENSE_LIMIT_BYTES).then_some(w)
}

/// The bytes of the dense engine's arrays for g below `w` for `moduli` moduli
/// ([`dense::arrays_bytes`] each).
fn dense_bytes(w: u64, moduli: usize) -> u64 {
    dense::arrays_bytes(w).saturating_mul(moduli as u64)
}

/// The peak memory [`count_mod_with_plan`] allocates for `moduli` moduli and `targets` targets, in
/// bytes: the dense engine's arrays (all moduli at once), or the generic engine's three layers, plus
/// the residues of the targets. Cost O(n).
#[cfg(test)]
pub(crate) fn memory_bytes(plan: &Plan, moduli: usize, targets: usize) -> u64 {
    let sizes = if plan.top() < 2 { Sizes { highest: u64::MAX, ..plan.sizes() } } else { plan.sizes() };
    memory_bytes_for(&sizes, moduli, targets)
}

/// [`memory_bytes`] for a plan of these [`Sizes`] (the dense engine's width from its highest g).
pub(crate) fn memory_bytes_for(sizes: &Sizes, moduli: usize, targets: usize) -> u64 {
    let results = 8 * moduli as u64 * targets as u64;
    match dense_width_above(sizes.highest, moduli) {
        Some(w) => dense_bytes(w, moduli) + results,
        None => (8 * moduli as u64 * 3).saturating_mul(sizes.widest).saturating_add(results),
    }
}

/// What one modulus of [`count_mod_unplanned`] costs for `targets`: the lane operations of each
/// layer (0 to the top) and the bytes of its arrays, or `None` where it would not run (see
/// [`unplanned_bytes`]). Cost O(top n) time, 4 bytes a layer.
///
/// # Errors
/// As [`count_mod_unplanned`].
pub(crate) fn unplanned_work(targets: &Targets, hooks: Hooks) -> Result<Option<(Vec<u64>, u64)>> {
    let top = targets.top();
    let Some(w) = unplanned_width(targets, 1, hooks)? else { return Ok(None) };
    let shape = dense::Shape::full(crate::game::edge_values(top)?, w as usize, targets);
    Ok(Some((dense::layer_lanes(&shape, w), dense_bytes(w, 1))))
}

/// A sweep of [`count_mod_unplanned`]'s arrays of n's width for c(n, 0) over the edge values of
/// n's top layers, about `lanes` lane operations of it, for timing the engine (the estimate's
/// calibration): the residues it computes mean nothing; its memory traffic is that of the real run.
pub(crate) struct DenseRun {
    /// The window of every layer, at full width.
    shape: dense::Shape<'static>,
    /// c(top, 0), the top of the sweep's layers.
    target: Targets,
    /// The width of the arrays.
    w: u64,
    /// The kernel's instruction set.
    isa: crate::kernels::Isa,
    /// The lane operations of one run.
    lanes: u64,
}

impl DenseRun {
    /// The sweep of n's width of about `lanes` lane operations (whole layers, at least two).
    ///
    /// Cost: O(n) for the edge values; memory O(n).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for n above [`crate::game::MAX_N`] or below 3, an n whose width
    /// would take more than [`DENSE_LIMIT_BYTES`] of arrays.
    pub(crate) fn new(n: u64, lanes: u64) -> Result<DenseRun> {
        let isa = crate::kernels::chosen::dense_isa();
        if n < 3 {
            return Err(Error::invalid(Param::N, format!("at least 3 for a calibration, got {n}")));
        }
        let Some(w) = unplanned_width(&Targets::one(n, 0), 1, Hooks::default())? else {
            return Err(Error::invalid(Param::N, format!("a width the dense engine can hold, for n = {n}")));
        };
        let edges = crate::game::edge_values(n)?;
        let layers = (lanes / (w / 4).max(64)).clamp(2, n - 1) as usize;
        // layers 0 and 1, then the edge values of n's top layers
        let edge: Vec<u32> = [0, 1].into_iter().chain(edges[edges.len() - layers + 1..].iter().copied()).collect();
        let target = Targets::one(edge.len() as u64 - 1, 0);
        let shape = dense::Shape::full(edge, w as usize, &target);
        let lanes = dense::layer_lanes(&shape, w).iter().sum();
        Ok(DenseRun { shape, target, w, isa, lanes })
    }

    /// The lane operations of one run. Cost O(1).
    pub(crate) fn lanes(&self) -> u64 {
        self.lanes
    }

    /// One run modulo `modulus`, in the lanes the engine runs it in (`u32` below 2^31, else `u64`
    /// as the primes of [`crate::crt`]), on the current rayon pool.
    ///
    /// Cost: [`DenseRun::lanes`] lane operations; memory the arrays of one modulus
    /// ([`unplanned_bytes`]).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a modulus the engine refuses.
    pub(crate) fn run(&self, modulus: u64) -> Result<()> {
        check_modulus(modulus)?;
        dense::run(&self.shape, &self.target, &[modulus], Hooks::default(), self.w, self.isa, true).map(|_| ())
    }
}

/// The width W of [`count_mod_unplanned`], or `None` where its arrays would exceed
/// [`DENSE_LIMIT_BYTES`]. Cost O(top n), cancellable.
///
/// # Errors
/// [`Error::InvalidArgument`] for an n above [`crate::game::MAX_N`]; [`Error::Interrupted`] once
/// cancelled.
fn unplanned_width(targets: &Targets, moduli: usize, hooks: Hooks) -> Result<Option<u64>> {
    let top = targets.top();
    crate::game::check_n(top)?;
    let edges = crate::game::max_edge_value_with(top, hooks)? as u64;
    Ok(dense_width_above(targets.g_range().1.max(edges), moduli))
}

/// The bytes [`count_mod_unplanned`] allocates, or `None` where it would not run.
///
/// # Errors
/// As [`count_mod_unplanned`].
pub(crate) fn unplanned_bytes(targets: &Targets, moduli: usize, hooks: Hooks) -> Result<Option<u64>> {
    let top = targets.top();
    Ok(unplanned_width(targets, moduli, hooks)?
        .map(|w| dense_bytes(w, moduli) + 4 * (top + 1) + 8 * moduli as u64 * targets.len() as u64))
}

#[cfg(test)]
mod tests;
