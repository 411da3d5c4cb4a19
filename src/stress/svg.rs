//! `stress --svg`: each run's time and peak memory against n, drawn with the `plotters` crate's SVG
//! backend (as `dist --svg` is, [`crate::plot`]): above, the program's CPU time and wall time
//! and fibtree's own time for the n it timed, on a log scale, with the time limit; below, the
//! program's peak resident memory (or, where it is not told apart from the copy of fibtree's memory
//! the run began as, the bound `wait4` gives), with the memory limit.

use plotters::prelude::*;

use super::library::OwnTimes;
use super::verdict::{Judged, Limits, Verdict};
use crate::plot::plot_error;

/// Where a chart is drawn: a part of the SVG document.
type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// The plot's colours: the program's points, its wall time, fibtree's own time, the limits' lines.
const PROGRAM: RGBColor = RGBColor(0xd6, 0x27, 0x28);
const WALL: RGBColor = RGBColor(0x99, 0x99, 0x99);
const FIBTREE: RGBColor = RGBColor(0x1f, 0x77, 0xb4);
const LIMIT: RGBColor = RGBColor(0x55, 0x55, 0x55);

/// The least time drawn, in seconds (the log scale has no 0): a microsecond.
const FLOOR: f64 = 1e-6;

/// The range of `values` on a log scale: from the power of ten at or below the least to the one at
/// or above the largest (at least one decade).
fn decades(values: impl Iterator<Item = f64>) -> std::ops::Range<f64> {
    let (lo, hi) = values.fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let (lo, hi) = if lo > hi { (FLOOR, 1.0) } else { (lo.max(FLOOR), hi.max(FLOOR)) };
    let (lo, hi) = (10f64.powf(lo.log10().floor()), 10f64.powf(hi.log10().ceil()));
    lo..if hi > lo { hi } else { lo * 10.0 }
}

/// The plot of `runs` (ascending n) of `command`, with fibtree's `own` times and the `limits`, as
/// an SVG document. Runs that failed are drawn hollow.
///
/// Cost: about 200 bytes of output per run.
///
/// # Errors
/// If plotters fails.
pub(super) fn stress_svg(
    command: &str,
    runs: &[Judged],
    own: Option<&OwnTimes>,
    limits: &Limits,
) -> crate::error::Result<String> {
    let (first, last) = (runs.first().map_or(0, |j| j.n), runs.last().map_or(1, |j| j.n));
    let pad = ((last - first) as f64 * 0.03).max(1.0);
    let x_range = first as f64 - pad..last as f64 + pad;
    let own_times: Vec<(u64, f64)> = own.map_or(Vec::new(), |o| o.times.iter().map(|t| (t.n, t.seconds)).collect());
    let times = runs
        .iter()
        .flat_map(|j| j.cpu_seconds.into_iter().chain([j.seconds]))
        .chain(own_times.iter().map(|t| t.1))
        .chain(limits.time_seconds);
    let y_time = decades(times);
    let top_memory = runs.iter().filter_map(|j| j.peak_memory_at_most_bytes).chain(limits.memory_bytes).map(mib);
    let y_memory = 0.0..top_memory.fold(1.0, f64::max) * 1.1;
    let shown: String = command.chars().take(80).collect();
    let cut = if shown.len() < command.len() { "..." } else { "" };
    let title = format!("time and peak memory against n: {shown}{cut}");

    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (1100, 820)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let (head, body) = root.split_vertically(46);
        head.titled(&title, ("sans-serif", 18)).map_err(plot_error)?;
        let (upper, lower) = body.split_vertically(440);
        time_chart(&upper, runs, &own_times, limits, x_range.clone(), y_time)?;
        memory_chart(&lower, runs, limits, x_range, y_memory)?;
        root.present().map_err(plot_error)?;
    }
    Ok(out)
}

/// Bytes in MiB.
fn mib(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1 << 20)
}

/// A run's point: filled where the run was OK, hollow otherwise.
fn marker(j: &Judged, p: (f64, f64), colour: RGBColor) -> Circle<(f64, f64), i32> {
    Circle::new(p, 4, if j.verdict == Verdict::Ok { colour.filled() } else { colour.stroke_width(2) })
}

