//! `bench --svg`: speedup and efficiency against threads, drawn with [`crate::plot`] (as
//! `dist --svg` is).
//! - Above, on log scales of base 2, for each n: the measured speedup (the 1-thread row's median
//!   over the row's), and the speedup the task graph of its row of the most threads predicts on 1
//!   to 128 workers (greedy schedule and serial part, the JSON's `predicted`). Beside them, the
//!   ideal (speedup = threads) and the machine's cores.
//! - Below, the efficiency of both (speedup / threads).
//! - The legend in a column of its own on the right, where it covers no point.
//!
//! An n measured without a 1-thread row has no measured speedup: the caption says so and its
//! prediction alone is drawn.
use super::report::{Bench, ResultOut};
use crate::plot::{Anchor, Axis, Chart, Colour, Font, Legend, Mark, Paint, Rect, Stroke, Svg, nice_step, ticks};

/// The colours of the n, in turn (those of matplotlib's tab10).
const COLOURS: [Colour; 8] = [
    Colour(0x1f, 0x77, 0xb4),
    Colour(0xd6, 0x27, 0x28),
    Colour(0x2c, 0xa0, 0x2c),
    Colour(0xff, 0x7f, 0x0e),
    Colour(0x94, 0x67, 0xbd),
    Colour(0x8c, 0x56, 0x4b),
    Colour(0xe3, 0x77, 0xc2),
    Colour(0x17, 0xbe, 0xcf),
];

/// The grey of the ideal line and the cores' mark.
const GREY: Colour = Colour(0x88, 0x88, 0x88);
/// The ideal line, speedup = threads, and efficiency 1.
const IDEAL: Stroke = Stroke::solid(GREY, 1.0);
/// The mark at the machine's cores.
const CORES: Stroke = Stroke::dashed(GREY, 1.0, 2.0, 4.0);

/// One n's series: measured `(threads, speedup)` where a 1-thread row was measured, and the
/// prediction `(workers, speedup)` of its row of the most threads, whose thread count is `cut_for`.
struct Series {
    n: u64,
    measured: Vec<(f64, f64)>,
    predicted: Vec<(f64, f64)>,
    cut_for: usize,
}

/// The series of each n of `results` (ascending n, then threads, as bench gives them).
fn series(results: &[ResultOut]) -> Vec<Series> {
    results
        .chunk_by(|a, b| a.n == b.n)
        .map(|rows| {
            let measured = rows.iter().filter_map(|r| Some((r.threads as f64, r.speedup?))).collect();
            let finest = rows.iter().max_by_key(|r| r.threads).expect("a chunk has a row");
            let predicted = finest.predicted.iter().map(|p| (p.threads as f64, p.speedup)).collect();
            Series { n: rows[0].n, measured, predicted, cut_for: finest.threads }
        })
        .collect()
}

/// `2^v` as a tick's label: 1, 2, 4, ... and 0.5, 0.25, ... below 1.
fn power_label(v: f64) -> String {
    let x = 2f64.powf(v.round());
    if x >= 1.0 { format!("{x:.0}") } else { format!("{x}") }
}

/// A log-2 axis named `name` over the powers of two from 2^`lo` to 2^`hi`, a little room at each
/// end.
fn log2_axis(lo: i32, hi: i32, name: &str) -> Axis {
    let pad = 0.04 * f64::from(hi - lo);
    let range = f64::from(lo) - pad..f64::from(hi) + pad;
    Axis::new(range, (lo..=hi).map(f64::from).collect(), power_label, name)
}

/// How a prediction of `colour` is drawn: dashed.
const fn predicted(colour: Colour) -> Stroke {
    Stroke::dashed(colour, 2.0, 6.0, 4.0)
}

/// Each n's prediction (dashed) and, where there is one, its measured series (a line through dots),
/// in its colour, each point `(threads, speedup)` placed by `place` on `chart`'s axes.
fn draw_series(svg: &mut Svg, chart: &Chart, all: &[Series], place: fn((f64, f64)) -> (f64, f64)) {
    for (i, s) in all.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let at = |points: &[(f64, f64)]| -> Vec<(f64, f64)> { points.iter().map(|&p| chart.at(place(p))).collect() };
        svg.polyline(&at(&s.predicted), predicted(colour));
        if !s.measured.is_empty() {
            let measured = at(&s.measured);
            svg.polyline(&measured, Stroke::solid(colour, 2.0));
            for &p in &measured {
                svg.circle(p, 4.0, Paint::filled(colour), None);
            }
        }
    }
}

