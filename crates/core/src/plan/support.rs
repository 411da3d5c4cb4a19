//! The support of c(n, .), every g a move of T(n) leaves, by a forward pass; and the counts known to
//! be zero without counting.

use super::layer_set::{LayerSet, Step};
use crate::error::Result;
use crate::hooks::Hooks;

/// Whether c(n, g) = 0 is known without counting: g above the largest value a move of T(n) can leave, or g at or
/// above W (the smallest power of two, at least 64, above every edge value up to n, where a plan
/// would be spent on states of no move) and outside the support of c(n, .). Below W the count
/// itself is the cheaper way to the answer.
///
/// Cost: nothing for g < 64; else O(n) for the bound, and where g lies between W and the bound the
/// support's forward pass (as [`crate::support`] makes it).
///
/// # Errors
/// [`crate::Error::InvalidArgument`] for an n above [`crate::game::MAX_N`];
/// [`crate::Error::Interrupted`] once cancelled.
///
/// # Examples
///
/// ```ignore
/// assert!(known_zero(300, 1 << 40, Hooks::default())?); // far above every value of T(300)
/// assert!(!known_zero(300, 0, Hooks::default())?); // below 64: not known without counting
/// ```
#[cfg(test)]
pub(crate) fn known_zero(n: u64, g: u64, hooks: Hooks) -> Result<bool> {
    Ok(known_zeros(&[(n, g)], hooks)?[0])
}

/// Whether each c(n, g) of `targets` is known to be 0 without counting: g above the largest value a
/// move of T(n) can leave, or g at or above W (the smallest power of two, at least 64, above every
/// edge value up to n, where a plan would be spent on states of no move) and outside the support of
/// c(n, .) (docs/math.md, "Where the counts are zero"). Below W the count itself is the cheaper way
/// to the answer. The support of each n is made once however many of its targets need it.
///
/// Cost: nothing for g < 64; else O(n) for the bound, and where g lies between W and the bound the
/// support's forward pass ([`crate::support`]), once for each n; plus O(1) a target.
///
/// # Errors
/// [`crate::Error::InvalidArgument`] for an n above [`crate::MAX_N`]; [`crate::Error::Interrupted`]
/// once cancelled.
///
/// # Examples
///
/// ```
/// use fibtree_core::{Hooks, known_zeros};
/// // far above every value of T(300); below 64, not known without counting
/// assert_eq!(known_zeros(&[(300, 1 << 40), (300, 0)], Hooks::default())?, [true, false]);
/// # Ok::<(), fibtree_core::Error>(())
/// ```
pub fn known_zeros(targets: &[(u64, u64)], hooks: Hooks) -> Result<Vec<bool>> {
    let mut supports: Vec<(u64, LayerSet)> = Vec::new();
    let mut zero = Vec::with_capacity(targets.len());
    for &(n, g) in targets {
        zero.push(match outside_window(n, g, hooks)? {
            Some(known) => known,
            None => {
                let at = match supports.iter().position(|s| s.0 == n) {
                    Some(at) => at,
                    None => {
                        supports.push((n, support_set(n, hooks)?));
                        supports.len() - 1
                    }
                };
                !supports[at].1.contains(g)
            }
        });
    }
    Ok(zero)
}

/// Whether c(n, g) = 0 is known without the support ([`known_zero`]'s tests before it), or `None`
/// where only the support can tell.
fn outside_window(n: u64, g: u64, hooks: Hooks) -> Result<Option<bool>> {
    crate::game::check_n(n)?;
    if n < 2 {
        return Ok(Some(true));
    }
    if g < 64 {
        return Ok(Some(false));
    }
    let e = crate::game::max_edge_value_with(n, hooks)?;
    let bound = crate::game::value_bound(n, e as u64).unwrap_or(0);
    if g > bound {
        return Ok(Some(true));
    }
    if g < crate::game::window_of_edge(e) {
        return Ok(Some(false));
    }
    Ok(None)
}

