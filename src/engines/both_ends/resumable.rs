//! A count from both ends that a checkpoint can stop and resume: the halves one after the other,
//! each in segments, and where it stands between two of them ([`Position`], [`Point`]).

use std::sync::atomic::AtomicU64;

use num_bigint::BigUint;

use super::joined::{HalfSweeps, assert_cut, bottom_up_tuning, join};
use crate::engines::blocked::{self, CHUNK_LANES, Run, State, Sweep, Tally, Tuning};
use crate::engines::reference::to_biguint;
use crate::error::{Error, Param, Result};
use crate::hooks::Hooks;
use crate::plan::Plan;
use crate::targets::Targets;

#[cfg(doc)]
use super::count_blocked;

/// Where a resumable count from both ends stands between two segments of one of its halves: what a
/// checkpoint holds. The halves run one after the other.
#[derive(Debug, PartialEq)]
pub(crate) enum Position {
    /// The bottom-up half (to the top layer where `cut` is n) at `state`.
    Up { cut: u64, state: State },
    /// The bottom-up half done (`below`, its last two layers), the top-down one at `state`, and
    /// `direct` (in the words format) the paths it has found to the direct moves so far.
    Down { cut: u64, below: Box<State>, direct: Vec<u64>, state: State },
}

impl Position {
    /// The cut of the run.
    pub(crate) fn cut(&self) -> u64 {
        match self {
            Position::Up { cut, .. } | Position::Down { cut, .. } => *cut,
        }
    }
}

