//! The reference exact engine's kernel: an add-with-carry chain over 64-bit limbs.

/// `out = a + b + carry` over equal-length slices with a one-bit carry; returns the carry out.
/// On x86-64 an add-with-carry chain (`adc`), unrolled by four.
///
/// Cost: one addition per limb of the shortest slice.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn add_run(out: &mut [u64], a: &[u64], b: &[u64], mut carry: u8) -> u8 {
    use core::arch::x86_64::_addcarry_u64;
    let n = out.len().min(a.len()).min(b.len());
    let (out, a, b) = (&mut out[..n], &a[..n], &b[..n]);
    let mut chunks = out.chunks_exact_mut(4).zip(a.chunks_exact(4).zip(b.chunks_exact(4)));
    for (o, (x, y)) in &mut chunks {
        carry = _addcarry_u64(carry, x[0], y[0], &mut o[0]);
        carry = _addcarry_u64(carry, x[1], y[1], &mut o[1]);
        carry = _addcarry_u64(carry, x[2], y[2], &mut o[2]);
        carry = _addcarry_u64(carry, x[3], y[3], &mut o[3]);
    }
    let done = n - n % 4;
    for i in done..n {
        carry = _addcarry_u64(carry, a[i], b[i], &mut out[i]);
    }
    carry
}

/// `out = a + b + carry` over equal-length slices with a one-bit carry; returns the carry out.
///
/// Cost: one addition per limb of the shortest slice.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
pub(crate) fn add_run(out: &mut [u64], a: &[u64], b: &[u64], carry: u8) -> u8 {
    let mut carry = carry as u64;
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        let s = x as u128 + y as u128 + carry as u128;
        *o = s as u64;
        carry = (s >> 64) as u64;
    }
    carry as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carries_ripple_through() {
        let mut out = [0u64; 5];
        let carry = add_run(&mut out, &[u64::MAX; 5], &[1, 0, 0, 0, 0], 0);
        assert_eq!((out, carry), ([0; 5], 1));
        let carry = add_run(&mut out, &[1, 2, 3, 4, 5], &[10, 20, 30, 40, 50], 1);
        assert_eq!((out, carry), ([12, 22, 33, 44, 55], 0));
    }
}
