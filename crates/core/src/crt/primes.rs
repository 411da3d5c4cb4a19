//! The primes residues are taken modulo: the largest primes below 2^62, in descending order, found
//! by `primal-check`'s Miller-Rabin test, which decides every `u64` exactly.

use crate::error::Result;
use crate::game;
use crate::hooks::Hooks;

/// The primes lie between 2^(PRIME_BITS - 1) and 2^PRIME_BITS: below 2^62, so that two residues
/// add in a `u64` without overflow and the modular engines take them as moduli.
pub(crate) const PRIME_BITS: u32 = 62;

/// The bits of room [`primes_needed`] leaves above the largest possible count: the product of the
/// primes exceeds |T(n)| x 2^128, so that a reconstruction from a set of residues with one wrong
/// residue lands below |T(n)| with probability at most about 2^-128.
pub(crate) const REDUNDANCY_BITS: u64 = 128;

/// The `count` largest primes below 2^[`PRIME_BITS`] ([`primes_with`], never cancelled).
pub(crate) fn first(count: usize) -> Vec<u64> {
    primes_with(count, Hooks::default()).expect("never cancelled")
}

/// The `count` largest primes below 2^[`PRIME_BITS`], the largest first: the fixed sequence every
/// shard and every reconstruction uses (prime i is the same in every version and on every machine),
/// stopped by `hooks` (asked once a prime).
///
/// Cost: about 22 primality tests per prime (the gaps between primes near 2^62 average 43), so
/// O(count) tests of a few hundred multiplications; memory 8 bytes a prime.
///
/// # Errors
/// [`crate::Error::Interrupted`] once `hooks` cancel the run.
pub(crate) fn primes_with(count: usize, hooks: Hooks) -> Result<Vec<u64>> {
    let mut found = Vec::with_capacity(count);
    let mut candidate = (1u64 << PRIME_BITS) - 1;
    while found.len() < count {
        if primal_check::miller_rabin(candidate) {
            hooks.check()?;
            found.push(candidate);
        }
        candidate -= 2;
    }
    Ok(found)
}

/// How many primes of [`primes`] determine any count c(n, g) with [`REDUNDANCY_BITS`] of room: every
/// prime is above 2^61, so k primes have a product above 2^(61 k), and k is the smallest with
/// 61 k >= (the bits of |T(n)| - 1, which bounds every count) + 128. (Up to one prime in 61 more than
/// the least number that would do, in exchange for a bound anyone can check.)
///
/// Cost: O(1) (the bound on the bits is computed in floating point with a bit of margin).
pub(crate) fn primes_needed(n: u64) -> usize {
    let bits = game::count_bits_bound(n) + REDUNDANCY_BITS;
    bits.div_ceil(u64::from(PRIME_BITS) - 1) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sequence against the primes just below 2^62 that the Prime Pages list ("Primes just less
    /// than a power of two", t5k.org/lists/2small/0bit.html): 2^62 - k for these k.
    #[test]
    fn the_sequence_is_the_largest_primes_below_2_62_in_order() {
        let below = [57u64, 87, 117, 143, 153, 167, 171, 195, 203, 273];
        assert_eq!(first(10), below.map(|k| (1 << 62) - k));
        let p = first(200);
        assert_eq!(p.len(), 200);
        assert!(p.windows(2).all(|w| w[0] > w[1]), "descending, no repeats");
        assert!(p.iter().all(|&q| q < 1 << 62 && q > 1 << 61));
        // a prefix of a longer list is the shorter list
        assert_eq!(first(10), p[..10]);
    }

    #[test]
    fn enough_primes_cover_every_count_with_room() {
        for n in [0u64, 1, 2, 10, 300, 10_000, 100_000, 1_000_000] {
            let k = primes_needed(n);
            let bits = game::count_bits_bound(n);
            assert!(61 * k as u64 >= bits + REDUNDANCY_BITS, "n = {n}");
            assert!(61 * (k as u64 - 1) < bits + REDUNDANCY_BITS, "n = {n}: the least such k");
        }
        // f(100000) has 69,400 bits: about 1,140 primes
        assert!((1_130..1_150).contains(&primes_needed(100_000)), "{}", primes_needed(100_000));
    }
}
