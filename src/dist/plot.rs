//! `dist --svg`: the plot of a distribution c(n, .) over g, a dot for each g at the height of its
//! count on a log scale, drawn with [`crate::plot`].

use std::fmt::Write as _;

use num_bigint::BigUint;

use crate::plot::{Anchor, Axis, Chart, Colour, Font, Paint, Rect, Svg, log_label, log_ticks, nice_step, ticks};

/// The dots' colour.
const RED: Colour = Colour(0xd6, 0x27, 0x28);

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

/// The plot's title and the name of its y axis.
fn texts(n: u64, entries: usize, zeros: usize, modulus: Option<u64>) -> (String, String) {
    let mut title = match modulus {
        None => format!("c({n}, g) over g: the moves of T({n}) by the Grundy value they leave"),
        Some(m) => format!("c({n}, g) mod {m} over g: the moves of T({n}) by the value they leave, mod {m}"),
    };
    if entries == 0 {
        let _ = write!(title, " (T({n}) has no moves)");
    } else if zeros > 0 {
        let _ = write!(title, " ({zeros} zero residues not shown)");
    }
    let y_name = match modulus {
        None => format!("c({n}, g), log scale"),
        Some(m) => format!("c({n}, g) mod {m}, log scale"),
    };
    (title, y_name)
}

/// The plot of the distribution `entries` of c(n, .) — `(g, count)` pairs, ascending g, or residues
/// modulo `modulus` — as an SVG document: one dot per g at height log10 of the count (a log scale,
/// ticks 1, 2, 5, 10, ... or 10ᵏ), with a title and named axes. Zero counts (residues) cannot be
/// shown on a log scale and are left out; the title says how many.
///
/// Cost: time O(total limbs of the counts) for the logarithms, then about 80 bytes of output per
/// entry (about 1 MB for the 13,084 entries at n = 2000).
pub(super) fn dist_svg(n: u64, entries: &[(u64, BigUint)], modulus: Option<u64>) -> String {
    let points: Vec<(f64, f64)> = entries.iter().filter_map(|(g, c)| log10(c).map(|y| (*g as f64, y))).collect();
    let (title, y_name) = texts(n, entries.len(), entries.len() - points.len(), modulus);
    let x_top = entries.last().map_or(1, |e| e.0.max(1)) as f64;
    // Headroom above the largest count, so that its dots stay clear of the frame.
    let y_top = (points.iter().map(|p| p.1).fold(0.0, f64::max) * 1.04).ceil().max(1.0);
    let (width, height) = (1100.0, 640.0);
    let mut svg = Svg::new(width, height, &title);
    svg.text((width / 2.0, 30.0), &title, Font::new(16.0).anchored(Anchor::Middle));
    // A little room left of g = 0 and below a count of 1, so no dot sits on an axis.
    let x_ticks = ticks(0.0..x_top, nice_step(x_top, 10.0).max(1.0));
    let x = Axis::new(-0.01 * x_top..x_top * 1.02, x_ticks, |v| format!("{v:.0}"), "g (Grundy value left)");
    let y = Axis::new(-0.015 * y_top..y_top, log_ticks(y_top), |t| log_label(t, y_top), &y_name);
    let left = y.label_space();
    let chart = Chart::new(Rect::new(12.0, 46.0, width - 12.0, height - 58.0), x, y, left);
    chart.draw_axes(&mut svg);
    // Dots as large as the crowd allows: a few dozen points stay visible, thousands stay apart.
    let radius = match points.len() {
        0..=200 => 4.0,
        201..=2000 => 2.5,
        _ => 1.6,
    };
    chart.draw_inside(&mut svg, |svg, chart| {
        for &p in &points {
            svg.circle(chart.at(p), radius, Paint::filled(RED), None);
        }
    });
    svg.finish()
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
    fn a_dot_for_each_count_not_zero() {
        let entries: Vec<(u64, BigUint)> = (0..30u64).map(|g| (g, BigUint::from(g % 3))).collect();
        let svg = dist_svg(7, &entries, Some(3));
        assert_eq!(svg.matches("<circle").count(), 20);
        assert!(svg.contains("(10 zero residues not shown)"), "{svg}");
        assert!(svg.contains(">c(7, g) mod 3, log scale<"), "{svg}");
        assert!(dist_svg(1, &[], None).contains("(T(1) has no moves)"));
    }
}
