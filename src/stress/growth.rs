//! How a program's time grows with n: the exponent k of time ~ n^k, from a least-squares fit of
//! log(CPU time) against log(n) over the runs whose time can be measured (at least
//! [`MEASURABLE`] of CPU: below it a run's time is mostly its start, a shell's and the program's),
//! said only where there are enough of them ([`FIT_RUNS`]) over n that differ enough (the largest
//! at least twice the smallest), and where the fit explains at least half of how the times vary
//! ([`TREND_R_SQUARED`]).

use serde::Serialize;

/// The least CPU time, in seconds, of a run that the fit takes.
pub(super) const MEASURABLE: f64 = 0.02;

/// The fewest runs the fit takes.
pub(super) const FIT_RUNS: usize = 4;

/// The least R^2 at which the fit's exponent is said: below it the line explains less than half of
/// how log(time) varies, the rest being noise (a shell's start, a busy machine), and an exponent
/// such as n^-0.07 would mean nothing.
pub(super) const TREND_R_SQUARED: f64 = 0.5;

/// The fit, or why there is none (fields in alphabetical order, as the JSON lists them).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(super) struct Growth {
    /// k in time ~ n^k, to two decimals; `None` where not fitted, or fitted with no trend.
    pub(super) exponent: Option<f64>,
    /// What it says, in words.
    pub(super) note: String,
    /// The fraction of the variance of log(time) the fit explains (1: every run on the line).
    pub(super) r_squared: Option<f64>,
    /// The runs it takes (of at least [`MEASURABLE`] CPU, n >= 1).
    pub(super) runs: usize,
}

/// The fit over `points` `(n, CPU seconds)`; those with n = 0 or under [`MEASURABLE`] are left out.
/// Cost O(points).
pub(super) fn fit(points: &[(u64, f64)]) -> Growth {
    let taken: Vec<(f64, f64)> =
        points.iter().filter(|&&(n, t)| n >= 1 && t >= MEASURABLE).map(|&(n, t)| ((n as f64).ln(), t.ln())).collect();
    let runs = taken.len();
    let taken_runs = format!("{} of at least {MEASURABLE} s of CPU", fibtree_util::counted(runs as u64, "run"));
    if runs < FIT_RUNS {
        let note = format!("not fitted: {taken_runs}, {FIT_RUNS} needed");
        return Growth { exponent: None, note, r_squared: None, runs };
    }
    let (lo, hi) = taken.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| (lo.min(p.0), hi.max(p.0)));
    if hi - lo < 2f64.ln() {
        let note = format!("not fitted: the {taken_runs} are for n within a factor 2");
        return Growth { exponent: None, note, r_squared: None, runs };
    }
    let count = runs as f64;
    let (mx, my) = (taken.iter().map(|p| p.0).sum::<f64>() / count, taken.iter().map(|p| p.1).sum::<f64>() / count);
    let sxx: f64 = taken.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = taken.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let syy: f64 = taken.iter().map(|p| (p.1 - my).powi(2)).sum();
    let slope = sxy / sxx;
    let residual: f64 = taken.iter().map(|p| (p.1 - my - slope * (p.0 - mx)).powi(2)).sum();
    let r_squared = if syy > 0.0 { (1.0 - residual / syy).clamp(0.0, 1.0) } else { 1.0 };
    let (exponent, r_squared) = ((slope * 100.0).round() / 100.0, (r_squared * 1000.0).round() / 1000.0);
    if r_squared < TREND_R_SQUARED {
        let note = format!(
            "no trend: a fit of log time on log n over {taken_runs} explains {:.0} % of how the times vary (R^2 \
             {r_squared:.3}, below {TREND_R_SQUARED}): the rest is noise",
            r_squared * 100.0
        );
        return Growth { exponent: None, note, r_squared: Some(r_squared), runs };
    }
    let note = format!(
        "CPU time grows as n^{exponent:.2} (least-squares fit of log time on log n over {taken_runs}, R^2 {r_squared:.3})"
    );
    Growth { exponent: Some(exponent), note, r_squared: Some(r_squared), runs }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_power_of_n_is_found() {
        // t = 1e-6 n^2 for n from 200 to 2000, and runs too fast to count below
        let points: Vec<(u64, f64)> = (1..=2000).step_by(50).map(|n| (n, 1e-6 * (n as f64).powi(2))).collect();
        let growth = fit(&points);
        assert_eq!((growth.exponent, growth.r_squared), (Some(2.0), Some(1.0)), "{growth:?}");
        assert_eq!(growth.runs, points.iter().filter(|p| p.1 >= MEASURABLE).count());
        assert!(growth.note.starts_with("CPU time grows as n^2.00 (") && growth.note.contains("R^2 1.000"));
        // noise of +-10 %, seeded: the exponent within 0.1
        let mut random = fibtree_util::SplitMix64(0x5eed);
        let noisy: Vec<(u64, f64)> = (100..=3000)
            .step_by(100)
            .map(|n| (n, 1e-8 * (n as f64).powf(2.5) * (0.9 + 0.2 * random.below(1000) as f64 / 1000.0)))
            .collect();
        let exponent = fit(&noisy).exponent.unwrap();
        assert!((exponent - 2.5).abs() < 0.1, "{exponent}");
        // a constant time: exponent 0
        let flat: Vec<(u64, f64)> = (1..=10).map(|n| (n * 10, 0.5)).collect();
        assert_eq!(fit(&flat).exponent, Some(0.0));
    }

    #[test]
    fn no_exponent_where_the_fit_explains_little() {
        // times that do not grow with n: noise of a factor 2 around 0.1 s, seeded
        let mut random = fibtree_util::SplitMix64(0x7e57);
        let noise: Vec<(u64, f64)> =
            (1..=40).map(|n| (n * 25, 0.1 * (1.0 + random.below(1000) as f64 / 1000.0))).collect();
        let growth = fit(&noise);
        let r_squared = growth.r_squared.unwrap();
        assert!(r_squared < TREND_R_SQUARED && growth.exponent.is_none(), "{growth:?}");
        assert!(
            growth.note.starts_with("no trend: a fit of log time on log n over 40 runs") && !growth.note.contains("n^")
        );
    }

    #[test]
    fn nothing_said_where_too_few_or_too_fast() {
        let fast: Vec<(u64, f64)> = (1..=100).map(|n| (n, 0.001)).collect();
        let growth = fit(&fast);
        assert_eq!((growth.exponent, growth.runs), (None, 0));
        assert_eq!(growth.note, "not fitted: 0 runs of at least 0.02 s of CPU, 4 needed");
        let few = [(10, 0.1), (20, 0.2), (40, 0.4)];
        assert_eq!(fit(&few).exponent, None);
        let narrow = [(100, 0.1), (110, 0.2), (120, 0.4), (150, 0.5)];
        assert!(fit(&narrow).note.contains("within a factor 2"));
        // n = 0 has no logarithm
        assert_eq!(fit(&[(0, 1.0), (1, 1.0), (2, 1.0), (4, 1.0)]).runs, 3);
    }
}
