//! The checkpoint's encoding round trip and its damage detection, and runs resumed from saved
//! positions. (The engine's states, forged or resumed, are tested beside the engine.)

use fibtree_core::{Cut, Engine, Request};
use num_bigint::BigUint;

use super::*;
use format::MAGIC;

/// Appends the little-endian word `w`, as a file holds it.
fn put(out: &mut Vec<u8>, w: u64) {
    out.extend_from_slice(&w.to_le_bytes());
}

/// The checksum a file ends with.
fn checksum(bytes: &[u8]) -> u64 {
    fibtree_util::fnv1a(bytes)
}

/// The count of (n, g) cut at `cut`, resumable, from `resume` where given: its value, and every
/// position it saved, each as the file `encode` writes of it (with `moduli` and their `residues`).
fn saving(
    (n, g, cut): (u64, u64, u64),
    resume: Option<Position<'static>>,
    (moduli, residues): (&[u64], &[u64]),
) -> fibtree_core::Result<(BigUint, Vec<Vec<u8>>)> {
    let mut files = Vec::new();
    let mut keep = |position: &Position, _| {
        files.push(encode((n, g), moduli, residues, position));
        Ok(())
    };
    let mut value = BigUint::ZERO;
    let target = [(n, g)];
    let request = Request::exact(&target, Engine::Blocked).cut(Cut::At(cut)).resume(resume);
    request.plan()?.run_saving(&mut keep, |_, v, _| {
        value = v.unwrap_or_default();
        Ok(())
    })?;
    Ok((value, files))
}

/// The files of the positions a count of (n, g) cut at `cut` saves, with no moduli.
fn files((n, g, cut): (u64, u64, u64)) -> Vec<Vec<u8>> {
    saving((n, g, cut), None, (&[], &[])).unwrap().1
}

