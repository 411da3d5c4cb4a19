//! A chart drawn with [`Svg`]: a plotting rectangle, two axes with their grid, ticks, labels and
//! names, the map from values to pixels, and a legend in a frame.

use std::ops::Range;

use super::svg::{Anchor, Colour, Font, Paint, Point, Stroke, Svg};

/// A rectangle of the document, in pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Rect {
    pub(crate) left: f64,
    pub(crate) top: f64,
    pub(crate) width: f64,
    pub(crate) height: f64,
}

impl Rect {
    pub(crate) const fn new(left: f64, top: f64, width: f64, height: f64) -> Rect {
        Rect { left, top, width, height }
    }

    pub(crate) fn right(&self) -> f64 {
        self.left + self.width
    }

    pub(crate) fn bottom(&self) -> f64 {
        self.top + self.height
    }

    /// This rectangle with `left`, `top`, `right` and `bottom` pixels taken off its sides.
    pub(crate) fn inset(self, left: f64, top: f64, right: f64, bottom: f64) -> Rect {
        Rect::new(self.left + left, self.top + top, self.width - left - right, self.height - top - bottom)
    }

    /// Whether `point` lies inside, or within `margin` pixels of it.
    pub(crate) fn holds(&self, (x, y): Point, margin: f64) -> bool {
        x >= self.left - margin && x <= self.right() + margin && y >= self.top - margin && y <= self.bottom() + margin
    }

    /// The part above a line `height` pixels below the top, and the part below it.
    pub(crate) fn split_at_height(self, height: f64) -> (Rect, Rect) {
        let upper = Rect { height, ..self };
        (upper, Rect::new(self.left, self.top + height, self.width, self.height - height))
    }

    /// The part left of a line `width` pixels right of the left side, and the part right of it.
    pub(crate) fn split_at_width(self, width: f64) -> (Rect, Rect) {
        let left = Rect { width, ..self };
        (left, Rect::new(self.left + width, self.top, self.width - width, self.height))
    }
}

/// An axis: the values at its two ends, its ticks (a value and its label each) and its name.
pub(crate) struct Axis {
    pub(crate) range: Range<f64>,
    pub(crate) ticks: Vec<(f64, String)>,
    pub(crate) name: String,
}

impl Axis {
    /// The axis over `range` named `name`, ticks at `ticks` labelled by `label`.
    pub(crate) fn new(range: Range<f64>, ticks: Vec<f64>, label: impl Fn(f64) -> String, name: &str) -> Axis {
        let ticks = ticks.into_iter().map(|t| (t, label(t))).collect();
        Axis { range, ticks, name: name.to_string() }
    }

    /// The room its labels and name take beside a chart when it is the y axis, in pixels: give the
    /// largest of several to charts one above another, so that their plots line up.
    pub(crate) fn label_space(&self) -> f64 {
        let widest = self.ticks.iter().map(|(_, label)| LABELS.width(label)).fold(0.0, f64::max);
        TICK + 6.0 + widest + 12.0 + NAMES.size + 6.0
    }

    /// How far along the axis `value` lies: 0 at its start, 1 at its end.
    fn fraction(&self, value: f64) -> f64 {
        (value - self.range.start) / (self.range.end - self.range.start)
    }
}

/// The tick labels' font.
const LABELS: Font = Font::new(12.0);
/// The axes' names' font.
const NAMES: Font = Font::new(14.0);
/// The legend's font.
const LEGEND: Font = Font::new(12.0);
/// The grid: black at 12 % over white.
const GRID: Stroke = Stroke::solid(Colour(0xe0, 0xe0, 0xe0), 1.0);
/// The axes' lines and tick marks.
const AXIS: Stroke = Stroke::solid(Colour::BLACK, 1.0);
/// The length of a tick mark, in pixels.
const TICK: f64 = 5.0;
/// How far outside the plotting rectangle a mark may reach before it is cut off, in pixels: a dot
/// on an edge shows whole.
const BLEED: f64 = 6.0;

/// The margin right of a chart's plot, in pixels.
const RIGHT: f64 = 24.0;

/// A chart: two axes around a plotting rectangle.
pub(crate) struct Chart {
    plot: Rect,
    /// The room left of the plot for the y axis's labels and name, in pixels.
    left: f64,
    x: Axis,
    y: Axis,
}

impl Chart {
    /// A chart filling `panel`: the plotting rectangle inside it, `left` pixels from its left side
    /// (room for the y axis's labels and name: [`Axis::label_space`] or more), room below it for
    /// the x axis's, and a small margin on the right.
    pub(crate) fn new(panel: Rect, x: Axis, y: Axis, left: f64) -> Chart {
        let bottom = TICK + 6.0 + LABELS.size + 12.0 + NAMES.size + 6.0;
        Chart { plot: panel.inset(left, 10.0, RIGHT, bottom), left, x, y }
    }

