//! The pictures: `fibtree draw` (an SVG of Fibonacci trees with the moves to a Grundy value in
//! red) and `fibtree dist --svg` (a plot of c(N, g) over g). Each SVG is parsed as XML; a tree
//! picture must have one `<circle>` per node, exactly c(K, g) of them red.

/// The fills of the picture's nodes: a move to g, any other non-root node, the root.
const MOVE_FILL: &str = "#d62728";
const OTHER_FILL: &str = "#d9d9d9";
const ROOT_FILL: &str = "#ffffff";

use crate::common::*;

/// |T(k)| = F(k+2) - 1.
fn size(k: u32) -> usize {
    let (mut a, mut b) = (0usize, 1usize);
    for _ in 0..k + 2 {
        (a, b) = (b, a + b);
    }
    a - 1
}

/// c(k, g) from the exact engine, as a usize.
fn c(k: u32, g: u64) -> usize {
    usize::try_from(fibtree::count(u64::from(k), g).unwrap()).unwrap()
}

/// What a tree picture shows.
#[derive(Debug)]
struct Picture {
    /// Every `<circle>`: (cx, cy, r, fill, stroke-width).
    circles: Vec<(f64, f64, f64, String, f64)>,
    /// The number of `<line>` elements.
    lines: usize,
    /// The text of every `<text>` element.
    texts: Vec<String>,
    /// The text of the document's `<title>`.
    title: String,
}

impl Picture {
    fn fills(&self, fill: &str) -> usize {
        self.circles.iter().filter(|c| c.3 == fill).count()
    }
}

