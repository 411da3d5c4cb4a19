//! A small SVG writer: the few elements the plots and pictures draw (rectangles, lines, circles with
//! tooltips, crosses, text), with text escaped and coordinates to a tenth of a pixel. Written by
//! hand rather than with a plotting crate: the pictures need a `<title>` tooltip on each node, and
//! the plots need only these shapes.

use std::fmt::{self, Write as _};

/// A colour, written `#rrggbb`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Colour(pub(crate) u8, pub(crate) u8, pub(crate) u8);

impl Colour {
    pub(crate) const BLACK: Colour = Colour(0, 0, 0);
    pub(crate) const WHITE: Colour = Colour(0xff, 0xff, 0xff);
}

impl fmt::Display for Colour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
}

/// How a line is drawn: its colour, its width in pixels and, for a dashed line, the lengths of a
/// dash and of the gap after it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stroke {
    pub(crate) colour: Colour,
    pub(crate) width: f64,
    pub(crate) dash: Option<(f64, f64)>,
}

impl Stroke {
    /// A solid line.
    pub(crate) const fn solid(colour: Colour, width: f64) -> Stroke {
        Stroke { colour, width, dash: None }
    }

    /// A dashed line: dashes `dash` pixels long, `gap` pixels apart.
    pub(crate) const fn dashed(colour: Colour, width: f64, dash: f64, gap: f64) -> Stroke {
        Stroke { colour, width, dash: Some((dash, gap)) }
    }
}

impl fmt::Display for Stroke {
    /// The stroke's attributes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, r#"stroke="{}" stroke-width="{}""#, self.colour, self.width)?;
        match self.dash {
            Some((dash, gap)) => write!(f, r#" stroke-dasharray="{dash} {gap}""#),
            None => Ok(()),
        }
    }
}

/// How a shape is painted: its inside (or none) and its outline (or none).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Paint {
    pub(crate) fill: Option<Colour>,
    pub(crate) stroke: Option<Stroke>,
}

impl Paint {
    /// Filled, with no outline.
    pub(crate) const fn filled(colour: Colour) -> Paint {
        Paint { fill: Some(colour), stroke: None }
    }

    /// An outline alone.
    pub(crate) const fn outlined(stroke: Stroke) -> Paint {
        Paint { fill: None, stroke: Some(stroke) }
    }
}

impl fmt::Display for Paint {
    /// The paint's attributes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.fill {
            Some(colour) => write!(f, r#"fill="{colour}""#)?,
            None => write!(f, r#"fill="none""#)?,
        }
        match self.stroke {
            Some(stroke) => write!(f, " {stroke}"),
            None => write!(f, r#" stroke="none""#),
        }
    }
}

/// Where a text stands against its point: its start, middle or end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Anchor {
    Start,
    Middle,
    End,
}

/// How a text is written: its size in pixels, colour, weight and anchor.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Font {
    pub(crate) size: f64,
    pub(crate) colour: Colour,
    pub(crate) bold: bool,
    pub(crate) anchor: Anchor,
}

impl Font {
    /// Black, of normal weight, starting at its point.
    pub(crate) const fn new(size: f64) -> Font {
        Font { size, colour: Colour::BLACK, bold: false, anchor: Anchor::Start }
    }

    /// The same font standing at `anchor`.
    pub(crate) const fn anchored(self, anchor: Anchor) -> Font {
        Font { anchor, ..self }
    }

    /// The same font in `colour`.
    pub(crate) const fn coloured(self, colour: Colour) -> Font {
        Font { colour, ..self }
    }

    /// The same font in bold.
    pub(crate) const fn bold(self) -> Font {
        Font { bold: true, ..self }
    }

    /// A generous estimate of the width of `text` in this font (a sans-serif one), in pixels.
    pub(crate) fn width(&self, text: &str) -> f64 {
        text.chars().count() as f64 * self.size * 0.62
    }
}

