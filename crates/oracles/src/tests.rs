//! The oracles against the published values, against each other node by node, and their limits.

use super::explicit_tree::{ExplicitTree, NO_NODE};
use super::first_principles::{Positions, TreeId, mex};
use super::*;

/// f(1..7) from docs/math.md.
const F_1_TO_7: [u64; 7] = [0, 1, 1, 1, 1, 3, 0];
/// G(1..12) from docs/math.md.
const G_1_TO_12: [u64; 12] = [0, 1, 3, 6, 3, 3, 0, 5, 7, 14, 7, 7];

/// f(k) = c(k, 0); 0 when the distribution is empty.
fn f(counts: &[u64]) -> u64 {
    counts.first().copied().unwrap_or(0)
}

/// F(n) with F(1) = F(2) = 1.
fn fibonacci(n: u32) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    for _ in 0..n {
        (a, b) = (b, a + b);
    }
    a
}

/// G(0..=max) by G(0) = -1, G(1) = 0, G(k) = (1 + G(k-1)) xor (1 + G(k-2)).
fn grundy_recurrence(max: u32) -> Vec<i64> {
    let mut g = vec![-1i64, 0];
    for k in 2..=max as usize {
        g.push((1 + g[k - 1]) ^ (1 + g[k - 2]));
    }
    g
}

fn assert_invalid_k(result: Result<impl std::fmt::Debug>, limit: &str) {
    match result {
        Err(refused) => {
            let expected = refused.to_string();
            assert!(expected.contains(limit), "message {expected:?} lacks {limit}");
            assert!(!expected.contains('\n'), "message {expected:?} spans lines");
        }
        other => panic!("expected a refusal of K, got {other:?}"),
    }
}

#[test]
fn explicit_known_values() {
    for (k, &expected) in (1..=7).zip(F_1_TO_7.iter()) {
        assert_eq!(f(&explicit_tree_counts(k).unwrap()), expected, "f({k})");
    }
    assert_eq!(f(&explicit_tree_counts(10).unwrap()), 17, "f(10)");
}

#[test]
fn first_principles_known_values() {
    for (k, &expected) in (1..=7).zip(F_1_TO_7.iter()) {
        assert_eq!(f(&first_principles_counts(k).unwrap()), expected, "f({k})");
    }
}

#[test]
fn small_distributions_by_hand() {
    // T(0) and T(1) have no move; T(2) has exactly one (no phantom right child).
    assert!(explicit_tree_counts(0).unwrap().is_empty());
    assert!(explicit_tree_counts(1).unwrap().is_empty());
    assert!(first_principles_counts(0).unwrap().is_empty());
    assert!(first_principles_counts(1).unwrap().is_empty());
    assert_eq!(explicit_tree_counts(2).unwrap(), vec![1]);
    assert_eq!(first_principles_counts(2).unwrap(), vec![1]);
    // T(3): root, left T(2) (two nodes), right leaf. Deleting the right leaf leaves a path
    // of 2 edges (value 2); deleting the left child leaves one edge (1); deleting the left
    // grandchild leaves two leaves under the root (0).
    assert_eq!(explicit_tree_counts(3).unwrap(), vec![1, 1, 1]);
}

#[test]
fn no_trailing_zeros() {
    for k in 0..=20 {
        let counts = explicit_tree_counts(k).unwrap();
        assert_ne!(counts.last(), Some(&0), "explicit, k = {k}");
    }
    for k in 0..=MAX_FIRST_PRINCIPLES_K {
        let counts = first_principles_counts(k).unwrap();
        assert_ne!(counts.last(), Some(&0), "first principles, k = {k}");
    }
}

#[test]
fn sum_is_number_of_moves() {
    for k in 0..=25 {
        let size = if k == 0 { 0 } else { fibonacci(k + 2) - 1 };
        let moves = size.saturating_sub(1);
        let total: u64 = explicit_tree_counts(k).unwrap().iter().sum();
        assert_eq!(total, moves, "sum over g of c({k}, g)");
    }
    for k in 0..=MAX_FIRST_PRINCIPLES_K {
        let size = if k == 0 { 0 } else { fibonacci(k + 2) - 1 };
        let total: u64 = first_principles_counts(k).unwrap().iter().sum();
        assert_eq!(total, size.saturating_sub(1), "first principles, k = {k}");
    }
}

#[test]
fn largest_explicit_k_runs() {
    let counts = explicit_tree_counts(MAX_EXPLICIT_K).unwrap();
    let total: u64 = counts.iter().sum();
    assert_eq!(total, fibonacci(MAX_EXPLICIT_K + 2) - 2);
    assert_ne!(counts.last(), Some(&0));
}

#[test]
fn explicit_root_grundy_matches_recurrence() {
    let recurrence = grundy_recurrence(MAX_EXPLICIT_K);
    for (k, &expected) in (1..=12).zip(G_1_TO_12.iter()) {
        assert_eq!(recurrence[k as usize], expected as i64, "recurrence G({k})");
        assert_eq!(explicit_tree_grundy(k).unwrap(), Some(expected), "G({k})");
    }
    for k in 1..=MAX_EXPLICIT_K {
        let expected = u64::try_from(recurrence[k as usize]).unwrap();
        assert_eq!(explicit_tree_grundy(k).unwrap(), Some(expected), "G({k})");
    }
}

