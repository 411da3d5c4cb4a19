//! The checkpoint's encoding round trip and its damage detection, and runs resumed from saved states.

use super::*;
use crate::engines::blocked::{self, Tuning};
use crate::engines::to_biguint;
use crate::plan::Plan;

/// A copy of a state, through its encoding.
fn clone(state: &State) -> State {
    let mut bytes = Vec::new();
    write_state(state, &mut bytes);
    read_state(&mut bytes.as_slice()).expect("a state reads back what it wrote")
}

/// The states a run over `targets` passes between its segments.
fn states(targets: &[(u64, u64)], tuning: Tuning) -> Vec<State> {
    let plan = Plan::new(targets, u64::MAX, Hooks::default()).unwrap();
    let mut states = Vec::new();
    let mut keep = |s: &State, _| {
        states.push(clone(s));
        Ok(())
    };
    blocked::run_resumable(&plan, targets, Hooks::default(), tuning, None, Some(&mut keep), |_, _| {}).unwrap();
    states
}

fn tuning() -> Tuning {
    Tuning { block_layers: 40, chunk_lanes: 4, ..Tuning::for_width(1) }
}

#[test]
fn encoding_round_trips_and_detects_damage() {
    let state = states(&[(300, 0)], tuning()).into_iter().find(|s| s.k0 > 150).unwrap();
    let saved = Saved { n: 300, g: 0, moduli: vec![7, 11], residues: vec![3, 5], state };
    let bytes = encode((300, 0), &saved.moduli, &saved.residues, &saved.state);
    assert_eq!(decode(&bytes).unwrap(), saved);
    for at in [0, 9, bytes.len() / 2, bytes.len() - 1] {
        let mut bad = bytes.clone();
        bad[at] ^= 0x40;
        assert!(decode(&bad).is_err(), "a flipped byte at {at}");
    }
    for len in [0, 7, 8, 100, bytes.len() - 1] {
        assert!(decode(&bytes[..len]).is_err(), "truncated to {len}");
    }
}

#[test]
fn a_resumed_run_gives_the_same_value() {
    let targets = [(900, 0)];
    let plan = Plan::new(&targets, u64::MAX, Hooks::default()).unwrap();
    let mut whole = Vec::new();
    blocked::run_with(&plan, &targets, Hooks::default(), tuning(), |_, w| whole = w.to_vec()).unwrap();
    for state in states(&targets, tuning()).into_iter().step_by(3) {
        let mut resumed = Vec::new();
        blocked::run_resumable(&plan, &targets, Hooks::default(), tuning(), Some(state), None, |_, w| {
            resumed = w.to_vec()
        })
        .unwrap();
        assert_eq!(to_biguint(&resumed), to_biguint(&whole));
    }
}

#[test]
fn a_state_past_a_target_is_refused() {
    let targets = [(900, 0), (100, 0)];
    let plan = Plan::new(&targets, u64::MAX, Hooks::default()).unwrap();
    let late = states(&targets, tuning()).into_iter().find(|s| s.k0 > 300);
    let resumed = blocked::run_resumable(&plan, &targets, Hooks::default(), tuning(), late, None, |_, _| {
        panic!("no value can be reported")
    });
    assert!(matches!(resumed, Err(Error::InvalidArgument { param: Param::Checkpoint, .. })), "{resumed:?}");
}
