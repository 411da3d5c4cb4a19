//! The progress bar on standard error: one bar for the whole run, drawn only on a terminal and only
//! once a run has taken more than a second, as wide as the terminal.
//!
//! The engines report their work in units of their own (the modular engine in lanes, the exact
//! engines in states x words), which cost different times. The bar weighs each run's units by the
//! seconds a unit has taken it so far, so that the bar and its ETA are in seconds of the whole run;
//! a command that knows which runs are coming names them first, and the bar waits until each has
//! told its total, so that it never starts over when a later run begins.
//!
//! A command whose work is a number of runs of one kind (`stress`'s runs of a program) has the bar
//! count them instead ([`WeightedBar::count`]): the runs done of those asked, their rate and the ETA.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The bar's length: its position is the weighted fraction done in ten-thousandths.
const SCALE: u64 = 10_000;

/// A progress bar: the weighted work done out of the total, with an ETA, drawn by indicatif.
pub(super) struct WeightedBar {
    bar: Option<ProgressBar>,
    start: Instant,
    /// The arithmetic, and whether the bar is drawn yet (else the line says it is estimating).
    tally: Mutex<(Ledger, bool)>,
    /// The runs the bar counts, and when they were first reported, where it counts runs.
    counted: Mutex<Option<(String, Option<Instant>)>>,
}

impl WeightedBar {
    /// A bar, drawn if `wanted` and standard error is a terminal.
    pub(super) fn new(wanted: bool) -> WeightedBar {
        let bar = (wanted && std::io::stderr().is_terminal())
            .then(|| ProgressBar::with_draw_target(Some(SCALE), ProgressDrawTarget::hidden()));
        WeightedBar::drawing(bar)
    }

    /// A bar drawn by `bar` (none if `None`), in its estimating style until the fraction is known.
    fn drawing(bar: Option<ProgressBar>) -> WeightedBar {
        if let Some(bar) = &bar {
            bar.set_style(style("{prefix}  {msg}"));
        }
        let start = Instant::now();
        WeightedBar { bar, start, tally: Mutex::new((Ledger::new(start), false)), counted: Mutex::new(None) }
    }

    /// Makes the bar count the runs reported as `name` (their done and total are runs): it shows
    /// them done of those asked, with their rate and the ETA ([`counted`]), from their first
    /// report on; the work reported under other names before it only says the time so far.
    pub(super) fn count(&self, name: &str) {
        *self.counted.lock().expect("the counted lock is never poisoned") = Some((name.to_string(), None));
    }

    /// Names the runs the command will report, in order (a name once for each run): the bar waits
    /// until each has told its total.
    pub(super) fn expect(&self, runs: &[&str]) {
        self.tally.lock().expect("the tally lock is never poisoned").0.expect(runs);
    }

    /// Records that the run `stage` has done `done` of its `total` units of work.
    pub(super) fn update(&self, stage: &str, done: u64, total: u64) {
        let Some(bar) = &self.bar else { return };
        let now = Instant::now();
        if bar.is_hidden() && now.duration_since(self.start) > Duration::from_secs(1) {
            bar.set_draw_target(ProgressDrawTarget::stderr());
        }
        let mut guard = self.tally.lock().expect("the tally lock is never poisoned");
        let (tally, drawn) = &mut *guard;
        tally.update(stage, done, total, now);
        let status = match &mut *self.counted.lock().expect("the counted lock is never poisoned") {
            Some((name, first)) if name == stage => {
                let since = *first.get_or_insert(now);
                let status = counted(name, done, total, now.duration_since(since));
                // the counter is the bar's own position and length, drawn from one state with the
                // bar (a counter set apart from the position may be drawn a run behind it)
                let width = total.to_string().len();
                if !*drawn || bar.length().is_none_or(|l| l.to_string().len() != width) {
                    let template = format!("{{prefix}} {{pos:>{width}}}/{{len}} [{{wide_bar}}] {{msg}}");
                    bar.set_style(style(&template).progress_chars("=> "));
                    *drawn = true;
                }
                bar.set_prefix(name.clone());
                bar.set_message(status.text);
                bar.set_length(total);
                bar.set_position(done);
                return;
            }
            // work between the runs counted (the true values, after the runs that find the
            // form): the bar stays on the runs
            Some((_, Some(_))) => return,
            // work before the runs counted: how long it has taken so far
            Some(_) => {
                let text = format!("{}, estimating", duration(now.duration_since(self.start).as_secs_f64()));
                Status { names: stage.to_string(), fraction: None, text }
            }
            None => tally.status(now),
        };
        if let Some(fraction) = status.fraction {
            if !*drawn {
                bar.set_style(style("{prefix} [{wide_bar}] {msg}").progress_chars("=> "));
                *drawn = true;
            }
            bar.set_position((fraction * SCALE as f64) as u64);
        }
        bar.set_prefix(status.names);
        bar.set_message(status.text);
    }

