//! The counts from both ends against the bottom-up count, at every cut.

use num_bigint::BigUint;

use super::cut::best_cut;
use super::*;
use crate::cost::{both_ends_limb_additions, limb_additions};
use crate::engines::Engine;
use crate::engines::blocked::{State, Tuning};
use crate::error::{Error, Param};
use crate::hooks::Hooks;
use crate::plan::Plan;
use crate::targets::Targets;

fn plan_of(n: u64, g: u64) -> Plan {
    Plan::new(&Targets::one(n, g), u64::MAX, Hooks::default()).unwrap()
}

/// Every cut, the ends and the layers next to 0, 1 and 2 among them, gives the bottom-up count,
/// for small trees in full and for random (n, g) from a fixed, printed seed.
#[test]
fn every_cut_gives_the_bottom_up_count() {
    let seed = 0xb07e_4e4d;
    println!("SplitMix64 seed {seed:#x}");
    let mut rng = fibtree_util::SplitMix64(seed);
    let mut cases: Vec<(u64, u64)> = (0..=12).flat_map(|n| (0..12).map(move |g| (n, g))).collect();
    cases.extend((0..12).map(|_| (2 + rng.below(400), rng.below(48))));
    cases.extend([(300, 1 << 40), (500, 0), (64, 5)]);
    for (n, g) in cases {
        let plan = plan_of(n, g);
        let want = crate::engines::count_exact(Engine::Reference, &plan, &Targets::one(n, g), Hooks::default())
            .unwrap()
            .remove(0);
        for cut in 1..=n.max(1) {
            let got = count(&plan, (n, g), cut, Hooks::default()).unwrap();
            assert_eq!(got, want, "c({n}, {g}) cut at {cut}, seed {seed:#x}");
        }
    }
}

/// The blocked engine's halves give the reference's value at every cut, ends included, for
/// random (n, g) from a fixed, printed seed, on every instruction set the CPU has and chunks of every
/// size.
#[test]
fn the_blocked_halves_agree_at_every_cut() {
    let seed = 0x5eed_b0e5;
    println!("SplitMix64 seed {seed:#x}");
    let mut rng = fibtree_util::SplitMix64(seed);
    let mut cases: Vec<(u64, u64)> = vec![(3, 0), (4, 1), (5, 0), (40, 0), (64, 5), (300, 1 << 40), (700, 0)];
    cases.extend((0..8).map(|_| (3 + rng.below(500), rng.below(40))));
    for (n, g) in cases {
        let plan = plan_of(n, g);
        let want = count(&plan, (n, g), n, Hooks::default()).unwrap();
        let cuts: Vec<u64> = if n <= 64 { (2..=n).collect() } else { vec![2, 3, 4, n / 3, n / 2, n - 2, n - 1, n] };
        for cut in cuts {
            for isa in crate::kernels::Isa::available() {
                for chunk_lanes in [1, 4, 16] {
                    let tune = |t| Tuning { isa, chunk_lanes, ..t };
                    let got = count_blocked(&plan, (n, g), cut, Hooks::default(), tune).unwrap();
                    assert_eq!(got, want, "c({n}, {g}) cut at {cut}, {isa:?}, {chunk_lanes} lanes, seed {seed:#x}");
                }
            }
        }
    }
}

/// The same count from both ends on 1, 2, 3 and 8 threads (chunks cut smaller for more
/// threads, the halves' tasks interleaved differently).
#[test]
fn the_halves_give_the_same_count_on_any_threads() {
    let (n, g) = (900, 3);
    let plan = plan_of(n, g);
    let want = count(&plan, (n, g), n, Hooks::default()).unwrap();
    let (cut, _) = best_cut(plan.lens());
    for threads in [1, 2, 3, 8] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let got = pool.install(|| count_blocked(&plan, (n, g), cut as u64, Hooks::default(), |t| t)).unwrap();
        assert_eq!(got, want, "{threads} threads, cut at {cut}");
    }
}

