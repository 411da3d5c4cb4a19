//! The generic modular engine: the recurrence ([`crate::engines::recurrence`]) over residues modulo
//! several moduli at once, member states of the plan only. It runs where the dense engine's arrays
//! would be too wide.

use super::{NAME, add_mod};
use crate::engines::recurrence::{self, Numbers};
use crate::error::Result;
use crate::hooks::Hooks;
use crate::plan::Plan;
use crate::targets::Targets;

/// Residues modulo each of a list of moduli, one word per modulus (each 2 <= m < 2^63).
struct Residues<'a> {
    moduli: &'a [u64],
}

impl Numbers for Residues<'_> {
    const NAME: &'static str = NAME;

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

/// c(n, g) modulo each of `moduli` (checked by the caller) for every target of `plan`, in order;
/// all zero for a target in layer 0 or 1.
///
/// Cost: O(plan states x moduli) word operations; memory three layers of 8 bytes per state and
/// modulus.
///
/// # Errors
/// [`crate::Error::Interrupted`] when cancelled.
pub(super) fn run(plan: &Plan, targets: &Targets, moduli: &[u64], hooks: Hooks) -> Result<Vec<Vec<u64>>> {
    let words = recurrence::run(plan, &Residues { moduli }, targets, hooks)?;
    Ok(words.into_iter().map(|w| if w.is_empty() { vec![0; moduli.len()] } else { w }).collect())
}
