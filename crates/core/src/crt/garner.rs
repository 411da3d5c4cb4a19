//! Garner's algorithm: the value below the product of the moduli with the given residues.

use num_bigint::BigUint;
use num_integer::Integer;

use crate::error::{Error, Param, Result};
use crate::hooks::Hooks;

/// The unique x below p_0 p_1 ... p_(k-1) with x = `residues[i]` (mod `primes[i]`) for every i, by
/// Garner's algorithm: x = v_0 + v_1 p_0 + v_2 p_0 p_1 + ..., each mixed-radix digit v_i found
/// modulo p_i from the digits before it (one modular inverse a prime, by
/// [`Integer::extended_gcd`]), then the digits summed from the last by Horner's rule. The moduli need
/// only be pairwise coprime (distinct primes are).
///
/// Cost: O(k^2) multiplications of words (k^2 / 2 modular ones for the digits, k^2 / 2 for the
/// big-integer Horner steps); memory O(k) words.
///
/// # Errors
/// [`Error::InvalidArgument`] naming [`Param::Modulus`] when the lengths differ, a modulus is below 2
/// or not below 2^63, a residue is not below its modulus, or two moduli share a factor.
pub(crate) fn garner(primes: &[u64], residues: &[u64]) -> Result<BigUint> {
    garner_with(primes, residues, Hooks::default())
}

/// [`garner`], stopped by `hooks` (asked once a digit, and once a step of Horner's rule: O(k) word
/// operations apart).
///
/// # Errors
/// As [`garner`]; [`Error::Interrupted`] once `hooks` cancel the run.
pub(crate) fn garner_with(primes: &[u64], residues: &[u64], hooks: Hooks) -> Result<BigUint> {
    if primes.len() != residues.len() {
        let what = format!("one residue per modulus, got {} moduli and {} residues", primes.len(), residues.len());
        return Err(Error::invalid(Param::Modulus, what));
    }
    for (&p, &r) in primes.iter().zip(residues) {
        if !(2..1 << 63).contains(&p) || r >= p {
            return Err(Error::invalid(
                Param::Modulus,
                format!("a modulus 2 <= m < 2^63 above its residue, got {r} mod {p}"),
            ));
        }
    }
    let mut digits: Vec<u64> = Vec::with_capacity(primes.len());
    for (i, (&p, &r)) in primes.iter().zip(residues).enumerate() {
        hooks.check()?;
        let mul = |a: u64, b: u64| ((a as u128 * b as u128) % p as u128) as u64;
        // the value of the digits so far, and the product of the moduli before p, both modulo p
        let (mut value, mut product) = (0u64, 1u64);
        for (&v, &q) in digits.iter().zip(&primes[..i]) {
            value = (value + mul(v % p, product)) % p;
            product = mul(product, q % p);
        }
        let gcd = (product as i128).extended_gcd(&(p as i128));
        if gcd.gcd != 1 {
            let what = format!("pairwise coprime moduli, but {p} shares a factor with a modulus before it");
            return Err(Error::invalid(Param::Modulus, what));
        }
        let inverse = gcd.x.rem_euclid(p as i128) as u64;
        let difference = (r + p - value) % p;
        digits.push(mul(difference, inverse));
    }
    let mut x = BigUint::ZERO;
    for (&v, &p) in digits.iter().zip(primes).rev() {
        hooks.check()?;
        x = x * p + v;
    }
    Ok(x)
}

/// Checks that `value`, reconstructed from residues modulo `primes` primes, can be c(n, g): every
/// count is at most the number of non-root nodes, |T(n)| - 1 (0 for the empty T(0)).
///
/// Cost: O(1) where `value` is at least 5 bits shorter than the bound on the bits of |T(n)|
/// (a bound at most 3 above them, from the golden ratio), as every count that is not nearly
/// |T(n)| is; else O(n^2 / 64) for |T(n)|.
///
/// # Errors
/// [`Error::CrossCheck`] when it is not: a wrong residue.
pub(crate) fn check_below_tree(n: u64, g: u64, value: &BigUint, primes: usize) -> Result<()> {
    // value < 2^(bound - 5) <= 2^(bits(|T(n)|) - 2) < |T(n)|
    if value.bits() + 5 <= crate::game::count_bits_bound(n) {
        return Ok(());
    }
    let size = crate::game::tree_size(n).max(BigUint::from(1u32));
    if *value >= size {
        return Err(Error::CrossCheck {
            what: format!("c({n}, {g}) from its residues modulo {primes} primes"),
            exact: format!("a value of {} bits", value.bits()),
            independent: format!("a count below |T({n})|, of at most {} bits", size.bits()),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crt::primes::{first as primes, primes_needed};

    #[test]
    fn small_systems_have_their_textbook_answers() {
        // x = 2 mod 3, 3 mod 5, 2 mod 7: 23
        assert_eq!(garner(&[3, 5, 7], &[2, 3, 2]).unwrap(), BigUint::from(23u32));
        assert_eq!(garner(&[], &[]).unwrap(), BigUint::ZERO);
        assert_eq!(garner(&[97], &[5]).unwrap(), BigUint::from(5u32));
    }

    #[test]
    fn random_values_come_back_from_their_residues() {
        let mut rng = fibtree_util::SplitMix64(0x6a2e_5eed);
        println!("SplitMix64 seed 0x6a2e5eed");
        let p = primes(40);
        for k in [1usize, 2, 5, 40] {
            for _ in 0..20 {
                let product: BigUint = p[..k].iter().map(|&q| BigUint::from(q)).product();
                let x = rng.below_big(&product);
                let residues: Vec<u64> = p[..k].iter().map(|&q| (&x % q).try_into().unwrap()).collect();
                assert_eq!(garner(&p[..k], &residues).unwrap(), x, "k = {k}");
            }
        }
    }

    #[test]
    fn counts_come_back_from_the_modular_engine() {
        for (n, g) in [(10u64, 0u64), (300, 0), (1000, 3), (2000, 0)] {
            let k = primes_needed(n);
            let p = primes(k);
            let residues: Vec<u64> = p.iter().map(|&q| crate::request::count_mod_one(n, g, q).unwrap()).collect();
            assert_eq!(garner(&p, &residues).unwrap(), crate::request::count_one(n, g).unwrap(), "c({n}, {g})");
        }
    }

    #[test]
    fn bad_systems_are_refused() {
        let refused =
            |p: &[u64], r: &[u64]| matches!(garner(p, r), Err(Error::InvalidArgument { param: Param::Modulus, .. }));
        assert!(refused(&[3, 5], &[1]));
        assert!(refused(&[3, 5], &[1, 5]));
        assert!(refused(&[1, 5], &[0, 1]));
        assert!(refused(&[6, 9], &[1, 1]));
        assert!(refused(&[7, 7], &[1, 1]));
        assert!(refused(&[1 << 63], &[1]));
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
}
