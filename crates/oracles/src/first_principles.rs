//! The first-principles oracle: positions as canonical rooted trees, values by the mex definition,
//! with neither the colon principle nor XOR.

use std::collections::HashMap;

use super::Result;
use super::{MAX_FIRST_PRINCIPLES_K, check_k, tally};

/// The id of an interned rooted tree in [`Positions`].
pub(super) type TreeId = u32;

/// Rooted trees up to isomorphism, hash-consed: every tree is interned once and named by an id,
/// and its canonical form is the sorted list of the ids of its root's subtrees. By induction on
/// height, two trees get the same id iff they are isomorphic, so positions are memoised on their
/// canonical form. Any rooted tree is a position (the root plus what hangs from it).
#[derive(Default)]
pub(super) struct Positions {
    /// The canonical form of each interned tree, indexed by id.
    pub(super) children: Vec<Vec<TreeId>>,
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
    pub(super) fn intern(&mut self, mut children: Vec<TreeId>) -> TreeId {
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
    pub(super) fn fibonacci(&mut self, k: u32) -> Option<TreeId> {
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
    pub(super) fn moves(&mut self, id: TreeId) -> Vec<TreeId> {
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
    pub(super) fn grundy(&mut self, id: TreeId) -> u64 {
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
pub(super) fn mex(values: &[u64]) -> u64 {
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

/// The same counts as [`super::explicit_tree_counts`], from first principles: c(k, g) is the number of
/// non-root nodes of T(k) whose deletion leaves a position whose Grundy value, computed by the
/// mex definition over all moves, is g.
///
/// Positions are canonical rooted trees (hash-consed: a tree is the sorted list of the ids of
/// its root's subtrees), and moves and values are memoised on them. The colon principle and XOR
/// are not used, so this oracle checks the theory itself. Returns a `Vec` indexed by g with no
/// trailing zeros (empty for k <= 1).
///
/// Time: each distinct position reachable from T(k) (up to isomorphism: 94,505 at k = 7) is
/// solved once, with one canonical form built per move, each in O(d log d) for d root children:
/// O(P x m x d log d) for P positions of at most m = |T(k)| - 1 moves. Memory: the memo of those
/// positions and their move lists, about 30 MB at k = 7.
///
/// # Errors
/// [`super::TooLarge`] if `k > MAX_FIRST_PRINCIPLES_K`.
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
