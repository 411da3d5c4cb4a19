//! `stress --svg`: each run's time and peak memory against n, drawn with [`crate::plot`] (as
//! `dist --svg` is). Above, the program's CPU time and wall time and fibtree's own time for the n
//! it timed, on a log scale, with the time limit. Below, the program's peak resident memory (or,
//! where it is not told apart from the copy of fibtree's memory the run began as, the bound `wait4`
//! gives), with the memory limit.

use super::library::OwnTimes;
use super::verdict::{Judged, Limits, Verdict};
use crate::plot::{Anchor, Axis, Chart, Colour, Corner, Font, Legend, Mark, Paint, Rect, Stroke, Svg};
use crate::plot::{decade_label, nice_step, ticks};

/// The plot's colours: the program's points, its wall time, fibtree's own time, the limits' lines.
const PROGRAM: Colour = Colour(0xd6, 0x27, 0x28);
const WALL: Colour = Colour(0x99, 0x99, 0x99);
const FIBTREE: Colour = Colour(0x1f, 0x77, 0xb4);
const LIMIT: Colour = Colour(0x55, 0x55, 0x55);

/// fibtree's own times, a line through crosses; a limit, a thin line; a bound on a peak, a cross.
const OWN: Stroke = Stroke::solid(FIBTREE, 2.0);
const LIMIT_LINE: Stroke = Stroke::solid(LIMIT, 1.0);
const BOUND: Stroke = Stroke::solid(WALL, 2.0);

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
pub(super) fn stress_svg(command: &str, runs: &[Judged], own: Option<&OwnTimes>, limits: &Limits) -> String {
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

    let (width, height) = (1100.0, 820.0);
    let mut svg = Svg::new(width, height, &title);
    svg.text((width / 2.0, 28.0), &title, Font::new(15.0).anchored(Anchor::Middle));
    let (upper, lower) = Rect::new(12.0, 46.0, width - 12.0, height - 58.0).split_at_height(440.0);
    let (time, memory) = (time_axis(&y_time), memory_axis(y_memory));
    // the two plots one above the other, their n lined up
    let left = time.label_space().max(memory.label_space());
    time_chart(&mut svg, &Chart::new(upper, n_axis(x_range.clone()), time, left), runs, &own_times, limits);
    memory_chart(&mut svg, &Chart::new(lower, n_axis(x_range), memory, left), runs, limits);
    svg.finish()
}

/// Bytes in MiB.
fn mib(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1 << 20)
}

/// The axis of n over `range`, ticks at whole numbers.
fn n_axis(range: std::ops::Range<f64>) -> Axis {
    let step = nice_step(range.end - range.start, 12.0).max(1.0);
    Axis::new(range.clone(), ticks(range, step), |v| format!("{v:.0}"), "n")
}

/// A run's point at `at`: filled where the run was OK, hollow otherwise. Returns `at`.
fn marker(svg: &mut Svg, at: (f64, f64), j: &Judged, colour: Colour) -> (f64, f64) {
    let paint =
        if j.verdict == Verdict::Ok { Paint::filled(colour) } else { Paint::outlined(Stroke::solid(colour, 2.0)) };
    svg.circle(at, 4.0, paint, None);
    at
}

/// The axis of the times in `range` (whole decades), on a log scale: log10 of the seconds.
fn time_axis(range: &std::ops::Range<f64>) -> Axis {
    let (lo, hi) = (range.start.log10().round(), range.end.log10().round());
    let decades = ticks(lo..hi, nice_step(hi - lo, 10.0).max(1.0));
    Axis::new(lo..hi, decades, |k| decade_label(k as i64), "seconds, log scale")
}

/// The axis of peak memory over `range`, in MiB.
fn memory_axis(range: std::ops::Range<f64>) -> Axis {
    let y_ticks = ticks(range.clone(), nice_step(range.end, 8.0));
    Axis::new(range, y_ticks, |v| format!("{v:.1}"), "peak memory, MiB (resident)")
}

