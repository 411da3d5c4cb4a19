//! The checkpoint's encoding round trip and its damage detection, and runs resumed from saved states.

use super::*;
use crate::engines::blocked::{self, NonZeroSet, State, Tuning};
use crate::engines::both_ends::Position;
use crate::plan::LayerSet;
use format::MAGIC;

/// Appends the little-endian word `w`, as a file holds it.
fn put(out: &mut Vec<u8>, w: u64) {
    out.extend_from_slice(&w.to_le_bytes());
}

/// The checksum a file ends with.
fn checksum(bytes: &[u8]) -> u64 {
    fibtree_util::fnv1a(bytes)
}
use crate::engines::to_biguint;
use crate::plan::Plan;
use crate::targets::Targets;

/// A copy of a state, through its encoding.
fn clone(state: &State) -> State {
    format::through_the_file(state).expect("a state reads back what it wrote")
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
    blocked::run(blocked::Run::exact(&plan, targets, Hooks::default(), tuning), Some(&mut keep), |_, _| {}).unwrap();
    states
}

fn tuning() -> Tuning {
    Tuning { block_layers: 40, chunk_lanes: 4, ..Tuning::for_width(1) }
}

#[test]
fn encoding_round_trips_and_detects_damage() {
    let state = states(&[(300, 0)], tuning()).into_iter().find(|s| s.k0 > 150).unwrap();
    let point = Point::Up { cut: 300, state: &state };
    let bytes = encode((300, 0), &[7, 11], &[3, 5], &point);
    let progress = Position::Up { cut: 300, state: clone(&state) };
    let saved = Saved { n: 300, g: 0, moduli: vec![7, 11], independent: vec![3, 5], position: progress };
    assert_eq!(decode(&bytes).unwrap(), saved);
    // the top-down half's point, with the bottom-up half's end and the paths found so far
    let direct = num_bigint::BigUint::from(12345u64) << 100;
    let point = Point::Down { cut: 150, below: &state, direct: &direct, state: &state };
    let down = encode((300, 0), &[7], &[3], &point);
    let words = crate::engines::to_words(&direct);
    let progress = Position::Down { cut: 150, below: Box::new(clone(&state)), direct: words, state: clone(&state) };
    assert_eq!(
        decode(&down).unwrap(),
        Saved { n: 300, g: 0, moduli: vec![7], independent: vec![3], position: progress }
    );
    // a file of version 2 (a bottom-up state, no cut) reads as a bottom-up count
    let mut old = MAGIC.to_vec();
    for w in [2, 300, 0, 1, 2, 7, 11, 3, 5] {
        put(&mut old, w);
    }
    old.extend(format::state_bytes(&state));
    let sum = checksum(&old);
    put(&mut old, sum);
    let progress = Position::Up { cut: 300, state: clone(&state) };
    assert_eq!(
        decode(&old).unwrap(),
        Saved { n: 300, g: 0, moduli: vec![7, 11], independent: vec![3, 5], position: progress }
    );
    // a file of version 3: its bottom-up half reads, its top-down half is refused in one line
    let version = |bytes: &[u8], v: u64| {
        let mut old = bytes[..bytes.len() - 8].to_vec();
        old[MAGIC.len()..MAGIC.len() + 8].copy_from_slice(&v.to_le_bytes());
        let sum = checksum(&old);
        put(&mut old, sum);
        old
    };
    assert_eq!(decode(&version(&bytes, 3)), decode(&bytes));
    let refused = decode(&version(&down, 3)).unwrap_err();
    assert!(refused.contains("top-down half") && refused.contains("--fresh") && !refused.contains('\n'), "{refused}");
    assert!(decode(&version(&down, 5)).unwrap_err().contains("reads versions 2 to 4"));
    for at in [0, 9, bytes.len() / 2, bytes.len() - 1] {
        let mut bad = bytes.clone();
        bad[at] ^= 0x40;
        assert!(decode(&bad).is_err(), "a flipped byte at {at}");
    }
    for len in [0, 7, 8, 100, bytes.len() - 1] {
        assert!(decode(&bytes[..len]).is_err(), "truncated to {len}");
    }
    for at in [0, 9, down.len() / 3, down.len() / 2, down.len() - 1] {
        let mut bad = down.clone();
        bad[at] ^= 0x40;
        assert!(decode(&bad).is_err(), "a flipped byte at {at} of the top-down half's file");
    }
}

#[test]
fn a_resumed_run_gives_the_same_value() {
    let targets = Targets::new(&[(900, 0)]);
    let plan = Plan::new(&targets, u64::MAX, Hooks::default()).unwrap();
    let mut whole = Vec::new();
    let exact = || blocked::Run::exact(&plan, &targets, Hooks::default(), tuning());
    blocked::run(exact(), None, |_, w| whole = w.to_vec()).unwrap();
    for state in states(&targets, tuning()).into_iter().step_by(3) {
        let mut resumed = Vec::new();
        blocked::run(blocked::Run { start: Some(state), ..exact() }, None, |_, w| resumed = w.to_vec()).unwrap();
        assert_eq!(to_biguint(&resumed), to_biguint(&whole));
    }
}

