//! `bench --svg`: speedup and efficiency against threads, drawn with the `plotters` crate's SVG
//! backend (as `dist --svg` is, [`crate::plot`]). Above, on log scales of base 2: for each n,
//! the measured speedup (the 1-thread row's median over the row's), and the speedup the task graph
//! of its row of the most threads predicts on 1 to 128 workers (greedy schedule and serial part,
//! the JSON's `predicted`), beside the ideal (speedup = threads) and the machine's cores. Below,
//! the efficiency of both (speedup / threads); the legend in a column of its own on the right, where
//! it covers no point. An n measured without a 1-thread row has no measured speedup: the caption
//! says so and its prediction alone is drawn.

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::super::plot::{TickedAxis, nice_step, plot_error, ticks};
use super::report::{Bench, ResultOut};

/// The colours of the n, in turn (those of matplotlib's tab10).
const COLOURS: [RGBColor; 8] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0xe3, 0x77, 0xc2),
    RGBColor(0x17, 0xbe, 0xcf),
];

/// The grey of the ideal line and the cores' mark.
const GREY: RGBColor = RGBColor(0x88, 0x88, 0x88);

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

/// A log-2 axis over the powers of two from 2^`lo` to 2^`hi`, a little room at each end.
fn log2_axis(lo: i32, hi: i32) -> TickedAxis {
    let pad = 0.04 * f64::from(hi - lo);
    TickedAxis { range: f64::from(lo) - pad..f64::from(hi) + pad, ticks: (lo..=hi).map(f64::from).collect() }
}

/// `"1 core"`, `"4 cores"`.
fn cores_text(cores: usize) -> String {
    if cores == 1 { "1 core".to_string() } else { format!("{cores} cores") }
}

/// How a legend's entry is drawn: a line of a colour and width, a dashed line (and its dash), a dot.
enum Mark {
    Line(RGBColor, u32),
    Dashed(RGBColor, u32, u32),
    Dot(RGBColor),
}

/// The legend's `entries` down the top of `area`, in a frame.
///
/// # Errors
/// If plotters fails.
fn draw_legend(area: &DrawingArea<SVGBackend, Shift>, entries: &[(Mark, String)]) -> crate::error::Result<()> {
    let (x, top, step) = (16, 24, 22);
    let bottom = top + step * entries.len() as i32;
    area.draw(&Rectangle::new([(4, top - 14), (area.dim_in_pixel().0 as i32 - 8, bottom - 6)], BLACK.mix(0.3)))
        .map_err(plot_error)?;
    let font = ("sans-serif", 13).into_font();
    for (i, (mark, label)) in entries.iter().enumerate() {
        let y = top + step * i as i32;
        let line = vec![(x, y), (x + 24, y)];
        match *mark {
            Mark::Line(colour, width) => area.draw(&PathElement::new(line, colour.stroke_width(width))),
            Mark::Dashed(colour, width, dash) => {
                area.draw(&DashedPathElement::new(line, dash, 4, colour.stroke_width(width)))
            }
            Mark::Dot(colour) => area.draw(&Circle::new((x + 12, y), 4, colour.filled())),
        }
        .map_err(plot_error)?;
        area.draw_text(label, &font.clone().into_text_style(area), (x + 34, y - 7)).map_err(plot_error)?;
    }
    Ok(())
}

/// One n's prediction (dashed) and, where there is one, its measured series (a line through dots),
/// in its colour.
///
/// # Errors
/// If plotters fails.
fn draw_series<X: Ranged<ValueType = f64>, Y: Ranged<ValueType = f64>>(
    chart: &mut ChartContext<SVGBackend, Cartesian2d<X, Y>>,
    colour: RGBColor,
    predicted: Vec<(f64, f64)>,
    measured: Vec<(f64, f64)>,
) -> crate::error::Result<()> {
    chart
        .draw_series(std::iter::once(DashedPathElement::new(predicted, 6, 4, colour.stroke_width(2))))
        .map_err(plot_error)?;
    if !measured.is_empty() {
        let dots: Vec<Circle<(f64, f64), i32>> = measured.iter().map(|&p| Circle::new(p, 4, colour.filled())).collect();
        chart.draw_series(std::iter::once(PathElement::new(measured, colour.stroke_width(2)))).map_err(plot_error)?;
        chart.draw_series(dots).map_err(plot_error)?;
    }
    Ok(())
}

/// The plot of `bench`'s rows as an SVG document: see the module.
///
/// Cost: a few hundred bytes of output per row and per predicted point.
///
/// # Errors
/// If plotters fails.
pub(super) fn bench_svg(bench: &Bench) -> crate::error::Result<String> {
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
    let legend = legend(bench, &all);
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (1400, 960)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let head_height = if note.is_some() { 104 } else { 82 };
        let (head, body) = root.split_vertically(head_height);
        let rest = head.titled(&title, ("sans-serif", 20)).map_err(plot_error)?;
        let rest = rest.titled(&about, ("sans-serif", 15)).map_err(plot_error)?;
        let rest = rest.titled(&how, ("sans-serif", 13)).map_err(plot_error)?;
        if let Some(note) = &note {
            rest.titled(note, ("sans-serif", 13).into_font().color(&COLOURS[1])).map_err(plot_error)?;
        }
        // the legend in a column of its own, so that it covers no point
        let (plots, side) = body.split_horizontally(1060);
        draw_legend(&side, &legend)?;
        let (upper, lower) = plots.split_vertically(520);
        speedup_chart(&upper, &all, x_hi, (y_lo, y_hi), cores)?;
        efficiency_chart(&lower, &all, x_hi, e_top, cores)?;
        root.present().map_err(plot_error)?;
    }
    Ok(out)
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
    let about = format!("{cpu}, {}{simulated}, kernel {}", cores_text(machine.cores), bench.kernel);
    let runs = bench.results.first().map_or(0, |r| r.runs.len());
    let how = format!(
        "dots: measured, the 1-thread median over the T-thread median ({runs} run{} each); dashed: predicted by the \
         task graph on P workers (greedy schedule + serial part)",
        if runs == 1 { "" } else { "s" }
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
        (Mark::Line(GREY, 1), "ideal: speedup = threads".to_string()),
        (Mark::Dashed(GREY, 1, 2), format!("the machine's {}", cores_text(bench.machine.cores))),
    ];
    for (i, s) in all.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let t = if s.cut_for == 1 { "1 thread".to_string() } else { format!("{} threads", s.cut_for) };
        legend.push((Mark::Dashed(colour, 2, 6), format!("n={}: predicted (task graph cut for {t})", s.n)));
        if !s.measured.is_empty() {
            legend.push((Mark::Dot(colour), format!("n={}: measured", s.n)));
        }
    }
    legend
}

