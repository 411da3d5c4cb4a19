//! The residues of c(n, g) modulo many primes, by the modular engine under the memory guard: the
//! run of [`crate::crt`] (the value they determine is [`super::garner`]'s).

use rayon::prelude::*;

use crate::budget::{Guard, Run};
use crate::engines::modular;
#[cfg(doc)]
use crate::error::Error;
use crate::error::Result;
use crate::options::Options;
use crate::plan;
use crate::targets::Targets;

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
    let hooks = options.hooks;
    primes.iter().try_for_each(|&m| modular::check_modulus(m))?;
    let at_once = primes.len().min(rayon::current_num_threads()).max(1);
    let guard = Guard::new(Run::Residues { moduli: 1, at_once }, options.limit());
    guard.floor(n, g)?;
    if plan::known_zero(n, g, hooks)? {
        return Ok(vec![0; primes.len()]);
    }
    let target = Targets::one(n, g);
    if let Some(bytes) = modular::unplanned_bytes(&target, 1, hooks)? {
        guard.unplanned(bytes)?;
        let unplanned: Vec<Option<u64>> = primes
            .par_iter()
            .map(|&m| Ok(modular::count_mod_unplanned(&target, &[m], hooks)?.map(|r| r[0][0])))
            .collect::<Result<_>>()?;
        if let Some(residues) = unplanned.into_iter().collect::<Option<Vec<u64>>>() {
            return Ok(residues);
        }
    }
    let (plan, _) = guard.plan(&target, hooks)?;
    primes.par_iter().map(|&m| Ok(modular::count_mod_with_plan(&plan, &target, &[m], hooks)?[0][0])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigUint;

    use crate::crt::{check_below_tree, garner, primes, primes_needed};
    use crate::hooks::Hooks;

    /// The options of a run within `memory_limit` bytes told by `hooks`.
    fn options(memory_limit: u64, hooks: Hooks) -> Options {
        Options { hooks, memory_limit: Some(memory_limit.into()), ..Options::default() }
    }

    /// The exact c(n, g) from its residues modulo the first [`primes_needed`]`(n)` primes of
    /// [`primes`] ([`residues`], then [`garner`]): a route to the exact value with no big-integer
    /// arithmetic but the reconstruction, and none in common with the exact engines. The value is
    /// checked to be below |T(n)| (or 0 where T(n) is empty), as every count is: with 128 bits of room
    /// in the primes' product, a wrong residue passes that check with probability about 2^-128.
    ///
    /// Cost: [`primes_needed`]`(n)` runs of the modular engine (230 at n = 20000), then O(k^2) word
    /// operations for the reconstruction.
    ///
    /// # Errors
    /// As [`residues`]; [`Error::CrossCheck`] when the reconstruction is not below |T(n)| (a wrong
    /// residue).
    fn count(n: u64, g: u64, memory_limit: u64, hooks: Hooks) -> Result<BigUint> {
        let primes = primes(primes_needed(n));
        let residues = residues(n, g, &primes, &options(memory_limit, hooks))?;
        let value = garner(&primes, &residues)?;
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
    fn the_crt_engine_gives_the_reference_values_for_many_targets_at_once() {
        use crate::engines::{Engine, count_exact};
        let cases: Vec<Vec<(u64, u64)>> = vec![
            vec![(2, 0), (3, 1), (4, 3), (5, 7), (0, 0), (1, 0)],
            (0..=150).map(|k| (k, 0)).chain([(150, 3), (149, 0)]).collect(),
            vec![(333, 1 << 40)],
            vec![(900, 0), (899, 5)],
        ];
        for targets in cases.iter().map(|t| Targets::new(t)) {
            let targets = &targets;
            let plan = crate::plan::Plan::new(targets, u64::MAX, Hooks::default()).unwrap();
            let want = count_exact(Engine::Reference, &plan, targets, Hooks::default()).unwrap();
            let got = count_exact(Engine::Crt, &plan, targets, Hooks::default()).unwrap();
            assert_eq!(got, want, "{targets:?}");
        }
    }

    #[test]
    fn the_size_check_holds_at_its_edge() {
        for n in [0u64, 1, 2, 3, 10, 100, 1000, 5000] {
            let size = crate::game::tree_size(n).max(BigUint::from(1u32));
            let below = &size - 1u32;
            assert!(check_below_tree(n, 0, &below, 1).is_ok(), "|T({n})| - 1");
            assert!(check_below_tree(n, 0, &BigUint::from(0u32), 1).is_ok());
            for over in [size.clone(), &size + 1u32, &size << 1, &size << 200] {
                assert!(check_below_tree(n, 0, &over, 1).is_err(), "{over} for n = {n}");
            }
            // every power of two below |T(n)| passes, by the short way or the long one
            for b in 0..size.bits() {
                let x = BigUint::from(1u32) << b;
                assert_eq!(check_below_tree(n, 0, &x, 1).is_ok(), x < size, "2^{b} for n = {n}");
            }
        }
    }

    #[test]
    fn one_wrong_residue_is_caught() {
        let (n, g) = (1500u64, 0u64);
        let p = primes(primes_needed(n));
        let good = residues(n, g, &p, &options(u64::MAX, Hooks::default())).unwrap();
        for i in [0, p.len() / 2, p.len() - 1] {
            let mut bad = good.clone();
            bad[i] = (bad[i] + 1) % p[i];
            let value = garner(&p, &bad).unwrap();
            assert!(value >= crate::game::tree_size(n), "a wrong residue at {i} passes the size check");
        }
    }
}
