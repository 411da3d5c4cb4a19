//! Long runs that survive a crash: `count` with a checkpoint file, saved every so often and when the
//! run is stopped, and resumed by running the same command again.
//!
//! The file holds: a magic word and the format version; n, g and the engine; the moduli and the
//! modular engine's residues (computed first); the exact engine's state between two blocks of
//! layers ([`crate::blocked::State`]: the layer reached, the two live layers and their pending
//! carries); and a 64-bit FNV-1a checksum of everything before it. It is written under a temporary
//! name, synced and renamed, so a kill at any moment leaves the previous checkpoint or the new one,
//! never a torn one.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::blocked::{self, State, Tuning};
use crate::exact::Engine;
use crate::report::{Options, Report, assemble, moduli_of, planned};
use crate::{Error, Result, modular};

/// The first bytes of a checkpoint file.
const MAGIC: &[u8; 8] = b"FIBTCKPT";
/// The version of the format.
const VERSION: u64 = 2;

/// Where and how often a run saves its checkpoint.
#[derive(Clone, Debug)]
pub struct Spec {
    /// The checkpoint file.
    pub path: PathBuf,
    /// How often to save it.
    pub every: Duration,
    /// Discard an existing checkpoint and start over.
    pub fresh: bool,
    /// Keep the file when the run completes.
    pub keep: bool,
}

/// 64-bit FNV-1a.
fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// What a checkpoint says of the run that made it.
#[derive(Debug, PartialEq)]
struct Saved {
    n: u64,
    g: u64,
    moduli: Vec<u64>,
    residues: Vec<u64>,
    state: State,
}

fn encode(saved: &Saved) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    let put = |out: &mut Vec<u8>, w: u64| out.extend_from_slice(&w.to_le_bytes());
    for w in [VERSION, saved.n, saved.g, 1 /* the blocked engine */, saved.moduli.len() as u64] {
        put(&mut out, w);
    }
    for &w in saved.moduli.iter().chain(&saved.residues) {
        put(&mut out, w);
    }
    saved.state.write(&mut out);
    let sum = checksum(&out);
    put(&mut out, sum);
    out
}

/// Reads a checkpoint, or says in one line why it cannot be used.
fn decode(bytes: &[u8]) -> std::result::Result<Saved, String> {
    let damaged = |what: &str| format!("is damaged ({what}); use --fresh to start over");
    let (body, sum) = bytes.split_last_chunk::<8>().ok_or_else(|| damaged("truncated"))?;
    if !body.starts_with(MAGIC) {
        return Err("is not a fibtree checkpoint".into());
    }
    if checksum(body) != u64::from_le_bytes(*sum) {
        return Err(damaged("bad checksum"));
    }
    let mut rest = &body[MAGIC.len()..];
    let mut get = || -> std::result::Result<u64, String> {
        let (w, r) = rest.split_first_chunk::<8>().ok_or_else(|| damaged("truncated"))?;
        rest = r;
        Ok(u64::from_le_bytes(*w))
    };
    let version = get()?;
    if version != VERSION {
        return Err(format!("has format version {version}; this fibtree reads version {VERSION}"));
    }
    let (n, g, engine, count) = (get()?, get()?, get()?, get()?);
    if engine != 1 || count > 64 {
        return Err(damaged("unknown engine or moduli"));
    }
    let moduli = (0..count).map(|_| get()).collect::<std::result::Result<Vec<_>, _>>()?;
    let residues = (0..count).map(|_| get()).collect::<std::result::Result<Vec<_>, _>>()?;
    let state = State::read(&mut rest).ok_or_else(|| damaged("truncated state"))?;
    if !rest.is_empty() {
        return Err(damaged("trailing bytes"));
    }
    Ok(Saved { n, g, moduli, residues, state })
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder, synced, renamed.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let name = path.file_name().map_or("checkpoint".into(), |n| n.to_string_lossy().into_owned());
    let temp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut file = File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temp, path)?;
        if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            File::open(folder)?.sync_all()?;
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result.map_err(Error::Io)
}