impl fmt::Display for Font {
    /// The font's attributes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, r#"font-size="{}""#, self.size)?;
        if self.bold {
            write!(f, r#" font-weight="bold""#)?;
        }
        match self.anchor {
            Anchor::Start => {}
            Anchor::Middle => write!(f, r#" text-anchor="middle""#)?,
            Anchor::End => write!(f, r#" text-anchor="end""#)?,
        }
        write!(f, r#" fill="{}""#, self.colour)
    }
}

/// `text` with the characters XML gives a meaning to written as entities.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

/// A point in pixels, from the top-left corner.
pub(crate) type Point = (f64, f64);

/// An SVG document being written: [`Svg::new`], the elements in the order they are painted, then
/// [`Svg::finish`]. Writing into a `String` cannot fail, so no method returns an error.
pub(crate) struct Svg {
    out: String,
    /// The clip paths defined so far, for their ids.
    clips: usize,
}

impl Svg {
    /// A document `width` by `height` pixels with `title` as its `<title>`, on a white background.
    pub(crate) fn new(width: f64, height: f64, title: &str) -> Svg {
        let mut out = String::with_capacity(4096);
        let _ = writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
        let _ = writeln!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">"#
        );
        let _ = writeln!(out, "<title>{}</title>", escape(title));
        let mut svg = Svg { out, clips: 0 };
        svg.rect((0.0, 0.0), (width, height), Paint::filled(Colour::WHITE));
        svg
    }

    /// A rectangle from its top-left corner `at`, of `size` (width, height).
    pub(crate) fn rect(&mut self, (x, y): Point, (width, height): (f64, f64), paint: Paint) {
        let _ = writeln!(self.out, r#"<rect x="{x:.1}" y="{y:.1}" width="{width:.1}" height="{height:.1}" {paint}/>"#);
    }

    /// A straight line.
    pub(crate) fn line(&mut self, (x1, y1): Point, (x2, y2): Point, stroke: Stroke) {
        let _ = writeln!(self.out, r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" {stroke}/>"#);
    }

    /// A line through `points`, in order.
    pub(crate) fn polyline(&mut self, points: &[Point], stroke: Stroke) {
        let mut all = String::with_capacity(16 * points.len());
        for (x, y) in points {
            let _ = write!(all, "{x:.1},{y:.1} ");
        }
        let _ = writeln!(self.out, r#"<polyline points="{}" fill="none" {stroke}/>"#, all.trim_end());
    }

    /// A circle, with `tip` as its tooltip (its own `<title>`) where there is one.
    pub(crate) fn circle(&mut self, (x, y): Point, radius: f64, paint: Paint, tip: Option<&str>) {
        let _ = write!(self.out, r#"<circle cx="{x:.1}" cy="{y:.1}" r="{radius}" {paint}"#);
        let _ = match tip {
            Some(tip) => writeln!(self.out, "><title>{}</title></circle>", escape(tip)),
            None => writeln!(self.out, "/>"),
        };
    }

    /// A cross ×, its arms reaching `half` pixels out from `centre` along either axis.
    pub(crate) fn cross(&mut self, (x, y): Point, half: f64, stroke: Stroke) {
        let (left, right, top, bottom) = (x - half, x + half, y - half, y + half);
        let _ = writeln!(
            self.out,
            r#"<path d="M{left:.1},{top:.1} L{right:.1},{bottom:.1} M{left:.1},{bottom:.1} L{right:.1},{top:.1}" fill="none" {stroke}/>"#
        );
    }

    /// `text` with its baseline through `at`.
    pub(crate) fn text(&mut self, (x, y): Point, text: &str, font: Font) {
        let _ = writeln!(self.out, r#"<text x="{x:.1}" y="{y:.1}" {font}>{}</text>"#, escape(text));
    }

    /// `text` written upwards, turned a quarter against the clock about `at`.
    pub(crate) fn upward_text(&mut self, (x, y): Point, text: &str, font: Font) {
        let _ = writeln!(
            self.out,
            r#"<text x="{x:.1}" y="{y:.1}" transform="rotate(-90 {x:.1} {y:.1})" {font}>{}</text>"#,
            escape(text)
        );
    }

    /// Opens a group named `id`; [`Svg::end_group`] closes it.
    pub(crate) fn group(&mut self, id: &str) {
        let _ = writeln!(self.out, r#"<g id="{}">"#, escape(id));
    }

    /// Opens a group whose elements show only inside the rectangle at `at` of `size`;
    /// [`Svg::end_group`] closes it.
    pub(crate) fn clipped_group(&mut self, (x, y): Point, (width, height): (f64, f64)) {
        self.clips += 1;
        let id = self.clips;
        let _ = writeln!(
            self.out,
            r#"<clipPath id="clip{id}"><rect x="{x:.1}" y="{y:.1}" width="{width:.1}" height="{height:.1}"/></clipPath>"#
        );
        let _ = writeln!(self.out, r#"<g clip-path="url(#clip{id})">"#);
    }

    /// Closes the group opened last.
    pub(crate) fn end_group(&mut self) {
        let _ = writeln!(self.out, "</g>");
    }

    /// The whole document.
    pub(crate) fn finish(mut self) -> String {
        let _ = writeln!(self.out, "</svg>");
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_with_each_element() {
        let mut svg = Svg::new(200.0, 100.0, "a <test> & more");
        let red = Colour(0xd6, 0x27, 0x28);
        svg.circle((10.0, 20.0), 4.0, Paint::filled(red), Some("node \"L\""));
        svg.circle((30.0, 20.0), 4.0, Paint::outlined(Stroke::solid(red, 2.0)), None);
        svg.clipped_group((0.0, 0.0), (100.0, 50.0));
        svg.polyline(&[(0.0, 0.0), (10.5, 20.26)], Stroke::dashed(Colour::BLACK, 2.0, 6.0, 4.0));
        svg.end_group();
        svg.cross((50.0, 50.0), 5.0, Stroke::solid(red, 2.0));
        svg.upward_text((10.0, 50.0), "y", Font::new(14.0).anchored(Anchor::Middle).bold());
        let text = svg.finish();
        for want in [
            "<title>a &lt;test&gt; &amp; more</title>",
            r##"<rect x="0.0" y="0.0" width="200.0" height="100.0" fill="#ffffff" stroke="none"/>"##,
            r##"<circle cx="10.0" cy="20.0" r="4" fill="#d62728" stroke="none"><title>node &quot;L&quot;</title></circle>"##,
            r##"fill="none" stroke="#d62728" stroke-width="2"/>"##,
            r##"<polyline points="0.0,0.0 10.5,20.3" fill="none" stroke="#000000" stroke-width="2" stroke-dasharray="6 4"/>"##,
            r#"<g clip-path="url(#clip1)">"#,
            r#"transform="rotate(-90 10.0 50.0)" font-size="14" font-weight="bold" text-anchor="middle""#,
        ] {
            assert!(text.contains(want), "{want} in {text}");
        }
        assert!(text.ends_with("</svg>\n"));
    }
}
