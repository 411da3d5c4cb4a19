//! `fibtree dist --svg`: the plot of a distribution c(n, .) over g, drawn with the `plotters` crate's
//! SVG backend, whose text is plain SVG `<text>` (no fonts needed to write it); and the axes with
//! chosen ticks that `bench --svg` draws too.

use std::fmt::Write as _;

use num_bigint::BigUint;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::prelude::*;

/// log10(x), `None` for 0, for any size of x (an f64 conversion of a count with thousands of digits
/// would overflow): the top 64 bits as an f64 plus the exponent of the rest. Relative error about
/// 2^-52. Time O(number of limbs).
fn log10(x: &BigUint) -> Option<f64> {
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
pub(super) fn nice_step(top: f64, most: f64) -> f64 {
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
pub(super) fn ticks(top: f64, step: f64) -> Vec<f64> {
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
pub(super) struct TickedAxis {
    /// The values at the two ends of the axis.
    pub(super) range: std::ops::Range<f64>,
    /// Where the tick marks and their labels go.
    pub(super) ticks: Vec<f64>,
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

/// A plotting failure (drawing into a `String` does not fail in practice).
pub(super) fn plot_error(e: impl std::fmt::Display) -> crate::error::Error {
    crate::error::Error::failed(format!("plotting: {e}"))
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
/// If plotters fails.
pub(super) fn dist_svg(n: u64, entries: &[(u64, BigUint)], modulus: Option<u64>) -> crate::error::Result<String> {
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
