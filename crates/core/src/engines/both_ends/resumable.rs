//! A count from both ends that a checkpoint can stop and resume: the halves one after the other,
//! each in segments, and where it stands between two of them ([`Position`]).

use std::borrow::Cow;
use std::sync::atomic::AtomicU64;

use num_bigint::BigUint;

use super::cut::assert_cut;
use super::joined::{HalfSweeps, bottom_up_tuning, join};
use crate::engines::blocked::{self, CHUNK_LANES, Run, State, Sweep, Tally, Tuning, Unread};
use crate::engines::reference::{to_biguint, to_words};
use crate::error::{Error, Param, Result};
use crate::hooks::Hooks;
use crate::plan::Plan;
use crate::targets::Targets;

#[cfg(doc)]
use super::count_blocked;

/// Where a count from both ends stands between two segments of one of its halves, the halves
/// running one after the other: what a checkpoint saves and a count resumes from
/// ([`crate::Request::resume`]). Borrowed from the run as it hands it over to be saved, owned once
/// read back ([`Position::read`]).
///
/// # Examples
///
/// ```
/// use fibtree_core::{Engine, Position, Request};
/// let mut saved = Vec::new();
/// let mut save = |position: &Position, _stopping: bool| {
///     let mut words = Vec::new();
///     position.write(&mut |word| Ok(words.push(word))).unwrap();
///     saved = words;
///     Ok(())
/// };
/// let planned = Request::checked(&[(2000, 0)], Engine::Blocked, &[7]).plan()?;
/// planned.run_saving(&mut save, |_, _, _| Ok(()))?;
/// // the last position saved, read back: cut, half, then the half's state
/// let (cut, half) = (saved[0], saved[1]);
/// let mut words = saved[2..].iter().copied();
/// let position = Position::read(cut, half, &mut |_| words.next()).expect("a position");
/// assert!(position.cut() <= 2000 && position.stands(2000).contains("layer"));
/// # Ok::<(), fibtree_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Position<'a> {
    cut: u64,
    half: Half<'a>,
}

