//! The residues of c(n, g) modulo many primes, by the modular engine under the memory guard: the
//! run of [`crate::crt`] (the value they determine is [`super::garner`]'s).

use fibtree_core::{Guard, Request};

#[cfg(doc)]
use crate::error::Error;
use crate::error::Result;
use crate::options::Options;

/// c(n, g) modulo each of `primes` (any moduli 2 <= m < 2^63), in order, by the modular engine: one
/// rayon task per modulus in the current pool, each the dense sweep with no plan where g is small,
/// else one plan shared by every modulus.
///
/// Cost: per modulus that of [`crate::count_mod`] (n x W x c / 4 lane operations where g is small,
/// c the classes of g modulo 4 a layer needs: for f(n) one or two); memory three layers of W + 4
/// words per modulus running at once, and the plan where one is needed.
///
/// # Errors
/// [`Error::InvalidArgument`] for a modulus outside 2..2^63 or n above [`crate::MAX_N`];
/// [`Error::OutOfMemory`] when the moduli running at once (one a thread) and the
/// plan, where one is needed, would not fit in the options' limit ([`Options::limit`]);
/// [`Error::Interrupted`] once the options' hooks cancel the run. The options' moduli, engine, cut,
/// double check and checkpoint are not used.
///
/// # Examples
///
/// ```
/// let residues = fibtree::crt::residues(10, 0, &[7, 11], &fibtree::Options::default())?;
/// assert_eq!(residues, [17 % 7, 17 % 11]);
/// # Ok::<(), fibtree::Error>(())
/// ```
pub fn residues(n: u64, g: u64, primes: &[u64], options: &Options) -> Result<Vec<u64>> {
    let at_once = primes.len().min(rayon::current_num_threads()).max(1);
    let guard = Guard::residues(options.limit(), 1, at_once);
    let target = [(n, g)];
    let request = Request::residues(&target, primes.to_vec()).each_modulus_alone().guard(guard);
    let mut residues = vec![0; primes.len()];
    request.hooks(options.hooks).plan()?.run(|_, _, found| {
        residues.copy_from_slice(found);
        Ok(())
    })?;
    Ok(residues)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fibtree_core::{Hooks, check_below_tree, garner, primes_for};
    use num_bigint::BigUint;

    /// The options of a run within `memory_limit` bytes told by `hooks`.
    fn options(memory_limit: u64, hooks: Hooks<'_>) -> Options<'_> {
        Options { hooks, memory_limit: Some(memory_limit.into()), ..Options::default() }
    }

    /// The exact c(n, g) from its residues modulo the primes a count of T(n) needs ([`residues`],
    /// then Garner's algorithm): a route to the exact value with no big-integer arithmetic but the
    /// reconstruction, and none in common with the exact engines. The value is checked to be below
    /// |T(n)| (or 0 where T(n) is empty), as every count is: with 128 bits of room in the primes'
    /// product, a wrong residue passes that check with probability about 2^-128.
    fn count(n: u64, g: u64, memory_limit: u64, hooks: Hooks) -> Result<BigUint> {
        let primes = primes_for(n, hooks)?;
        let residues = residues(n, g, &primes, &options(memory_limit, hooks))?;
        let value = garner(&primes, &residues, hooks)?;
        check_below_tree(n, g, &value, primes.len())?;
        Ok(value)
    }

    #[test]
    fn the_residue_route_gives_the_exact_engines_values() {
        for (n, g) in [(0u64, 0u64), (2, 0), (10, 0), (700, 0), (1200, 5), (333, 1 << 40), (2000, 0)] {
            let got = count(n, g, u64::MAX, Hooks::default()).unwrap();
            assert_eq!(got, crate::count(n, g).unwrap(), "c({n}, {g})");
        }
    }

    #[test]
    fn one_wrong_residue_is_caught() {
        let (n, g) = (1500u64, 0u64);
        let p = primes_for(n, Hooks::default()).unwrap();
        let good = residues(n, g, &p, &options(u64::MAX, Hooks::default())).unwrap();
        for i in [0, p.len() / 2, p.len() - 1] {
            let mut bad = good.clone();
            bad[i] = (bad[i] + 1) % p[i];
            let value = garner(&p, &bad, Hooks::default()).unwrap();
            assert!(value >= fibtree_core::tree_size(n), "a wrong residue at {i} passes the size check");
        }
    }
}
