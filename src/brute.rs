//! Brute-force oracles for the counts c(k, g), used only to check the fast engines on small k.
//!
//! Two oracles, each computing the whole distribution `c(k, .)` (see `docs/math.md` in this repository):
//!
//! * [`explicit_tree_counts`] builds T(k) node by node in flat arrays, gives every subtree its
//!   Grundy value by the colon principle, and plays every first move on the actual tree,
//!   recomputing the root's value along the path from the deleted node up. It shares the colon
//!   principle with the fast engines but none of their recurrences: no `c(k-1, .)`, no layers,
//!   no reachable-state pruning, no special case at k = 2 (the missing right child of T(2) is
//!   simply never built), so a slip in the recurrence or in the layer bounds shows up here.
//! * [`first_principles_counts`] does not trust the theory at all: positions are canonical
//!   rooted trees, and a position's Grundy value is the mex of the values of all its moves,
//!   memoised on the canonical form. No colon principle and no XOR appear in it, so agreement
//!   with the explicit oracle for k <= 7 checks the colon principle itself.
//!
//! Neither oracle reads anything from the fast engines: the tree, its moves and the values are
//! rebuilt from the definitions of the game.

use std::collections::HashMap;

use crate::{Error, Result};

/// Largest k the explicit-tree oracle accepts.
///
/// At this limit T(30) has 2,178,308 nodes: [`explicit_tree_counts`] then takes about 45 MB
/// and about 0.1 s in a release build. Larger k are refused with [`Error::InvalidArgument`]
/// (time and memory grow by a factor of about 1.618 per level).
pub const MAX_EXPLICIT_K: u32 = 30;

/// Largest k the first-principles oracle accepts.
///
/// At this limit T(7) has 20 nodes and [`first_principles_counts`] memoises 94,505 canonical
/// positions: about 30 MB and about 0.4 s in a release build. Larger k are refused with
/// [`Error::InvalidArgument`]: the number of positions grows roughly like the product of the two
/// previous levels' (81, 1192, 94505 for k = 5, 6, 7), far beyond memory at k = 8.
pub const MAX_FIRST_PRINCIPLES_K: u32 = 7;

/// The error for a `k` above an oracle's limit.
fn check_k(k: u32, max: u32, oracle: &str) -> Result<()> {
    if k > max {
        return Err(Error::invalid("K", format!("at most {max} for the {oracle} oracle, got {k}")));
    }
    Ok(())
}

/// Appends one occurrence of `value` to a distribution indexed by value.
fn tally(counts: &mut Vec<u64>, value: u64) {
    let index = usize::try_from(value).expect("a Grundy value of a small tree fits in usize");
    if index >= counts.len() {
        counts.resize(index + 1, 0);
    }
    counts[index] += 1;
}

// ---------------------------------------------------------------------------------------------
// Oracle 1: the explicit tree.
// ---------------------------------------------------------------------------------------------

/// Marks a missing parent or child in [`ExplicitTree`].
const NO_NODE: u32 = u32::MAX;

/// T(k) as flat arrays, nodes numbered in preorder: the root is node 0 and every node comes
/// before all the nodes of its subtree.
struct ExplicitTree {
    /// The parent of each node, [`NO_NODE`] for the root.
    parent: Vec<u32>,
    /// The left child (the root of the copy of T(k-1)), or [`NO_NODE`].
    left: Vec<u32>,
    /// The right child (the root of the copy of T(k-2)), or [`NO_NODE`].
    right: Vec<u32>,
}