/// The exact c(n, g) checked like [`crate::count_report`], saving a checkpoint to `spec.path`
/// every `spec.every` and when the run is stopped by the cancel flag, and resuming from the file if
/// it exists (telling `say` so). The file is removed at the end unless `spec.keep`.
///
/// Cost: as [`crate::count_report`] with the blocked engine, plus each save (the two live layers);
/// a stop waits for the current block to finish (well under a second).
///
/// # Errors
/// As [`crate::count_report`]; [`Error::InvalidArgument`] naming `--checkpoint` for a file that was
/// made for another run, is damaged or truncated, or with `--engine reference`; [`Error::Io`] when
/// a save fails.
pub fn count_report(n: u64, g: u64, options: &Options, spec: &Spec, mut say: impl FnMut(String)) -> Result<Report> {
    if options.engine != Engine::Blocked {
        return Err(Error::invalid("--checkpoint", "checkpoints work with the blocked engine only"));
    }
    let moduli = moduli_of(options)?;
    let shown = spec.path.display();
    let mut saved = match std::fs::read(&spec.path) {
        Ok(_) if spec.fresh => {
            std::fs::remove_file(&spec.path).map_err(Error::Io)?;
            say(format!("discarded the checkpoint {shown}; starting over"));
            None
        }
        Ok(bytes) => {
            let saved = decode(&bytes).map_err(|why| Error::invalid("--checkpoint", format!("'{shown}' {why}")))?;
            if (saved.n, saved.g, &saved.moduli) != (n, g, &moduli) {
                let what = format!(
                    "'{shown}' was made for count {} --g {} with moduli {:?}, not this run; use --fresh to start over",
                    saved.n, saved.g, saved.moduli
                );
                return Err(Error::invalid("--checkpoint", what));
            }
            Some(saved)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(Error::invalid("--checkpoint", format!("cannot read '{shown}': {e}"))),
    };
    let targets = [(n, g)];
    let (plan, estimate) = planned(&targets, options, moduli.len())?;
    let residues = match &saved {
        Some(s) => s.residues.clone(),
        None => modular::count_mod_with_plan(&plan, &targets, &moduli, options.hooks)?.remove(0),
    };
    let start = saved.take().map(|s| {
        say(format!("resuming from the checkpoint {shown} at layer {} of {n}", s.state.k0));
        s.state
    });
    let tuning = Tuning::for_width(plan.widest_layer());
    let mut last_save = Instant::now();
    let mut at_boundary = |state: &State, stopping: bool| -> Result<()> {
        if stopping || last_save.elapsed() >= spec.every {
            let bytes =
                encode(&Saved { n, g, moduli: moduli.clone(), residues: residues.clone(), state: clone(state) });
            write_atomically(&spec.path, &bytes)?;
            last_save = Instant::now();
            if stopping {
                say(format!("saved the checkpoint {shown} at layer {} of {n}", state.k0));
            }
        }
        Ok(())
    };
    let mut words = Vec::new();
    blocked::run_resumable(&plan, &targets, options.hooks, tuning, start, Some(&mut at_boundary), |_, w| {
        words = w.to_vec()
    })?;
    if !spec.keep {
        match std::fs::remove_file(&spec.path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(Error::Io(e)),
            _ => {}
        }
    }
    Ok(assemble((n, g), &words, &moduli, &residues, options, estimate))
}

/// A copy of a state, through its encoding (states are copied only to be saved).
fn clone(state: &State) -> State {
    let mut bytes = Vec::new();
    state.write(&mut bytes);
    State::read(&mut bytes.as_slice()).expect("a state reads back what it wrote")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Saved {
        let plan = crate::plan::Plan::new(&[(300, 0)], u64::MAX).unwrap();
        let tuning = Tuning { block_layers: 40, chunk_lanes: 4 };
        let mut state = None;
        let _ = blocked::run_resumable(
            &plan,
            &[(300, 0)],
            Default::default(),
            tuning,
            None,
            Some(|s: &State, _| {
                if s.k0 > 150 && state.is_none() {
                    state = Some(clone(s));
                }
                Ok(())
            }),
            |_, _| {},
        );
        Saved { n: 300, g: 0, moduli: vec![7, 11], residues: vec![3, 5], state: state.unwrap() }
    }

    #[test]
    fn encoding_round_trips_and_detects_damage() {
        let saved = sample();
        let bytes = encode(&saved);
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
        let plan = crate::plan::Plan::new(&[(900, 0)], u64::MAX).unwrap();
        let tuning = Tuning { block_layers: 50, chunk_lanes: 4 };
        let mut whole = Vec::new();
        blocked::run_with(&plan, &[(900, 0)], Default::default(), tuning, |_, w| whole = w.to_vec()).unwrap();
        let mut states = Vec::new();
        blocked::run_resumable(
            &plan,
            &[(900, 0)],
            Default::default(),
            tuning,
            None,
            Some(|s: &State, _| {
                states.push(clone(s));
                Ok(())
            }),
            |_, _| {},
        )
        .unwrap();
        for state in states.into_iter().step_by(3) {
            let mut resumed = Vec::new();
            blocked::run_resumable(
                &plan,
                &[(900, 0)],
                Default::default(),
                tuning,
                Some(state),
                None::<fn(&State, bool) -> Result<()>>,
                |_, w| resumed = w.to_vec(),
            )
            .unwrap();
            assert_eq!(crate::exact::to_biguint(&resumed), crate::exact::to_biguint(&whole));
        }
    }

    #[test]
    fn a_state_past_a_target_is_refused() {
        let targets = [(900, 0), (100, 0)];
        let plan = crate::plan::Plan::new(&targets, u64::MAX).unwrap();
        let tuning = Tuning { block_layers: 50, chunk_lanes: 4 };
        let mut late = None;
        blocked::run_resumable(
            &plan,
            &targets,
            Default::default(),
            tuning,
            None,
            Some(|s: &State, _| {
                if s.k0 > 300 && late.is_none() {
                    late = Some(clone(s));
                }
                Ok(())
            }),
            |_, _| {},
        )
        .unwrap();
        let resumed = blocked::run_resumable(
            &plan,
            &targets,
            Default::default(),
            tuning,
            late,
            None::<fn(&State, bool) -> Result<()>>,
            |_, _| panic!("no value can be reported"),
        );
        assert!(matches!(resumed, Err(Error::InvalidArgument { arg: "--checkpoint", .. })), "{resumed:?}");
    }
}
