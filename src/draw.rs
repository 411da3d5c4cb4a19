//! Pictures: Fibonacci trees with the moves to a Grundy value marked ([`svg`]), and the plot of a
//! distribution c(n, .) over g ([`dist_svg`]).
//!
//! The trees come from the brute-force oracle's explicit tree ([`crate::brute::explicit_tree_nodes`]):
//! every node's value-after-deletion is computed on the actual tree, so a picture shows exactly the
//! moves it counts. The tree picture is written by hand (a string builder); the distribution is
//! plotted with the `plotters` crate's SVG backend, whose text is plain SVG `<text>` (no fonts needed
//! to write it).

use std::fmt::Write as _;
use std::ops::RangeInclusive;

use num_bigint::BigUint;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::prelude::*;

use crate::brute::{ExplicitNode, explicit_tree_nodes};
use crate::{Error, Result};

/// The largest K that [`svg`] draws: T(14) has 986 nodes, a picture about 12,900 pixels wide.
pub const MAX_DRAW_K: u32 = 14;

/// The fill of a node whose deletion leaves the Grundy value asked for (a move to g).
pub const MOVE_FILL: &str = "#d62728";
/// The fill of every other non-root node.
pub const OTHER_FILL: &str = "#d9d9d9";
/// The fill of the root (which is never a move); it is marked by a thick black outline.
pub const ROOT_FILL: &str = "#ffffff";

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
/// Font size of the captions, in pixels.
const CAPTION_SIZE: f64 = 14.0;
/// Font size of the heading, in pixels.
const HEADING_SIZE: f64 = 17.0;
/// Font size of the legend line under the heading, in pixels.
const LEGEND_SIZE: f64 = 13.0;

/// The trees `K` or `A..B` (both ends included) of `fibtree draw`, each at most [`MAX_DRAW_K`].
///
/// # Errors
/// [`Error::InvalidArgument`] naming `K|A..B` for a malformed value, `K` or `B` for a tree above
/// [`MAX_DRAW_K`], `A..B` for A > B.
pub fn parse_trees(s: &str) -> Result<RangeInclusive<u32>> {
    let whole = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    // Digits only, so the only failure is overflow: a huge number, refused as above the limit.
    let value = |t: &str| t.parse::<u32>().unwrap_or(u32::MAX);
    let too_many = |arg: &'static str, t: &str| {
        Error::invalid(arg, format!("at most {MAX_DRAW_K}: too many nodes to draw legibly, got {t}"))
    };
    if whole(s) {
        let k = value(s);
        return if k > MAX_DRAW_K { Err(too_many("K", s)) } else { Ok(k..=k) };
    }
    match s.split_once("..") {
        Some((a, b)) if whole(a) && whole(b) => {
            let (from, to) = (value(a), value(b));
            if from > to {
                Err(Error::invalid("A..B", format!("A at most B, got {s}")))
            } else if to > MAX_DRAW_K {
                Err(too_many("B", b))
            } else {
                Ok(from..=to)
            }
        }
        _ => Err(Error::invalid(
            "K|A..B",
            format!("expected a tree K or a range A..B of whole numbers (e.g. 6 or 1..6), got '{s}'"),
        )),
    }
}

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
        let nodes = explicit_tree_nodes(k)?;
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

/// A generous estimate of the width of `text` in a sans-serif font of `size` pixels.
fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * size * 0.62
}