    /// The plotting rectangle.
    pub(crate) fn plot(&self) -> Rect {
        self.plot
    }

    /// The values at the two ends of the x axis.
    pub(crate) fn x_range(&self) -> Range<f64> {
        self.x.range.clone()
    }

    /// The pixel where the value `(x, y)` is drawn.
    pub(crate) fn at(&self, (x, y): (f64, f64)) -> Point {
        let p = self.plot;
        (p.left + p.width * self.x.fraction(x), p.bottom() - p.height * self.y.fraction(y))
    }

    /// The grid at the ticks, the axes on the left and at the bottom, their tick marks, labels and
    /// names.
    pub(crate) fn draw_axes(&self, svg: &mut Svg) {
        let p = self.plot;
        for (t, _) in &self.x.ticks {
            let (x, _) = self.at((*t, self.y.range.start));
            svg.line((x, p.top), (x, p.bottom()), GRID);
        }
        for (t, _) in &self.y.ticks {
            let (_, y) = self.at((self.x.range.start, *t));
            svg.line((p.left, y), (p.right(), y), GRID);
        }
        svg.line((p.left, p.top), (p.left, p.bottom()), AXIS);
        svg.line((p.left, p.bottom()), (p.right(), p.bottom()), AXIS);
        let below = p.bottom() + TICK + 4.0 + LABELS.size;
        for (t, label) in &self.x.ticks {
            let (x, _) = self.at((*t, self.y.range.start));
            svg.line((x, p.bottom()), (x, p.bottom() + TICK), AXIS);
            svg.text((x, below), label, LABELS.anchored(Anchor::Middle));
        }
        for (t, label) in &self.y.ticks {
            let (_, y) = self.at((self.x.range.start, *t));
            svg.line((p.left - TICK, y), (p.left, y), AXIS);
            svg.text((p.left - TICK - 4.0, y + LABELS.size * 0.35), label, LABELS.anchored(Anchor::End));
        }
        let x_name = (p.left + p.width / 2.0, below + 12.0 + NAMES.size);
        svg.text(x_name, &self.x.name, NAMES.anchored(Anchor::Middle));
        let y_name = (p.left - self.left + NAMES.size, p.top + p.height / 2.0);
        svg.upward_text(y_name, &self.y.name, NAMES.anchored(Anchor::Middle));
    }

    /// Draws with `draw` what shows of it inside the plotting rectangle (and [`BLEED`] pixels
    /// around it).
    pub(crate) fn draw_inside(&self, svg: &mut Svg, draw: impl FnOnce(&mut Svg, &Chart)) {
        let p = self.plot;
        svg.clipped_group((p.left - BLEED, p.top - BLEED), (p.width + 2.0 * BLEED, p.height + 2.0 * BLEED));
        draw(svg, self);
        svg.end_group();
    }
}

/// How a legend's entry is marked: a short line, a dot, a cross.
pub(crate) enum Mark {
    Line(Stroke),
    Dot(Paint),
    Cross(Stroke),
}

/// A corner of the plotting rectangle, where a legend may go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Corner {
    UpperLeft,
    UpperRight,
    LowerRight,
    LowerLeft,
}

/// A legend: a mark and a text an entry, one below another, in a frame.
pub(crate) struct Legend {
    pub(crate) entries: Vec<(Mark, String)>,
}

/// The height of a legend's entry, in pixels.
const ROW: f64 = 20.0;
/// The legend's frame: black at 30 % over white.
const FRAME: Stroke = Stroke::solid(Colour(0xb3, 0xb3, 0xb3), 1.0);

impl Legend {
    /// Its width and height, in pixels.
    pub(crate) fn size(&self) -> (f64, f64) {
        let widest = self.entries.iter().map(|(_, text)| LEGEND.width(text)).fold(0.0, f64::max);
        (12.0 + 24.0 + 10.0 + widest + 8.0, ROW * self.entries.len() as f64 + 10.0)
    }

    /// Draws it in the corner of `chart`'s plotting rectangle where it covers the fewest of the
    /// `points` (pixels) drawn there: `prefer` where no other covers fewer.
    pub(crate) fn draw_in(&self, svg: &mut Svg, chart: &Chart, prefer: Corner, points: &[Point]) {
        let corners = [prefer, Corner::UpperLeft, Corner::UpperRight, Corner::LowerRight, Corner::LowerLeft];
        let frames = corners.map(|corner| self.frame_in(chart.plot(), corner));
        let covered = |frame: &Rect| points.iter().filter(|p| frame.holds(**p, 6.0)).count();
        let best = frames.iter().min_by_key(|frame| covered(frame)).copied().unwrap_or(frames[0]);
        self.draw(svg, best);
    }

