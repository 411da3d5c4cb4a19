//! The machine as fibtree sees it, in one place: the caches, the cores, the kernel sets and the
//! memory available are read from the operating system, unless the environment variable
//! `FIBTREE_MACHINE` ([`MACHINE_VAR`]) simulates another machine, which the tests do so that a figure
//! the machine decides can be checked under several machines on any one.
//!
//! `FIBTREE_MACHINE` is a comma-separated list of `KEY=VALUE`, each key at most once, each optional
//! (what is not named is read from the machine):
//!
//! - `l2=SIZE` or `l2=none`: the level-2 cache of one core (`none`: not reported, as a virtual
//!   machine that hides it);
//! - `l3=SIZE` or `l3=none`: the level-3 cache the first core shares;
//! - `cores=C`: the cores the process may use, 1 to 4096;
//! - `kernels=SET`: the widest kernel set the CPU has (`baseline`, `avx2` or `avx512`), no wider
//!   than the real CPU's (a set it lacks cannot be run);
//! - `memory=SIZE`: the memory the system has available (`MemAvailable`).
//!
//! Sizes are written as `--max-memory` takes them (`512K`, `2M`, `1.5G`). The variable is read once
//! per process; an invalid one is an error that [`simulated`] returns, and that every engine returns
//! (through [`super::Kernel::forced`]) before it runs: nothing falls back silently.

use std::sync::OnceLock;

use super::Kernel;
use crate::error::{Error, Param, Result};

/// The environment variable that simulates another machine.
///
/// # Examples
///
/// ```
/// assert_eq!(fibtree::MACHINE_VAR, "FIBTREE_MACHINE");
/// ```
pub const MACHINE_VAR: &str = "FIBTREE_MACHINE";

/// What `FIBTREE_MACHINE` says, each field `None` where it says nothing of it (the machine's own).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Simulated {
    /// The text as given, for messages.
    text: String,
    /// The level-2 cache (`Some(None)`: not reported).
    pub(crate) l2: Option<Option<u64>>,
    /// The level-3 cache (`Some(None)`: not reported).
    pub(crate) l3: Option<Option<u64>>,
    /// The cores.
    pub(crate) cores: Option<usize>,
    /// The widest kernel set.
    pub(crate) kernels: Option<Kernel>,
    /// The memory available.
    pub(crate) memory: Option<u64>,
}

/// The least and the most bytes of a simulated cache: what CPUs have, and not so little that a
/// layer's chunk of lanes could not be sized by it.
const MIN_CACHE: u64 = 16 << 10;
const MAX_CACHE: u64 = 1 << 40;

/// The most cores a simulated machine may have.
const MAX_CORES: usize = 4096;

/// The machine `FIBTREE_MACHINE` simulates, read once per process, or what is wrong with it.
fn read() -> &'static std::result::Result<Simulated, String> {
    static SIMULATED: OnceLock<std::result::Result<Simulated, String>> = OnceLock::new();
    SIMULATED.get_or_init(|| match std::env::var_os(MACHINE_VAR) {
        None => Ok(Simulated::default()),
        Some(value) => match value.to_str() {
            Some(text) => parse(text, Kernel::detect_real()),
            None => Err(format!("expected KEY=VALUE pairs, got {}", fibtree_util::quoted(&value))),
        },
    })
}

/// The machine `FIBTREE_MACHINE` simulates, `None` where it is unset or empty (the machine's own);
/// the text as given otherwise. Read once per process. Cost: one load after the first call.
///
/// # Errors
/// [`Error::InvalidArgument`] naming [`Param::Machine`] for a value that is not one (an unknown key,
/// a key twice, a size, count or kernel set that cannot be, a kernel set this CPU lacks).
///
/// # Examples
///
/// ```
/// // the tests run with FIBTREE_MACHINE unset or valid
/// if let Some(text) = fibtree::simulated()? {
///     assert!(text.contains('='));
/// }
/// # Ok::<(), fibtree::Error>(())
/// ```
pub fn simulated() -> Result<Option<&'static str>> {
    match read() {
        Ok(s) if s.text.is_empty() => Ok(None),
        Ok(s) => Ok(Some(&s.text)),
        Err(expected) => Err(Error::invalid(Param::Machine, expected.clone())),
    }
}

/// What `FIBTREE_MACHINE` simulates, where it is valid (nothing where it is unset or invalid: the
/// engines return the error before they ask). Cost: one load after the first call.
pub(crate) fn simulation() -> &'static Simulated {
    static NONE: Simulated =
        Simulated { text: String::new(), l2: None, l3: None, cores: None, kernels: None, memory: None };
    read().as_ref().unwrap_or(&NONE)
}

