//! The game itself: Grundy values G(k) of the Fibonacci trees and their sizes |T(k)|.
//!
//! T(0) is empty, T(1) is one node, and T(k) for k >= 2 is a root whose children are T(k-1) (left) and
//! T(k-2) (right). By the colon principle G(k) = (1 + G(k-1)) xor (1 + G(k-2)) with G(0) = -1, G(1) = 0.

use num_bigint::BigUint;

use crate::error::{Error, Param, Result};
use crate::hooks::Hooks;

/// The largest `n` the engines accept: layer indices and Grundy values are kept in `u32`.
///
/// # Examples
///
/// ```
/// assert_eq!(fibtree::MAX_N, (1 << 31) - 1);
/// assert!(fibtree::count(fibtree::MAX_N + 1, 0).is_err());
/// ```
pub const MAX_N: u64 = (u32::MAX >> 1) as u64;

/// The values `1 + G(k)` for `k = 0..=n`: the contribution of T(k) hung under a root edge
/// (0 for the empty tree). These are the numbers the recurrence works with.
///
/// Cost: O(n) time, 4(n + 1) bytes.
///
/// # Errors
/// [`Error::InvalidArgument`] when `n` exceeds [`MAX_N`].
pub fn edge_values(n: u64) -> Result<Vec<u32>> {
    check_n(n)?;
    let n = n as usize;
    let mut e = vec![0u32; n + 1];
    if n >= 1 {
        e[1] = 1;
    }
    for k in 2..=n {
        e[k] = (e[k - 1] ^ e[k - 2]) + 1;
    }
    Ok(e)
}

/// The largest edge value `1 + G(k)` over k <= n (0 for n = 0), without storing them: O(n) time,
/// O(1) memory.
///
/// # Errors
/// [`Error::InvalidArgument`] when `n` exceeds [`MAX_N`].
#[cfg(test)]
pub fn max_edge_value(n: u64) -> Result<u32> {
    max_edge_value_with(n, Hooks::default())
}

/// [`max_edge_value`], checking `hooks`' cancel flags every 2^22 steps (an xor, an addition and a
/// maximum each), so that even n = [`MAX_N`] (2^31 - 2 steps, 512 checks) stops soon when asked.
///
/// # Errors
/// [`Error::InvalidArgument`] when `n` exceeds [`MAX_N`]; [`Error::Interrupted`] once cancelled.
pub(crate) fn max_edge_value_with(n: u64, hooks: Hooks) -> Result<u32> {
    check_n(n)?;
    let (mut older, mut old, mut highest) = (0u32, 1u32, (n >= 1) as u32);
    let mut k = 2;
    while k <= n {
        hooks.check()?;
        let end = n.min(k + (1 << 22) - 1);
        for _ in k..=end {
            (older, old) = (old, (old ^ older) + 1);
            highest = highest.max(old);
        }
        k = end + 1;
    }
    Ok(highest)
}

/// W, the window of a layer: the smallest power of two, at least 64, above every edge value
/// `1 + G(k)` for k <= n (8192 at n = 10000). Every state (k, h) that a target (n, g) needs differs
/// from g only in bits below W (docs/math.md, "What makes large n feasible"), and every state of a
/// target below W is below W. Cost O(n) time (the edge values, not stored), O(1) memory.
///
/// # Errors
/// [`Error::InvalidArgument`] when `n` exceeds [`MAX_N`]; [`Error::Interrupted`] once cancelled.
pub(crate) fn window(n: u64, hooks: Hooks) -> Result<u64> {
    Ok(window_of_edge(max_edge_value_with(n, hooks)?))
}

/// W ([`window`]) where the largest edge value is `max_edge`. Cost O(1).
pub(crate) fn window_of_edge(max_edge: u32) -> u64 {
    window_above(max_edge as u64).expect("a power of two above a u32 fits in u64")
}

/// The window above `highest`: the smallest power of two, at least 64, above it, or `None` past
/// 2^63. Cost O(1).
pub(crate) fn window_above(highest: u64) -> Option<u64> {
    Some(highest.checked_add(1)?.checked_next_power_of_two()?.max(64))
}

/// An upper bound on every Grundy value a move of T(n) can leave: every g with c(n, g) > 0 is at
/// most `(n - 1) (1 + e)`, e the largest edge value `1 + G(k)` over k <= n
/// ([`max_edge_value_with`]; docs/math.md, "Where the counts are zero"). `None` for n < 2, where
/// T(n) has no move at all. Cost O(1).
pub(crate) fn value_bound(n: u64, e: u64) -> Option<u64> {
    // n < 2^31 and e < 2^32: the product stays below 2^63
    (n >= 2).then(|| (n - 1) * (1 + e))
}

/// Checks that the engines accept `n`: at most [`MAX_N`].
///
/// # Errors
/// [`Error::InvalidArgument`] naming [`Param::N`].
pub fn check_n(n: u64) -> Result<()> {
    if n > MAX_N { Err(Error::invalid(Param::N, format!("at most {MAX_N}, got {n}"))) } else { Ok(()) }
}

