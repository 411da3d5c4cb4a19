//! The Chinese remainder theorem's mathematics: the fixed sequence of primes residues are taken
//! modulo ([`primes`]), how many of them determine a count ([`primes_for`]), and the value they
//! determine ([`garner`], checked below |T(n)| by [`check_below_tree`]). A count by this route in
//! one process is [`crate::Engine::Crt`]; the residues themselves are a [`crate::Request`]'s.

pub(crate) mod garner;
pub(crate) mod primes;

use num_bigint::BigUint;

use crate::error::Result;
use crate::hooks::Hooks;

/// The `count` largest primes below 2^62, the largest first: the fixed sequence every shard and
/// every reconstruction uses (prime i is the same in every version and on every machine), found by
/// `primal-check`'s Miller-Rabin test, stopped by `hooks` (asked once a prime).
///
/// Cost: about 22 primality tests per prime (the gaps between primes near 2^62 average 43); memory
/// 8 bytes a prime.
///
/// # Errors
/// [`crate::Error::Interrupted`] once `hooks` cancel the run.
///
/// # Examples
///
/// ```
/// let p = fibtree_core::primes(3, fibtree_core::Hooks::default())?;
/// assert!(p.windows(2).all(|w| w[0] > w[1]) && p[0] == (1 << 62) - 57);
/// # Ok::<(), fibtree_core::Error>(())
/// ```
pub fn primes(count: usize, hooks: Hooks) -> Result<Vec<u64>> {
    primes::primes_with(count, hooks)
}

/// The primes of [`primes`] whose residues determine every count c(n, g) with 128 bits of room: k
/// primes, each above 2^61, k the smallest with 61 k >= (the bits of |T(n)| - 1, which bounds every
/// count) + 128, so that a reconstruction from residues of which one is wrong lands below |T(n)|
/// with probability at most about 2^-128. Stopped by `hooks`.
///
/// Cost: that of [`primes`] for k primes (230 at n = 20000).
///
/// # Errors
/// [`crate::Error::InvalidArgument`] naming [`crate::Param::N`] for n above [`crate::MAX_N`];
/// [`crate::Error::Interrupted`] once cancelled.
///
/// # Examples
///
/// ```
/// // 6 primes: f(300) has 202 bits, and 128 bits of room are added to a bound on them
/// assert_eq!(fibtree_core::primes_for(300, fibtree_core::Hooks::default())?.len(), 6);
/// # Ok::<(), fibtree_core::Error>(())
/// ```
pub fn primes_for(n: u64, hooks: Hooks) -> Result<Vec<u64>> {
    crate::game::check_n(n)?;
    primes::primes_with(primes::primes_needed(n), hooks)
}

/// The unique x below p_0 p_1 ... p_(k-1) with x = `residues[i]` (mod `primes[i]`) for every i, by
/// Garner's algorithm (one modular inverse a prime, then Horner's rule over the mixed-radix
/// digits), stopped by `hooks` (asked once a digit). The moduli need only be pairwise coprime.
///
/// Cost: O(k^2) multiplications of words; memory O(k) words.
///
/// # Errors
/// [`crate::Error::InvalidArgument`] naming [`crate::Param::Modulus`] when the lengths differ, a
/// modulus is below 2 or not below 2^63, a residue is not below its modulus, or two moduli share a
/// factor; [`crate::Error::Interrupted`] once cancelled.
///
/// # Examples
///
/// ```
/// let x = fibtree_core::garner(&[3, 5, 7], &[2, 3, 2], fibtree_core::Hooks::default())?;
/// assert_eq!(x, 23u32.into());
/// # Ok::<(), fibtree_core::Error>(())
/// ```
pub fn garner(primes: &[u64], residues: &[u64], hooks: Hooks) -> Result<BigUint> {
    garner::garner_with(primes, residues, hooks)
}

/// Checks that `value`, reconstructed from residues modulo `primes` primes, can be c(n, g): every
/// count is at most the number of non-root nodes, |T(n)| - 1 (0 for the empty T(0)).
///
/// Cost: O(1) where `value` is at least 5 bits shorter than a bound on the bits of |T(n)|, as every
/// count that is not nearly |T(n)| is; else O(n^2 / 64) for |T(n)|.
///
/// # Errors
/// [`crate::Error::CrossCheck`] when it is not: a wrong residue.
///
/// # Examples
///
/// ```
/// use fibtree_core::check_below_tree;
/// assert!(check_below_tree(10, 0, &17u32.into(), 6).is_ok());
/// assert!(check_below_tree(10, 0, &143u32.into(), 6).is_err()); // |T(10)| = 143
/// ```
pub fn check_below_tree(n: u64, g: u64, value: &BigUint, primes: usize) -> Result<()> {
    garner::check_below_tree(n, g, value, primes)
}
