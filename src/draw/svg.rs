//! Pictures of Fibonacci trees with the moves to a Grundy value marked ([`svg`]).
//!
//! The trees come from the explicit-tree oracle ([`fibtree_oracles::explicit_tree_nodes`]): every
//! node's value-after-deletion is computed on the actual tree, so a picture shows exactly the moves
//! it counts. The picture is written with [`crate::plot`]'s SVG writer, a tooltip on each node.

use std::ops::RangeInclusive;

use fibtree_oracles::{ExplicitNode, explicit_tree_nodes};

use crate::plot::{Anchor, Colour, Font, Paint, Stroke, Svg};

/// What drawing makes, or what is wrong with the trees asked for, in words (the command line names
/// K).
type Result<T> = std::result::Result<T, String>;

/// The largest K that [`svg`] draws: T(14) has 986 nodes, a picture about 12,900 pixels wide.
pub(crate) const MAX_DRAW_K: u32 = 14;

/// The fill of a node whose deletion leaves the Grundy value asked for (a move to g), and its ring.
const MOVE: Paint = node(Colour(0xd6, 0x27, 0x28), Colour(0x7a, 0x10, 0x10), 1.2);
/// The fill of every other non-root node, and its ring.
const OTHER: Paint = node(Colour(0xd9, 0xd9, 0xd9), Colour(0x40, 0x40, 0x40), 1.2);
/// The root (which is never a move): white, in a thick black ring.
const ROOT: Paint = node(Colour::WHITE, Colour::BLACK, 3.5);
/// An edge.
const EDGE: Stroke = Stroke::solid(Colour(0x55, 0x55, 0x55), 1.5);

/// A node filled `fill`, ringed `ring` `width` pixels wide.
const fn node(fill: Colour, ring: Colour, width: f64) -> Paint {
    Paint { fill: Some(fill), stroke: Some(Stroke::solid(ring, width)) }
}

/// Horizontal distance between two adjacent leaves, in pixels.
const SLOT: f64 = 26.0;
/// Vertical distance between two levels, in pixels.
const LEVEL: f64 = 46.0;
/// Node radius, in pixels.
const RADIUS: f64 = 9.0;
/// Blank space around the picture, in pixels.
const MARGIN: f64 = 24.0;
/// Blank space between two trees side by side, in pixels.
const GAP: f64 = 36.0;
/// The captions' font.
const CAPTION: Font = Font::new(14.0).anchored(Anchor::Middle);
/// The heading's font.
const HEADING: Font = Font::new(17.0).bold();
/// The font of the legend line under the heading.
const LEGEND: Font = Font::new(13.0).coloured(Colour(0x33, 0x33, 0x33));

/// One tree laid out: node positions in pixels relative to the tree's top-left corner.
struct Layout {
    /// The nodes in preorder, from the explicit-tree oracle.
    nodes: Vec<ExplicitNode>,
    /// The centre of each node.
    centres: Vec<(f64, f64)>,
    /// The width of the tree's bounding box, circles included (0 for the empty tree).
    width: f64,
}

/// Lays out the subtree of `node`: leaves one slot apart from left to right, each parent midway
/// between its children. A missing right child (under every copy of T(2)) reserves half a slot, the
/// parent sitting midway between its left child and where the right one would be, so that it leans
/// left. Every subtree then owns an x-interval of its own, so nodes at one depth are at least a slot
/// apart and no edges cross.
fn place(nodes: &[ExplicitNode], node: usize, cursor: &mut f64, x: &mut [f64]) {
    let this = &nodes[node];
    x[node] = match (this.left, this.right) {
        (Some(left), right) => {
            place(nodes, left, cursor, x);
            let right_x = match right {
                Some(right) => {
                    place(nodes, right, cursor, x);
                    x[right]
                }
                None => {
                    let phantom = *cursor;
                    *cursor += 0.5;
                    phantom
                }
            };
            (x[left] + right_x) / 2.0
        }
        (None, _) => {
            // A right child without a left one does not occur in a Fibonacci tree.
            debug_assert!(this.right.is_none());
            *cursor += 1.0;
            *cursor - 1.0
        }
    };
}

impl Layout {
    /// T(k) laid out. Time O(|T(k)| · k) (the oracle's evaluation of every move).
    fn new(k: u32) -> Result<Layout> {
        let nodes = explicit_tree_nodes(k).map_err(|e| e.to_string())?;
        let mut x = vec![0.0; nodes.len()];
        if !nodes.is_empty() {
            place(&nodes, 0, &mut 0.0, &mut x);
        }
        let right = x.iter().copied().fold(0.0, f64::max);
        let centres =
            nodes.iter().zip(&x).map(|(n, &x)| (RADIUS + x * SLOT, RADIUS + f64::from(n.depth) * LEVEL)).collect();
        let width = if nodes.is_empty() { 0.0 } else { right * SLOT + 2.0 * RADIUS };
        Ok(Layout { nodes, centres, width })
    }

    /// The depth of the deepest node (0 for the empty tree).
    fn depth(&self) -> u32 {
        self.nodes.iter().map(|n| n.depth).max().unwrap_or(0)
    }
}

