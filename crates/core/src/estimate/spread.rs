//! The spread of the calibration's repeated runs, and the range of a predicted time it gives.
//!
//! Each run is timed by its thread's CPU time, so that the time the thread waits for a core that
//! other programs hold is not counted. What they still do to a run (through the caches and the
//! memory they share, and the machine's own changes of speed) only slows it, and comes and goes:
//! so the calibration's runs are spread over its whole span, the fastest of them gives the figure
//! (the engine on this machine, the least disturbed) and the slowest the top of its range (what
//! the disturbance did to it).

use std::ops::Add;

use crate::error::Result;

/// The fastest and the slowest of repeated runs of the same work, in work per second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    /// The fastest run's speed: the figure.
    pub fast: f64,
    /// The slowest run's speed.
    pub slow: f64,
}

impl Spread {
    /// The spread of `speeds` (work per second, each positive); of none, 0 both. Cost O(runs).
    pub fn of(speeds: &[f64]) -> Spread {
        let fast = speeds.iter().copied().reduce(f64::max).unwrap_or(0.0);
        let slow = speeds.iter().copied().reduce(f64::min).unwrap_or(0.0);
        Spread { fast, slow }
    }

    /// The seconds `work` takes at these speeds: from the fastest run's (the figure) to the
    /// slowest's (0 for no work, whatever the speeds). Cost O(1).
    pub fn seconds(&self, work: f64) -> Seconds {
        let at = |speed: f64| if work == 0.0 { 0.0 } else { work / speed };
        Seconds { low: at(self.fast), high: at(self.slow) }
    }
}

/// A predicted time, in seconds: from `low` (the figure), at the calibration's fastest runs'
/// speeds, to `high`, at its slowest runs'. Sums and maxima of such times are taken end by end.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Seconds {
    /// At the fastest runs' speeds: the figure.
    pub low: f64,
    /// At the slowest runs' speeds.
    pub high: f64,
}

impl Seconds {
    /// Both ends times `k` (at least 0). Cost O(1).
    pub fn times(self, k: f64) -> Seconds {
        Seconds { low: self.low * k, high: self.high * k }
    }

    /// The larger at each end (of two parts run at once). Cost O(1).
    pub fn max(self, other: Seconds) -> Seconds {
        Seconds { low: self.low.max(other.low), high: self.high.max(other.high) }
    }
}

impl Add for Seconds {
    type Output = Seconds;

    /// The sum at each end (of two parts run one after the other).
    fn add(self, other: Seconds) -> Seconds {
        Seconds { low: self.low + other.low, high: self.high + other.high }
    }
}

/// The timed runs of one measure of the calibration, each doing the same work, taken in turn with
/// the other measures' so that all of them are spread over the calibration's span.
pub(crate) struct Runs {
    /// The work of one run.
    work: f64,
    /// The speed of each run so far, in work per second.
    speeds: Vec<f64>,
}

impl Runs {
    /// No runs yet of a measure whose runs each do `work`. Cost O(1).
    pub(crate) fn new(work: f64) -> Runs {
        Runs { work, speeds: Vec::new() }
    }

    /// One more run of `run`, timed by the calling thread's CPU time (which counts the work of the
    /// rayon pool it is installed in only where that pool is this one thread).
    ///
    /// Cost: the call of `run`, and two clock reads.
    ///
    /// # Errors
    /// The error of `run` (the run is then not counted).
    pub(crate) fn time(&mut self, run: impl FnOnce() -> Result<()>) -> Result<()> {
        let start = crate::machine::thread_cpu_seconds();
        run()?;
        let seconds = (crate::machine::thread_cpu_seconds() - start).max(1e-9);
        self.speeds.push(self.work / seconds);
        Ok(())
    }

    /// The work of one run. Cost O(1).
    pub(crate) fn work(&self) -> f64 {
        self.work
    }

    /// The spread of the runs so far. Cost O(runs).
    pub(crate) fn spread(&self) -> Spread {
        Spread::of(&self.speeds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spread_is_the_fastest_and_the_slowest_run() {
        assert_eq!(Spread::of(&[2.0, 5.0, 4.0, 2.5]), Spread { fast: 5.0, slow: 2.0 });
        assert_eq!(Spread::of(&[3.0]), Spread { fast: 3.0, slow: 3.0 });
        assert_eq!(Spread::of(&[]), Spread { fast: 0.0, slow: 0.0 });
    }

    #[test]
    fn the_fastest_run_gives_the_figure_and_the_slowest_the_top() {
        let s = Spread { fast: 4.0, slow: 2.0 };
        assert_eq!(s.seconds(8.0), Seconds { low: 2.0, high: 4.0 });
        // no work takes no time, even at no speed
        assert_eq!(Spread::of(&[]).seconds(0.0), Seconds::default());
    }

    #[test]
    fn times_combine_end_by_end() {
        let (a, b) = (Seconds { low: 1.0, high: 3.0 }, Seconds { low: 2.0, high: 2.5 });
        assert_eq!(a + b, Seconds { low: 3.0, high: 5.5 });
        assert_eq!(a.max(b), Seconds { low: 2.0, high: 3.0 });
        assert_eq!(a.times(4.0), Seconds { low: 4.0, high: 12.0 });
    }

    #[test]
    fn runs_are_timed_by_cpu_time_not_by_waiting() {
        // sleeping costs no CPU time: a run that only sleeps is timed near 0, at a huge speed
        let mut runs = Runs::new(1.0);
        for _ in 0..3 {
            runs.time(|| {
                std::thread::sleep(std::time::Duration::from_millis(30));
                Ok(())
            })
            .unwrap();
        }
        assert_eq!(runs.speeds.len(), 3);
        assert!(runs.spread().slow > 1.0 / 0.02, "{:?}", runs.spread());
        // a run that fails is not counted
        let e = runs.time(|| Err(crate::Error::Interrupted)).unwrap_err();
        assert!(matches!(e, crate::Error::Interrupted), "{e}");
        assert_eq!(runs.speeds.len(), 3);
    }
}
