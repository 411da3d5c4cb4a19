//! The whole distribution c(n, .): every g with a non-zero count, exactly or modulo m.
//!
//! The support of layer n (a forward pass) gives the targets; the backward plan from all of them
//! covers nearly every state of every layer, about 12 times the states of c(n, 0) at n = 5000.

use num_bigint::BigUint;

use crate::engine::Hooks;
use crate::plan::{Plan, support_until};
use crate::{Error, Result, exact, modular};

/// The targets of the whole distribution and the plan that computes them, after checking the
/// memory estimate (plan, three layers of `words(n)` words a state, and the results) against `limit`.
fn planned(n: u64, limit: u64, hooks: Hooks, words: impl Fn(usize) -> u64) -> Result<(Vec<(u64, u64)>, Plan)> {
    // Before the support's forward pass: the plan of the whole distribution holds nearly every g
    // below about 11 k in each layer k, so about 11 n^2 / 16 bytes of bitsets.
    crate::game::check_n(n)?;
    let floor = (n as u128 * n as u128 * 11 / 16).min(u64::MAX as u128) as u64;
    if floor > limit {
        return Err(Error::OutOfMemory { arg: "N", estimate: floor, limit });
    }
    let targets: Vec<(u64, u64)> = support_until(n, hooks.cancel)?.iter().map(|g| (n, g)).collect();
    let plan = Plan::new_until(&targets, limit, hooks.cancel)?;
    let estimate = plan.bytes() + 8 * words(n as usize) * (3 * plan.widest_layer() as u64 + targets.len() as u64);
    if estimate > limit {
        return Err(Error::OutOfMemory { arg: "N", estimate, limit });
    }
    Ok((targets, plan))
}

/// `(g, c(n, g))` for every g with c(n, g) > 0, ascending g, by the exact engine `engine`.
///
/// Cost: the exact engine over about 6.5 n targets' states (about 12 x the work of c(n, 0) at
/// n = 5000); memory the plan, three layers and the results, checked against `memory_limit` first.
///
/// # Errors
/// [`Error::InvalidArgument`] for n too large, [`Error::OutOfMemory`] past the limit,
/// [`Error::Interrupted`] when cancelled.
pub fn exact(n: u64, engine: exact::Engine, hooks: Hooks, memory_limit: u64) -> Result<Vec<(u64, BigUint)>> {
    let (targets, plan) = planned(n, memory_limit, hooks, |k| 1 + exact::limbs(k) as u64)?;
    let values = exact::count_with_engine(engine, &plan, &targets, hooks)?;
    Ok(targets.iter().map(|t| t.1).zip(values).collect())
}

/// `(g, c(n, g) mod m)` for every g with c(n, g) > 0 (the residue may be 0), ascending g.
///
/// Cost: the modular engine over the same states as [`exact()`], one word each.
///
/// # Errors
/// As [`exact()`], and [`Error::InvalidArgument`] for m outside 2..2^63.
pub fn modular(n: u64, m: u64, hooks: Hooks, memory_limit: u64) -> Result<Vec<(u64, u64)>> {
    modular::check_modulus(m)?;
    let (targets, plan) = planned(n, memory_limit, hooks, |_| 1)?;
    let residues = modular::count_mod_with_plan(&plan, &targets, &[m], hooks)?;
    Ok(targets.iter().map(|t| t.1).zip(residues.into_iter().map(|r| r[0])).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modular_distribution_is_the_exact_one_reduced() {
        let m = 1_000_003;
        let exact = exact(300, exact::Engine::Blocked, Hooks::default(), u64::MAX).unwrap();
        let modular = modular(300, m, Hooks::default(), u64::MAX).unwrap();
        assert_eq!(exact.len(), modular.len());
        for ((g, v), (h, r)) in exact.iter().zip(&modular) {
            assert_eq!(g, h);
            assert_eq!(crate::verify::residue(v, m as u128), *r as u128);
        }
        let sum: BigUint = exact.iter().map(|e| &e.1).sum();
        assert_eq!(sum, crate::tree_size(300) - 1u32);
    }
}
