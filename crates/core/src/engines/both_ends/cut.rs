//! Where a count from both ends is cut: the cut asked for ([`Cut`], checked once by
//! [`Cut::resolve`]), the two halves it gives ([`Halves`], [`halves`]), and the cost model that chooses it
//! ([`best_cut`], [`keep_for_both_ends`], over the limb additions of [`crate::cost`]).

use crate::cost::{both_ends_limb_additions, limb_additions, limbs};
use crate::engines::Engine;
use crate::error::{Error, Param, Result};

/// Where the exact count of one target is cut between its bottom-up and top-down halves
/// (docs/math.md, "Counting from both ends"). Every cut gives the same value; they differ in work.
///
/// # Examples
///
/// ```
/// use fibtree_core::{Cut, Engine, Request};
/// let count = |cut| {
///     let mut value = None;
///     Request::exact(&[(300, 0)], Engine::Blocked).cut(cut).plan()?.run(|_, v, _| Ok(value = v))?;
///     Ok::<_, fibtree_core::Error>(value.unwrap())
/// };
/// assert_eq!(count(Cut::At(2))?, count(Cut::Auto)?);
/// assert_eq!(count(Cut::At(300))?, count(Cut::Auto)?); // bottom-up alone
/// # Ok::<(), fibtree_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Cut {
    /// The cut with the least limb additions (from the plan's layer sizes and limbs): about n / 2
    /// for one target with wide layers, bottom-up alone where that is least, and for several
    /// targets (one bottom-up run serves them all).
    #[default]
    Auto,
    /// Bottom-up to layer m and top-down above it, 2 <= m <= n; m = n is the bottom-up run alone.
    At(u64),
}

impl Cut {
    /// The cut asked for a count of `targets` by `engine`, checked once, before any work:
    /// [`Cut::Auto`] always; [`Cut::At`] for one target counted by the blocked engine, at a layer
    /// from 2 to n (n itself for n < 3, whose trees have no layer to cut), or by the reference
    /// engine in whole big integers, at any layer from 1 (top-down alone) to n. Cost O(1).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming [`Param::Cut`] for any other cut.
    pub(crate) fn resolve(self, targets: &[(u64, u64)], engine: Engine) -> Result<Cut> {
        let Cut::At(m) = self else { return Ok(self) };
        match targets {
            [_] if engine == Engine::Crt => Err(refuse("a cut is for the blocked or the reference engine".into())),
            // the reference form counts from both ends at any layer, 1 (top-down alone) to n
            &[(n, _)] if engine == Engine::Reference && !(1..=n.max(1)).contains(&m) => {
                Err(refuse(format!("expected a layer from 1 to {n}, got {m}")))
            }
            [_] if engine == Engine::Reference => Ok(self),
            &[(n, _)] if n < 3 && m != n => Err(refuse(format!(
                "T({n}) has no layer to cut: it is counted bottom-up alone (give {n} or no cut, not {m})"
            ))),
            &[(n, _)] if n >= 3 && !(2..=n).contains(&m) => {
                Err(refuse(format!("expected a layer from 2 to {n} (the top layer counts bottom-up alone), got {m}")))
            }
            [_] => Ok(self),
            _ => Err(refuse("a cut is for a count of one target".into())),
        }
    }

    /// The cut of a run resumed from a checkpoint that counts with the cut at layer `saved`: that
    /// layer, which [`Cut::Auto`] takes and [`Cut::At`] must name. Cost O(1).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming [`Param::Cut`] for another layer.
    pub(crate) fn resumed(self, saved: u64) -> Result<Cut> {
        match self {
            Cut::At(m) if m != saved => {
                Err(refuse(format!("the checkpoint counts with the cut at layer {saved}, not {m}")))
            }
            _ => Ok(Cut::At(saved)),
        }
    }
}

/// The refusal of a cut that cannot apply: the one error naming [`Param::Cut`].
fn refuse(why: String) -> Error {
    Error::invalid(Param::Cut, why)
}

