//! Naming moves: the i-th move to g of T(n) in preorder, its inverse, and the list of all of them.
//!
//! A node is named by its path from the root: `L` steps to the left child (T(k-1)), `R` to the right
//! child (T(k-2)). Moves are ordered in preorder, the left subtree before the right. At T(k), with
//! L = 1 + G(k-1) and R = 1 + G(k-2), the moves to t come in four runs, as in the recurrence:
//! the left child itself (when t = R), the c(k-1, (t xor R) - 1) moves inside the left subtree, the
//! right child itself (when t = L, k >= 3), and the c(k-2, (t xor L) - 1) moves inside the right
//! subtree. Walking down with the exact counts finds the i-th move in O(n) steps.
//!
//! The counts of every layer would take gigabytes at n = 10000, so [`Counts`] (the engines') keeps
//! only the two layers before each block of about sqrt(n) layers, and recomputes a block when a walk
//! enters it.
//!
//! ```
//! use fibtree::{Hooks, Limit};
//! use fibtree::moves::{nth, rank, value_after, walk};
//! let (n, g) = (10, 0);
//! let mut counts = walk(n, g, Limit::given(1 << 30), Hooks::default())?;
//! let first = nth(&mut counts, n, g, &0u32.into())?; // the first winning move, in preorder
//! assert_eq!((first.as_str(), value_after(n, &first, Hooks::default())?), ("LLLLLLLL", g));
//! assert_eq!(rank(&mut counts, n, g, &first)?, 0u32.into());
//! # Ok::<(), fibtree::Error>(())
//! ```

use num_bigint::BigUint;

pub use fibtree_core::Counts;
use fibtree_core::{Guard, Hooks, Limit};

use crate::error::{Error, Param, Result};

/// The walk over the counts of (n, g) ([`Counts`]) within `limit`, obeying `hooks`: what [`nth`],
/// [`rank`] and [`list`] walk down.
///
/// Cost: one run of the reference engine up to n; memory the plan, 2 sqrt(n) checkpoint layers and
/// up to three blocks of sqrt(n) layers (about 0.5 GB at n = 10000), checked before the plan.
///
/// # Errors
/// [`Error::InvalidArgument`] for n above [`crate::MAX_N`]; [`Error::OutOfMemory`] naming
/// [`Param::N`] past the limit (with the whole estimate); [`Error::Interrupted`] when cancelled.
///
/// # Examples
///
/// ```
/// use fibtree::{Hooks, Limit, moves};
/// let mut counts = moves::walk(10, 26, Limit::given(1 << 30), Hooks::default())?;
/// assert_eq!(counts.count_at(10, Some(26))?, 4u32.into());
/// assert!(moves::walk(1_000_000, 0, Limit::given(1 << 20), Hooks::default()).is_err());
/// # Ok::<(), fibtree::Error>(())
/// ```
pub fn walk(n: u64, g: u64, limit: Limit, hooks: Hooks) -> Result<Counts> {
    Ok(Counts::new(n, g, Guard::walk(limit), hooks)?)
}

/// Refuses at once a walk over T(n) ([`walk`]) whose smallest possible size exceeds `limit`, before
/// any work. Cost O(1), or O(n) time and no memory for a refusal.
///
/// # Errors
/// As [`walk`]'s first check: [`Error::InvalidArgument`] for n above [`crate::MAX_N`],
/// [`Error::OutOfMemory`] naming [`Param::N`].
///
/// # Examples
///
/// ```
/// use fibtree::{Limit, moves};
/// moves::check_memory(10_000, Limit::given(1 << 30))?;
/// let refused = moves::check_memory(1_000_000, Limit::given(1 << 20));
/// assert!(matches!(refused, Err(fibtree::Error::OutOfMemory { .. })));
/// # Ok::<(), fibtree::Error>(())
/// ```
pub fn check_memory(n: u64, limit: Limit) -> Result<()> {
    Ok(Guard::walk(limit).floor(n, 0)?)
}