#[test]
fn mex_root_grundy_matches_known_values() {
    // First principles on T(k) itself, against the published G(1..7) (no XOR involved).
    let mut positions = Positions::default();
    for (k, &expected) in (1..=MAX_FIRST_PRINCIPLES_K).zip(G_1_TO_12.iter()) {
        let tree = positions.fibonacci(k).unwrap();
        assert_eq!(positions.grundy(tree), expected, "G({k}) by mex");
    }
}

#[test]
fn canonical_form_identifies_isomorphic_trees() {
    let mut positions = Positions::default();
    let leaf = positions.intern(Vec::new());
    let path = positions.intern(vec![leaf]);
    let a = positions.intern(vec![leaf, path]);
    let b = positions.intern(vec![path, leaf]);
    assert_eq!(a, b);
    assert_ne!(a, positions.intern(vec![leaf, leaf]));
    // T(3) has the moves: delete the left child, its child, or the right leaf.
    let t3 = positions.fibonacci(3).unwrap();
    assert_eq!(positions.moves(t3).len(), 3);
    assert_eq!(positions.children.len(), 5, "leaf, path, T(3), two leaves, path of 2");
    assert_eq!(mex(&[0, 1, 3, 1]), 2);
    assert_eq!(mex(&[1, 2]), 0);
    assert_eq!(mex(&[]), 0);
}

#[test]
fn explicit_nodes_agree_with_the_counts() {
    assert!(explicit_tree_nodes(0).unwrap().is_empty());
    for k in 1..=16 {
        let nodes = explicit_tree_nodes(k).unwrap();
        assert_eq!(nodes.len() as u64, fibonacci(k + 2) - 1, "|T({k})|");
        let mut counts = Vec::new();
        for (i, node) in nodes.iter().enumerate() {
            match node.parent {
                None => {
                    assert_eq!(i, 0, "only the root has no parent");
                    assert_eq!((node.depth, node.path.as_str(), node.value_after), (0, "", None));
                }
                Some(p) => {
                    assert!(p < i, "preorder: the parent comes first");
                    let parent = &nodes[p];
                    let step = if parent.left == Some(i) { 'L' } else { 'R' };
                    assert!(parent.left == Some(i) || parent.right == Some(i));
                    assert_eq!(node.path, format!("{}{step}", parent.path));
                    assert_eq!(node.depth as usize, node.path.len());
                    tally(&mut counts, node.value_after.expect("a non-root node is a move"));
                }
            }
            if let (None, Some(_)) = (node.left, node.right) {
                panic!("T({k}): a right child without a left one at {}", node.path);
            }
        }
        assert_eq!(counts, explicit_tree_counts(k).unwrap(), "c({k}, .) from the node list");
    }
    let t3 = explicit_tree_nodes(3).unwrap();
    let paths: Vec<&str> = t3.iter().map(|n| n.path.as_str()).collect();
    assert_eq!(paths, ["", "L", "LL", "R"]);
    assert_eq!(t3[0].left, Some(1));
    assert_eq!(t3[0].right, Some(3));
    assert_invalid_k(explicit_tree_nodes(MAX_EXPLICIT_K + 1), "30");
}

/// The position left by deleting `deleted` from the subtree of `node`, interned (`None` if `node`
/// is deleted), built from the explicit tree without the colon principle.
fn without(tree: &ExplicitTree, positions: &mut Positions, node: u32, deleted: u32) -> Option<TreeId> {
    if node == deleted {
        return None;
    }
    let children = [tree.left[node as usize], tree.right[node as usize]]
        .into_iter()
        .filter(|&c| c != NO_NODE)
        .filter_map(|c| without(tree, positions, c, deleted))
        .collect();
    Some(positions.intern(children))
}

#[test]
fn explicit_node_values_match_first_principles_node_by_node() {
    // Each node's value_after against the mex value of the actual tree left by deleting it.
    let mut positions = Positions::default();
    for k in 1..=6 {
        let tree = ExplicitTree::build(k);
        for (i, node) in explicit_tree_nodes(k).unwrap().iter().enumerate().skip(1) {
            let left = without(&tree, &mut positions, 0, i as u32).expect("the root stays");
            assert_eq!(node.value_after, Some(positions.grundy(left)), "T({k}), node {}", node.path);
        }
    }
}

#[test]
fn k_above_the_limits_is_refused() {
    assert_invalid_k(explicit_tree_counts(MAX_EXPLICIT_K + 1), "30");
    assert_invalid_k(explicit_tree_counts(u32::MAX), "30");
    assert_invalid_k(explicit_tree_grundy(MAX_EXPLICIT_K + 1), "30");
    assert_eq!(explicit_tree_grundy(0), Ok(None), "T(0) is empty: no position");
    assert_invalid_k(first_principles_counts(MAX_FIRST_PRINCIPLES_K + 1), "7");
    assert_invalid_k(first_principles_counts(u32::MAX), "7");
}
