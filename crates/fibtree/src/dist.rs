//! The whole distribution c(n, .): every g with a non-zero count, exactly ([`distribution`]) or
//! modulo m ([`distribution_mod`]), with the run's [`Options`].
//!
//! The support of layer n (a forward pass) gives the targets; the backward plan from all of them
//! covers nearly every state of every layer, about 12 times the states of c(n, 0) at n = 5000.

use fibtree_core::{Guard, Request};
use num_bigint::BigUint;

use crate::error::Result;
use crate::options::Options;

/// The targets of the whole distribution of layer n (the support's g), after the memory guard has
/// refused a run predicted past the limit before the support's forward pass.
fn support_targets(n: u64, exact: bool, options: &Options) -> Result<Vec<(u64, u64)>> {
    Guard::distribution(options.limit(), n, exact, 0).distribution_floor(n)?;
    Ok(fibtree_core::support(n, options.hooks)?.into_iter().map(|g| (n, g)).collect())
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
/// assert_eq!(fibtree::dist::distribution(10, &options)?, fibtree::distribution(10)?);
/// # Ok::<(), fibtree::Error>(())
/// ```
pub fn distribution(n: u64, options: &Options) -> Result<Vec<(u64, BigUint)>> {
    let targets = support_targets(n, true, options)?;
    let guard = Guard::distribution(options.limit(), n, true, targets.len());
    let request = Request::exact(&targets, options.engine).guard(guard).hooks(options.hooks).always_planned();
    let mut values = vec![BigUint::ZERO; targets.len()];
    request.plan()?.run(|index, value, _| {
        values[index] = value.unwrap_or_default();
        Ok(())
    })?;
    Ok(targets.iter().map(|t| t.1).zip(values).collect())
}

/// `(g, c(n, g) mod m)` for every g with c(n, g) > 0 (the residue may be 0), ascending g, by the
/// modular engine alone.
///
/// Cost: the modular engine over the same states as [`distribution`], one word each.
///
/// # Errors
/// As [`distribution`], and [`crate::Error::InvalidArgument`] for m outside 2..2^63.
///
/// # Examples
///
/// ```
/// let residues = fibtree::dist::distribution_mod(10, 7, &fibtree::Options::default())?;
/// assert_eq!((residues.len(), residues[0]), (17, (0, 17 % 7)));
/// # Ok::<(), fibtree::Error>(())
/// ```
pub fn distribution_mod(n: u64, m: u64, options: &Options) -> Result<Vec<(u64, u64)>> {
    crate::run::check_modulus(m)?;
    let targets = support_targets(n, false, options)?;
    let guard = Guard::distribution(options.limit(), n, false, targets.len());
    let request = Request::residues(&targets, vec![m]).guard(guard).hooks(options.hooks).always_planned();
    let mut residues = vec![0; targets.len()];
    request.plan()?.run(|index, _, found| {
        residues[index] = found[0];
        Ok(())
    })?;
    Ok(targets.iter().map(|t| t.1).zip(residues).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modular_distribution_is_the_exact_one_reduced() {
        let m = 1_000_003;
        let exact = distribution(300, &Options::default()).unwrap();
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
