//! Where an axis's ticks go and how they are labelled: steps of 1, 2 or 5 times a power of ten,
//! and on a log scale the powers of ten (or 1, 2, 5, 10, ... on a short one), written 10ᵏ.

use std::ops::Range;

/// The smallest step of the form 1, 2 or 5 times a power of ten that cuts a span of `span` into at
/// most `most` steps (1 for a span that is not positive and finite).
pub(crate) fn nice_step(span: f64, most: f64) -> f64 {
    if !(span > 0.0 && span.is_finite() && most > 0.0) {
        return 1.0;
    }
    let mut power = 10f64.powf((span / most).log10().floor());
    loop {
        for m in [1.0, 2.0, 5.0] {
            if span / (m * power) <= most * (1.0 + 1e-9) {
                return m * power;
            }
        }
        power *= 10.0;
    }
}

/// The multiples of `step` within `range`, ascending.
pub(crate) fn ticks(range: Range<f64>, step: f64) -> Vec<f64> {
    let first = (range.start / step - 1e-9).ceil() as i64;
    (first..).map(|i| i as f64 * step).take_while(|&t| t <= range.end + 1e-9 * step).collect()
}

/// The ticks of a log axis, as log10 values from 0 to `top` (a whole number): 1, 2, 5, 10, 20, ...
/// up to 1000, otherwise whole powers of ten, at most about 10 of them.
pub(crate) fn log_ticks(top: f64) -> Vec<f64> {
    if top <= 3.0 {
        ticks(0.0..top, 1.0)
            .into_iter()
            .flat_map(|p| [p, p + 2f64.log10(), p + 5f64.log10()])
            .filter(|&t| t <= top + 1e-9)
            .collect()
    } else {
        ticks(0.0..top, nice_step(top, 10.0).max(1.0))
    }
}

/// The label of a log axis at log10 value `t` on an axis up to log10 value `top`: the number itself
/// when the axis ends at most at a million, otherwise 10ᵏ.
pub(crate) fn log_label(t: f64, top: f64) -> String {
    if top <= 6.0 { format!("{:.0}", 10f64.powf(t)) } else { power_of_ten(t.round() as i64) }
}

/// 10ᵏ as a tick's label: written out from 0.001 to 1000 (`0.01`, `100`), otherwise `10ᵏ`.
pub(crate) fn decade_label(k: i64) -> String {
    match k {
        -3..=-1 => format!("{:.*}", k.unsigned_abs() as usize, 10f64.powi(k as i32)),
        0..=3 => format!("{}", 10u32.pow(k as u32)),
        _ => power_of_ten(k),
    }
}

/// `10ᵏ`, the exponent in superscript digits.
fn power_of_ten(k: i64) -> String {
    format!("10{}", superscript(k))
}

/// The digits of `n` as Unicode superscripts.
fn superscript(n: i64) -> String {
    const DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let sign = if n < 0 { "⁻" } else { "" };
    let digits: String = n.unsigned_abs().to_string().bytes().map(|b| DIGITS[usize::from(b - b'0')]).collect();
    format!("{sign}{digits}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_and_ticks() {
        assert_eq!(nice_step(22_526.0, 10.0), 5000.0);
        assert_eq!(nice_step(3.0, 10.0), 0.5);
        assert_eq!(nice_step(436.0, 10.0), 50.0);
        assert_eq!(nice_step(10.0, 10.0), 1.0);
        assert_eq!(nice_step(1.1, 8.0), 0.2);
        assert_eq!(nice_step(0.0, 10.0), 1.0);
        assert_eq!(nice_step(f64::INFINITY, 10.0), 1.0);
        assert_eq!(ticks(0.0..436.0, 50.0).len(), 9);
        assert_eq!(ticks(0.76..8.24, 1.0), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
        assert_eq!(ticks(-0.5..1.0, 0.5), [-0.5, 0.0, 0.5, 1.0]);
    }

    #[test]
    fn log_axis_labels() {
        let labels: Vec<String> = log_ticks(1.0).into_iter().map(|t| log_label(t, 1.0)).collect();
        assert_eq!(labels, ["1", "2", "5", "10"]);
        let labels: Vec<String> = log_ticks(5.0).into_iter().map(|t| log_label(t, 5.0)).collect();
        assert_eq!(labels, ["1", "10", "100", "1000", "10000", "100000"]);
        let labels: Vec<String> = log_ticks(19.0).into_iter().map(|t| log_label(t, 19.0)).collect();
        assert_eq!(labels, ["10⁰", "10²", "10⁴", "10⁶", "10⁸", "10¹⁰", "10¹²", "10¹⁴", "10¹⁶", "10¹⁸"]);
        let labels: Vec<String> = [-6, -3, -1, 0, 2, 4].into_iter().map(decade_label).collect();
        assert_eq!(labels, ["10⁻⁶", "0.001", "0.1", "1", "100", "10⁴"]);
    }

    #[test]
    fn superscripts() {
        assert_eq!(superscript(0), "⁰");
        assert_eq!(superscript(2087), "²⁰⁸⁷");
        assert_eq!(superscript(-3), "⁻³");
    }
}
