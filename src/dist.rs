//! The whole distribution c(n, .): every g with a non-zero count, exactly or modulo m.
//!
//! The support of layer n (a forward pass) gives the targets; the backward plan from all of them
//! covers nearly every state of every layer, about 12 times the states of c(n, 0) at n = 5000.

use num_bigint::BigUint;

use crate::budget;
use crate::engines::{self, modular};
use crate::error::{Param, Result};
use crate::plan::{self, Plan, Sizes, support};
use crate::report::Options;

/// The targets of the whole distribution and the plan that computes them, after checking the
/// memory estimate (plan, three layers of `words(n)` words a state, and the results) against the
/// options' limit.
fn planned(n: u64, options: &Options, words: impl Fn(usize) -> u64) -> Result<(Vec<(u64, u64)>, Plan)> {
    // Before the support's forward pass: the plan of the whole distribution holds nearly every g
    // below about 11 k in each layer k (about 11 n^2 / 16 bytes of bitsets), its widest layer about
    // 11 n states, and there are about 6.5 n targets: the whole run, predicted.
    crate::game::check_n(n)?;
    let limit = options.limit();
    let per_state = 8 * words(n as usize) as u128;
    let (n128, plan_bytes) = (n as u128, n as u128 * n as u128 * 11 / 16);
    let predicted = plan_bytes + per_state * (3 * 11 * n128 + 7 * n128);
    budget::check_memory(Param::N, predicted.min(u64::MAX as u128) as u64, limit)?;
    let targets: Vec<(u64, u64)> = support(n, options.hooks)?.iter().map(|g| (n, g)).collect();
    let per_state = 8 * words(n as usize);
    let whole = |s: &Sizes| {
        let states = s.widest.saturating_mul(3).saturating_add(targets.len() as u64);
        s.plan.saturating_add(per_state.saturating_mul(states))
    };
    let (plan, _) = plan::guarded(&targets, limit, options.hooks, whole)?;
    Ok((targets, plan))
}

/// `(g, c(n, g))` for every g with c(n, g) > 0, ascending g, by the options' exact engine, in the
/// current rayon pool (the options' moduli, double check and checkpoint are not used).
///
/// Cost: the exact engine over about 6.5 n targets' states (about 12 x the work of c(n, 0) at
/// n = 5000); memory the plan, three layers and the results, checked against the limit first.
///
/// # Errors
/// [`crate::Error::InvalidArgument`] for n too large, [`crate::Error::OutOfMemory`] past the limit,
/// [`crate::Error::Interrupted`] when cancelled.
///
/// # Examples
///
/// ```
/// let options = fibtree::Options { engine: fibtree::Engine::Reference, ..Default::default() };
/// assert_eq!(fibtree::distribution_with(10, &options)?, fibtree::distribution(10)?);
/// # Ok::<(), fibtree::Error>(())
/// ```
pub fn distribution_with(n: u64, options: &Options) -> Result<Vec<(u64, BigUint)>> {
    let (targets, plan) = planned(n, options, |k| 1 + engines::limbs(k) as u64)?;
    let values = engines::count_exact(options.engine, &plan, &targets, options.hooks)?;
    Ok(targets.iter().map(|t| t.1).zip(values).collect())
}

/// `(g, c(n, g) mod m)` for every g with c(n, g) > 0 (the residue may be 0), ascending g, by the
/// modular engine alone.
///
/// Cost: the modular engine over the same states as [`distribution_with`], one word each.
///
/// # Errors
/// As [`distribution_with`], and [`crate::Error::InvalidArgument`] for m outside 2..2^63.
///
/// # Examples
///
/// ```
/// let residues = fibtree::distribution_mod(10, 7, &fibtree::Options::default())?;
/// assert_eq!((residues.len(), residues[0]), (17, (0, 17 % 7)));
/// # Ok::<(), fibtree::Error>(())
/// ```
pub fn distribution_mod(n: u64, m: u64, options: &Options) -> Result<Vec<(u64, u64)>> {
    modular::check_modulus(m)?;
    let (targets, plan) = planned(n, options, |_| 1)?;
    let residues = modular::count_mod_with_plan(&plan, &targets, &[m], options.hooks)?;
    Ok(targets.iter().map(|t| t.1).zip(residues.into_iter().map(|r| r[0])).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modular_distribution_is_the_exact_one_reduced() {
        let m = 1_000_003;
        let exact = distribution_with(300, &Options::default()).unwrap();
        let modular = distribution_mod(300, m, &Options::default()).unwrap();
        assert_eq!(exact.len(), modular.len());
        for ((g, v), (h, r)) in exact.iter().zip(&modular) {
            assert_eq!(g, h);
            assert_eq!(v % m, BigUint::from(*r));
        }
        let sum: BigUint = exact.iter().map(|e| &e.1).sum();
        assert_eq!(sum, crate::tree_size(300) - 1u32);
    }
}
