//! The top-down half of a count from both ends started while the plan is made: it reads no layer of
//! the plan (only the edge values and the support its layers are thinned by), so it can run on the
//! threads the plan's backward pass leaves free; it pauses between two of its segments once the
//! plan is made, and goes on from there beside the bottom-up half ([`count_taking`]).

use std::sync::atomic::{AtomicBool, Ordering};

use num_bigint::BigUint;

use super::cut::assert_cut;
use crate::engines::blocked::{self, Run, State, Sweep, Tuning};
use crate::engines::reference::to_biguint;
use crate::error::{Error, Result};
use crate::hooks::Hooks;
use crate::plan::Plan;
use crate::targets::Targets;

#[cfg(doc)]
use super::count_taking;

/// A top-down half started early: where it paused (or ended), and what it found so far.
#[derive(Debug)]
pub(crate) struct Started {
    /// The cut it runs to.
    pub(crate) cut: u64,
    /// The top-down sweep's state between two of its segments.
    pub(crate) state: State,
    /// The paths found so far to the direct moves above the cut: the first sum of the join.
    pub(crate) direct: BigUint,
}

/// Runs the top-down half of the count of (n, g) cut at `cut` (3 <= n, 2 <= cut < n) over
/// `skeleton` (the plan's edge values and support, [`Plan::below_alongside`]), in segments, until
/// `done` is set (the plan is made) or the half ends, in chunks cut for layers of `widest` states
/// (the plan's sizes are not known yet). Its progress is not told: the resumed run tells it.
/// `None` where it did nothing (`done` was set before it began) or could not run (an error the
/// half meets again where it runs from the start).
///
/// Cost: the half's work up to where it pauses, on the current rayon pool's free threads; a pause
/// comes within one segment (four blocks); memory the half's edge layers, as in
/// [`super::count_blocked`].
///
/// # Errors
/// [`Error::Interrupted`] when `hooks` are cancelled.
pub(crate) fn start_top_down(
    skeleton: &Plan,
    (n, g): (u64, u64),
    cut: u64,
    widest: usize,
    hooks: Hooks,
    done: &AtomicBool,
) -> Result<Option<Started>> {
    assert!(n >= 3 && cut < n, "a count from both ends: 3 <= n, cut < n, got n = {n}, cut {cut}");
    assert_cut(n, cut);
    if done.load(Ordering::Relaxed) {
        return Ok(None);
    }
    let down = Sweep::Down { n: n as usize, seed: g, cut: cut as usize };
    let tuning = Tuning::for_lanes(widest, down.lanes(down.last_step()), rayon::current_num_threads());
    let mut paused = None;
    let mut at_boundary = |state: &State, stopping: bool| {
        if stopping {
            paused = Some(state.clone());
        }
        Ok(())
    };
    let mut direct = BigUint::ZERO;
    let sink = |times: usize, words: &[u64]| direct += to_biguint(words) * times as u32;
    let quiet = hooks.without_progress().also_stopped_by(done);
    let none = Targets::default();
    let run = Run { sweep: Some(down), ..Run::exact(skeleton, &none, quiet, tuning) };
    let ran = blocked::run(run, Some(&mut at_boundary), sink);
    let state = match ran {
        Ok(state) => state, // the whole half, before the plan was made
        Err(Error::Interrupted) if hooks.cancelled() => return Err(Error::Interrupted),
        // a stop at a boundary saves the state
        Err(Error::Interrupted) => match paused {
            Some(state) => state,
            None => return Ok(None),
        },
        Err(_) => return Ok(None),
    };
    Ok((state.k0 > 2).then_some(Started { cut, state, direct }))
}