/// The half a [`Position`] is in, with its state.
#[derive(Clone, Debug, PartialEq)]
#[allow(clippy::large_enum_variant, reason = "one position a checkpoint, made and read once: its size costs nothing")]
enum Half<'a> {
    /// The bottom-up half (to the top layer where the cut is n) at `state`.
    Up { state: Cow<'a, State> },
    /// The bottom-up half done (`below`, its last two layers), the top-down one at `state`, and
    /// `direct` the paths it has found to the direct moves so far.
    Down { below: Cow<'a, State>, direct: Cow<'a, BigUint>, state: Cow<'a, State> },
}

impl<'a> Position<'a> {
    /// The bottom-up half at `state`, cut at `cut`.
    pub(crate) fn up(cut: u64, state: &'a State) -> Position<'a> {
        Position { cut, half: Half::Up { state: Cow::Borrowed(state) } }
    }

    /// The top-down half at `state`, the bottom-up one done at `below`.
    pub(crate) fn down(cut: u64, below: &'a State, direct: &'a BigUint, state: &'a State) -> Position<'a> {
        let half =
            Half::Down { below: Cow::Borrowed(below), direct: Cow::Borrowed(direct), state: Cow::Borrowed(state) };
        Position { cut, half }
    }

    /// The layer where the count is cut between its halves (n: bottom-up alone). Cost O(1).
    pub fn cut(&self) -> u64 {
        self.cut
    }

    /// Where the count of T(n) stands, in words: `at layer 5000 of 10000` (bottom-up alone), `from
    /// both ends (cut at layer 5000): bottom-up at layer 3000` or `... top-down at layer 7000 of
    /// 10000`. Cost O(1).
    pub fn stands(&self, n: u64) -> String {
        let cut = self.cut;
        match &self.half {
            Half::Up { state } if cut >= n => format!("at layer {} of {n}", state.k0),
            Half::Up { state } => format!("from both ends (cut at layer {cut}): bottom-up at layer {}", state.k0),
            Half::Down { state, .. } => {
                let layer = (n + 2).saturating_sub(state.k0 as u64);
                format!("from both ends (cut at layer {cut}): top-down at layer {layer} of {n}")
            }
        }
    }

    /// Hands the position's words to `put`, as a file holds them: the cut, the half (0 bottom-up, 1
    /// top-down), then the half's state (in the top-down half: the bottom-up half's, the paths to
    /// the direct moves, a length and then limbs, and the top-down half's). A state is k0, the
    /// chunks' lanes, the two non-zero sets (base, length, words each), the passes' count, then
    /// each pass's chunks and then each pass's carries, a layer at a time (length, words).
    ///
    /// Cost O(the state's words).
    ///
    /// # Errors
    /// Whatever `put` returns.
    pub fn write(&self, put: &mut dyn FnMut(u64) -> std::io::Result<()>) -> std::io::Result<()> {
        match &self.half {
            Half::Up { state } => {
                [self.cut, 0].into_iter().try_for_each(&mut *put)?;
                state.write(put)
            }
            Half::Down { below, direct, state } => {
                [self.cut, 1].into_iter().try_for_each(&mut *put)?;
                below.write(put)?;
                to_words(direct).into_iter().try_for_each(&mut *put)?;
                state.write(put)
            }
        }
    }

    /// Reads the position [`Position::write`] wrote, after its cut and half (given here: a file of
    /// an earlier format may hold a bottom-up state alone), each word from `next`, which is told
    /// whether the word is a length (so that a source can refuse one longer than what it holds
    /// before anything is allocated for it). What a plan determines of it is checked when the count
    /// it resumes is planned ([`crate::Planned::check_resume`]).
    ///
    /// Cost O(the state's words); memory the state.
    ///
    /// # Errors
    /// Why the words are not a position ([`Unread`]): too few, an unknown half, a non-zero set's
    /// window that is not one, a carry above 2^8 - 1.
    pub fn read(
        cut: u64,
        half: u64,
        next: &mut dyn FnMut(bool) -> Option<u64>,
    ) -> std::result::Result<Position<'static>, Unread> {
        let half = match half {
            0 => Half::Up { state: Cow::Owned(State::read(next)?) },
            1 => {
                let below = Cow::Owned(State::read(next)?);
                let len = next(true).ok_or(Unread::Short)?;
                let mut words = vec![len];
                for _ in 0..len {
                    words.push(next(false).ok_or(Unread::Short)?);
                }
                Half::Down { below, direct: Cow::Owned(to_biguint(&words)), state: Cow::Owned(State::read(next)?) }
            }
            other => return Err(Unread::Half(other)),
        };
        Ok(Position { cut, half })
    }

    /// This position, owning its states. Cost O(the states' words), where borrowed.
    #[cfg(test)]
    pub(crate) fn into_owned(self) -> Position<'static> {
        let half = match self.half {
            Half::Up { state } => Half::Up { state: Cow::Owned(state.into_owned()) },
            Half::Down { below, direct, state } => Half::Down {
                below: Cow::Owned(below.into_owned()),
                direct: Cow::Owned(direct.into_owned()),
                state: Cow::Owned(state.into_owned()),
            },
        };
        Position { cut: self.cut, half }
    }

    /// The state of the half running. Cost O(1).
    #[cfg(test)]
    pub(crate) fn state(&self) -> &State {
        match &self.half {
            Half::Up { state } | Half::Down { state, .. } => state,
        }
    }
}

/// Why a saved position is refused, the checkpoint's file named by the caller.
pub(crate) const DOES_NOT_FIT: &str = "its saved state does not fit this count (the cut, the half or the layers' \
     shapes differ from what the plan of this count gives)";

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
/// [`Error::InvalidArgument`] naming [`Param::Resume`] where the position does not fit.
pub(crate) fn check_resume(
    plan: &Plan,
    (n, g): (u64, u64),
    cut: u64,
    resume: Option<&Position>,
    hooks: Hooks,
) -> Result<()> {
    let does_not_fit = || Error::invalid(Param::Resume, DOES_NOT_FIT);
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
    let fits = match resume.map(|r| &r.half) {
        Some(Half::Up { state }) => state.fits(hi) && state.fits_plan(plan, up),
        Some(Half::Down { below, state, .. }) => {
            let down = Sweep::Down { n: n as usize, seed: g, cut: cut as usize };
            // the bottom-up half is done: its state past the last layer below the cut
            below.k0 == up.last_step() + 1
                && below.fits(hi)
                && state.fits(hi)
                && n >= 3
                && cut < n
                && below.fits_plan(plan, up)
                && state.fits_plan(plan, down)
        }
        None => true,
    };
    if fits { Ok(()) } else { Err(does_not_fit()) }
}

/// What a resumable count calls between segments: `(position, stopping)`, as
/// [`crate::engines::blocked::run`]'s `at_boundary`.
pub(crate) type Save<'s> = dyn FnMut(&Position<'_>, bool) -> Result<()> + 's;

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
/// As [`count_blocked`]; [`Error::InvalidArgument`] naming [`Param::Resume`] for a state that
/// does not fit the run; whatever `save` returns.
///
/// # Panics
/// As [`count_blocked`].
pub(crate) fn count_resumable(
    mut plan: Plan,
    (n, g): (u64, u64),
    cut: u64,
    hooks: Hooks,
    resume: Option<Position<'static>>,
    save: &mut Save,
) -> Result<BigUint> {
    check_resume(&plan, (n, g), cut, resume.as_ref(), hooks)?;
    let does_not_fit = || Error::invalid(Param::Resume, DOES_NOT_FIT);
    let in_chunks = |mut tuning: Tuning, state: Option<&State>| {
        if let Some(state) = state.filter(|s| CHUNK_LANES.contains(&s.chunk_lanes)) {
            tuning.chunk_lanes = state.chunk_lanes;
        }
        tuning
    };
    if n < 3 || cut >= n {
        let start = match resume.map(|r| r.half) {
            Some(Half::Up { state }) => Some(state.into_owned()),
            Some(Half::Down { .. }) => return Err(does_not_fit()),
            None => None,
        };
        let tuning = in_chunks(bottom_up_tuning(&plan, n), start.as_ref());
        let mut value = BigUint::ZERO;
        let mut at_boundary = |state: &State, stopping| save(&Position::up(cut, state), stopping);
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
    let (below, direct, start) = match resume.map(|r| r.half) {
        Some(Half::Down { below, direct, state }) => {
            drop(plan.hand_over(0)); // the top-down half makes its own layers
            (below.into_owned(), direct.into_owned(), Some(state.into_owned()))
        }
        up => {
            let start = match up {
                Some(Half::Up { state }) => Some(state.into_owned()),
                _ => None,
            };
            let handed = plan.hand_over(cut as usize);
            // the layers a resumed half has passed are no longer read
            for layer in handed.iter().take(start.as_ref().map_or(0, |s| s.k0)) {
                *layer.lock().expect("not poisoned") = Default::default();
            }
            let tuning = in_chunks(halves.tuning_up, start.as_ref());
            let mut at_boundary = |state: &State, stopping| save(&Position::up(cut, state), stopping);
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
        save(&Position::down(cut, &below, &direct, state), stopping)
    };
    let run = Run { sweep: Some(halves.down), tally, start, ..Run::exact(&plan, &none, hooks, tuning) };
    let top = blocked::run(run, Some(&mut at_boundary), |times, words| {
        *direct.lock().expect("not poisoned") += to_biguint(words) * times as u32;
    })?;
    join(&below, &top, cut as usize, direct.into_inner().expect("not poisoned"), hooks)
}