/// The upper chart: speedup against threads on log scales (2^0 to 2^`x_hi`, 2^`y.0` to 2^`y.1`),
/// the ideal and the machine's cores (log2 `cores`) with each series.
fn speedup_chart(
    upper: &DrawingArea<SVGBackend, Shift>,
    all: &[Series],
    x_hi: i32,
    y: (i32, i32),
    cores: f64,
) -> crate::error::Result<()> {
    let (y_lo, y_hi) = y;
    let mut chart = ChartBuilder::on(upper)
        .margin_left(12)
        .margin_right(20)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(log2_axis(0, x_hi), log2_axis(y_lo, y_hi))
        .map_err(plot_error)?;
    chart
        .configure_mesh()
        .x_desc("threads (measured) or workers (predicted), log scale")
        .y_desc("speedup, log scale")
        .axis_desc_style(("sans-serif", 16))
        .label_style(("sans-serif", 14))
        .x_label_formatter(&|v| power_label(*v))
        .y_label_formatter(&|v| power_label(*v))
        .bold_line_style(BLACK.mix(0.12))
        .draw()
        .map_err(plot_error)?;
    // the ideal, within the plot; the machine's cores
    let ideal_top = f64::from(x_hi.min(y_hi));
    let ideal = vec![(0.0, 0.0), (ideal_top, ideal_top)];
    chart.draw_series(std::iter::once(PathElement::new(ideal, GREY.stroke_width(1)))).map_err(plot_error)?;
    let mark = vec![(cores, f64::from(y_lo)), (cores, f64::from(y_hi))];
    chart.draw_series(std::iter::once(DashedPathElement::new(mark, 2, 4, GREY.stroke_width(1)))).map_err(plot_error)?;
    for (i, s) in all.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let predicted: Vec<(f64, f64)> = s.predicted.iter().map(|&p| speedup(p)).collect();
        let measured: Vec<(f64, f64)> = s.measured.iter().map(|&p| speedup(p)).collect();
        draw_series(&mut chart, colour, predicted, measured)?;
    }

    Ok(())
}

/// The lower chart: efficiency against threads (log scale to 2^`x_hi`), up to `e_top`, with 1 and
/// the machine's cores (log2 `cores`) marked.
fn efficiency_chart(
    lower: &DrawingArea<SVGBackend, Shift>,
    all: &[Series],
    x_hi: i32,
    e_top: f64,
    cores: f64,
) -> crate::error::Result<()> {
    // efficiency is mostly at most 1: steps of 0.2 there
    let step = if e_top <= 2.0 { 0.2 } else { nice_step(e_top, 8.0) };
    let mut chart = ChartBuilder::on(lower)
        .margin_left(12)
        .margin_right(20)
        .margin_bottom(12)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(log2_axis(0, x_hi), TickedAxis { range: 0.0..e_top, ticks: ticks(e_top, step) })
        .map_err(plot_error)?;
    chart
        .configure_mesh()
        .x_desc("threads (measured) or workers (predicted), log scale")
        .y_desc("efficiency (speedup / threads)")
        .axis_desc_style(("sans-serif", 16))
        .label_style(("sans-serif", 14))
        .x_label_formatter(&|v| power_label(*v))
        .y_label_formatter(&|v| format!("{v:.1}"))
        .bold_line_style(BLACK.mix(0.12))
        .draw()
        .map_err(plot_error)?;
    let one = vec![(0.0, 1.0), (f64::from(x_hi), 1.0)];
    chart.draw_series(std::iter::once(PathElement::new(one, GREY.stroke_width(1)))).map_err(plot_error)?;
    let mark = vec![(cores, 0.0), (cores, e_top)];
    chart.draw_series(std::iter::once(DashedPathElement::new(mark, 2, 4, GREY.stroke_width(1)))).map_err(plot_error)?;
    for (i, s) in all.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let predicted: Vec<(f64, f64)> = s.predicted.iter().map(|&p| efficiency(p)).collect();
        let measured: Vec<(f64, f64)> = s.measured.iter().map(|&p| efficiency(p)).collect();
        draw_series(&mut chart, colour, predicted, measured)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powers_of_two_labelled() {
        let labels: Vec<String> = [-2.0, -1.0, 0.0, 1.0, 7.0].into_iter().map(power_label).collect();
        assert_eq!(labels, ["0.25", "0.5", "1", "2", "128"]);
        let axis = log2_axis(-1, 3);
        assert_eq!(axis.ticks, [-1.0, 0.0, 1.0, 2.0, 3.0]);
        assert!(axis.range.start < -1.0 && axis.range.end > 3.0);
    }
}