#[test]
fn a_state_past_a_target_is_refused() {
    let targets = Targets::new(&[(900, 0), (100, 0)]);
    let plan = Plan::new(&targets, u64::MAX, Hooks::default()).unwrap();
    let late = states(&targets, tuning()).into_iter().find(|s| s.k0 > 300);
    let run = blocked::Run { start: late, ..blocked::Run::exact(&plan, &targets, Hooks::default(), tuning()) };
    let resumed = blocked::run(run, None, |_, _| panic!("no value can be reported"));
    assert!(matches!(resumed, Err(Error::InvalidArgument { param: Param::Checkpoint, .. })), "{resumed:?}");
}

#[test]
fn a_checkpoint_that_cannot_be_removed_is_a_warning_not_an_error() {
    let folder = tempfile::tempdir().unwrap();
    let dir = folder.path();
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
}

#[test]
fn a_hold_is_exclusive_and_released_when_dropped() {
    let folder = tempfile::tempdir().unwrap();
    let dir = folder.path();
    let spec = Checkpoint { path: dir.join("run.ckpt"), every: Duration::from_secs(1), fresh: false, keep: false };
    let first = hold(&spec).unwrap();
    let refused = hold(&spec).unwrap_err().to_string();
    assert!(refused.contains(&format!("process {}", std::process::id())), "{refused}");
    drop(first);
    assert_eq!(std::fs::read_dir(dir).unwrap().count(), 0, "the lock file goes with the hold");
    drop(hold(&spec).unwrap());
}

#[test]
fn a_checkpoint_resumes_in_the_chunks_it_was_cut_into() {
    let folder = tempfile::tempdir().unwrap();
    let dir = folder.path();
    let target = (900, 0);
    let plan = Plan::new(&crate::targets::Targets::new(&[target]), u64::MAX, Hooks::default()).unwrap();
    // 4-lane chunks, where this version cuts the run into wider ones
    assert_ne!(Tuning::for_width(plan.widest_layer()).chunk_lanes, 4);
    let state = states(&[target], tuning()).into_iter().find(|s| s.k0 > 300).unwrap();
    let moduli = [crate::options::LAST18, crate::options::P998244353];
    let residues: Vec<u64> = moduli.iter().map(|&m| crate::count_mod(target.0, target.1, m).unwrap()).collect();
    let path = dir.join("run.ckpt");
    // a bottom-up run's point (as a version-2 file held, or --cut 900)
    std::fs::write(&path, encode(target, &moduli, &residues, &Point::Up { cut: 900, state: &state })).unwrap();
    let spec = Checkpoint { path, every: Duration::from_secs(3600), fresh: false, keep: false };
    let options = crate::options::Options { checkpoint: Some(spec), ..Default::default() };
    let report = crate::Counting::new(&[target], &options).unwrap().reports().unwrap().remove(0);
    assert_eq!(report.value, crate::count(target.0, target.1).unwrap());
    assert!(report.ok());
}

/// A count from both ends resumed from every point it saves, in either half, gives the value of the
/// run that was never stopped; a saved point is refused at another cut.
#[test]
fn a_count_from_both_ends_resumes_from_either_half() {
    use crate::engines::both_ends::{count_blocked, count_resumable};
    let (n, g, cut) = (700u64, 0u64, 350u64);
    let plan = || Plan::new(&Targets::one(n, g), u64::MAX, Hooks::default()).unwrap();
    let whole = count_blocked(&plan(), (n, g), cut, Hooks::default(), |t| t).unwrap();
    let mut points: Vec<Vec<u8>> = Vec::new();
    let mut keep = |point: Point, _| {
        points.push(encode((n, g), &[], &[], &point));
        Ok(())
    };
    assert_eq!(count_resumable(plan(), (n, g), cut, Hooks::default(), None, &mut keep).unwrap(), whole);
    let halves = points.iter().map(|p| matches!(decode(p).unwrap().position, Position::Down { .. }));
    assert!(halves.clone().any(|down| down) && halves.clone().any(|down| !down), "points in both halves");
    for bytes in points.iter().step_by(2) {
        let progress = decode(bytes).unwrap().position;
        let mut ignore = |_: Point, _| Ok(());
        let resumed = count_resumable(plan(), (n, g), cut, Hooks::default(), Some(progress), &mut ignore);
        assert_eq!(resumed.unwrap(), whole);
    }
    let progress = decode(&points[1]).unwrap().position;
    let mut ignore = |_: Point, _| Ok(());
    let other = count_resumable(plan(), (n, g), cut + 1, Hooks::default(), Some(progress), &mut ignore);
    assert!(matches!(other, Err(Error::InvalidArgument { param: Param::Checkpoint, .. })), "{other:?}");
}

