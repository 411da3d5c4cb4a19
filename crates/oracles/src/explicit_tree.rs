//! The explicit-tree oracle: T(k) built node by node, every first move played on it.

use super::Result;
use super::{MAX_EXPLICIT_K, check_k, tally};

/// Marks a missing parent or child in [`ExplicitTree`].
pub(super) const NO_NODE: u32 = u32::MAX;

/// T(k) as flat arrays, nodes numbered in preorder: the root is node 0 and every node comes
/// before all the nodes of its subtree.
pub(super) struct ExplicitTree {
    /// The parent of each node, [`NO_NODE`] for the root.
    pub(super) parent: Vec<u32>,
    /// The left child (the root of the copy of T(k-1)), or [`NO_NODE`].
    pub(super) left: Vec<u32>,
    /// The right child (the root of the copy of T(k-2)), or [`NO_NODE`].
    pub(super) right: Vec<u32>,
}

impl ExplicitTree {
    /// Builds T(k) with an explicit stack (no recursion). Time and memory O(|T(k)|).
    pub(super) fn build(k: u32) -> Self {
        // |T(k)| by the definition, |T(k)| = |T(k-1)| + |T(k-2)| + 1: only a capacity hint.
        let mut sizes = (0usize, 1usize);
        for _ in 1..k {
            sizes = (sizes.1, sizes.0 + sizes.1 + 1);
        }
        let capacity = if k == 0 { 0 } else { sizes.1 };

        let mut tree = ExplicitTree {
            parent: Vec::with_capacity(capacity),
            left: Vec::with_capacity(capacity),
            right: Vec::with_capacity(capacity),
        };
        // Pending subtrees: (order i of the T(i) to build, its parent, whether it is the left child).
        let mut pending: Vec<(u32, u32, bool)> = Vec::with_capacity(k as usize + 1);
        if k >= 1 {
            pending.push((k, NO_NODE, true));
        }
        while let Some((order, parent, is_left)) = pending.pop() {
            let node = u32::try_from(tree.parent.len()).expect("T(30) has fewer than 2^32 nodes");
            tree.parent.push(parent);
            tree.left.push(NO_NODE);
            tree.right.push(NO_NODE);
            if parent != NO_NODE {
                let slot = if is_left { &mut tree.left } else { &mut tree.right };
                slot[parent as usize] = node;
            }
            // Children of T(order): T(order - 1) on the left, T(order - 2) on the right, an empty
            // tree (order 0) being no node at all. The left one is pushed last so it is built first.
            if order >= 3 {
                pending.push((order - 2, node, false));
            }
            if order >= 2 {
                pending.push((order - 1, node, true));
            }
        }
        tree
    }

    /// The number of nodes.
    fn len(&self) -> usize {
        self.parent.len()
    }

    /// The Grundy value of every node's subtree, by the colon principle: the XOR over the
    /// children c of (1 + G(c)), 0 for a leaf. Children have larger indices than their parent,
    /// so one backward sweep suffices. Time and memory O(|T(k)|).
    fn subtree_grundy(&self) -> Vec<u64> {
        let mut grundy = vec![0u64; self.len()];
        for node in (0..self.len()).rev() {
            let mut value = 0;
            for child in [self.left[node], self.right[node]] {
                if child != NO_NODE {
                    value ^= 1 + grundy[child as usize];
                }
            }
            grundy[node] = value;
        }
        grundy
    }

    /// The root's Grundy value after deleting the non-root `node` with its subtree, given the
    /// values of all subtrees: only the values on the path from `node` to the root change.
    /// Time O(depth of `node`), at most k - 1 steps.
    fn root_after_deleting(&self, grundy: &[u64], node: usize) -> u64 {
        debug_assert!(node != 0, "the root cannot be deleted");
        // The parent loses the edge to `node`.
        let mut current = self.parent[node] as usize;
        let mut value = grundy[current] ^ (1 + grundy[node]);
        // Each ancestor swaps its child's old contribution for the new one.
        while current != 0 {
            let above = self.parent[current] as usize;
            value = grundy[above] ^ (1 + grundy[current]) ^ (1 + value);
            current = above;
        }
        value
    }
}