/// A cancelled count from both ends stops with [`Error::Interrupted`], not a value.
#[test]
fn a_cancelled_count_from_both_ends_is_interrupted() {
    let plan = plan_of(2000, 0);
    let cancel = std::sync::atomic::AtomicBool::new(true);
    let hooks = Hooks::default().cancel_on(&cancel);
    let got = count_blocked(&plan, (2000, 0), 1000, hooks, |t| t);
    assert!(matches!(got, Err(Error::Interrupted)), "{got:?}");
}

#[test]
fn the_oracle_agrees_from_both_ends() {
    for k in 2..=16u64 {
        let oracle = fibtree_oracles::explicit_tree_counts(k as u32).unwrap();
        for (g, &want) in oracle.iter().enumerate() {
            let plan = plan_of(k, g as u64);
            let got = count(&plan, (k, g as u64), k.div_ceil(2), Hooks::default()).unwrap();
            assert_eq!(got, BigUint::from(want), "c({k}, {g})");
        }
    }
}

#[test]
fn a_cut_outside_the_layers_is_refused() {
    let plan = plan_of(30, 0);
    for cut in [0, 31, u64::MAX] {
        let got = count(&plan, (30, 0), cut, Hooks::default());
        assert!(matches!(got, Err(Error::InvalidArgument { param: Param::N, .. })), "{cut}: {got:?}");
    }
}

/// The cost model at n = 10000: the bottom-up run's additions at the top cut, and a best cut near
/// n / 2 with at most 0.70 of them (6.21e8 bottom-up over the plan, 3.73e8 from both ends; over
/// the plan with its states of count zero, 7.64e8 and 5.15e8: docs/math.md, "Zero states").
#[test]
fn the_best_cut_halves_the_work_where_the_layers_are_wide() {
    let plan = plan_of(10_000, 0);
    let lens = plan.lens();
    assert_eq!(both_ends_limb_additions(lens, 10_000), limb_additions(lens));
    assert_eq!(limb_additions(lens), 620_736_444);
    let (cut, work) = best_cut(lens);
    assert_eq!(work, both_ends_limb_additions(lens, cut));
    assert!((1..=10_000).all(|m| both_ends_limb_additions(lens, m) >= work));
    assert!((4000..6000).contains(&cut), "cut {cut}");
    let ratio = work as f64 / 620_736_444.0;
    assert!(ratio <= 0.70, "{work} limb additions from both ends, {ratio:.3} of bottom-up");
    println!("n = 10000: best cut {cut}, {work} limb additions, {ratio:.3} of bottom-up");
    let unthinned = Plan::unthinned(&Targets::one(10_000, 0));
    assert_eq!(limb_additions(unthinned.lens()), 763_862_076);
    assert_eq!(best_cut(unthinned.lens()).1, 514_742_749);
    assert!(work <= 514_742_749 * 78 / 100, "{work}: the states of count zero left out");
}

/// The best cut is the bound on it whatever the layers' sizes (docs/math.md, "Counting from both
/// ends"), so that a count from both ends knows its cut before its plan: for random sizes (zeros
/// among them; fixed, printed seed) and for the plans of the tests.
#[test]
fn the_best_cut_is_known_before_the_plan() {
    let seed = 0xc075_be57u64;
    println!("SplitMix64 seed {seed:#x}");
    let mut rng = fibtree_util::SplitMix64(seed);
    for case in 0..400 {
        let n = 3 + rng.below([20, 300, 5000, 40_000][case % 4]) as usize;
        let lens: Vec<u32> =
            (0..=n).map(|k| if k < 2 || rng.below(5) == 0 { 0 } else { rng.below(9000) as u32 }).collect();
        let halves = super::halves(&lens, Cut::Auto);
        assert_eq!(halves.cut as usize, keep_for_both_ends(n), "n = {n}, case {case}, seed {seed:#x}");
        assert_eq!(halves.work(), best_cut(&lens).1, "n = {n}, case {case}, seed {seed:#x}");
    }
    for (n, g) in [(300, 0), (2000, 3), (10_000, 0)] {
        let plan = plan_of(n, g);
        assert_eq!(super::halves(plan.lens(), Cut::Auto).cut as usize, keep_for_both_ends(n as usize));
    }
}