/// The upper chart: the program's CPU and wall times and fibtree's `own_times` against n, on a log
/// scale of `y_time`, with the time limit.
fn time_chart(
    upper: &Area,
    runs: &[Judged],
    own_times: &[(u64, f64)],
    limits: &Limits,
    x_range: std::ops::Range<f64>,
    y_time: std::ops::Range<f64>,
) -> crate::error::Result<()> {
    let mut chart = ChartBuilder::on(upper)
        .margin_left(12)
        .margin_right(30)
        .x_label_area_size(40)
        .y_label_area_size(88)
        .build_cartesian_2d(x_range.clone(), y_time.log_scale())
        .map_err(plot_error)?;
    chart
        .configure_mesh()
        .x_desc("n")
        .y_desc("seconds, log scale")
        .axis_desc_style(("sans-serif", 16))
        .label_style(("sans-serif", 14))
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v}"))
        .bold_line_style(BLACK.mix(0.12))
        .light_line_style(TRANSPARENT)
        .draw()
        .map_err(plot_error)?;
    let at = |j: &Judged, t: f64| (j.n as f64, t.max(FLOOR));
    chart
        .draw_series(runs.iter().map(|j| marker(j, at(j, j.seconds), WALL)))
        .map_err(plot_error)?
        .label("the program's wall time")
        .legend(move |(x, y)| Circle::new((x + 10, y), 4, WALL.filled()));
    let cpu: Vec<&Judged> = runs.iter().filter(|j| j.cpu_seconds.is_some()).collect();
    chart
        .draw_series(cpu.iter().map(|j| marker(j, at(j, j.cpu_seconds.unwrap_or_default()), PROGRAM)))
        .map_err(plot_error)?
        .label("the program's CPU time (hollow: not OK)")
        .legend(move |(x, y)| Circle::new((x + 10, y), 4, PROGRAM.filled()));
    if !own_times.is_empty() {
        let points: Vec<(f64, f64)> = own_times.iter().map(|&(n, t)| (n as f64, t.max(FLOOR))).collect();
        chart
            .draw_series(std::iter::once(PathElement::new(points.clone(), FIBTREE.stroke_width(2))))
            .map_err(plot_error)?;
        chart
            .draw_series(points.iter().map(|&p| Cross::new(p, 5, FIBTREE.stroke_width(2))))
            .map_err(plot_error)?
            .label("fibtree's own time")
            .legend(move |(x, y)| Cross::new((x + 10, y), 5, FIBTREE.stroke_width(2)));
    }
    if let Some(t) = limits.time_seconds {
        let line = vec![(x_range.start, t), (x_range.end, t)];
        chart
            .draw_series(std::iter::once(PathElement::new(line, LIMIT.stroke_width(1))))
            .map_err(plot_error)?
            .label(format!("time limit, {t} s of CPU"))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], LIMIT.stroke_width(1)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .label_font(("sans-serif", 13))
        .draw()
        .map_err(plot_error)?;

    Ok(())
}

/// The lower chart: the program's peak memory (or its bound) against n, with the memory limit.
fn memory_chart(
    lower: &Area,
    runs: &[Judged],
    limits: &Limits,
    x_range: std::ops::Range<f64>,
    y_memory: std::ops::Range<f64>,
) -> crate::error::Result<()> {
    let mut chart = ChartBuilder::on(lower)
        .margin_left(12)
        .margin_right(30)
        .margin_bottom(12)
        .x_label_area_size(40)
        .y_label_area_size(88)
        .build_cartesian_2d(x_range.clone(), y_memory)
        .map_err(plot_error)?;
    chart
        .configure_mesh()
        .x_desc("n")
        .y_desc("peak memory, MiB (resident)")
        .axis_desc_style(("sans-serif", 16))
        .label_style(("sans-serif", 14))
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.1}"))
        .bold_line_style(BLACK.mix(0.12))
        .light_line_style(TRANSPARENT)
        .draw()
        .map_err(plot_error)?;
    let peaks = runs.iter().filter_map(|j| Some((j, j.peak_memory_bytes?)));
    chart
        .draw_series(peaks.map(|(j, peak)| marker(j, (j.n as f64, mib(peak)), PROGRAM)))
        .map_err(plot_error)?
        .label("the program's peak memory (hollow: not OK)")
        .legend(move |(x, y)| Circle::new((x + 10, y), 4, PROGRAM.filled()));
    // a peak not told apart from the copy of fibtree's memory the run began as: its bound
    let bounds: Vec<(f64, f64)> = runs
        .iter()
        .filter(|j| j.peak_memory_bytes.is_none())
        .filter_map(|j| Some((j.n as f64, mib(j.peak_memory_at_most_bytes?))))
        .collect();
    if !bounds.is_empty() {
        chart
            .draw_series(bounds.iter().map(|&p| Cross::new(p, 4, WALL.stroke_width(2))))
            .map_err(plot_error)?
            .label("at most: a peak within the copy of fibtree's memory the run began as")
            .legend(move |(x, y)| Cross::new((x + 10, y), 4, WALL.stroke_width(2)));
    }
    if let Some(m) = limits.memory_bytes {
        let line = vec![(x_range.start, mib(m)), (x_range.end, mib(m))];
        chart
            .draw_series(std::iter::once(PathElement::new(line, LIMIT.stroke_width(1))))
            .map_err(plot_error)?
            .label(format!("memory limit, {:.1} MiB of address space", mib(m)))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], LIMIT.stroke_width(1)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .label_font(("sans-serif", 13))
        .draw()
        .map_err(plot_error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_in_whole_decades() {
        assert_eq!(decades([0.003, 0.2].into_iter()), 0.001..1.0);
        assert_eq!(decades([0.0, 0.0].into_iter()), FLOOR..FLOOR * 10.0);
        assert_eq!(decades(std::iter::empty()), FLOOR..1.0);
        assert_eq!(decades([2e-5, 0.5].into_iter()), 1e-5..1.0);
        assert_eq!(decades([1.0].into_iter()), 1.0..10.0);
    }
}
