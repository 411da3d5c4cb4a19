//! The primes residues are taken modulo: the largest primes below 2^62, in descending order, found
//! by a deterministic Miller-Rabin test.

use crate::error::Result;
use crate::game;
use crate::hooks::Hooks;

/// The primes lie between 2^(PRIME_BITS - 1) and 2^PRIME_BITS: below 2^62, so that two residues
/// add in a `u64` without overflow and the modular engines take them as moduli.
pub const PRIME_BITS: u32 = 62;

/// The bits of room [`primes_needed`] leaves above the largest possible count: the product of the
/// primes exceeds |T(n)| x 2^128, so that a reconstruction from a set of residues with one wrong
/// residue lands below |T(n)| with probability at most about 2^-128.
pub const REDUNDANCY_BITS: u64 = 128;

/// Whether `n` is prime, by the Miller-Rabin test with the seven bases of Jaeschke and Sinclair
/// (2, 325, 9375, 28178, 450775, 9780504, 1795265022), which decide every `n` below 2^64 exactly.
///
/// Cost: O(log n) multiplications modulo n per base, about 450 in all; no memory.
pub fn is_prime(n: u64) -> bool {
    if n < 2 {
        return false;
    }
    for p in [2u64, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37] {
        if n.is_multiple_of(p) {
            return n == p;
        }
    }
    let s = (n - 1).trailing_zeros();
    let d = (n - 1) >> s;
    let mul = |a: u64, b: u64| ((a as u128 * b as u128) % n as u128) as u64;
    let pow = |mut base: u64, mut e: u64| {
        let mut acc = 1u64;
        while e > 0 {
            if e & 1 == 1 {
                acc = mul(acc, base);
            }
            base = mul(base, base);
            e >>= 1;
        }
        acc
    };
    [2u64, 325, 9375, 28178, 450775, 9780504, 1795265022].iter().all(|&a| {
        let a = a % n;
        if a == 0 {
            return true; // a multiple of n says nothing
        }
        let mut x = pow(a, d);
        if x == 1 || x == n - 1 {
            return true;
        }
        (1..s).any(|_| {
            x = mul(x, x);
            x == n - 1
        })
    })
}

/// The `count` largest primes below 2^[`PRIME_BITS`], the largest first: the fixed sequence every
/// shard and every reconstruction uses (prime i is the same in every version and on every machine).
///
/// Cost: about 22 primality tests per prime (the gaps between primes near 2^62 average 43), so
/// O(count) tests of about 450 multiplications; memory 8 bytes a prime.
pub fn primes(count: usize) -> Vec<u64> {
    primes_with(count, Hooks::default()).expect("never cancelled")
}

/// [`primes`], stopped by `hooks` (asked once a prime).
///
/// # Errors
/// [`crate::Error::Interrupted`] once `hooks` cancel the run.
pub(crate) fn primes_with(count: usize, hooks: Hooks) -> Result<Vec<u64>> {
    let mut found = Vec::with_capacity(count);
    let mut candidate = (1u64 << PRIME_BITS) - 1;
    while found.len() < count {
        if is_prime(candidate) {
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
pub fn primes_needed(n: u64) -> usize {
    let bits = game::count_bits_bound(n) + REDUNDANCY_BITS;
    bits.div_ceil(u64::from(PRIME_BITS) - 1) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_primality_test_agrees_with_another_implementation() {
        // small numbers, numbers near 2^62 and 2^64, and strong pseudoprimes to small bases
        let mut checked: Vec<u64> = (0..20_000).collect();
        checked.extend(((1u64 << 62) - 20_000..(1u64 << 62) + 100).step_by(1));
        checked.extend((u64::MAX - 5_000..=u64::MAX).step_by(1));
        checked.extend([2_047, 1_373_653, 25_326_001, 3_215_031_751, 2_152_302_898_747, 3_825_123_056_546_413_051]);
        let mut rng = fibtree_util::SplitMix64(0x0c27_5eed);
        println!("random odd numbers from SplitMix64 seed 0x0c275eed");
        checked.extend((0..20_000).map(|_| rng.next_u64() | 1));
        for n in checked {
            assert_eq!(is_prime(n), primal_check::miller_rabin(n), "n = {n}");
        }
    }

    #[test]
    fn the_sequence_is_the_largest_primes_below_2_62_in_order() {
        let p = primes(200);
        assert_eq!(p.len(), 200);
        assert!(p.windows(2).all(|w| w[0] > w[1]), "descending, no repeats");
        assert!(p.iter().all(|&q| q < 1 << 62 && q > 1 << 61));
        // nothing skipped: every number between the first and the last is either in the list or composite
        let (hi, lo) = (p[0], p[199]);
        let between = (lo..=(1u64 << 62) - 1).filter(|&q| primal_check::miller_rabin(q)).count();
        assert_eq!(between, 200);
        assert!(hi > (1u64 << 62) - 1000, "the largest prime below 2^62 is close to it: {hi}");
        // a prefix of a longer list is the shorter list
        assert_eq!(primes(10), p[..10]);
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
