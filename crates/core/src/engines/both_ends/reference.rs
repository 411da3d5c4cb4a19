//! The reference count from both ends, in whole big integers: the top-down half in hash maps of the
//! states its paths reach, the bottom-up half by the reference engine, joined at the cut.

use std::collections::HashMap;

use num_bigint::BigUint;

use crate::engines::recurrence::{self, Layer};
use crate::engines::reference::{Limbs, to_biguint};
use crate::error::{Error, Param, Result};
use crate::hooks::Hooks;
use crate::plan::Plan;

/// The exact c(n, g) for the one target (n, g) of `plan` (whose top layer is n), counted bottom-up
/// to layer `cut` and top-down from n to `cut + 1`, joined at the cut (1 <= cut <= n; n alone for
/// n < 2): `cut` = n is the bottom-up count, `cut` = 1 the top-down sum alone.
///
/// Cost: the reference engine's limb additions over layers 2 to `cut`, and over the layers above
/// it the same for N, whose values have at most limbs(n - k + 1) limbs at layer k; memory three
/// layers of each half, the top half's in hash maps of the states they reach.
///
/// # Errors
/// [`Error::InvalidArgument`] naming [`Param::N`] for a cut outside 1..=n;
/// [`Error::Interrupted`] when cancelled.
pub(crate) fn count(plan: &Plan, (n, g): (u64, u64), cut: u64, hooks: Hooks) -> Result<BigUint> {
    debug_assert_eq!(plan.top() as u64, n, "the plan's top layer is the target's");
    if n < 2 {
        return Ok(BigUint::ZERO);
    }
    if !(1..=n).contains(&cut) {
        return Err(Error::invalid(Param::N, format!("a cut from 1 to {n}, got {cut}")));
    }
    let (cut, n) = (cut as usize, n as usize);
    // top-down: N of the layers above the cut, handed down; what reaches layers cut and cut - 1 is kept
    let mut down: HashMap<usize, HashMap<u64, BigUint>> = HashMap::new();
    down.entry(n).or_default().insert(g, BigUint::from(1u32));
    let mut total = BigUint::ZERO;
    for k in (cut + 1..=n).rev() {
        hooks.check()?;
        let Some(layer) = down.remove(&k) else { continue };
        let (r, l) = (plan.edge_value(k - 2) as u64, plan.edge_value(k - 1) as u64);
        for (state, paths) in layer {
            let direct = u32::from(state == r) + u32::from(k >= 3 && state == l);
            if direct > 0 {
                total += &paths * direct;
            }
            for (to, e) in [(k - 1, r), (k - 2, l)] {
                if let Some(h) = (state ^ e).checked_sub(1).filter(|_| to >= 2) {
                    *down.entry(to).or_default().entry(h).or_default() += &paths;
                }
            }
        }
    }
    // bottom-up to the cut, keeping its two last layers
    let mut kept: [Option<Layer>; 2] = [None, None];
    if cut >= 2 {
        let [older, old] = recurrence::run_range(plan, &Limbs, Default::default(), 2..=cut, hooks, |_| {})?;
        kept = [Some(older).filter(|l| l.k + 1 == cut), Some(old).filter(|l| l.k == cut)];
    }
    // the join: what reached layers cut and cut - 1 from above, times their counts
    for (layer, at) in kept.iter().zip([cut - 1, cut]) {
        let (Some(layer), Some(reached)) = (layer, down.get(&at)) else { continue };
        for (h, paths) in reached {
            // a state a path reaches is in the plan, or its count is zero (docs/math.md, "Zero states")
            if let Some(value) = layer.value(*h) {
                total += paths * to_biguint(value);
            }
        }
    }
    Ok(total)
}