/// The two halves of an exact count of one target: where it is cut (the [`Cut`] asked for, resolved)
/// and the limb additions of each
/// ([`crate::Planned::halves`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Halves {
    /// The cut m: bottom-up over layers 2 to m, top-down over m + 1 to n (m = n: bottom-up alone).
    pub cut: u64,
    /// The limb additions below the cut (64-bit word additions, carries included).
    pub below: u128,
    /// The limb additions above the cut.
    pub above: u128,
    /// The limb additions of the bottom-up run alone.
    pub bottom_up: u128,
}

impl Halves {
    /// The limb additions of both halves.
    pub fn work(&self) -> u128 {
        self.below + self.above
    }

    /// Whether both ends are counted (the cut is below the top layer).
    pub fn both_ends(&self) -> bool {
        self.above > 0
    }
}

/// The halves of the count of the one target at the top of a plan whose layers have `lens[k]`
/// states: at `cut` (checked by [`Cut::resolve`]: a layer from 2 to n), or at the best cut
/// ([`best_cut`]) for [`Cut::Auto`]. Cost O(n).
pub(crate) fn halves(lens: &[u32], cut: Cut) -> Halves {
    let n = lens.len().saturating_sub(1);
    let cut = match cut {
        _ if n < 3 => n.max(1),
        // no better cut is above the bound, whatever the layers (a plan may hold no sets above it)
        Cut::Auto => best_cut(lens).0.min(keep_for_both_ends(n)),
        Cut::At(m) => {
            debug_assert!((2..=n as u64).contains(&m), "a cut resolved to a layer from 2 to {n}, got {m}");
            (m as usize).clamp(2, n)
        }
    };
    let below = both_ends_limb_additions(&lens[..=cut.min(n)], cut);
    let bottom_up = limb_additions(lens);
    Halves { cut: cut as u64, below, above: both_ends_limb_additions(lens, cut) - below, bottom_up }
}

/// The cut with the least [`both_ends_limb_additions`] over layers of `lens[k]` states, and those additions.
/// Cost O(n): the sums from both ends, each once.
pub(crate) fn best_cut(lens: &[u32]) -> (usize, u128) {
    let n = lens.len().saturating_sub(1);
    if n < 2 {
        return (n.max(1), 0);
    }
    // below[m]: the bottom half's additions over layers 2..=m; above[m]: the top half's over m+1..=n
    let mut below = vec![0u128; n + 1];
    for k in 2..=n {
        below[k] = below[k - 1] + lens[k] as u128 * limbs(k) as u128;
    }
    let mut above = vec![0u128; n + 2];
    for k in (2..=n).rev() {
        above[k - 1] = above[k] + lens[k] as u128 * limbs(n - k + 1).max(1) as u128;
    }
    (1..=n).map(|m| (m, below[m] + above[m])).min_by_key(|&(m, work)| (work, std::cmp::Reverse(m))).expect("a cut")
}

/// The best cut of a count of one target at layer `n` from both ends ([`halves`] of [`Cut::Auto`]),
/// whatever the layers' sizes: the last m with limbs(m) <= limbs(n - m + 1). A layer k above it
/// costs more bottom-up (limbs(k)) than top-down (limbs(n - k + 1)), and the difference grows with
/// k, so the least work never puts it below the cut; a layer at or below it costs no more
/// bottom-up, so the least work is at it ([`best_cut`] may tie above it only past layers of no
/// states). So the cut is known before the plan: the plan of such a count needs its sets up to
/// here only ([`crate::plan::Plan::below`]), and its top-down half can start while the plan is made
/// ([`super::start_top_down`]). Cost O(log n).
pub(crate) fn keep_for_both_ends(n: usize) -> usize {
    let fits = |m: usize| limbs(m) <= limbs(n - m + 1).max(1);
    // fits is true then false as m grows (limbs grows with m, limbs(n - m + 1) falls)
    let (mut lo, mut hi) = (1usize, n.max(1));
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(mid) { lo = mid } else { hi = mid - 1 }
    }
    lo
}

/// Asserts that `cut`, where a count from both ends of T(n) is cut, is a layer from 2 (what
/// [`Cut::resolve`](Cut::resolve) and [`best_cut`] give).
///
/// # Panics
/// For a cut below 2.
pub(super) fn assert_cut(n: u64, cut: u64) {
    assert!(cut >= 2, "a cut from 2 to {n}, got {cut}");
}