    /// Removes the bar.
    pub(super) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// The bar's style from `template`, one of the two above.
fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template).expect("a valid template")
}

/// How long a run must have gone before its seconds per unit count as measured.
const MEASURED_AFTER: Duration = Duration::from_millis(250);

/// One engine run, as its reports tell it.
#[derive(Clone, Debug)]
struct EngineRun {
    name: String,
    done: u64,
    total: u64,
    /// When the run first reported, and the work it had done then.
    first: (Instant, u64),
    /// When it last reported.
    last: Instant,
}

impl EngineRun {
    /// The seconds a unit of this run has taken between its first report and its last, once
    /// measured.
    fn seconds_per_unit(&self) -> Option<f64> {
        let (at, done) = self.first;
        let elapsed = self.last.duration_since(at);
        (elapsed >= MEASURED_AFTER && self.done > done).then(|| elapsed.as_secs_f64() / (self.done - done) as f64)
    }
}

/// The runs reported so far and those still expected: the arithmetic of the bar, apart from the
/// terminal.
#[derive(Debug)]
pub(super) struct Ledger {
    start: Instant,
    runs: Vec<EngineRun>,
    /// The runs named as coming that have not reported yet, in order.
    expected: Vec<String>,
    /// The fraction last shown: the bar never goes back.
    shown: f64,
}

/// What the bar shows: the names of the runs under way (`done` once none is), the fraction shown
/// (`None` while estimating; it never goes back), and the text after the bar: the percentage and
/// the ETA, or the time so far while estimating.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Status {
    pub(super) names: String,
    pub(super) fraction: Option<f64>,
    pub(super) text: String,
}

/// Where the run is: the fraction of the whole done (`None` while a run expected has not told its
/// total), and the seconds left (`None` until every unfinished run's speed is measured).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Estimate {
    pub(super) fraction: Option<f64>,
    pub(super) seconds_left: Option<f64>,
}

impl Ledger {
    /// No run yet, counting time from `start`.
    pub(super) fn new(start: Instant) -> Ledger {
        Ledger { start, runs: Vec::new(), expected: Vec::new(), shown: 0.0 }
    }

    /// Names the runs coming, in order.
    pub(super) fn expect(&mut self, runs: &[&str]) {
        self.expected = runs.iter().map(|r| r.to_string()).collect();
    }

    /// Records a report of the run `name` at `now`. A name reported again after its run completed
    /// (done = total) starts a new run; a report of a run expected drops the runs expected before
    /// it that never came (a step skipped, such as residues read from a checkpoint).
    pub(super) fn update(&mut self, name: &str, done: u64, total: u64, now: Instant) {
        let current = self.runs.iter_mut().rev().find(|r| r.name == name);
        match current {
            Some(run) if !(run.done == run.total && done < total) => {
                (run.done, run.total, run.last) = (done, total, now)
            }
            _ => {
                if let Some(at) = self.expected.iter().position(|e| e == name) {
                    self.expected.drain(..=at);
                }
                self.runs.push(EngineRun { name: name.to_string(), done, total, first: (now, done), last: now });
            }
        }
    }

    /// The fraction done and the seconds left, as of the last report.
    pub(super) fn estimate(&self) -> Estimate {
        let measured: Vec<Option<f64>> = self.runs.iter().map(EngineRun::seconds_per_unit).collect();
        let known: Vec<f64> = measured.iter().flatten().copied().collect();
        // a run not measured yet is weighed as the average of those measured (all alike at first)
        let prior = if known.is_empty() { 1.0 } else { known.iter().sum::<f64>() / known.len() as f64 };
        let weight = |i: usize| measured[i].unwrap_or(prior);
        let mut done = 0.0;
        let mut total = 0.0;
        let mut left = Some(0.0);
        for (i, run) in self.runs.iter().enumerate() {
            done += run.done as f64 * weight(i);
            total += run.total as f64 * weight(i);
            let remaining = run.total.saturating_sub(run.done) as f64;
            left = match (left, measured[i]) {
                (Some(l), _) if remaining == 0.0 => Some(l),
                (Some(l), Some(w)) => Some(l + remaining * w),
                _ => None,
            };
        }
        // a run expected again is taken to cost what its last run did; one never seen leaves the
        // whole unknown
        let mut waiting = false;
        for name in &self.expected {
            match self.runs.iter().rposition(|r| &r.name == name) {
                Some(i) => {
                    total += self.runs[i].total as f64 * weight(i);
                    left = left.zip(measured[i]).map(|(l, w)| l + self.runs[i].total as f64 * w);
                }
                None => waiting = true,
            }
        }
        let fraction = (!waiting && total > 0.0).then(|| (done / total).clamp(0.0, 1.0));
        Estimate { fraction, seconds_left: left }
    }

