//! The whole distribution c(n, .): every g with a non-zero count, exactly ([`distribution`]) or
//! modulo m ([`distribution_mod`]), with the run's [`Options`].
//!
//! The support of layer n (a forward pass) gives the targets; the backward plan from all of them
//! covers nearly every state of every layer, about 12 times the states of c(n, 0) at n = 5000.

use num_bigint::BigUint;

use crate::budget::{self, Guard, Run};
use crate::engines::{self, modular};
use crate::error::Result;
use crate::options::Options;
use crate::plan::{Plan, support};
use crate::targets::Targets;

/// The targets of the whole distribution and the plan that computes them, after the memory guard
/// has checked the run with `words(n)` words a state: predicted before the support's forward pass
/// ([`budget::distribution_predicted`]), then over the plan ([`Run::Distribution`]).
fn planned(n: u64, options: &Options, words: impl Fn(usize) -> u64) -> Result<(Targets, Plan)> {
    crate::game::check_n(n)?;
    let words = words(n as usize);
    // past the limit on the prediction, refused with it, unless the plan is small enough to be made
    // and measured: then refused with the figure of its real sizes, whatever the limit
    let (predicted, plan) = budget::distribution_predicted(n, words);
    let before = Guard::new(Run::Distribution { words, targets: 0 }, options.limit());
    before.predicted(predicted, plan)?;
    let support: Vec<(u64, u64)> = support(n, options.hooks)?.iter().map(|g| (n, g)).collect();
    let targets = Targets::new(&support);
    let guard = Guard::new(Run::Distribution { words, targets: targets.len() }, options.limit());
    let (plan, _) = guard.plan(&targets, options.hooks)?;
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
/// assert_eq!(fibtree::dist::distribution(10, &options)?, fibtree::distribution(10)?);
/// # Ok::<(), fibtree::Error>(())
/// ```
pub fn distribution(n: u64, options: &Options) -> Result<Vec<(u64, BigUint)>> {
    let (targets, plan) = planned(n, options, |k| 1 + crate::cost::limbs(k) as u64)?;
    let values = engines::count_exact(options.engine, &plan, &targets, options.hooks)?;
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