/// A top-down half started while the plan is made, paused wherever the plan's end finds it (or run
/// whole, or not at all), goes on beside the bottom-up half to the bottom-up count, on 1, 2 and 3
/// threads.
#[test]
fn a_top_down_half_started_early_gives_the_same_count() {
    use std::sync::atomic::{AtomicBool, Ordering};
    for (n, g) in [(300u64, 0u64), (700, 3), (2000, 0), (1500, 1 << 40)] {
        let targets = Targets::one(n, g);
        let want = count(&plan_of(n, g), (n, g), n, Hooks::default()).unwrap();
        let cut = keep_for_both_ends(n as usize) as u64;
        for (threads, delay) in [(1, None), (2, None), (2, Some(0)), (3, Some(2)), (2, Some(20))] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let got = pool.install(|| {
                // the half's own stop: never (it runs whole), or set by another thread after `delay` ms
                let stop = AtomicBool::new(false);
                let start = |skeleton: &Plan, done: &AtomicBool| {
                    let flag = if delay.is_some() { &stop } else { done };
                    start_top_down(skeleton, (n, g), cut, 256, Hooks::default(), flag)
                };
                let stop_ref = &stop;
                let (plan, started) = std::thread::scope(|s| {
                    if let Some(ms) = delay {
                        s.spawn(move || {
                            std::thread::sleep(std::time::Duration::from_millis(ms));
                            stop_ref.store(true, Ordering::Relaxed)
                        });
                    }
                    let keep = keep_for_both_ends(n as usize);
                    Plan::below_alongside(&targets, keep, u64::MAX, Hooks::default(), start).unwrap()
                });
                let started = started.unwrap();
                assert!(started.as_ref().is_none_or(|s| s.cut == cut && s.state.k0 > 2));
                count_taking(plan, (n, g), cut, Hooks::default(), started).unwrap()
            });
            assert_eq!(got, want, "c({n}, {g}) on {threads} threads, stopped after {delay:?} ms");
        }
    }
}

/// The words of `position`, as [`Position::write`] hands them over.
fn words_of(position: &Position) -> Vec<u64> {
    let mut words = Vec::new();
    position
        .write(&mut |w| {
            words.push(w);
            Ok(())
        })
        .unwrap();
    words
}

/// A position read back from its words.
fn read_back(words: &[u64]) -> Position<'static> {
    let mut rest = words[2..].iter().copied();
    Position::read(words[0], words[1], &mut |_| rest.next()).expect("a position reads back what it wrote")
}

/// The positions a count of (n, g) cut at `cut` saves, each through its words, and its value.
fn saved_positions((n, g, cut): (u64, u64, u64)) -> (Vec<Position<'static>>, num_bigint::BigUint) {
    let plan = crate::plan::Plan::new(&Targets::one(n, g), u64::MAX, Hooks::default()).unwrap();
    let mut positions = Vec::new();
    let mut keep = |position: &Position, _| {
        positions.push(read_back(&words_of(position)));
        Ok(())
    };
    let value = count_resumable(plan, (n, g), cut, Hooks::default(), None, &mut keep).unwrap();
    (positions, value)
}

/// Resumes the count of (n, g) cut at `cut` from `position`.
fn resume_from((n, g, cut): (u64, u64, u64), position: Position<'static>) -> crate::error::Result<num_bigint::BigUint> {
    let plan = crate::plan::Plan::new(&Targets::one(n, g), u64::MAX, Hooks::default()).unwrap();
    let mut ignore = |_: &Position, _| Ok(());
    count_resumable(plan, (n, g), cut, Hooks::default(), Some(position), &mut ignore)
}

/// A position's words read back are the position, in either half; a resumed count from any of them
/// gives the value of the run never stopped.
#[test]
fn positions_round_trip_through_their_words_and_resume() {
    for run in [(900, 0, 900), (700, 0, 350)] {
        let (positions, whole) = saved_positions(run);
        assert!(positions.len() > 2, "{run:?}");
        for position in positions.iter().step_by(3) {
            assert_eq!(read_back(&words_of(position)), *position);
            assert_eq!(resume_from(run, position.clone()).unwrap(), whole, "{run:?} from {}", position.stands(run.0));
        }
    }
}