    /// What the bar shows at `now`. Records the fraction shown, which never goes back.
    pub(super) fn status(&mut self, now: Instant) -> Status {
        let estimate = self.estimate();
        let mut names: Vec<&str> = Vec::new();
        for run in self.runs.iter().filter(|r| r.done < r.total) {
            if !names.contains(&run.name.as_str()) {
                names.push(&run.name);
            }
        }
        let names = if names.is_empty() { "done".to_string() } else { names.join("+") };
        // as wide for every value, so that the bar keeps its width as the ETA changes
        let eta = format!("{:>7}", estimate.seconds_left.map_or("?".to_string(), duration));
        match estimate.fraction {
            None => {
                let text = format!("{}, estimating", duration(now.duration_since(self.start).as_secs_f64()));
                Status { names, fraction: None, text }
            }
            Some(fraction) => {
                self.shown = self.shown.max(fraction);
                let text = format!("{:>3}%  ETA {eta}", (self.shown * 100.0).floor() as u32);
                Status { names, fraction: Some(self.shown), text }
            }
        }
    }
}

/// What the bar of runs counted shows after `done` of the `total` runs named `name` asked, in
/// `elapsed` since they were first reported: `runs 12/40` (`done` as wide as `total`, so that the
/// bar keeps its place), the fraction done, and the rate and the ETA, e.g. `2.5 runs/s  ETA 11s`
/// (`?` until a run is done). Cost O(1).
pub(super) fn counted(name: &str, done: u64, total: u64, elapsed: Duration) -> Status {
    let width = total.to_string().len();
    let names = format!("{name} {done:>width$}/{total}");
    let fraction = if total == 0 { 1.0 } else { (done as f64 / total as f64).min(1.0) };
    let seconds = elapsed.as_secs_f64();
    let rate = (done > 0 && seconds > 0.0).then(|| done as f64 / seconds);
    let per = match rate {
        None => format!("? {name}/s"),
        Some(r) if r >= 1.0 => format!("{r:.1} {name}/s"),
        Some(r) => format!("{:.1} {name}/min", r * 60.0),
    };
    let eta = rate.map_or("?".to_string(), |r| duration(total.saturating_sub(done) as f64 / r));
    Status { names, fraction: Some(fraction), text: format!("{per}  ETA {eta:>7}") }
}

