//! fibtree's own time for the n of a `stress` run, beside the program's: the library counting
//! c(n, G) in the program's form for one n at a time (as `fibtree count N --mod-only --mod M`, or
//! `fibtree count N` for the exact value, computes it), timed on the wall clock, on the session's
//! threads, after the program's runs. The true values came from one run over every n at once,
//! whose time is no one n's: these runs are made for the comparison alone, for a few of the n
//! run, the largest first, within a budget.

use std::time::{Duration, Instant};

use serde::Serialize;

use fibtree::Options;

use super::forms::{AnswerForm, Truth};

/// The most n timed.
const TIMED: usize = 8;

/// fibtree's own times (fields in alphabetical order, as the JSON lists them).
#[derive(Clone, Debug, Serialize)]
pub(super) struct OwnTimes {
    /// What was timed, in words.
    pub(super) how: String,
    pub(super) threads: usize,
    /// `(n, seconds)`, ascending n.
    pub(super) times: Vec<OwnTime>,
}

/// fibtree's time for one n.
#[derive(Clone, Debug, Serialize)]
pub(super) struct OwnTime {
    pub(super) n: u64,
    pub(super) seconds: f64,
}

/// The n of `run` (ascending) that are timed: up to [`TIMED`] at equal steps among them from the
/// largest to the smallest, the largest first.
fn chosen(run: &[u64]) -> Vec<u64> {
    let (len, count) = (run.len(), TIMED.min(run.len()));
    (0..count).map(|k| run[len - 1 - k * (len - 1) / (count - 1).max(1)]).collect()
}

/// The times of c(n, `g`) in `form` for some of the n `run` (ascending), the largest first, until
/// their total passes `budget` (one at least). A stop (Ctrl-C) ends them with those timed.
///
/// # Errors
/// As [`Truth::of`], but for a stop.
pub(super) fn own_times(
    form: AnswerForm,
    run: &[u64],
    g: u64,
    options: &Options,
    threads: usize,
    budget: Duration,
) -> crate::error::Result<OwnTimes> {
    let start = Instant::now();
    let mut times = Vec::new();
    for n in chosen(run) {
        if !times.is_empty() && start.elapsed() >= budget {
            break;
        }
        let began = Instant::now();
        match Truth::of(form, &[n], g, options) {
            Ok(_) => times.push(OwnTime { n, seconds: (began.elapsed().as_secs_f64() * 1e6).round() / 1e6 }),
            Err(crate::error::Error::Library(fibtree::Error::Interrupted)) => break,
            Err(e) => return Err(e),
        }
    }
    times.reverse();
    let on = fibtree_util::counted(threads as u64, "thread");
    let how = format!("the library counting c(n, {g}) as {}, one n at a time, on {on}", form.name());
    Ok(OwnTimes { how, threads, times })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_first_and_a_spread_below() {
        assert_eq!(chosen(&[5]), [5]);
        assert_eq!(chosen(&[1, 2, 3]), [3, 2, 1]);
        let run: Vec<u64> = (1..=40).collect();
        assert_eq!(chosen(&run), [40, 35, 29, 24, 18, 13, 7, 1]);
        assert_eq!(chosen(&[]), Vec::<u64>::new());
    }

    #[test]
    fn times_of_the_library() {
        let run: Vec<u64> = (1..=30).collect();
        let own = own_times(AnswerForm::Exact, &run, 0, &Options::default(), 1, Duration::from_secs(60)).unwrap();
        let ns: Vec<u64> = own.times.iter().map(|t| t.n).collect();
        assert_eq!(ns, [1, 6, 10, 14, 18, 22, 26, 30]);
        assert!(own.how.contains("as the exact value") && own.how.ends_with("on 1 thread"), "{}", own.how);
        // past the budget after the first: the largest alone
        let own = own_times(AnswerForm::Modulo(7), &run, 0, &Options::default(), 2, Duration::ZERO).unwrap();
        assert_eq!(own.times.iter().map(|t| t.n).collect::<Vec<_>>(), [30]);
    }
}