/// A run of several targets resumed from a state past one of them is refused: it has no value for
/// it.
#[test]
fn a_state_past_a_target_is_refused() {
    use crate::engines::blocked::{self, State, Tuning};
    let targets = Targets::new(&[(900, 0), (100, 0)]);
    let plan = crate::plan::Plan::new(&targets, u64::MAX, Hooks::default()).unwrap();
    let tuning = Tuning { block_layers: 40, chunk_lanes: 4, ..Tuning::for_width(1) };
    let mut late = None;
    let mut keep = |s: &State, _| {
        if late.is_none() && s.k0 > 300 {
            late = Some(s.clone());
        }
        Ok(())
    };
    blocked::run(blocked::Run::exact(&plan, &targets, Hooks::default(), tuning), Some(&mut keep), |_, _| {}).unwrap();
    let run = blocked::Run { start: late, ..blocked::Run::exact(&plan, &targets, Hooks::default(), tuning) };
    let resumed = blocked::run(run, None, |_, _| panic!("no value can be reported"));
    assert!(matches!(resumed, Err(Error::InvalidArgument { param: Param::Resume, .. })), "{resumed:?}");
}

/// A position whose state is not one the engine saves (a chunk cut short, a non-zero set far outside
/// the target's window, lanes that do not match the set, another first step) is refused, never run
/// into a panic or a huge allocation; one with a carry no lane can have is not read.
#[test]
fn a_state_inconsistent_with_itself_or_the_plan_is_refused() {
    use crate::engines::blocked::NonZeroSet;
    use crate::plan::LayerSet;
    let run = (700u64, 0u64, 350u64);
    let (positions, _) = saved_positions(run);
    let up = positions.iter().find(|p| !p.stands(run.0).contains("top-down") && p.state().k0 > 100).unwrap();
    let state = up.state().clone();
    let forged: Vec<(&str, State)> = vec![
        ("a chunk cut short", {
            let mut s = state.clone();
            s.chunks[0][1].truncate(3);
            s
        }),
        ("a set moved by 2^62", {
            let mut s = state.clone();
            s.edges[1] = NonZeroSet::new(LayerSet::from_words(1 << 62, s.edges[1].set.words().to_vec()).unwrap());
            s
        }),
        ("a set of every g", {
            let mut s = state.clone();
            s.edges[0] = NonZeroSet::new(LayerSet::from_words(0, vec![u64::MAX; 4096]).unwrap());
            s
        }),
        ("carries of one pass too few", {
            let mut s = state.clone();
            s.carries.pop();
            s
        }),
    ];
    for (what, state) in forged {
        let got = resume_from(run, Position::up(run.2, &state).into_owned());
        assert!(matches!(got, Err(Error::InvalidArgument { param: Param::Resume, .. })), "{what}: {got:?}");
    }
    // a carry of 2^8, above the high bits of any lane (the last word: the last carry of the last
    // pass), does not read as a state; the words as written do
    let mut words = words_of(up);
    assert_eq!(read_back(&words), *up);
    *words.last_mut().unwrap() = 1 << 8;
    let mut rest = words[2..].iter().copied();
    let got = Position::read(words[0], words[1], &mut |_| rest.next());
    assert_eq!(got.err(), Some(crate::engines::blocked::Unread::Carry(1 << 8)), "a carry of 2^8 was read");
    // a state claiming another first step (the values of another layer, of fewer lanes), either half
    let down = positions.iter().rfind(|p| p.stands(run.0).contains("top-down")).unwrap();
    for saved in [up, down] {
        for k0 in [2, 3, 4, 64] {
            let mut words = words_of(saved);
            // the running half's state is the last: its k0 is the first word after the one before it
            let at = words.len() - state_words(saved.state());
            words[at] = k0;
            let got = resume_from(run, read_back(&words));
            assert!(matches!(got, Err(Error::InvalidArgument { param: Param::Resume, .. })), "k0 {k0}: {got:?}");
        }
    }
}

/// The words of `state` alone, as [`State::write`] hands them over.
fn state_words(state: &State) -> usize {
    let mut words = 0;
    state
        .write(&mut |_| {
            words += 1;
            Ok(())
        })
        .unwrap();
    words
}