/// Where a resumable count stands as [`count_resumable`] hands it to be saved.
pub(crate) enum Point<'a> {
    Up { cut: u64, state: &'a State },
    Down { cut: u64, below: &'a State, direct: &'a BigUint, state: &'a State },
}

/// Why a saved position is refused, the checkpoint's file named by the caller.
const DOES_NOT_FIT: &str = "its saved state does not fit this count (the cut, the half or the layers' shapes differ from \
     what the plan of this count gives): the file is damaged, or was not written by fibtree; it is left as it is \
     (use --fresh to start over)";

/// Checks a position read from a checkpoint (`resume`) against the plan of the count of `(n, g)` cut
/// at `cut`, before any work: the cut a layer of T(n), the position's the same; a bottom-up half's
/// state at a layer it reaches, its two non-zero sets those of the plan there; a top-down half's
/// the same of its own sweep, with the bottom-up half's state complete (past the last layer below
/// the cut) and the paths to the direct moves in the words format. What the plan determines is so
/// checked; the lanes' values are not (the residues and the parity check the value they give).
///
/// Cost: the non-zero sets of the layers up to the saved ones, O(plan).
///
/// # Errors
/// [`Error::InvalidArgument`] naming [`Param::Checkpoint`] where the position does not fit.
pub(crate) fn check_resume(
    plan: &Plan,
    (n, g): (u64, u64),
    cut: u64,
    resume: Option<&Position>,
    hooks: Hooks,
) -> Result<()> {
    let does_not_fit = || Error::invalid(Param::Checkpoint, DOES_NOT_FIT);
    // the cut of a count of T(n): a layer from 2 to n (n itself, bottom-up alone, for n < 3)
    let cut_fits = (2..=n).contains(&cut) || (n < 3 && cut == n);
    if !cut_fits || resume.is_some_and(|r| r.cut() != cut) {
        return Err(does_not_fit());
    }
    // every state of the target's plan is at most g | (W - 1) (plan/mod.rs)
    let w = crate::game::window(n, hooks)?;
    let hi = g | (w - 1);
    // the sweeps as the run makes them, to check a saved state against the plan before the plan
    // hands its layers over
    let up = if n < 3 || cut >= n { Sweep::Up { last: plan.top() } } else { Sweep::Up { last: cut as usize } };
    let fits = match resume {
        Some(Position::Up { state, .. }) => state.fits(hi) && state.fits_plan(plan, up),
        Some(Position::Down { below, state, direct, .. }) => {
            let down = Sweep::Down { n: n as usize, seed: g, cut: cut as usize };
            // the bottom-up half is done: its state past the last layer below the cut
            below.k0 == up.last_step() + 1
                && below.fits(hi)
                && state.fits(hi)
                && direct.first().is_some_and(|&l| l as usize + 1 == direct.len())
                && n >= 3
                && cut < n
                && below.fits_plan(plan, up)
                && state.fits_plan(plan, down)
        }
        None => true,
    };
    if fits { Ok(()) } else { Err(does_not_fit()) }
}

/// What a resumable count calls between segments: `(point, stopping)`, as
/// [`crate::engines::blocked::run`]'s `at_boundary`.
pub(crate) type Save<'s> = dyn FnMut(Point, bool) -> Result<()> + 's;

/// [`count_blocked`] at `cut` (n for the bottom-up count alone) over a plan given up to the count,
/// resumable: the bottom-up half, then the top-down one, each in segments, from `resume` where
/// given (a checkpoint's, whose cut it must be), calling `save` between segments as
/// [`crate::engines::blocked::run`] calls its `at_boundary` (with `stopping` true once when cancelled).
/// A resumed half goes on in the chunks it was cut into.
///
/// Cost: as [`count_blocked`], the halves one after the other; memory the same, the bottom-up
/// half's last two layers kept while the top-down one runs.
///
/// # Errors
/// As [`count_blocked`]; [`Error::InvalidArgument`] naming [`Param::Checkpoint`] for a state that
/// does not fit the run; whatever `save` returns.
///
/// # Panics
/// As [`count_blocked`].
pub(crate) fn count_resumable(
    mut plan: Plan,
    (n, g): (u64, u64),
    cut: u64,
    hooks: Hooks,
    resume: Option<Position>,
    save: &mut Save,
) -> Result<BigUint> {
    check_resume(&plan, (n, g), cut, resume.as_ref(), hooks)?;
    let does_not_fit = || Error::invalid(Param::Checkpoint, DOES_NOT_FIT);
    let in_chunks = |mut tuning: Tuning, state: Option<&State>| {
        if let Some(state) = state.filter(|s| CHUNK_LANES.contains(&s.chunk_lanes)) {
            tuning.chunk_lanes = state.chunk_lanes;
        }
        tuning
    };
    if n < 3 || cut >= n {
        let start = match resume {
            Some(Position::Up { state, .. }) => Some(state),
            Some(Position::Down { .. }) => return Err(does_not_fit()),
            None => None,
        };
        let tuning = in_chunks(bottom_up_tuning(&plan, n), start.as_ref());
        let mut value = BigUint::ZERO;
        let mut at_boundary = |state: &State, stopping| save(Point::Up { cut, state }, stopping);
        let target = Targets::one(n, g);
        let run = Run { start, ..Run::exact(&plan, &target, hooks, tuning) };
        blocked::run(run, Some(&mut at_boundary), |_, words| value = to_biguint(words))?;
        return Ok(value);
    }
    assert_cut(n, cut);
    let halves = HalfSweeps::new(&plan, (n as usize, g), cut as usize, |t| t);
    let done = AtomicU64::new(0);
    let tally = Some(Tally { done: &done, total: halves.total });
    let none = Targets::default();
    let (below, direct, start) = match resume {
        Some(Position::Down { below, direct, state, .. }) => {
            drop(plan.hand_over(0)); // the top-down half makes its own layers
            (*below, to_biguint(&direct), Some(state))
        }
        up => {
            let start = match up {
                Some(Position::Up { state, .. }) => Some(state),
                _ => None,
            };
            let handed = plan.hand_over(cut as usize);
            // the layers a resumed half has passed are no longer read
            for layer in handed.iter().take(start.as_ref().map_or(0, |s| s.k0)) {
                *layer.lock().expect("not poisoned") = Default::default();
            }
            let tuning = in_chunks(halves.tuning_up, start.as_ref());
            let mut at_boundary = |state: &State, stopping| save(Point::Up { cut, state }, stopping);
            let handed = Some(&handed[..]);
            let run = Run { sweep: Some(halves.up), tally, handed, start, ..Run::exact(&plan, &none, hooks, tuning) };
            let below = blocked::run(run, Some(&mut at_boundary), |_, _| {})?;
            (below, BigUint::ZERO, None)
        }
    };
    let direct = std::sync::Mutex::new(direct);
    let tuning = in_chunks(halves.tuning_down, start.as_ref());
    let mut at_boundary = |state: &State, stopping| {
        let direct = direct.lock().expect("not poisoned");
        save(Point::Down { cut, below: &below, direct: &direct, state }, stopping)
    };
    let run = Run { sweep: Some(halves.down), tally, start, ..Run::exact(&plan, &none, hooks, tuning) };
    let top = blocked::run(run, Some(&mut at_boundary), |times, words| {
        *direct.lock().expect("not poisoned") += to_biguint(words) * times as u32;
    })?;
    join(&below, &top, cut as usize, direct.into_inner().expect("not poisoned"), hooks)
}