#[test]
fn encoding_round_trips_and_detects_damage() {
    let ups = files((300, 0, 300));
    let bytes = ups[ups.len() / 2].clone();
    let saved = decode(&bytes).unwrap();
    assert_eq!((saved.n, saved.g, saved.position.cut()), (300, 0, 300));
    // the same file again from what was read
    assert_eq!(encode((300, 0), &[], &[], &saved.position), bytes);
    // with moduli and residues
    let with = saving((300, 0, 300), None, (&[7, 11], &[3, 5])).unwrap().1;
    let read = decode(&with[with.len() / 2]).unwrap();
    assert_eq!((read.moduli, read.independent), (vec![7, 11], vec![3, 5]));
    // the top-down half's file, with the bottom-up half's end and the paths found so far
    let downs = files((300, 0, 150));
    let down = downs.last().unwrap().clone();
    let position = decode(&down).unwrap().position;
    assert!(position.stands(300).contains("top-down"), "{}", position.stands(300));
    assert_eq!(encode((300, 0), &[], &[], &position), down);
    // a file of an earlier version (lanes of 48 bits), of either half, is refused in one line; so
    // is a later one
    let version = |bytes: &[u8], v: u64| {
        let mut old = bytes[..bytes.len() - 8].to_vec();
        old[MAGIC.len()..MAGIC.len() + 8].copy_from_slice(&v.to_le_bytes());
        let sum = checksum(&old);
        put(&mut old, sum);
        old
    };
    assert_eq!(decode(&version(&bytes, 5)), decode(&bytes));
    for (file, v) in [(&bytes, 2), (&bytes, 4), (&down, 3), (&down, 4)] {
        let refused = decode(&version(file, v)).unwrap_err();
        assert!(refused.contains("48 bits") && refused.contains("--fresh") && !refused.contains('\n'), "{refused}");
    }
    for v in [0, 1, 6, u64::MAX] {
        assert!(decode(&version(&down, v)).unwrap_err().contains("reads version 5"), "version {v}");
    }
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

/// A carry above 255 (the first of a bottom-up state's, its checksum made right) is named: no run
/// holds one, and the file is not cut short.
#[test]
fn a_carry_above_255_is_named() {
    let ups = files((300, 0, 300));
    let bytes = ups[ups.len() / 2].clone();
    let words: Vec<u64> = bytes[8..].chunks(8).map(|w| u64::from_le_bytes(w.try_into().unwrap())).collect();
    // version, n, g, engine, no moduli; cut, half; k0, the chunks' lanes; two sets (base, length,
    // words); the passes; each pass's two chunks then each pass's two layers of carries
    let mut at = 9;
    let skip = |at: &mut usize| *at += 1 + words[*at] as usize;
    for _ in 0..2 {
        at += 1;
        skip(&mut at);
    }
    let passes = words[at] as usize;
    at += 1;
    (0..2 * passes).for_each(|_| skip(&mut at));
    while words[at] == 0 {
        at += 1;
    }
    let carry_at = 8 + 8 * (at + 1);
    assert!(words[at + 1] <= 255, "a carry: {}", words[at + 1]);
    for carry in [256, 1 << 40, u64::MAX] {
        let mut forged = bytes[..bytes.len() - 8].to_vec();
        forged[carry_at..carry_at + 8].copy_from_slice(&carry.to_le_bytes());
        let sum = checksum(&forged);
        put(&mut forged, sum);
        let want = format!("is damaged (a carry of {carry}, above 255); use --fresh to start over");
        assert_eq!(decode(&forged).unwrap_err(), want);
    }
    // cut short, its checksum made right: truncated
    let mut short = bytes[..bytes.len() - 16].to_vec();
    let sum = checksum(&short);
    put(&mut short, sum);
    assert_eq!(decode(&short).unwrap_err(), "is damaged (truncated state); use --fresh to start over");
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

/// A checkpoint saved by a run cut into other chunks than this run's resumes in the chunks it was
/// cut into.
#[test]
fn a_checkpoint_resumes_in_the_chunks_it_was_cut_into() {
    let folder = tempfile::tempdir().unwrap();
    let dir = folder.path();
    let target = (900, 0);
    let moduli = [crate::options::LAST18, crate::options::P998244353];
    let residues: Vec<u64> = moduli.iter().map(|&m| crate::count_mod(target.0, target.1, m).unwrap()).collect();
    // a bottom-up run's position (as a version-2 file held, or --cut 900), in 4-lane chunks
    let mut files = Vec::new();
    let mut keep = |position: &Position, _| {
        files.push(encode(target, &moduli, &residues, position));
        Ok(())
    };
    let targets = [target];
    let request = Request::exact(&targets, Engine::Blocked).cut(Cut::At(900)).chunk_lanes(4);
    request.plan().unwrap().run_saving(&mut keep, |_, _, _| Ok(())).unwrap();
    let path = dir.join("run.ckpt");
    std::fs::write(&path, &files[files.len() / 2]).unwrap();
    let spec = Checkpoint { path, every: Duration::from_secs(3600), fresh: false, keep: false };
    let options = crate::options::Options { checkpoint: Some(spec), ..Default::default() };
    let report = crate::Counting::new(&[target], &options).unwrap().reports().unwrap().remove(0);
    assert_eq!(report.value, crate::count(target.0, target.1).unwrap());
    assert!(report.ok());
}

/// A count from both ends resumed from every position it saves, in either half, gives the value of
/// the run that was never stopped; a saved position is refused at another cut.
#[test]
fn a_count_from_both_ends_resumes_from_either_half() {
    let (n, g, cut) = (700u64, 0u64, 350u64);
    let (whole, files) = saving((n, g, cut), None, (&[], &[])).unwrap();
    assert_eq!(whole, crate::count(n, g).unwrap());
    let halves = files.iter().map(|f| decode(f).unwrap().position.stands(n).contains("top-down"));
    assert!(halves.clone().any(|down| down) && halves.clone().any(|down| !down), "positions in both halves");
    for bytes in files.iter().step_by(2) {
        let position = decode(bytes).unwrap().position;
        assert_eq!(saving((n, g, cut), Some(position), (&[], &[])).unwrap().0, whole);
    }
    let position = decode(&files[1]).unwrap().position;
    let other = saving((n, g, cut + 1), Some(position), (&[], &[])).map_err(Error::from);
    assert!(matches!(other, Err(Error::InvalidArgument { param: Param::Cut | Param::Checkpoint, .. })), "{other:?}");
}

/// A count of a g at or above W (whose layers reach down to 0) resumes from the positions it saves,
/// in either half and bottom-up alone, to the value of the run never stopped.
#[test]
fn a_count_of_a_g_above_the_window_resumes() {
    let n = 3000u64;
    // W: the smallest power of two (at least 64) above every edge value 1 + G(k), k <= n
    let highest = (1..=n).map(|k| crate::grundy(k).unwrap() + 1).max().unwrap();
    let g = (highest + 1).next_power_of_two().max(64) + 808;
    for cut in [n / 2, n] {
        let (whole, files) = saving((n, g, cut), None, (&[], &[])).unwrap();
        assert!(whole > BigUint::ZERO, "c({n}, {g}) counts something");
        assert!(!files.is_empty(), "positions saved at cut {cut}");
        for bytes in files.iter().step_by(3) {
            let position = decode(bytes).unwrap().position;
            assert_eq!(saving((n, g, cut), Some(position), (&[], &[])).unwrap().0, whole, "cut {cut}");
        }
    }
}