/// The plot of `bench`'s rows as an SVG document: see the module.
///
/// Cost: a few hundred bytes of output per row and per predicted point.
pub(super) fn bench_svg(bench: &Bench) -> String {
    let all = series(&bench.results);
    let most = bench.results.iter().map(|r| r.threads).max().unwrap_or(1).max(128);
    let x_hi = (most as f64).log2().ceil() as i32;
    let speedups = all.iter().flat_map(|s| s.measured.iter().chain(&s.predicted)).map(|&p| speedup(p).1);
    let (lo, hi) = speedups.fold((0.0f64, 1.0f64), |(lo, hi), y| (lo.min(y), hi.max(y)));
    let (y_lo, y_hi) = (lo.floor() as i32, (hi.ceil() as i32).max(lo.floor() as i32 + 1));
    let top = all.iter().flat_map(|s| s.measured.iter().chain(&s.predicted)).map(|&p| efficiency(p).1);
    let e_top = top.fold(1.0f64, f64::max) * 1.08;
    let cores = (bench.machine.cores.max(1) as f64).log2();
    let (title, about, how, note) = texts(bench, &all);
    let (width, height) = (1400.0, 960.0);
    let mut svg = Svg::new(width, height, &title);
    let middle = Font::new(16.0).anchored(Anchor::Middle);
    svg.text((width / 2.0, 26.0), &title, middle);
    svg.text((width / 2.0, 48.0), &about, Font { size: 13.0, ..middle });
    svg.text((width / 2.0, 68.0), &how, Font { size: 12.0, ..middle });
    if let Some(note) = &note {
        svg.text((width / 2.0, 88.0), note, Font { size: 12.0, ..middle }.coloured(COLOURS[1]));
    }
    let head = if note.is_some() { 104.0 } else { 82.0 };
    // the legend in a column of its own, so that it covers no point
    let legend = Legend { entries: legend(bench, &all) };
    let body = Rect::new(12.0, head, width - 12.0, height - head - 12.0);
    let (plots, side) = body.split_at_width(body.width - legend.size().0 - 16.0);
    legend.draw(&mut svg, side.inset(4.0, 10.0, 12.0, 0.0));
    let (upper, lower) = plots.split_at_height(plots.height * 0.6);
    let (speedups, efficiencies) = (log2_axis(y_lo, y_hi, "speedup, log scale"), efficiency_axis(e_top));
    // the two plots one above the other, their threads lined up
    let left = speedups.label_space().max(efficiencies.label_space());
    let chart = Chart::new(upper, log2_axis(0, x_hi, THREADS), speedups, left);
    speedup_chart(&mut svg, &chart, &all, (x_hi, (y_lo, y_hi)), cores);
    let chart = Chart::new(lower, log2_axis(0, x_hi, THREADS), efficiencies, left);
    efficiency_chart(&mut svg, &chart, &all, (x_hi, e_top), cores);
    svg.finish()
}

/// A point (threads, speedup) on the log scales of the speedup chart: (log2 threads, log2 speedup).
fn speedup((x, y): (f64, f64)) -> (f64, f64) {
    (x.log2(), y.max(1e-9).log2())
}

/// A point (threads, speedup) as (log2 threads, efficiency).
fn efficiency((x, y): (f64, f64)) -> (f64, f64) {
    (x.log2(), y / x)
}

/// The plot's title, the line about the machine, the line on how to read it, and a note on the n
/// with no 1-thread run.
fn texts(bench: &Bench, all: &[Series]) -> (String, String, String, Option<String>) {
    let machine = &bench.machine;
    let simulated = machine.simulated.map_or(String::new(), |s| format!(" (simulated: {s})"));
    let ns: Vec<String> = all.iter().map(|s| s.n.to_string()).collect();
    let title = format!("speedup and efficiency against threads: f(n) for n = {}", ns.join(", "));
    let cpu = machine.cpu.as_deref().unwrap_or("unknown CPU");
    let about =
        format!("{cpu}, {}{simulated}, kernel {}", fibtree_util::counted(machine.cores as u64, "core"), bench.kernel);
    let runs = bench.results.first().map_or(0, |r| r.runs.len());
    let how = format!(
        "dots: measured, the 1-thread median over the T-thread median ({} each); dashed: predicted by the task \
         graph on P workers (greedy schedule + serial part)",
        fibtree_util::counted(runs as u64, "run")
    );
    let unmeasured: Vec<String> = all.iter().filter(|s| s.measured.is_empty()).map(|s| format!("n={}", s.n)).collect();
    let note = (!unmeasured.is_empty()).then(|| {
        format!("no 1-thread run of {}: no measured speedup drawn, its prediction only", unmeasured.join(", "))
    });
    (title, about, how, note)
}