/// The `index`-th move (0-based, in preorder) of T(n) that leaves value g, where `counts` was made
/// for (n, g) and `index` < c(n, g).
///
/// Cost: O(n) steps, each a comparison of counts, plus the recomputation of every block the walk
/// enters (about one run of the engine in all).
///
/// # Errors
/// [`Error::Interrupted`] when cancelled.
///
/// # Panics
/// If `index` >= c(n, g).
pub fn nth(counts: &mut Counts, n: u64, g: u64, index: &BigUint) -> Result<String> {
    let (mut k, mut t, mut i) = (n as usize, g, index.clone());
    let mut path = String::new();
    loop {
        assert!(k >= 2, "the index is below the count");
        let (left_edge, right_edge) = (counts.edge(k - 1), counts.edge(k - 2));
        if t == right_edge {
            if i == BigUint::ZERO {
                path.push('L');
                return Ok(path);
            }
            i -= 1u32;
        }
        let a = (t ^ right_edge).checked_sub(1);
        let inside_left = counts.count_at(k - 1, a)?;
        if i < inside_left {
            path.push('L');
            (k, t) = (k - 1, a.expect("a non-zero count"));
            continue;
        }
        i -= inside_left;
        if k >= 3 && t == left_edge {
            if i == BigUint::ZERO {
                path.push('R');
                return Ok(path);
            }
            i -= 1u32;
        }
        path.push('R');
        (k, t) = (k - 2, (t ^ left_edge).checked_sub(1).expect("the index is below the count"));
    }
}

/// The index of the move at `path` among the moves of T(n) that leave its value g, where `counts`
/// was made for (n, g) and g = [`value_after`]`(n, path)`.
///
/// Cost: as [`nth`].
///
/// # Errors
/// [`Error::Interrupted`] when cancelled.
pub fn rank(counts: &mut Counts, n: u64, g: u64, path: &str) -> Result<BigUint> {
    let (mut k, mut t, mut index) = (n as usize, g, BigUint::ZERO);
    let steps = path.as_bytes();
    for (s, &step) in steps.iter().enumerate() {
        let last = s + 1 == steps.len();
        let (left_edge, right_edge) = (counts.edge(k - 1), counts.edge(k - 2));
        if step == b'L' {
            if last {
                break;
            }
            index += u32::from(t == right_edge);
            (k, t) = (k - 1, (t ^ right_edge) - 1);
        } else {
            index += u32::from(t == right_edge);
            index += counts.count_at(k - 1, (t ^ right_edge).checked_sub(1))?;
            if last {
                break;
            }
            index += u32::from(k >= 3 && t == left_edge);
            (k, t) = (k - 2, (t ^ left_edge) - 1);
        }
    }
    Ok(index)
}

/// The moves to g of T(n) in preorder, the first `limit` of them, found by a depth-first walk that
/// skips every subtree with no such move. Each move is handed to `emit` as it is found, and none is
/// kept: a caller that writes them out lists any number of moves in the memory of one walk. The
/// cancel flags of the hooks `counts` was made with are checked before each move (a stop comes
/// within one move's steps), and an error `emit` returns ends the walk with that error.
///
/// Cost: O(n) steps a move, plus block recomputations; memory O(n) for the walk.
///
/// # Errors
/// [`Error::Interrupted`] when cancelled; whatever `emit` returns.
pub fn list(counts: &mut Counts, n: u64, g: u64, limit: u64, mut emit: impl FnMut(&str) -> Result<()>) -> Result<()> {
    // The walk's stack: (k, t, path length to restore, stage), stage 0..4 as the four runs.
    let mut path = String::new();
    let mut stack: Vec<(usize, u64, usize, u8)> = vec![(n as usize, g, 0, 0)];
    let mut emitted = 0;
    while let Some(top) = stack.last_mut() {
        let (k, t, len, stage) = *top;
        top.3 += 1;
        path.truncate(len);
        if emitted == limit || k < 2 {
            stack.pop();
            continue;
        }
        let (left_edge, right_edge) = (counts.edge(k - 1), counts.edge(k - 2));
        match stage {
            0 if t == right_edge => {
                counts.cancelled()?;
                path.push('L');
                emit(&path)?;
                emitted += 1;
            }
            1 => {
                let a = (t ^ right_edge).checked_sub(1);
                if counts.count_at(k - 1, a)? > BigUint::ZERO {
                    path.push('L');
                    stack.push((k - 1, a.expect("a non-zero count"), len + 1, 0));
                }
            }
            2 if k >= 3 && t == left_edge => {
                counts.cancelled()?;
                path.push('R');
                emit(&path)?;
                emitted += 1;
            }
            3 => {
                let b = (t ^ left_edge).checked_sub(1);
                if counts.count_at(k - 2, b)? > BigUint::ZERO {
                    path.push('R');
                    stack.push((k - 2, b.expect("a non-zero count"), len + 1, 0));
                }
            }
            4.. => {
                stack.pop();
            }
            _ => {}
        }
    }
    Ok(())
}