/// The picture of T(k) for every k in `trees`, side by side, as an SVG document: the nodes whose
/// deletion leaves Grundy value `g` filled red, the other non-root nodes grey, the
/// root white with a thick black outline; one `<circle>` per node (with a tooltip naming its
/// path and the value its deletion leaves), edges as `<line>`s, and under each tree the caption
/// "T(k): c(k, g) = N", N being the number of red nodes. With a white background, a `<title>`, a
/// heading and a legend.
///
/// Cost: the explicit-tree oracle on each tree, time O(|T(k)| · k) and memory O(|T(k)| · k), then
/// about 250 bytes of output per node: for 1..=14, 2,567 nodes and about 640 KB.
///
/// # Errors
/// What the range should have been, for an empty range or a tree above [`MAX_DRAW_K`].
pub(crate) fn svg(trees: RangeInclusive<u32>, g: u64) -> Result<String> {
    let (from, to) = (*trees.start(), *trees.end());
    if from > to {
        return Err(format!("a range from A to B at least A, got {from}..{to}"));
    }
    if to > MAX_DRAW_K {
        return Err(format!("at most {MAX_DRAW_K}: too many nodes to draw legibly, got {to}"));
    }
    let layouts = trees.clone().map(Layout::new).collect::<Result<Vec<_>>>()?;

    let which = if from == to {
        format!("The Fibonacci tree T({from})")
    } else {
        format!("Fibonacci trees T({from}) to T({to})")
    };
    let moves = if g == 0 {
        "the moves to Grundy value 0, the winning first moves".to_string()
    } else {
        format!("the moves that leave Grundy value {g}")
    };
    let legend = format!("red: {moves}; grey: the other moves; ringed: the root (not a move)");
    let captions: Vec<String> = trees
        .clone()
        .zip(&layouts)
        .map(|(k, layout)| {
            let count = layout.nodes.iter().filter(|n| n.value_after == Some(g)).count();
            format!("T({k}): c({k}, {g}) = {count}")
        })
        .collect();

    // Columns: each tree centred in the width of itself or its caption, whichever is wider.
    let columns: Vec<f64> = layouts.iter().zip(&captions).map(|(l, c)| l.width.max(CAPTION.width(c))).collect();
    let trees_width = columns.iter().sum::<f64>() + GAP * (columns.len() - 1) as f64;
    let heading_width = HEADING.width(&which).max(LEGEND.width(&legend));
    let width = 2.0 * MARGIN + trees_width.max(heading_width);
    let top = MARGIN + HEADING.size + 10.0 + LEGEND.size + 24.0;
    let max_depth = layouts.iter().map(Layout::depth).max().unwrap_or(0);
    let caption_y = top + f64::from(max_depth) * LEVEL + 2.0 * RADIUS + 10.0 + CAPTION.size;
    let height = caption_y + MARGIN;

    let mut svg = Svg::new(width, height, &format!("{which}: in red, {moves}"));
    svg.text((MARGIN, MARGIN + HEADING.size), &which, HEADING);
    svg.text((MARGIN, MARGIN + HEADING.size + 10.0 + LEGEND.size), &legend, LEGEND);
    // The trees together are centred when the heading is wider.
    let mut left = MARGIN + (width - 2.0 * MARGIN - trees_width) / 2.0;
    for ((k, layout), (caption, column)) in trees.zip(&layouts).zip(captions.iter().zip(&columns)) {
        tree_group(&mut svg, k, g, layout, (left, top), (caption, *column, caption_y));
        left += column + GAP;
    }
    Ok(svg.finish())
}

/// Draws T(`k`) as an SVG group: its `layout` at `(left, top)` in a column `column` wide, the moves
/// to `g` red, with its `caption` at the height `caption_y`.
fn tree_group(
    svg: &mut Svg,
    k: u32,
    g: u64,
    layout: &Layout,
    (left, top): (f64, f64),
    (caption, column, caption_y): (&str, f64, f64),
) {
    let dx = left + (column - layout.width) / 2.0;
    let at = |i: usize| (dx + layout.centres[i].0, top + layout.centres[i].1);
    svg.group(&format!("T{k}"));
    for (i, node) in layout.nodes.iter().enumerate() {
        if let Some(parent) = node.parent {
            svg.line(at(parent), at(i), EDGE);
        }
    }
    for (i, node) in layout.nodes.iter().enumerate() {
        let (paint, tip) = match node.value_after {
            None => (ROOT, format!("the root of T({k}) (not a move)")),
            Some(v) => {
                let paint = if v == g { MOVE } else { OTHER };
                (paint, format!("{}: deleting it leaves Grundy value {v}", node.path))
            }
        };
        svg.circle(at(i), RADIUS, paint, Some(&tip));
    }
    svg.text((left + column / 2.0, caption_y), caption, CAPTION);
    svg.end_group();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn svg_refuses_trees_too_large_and_empty_ranges() {
        assert!(svg(15..=15, 0).is_err());
        assert!(svg(1..=15, 0).is_err());
        #[allow(clippy::reversed_empty_ranges)]
        let empty = 5..=2;
        assert!(svg(empty, 0).unwrap_err().contains("at least A, got 5..2"));
    }

    #[test]
    fn layout_keeps_nodes_apart() {
        for k in 1..=MAX_DRAW_K {
            let layout = Layout::new(k).unwrap();
            let c = &layout.centres;
            for i in 0..c.len() {
                for j in 0..i {
                    if c[i].1 == c[j].1 {
                        assert!((c[i].0 - c[j].0).abs() >= SLOT - 1e-9, "T({k}): nodes {i} and {j} too close");
                    }
                }
                if let Some(p) = layout.nodes[i].parent {
                    assert_eq!(c[i].1 - c[p].1, LEVEL, "a child is one level below its parent");
                }
            }
            // Left children to the left of their parent, right children to the right.
            for (i, node) in layout.nodes.iter().enumerate() {
                if let Some(l) = node.left {
                    assert!(c[l].0 < c[i].0, "T({k}) node {i}");
                }
                if let Some(r) = node.right {
                    assert!(c[r].0 > c[i].0, "T({k}) node {i}");
                }
            }
        }
        assert_eq!(Layout::new(0).unwrap().width, 0.0);
        assert_eq!(Layout::new(1).unwrap().width, 2.0 * RADIUS);
    }
}
