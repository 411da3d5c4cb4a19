//! The checkpoint's encoding round trip and its damage detection, and runs resumed from saved states.

use super::*;
use crate::engines::blocked::{self, Tuning};
use crate::engines::to_biguint;
use crate::plan::Plan;
use crate::targets::Targets;

/// A copy of a state, through its encoding.
fn clone(state: &State) -> State {
    let mut bytes = Vec::new();
    write_state(state, &mut bytes);
    read_state(&mut bytes.as_slice()).expect("a state reads back what it wrote")
}

/// The states a run over `targets` passes between its segments.
fn states(targets: &[(u64, u64)], tuning: Tuning) -> Vec<State> {
    let targets = &Targets::new(targets);
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
    let targets = Targets::new(&[(900, 0)]);
    let plan = Plan::new(&targets, u64::MAX, Hooks::default()).unwrap();
    let mut whole = Vec::new();
    blocked::run_exact(&plan, &targets, Hooks::default(), tuning(), |_, w| whole = w.to_vec()).unwrap();
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
    let targets = Targets::new(&[(900, 0), (100, 0)]);
    let plan = Plan::new(&targets, u64::MAX, Hooks::default()).unwrap();
    let late = states(&targets, tuning()).into_iter().find(|s| s.k0 > 300);
    let resumed = blocked::run_resumable(&plan, &targets, Hooks::default(), tuning(), late, None, |_, _| {
        panic!("no value can be reported")
    });
    assert!(matches!(resumed, Err(Error::InvalidArgument { param: Param::Checkpoint, .. })), "{resumed:?}");
}

#[test]
fn a_checkpoint_that_cannot_be_removed_is_a_warning_not_an_error() {
    let dir = std::env::temp_dir().join(format!("fibtree-ckpt-finish-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // a non-empty folder where the checkpoint was: removing it fails
    std::fs::create_dir_all(dir.join("run.ckpt").join("inside")).unwrap();
    let spec = Checkpoint { path: dir.join("run.ckpt"), every: Duration::from_secs(1), fresh: false, keep: false };
    let said = std::sync::Mutex::new(Vec::new());
    let notice = |line: &str| said.lock().unwrap().push(line.to_string());
    finish(&spec, Hooks::default().notices_to(&notice));
    let said = said.into_inner().unwrap();
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].starts_with("warning:") && said[0].contains("run.ckpt"), "{said:?}");
    // and a checkpoint path that is a folder is refused before a run
    let refused = hold(&spec).unwrap_err().to_string();
    assert!(refused.contains("not a regular file"), "{refused}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_hold_is_exclusive_and_released_when_dropped() {
    let dir = std::env::temp_dir().join(format!("fibtree-ckpt-hold-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let spec = Checkpoint { path: dir.join("run.ckpt"), every: Duration::from_secs(1), fresh: false, keep: false };
    let first = hold(&spec).unwrap();
    let refused = hold(&spec).unwrap_err().to_string();
    assert!(refused.contains(&format!("process {}", std::process::id())), "{refused}");
    drop(first);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "the lock file goes with the hold");
    drop(hold(&spec).unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_checkpoint_resumes_in_the_chunks_it_was_cut_into() {
    let dir = std::env::temp_dir().join(format!("fibtree-ckpt-chunks-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let target = (900, 0);
    let plan = Plan::new(&crate::targets::Targets::new(&[target]), u64::MAX, Hooks::default()).unwrap();
    // 4-lane chunks, where this version cuts the run into wider ones
    assert_ne!(Tuning::for_width(plan.widest_layer()).chunk_lanes, 4);
    let state = states(&[target], tuning()).into_iter().find(|s| s.k0 > 300).unwrap();
    let moduli = [crate::report::LAST18, crate::report::P998244353];
    let residues: Vec<u64> = moduli.iter().map(|&m| crate::count_mod(target.0, target.1, m).unwrap()).collect();
    let path = dir.join("run.ckpt");
    std::fs::write(&path, encode(target, &moduli, &residues, &state)).unwrap();
    let spec = Checkpoint { path, every: Duration::from_secs(3600), fresh: false, keep: false };
    let options = crate::report::Options { checkpoint: Some(spec), ..Default::default() };
    let report = crate::Counting::new(&[target], &options).unwrap().reports().unwrap().remove(0);
    assert_eq!(report.value, crate::count(target.0, target.1).unwrap());
    assert!(report.ok());
    std::fs::remove_dir_all(&dir).unwrap();
}