/// c(k, g) for every g, by building T(k) explicitly and playing every first move on it.
///
/// Returns a `Vec` indexed by g (index g holds c(k, g)), with no trailing zeros (empty for
/// k <= 1, where the tree has no non-root node). The tree is held in flat arrays (parent, left
/// and right child), subtree values come from the colon principle, and each deletion is
/// evaluated by recomputing the values along the path to the root.
///
/// Time O(|T(k)| · k), with |T(k)| = F(k+2) - 1: at most k - 1 steps up the tree a move.
/// Memory about 20 bytes per node: about 45 MB at k = 30.
///
/// # Errors
/// [`super::TooLarge`] if `k > MAX_EXPLICIT_K`.
pub fn explicit_tree_counts(k: u32) -> Result<Vec<u64>> {
    check_k(k, MAX_EXPLICIT_K, "explicit-tree")?;
    let tree = ExplicitTree::build(k);
    let grundy = tree.subtree_grundy();
    let mut counts = Vec::new();
    for node in 1..tree.len() {
        tally(&mut counts, tree.root_after_deleting(&grundy, node));
    }
    Ok(counts)
}

/// G(k), the Grundy value of T(k) itself, from the same explicit tree and the same colon-principle
/// pass as [`explicit_tree_counts`] (so tests can check that pass against the recurrence for G).
///
/// Time and memory O(|T(k)|): about 2.2 million nodes and 45 MB at k = 30.
///
/// # Errors
/// [`super::TooLarge`] if `k > MAX_EXPLICIT_K`. T(0), empty, has no root and is not a position (the
/// convention G(0) = -1 is not a game value): `None`.
pub fn explicit_tree_grundy(k: u32) -> Result<Option<u64>> {
    check_k(k, MAX_EXPLICIT_K, "explicit-tree")?;
    Ok((k > 0).then(|| ExplicitTree::build(k).subtree_grundy()[0]))
}

/// One node of T(k) as [`explicit_tree_nodes`] lists it: nodes in preorder (the root first, then
/// the left child's subtree, then the right child's), indices into that list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExplicitNode {
    /// The parent's index, `None` for the root (index 0).
    pub parent: Option<usize>,
    /// The left child's index (the root of the copy of T(i-1) under a copy of T(i)), if any.
    pub left: Option<usize>,
    /// The right child's index (the root of the copy of T(i-2)), if any.
    pub right: Option<usize>,
    /// The number of edges from the root (0 for the root).
    pub depth: u32,
    /// The path from the root, `L` for a step to a left child and `R` to a right child (empty for the
    /// root), the form `fibtree moves` and `fibtree rank` use.
    pub path: String,
    /// The root's Grundy value after deleting this node with its subtree; `None` for the root, which is
    /// not a move.
    pub value_after: Option<u64>,
}

/// Every node of T(k) in preorder, with its parent, children, depth, path and the value its deletion
/// leaves, from the same explicit tree and the same evaluation of each move as [`explicit_tree_counts`]
/// (so the number of nodes with `value_after == Some(g)` is c(k, g)). Empty for k = 0.
///
/// Time O(|T(k)| · k); memory O(|T(k)| · k), the paths being most of it (about 150 MB at k = 30; meant
/// for small k, such as pictures).
///
/// # Errors
/// [`super::TooLarge`] if `k > MAX_EXPLICIT_K`.
pub fn explicit_tree_nodes(k: u32) -> Result<Vec<ExplicitNode>> {
    check_k(k, MAX_EXPLICIT_K, "explicit-tree")?;
    let tree = ExplicitTree::build(k);
    let grundy = tree.subtree_grundy();
    let link = |node: u32| (node != NO_NODE).then_some(node as usize);
    let mut nodes: Vec<ExplicitNode> = Vec::with_capacity(tree.len());
    for node in 0..tree.len() {
        let parent = link(tree.parent[node]);
        // Preorder: the parent is already listed.
        let (depth, path) = match parent {
            None => (0, String::new()),
            Some(p) => {
                let step = if tree.left[p] as usize == node { 'L' } else { 'R' };
                let mut path = nodes[p].path.clone();
                path.push(step);
                (nodes[p].depth + 1, path)
            }
        };
        nodes.push(ExplicitNode {
            parent,
            left: link(tree.left[node]),
            right: link(tree.right[node]),
            depth,
            path,
            value_after: (node != 0).then(|| tree.root_after_deleting(&grundy, node)),
        });
    }
    Ok(nodes)
}
