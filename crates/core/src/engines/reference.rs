//! The reference exact engine: the recurrence ([`super::recurrence`]) over big integers stored as
//! little-endian `u64` limbs, each layer one flat arena (fixed limbs per value, enough for
//! |T(k)| - 1), added with one carry chain per value. Straightforward, and the engine the blocked one
//! is tested against.

use num_bigint::BigUint;

use super::recurrence::Numbers;
use crate::cost::limbs;
use crate::kernels::add_run;

/// Exact values: word 0 holds the number of significant limbs `len`, words `1..=len` the limbs,
/// little-endian; words past `len` are stale and never read. `1 + limbs(k)` words per value of layer k.
pub(crate) struct Limbs;

/// `out[..] = a + b + increment` over the limbs, where `a.len() >= b.len()`, `out` is long enough
/// for the sum, and `increment <= 2`; returns the number of significant limbs written.
#[inline]
fn add_into(out: &mut [u64], a: &[u64], b: &[u64], increment: u64) -> usize {
    let n = b.len();
    assert!(a.len() >= n && out.len() >= a.len());
    let mut carry = add_run(&mut out[..n], &a[..n], b, 0) as u64;
    for (o, &x) in out[n..a.len()].iter_mut().zip(&a[n..]) {
        (*o, carry) = (x.wrapping_add(carry), u64::from(x == u64::MAX && carry == 1));
    }
    let mut len = a.len();
    if carry != 0 {
        out[len] = carry;
        len += 1;
    }
    add_small(out, len, increment)
}

/// Adds `increment` to the `len` significant limbs of `out` (which has room for one more) and
/// returns the new number of significant limbs.
#[inline]
fn add_small(out: &mut [u64], len: usize, mut increment: u64) -> usize {
    for (i, o) in out.iter_mut().enumerate() {
        if increment == 0 {
            return len;
        }
        if i == len {
            *o = increment;
            return len + 1;
        }
        let (s, overflow) = o.overflowing_add(increment);
        *o = s;
        increment = u64::from(overflow);
    }
    assert_eq!(increment, 0, "a count outgrew its limbs");
    len
}

impl Numbers for Limbs {
    const NAME: &'static str = "exact";

    fn width(&self, k: usize) -> usize {
        1 + limbs(k)
    }

    #[inline]
    fn combine(&self, _k: usize, out: &mut [u64], left: Option<&[u64]>, right: Option<&[u64]>, direct: u64) {
        let (l, r) = (significant(left), significant(right));
        let (a, b) = if l.len() >= r.len() { (l, r) } else { (r, l) };
        let (len, limbs) = out.split_first_mut().expect("a value has a length word");
        *len = add_into(limbs, a, b, direct) as u64;
    }
}

/// The significant limbs of a value of [`Limbs`], empty where there is no value.
#[inline]
fn significant(value: Option<&[u64]>) -> &[u64] {
    value.map_or(&[], |v| &v[1..=v[0] as usize])
}

/// A value of [`Limbs`] (length word, then limbs) as a [`BigUint`]. Cost O(limbs).
pub(crate) fn to_biguint(value: &[u64]) -> BigUint {
    let limbs = value.split_first().map_or(&[][..], |(&len, rest)| &rest[..len as usize]);
    let digits: Vec<u32> = limbs.iter().flat_map(|&l| [l as u32, (l >> 32) as u32]).collect();
    BigUint::new(digits)
}

/// A [`BigUint`] as a value of [`Limbs`] (length word, then limbs): the inverse of [`to_biguint`].
/// Cost O(limbs).
pub(crate) fn to_words(value: &BigUint) -> Vec<u64> {
    let limbs: Vec<u64> = value.iter_u64_digits().collect();
    std::iter::once(limbs.len() as u64).chain(limbs).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_into_carries_across_limbs() {
        let mut out = [7u64; 4];
        assert_eq!(add_into(&mut out, &[u64::MAX, u64::MAX], &[1], 1), 3);
        assert_eq!(out[..3], [1, 0, 1]);
        let mut out = [7u64; 2];
        assert_eq!(add_into(&mut out, &[], &[], 2), 1);
        assert_eq!(out[0], 2);
        assert_eq!(add_into(&mut out, &[], &[], 0), 0);
        let mut out = [7u64; 3];
        assert_eq!(add_into(&mut out, &[u64::MAX, 3], &[u64::MAX], 2), 2);
        assert_eq!(out[..2], [0, 5]);
        // the one case where the low limb carries 2: MAX + MAX + 2 = 2^65
        let mut out = [7u64; 3];
        assert_eq!(add_into(&mut out, &[u64::MAX, u64::MAX], &[u64::MAX, u64::MAX], 2), 3);
        assert_eq!(out, [0, 0, 2]);
        let mut out = [7u64; 2];
        assert_eq!(add_into(&mut out, &[u64::MAX], &[u64::MAX], 2), 2);
        assert_eq!(out, [0, 2]);
    }

    #[test]
    fn combine_reads_lengths() {
        let mut out = [9u64; 4];
        Limbs.combine(5, &mut out, Some(&[2, u64::MAX, 1, 77]), Some(&[1, 1, 88]), 0);
        assert_eq!(to_biguint(&out), (BigUint::from(2u32) << 64u32) + 0u32);
        Limbs.combine(5, &mut out, None, None, 2);
        assert_eq!(to_biguint(&out), BigUint::from(2u32));
        Limbs.combine(5, &mut out, None, None, 0);
        assert_eq!(to_biguint(&out), BigUint::from(0u32));
    }

    #[test]
    fn to_biguint_uses_the_length_word() {
        let v = to_biguint(&[2, u64::MAX, 5, 99]);
        assert_eq!(v, (BigUint::from(5u32) << 64u32) + BigUint::from(u64::MAX));
        assert_eq!(to_biguint(&[0, 3]), BigUint::from(0u32));
        assert_eq!(to_biguint(&[]), BigUint::from(0u32));
    }

    #[test]
    fn to_words_is_the_inverse_of_to_biguint() {
        assert_eq!(to_words(&BigUint::from(0u32)), [0]);
        let v = (BigUint::from(5u32) << 64u32) + BigUint::from(u64::MAX);
        assert_eq!(to_words(&v), [2, u64::MAX, 5]);
        assert_eq!(to_biguint(&to_words(&v)), v);
    }
}