/// Seconds as people read them: `42s`, `3m 05s`, `1h 02m`, `3d 04h`.
pub(super) fn duration(seconds: f64) -> String {
    let s = seconds.clamp(0.0, 1e15).round() as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m {:02}s", s / 60, s % 60),
        3600..86400 => format!("{}h {:02}m", s / 3600, s / 60 % 60),
        _ => format!("{}d {:02}h", s / 86400, s / 3600 % 24),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `start` plus `seconds`.
    fn at(start: Instant, seconds: f64) -> Instant {
        start + Duration::from_secs_f64(seconds)
    }

    /// A run in two stages shaped as `count 30000`: the modular engine's 2 x 10^9 lanes, then the
    /// exact engine's 9 x 10^10 words, the test's clock giving them 6 s and 92 s.
    #[test]
    fn one_bar_for_a_run_in_two_stages_with_units_of_different_cost() {
        let start = Instant::now();
        let mut tally = Ledger::new(start);
        tally.expect(&["modular", "exact"]);
        let (m, e) = (2_000_000_000u64, 90_000_000_000u64);
        tally.update("modular", 1, m, at(start, 0.0));
        tally.update("modular", m / 2, m, at(start, 3.0));
        // the exact run has not told its total: no fraction yet, never a bar that restarts
        assert_eq!(tally.estimate().fraction, None);
        assert!(tally.status(at(start, 3.0)).text.contains("estimating"));
        tally.update("modular", m, m, at(start, 6.0));
        tally.update("exact", 1, e, at(start, 6.0));
        // weighed by the modular run's measured speed until the exact run's own is measured
        let first = tally.estimate().fraction.unwrap();
        assert!(first > 0.0 && first < 0.1, "{first}");
        // a tenth of the exact work 9.2 s later: the bar is at (6 + 9.2) / 98 of the whole
        tally.update("exact", e / 10, e, at(start, 15.2));
        let estimate = tally.estimate();
        let fraction = estimate.fraction.unwrap();
        assert!((fraction - 15.2 / 98.0).abs() < 0.01, "{fraction}");
        let left = estimate.seconds_left.unwrap();
        assert!((left - 82.8).abs() < 1.0, "the ETA is the exact run's own: {left}");
        // counted alike, the units would put the bar at 12 %; weighed, it shows the whole run's share
        let line = tally.status(at(start, 15.2)).text;
        assert!(line.contains(" 15%") && line.contains("ETA  1m 23s"), "{line}");
        // half way through the exact run
        tally.update("exact", e / 2, e, at(start, 52.0));
        let estimate = tally.estimate();
        assert!((estimate.fraction.unwrap() - 52.0 / 98.0).abs() < 0.01, "{estimate:?}");
        assert!((estimate.seconds_left.unwrap() - 46.0).abs() < 1.0, "{estimate:?}");
    }

    #[test]
    fn totals_never_restart_when_a_second_run_appears() {
        let start = Instant::now();
        let mut tally = Ledger::new(start);
        tally.expect(&["modular", "exact"]);
        let mut last = 0.0;
        let mut shown = Vec::new();
        for step in 0..=100u64 {
            let now = at(start, step as f64 * 0.1);
            if step <= 50 {
                tally.update("modular", step * 20, 1000, now);
            } else {
                tally.update("exact", (step - 50) * 200, 10_000, now);
            }
            let line = tally.status(now).text;
            // the fraction itself, before the bar's own guard against going back
            if let Some(fraction) = tally.estimate().fraction {
                assert!(fraction >= last - 1e-9, "step {step}: {fraction} after {last}: {line}");
                last = fraction;
                shown.push(last);
            } else {
                assert!(step <= 50, "both totals are known from step 51: {line}");
            }
        }
        assert!((last - 1.0).abs() < 1e-9, "{last}");
        assert!(shown[0] < 0.6, "the bar starts low once both totals are known: {shown:?}");
    }

    #[test]
    fn a_run_repeated_or_skipped() {
        let start = Instant::now();
        let mut tally = Ledger::new(start);
        // residues read from a checkpoint: the modular run never comes
        tally.expect(&["modular", "exact"]);
        tally.update("exact", 10, 100, at(start, 0.0));
        assert!(tally.expected.is_empty());
        assert_eq!(tally.estimate().fraction, Some(0.1));
        // the double check: the exact engine again, a second run of the same name
        tally.expect(&["exact"]);
        tally.update("exact", 100, 100, at(start, 1.0));
        let whole = tally.estimate().fraction.unwrap();
        assert!((whole - 0.5).abs() < 1e-9, "the second run is taken to cost what the first did: {whole}");
        tally.update("exact", 30, 100, at(start, 1.5));
        assert_eq!(tally.runs.len(), 2, "a new run, not the first one going back");
        let fraction = tally.estimate().fraction.unwrap();
        assert!(fraction > whole, "{fraction}");
    }

    /// A terminal `width` columns wide that keeps the last line drawn on it.
    #[derive(Clone, Debug)]
    struct Screen {
        width: u16,
        last: std::sync::Arc<Mutex<String>>,
    }

    impl indicatif::TermLike for Screen {
        fn width(&self) -> u16 {
            self.width
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> std::io::Result<()> {
            self.write_str(s)
        }
        fn write_str(&self, s: &str) -> std::io::Result<()> {
            if !s.is_empty() {
                *self.last.lock().unwrap() = s.to_string();
            }
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// The line a bar on a terminal `width` columns wide shows after two runs' reports.
    fn drawn(width: u16, exact_done: u64) -> String {
        let screen = Screen { width, last: Default::default() };
        let target = ProgressDrawTarget::term_like_with_hz(Box::new(screen.clone()), 100);
        let bar = WeightedBar::drawing(Some(ProgressBar::with_draw_target(Some(SCALE), target)));
        bar.update("modular", 600, 1000);
        bar.update("exact", exact_done, 90_000);
        // leaves the bar as it is, drawn once more
        bar.bar.as_ref().unwrap().abandon();
        screen.last.lock().unwrap().clone()
    }

    #[test]
    fn the_line_fits_the_terminal() {
        for columns in [40, 41, 60, 80, 85, 120, 300] {
            let line = drawn(columns, 40_000);
            assert!(line.chars().count() <= columns as usize, "{columns} columns: {line:?}");
            assert!(line.starts_with("modular+exact [") && line.contains("ETA"), "{columns} columns: {line:?}");
        }
        // the bar takes the width there is, the same whatever the ETA
        let (wide, later) = (drawn(120, 40_000), drawn(120, 89_000));
        assert_eq!(wide.chars().count(), 120, "{wide}");
        assert_eq!(later.find(']'), wide.find(']'), "{wide}\n{later}");
    }

    #[test]
    fn counted_runs_show_done_of_asked_their_rate_and_the_eta() {
        let status = counted("runs", 12, 40, Duration::from_secs(6));
        assert_eq!(status.names, "runs 12/40");
        assert_eq!(status.fraction, Some(0.3));
        assert_eq!(status.text, "2.0 runs/s  ETA     14s");
        // before any run is done: nothing to measure
        let first = counted("runs", 0, 40, Duration::ZERO);
        assert_eq!((first.names.as_str(), first.fraction), ("runs  0/40", Some(0.0)));
        assert_eq!(first.text, "? runs/s  ETA       ?");
        // slow runs: a rate per minute
        let slow = counted("runs", 3, 1000, Duration::from_secs(90));
        assert_eq!((slow.names.as_str(), slow.text.as_str()), ("runs    3/1000", "2.0 runs/min  ETA  8h 18m"));
        assert_eq!(counted("runs", 40, 40, Duration::from_secs(20)).fraction, Some(1.0));
    }

    /// A bar counting runs ignores the fraction of the work before them (the true values that
    /// `stress` computes first), which would put it at 99 % from the start.
    #[test]
    fn a_bar_counting_runs_starts_at_none_done() {
        let screen = Screen { width: 80, last: Default::default() };
        let target = ProgressDrawTarget::term_like_with_hz(Box::new(screen.clone()), 100);
        let bar = WeightedBar::drawing(Some(ProgressBar::with_draw_target(Some(SCALE), target)));
        bar.count("runs");
        bar.update("modular", 1_000_000, 1_000_000);
        bar.update("runs", 0, 40);
        bar.update("runs", 1, 40);
        bar.bar.as_ref().unwrap().abandon();
        let line = screen.last.lock().unwrap().clone();
        assert!(line.starts_with("runs  1/40 [") && line.contains("runs/s  ETA"), "{line:?}");
        let filled = line.chars().filter(|&c| c == '=').count();
        assert!(filled <= 2, "a fortieth of the bar, not the true values' share: {line:?}");
        assert!(line.chars().count() <= 80, "{line:?}");
    }

    /// Runs that end faster than the terminal is drawn: each line drawn shows the bar as far as its
    /// counter says, never a run ahead of it (which a counter set apart from the bar's position
    /// was, drawn with the position before it).
    #[test]
    fn a_bar_counting_runs_is_in_step_with_its_counter() {
        let screen = Screen { width: 80, last: Default::default() };
        let target = ProgressDrawTarget::term_like_with_hz(Box::new(screen.clone()), 100);
        let bar = WeightedBar::drawing(Some(ProgressBar::with_draw_target(Some(SCALE), target)));
        bar.count("runs");
        let mut seen = std::collections::BTreeSet::new();
        // ten runs on a bar of some 40 columns: a run is 4 columns of it
        for done in 0..=10 {
            bar.update("runs", done, 10);
            let line = screen.last.lock().unwrap().clone();
            if line.is_empty() {
                continue;
            }
            // `runs DD/10 [===>    ] ...`: the counter, and the bar's share of its width
            let counter: u64 = line["runs ".len()..].split('/').next().unwrap().trim().parse().unwrap();
            let inside = &line[line.find('[').unwrap() + 1..line.find(']').unwrap()];
            let filled = inside.chars().filter(|&c| c == '=').count() as f64;
            let width = inside.chars().count() as f64;
            assert!((filled - counter as f64 / 10.0 * width).abs() <= 1.5, "{line:?}");
            seen.insert(counter);
            std::thread::sleep(Duration::from_millis(4));
        }
        assert!(seen.len() > 2, "drawn {} times", seen.len());
    }

    #[test]
    fn durations() {
        assert_eq!(duration(0.4), "0s");
        assert_eq!(duration(42.0), "42s");
        assert_eq!(duration(185.0), "3m 05s");
        assert_eq!(duration(3720.0), "1h 02m");
        assert_eq!(duration(3.0 * 86400.0 + 4.0 * 3600.0 + 59.0), "3d 04h");
    }
}