/// Parses an SVG document (panicking unless it is well-formed XML with an `<svg>` root).
fn parse(svg: &str) -> Picture {
    let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("not well-formed XML: {e}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(root.tag_name().namespace(), Some("http://www.w3.org/2000/svg"));
    let number = |n: roxmltree::Node, name: &str| -> f64 {
        n.attribute(name).unwrap_or_else(|| panic!("a {} without {name}", n.tag_name().name())).parse().unwrap()
    };
    let mut picture = Picture { circles: Vec::new(), lines: 0, texts: Vec::new(), title: String::new() };
    for node in root.descendants().filter(|n| n.is_element()) {
        match node.tag_name().name() {
            "circle" => picture.circles.push((
                number(node, "cx"),
                number(node, "cy"),
                number(node, "r"),
                node.attribute("fill").expect("every circle has a fill").to_string(),
                number(node, "stroke-width"),
            )),
            "line" => picture.lines += 1,
            "text" => picture.texts.push(node.descendants().filter(|t| t.is_text()).filter_map(|t| t.text()).collect()),
            "title" if node.parent() == Some(root) => picture.title = node.text().unwrap_or("").to_string(),
            _ => {}
        }
    }
    assert!(svg.contains(r##"fill="#ffffff""##), "a white background");
    picture
}

/// Checks the picture of T(from)..T(to) with the moves to `g`, and returns it.
fn check_trees(svg: &str, trees: std::ops::RangeInclusive<u32>, g: u64) -> Picture {
    let picture = parse(svg);
    let nodes: usize = trees.clone().map(size).sum();
    let moves: usize = trees.clone().map(|k| c(k, g)).sum();
    let roots = trees.clone().filter(|&k| k >= 1).count();
    assert_eq!(svg.matches("<circle").count(), nodes, "{trees:?}: one <circle per node");
    assert_eq!(picture.circles.len(), nodes, "{trees:?}: one circle element per node");
    assert_eq!(picture.fills(MOVE_FILL), moves, "{trees:?}, g = {g}: red nodes");
    assert_eq!(picture.fills(ROOT_FILL), roots, "{trees:?}: one root per tree");
    assert_eq!(picture.fills(OTHER_FILL), nodes - moves - roots, "{trees:?}: every other node grey");
    let thick = picture.circles.iter().filter(|c| c.4 >= 3.0).count();
    assert_eq!(thick, roots, "{trees:?}: the roots, and only they, have a thick ring");
    assert_eq!(picture.lines, nodes - roots, "{trees:?}: one edge per non-root node");
    for k in trees {
        let caption = format!("T({k}): c({k}, {g}) = {}", c(k, g));
        assert!(picture.texts.contains(&caption), "no caption {caption:?} in {:?}", picture.texts);
    }
    // No two nodes overlap.
    for (i, a) in picture.circles.iter().enumerate() {
        for b in &picture.circles[..i] {
            let distance = ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt();
            assert!(distance >= a.2 + b.2, "overlapping nodes at ({}, {}) and ({}, {})", a.0, a.1, b.0, b.1);
        }
    }
    assert!(!picture.title.is_empty(), "a <title>");
    picture
}

#[test]
fn draw_each_tree_with_its_winning_moves() {
    for k in 1..=10u32 {
        let svg = success(&["draw", &k.to_string()]);
        check_trees(&svg, k..=k, 0);
        // The brute-force oracle agrees with the count in the caption.
        let oracle = fibtree_oracles::explicit_tree_counts(k).unwrap();
        assert_eq!(oracle.first().copied().unwrap_or(0) as usize, c(k, 0), "f({k})");
    }
    // f(1..7) and f(10) from the problem statements.
    let reds: Vec<usize> = [1, 2, 3, 4, 5, 6, 7, 10]
        .iter()
        .map(|k: &u32| parse(&success(&["draw", &k.to_string()])).fills(MOVE_FILL))
        .collect();
    assert_eq!(reds, [0, 1, 1, 1, 1, 3, 0, 17]);
}

#[test]
fn draw_other_grundy_values() {
    for (k, g) in [(7, 3), (8, 5), (10, 7), (10, 14), (9, 1000)] {
        let svg = success(&["draw", &k.to_string(), "--g", &g.to_string()]);
        let picture = check_trees(&svg, k..=k, g);
        let oracle = fibtree_oracles::explicit_tree_counts(k).unwrap();
        let expected = oracle.get(g as usize).copied().unwrap_or(0) as usize;
        assert_eq!(picture.fills(MOVE_FILL), expected, "c({k}, {g}) by the oracle");
        assert!(picture.title.contains(&format!("Grundy value {g}")), "{}", picture.title);
    }
}

#[test]
fn draw_trees_side_by_side() {
    let svg = success(&["draw", "1..6"]);
    let picture = check_trees(&svg, 1..=6, 0);
    assert_eq!(picture.circles.len(), 1 + 2 + 4 + 7 + 12 + 20);
    assert_eq!(picture.fills(MOVE_FILL), 7);
    // The trees side by side: each one's nodes left of the next one's.
    let roots: Vec<f64> = picture.circles.iter().filter(|c| c.3 == ROOT_FILL).map(|c| c.0).collect();
    assert!(roots.windows(2).all(|w| w[0] < w[1]), "roots left to right: {roots:?}");
    check_trees(&success(&["draw", "8..10", "--g", "7"]), 8..=10, 7);
    check_trees(&success(&["draw", "14"]), 14..=14, 0);
    // the picture docs/commands.md shows is the one this command makes
    let shown = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/trees-1-6.svg")).unwrap();
    assert!(shown == svg, "docs/trees-1-6.svg is not what `fibtree draw 1..6` makes: make it again with that command");
}

#[test]
fn draw_the_empty_tree() {
    let picture = check_trees(&success(&["draw", "0"]), 0..=0, 0);
    assert!(picture.circles.is_empty());
    check_trees(&success(&["draw", "0..3"]), 0..=3, 0);
}

#[test]
fn draw_to_a_file_atomically() {
    let dir = TempDir::new("draw");
    let file = dir.join("t6.svg");
    let out = success(&["draw", "6", "-o", &file]);
    assert!(out.is_empty(), "nothing on stdout with -o: {out:?}");
    assert_eq!(dir.names(), ["t6.svg"], "the file, and no temporary left behind");
    let svg = std::fs::read_to_string(&file).unwrap();
    assert_eq!(svg, success(&["draw", "6"]), "the same picture as on stdout");
    check_trees(&svg, 6..=6, 0);
}

/// Runs `fibtree dist args --svg FILE` in a fresh folder and returns the plot, checking that it
/// parses, is alone in the folder and has `title` among its texts.
fn dist_plot(args: &[&str], title: &str) -> String {
    let dir = TempDir::new("dist");
    let file = dir.join("plot.svg");
    let mut all = args.to_vec();
    all.extend(["--svg", &file]);
    let csv = success(&all);
    assert!(csv.starts_with("g,"), "the CSV still goes to stdout: {csv:.40}");
    assert_eq!(dir.names(), ["plot.svg"], "the file, and no temporary left behind");
    let svg = std::fs::read_to_string(&file).unwrap();
    assert!(svg.contains("<svg"), "an <svg element");
    let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("not well-formed XML: {e}"));
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let texts: Vec<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| {
            n.descendants().filter(|t| t.is_text()).filter_map(|t| t.text()).collect::<String>().trim().to_string()
        })
        .collect();
    assert!(texts.iter().any(|t| t.contains(title)), "no title {title:?} in {texts:?}");
    assert!(texts.iter().any(|t| t == "g (Grundy value left)"), "no x label in {texts:?}");
    assert!(texts.iter().any(|t| t.contains("log scale")), "no y label in {texts:?}");
    svg
}

#[test]
fn dist_plots_the_distribution() {
    let svg = dist_plot(&["dist", "300"], "c(300, g) over g");
    // One dot per g with a non-zero count; the largest counts (about 10^62) are labelled 10ᵏ.
    let entries = fibtree::distribution(300).unwrap();
    assert_eq!(svg.matches("<circle").count(), entries.len());
    assert!(svg.contains("10⁶⁰"), "a tick label 10⁶⁰");
    let svg = dist_plot(&["dist", "300", "--mod", "7"], "c(300, g) mod 7 over g");
    let zeros = entries.iter().filter(|(_, count)| (count % 7u32) == 0u32.into()).count();
    assert!(zeros > 0 && svg.contains(&format!("{zeros} zero residues not shown")));
    assert_eq!(svg.matches("<circle").count(), entries.len() - zeros);
    // T(1) has no moves: an empty plot, still well-formed.
    dist_plot(&["dist", "1"], "c(1, g) over g");
}