/// The support of c(n, .): every g that some move of T(n) leaves, that is every g with c(n, g) > 0.
///
/// Forward pass: the moves of T(k) leave R, L (for k >= 3), (t + 1) xor R for t in the support of
/// layer k-1 and (t + 1) xor L for t in that of layer k-2.
///
/// Cost: O(sum over layers of the support's window / 64) time, two windows of memory (the support of
/// layer n has about 6.5 n members below about 11 n); `hooks` are checked every layer.
///
/// # Errors
/// [`crate::Error::InvalidArgument`] for an n above [`crate::game::MAX_N`];
/// [`crate::Error::Interrupted`] once cancelled.
pub(crate) fn support_set(n: u64, hooks: Hooks) -> Result<LayerSet> {
    let edge = crate::game::edge_values(n)?;
    let (mut older, mut old) = (LayerSet::default(), LayerSet::default());
    for k in 2..=n as usize {
        hooks.check()?;
        let (l, r) = (edge[k - 1] as u64, edge[k - 2] as u64);
        let direct: &[u64] = if k >= 3 { &[r, l] } else { &[r] };
        let set = LayerSet::image(&[(&old, r), (&older, l)], Step::Forward, direct);
        older = std::mem::replace(&mut old, set);
    }
    Ok(if n >= 2 { old } else { LayerSet::default() })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Many targets at a few n, each g below, inside and above the support's window: each answer
    /// as the support itself gives it.
    #[test]
    fn known_zeros_as_the_support_says() {
        let mut targets = Vec::new();
        for n in [0, 1, 2, 10, 300, 1000] {
            targets.extend((0..12_000).step_by(7).map(|g| (n, g)));
            targets.push((n, u64::MAX));
        }
        let zeros = known_zeros(&targets, Hooks::default()).unwrap();
        let supports: Vec<(u64, Vec<u64>)> =
            [0, 1, 2, 10, 300, 1000].map(|n| (n, support_set(n, Hooks::default()).unwrap().iter().collect())).into();
        let mut some_by_support = false;
        for (&(n, g), zero) in targets.iter().zip(zeros) {
            let outside = !supports.iter().find(|s| s.0 == n).unwrap().1.contains(&g);
            let by_window = outside_window(n, g, Hooks::default()).unwrap();
            some_by_support |= by_window.is_none() && zero;
            assert_eq!(zero, by_window.unwrap_or(outside), "({n}, {g})");
            assert!(!zero || outside, "({n}, {g}) is in the support");
        }
        assert!(some_by_support, "some answers come from the support");
    }

    #[test]
    fn support_matches_math_md_at_2000() {
        let s = support_set(2000, Hooks::default()).unwrap();
        assert_eq!(s.len(), 13_084);
        assert_eq!(s.iter().last(), Some(22_526));
        assert!(support_set(1, Hooks::default()).unwrap().is_empty());
        assert_eq!(support_set(2, Hooks::default()).unwrap().iter().collect::<Vec<_>>(), vec![0]);
    }

    /// docs/math.md, "Where the counts are zero": every value a move leaves is at most the bound.
    #[test]
    fn value_bound_holds_and_known_zero_matches_the_support() {
        for n in 2..=400u64 {
            let s = support_set(n, Hooks::default()).unwrap();
            let e = crate::game::max_edge_value(n).unwrap() as u64;
            let bound = crate::game::value_bound(n, e).unwrap();
            assert!(s.iter().all(|g| g <= bound), "n = {n}");
        }
        assert_eq!(crate::game::value_bound(1, 1), None);
        for n in [0u64, 1, 2, 10, 57, 300] {
            let s = support_set(n, Hooks::default()).unwrap();
            for g in (0..3000).chain([1 << 40, u64::MAX]) {
                if known_zero(n, g, Hooks::default()).unwrap() {
                    assert!(!s.contains(g), "({n}, {g})");
                } else if g >= 1024 {
                    assert!(s.contains(g), "({n}, {g}): a g far above the edge values is counted only in the support");
                }
            }
        }
        assert!(known_zero(20_000, 1 << 60, Hooks::default()).unwrap());
        assert!(known_zero(10_000, u64::MAX, Hooks::default()).unwrap());
    }
}