/// The picture of T(k) for every k in `trees`, side by side, as an SVG document: the nodes whose
/// deletion leaves Grundy value `g` filled [`MOVE_FILL`], the other non-root nodes [`OTHER_FILL`], the
/// root [`ROOT_FILL`] with a thick black outline; one `<circle>` per node (with a tooltip naming its
/// path and the value its deletion leaves), edges as `<line>`s, and under each tree the caption
/// "T(k): c(k, g) = N", N being the number of red nodes. With a white background, a `<title>`, a
/// heading and a legend.
///
/// Cost: the explicit-tree oracle on each tree, time O(|T(k)| · k) and memory O(|T(k)| · k), then
/// about 250 bytes of output per node: for 1..=14, 2,567 nodes and about 640 KB, in milliseconds.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `A..B` for an empty range, `K` or `B` for a tree above
/// [`MAX_DRAW_K`].
pub fn svg(trees: RangeInclusive<u32>, g: u64) -> Result<String> {
    let (from, to) = (*trees.start(), *trees.end());
    if from > to {
        return Err(Error::invalid("A..B", format!("A at most B, got {from}..{to}")));
    }
    if to > MAX_DRAW_K {
        let arg = if from == to { "K" } else { "B" };
        return Err(Error::invalid(arg, format!("at most {MAX_DRAW_K}: too many nodes to draw legibly, got {to}")));
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
    let columns: Vec<f64> =
        layouts.iter().zip(&captions).map(|(l, c)| l.width.max(text_width(c, CAPTION_SIZE))).collect();
    let trees_width = columns.iter().sum::<f64>() + GAP * (columns.len() - 1) as f64;
    let heading_width = text_width(&which, HEADING_SIZE).max(text_width(&legend, LEGEND_SIZE));
    let width = 2.0 * MARGIN + trees_width.max(heading_width);
    let top = MARGIN + HEADING_SIZE + 10.0 + LEGEND_SIZE + 24.0;
    let max_depth = layouts.iter().map(Layout::depth).max().unwrap_or(0);
    let caption_y = top + f64::from(max_depth) * LEVEL + 2.0 * RADIUS + 10.0 + CAPTION_SIZE;
    let height = caption_y + MARGIN;

    let mut out = String::with_capacity(1024 + 256 * layouts.iter().map(|l| l.nodes.len()).sum::<usize>());
    let w = &mut out;
    // Writing to a String cannot fail.
    let _ = writeln!(w, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
    let _ = writeln!(
        w,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">"#
    );
    let _ = writeln!(w, "<title>{which}: in red, {moves}</title>");
    let _ = writeln!(w, r##"<rect x="0" y="0" width="{width:.0}" height="{height:.0}" fill="#ffffff"/>"##);
    let _ = writeln!(
        w,
        r##"<text x="{MARGIN}" y="{:.1}" font-size="{HEADING_SIZE}" font-weight="bold" fill="#000000">{which}</text>"##,
        MARGIN + HEADING_SIZE
    );
    let _ = writeln!(
        w,
        r##"<text x="{MARGIN}" y="{:.1}" font-size="{LEGEND_SIZE}" fill="#333333">{legend}</text>"##,
        MARGIN + HEADING_SIZE + 10.0 + LEGEND_SIZE
    );

    // The trees together are centred when the heading is wider.
    let mut left = MARGIN + (width - 2.0 * MARGIN - trees_width) / 2.0;
    for ((k, layout), (caption, column)) in trees.zip(&layouts).zip(captions.iter().zip(&columns)) {
        let dx = left + (column - layout.width) / 2.0;
        let at = |i: usize| (dx + layout.centres[i].0, top + layout.centres[i].1);
        let _ = writeln!(w, r#"<g id="T{k}">"#);
        for (i, node) in layout.nodes.iter().enumerate() {
            if let Some(parent) = node.parent {
                let ((x1, y1), (x2, y2)) = (at(parent), at(i));
                let _ = writeln!(
                    w,
                    r##"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="#555555" stroke-width="1.5"/>"##
                );
            }
        }
        for (i, node) in layout.nodes.iter().enumerate() {
            let (x, y) = at(i);
            let (fill, stroke, stroke_width, tip) = match node.value_after {
                None => (ROOT_FILL, "#000000", 3.5, format!("the root of T({k}) (not a move)")),
                Some(v) => {
                    let fill = if v == g { MOVE_FILL } else { OTHER_FILL };
                    let stroke = if v == g { "#7a1010" } else { "#404040" };
                    (fill, stroke, 1.2, format!("{}: deleting it leaves Grundy value {v}", node.path))
                }
            };
            let _ = writeln!(
                w,
                r#"<circle cx="{x:.1}" cy="{y:.1}" r="{RADIUS}" fill="{fill}" stroke="{stroke}" stroke-width="{stroke_width}"><title>{tip}</title></circle>"#
            );
        }
        let _ = writeln!(
            w,
            r##"<text x="{:.1}" y="{caption_y:.1}" font-size="{CAPTION_SIZE}" text-anchor="middle" fill="#000000">{caption}</text>"##,
            left + column / 2.0
        );
        let _ = writeln!(w, "</g>");
        left += column + GAP;
    }
    let _ = writeln!(w, "</svg>");
    Ok(out)
}

/// log10(x), `None` for 0, for any size of x (an f64 conversion of a count with thousands of digits
/// would overflow): the top 64 bits as an f64 plus the exponent of the rest. Relative error about
/// 2^-52. Time O(number of limbs).
pub fn log10(x: &BigUint) -> Option<f64> {
    let bits = x.bits();
    if bits == 0 {
        return None;
    }
    let shift = bits.saturating_sub(64);
    let top = u64::try_from(x >> shift).expect("the top 64 bits fit in a u64");
    Some((top as f64).log10() + shift as f64 * std::f64::consts::LOG10_2)
}

/// The digits of `n` as Unicode superscripts, for the tick labels 10ⁿ.
fn superscript(n: i64) -> String {
    const DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let sign = if n < 0 { "⁻" } else { "" };
    let digits: String = n.unsigned_abs().to_string().bytes().map(|b| DIGITS[usize::from(b - b'0')]).collect();
    format!("{sign}{digits}")
}

/// The smallest step of the form 1, 2 or 5 times a power of ten that cuts `0..=top` into at most
/// `most` steps.
fn nice_step(top: f64, most: f64) -> f64 {
    let mut power = 1.0;
    loop {
        for m in [1.0, 2.0, 5.0] {
            if top / (m * power) <= most {
                return m * power;
            }
        }
        power *= 10.0;
    }
}

/// Ticks `0, step, 2 step, ...` up to `top`.
fn ticks(top: f64, step: f64) -> Vec<f64> {
    (0..).map(|i| f64::from(i) * step).take_while(|&t| t <= top + 1e-9).collect()
}

/// The ticks of the log axis, as log10 values from 0 to `top` (a whole number): 1, 2, 5, 10, 20, ...
/// up to 1000, otherwise whole powers of ten, at most about 10 of them.
fn log_ticks(top: f64) -> Vec<f64> {
    if top <= 3.0 {
        ticks(top, 1.0)
            .into_iter()
            .flat_map(|p| [p, p + 2f64.log10(), p + 5f64.log10()])
            .filter(|&t| t <= top + 1e-9)
            .collect()
    } else {
        ticks(top, nice_step(top, 10.0))
    }
}

/// The label of the log axis at log10 value `t` on an axis up to log10 value `top`: the number itself
/// when the axis ends at most at a million, otherwise 10ᵏ.
fn log_label(t: f64, top: f64) -> String {
    if top <= 6.0 { format!("{:.0}", 10f64.powf(t)) } else { format!("10{}", superscript(t.round() as i64)) }
}

/// A linear axis over `range` with the tick marks `ticks` (plotters' own `with_key_points` loses the
/// f64 label formatting, which `configure_mesh` needs).
struct TickedAxis {
    /// The values at the two ends of the axis.
    range: std::ops::Range<f64>,
    /// Where the tick marks and their labels go.
    ticks: Vec<f64>,
}

impl Ranged for TickedAxis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let fraction = (value - self.range.start) / (self.range.end - self.range.start);
        limit.0 + (f64::from(limit.1 - limit.0) * fraction + 1e-3).floor() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        // Grid lines at the ticks only, none in between.
        if hint.weight().allow_light_points() { Vec::new() } else { self.ticks.clone() }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.range.clone()
    }
}

/// A plotting failure as the library's error (drawing into a `String` does not fail in practice).
fn plot_error(e: impl std::fmt::Display) -> Error {
    Error::Io(std::io::Error::other(format!("plotting: {e}")))
}

/// The plot of the distribution `entries` of c(n, .) — `(g, count)` pairs, ascending g, or residues
/// modulo `modulus` — as an SVG document drawn with plotters: one dot per g at height log10 of the
/// count (a log scale, ticks 1, 2, 5, 10, ... or 10ᵏ), with a title and labelled axes. Zero counts
/// (residues) cannot be shown on a log scale and are left out; the title says how many.
///
/// Cost: time O(total limbs of the counts) for the logarithms, then about 90 bytes of output per
/// entry (about 1.2 MB for the 13,084 entries at n = 2000).
///
/// # Errors
/// [`Error::Io`] if plotters fails.
pub fn dist_svg(n: u64, entries: &[(u64, BigUint)], modulus: Option<u64>) -> Result<String> {
    let points: Vec<(f64, f64)> = entries.iter().filter_map(|(g, c)| log10(c).map(|y| (*g as f64, y))).collect();
    let zeros = entries.len() - points.len();
    let x_top = entries.last().map_or(1, |e| e.0.max(1)) as f64;
    // Headroom above the largest count, so that its dots stay clear of the frame.
    let y_top = (points.iter().map(|p| p.1).fold(0.0, f64::max) * 1.04).ceil().max(1.0);
    let mut title = match modulus {
        None => format!("c({n}, g) over g: the moves of T({n}) by the Grundy value they leave"),
        Some(m) => format!("c({n}, g) mod {m} over g: the moves of T({n}) by the value they leave, mod {m}"),
    };
    if entries.is_empty() {
        let _ = write!(title, " (T({n}) has no moves)");
    } else if zeros > 0 {
        let _ = write!(title, " ({zeros} zero residues not shown)");
    }
    let y_desc = match modulus {
        None => format!("c({n}, g), log scale"),
        Some(m) => format!("c({n}, g) mod {m}, log scale"),
    };

    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (1100, 640)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let (head, body) = root.split_vertically(46);
        head.titled(&title, ("sans-serif", 20)).map_err(plot_error)?;
        // A little room left of g = 0 and below a count of 1, so no dot sits on an axis.
        let x_range = TickedAxis { range: -0.01 * x_top..x_top * 1.02, ticks: ticks(x_top, nice_step(x_top, 10.0)) };
        let y_range = TickedAxis { range: -0.015 * y_top..y_top, ticks: log_ticks(y_top) };
        let mut chart = ChartBuilder::on(&body)
            .margin_left(12)
            .margin_right(30)
            .margin_bottom(12)
            .x_label_area_size(52)
            .y_label_area_size(88)
            .build_cartesian_2d(x_range, y_range)
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .x_desc("g (Grundy value left)")
            .y_desc(y_desc)
            .axis_desc_style(("sans-serif", 16))
            .label_style(("sans-serif", 14))
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| log_label(*v, y_top))
            .bold_line_style(BLACK.mix(0.12))
            .draw()
            .map_err(plot_error)?;
        let colour = RGBColor(0xd6, 0x27, 0x28);
        // Dots as large as the crowd allows: a few dozen points stay visible, thousands stay apart.
        let radius = match points.len() {
            0..=200 => 4.0,
            201..=2000 => 2.5,
            _ => 1.6,
        };
        chart.draw_series(points.iter().map(|&p| Circle::new(p, radius, colour.filled()))).map_err(plot_error)?;
        root.present().map_err(plot_error)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_trees_and_ranges() {
        assert_eq!(parse_trees("6").unwrap(), 6..=6);
        assert_eq!(parse_trees("0").unwrap(), 0..=0);
        assert_eq!(parse_trees("1..6").unwrap(), 1..=6);
        assert_eq!(parse_trees("14..14").unwrap(), 14..=14);
        let arg = |s: &str| match parse_trees(s) {
            Err(Error::InvalidArgument { arg, .. }) => arg,
            other => panic!("{s}: {other:?}"),
        };
        assert_eq!(arg("15"), "K");
        assert_eq!(arg("99999999999999999999999"), "K");
        assert_eq!(arg("3..20"), "B");
        assert_eq!(arg("5..2"), "A..B");
        for bad in ["x", "", "1..", "..3", "1...3", "1..=3", "-1", "1..2..3", " 1", "1 .. 2", "+3"] {
            assert_eq!(arg(bad), "K|A..B", "{bad:?}");
        }
    }

    #[test]
    fn svg_refuses_what_parse_refuses() {
        assert!(matches!(svg(15..=15, 0), Err(Error::InvalidArgument { arg: "K", .. })));
        assert!(matches!(svg(1..=15, 0), Err(Error::InvalidArgument { arg: "B", .. })));
        #[allow(clippy::reversed_empty_ranges)]
        let empty = 5..=2;
        assert!(matches!(svg(empty, 0), Err(Error::InvalidArgument { arg: "A..B", .. })));
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

    #[test]
    fn log10_of_huge_numbers() {
        assert_eq!(log10(&BigUint::from(0u32)), None);
        assert_eq!(log10(&BigUint::from(1u32)), Some(0.0));
        assert!((log10(&BigUint::from(1000u32)).unwrap() - 3.0).abs() < 1e-12);
        let big = BigUint::from(10u32).pow(2086) * 2326u32;
        assert!((log10(&big).unwrap() - (2086.0 + 2326f64.log10())).abs() < 1e-9);
        let power = BigUint::from(1u32) << 10_000u32;
        assert!((log10(&power).unwrap() - 10_000.0 * std::f64::consts::LOG10_2).abs() < 1e-9);
    }

    #[test]
    fn axis_ticks() {
        assert_eq!(nice_step(22_526.0, 10.0), 5000.0);
        assert_eq!(nice_step(3.0, 10.0), 1.0);
        assert_eq!(nice_step(436.0, 10.0), 50.0);
        assert_eq!(ticks(436.0, 50.0).len(), 9);
        let labels: Vec<String> = log_ticks(1.0).into_iter().map(|t| log_label(t, 1.0)).collect();
        assert_eq!(labels, ["1", "2", "5", "10"]);
        let labels: Vec<String> = log_ticks(5.0).into_iter().map(|t| log_label(t, 5.0)).collect();
        assert_eq!(labels, ["1", "10", "100", "1000", "10000", "100000"]);
        let labels: Vec<String> = log_ticks(19.0).into_iter().map(|t| log_label(t, 19.0)).collect();
        assert_eq!(labels, ["10⁰", "10²", "10⁴", "10⁶", "10⁸", "10¹⁰", "10¹²", "10¹⁴", "10¹⁶", "10¹⁸"]);
    }

    #[test]
    fn superscripts() {
        assert_eq!(superscript(0), "⁰");
        assert_eq!(superscript(2087), "²⁰⁸⁷");
        assert_eq!(superscript(-3), "⁻³");
    }
}