/// The Grundy value left by deleting the node at `path` (L and R steps from the root) of T(n),
/// computed along the path by the colon principle from the Grundy values of the untouched subtrees
/// alone: no count is used, so it checks every move the walks find. `hooks`' cancel flags are
/// checked while it computes the Grundy values.
///
/// Cost: O(n) time; memory O(path length): only the edge values of the subtrees along the path
/// (T(n - 2 len) to T(n)) are kept.
///
/// # Errors
/// [`Error::InvalidArgument`] naming [`Param::Path`] for an empty path (the root is not a move), a
/// character other than L and R, or a path that leaves the tree; naming [`Param::N`] for n above
/// [`crate::MAX_N`]; [`Error::Interrupted`] once cancelled.
pub fn value_after(n: u64, path: &str, hooks: Hooks) -> Result<u64> {
    if n > fibtree_core::MAX_N {
        return Err(Error::invalid(Param::N, format!("at most {}, got {n}", fibtree_core::MAX_N)));
    }
    if path.is_empty() {
        return Err(Error::invalid(Param::Path, "expected a non-empty path of L and R: the root is not a move"));
    }
    // the subtrees along the path: sizes k, each step going down by 1 or 2
    let mut k = n as usize;
    let mut steps = Vec::with_capacity(path.len().min(n as usize + 1));
    for (i, c) in path.chars().enumerate() {
        let (child, sibling) = match c {
            'L' if k >= 2 => (k - 1, k - 2),
            'R' if k >= 3 => (k - 2, k - 1),
            'L' | 'R' => {
                let what = format!("step {} ('{c}') leaves T({n}): the node there has no such child", i + 1);
                return Err(Error::invalid(Param::Path, what));
            }
            _ => {
                return Err(Error::invalid(Param::Path, format!("expected only L and R, got '{c}' at step {}", i + 1)));
            }
        };
        steps.push(sibling);
        k = child;
    }
    // the edge values 1 + G(j) for j from the lowest sibling up to n, computed from the bottom
    let lowest = steps.iter().copied().min().unwrap_or(0);
    let mut edge = vec![0u64; n as usize + 1 - lowest];
    let (mut older, mut old) = (0u64, 1u64); // 1 + G(0), 1 + G(1)
    for j in 0..=n as usize {
        let e = match j {
            0 => 0,
            1 => 1,
            _ => {
                if j % (1 << 22) == 0 {
                    hooks.check()?;
                }
                (older, old) = (old, (old ^ older) + 1);
                old
            }
        };
        if j >= lowest {
            edge[j - lowest] = e;
        }
    }
    // bottom-up: the deleted node contributes nothing to its parent
    let mut contribution = 0u64;
    for &sibling in steps.iter().rev() {
        let value = contribution ^ edge[sibling - lowest];
        contribution = value + 1;
    }
    Ok(contribution - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk over the counts of (k, g), obeying `hooks`.
    fn counts(k: u64, g: u64, hooks: Hooks) -> Counts {
        walk(k, g, Limit::given(1 << 30), hooks).unwrap()
    }

    /// The paths of T(k) in preorder with the value each deletion leaves, from the explicit tree.
    fn explicit_moves(k: u64) -> Vec<(String, u64)> {
        fn walk(k: u64, path: &mut String, out: &mut Vec<String>) {
            if k >= 2 {
                path.push('L');
                out.push(path.clone());
                walk(k - 1, path, out);
                path.pop();
            }
            if k >= 3 {
                path.push('R');
                out.push(path.clone());
                walk(k - 2, path, out);
                path.pop();
            }
        }
        let mut paths = Vec::new();
        walk(k, &mut String::new(), &mut paths);
        paths.into_iter().map(|p| (p.clone(), value_after(k, &p, Hooks::default()).unwrap())).collect()
    }

    #[test]
    fn value_after_agrees_with_the_oracle_counts() {
        for k in 0..=16u64 {
            let mut tally = std::collections::BTreeMap::<u64, u64>::new();
            for (_, v) in explicit_moves(k) {
                *tally.entry(v).or_default() += 1;
            }
            let oracle = fibtree_oracles::explicit_tree_counts(k as u32).unwrap();
            let want: std::collections::BTreeMap<u64, u64> =
                oracle.iter().enumerate().filter(|e| *e.1 > 0).map(|(g, &c)| (g as u64, c)).collect();
            assert_eq!(tally, want, "k = {k}");
        }
    }

    #[test]
    fn list_nth_and_rank_agree_with_preorder() {
        for k in 0..=14u64 {
            let moves = explicit_moves(k);
            for g in 0..8u64 {
                let want: Vec<&String> = moves.iter().filter(|m| m.1 == g).map(|m| &m.0).collect();
                let mut counts = counts(k, g, Hooks::default());
                let mut got = Vec::new();
                list(&mut counts, k, g, u64::MAX, |p| {
                    got.push(p.to_string());
                    Ok(())
                })
                .unwrap();
                assert_eq!(got.iter().collect::<Vec<_>>(), want, "list T({k}) to {g}");
                for (i, p) in want.iter().enumerate() {
                    assert_eq!(&&nth(&mut counts, k, g, &BigUint::from(i)).unwrap(), p, "nth {i} of T({k}) to {g}");
                    assert_eq!(rank(&mut counts, k, g, p).unwrap(), BigUint::from(i), "rank {p} in T({k})");
                }
            }
        }
    }

    #[test]
    fn list_stops_at_the_move_after_its_cancel_flag_is_set() {
        let stop = std::sync::atomic::AtomicBool::new(false);
        let mut walk = counts(40, 0, Hooks::default().cancel_on(&stop));
        let mut listed = 0;
        let walked = list(&mut walk, 40, 0, u64::MAX, |_| {
            listed += 1;
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            Ok(())
        });
        assert!(matches!(walked, Err(Error::Interrupted)), "{walked:?}");
        assert_eq!(listed, 1, "no move after the flag is set");
        // an error of the caller's ends the walk with that error
        let mut walk = counts(40, 0, Hooks::default());
        let walked = list(&mut walk, 40, 0, u64::MAX, |_| Err(Error::RunsDisagree("stop".into())));
        assert!(matches!(walked, Err(Error::RunsDisagree(_))), "{walked:?}");
    }

    #[test]
    fn bad_paths_are_refused() {
        for (n, path) in [(5, ""), (5, "LX"), (2, "R"), (3, "LR"), (3, "LLL"), (1, "L")] {
            assert!(
                matches!(
                    value_after(n, path, Hooks::default()),
                    Err(Error::InvalidArgument { param: Param::Path, .. })
                ),
                "{n} {path}"
            );
        }
        assert_eq!(value_after(3, "L", Hooks::default()).unwrap(), 1); // only the right child T(1) stays: 1 + G(1) = 1
    }
}