/// The Grundy value G(k) of T(k), or `None` for the empty tree T(0) (whose value the recurrence treats
/// as -1).
///
/// Cost: O(k) time, O(1) memory.
///
/// # Errors
/// [`Error::InvalidArgument`] when `k` exceeds [`MAX_N`].
///
/// # Examples
///
/// ```
/// assert_eq!(fibtree::grundy(10)?, Some(14));
/// assert_eq!(fibtree::grundy(1)?, Some(0)); // a single node: no move, value 0
/// assert_eq!(fibtree::grundy(0)?, None); // the empty tree
/// # Ok::<(), fibtree::Error>(())
/// ```
pub fn grundy(k: u64) -> Result<Option<u64>> {
    if k > MAX_N {
        return Err(Error::invalid(Param::K, format!("at most {MAX_N}, got {k}")));
    }
    let (mut prev, mut cur) = (0u64, 1u64); // 1 + G(0), 1 + G(1)
    if k == 0 {
        return Ok(None);
    }
    for _ in 2..=k {
        (prev, cur) = (cur, (prev ^ cur) + 1);
    }
    Ok(Some(cur - 1))
}

/// The number of nodes |T(k)| = F(k + 2) - 1 (F(1) = F(2) = 1), exactly.
///
/// Cost: O(k^2 / 64) time (k additions of numbers up to 0.7 k bits), O(k) bits of memory.
///
/// # Examples
///
/// ```
/// assert_eq!(fibtree::tree_size(10).to_string(), "143"); // F(12) - 1
/// assert_eq!(fibtree::tree_size(0).to_string(), "0");
/// ```
pub fn tree_size(k: u64) -> BigUint {
    let (mut a, mut b) = (BigUint::from(0u32), BigUint::from(1u32)); // F(0), F(1)
    for _ in 0..k + 1 {
        let next = &a + &b;
        a = std::mem::replace(&mut b, next);
    }
    // b = F(k + 2)
    b - 1u32
}

/// An upper bound on the number of bits of any count c(k, g): the bit length of |T(k)| - 1
/// (every non-root node is one move), computed in floating point with a safety margin of one bit.
///
/// Cost: O(1).
pub fn count_bits_bound(k: u64) -> u64 {
    // F(k + 2) < phi^(k + 2) / sqrt(5) + 1, so log2 |T(k)| < (k + 2) log2(phi) - log2(sqrt(5)) + 1.
    let phi_bits = 0.694_241_913_630_617_3_f64;
    ((k as f64 + 2.0) * phi_bits).ceil() as u64 + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_edge_value_is_the_largest_edge() {
        for n in [0u64, 1, 2, 3, 10, 1000, 10_000] {
            let edges = edge_values(n).unwrap();
            assert_eq!(max_edge_value(n).unwrap(), edges.into_iter().max().unwrap(), "n = {n}");
        }
        assert_eq!(max_edge_value(10_000).unwrap(), 8191); // max G(k) = 8190 (docs/math.md)
    }

    #[test]
    fn first_grundy_values_match_math_md() {
        let want = [0u64, 1, 3, 6, 3, 3, 0, 5, 7, 14, 7, 7];
        for (k, &w) in (1..=12u64).zip(want.iter()) {
            assert_eq!(grundy(k).unwrap(), Some(w), "G({k})");
        }
        assert_eq!(grundy(0).unwrap(), None);
    }

    #[test]
    fn edge_values_agree_with_grundy() {
        let e = edge_values(300).unwrap();
        assert_eq!(e[0], 0);
        for k in 1..=300u64 {
            assert_eq!(e[k as usize] as u64, grundy(k).unwrap().unwrap() + 1, "k = {k}");
        }
    }

    #[test]
    fn max_grundy_up_to_10000_is_8190() {
        let e = edge_values(10_000).unwrap();
        assert_eq!(e.iter().skip(1).map(|&x| x - 1).max(), Some(8190));
    }

    #[test]
    fn tree_sizes() {
        let want = [0u32, 1, 2, 4, 7, 12, 20];
        for (k, &w) in want.iter().enumerate() {
            assert_eq!(tree_size(k as u64), BigUint::from(w), "|T({k})|");
        }
        for k in 2..200u64 {
            assert_eq!(tree_size(k), tree_size(k - 1) + tree_size(k - 2) + 1u32);
        }
    }

    #[test]
    fn bits_bound_holds() {
        for k in [0u64, 1, 2, 3, 10, 100, 1000, 5000] {
            assert!(tree_size(k).bits() <= count_bits_bound(k), "k = {k}");
            assert!(count_bits_bound(k) <= tree_size(k).bits() + 3, "k = {k}");
        }
    }

    #[test]
    fn too_large_n_is_refused() {
        assert!(edge_values(MAX_N + 1).is_err());
        assert!(grundy(u64::MAX).is_err());
    }
}