impl ExplicitTree {
    /// Builds T(k) with an explicit stack (no recursion). Time and memory O(|T(k)|).
    fn build(k: u32) -> Self {
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
/// Time O(|T(k)| · k), with |T(k)| = F(k+2) - 1: about 0.1 s at k = 30 in a release build.
/// Memory about 20 bytes per node: about 45 MB at k = 30.
///
/// # Errors
/// [`Error::InvalidArgument`] for `K` if `k > MAX_EXPLICIT_K`.
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
/// [`Error::InvalidArgument`] for `K` if `k > MAX_EXPLICIT_K`, or if `k == 0`: T(0) is empty,
/// it has no root and is not a position (the convention G(0) = -1 is not a game value).
pub fn explicit_tree_grundy(k: u32) -> Result<u64> {
    check_k(k, MAX_EXPLICIT_K, "explicit-tree")?;
    if k == 0 {
        return Err(Error::invalid("K", "at least 1 for the explicit-tree Grundy value (T(0) is empty), got 0"));
    }
    Ok(ExplicitTree::build(k).subtree_grundy()[0])
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
/// [`Error::InvalidArgument`] for `K` if `k > MAX_EXPLICIT_K`.
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

// ---------------------------------------------------------------------------------------------
// Oracle 2: first principles (mex over all moves; no colon principle, no XOR).
// ---------------------------------------------------------------------------------------------

/// The id of an interned rooted tree in [`Positions`].
type TreeId = u32;

/// Rooted trees up to isomorphism, hash-consed: every tree is interned once and named by an id,
/// and its canonical form is the sorted list of the ids of its root's subtrees. By induction on
/// height, two trees get the same id iff they are isomorphic, so positions are memoised on their
/// canonical form. Any rooted tree is a position (the root plus what hangs from it).
#[derive(Default)]
struct Positions {
    /// The canonical form of each interned tree, indexed by id.
    children: Vec<Vec<TreeId>>,
    /// Canonical form to id.
    index: HashMap<Vec<TreeId>, TreeId>,
    /// For each id, once computed: the position left by each move, one entry per non-root node
    /// (so equal positions repeat).
    moves: Vec<Option<Vec<TreeId>>>,
    /// For each id, once computed: its Grundy value by the mex definition.
    grundy: Vec<Option<u64>>,
}

impl Positions {
    /// The id of the tree whose root has these subtrees (in any order).
    fn intern(&mut self, mut children: Vec<TreeId>) -> TreeId {
        children.sort_unstable();
        if let Some(&id) = self.index.get(&children) {
            return id;
        }
        let id = TreeId::try_from(self.children.len()).expect("fewer than 2^32 positions");
        self.index.insert(children.clone(), id);
        self.children.push(children);
        self.moves.push(None);
        self.grundy.push(None);
        id
    }

    /// T(k) straight from its definition; `None` for the empty T(0).
    fn fibonacci(&mut self, k: u32) -> Option<TreeId> {
        match k {
            0 => None,
            1 => Some(self.intern(Vec::new())),
            _ => {
                let children = [self.fibonacci(k - 1), self.fibonacci(k - 2)];
                Some(self.intern(children.into_iter().flatten().collect()))
            }
        }
    }

    /// The position after each move from `id`, one entry per non-root node: deleting a root
    /// child with its subtree, or making any move inside one root child.
    fn moves(&mut self, id: TreeId) -> Vec<TreeId> {
        if let Some(moves) = &self.moves[id as usize] {
            return moves.clone();
        }
        let children = self.children[id as usize].clone();
        let mut out = Vec::new();
        for (i, &child) in children.iter().enumerate() {
            let mut without = children.clone();
            without.remove(i);
            out.push(self.intern(without));
            for inner in self.moves(child) {
                let mut replaced = children.clone();
                replaced[i] = inner;
                out.push(self.intern(replaced));
            }
        }
        self.moves[id as usize] = Some(out.clone());
        out
    }

    /// The Grundy value of `id`: the mex of the values of all its moves (0 for a lone root).
    fn grundy(&mut self, id: TreeId) -> u64 {
        if let Some(value) = self.grundy[id as usize] {
            return value;
        }
        let options: Vec<u64> = self.moves(id).into_iter().map(|next| self.grundy(next)).collect();
        let value = mex(&options);
        self.grundy[id as usize] = Some(value);
        value
    }
}

/// The smallest non-negative integer not in `values`.
fn mex(values: &[u64]) -> u64 {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut candidate = 0;
    for value in sorted {
        if value != candidate {
            break;
        }
        candidate += 1;
    }
    candidate
}

/// The same counts as [`explicit_tree_counts`], from first principles: c(k, g) is the number of
/// non-root nodes of T(k) whose deletion leaves a position whose Grundy value, computed by the
/// mex definition over all moves, is g.
///
/// Positions are canonical rooted trees (hash-consed: a tree is the sorted list of the ids of
/// its root's subtrees), and moves and values are memoised on them. The colon principle and XOR
/// are not used, so this oracle checks the theory itself. Returns a `Vec` indexed by g with no
/// trailing zeros (empty for k <= 1).
///
/// Time: each distinct position reachable from T(k) (up to isomorphism: 94,505 at k = 7) is
/// solved once, with one canonical form built per move, each in O(d log d) for d root children;
/// about 0.4 s at k = 7 in a release build. Memory: the memo of those positions and their move
/// lists, about 30 MB at k = 7.
///
/// # Errors
/// [`Error::InvalidArgument`] for `K` if `k > MAX_FIRST_PRINCIPLES_K`.
pub fn first_principles_counts(k: u32) -> Result<Vec<u64>> {
    check_k(k, MAX_FIRST_PRINCIPLES_K, "first-principles")?;
    let mut counts = Vec::new();
    let mut positions = Positions::default();
    if let Some(tree) = positions.fibonacci(k) {
        for next in positions.moves(tree) {
            tally(&mut counts, positions.grundy(next));
        }
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
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
            Err(Error::InvalidArgument { arg, expected }) => {
                assert_eq!(arg, "K");
                assert!(expected.contains(limit), "message {expected:?} lacks {limit}");
                assert!(!expected.contains('\n'), "message {expected:?} spans lines");
            }
            other => panic!("expected InvalidArgument for K, got {other:?}"),
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
    fn oracles_agree_up_to_7() {
        for k in 0..=MAX_FIRST_PRINCIPLES_K {
            let explicit = explicit_tree_counts(k).unwrap();
            let principled = first_principles_counts(k).unwrap();
            let width = explicit.len().max(principled.len());
            for g in 0..width {
                assert_eq!(
                    explicit.get(g).copied().unwrap_or(0),
                    principled.get(g).copied().unwrap_or(0),
                    "c({k}, {g})"
                );
            }
            assert_eq!(explicit, principled, "k = {k}");
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
            assert_eq!(explicit_tree_grundy(k).unwrap(), expected, "G({k})");
        }
        for k in 1..=MAX_EXPLICIT_K {
            let expected = u64::try_from(recurrence[k as usize]).unwrap();
            assert_eq!(explicit_tree_grundy(k).unwrap(), expected, "G({k})");
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
        assert_invalid_k(explicit_tree_grundy(0), "at least 1");
        assert_invalid_k(first_principles_counts(MAX_FIRST_PRINCIPLES_K + 1), "7");
        assert_invalid_k(first_principles_counts(u32::MAX), "7");
    }
}