/// The upper chart: the program's CPU and wall times and fibtree's `own_times` against n, on the
/// log scale of [`time_axis`], with the time limit.
fn time_chart(svg: &mut Svg, chart: &Chart, runs: &[Judged], own_times: &[(u64, f64)], limits: &Limits) {
    chart.draw_axes(svg);
    let x_range = chart.x_range();
    let at = |n: u64, t: f64| chart.at((n as f64, t.max(FLOOR).log10()));
    // every point drawn, which the legend keeps clear of where it can
    let mut drawn = Vec::new();
    chart.draw_inside(svg, |svg, _| {
        for j in runs {
            drawn.push(marker(svg, at(j.n, j.seconds), j, WALL));
        }
        for j in runs {
            if let Some(cpu) = j.cpu_seconds {
                drawn.push(marker(svg, at(j.n, cpu), j, PROGRAM));
            }
        }
        let own: Vec<(f64, f64)> = own_times.iter().map(|&(n, t)| at(n, t)).collect();
        if !own.is_empty() {
            svg.polyline(&own, OWN);
        }
        for &p in &own {
            svg.cross(p, 5.0, OWN);
        }
        drawn.extend(own);
        if let Some(t) = limits.time_seconds {
            let t = t.max(FLOOR).log10();
            svg.line(chart.at((x_range.start, t)), chart.at((x_range.end, t)), LIMIT_LINE);
        }
    });
    let mut legend = vec![
        (Mark::Dot(Paint::filled(WALL)), "the program's wall time".to_string()),
        (Mark::Dot(Paint::filled(PROGRAM)), "the program's CPU time (hollow: not OK)".to_string()),
    ];
    if !own_times.is_empty() {
        legend.push((Mark::Cross(OWN), "fibtree's own time".to_string()));
    }
    if let Some(t) = limits.time_seconds {
        legend.push((Mark::Line(LIMIT_LINE), format!("time limit, {t} s of CPU")));
    }
    Legend { entries: legend }.draw_in(svg, chart, Corner::UpperLeft, &drawn);
}

/// The lower chart: the program's peak memory (or its bound) against n, with the memory limit.
fn memory_chart(svg: &mut Svg, chart: &Chart, runs: &[Judged], limits: &Limits) {
    chart.draw_axes(svg);
    let x_range = chart.x_range();
    let mut legend =
        vec![(Mark::Dot(Paint::filled(PROGRAM)), "the program's peak memory (hollow: not OK)".to_string())];
    // a peak not told apart from the copy of fibtree's memory the run began as: its bound
    let bounds: Vec<(f64, f64)> = runs
        .iter()
        .filter(|j| j.peak_memory_bytes.is_none())
        .filter_map(|j| Some((j.n as f64, mib(j.peak_memory_at_most_bytes?))))
        .collect();
    // every point drawn, which the legend keeps clear of where it can
    let mut drawn = Vec::new();
    chart.draw_inside(svg, |svg, chart| {
        for j in runs {
            if let Some(peak) = j.peak_memory_bytes {
                drawn.push(marker(svg, chart.at((j.n as f64, mib(peak))), j, PROGRAM));
            }
        }
        for &p in &bounds {
            svg.cross(chart.at(p), 4.0, BOUND);
            drawn.push(chart.at(p));
        }
        if let Some(m) = limits.memory_bytes {
            let line = (chart.at((x_range.start, mib(m))), chart.at((x_range.end, mib(m))));
            svg.line(line.0, line.1, LIMIT_LINE);
        }
    });
    if !bounds.is_empty() {
        let text = "at most: a peak within the copy of fibtree's memory the run began as";
        legend.push((Mark::Cross(BOUND), text.to_string()));
    }
    if let Some(m) = limits.memory_bytes {
        let text = format!("memory limit, {:.1} MiB of address space", mib(m));
        legend.push((Mark::Line(LIMIT_LINE), text));
    }
    Legend { entries: legend }.draw_in(svg, chart, Corner::LowerRight, &drawn);
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
