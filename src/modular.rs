//! The recurrence in machine arithmetic modulo m, for several moduli at once.
//!
//! Its arithmetic is its own (a conditional subtraction per addition, residues below m < 2^63), so
//! that a slip in the big-integer engine's carries cannot hide in it.

use crate::engine::{self, Hooks, Numbers};
use crate::plan::Plan;
use crate::{Error, Result};

/// The largest modulus (exclusive) the modular engine accepts: sums of two residues fit in a `u64`.
pub const MODULUS_LIMIT: u64 = 1 << 63;

/// Residues modulo each of a list of moduli, one word per modulus.
pub struct Residues<'a> {
    moduli: &'a [u64],
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
/// target, in order, each in the order of `moduli`.
///
/// Cost: O(plan states x moduli) word operations; memory three layers of 8 bytes per state and modulus.
///
/// # Errors
/// [`Error::InvalidArgument`] for a modulus outside 2..2^63; [`Error::Interrupted`] when
/// `hooks.cancel` is set.
pub fn count_mod_with_plan(plan: &Plan, targets: &[(u64, u64)], moduli: &[u64], hooks: Hooks) -> Result<Vec<Vec<u64>>> {
    for &m in moduli {
        check_modulus(m)?;
    }
    let words = engine::run(plan, &Residues { moduli }, targets, hooks)?;
    Ok(words.into_iter().map(|w| if w.is_empty() { vec![0; moduli.len()] } else { w }).collect())
}