/// The legend's entries: the ideal, the machine's cores, and each n's prediction and measurement.
fn legend(bench: &Bench, all: &[Series]) -> Vec<(Mark, String)> {
    let mut legend = vec![
        (Mark::Line(IDEAL), "ideal: speedup = threads".to_string()),
        (Mark::Line(CORES), format!("the machine's {}", fibtree_util::counted(bench.machine.cores as u64, "core"))),
    ];
    for (i, s) in all.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let t = fibtree_util::counted(s.cut_for as u64, "thread");
        legend.push((Mark::Line(predicted(colour)), format!("n={}: predicted (task graph cut for {t})", s.n)));
        if !s.measured.is_empty() {
            legend.push((Mark::Dot(Paint::filled(colour)), format!("n={}: measured", s.n)));
        }
    }
    legend
}

/// The upper chart: speedup against threads on log scales (2^0 to 2^`x_hi`, 2^`y.0` to 2^`y.1`),
/// the ideal and the machine's cores (log2 `cores`) with each series.
fn speedup_chart(svg: &mut Svg, chart: &Chart, all: &[Series], (x_hi, y): (i32, (i32, i32)), cores: f64) {
    let (y_lo, y_hi) = y;
    chart.draw_axes(svg);
    chart.draw_inside(svg, |svg, chart| {
        // the ideal, within the plot; the machine's cores
        let ideal_top = f64::from(x_hi.min(y_hi));
        svg.line(chart.at((0.0, 0.0)), chart.at((ideal_top, ideal_top)), IDEAL);
        svg.line(chart.at((cores, f64::from(y_lo))), chart.at((cores, f64::from(y_hi))), CORES);
        draw_series(svg, chart, all, speedup);
    });
}

/// The name of the axis of threads.
const THREADS: &str = "threads (measured) or workers (predicted), log scale";

/// The axis of efficiency, from 0 to `e_top`.
fn efficiency_axis(e_top: f64) -> Axis {
    // efficiency is mostly at most 1: steps of 0.2 there
    let step = if e_top <= 2.0 { 0.2 } else { nice_step(e_top, 8.0) };
    let name = "efficiency (speedup / threads)";
    Axis::new(0.0..e_top, ticks(0.0..e_top, step), |v| format!("{v:.1}"), name)
}

/// The lower chart: efficiency against threads (log scale to 2^`x_hi`), up to `e_top`, with 1 and
/// the machine's cores (log2 `cores`) marked.
fn efficiency_chart(svg: &mut Svg, chart: &Chart, all: &[Series], (x_hi, e_top): (i32, f64), cores: f64) {
    chart.draw_axes(svg);
    chart.draw_inside(svg, |svg, chart| {
        svg.line(chart.at((0.0, 1.0)), chart.at((f64::from(x_hi), 1.0)), IDEAL);
        svg.line(chart.at((cores, 0.0)), chart.at((cores, e_top)), CORES);
        draw_series(svg, chart, all, efficiency);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powers_of_two_labelled() {
        let labels: Vec<String> = [-2.0, -1.0, 0.0, 1.0, 7.0].into_iter().map(power_label).collect();
        assert_eq!(labels, ["0.25", "0.5", "1", "2", "128"]);
        let axis = log2_axis(-1, 3, "speedup");
        let ticks: Vec<(f64, &str)> = axis.ticks.iter().map(|(t, label)| (*t, label.as_str())).collect();
        assert_eq!(ticks, [(-1.0, "0.5"), (0.0, "1"), (1.0, "2"), (2.0, "4"), (3.0, "8")]);
        assert!(axis.range.start < -1.0 && axis.range.end > 3.0);
    }
}
