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
/// use fibtree_core::{Engine, MAX_N, Request};
/// assert_eq!(MAX_N, (1 << 31) - 1);
/// assert!(Request::exact(&[(MAX_N + 1, 0)], Engine::Blocked).plan().is_err());
/// ```
pub const MAX_N: u64 = (u32::MAX >> 1) as u64;

/// The prime modulus the contest problem asks for, 998244353 (= 119 x 2^23 + 1): the one the
/// estimate's calibration times `u32` lanes with, and the library's default projection.
///
/// ```
/// # use fibtree_core as fibtree;
/// assert!(primal_check::miller_rabin(fibtree::P998244353));
/// ```
pub const P998244353: u64 = 998_244_353;

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

/// The largest edge value `1 + G(k)` over k <= n (0 for n = 0), from the closed form of G
/// ([`grundy`]): O(1) time and memory.
///
/// # Errors
/// [`Error::InvalidArgument`] when `n` exceeds [`MAX_N`].
#[cfg(test)]
pub fn max_edge_value(n: u64) -> Result<u32> {
    max_edge_value_with(n, Hooks::default())
}

/// [`max_edge_value`], checking `hooks`' cancel flags once.
///
/// In blocks k = 6m + 1 ..= 6m + 6 the edge values are 1, 4m + 2, 4m + 4, 2^(v + 3) - 1 (v the
/// number of trailing zero bits of m + 1), 4m + 4, 4m + 4 (docs/math.md, "G(k) in closed form").
/// So the largest is the greatest of: 1 (n >= 1); 4m + 2 or 4m + 4 for the last block that reaches
/// 6m + 2 or 6m + 3 (the block before gives at most 4m); and 2^(t + 3) - 1 for the largest power of two 2^t <= M, M the number of
/// blocks that reach 6m + 4.
///
/// # Errors
/// [`Error::InvalidArgument`] when `n` exceeds [`MAX_N`]; [`Error::Interrupted`] once cancelled.
pub(crate) fn max_edge_value_with(n: u64, hooks: Hooks) -> Result<u32> {
    check_n(n)?;
    hooks.check()?;
    let mut highest = n.min(1);
    if n >= 2 {
        // the last block m with 6m + 2 <= n, and whether it reaches 6m + 3
        let m = (n - 2) / 6;
        highest = highest.max(if 6 * m + 3 <= n { 4 * m + 4 } else { 4 * m + 2 });
    }
    if n >= 4 {
        let blocks = (n - 4) / 6 + 1; // m + 1 = 1 ..= blocks reach 6m + 4
        let t = u64::from(blocks.ilog2());
        highest = highest.max((1 << (t + 3)) - 1);
    }
    Ok(u32::try_from(highest).expect("n <= MAX_N keeps every edge value below 2^32"))
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
/// as -1), for any k, from its closed form (docs/math.md, "G(k) in closed form"): with k = 6m + r,
/// r in 1..=6, G(6m + 1) = 0, G(6m + 2) = 4m + 1, G(6m + 3) = G(6m + 5) = G(6m + 6) = 4m + 3 and
/// G(6m + 4) = (4m + 4) xor (4m + 2) = 2^(v + 3) - 2, v the number of trailing zero bits of m + 1.
/// The tests check it against the recurrence for every k up to 10^6.
///
/// Cost: O(1) time and memory.
///
/// # Examples
///
/// ```
/// # use fibtree_core as fibtree;
/// assert_eq!(fibtree::grundy(10), Some(14));
/// assert_eq!(fibtree::grundy(1), Some(0)); // a single node: no move, value 0
/// assert_eq!(fibtree::grundy(0), None); // the empty tree
/// assert_eq!(fibtree::grundy(u64::MAX), Some(12_297_829_382_473_034_411)); // 6m + 3: 4m + 3
/// ```
pub fn grundy(k: u64) -> Option<u64> {
    if k == 0 {
        return None;
    }
    let (m, r) = ((k - 1) / 6, (k - 1) % 6 + 1);
    Some(match r {
        1 => 0,
        2 => 4 * m + 1,
        4 => (4 * m + 4) ^ (4 * m + 2), // m < 2^62: no overflow
        _ => 4 * m + 3,
    })
}

/// c(n, g) mod 2 from the closed form of G alone, with no count: 1 where g < G(n), else 0 (0 for
/// T(0), which has no move; its value counts as -1). Every rooted tree has as many moves to each
/// value below its own, mod 2, as a nim heap of that size has: one (docs/math.md, "The parity of a
/// count"). So the parity of every count is known without either engine: each report checks its
/// exact value against it.
///
/// Cost: O(1) time and memory ([`grundy`]'s closed form), for any n and g.
///
/// # Examples
///
/// ```
/// use fibtree_core::{Engine, Request, count_parity, grundy};
/// let mut counts = Vec::new();
/// Request::exact(&[(10, 0), (10, 26)], Engine::Blocked).plan()?.run(|_, v, _| Ok(counts.push(v.unwrap())))?;
/// assert_eq!(grundy(10), Some(14));
/// assert_eq!((counts[0].to_string(), count_parity(10, 0)), ("17".to_string(), 1)); // 0 < 14: odd
/// assert_eq!((counts[1].to_string(), count_parity(10, 26)), ("4".to_string(), 0)); // 26 >= 14: even
/// assert_eq!(count_parity(0, 0), 0); // T(0) has no move
/// assert_eq!(count_parity(u64::MAX, 1 << 60), 1); // below G = 4m + 3, about 2^63.4
/// # Ok::<(), fibtree_core::Error>(())
/// ```
pub fn count_parity(n: u64, g: u64) -> u8 {
    grundy(n).map_or(0, |value| u8::from(g < value))
}

/// The number of nodes |T(k)| = F(k + 2) - 1 (F(1) = F(2) = 1), exactly.
///
/// Cost: O(k^2 / 64) time (k additions of numbers up to 0.7 k bits), O(k) bits of memory.
///
/// # Examples
///
/// ```
/// # use fibtree_core as fibtree;
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
            assert_eq!(grundy(k), Some(w), "G({k})");
        }
        assert_eq!(grundy(0), None);
    }

    /// The closed form of G against the recurrence G(k) = (1 + G(k-1)) xor (1 + G(k-2)), as
    /// [`edge_values`] walks it, for every k up to 10^6; and the largest edge value against the
    /// running maximum of the recurrence's, for every n up to 10^6.
    #[test]
    fn the_closed_form_of_g_is_the_recurrence() {
        let e = edge_values(1_000_000).unwrap();
        assert_eq!(e[0], 0);
        let mut highest = 0;
        for (k, &edge) in e.iter().enumerate() {
            let k = k as u64;
            assert_eq!(grundy(k).map_or(0, |g| g + 1), u64::from(edge), "1 + G({k})");
            highest = highest.max(edge);
            assert_eq!(max_edge_value(k).unwrap(), highest, "the largest edge value up to {k}");
        }
    }

    /// The closed form to the end of u64: (4m + 4) xor (4m + 2) = 2^(v + 3) - 2 where the xor can be
    /// taken in u128, and the recurrence's step holds around the largest k.
    #[test]
    fn the_closed_form_holds_to_the_end_of_u64() {
        for m in [0u64, 1, 2, 3, 7, 1 << 40, (1 << 61) - 1, u64::MAX / 6 - 1] {
            let xor = (4 * u128::from(m) + 4) ^ (4 * u128::from(m) + 2);
            assert_eq!(u128::from(grundy(6 * m + 4).unwrap()), xor, "m = {m}");
        }
        assert_eq!(grundy(6 * ((1 << 61) - 1) + 4), Some(u64::MAX - 1), "the largest value G takes");
        for k in [u64::MAX - 20, u64::MAX - 7, u64::MAX - 1] {
            let e = |k: u64| u128::from(grundy(k).unwrap()) + 1;
            assert_eq!(u128::from(grundy(k + 1).unwrap()), e(k) ^ e(k - 1), "G({})", k + 1);
        }
    }

    /// c(k, .) mod 2 for every k up to `top` by the recurrence of docs/math.md ("The count c(k, g)"),
    /// each layer k over every g up to the bound on the values a move of T(k) can leave (above it
    /// every count is 0: docs/math.md, "Where the counts are zero").
    fn parities_by_recurrence(top: usize) -> Vec<Vec<u8>> {
        let e = edge_values(top as u64).unwrap();
        let mut layers: Vec<Vec<u8>> = vec![Vec::new(), Vec::new()];
        let mut highest = 1;
        for k in 2..=top {
            let (l, r) = (e[k - 1] as usize, e[k - 2] as usize);
            highest = highest.max(e[k] as usize);
            let bound = value_bound(k as u64, highest as u64).unwrap() as usize;
            let at = |layer: &Vec<u8>, h: usize| h.checked_sub(1).and_then(|h| layer.get(h)).copied().unwrap_or(0);
            let layer: Vec<u8> = (0..=bound)
                .map(|g| {
                    let direct = u8::from(g == r) ^ u8::from(k >= 3 && g == l);
                    direct ^ at(&layers[k - 1], g ^ r) ^ at(&layers[k - 2], g ^ l)
                })
                .collect();
            layers.push(layer);
        }
        layers
    }

    /// The closed form of the parity against the recurrence taken mod 2, for every k up to 300 and
    /// every g up to the bound on the values a move can leave, and 64 past it.
    #[test]
    fn the_parity_is_the_recurrence_mod_2() {
        let layers = parities_by_recurrence(300);
        let mut odd = 0;
        for (k, layer) in layers.iter().enumerate() {
            for g in 0..layer.len() + 64 {
                let want = layer.get(g).copied().unwrap_or(0);
                assert_eq!(count_parity(k as u64, g as u64), want, "c({k}, {g}) mod 2");
                odd += usize::from(want);
            }
        }
        // every g below G(k) is odd, the others even: the odd ones are exactly sum of G(k)
        assert_eq!(odd as u64, (1..=300).map(|k| grundy(k).unwrap()).sum::<u64>());
    }

    /// The closed form of the parity against both brute-force oracles: every g of every T(k), k <= 22
    /// for the explicit tree and k <= 7 for first principles, and 16 values past each support.
    #[test]
    fn the_parity_is_the_oracles_mod_2() {
        use fibtree_oracles::{MAX_FIRST_PRINCIPLES_K, explicit_tree_counts, first_principles_counts};
        for k in 0..=22u32 {
            let mut oracles = vec![explicit_tree_counts(k).unwrap()];
            if k <= MAX_FIRST_PRINCIPLES_K {
                oracles.push(first_principles_counts(k).unwrap());
            }
            for counts in oracles {
                for g in 0..counts.len() + 16 {
                    let want = counts.get(g).map_or(0, |c| (c % 2) as u8);
                    assert_eq!(count_parity(u64::from(k), g as u64), want, "c({k}, {g}) = {:?}", counts.get(g));
                }
            }
        }
    }

    /// The fact behind the closed form holds for every rooted tree, not only the Fibonacci trees: on
    /// random rooted trees of up to 40 nodes (and a path and a star), the number of moves to each
    /// value g is odd exactly where g is below the tree's own value. Values by the colon principle;
    /// a move deletes a non-root node with its subtree, and the root's value is recomputed on the
    /// path up from it.
    #[test]
    fn every_rooted_tree_has_the_parities_of_a_nim_heap() {
        let seed = 0x009a_417e_5eed_u64;
        println!("seed = {seed:#x}");
        let mut rng = fibtree_util::SplitMix64(seed);
        let mut shapes: Vec<Vec<usize>> = vec![(0..12).map(|i: usize| i.saturating_sub(1)).collect(), vec![0; 12]];
        for _ in 0..2000 {
            let nodes = 1 + rng.below(40) as usize;
            shapes.push((0..nodes).map(|i| if i == 0 { 0 } else { rng.below(i as u64) as usize }).collect());
        }
        for parent in shapes {
            // parent[i] < i: children come after their parent, so a pass from the last node up
            // gives every subtree's value before its parent's
            let mut value = vec![0u64; parent.len()];
            for i in (1..parent.len()).rev() {
                value[parent[i]] ^= value[i] + 1;
            }
            let mut counts = vec![0u64; 64];
            for deleted in 1..parent.len() {
                let (mut node, mut before, mut after) = (parent[deleted], value[deleted] + 1, 0);
                loop {
                    let new = value[node] ^ before ^ after;
                    if node == 0 {
                        counts[new as usize] += 1;
                        break;
                    }
                    (before, after) = (value[node] + 1, new + 1);
                    node = parent[node];
                }
            }
            for (g, &c) in counts.iter().enumerate() {
                assert_eq!(c % 2, u64::from((g as u64) < value[0]), "g = {g} in the tree of parents {parent:?}");
            }
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
        assert!(max_edge_value(MAX_N + 1).is_err());
    }
}