    /// Its frame in `corner` of the plotting rectangle `plot`.
    fn frame_in(&self, plot: Rect, corner: Corner) -> Rect {
        let (width, height) = self.size();
        let (left, right) = (plot.left + 8.0, plot.right() - width - 8.0);
        let (top, bottom) = (plot.top + 8.0, plot.bottom() - height - 8.0);
        let (x, y) = match corner {
            Corner::UpperLeft => (left, top),
            Corner::UpperRight => (right, top),
            Corner::LowerRight => (right, bottom),
            Corner::LowerLeft => (left, bottom),
        };
        Rect::new(x, y, width, height)
    }

    /// Draws it in `frame` (its height its own).
    pub(crate) fn draw(&self, svg: &mut Svg, frame: Rect) {
        let height = self.size().1;
        svg.rect(
            (frame.left, frame.top),
            (frame.width, height),
            Paint { fill: Some(Colour::WHITE), stroke: Some(FRAME) },
        );
        for (i, (mark, text)) in self.entries.iter().enumerate() {
            let y = frame.top + 5.0 + ROW * (i as f64 + 0.5);
            let (x, middle) = (frame.left + 12.0, frame.left + 24.0);
            match *mark {
                Mark::Line(stroke) => svg.line((x, y), (x + 24.0, y), stroke),
                Mark::Dot(paint) => svg.circle((middle, y), 4.0, paint, None),
                Mark::Cross(stroke) => svg.cross((middle, y), 4.0, stroke),
            }
            svg.text((x + 34.0, y + LEGEND.size * 0.35), text, LEGEND);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart() -> Chart {
        let x = Axis::new(0.0..10.0, vec![0.0, 5.0, 10.0], |v| format!("{v:.0}"), "x");
        let y = Axis::new(-1.0..1.0, vec![-1.0, 0.0, 1.0], |v| format!("{v:.1}"), "y");
        let left = y.label_space();
        Chart::new(Rect::new(0.0, 0.0, 400.0, 300.0), x, y, left)
    }

    #[test]
    fn values_to_pixels() {
        let chart = chart();
        let p = chart.plot();
        assert_eq!(chart.at((0.0, -1.0)), (p.left, p.bottom()));
        assert_eq!(chart.at((10.0, 1.0)), (p.left + p.width, p.top));
        let (x, y) = chart.at((5.0, 0.0));
        assert!((x - (p.left + p.width / 2.0)).abs() < 1e-9 && (y - (p.top + p.height / 2.0)).abs() < 1e-9);
        assert!(p.left > 0.0 && p.right() == 376.0 && p.bottom() < 300.0, "{p:?}");
    }

    #[test]
    fn axes_with_their_labels_and_a_legend() {
        let chart = chart();
        let mut svg = Svg::new(400.0, 300.0, "t");
        chart.draw_axes(&mut svg);
        let legend = Legend { entries: vec![(Mark::Dot(Paint::filled(Colour::BLACK)), "a & b".to_string())] };
        let p = chart.plot();
        // the lower right corner preferred, but the lower left one is clear of the point
        let point = (p.right() - 20.0, p.bottom() - 20.0);
        assert!(legend.frame_in(p, Corner::LowerRight).holds(point, 0.0));
        legend.draw_in(&mut svg, &chart, Corner::LowerRight, &[point]);
        let text = svg.finish();
        let left = legend.frame_in(p, Corner::LowerLeft).left;
        assert!(text.contains(&format!(r#"<rect x="{left:.1}""#)), "the legend in the lower left corner: {text}");
        for label in [">0<", ">5<", ">10<", ">-1.0<", ">1.0<", ">x<", ">y<", ">a &amp; b<"] {
            assert!(text.contains(label), "{label} in {text}");
        }
        assert_eq!(text.matches("<circle").count(), 1);
        // a grid line and a tick mark at each tick, and the two axes
        assert_eq!(text.matches("<line").count(), 2 * 6 + 2);
    }

    #[test]
    fn rectangles_split_and_inset() {
        let r = Rect::new(10.0, 20.0, 100.0, 50.0);
        assert_eq!(r.split_at_height(20.0), (Rect::new(10.0, 20.0, 100.0, 20.0), Rect::new(10.0, 40.0, 100.0, 30.0)));
        assert_eq!(r.split_at_width(60.0).1, Rect::new(70.0, 20.0, 40.0, 50.0));
        assert_eq!(r.inset(1.0, 2.0, 3.0, 4.0), Rect::new(11.0, 22.0, 96.0, 44.0));
    }
}