/// The cores this process may use: `FIBTREE_MACHINE`'s `cores=`, else the operating system's
/// (`std::thread::available_parallelism`, 1 where it cannot say). What the command line's thread
/// counts and `bench`'s machine default to. Cost: a system call or two.
///
/// # Examples
///
/// ```
/// assert!(fibtree::cores() >= 1);
/// ```
pub fn cores() -> usize {
    simulation().cores.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The machine `text` simulates on a CPU whose widest kernel set is `widest`, or what is wrong with
/// it, in words. Cost O(length of `text`).
fn parse(text: &str, widest: Kernel) -> std::result::Result<Simulated, String> {
    const EXPECTED: &str = "expected KEY=VALUE pairs separated by commas, keys l2, l3, cores, kernels, memory";
    let mut simulated = Simulated { text: text.trim().to_string(), ..Simulated::default() };
    let shown = |s: &str| fibtree_util::quoted(std::ffi::OsStr::new(s));
    if simulated.text.len() > 200 {
        return Err(format!("{EXPECTED}; got {}", shown(text)));
    }
    for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((key, value)) = pair.split_once('=') else {
            return Err(format!("{EXPECTED}; got {}", shown(pair)));
        };
        let (key, value) = (key.trim().to_ascii_lowercase(), value.trim());
        let twice = || format!("{key} is given twice");
        let cache = |value: &str| match value.eq_ignore_ascii_case("none") {
            true => Ok(None),
            false => match fibtree_util::parse_bytes(value) {
                Ok(bytes) if (MIN_CACHE..=MAX_CACHE).contains(&bytes) => Ok(Some(bytes)),
                Ok(_) => Err(format!("{key}: expected a cache from 16K to 1T, or none, got {}", shown(value))),
                Err(e) => Err(format!("{key}: {e}, or none, got {}", shown(value))),
            },
        };
        match key.as_str() {
            "l2" if simulated.l2.is_some() => return Err(twice()),
            "l2" => simulated.l2 = Some(cache(value)?),
            "l3" if simulated.l3.is_some() => return Err(twice()),
            "l3" => simulated.l3 = Some(cache(value)?),
            "cores" if simulated.cores.is_some() => return Err(twice()),
            "cores" => {
                let cores = fibtree_util::parse_whole::<usize>(value).ok().filter(|c| (1..=MAX_CORES).contains(c));
                let bad = || format!("cores: expected from 1 to {MAX_CORES}, got {}", shown(value));
                simulated.cores = Some(cores.ok_or_else(bad)?);
            }
            "kernels" if simulated.kernels.is_some() => return Err(twice()),
            "kernels" => {
                let wanted = value.to_ascii_lowercase();
                let Some(kernel) = Kernel::ALL.into_iter().find(|k| k.name() == wanted) else {
                    return Err(format!("kernels: expected baseline, avx2 or avx512, got {}", shown(value)));
                };
                if kernel > widest {
                    return Err(format!("kernels: this CPU has no {kernel} to run (its widest set is {widest})"));
                }
                simulated.kernels = Some(kernel);
            }
            "memory" if simulated.memory.is_some() => return Err(twice()),
            "memory" => {
                let bytes =
                    fibtree_util::parse_bytes(value).map_err(|e| format!("memory: {e}, got {}", shown(value)))?;
                simulated.memory = Some(bytes);
            }
            _ => return Err(format!("{EXPECTED}; got the key {}", shown(&key))),
        }
    }
    Ok(simulated)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_read_and_the_rest_left_to_the_machine() {
        let s = parse("l2=512K, l3=none,cores=64,kernels=AVX2,memory=1.5G", Kernel::Avx512).unwrap();
        assert_eq!(
            (s.l2, s.l3, s.cores, s.kernels, s.memory),
            (Some(Some(512 << 10)), Some(None), Some(64), Some(Kernel::Avx2), Some(3 << 29))
        );
        let s = parse("cores=1", Kernel::Baseline).unwrap();
        assert_eq!((s.l2, s.l3, s.cores, s.kernels, s.memory), (None, None, Some(1), None, None));
        assert_eq!(parse("", Kernel::Baseline).unwrap().text, "");
    }

    #[test]
    fn what_cannot_be_simulated_is_refused_in_words() {
        let refused = |text: &str| parse(text, Kernel::Avx2).unwrap_err();
        assert!(refused("l2").contains("expected KEY=VALUE"));
        assert!(refused("l4=1M").contains("got the key \"l4\""));
        assert_eq!(refused("l2=1M,l2=2M"), "l2 is given twice");
        assert!(refused("l2=lots").starts_with("l2: expected a size"));
        assert!(refused("l3=5").starts_with("l3: expected a cache from 16K to 1T, or none"));
        assert!(refused("cores=0").starts_with("cores: expected from 1 to 4096"));
        assert!(refused("cores=5000").starts_with("cores: expected from 1 to 4096"));
        assert_eq!(refused("kernels=avx512"), "kernels: this CPU has no avx512 to run (its widest set is avx2)");
        assert!(refused("kernels=sse9").starts_with("kernels: expected baseline"));
        assert!(refused(&"l2=1M,".repeat(100)).contains("...\" (600 characters)"));
    }
}