/// A file whose checksum is right but whose state is not one the engine saves (a chunk cut short, a
/// non-zero set far outside the target's window, lanes that do not match the set, a carry no lane
/// can have) is refused with
/// the checkpoint named, never run into a panic or a huge allocation.
#[test]
fn a_state_inconsistent_with_itself_is_refused() {
    use crate::engines::both_ends::count_resumable;
    let (n, g, cut) = (700u64, 0u64, 350u64);
    let plan = || Plan::new(&Targets::one(n, g), u64::MAX, Hooks::default()).unwrap();
    let mut first = None;
    let mut keep = |point: Point, _| {
        if first.is_none() && matches!(point, Point::Up { state, .. } if state.k0 > 100) {
            first = Some(encode((n, g), &[], &[], &point));
        }
        Ok(())
    };
    count_resumable(plan(), (n, g), cut, Hooks::default(), None, &mut keep).unwrap();
    let Position::Up { state, .. } = decode(&first.unwrap()).unwrap().position else { panic!("a bottom-up point") };
    let forged: Vec<(&str, State)> = vec![
        ("a chunk cut short", {
            let mut s = clone(&state);
            s.chunks[0][1].truncate(3);
            s
        }),
        ("a set moved by 2^62", {
            let mut s = clone(&state);
            s.edges[1] = NonZeroSet::new(LayerSet::from_words(1 << 62, s.edges[1].set.words().to_vec()).unwrap());
            s
        }),
        ("a set of every g", {
            let mut s = clone(&state);
            s.edges[0] = NonZeroSet::new(LayerSet::from_words(0, vec![u64::MAX; 4096]).unwrap());
            s
        }),
        ("carries of one pass too few", {
            let mut s = clone(&state);
            s.carries.pop();
            s
        }),
        ("a carry of 2^16, above the high bits of any lane", {
            let mut s = clone(&state);
            s.carries[0][1][0] = 1 << 16;
            s
        }),
    ];
    for (what, state) in forged {
        let mut ignore = |_: Point, _| Ok(());
        let progress = Some(Position::Up { cut, state });
        let got = count_resumable(plan(), (n, g), cut, Hooks::default(), progress, &mut ignore);
        assert!(matches!(got, Err(Error::InvalidArgument { param: Param::Checkpoint, .. })), "{what}: {got:?}");
    }
}

/// A checksummed file whose top-down or bottom-up state claims another first step (2, 3, 4, 64:
/// the values of another layer, of fewer lanes) is refused with the checkpoint named, never run
/// into a panic.
#[test]
fn a_state_of_a_forged_first_step_is_refused() {
    use crate::engines::both_ends::count_resumable;
    let (n, g, cut) = (700u64, 0u64, 350u64);
    let plan = || Plan::new(&Targets::one(n, g), u64::MAX, Hooks::default()).unwrap();
    let (mut up, mut down) = (None, None);
    let mut keep = |point: Point, _| {
        match point {
            Point::Up { state, .. } if up.is_none() && state.k0 > 100 => up = Some(encode((n, g), &[], &[], &point)),
            Point::Down { state, .. } if down.is_none() && state.k0 > 100 => {
                down = Some(encode((n, g), &[], &[], &point))
            }
            _ => {}
        }
        Ok(())
    };
    count_resumable(plan(), (n, g), cut, Hooks::default(), None, &mut keep).unwrap();
    for saved in [up.expect("a bottom-up point"), down.expect("a top-down point")] {
        for k0 in [2, 3, 4, 64] {
            let mut position = decode(&saved).unwrap().position;
            match &mut position {
                Position::Up { state, .. } | Position::Down { state, .. } => state.k0 = k0,
            }
            let mut ignore = |_: Point, _| Ok(());
            let got = count_resumable(plan(), (n, g), cut, Hooks::default(), Some(position), &mut ignore);
            assert!(matches!(got, Err(Error::InvalidArgument { param: Param::Checkpoint, .. })), "k0 {k0}: {got:?}");
        }
    }
}

/// A count of a g at or above W (whose layers reach down to 0) resumes from the points it saves, in
/// either half and bottom-up alone, to the value of the run never stopped.
#[test]
fn a_count_of_a_g_above_the_window_resumes() {
    use crate::engines::both_ends::{count_blocked, count_resumable};
    let n = 3000u64;
    let g = crate::game::window(n, Hooks::default()).unwrap() + 808;
    let plan = || Plan::new(&Targets::one(n, g), u64::MAX, Hooks::default()).unwrap();
    for cut in [n / 2, n] {
        let whole = count_blocked(&plan(), (n, g), cut, Hooks::default(), |t| t).unwrap();
        assert!(whole > num_bigint::BigUint::ZERO, "c({n}, {g}) counts something");
        let mut points: Vec<Vec<u8>> = Vec::new();
        let mut keep = |point: Point, _| {
            points.push(encode((n, g), &[], &[], &point));
            Ok(())
        };
        assert_eq!(count_resumable(plan(), (n, g), cut, Hooks::default(), None, &mut keep).unwrap(), whole);
        assert!(!points.is_empty(), "points saved at cut {cut}");
        for bytes in points.iter().step_by(3) {
            let position = decode(bytes).unwrap().position;
            let mut ignore = |_: Point, _| Ok(());
            let resumed = count_resumable(plan(), (n, g), cut, Hooks::default(), Some(position), &mut ignore);
            assert_eq!(resumed.unwrap(), whole, "cut {cut}");
        }
    }
}
