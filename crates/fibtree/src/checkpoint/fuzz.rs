//! Forged and damaged checkpoints fed to the reader and, where they read, to a resumed count: a
//! property test over mutations of files a real run saved (a word rewritten, a byte changed, the
//! file cut or grown, each with its checksum made right again, so that the structure is what is
//! tested, not the checksum). Every case reads as a refusal or resumes to a value; none panics,
//! aborts or allocates past its input; and a value resumed from a forged file that is not the true
//! count fails a check of the report (mod 10^18, mod 998244353 or the parity). The seed is fixed
//! and printed.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};

use fibtree_core::{Cut, Engine, Request};

use super::*;

/// The seed of the mutations: fixed, so that a failure reproduces.
const SEED: u64 = 0x5eed_c4ec_4b01_2026;

/// The run whose saved files are forged: small, cut near its middle.
const RUN: (u64, u64, u64) = (400, 0, 200);

/// The files the run saves at every point, bottom-up and top-down, with one modulus, and the value
/// it counts.
fn saved_files() -> (Vec<Vec<u8>>, num_bigint::BigUint) {
    let (n, g, cut) = RUN;
    let mut files = Vec::new();
    let mut keep = |position: &Position, _| {
        files.push(encode((n, g), &[998_244_353], &[7], position));
        Ok(())
    };
    let value = resumed(cut, None, &mut keep).unwrap();
    (files, value)
}

/// The count of [`RUN`] cut at `cut`, resumed from `position` where given, saving to `save`.
fn resumed(
    cut: u64,
    position: Option<Position<'static>>,
    save: &mut dyn FnMut(&Position, bool) -> fibtree_core::Result<()>,
) -> fibtree_core::Result<num_bigint::BigUint> {
    let (n, g, _) = RUN;
    let mut value = num_bigint::BigUint::ZERO;
    let target = [(n, g)];
    let request = Request::exact(&target, Engine::Blocked).cut(Cut::At(cut)).resume(position);
    request.plan()?.run_saving(save, |_, v, _| {
        value = v.unwrap_or_default();
        Ok(())
    })?;
    Ok(value)
}

/// A word worth writing over a field: the edges of lengths, layers and counts.
fn word() -> impl Strategy<Value = u64> {
    prop_oneof![
        prop::sample::select(vec![0, 1, 2, 3, 4, 63, 64, 65, 199, 200, 201, 400, 401, 1 << 32, 1 << 62, u64::MAX]),
        any::<u64>(),
    ]
}

/// One change to a file.
#[derive(Clone, Debug)]
enum Mutation {
    /// The word at this index (of the file's words) rewritten.
    Word(usize, u64),
    /// The byte at this index xor-ed with a non-zero value.
    Byte(usize, u8),
    /// The file cut to this many bytes.
    Cut(usize),
    /// Words inserted at this word's index.
    Grow(usize, Vec<u64>),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<usize>(), word()).prop_map(|(i, w)| Mutation::Word(i, w)),
        2 => (any::<usize>(), 1..=255u8).prop_map(|(i, b)| Mutation::Byte(i, b)),
        1 => any::<usize>().prop_map(Mutation::Cut),
        1 => (any::<usize>(), prop::collection::vec(word(), 1..4)).prop_map(|(i, w)| Mutation::Grow(i, w)),
    ]
}

/// `file` with `changes` made to its body and its checksum made right again.
fn forged(file: &[u8], changes: &[Mutation]) -> Vec<u8> {
    let mut body = file[..file.len() - 8].to_vec();
    for change in changes {
        let words = body.len() / 8;
        match change {
            Mutation::Word(i, w) if words > 0 => {
                let at = 8 * (i % words);
                body[at..at + 8].copy_from_slice(&w.to_le_bytes());
            }
            Mutation::Byte(i, b) if !body.is_empty() => {
                let at = i % body.len();
                body[at] ^= b;
            }
            Mutation::Cut(len) => body.truncate(len % (body.len() + 1)),
            Mutation::Grow(i, ws) => {
                let at = 8 * (i % (words + 1));
                let bytes: Vec<u8> = ws.iter().flat_map(|w| w.to_le_bytes()).collect();
                body.splice(at..at, bytes);
            }
            _ => {}
        }
    }
    let sum = fibtree_util::fnv1a(&body);
    body.extend_from_slice(&sum.to_le_bytes());
    body
}

/// What became of a forged file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Fate {
    /// The reader refused it (one line, the file named by its caller).
    Unread,
    /// It reads, but as another run's: refused before any work.
    Elsewhere,
    /// The resumed run refused it, naming the checkpoint.
    Refused,
    /// The resumed run counted from it: the true count.
    Counted,
    /// The resumed run counted from it a value that is not the true count, which the report's
    /// checks catch.
    Caught,
}

/// Reads `file` and, where it reads as a checkpoint of the run, resumes the count from it: the
/// reader refuses it, or the run refuses it naming the checkpoint, or it counts; any other error
/// is a failure of the test (and a panic, proptest's).
fn read_and_resume(file: &[u8], truth: &num_bigint::BigUint) -> std::result::Result<Fate, String> {
    let Ok(saved) = decode(file) else { return Ok(Fate::Unread) };
    let (n, g, _) = RUN;
    if (saved.n, saved.g) != (n, g) {
        return Ok(Fate::Elsewhere);
    }
    // resumed at the cut it saved, as a run resumes
    let cut = saved.position.cut();
    if !(2..=n).contains(&cut) {
        return Ok(Fate::Refused); // a cut no count of T(n) has, refused as the run's options are
    }
    let mut ignore = |_: &Position, _| Ok(());
    match resumed(cut, Some(saved.position), &mut ignore).map_err(Error::from) {
        Ok(value) if value == *truth => Ok(Fate::Counted),
        Ok(value) => {
            let differ = |m: u64| &value % m != truth % m;
            match differ(1_000_000_000_000_000_000) || differ(998_244_353) || differ(2) {
                true => Ok(Fate::Caught),
                false => Err(format!("a wrong value that agrees with every check: {value}")),
            }
        }
        Err(Error::InvalidArgument { param: Param::Checkpoint, .. }) => Ok(Fate::Refused),
        Err(e) => Err(format!("not a refusal naming the checkpoint: {e:?}")),
    }
}

#[test]
fn forged_checkpoints_are_refused_or_resume_never_panic() {
    let (files, truth) = saved_files();
    assert!(files.len() >= 4, "the run saves at several points");
    eprintln!("forged checkpoints: seed {SEED:#x}");
    let config = Config { cases: 2000, rng_seed: RngSeed::Fixed(SEED), failure_persistence: None, ..Config::default() };
    let mut runner = TestRunner::new(config);
    let case = (0..files.len(), prop::collection::vec(mutation(), 1..4));
    let fates = std::cell::RefCell::new(std::collections::HashMap::new());
    runner
        .run(&case, |(which, changes)| {
            let file = forged(&files[which], &changes);
            let fate = read_and_resume(&file, &truth).map_err(TestCaseError::fail)?;
            *fates.borrow_mut().entry(fate).or_insert(0) += 1;
            Ok(())
        })
        .unwrap();
    let fates = fates.into_inner();
    eprintln!("forged checkpoints: {fates:?}");
    // every way through is taken: the reader's refusals, the run's, and resumed counts
    for fate in [Fate::Unread, Fate::Refused, Fate::Counted, Fate::Caught] {
        assert!(fates.get(&fate).is_some_and(|&c| c > 0), "no case {fate:?}: {fates:?}");
    }
}
