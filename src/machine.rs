//! The machine fibtree computes for, as the environment says it: `FIBTREE_MACHINE` simulates another
//! machine (docs/commands.md, "Another machine, simulated"), which the tests do so that a figure the
//! machine decides can be checked under several machines on any one; `FIBTREE_ISA` forces the kernel
//! set (the instruction set every kernel is compiled for). Read here, once, before any command that
//! computes starts, and given to the library as a [`fibtree::Machine`]: the library reads no
//! environment variable.
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
//! Sizes are written as `--max-memory` takes them (`512K`, `2M`, `1.5G`).
//!
//! `FIBTREE_ISA` is `auto` (or empty, or unset: the lanes' set measured fastest, the dense sweep's
//! the widest), `baseline` (the portable kernels as compiled for the build's target: SSE2 on x86-64,
//! NEON on aarch64), `avx2` or `avx512`, in any case. An unknown value, or a set the machine lacks,
//! is refused before any work: nothing falls back silently.

use std::ffi::OsStr;
use std::sync::OnceLock;

use fibtree::{Isa, Machine};

use crate::error::refused;
use crate::terms::{ISA_VAR, MACHINE_VAR, flag, in_terms};

/// The least and the most bytes of a simulated cache: what CPUs have, and not so little that a
/// layer's chunk of lanes could not be sized by it.
const MIN_CACHE: u64 = 16 << 10;
const MAX_CACHE: u64 = 1 << 40;

/// The most cores a simulated machine may have.
const MAX_CORES: usize = 4096;

/// `FIBTREE_MACHINE` as given, where it simulates a machine (for `bench`'s header and JSON).
static SIMULATED: OnceLock<Option<String>> = OnceLock::new();

/// The machine `FIBTREE_MACHINE` simulates, `None` where it is unset or empty (the machine's own),
/// as [`set_from_environment`] read it.
pub(super) fn simulated() -> Option<&'static str> {
    SIMULATED.get().and_then(Option::as_deref)
}

/// Reads `FIBTREE_MACHINE` and `FIBTREE_ISA` and makes the machine they say the one every engine of
/// the process computes for ([`Machine::set`]). Call it once, before any command that computes.
///
/// # Errors
/// A usage error naming the variable for a value that is not one: an unknown key, a key twice, a
/// size, count or kernel set that cannot be, a kernel set this CPU lacks.
pub(super) fn set_from_environment() -> crate::error::Result<()> {
    let text = std::env::var_os(MACHINE_VAR);
    let (machine, widest) = match &text {
        None => (Machine::default(), None),
        Some(value) => match value.to_str() {
            Some(text) => parse(text, Isa::of_cpu()).map_err(|why| refused(MACHINE_VAR, why))?,
            None => {
                let why = format!("expected KEY=VALUE pairs, got {}", fibtree_util::quoted(value));
                return Err(refused(MACHINE_VAR, why));
            }
        },
    };
    let shown = text.as_ref().and_then(|t| t.to_str()).map(str::trim).filter(|t| !t.is_empty());
    SIMULATED.get_or_init(|| shown.map(String::from));
    // the kernel sets of this CPU, up to the widest the simulated machine names
    let widest = widest.unwrap_or_else(Isa::of_cpu).min(Isa::of_cpu());
    let has: Vec<Isa> = Isa::ALL.into_iter().filter(|&k| k <= widest).collect();
    let machine = match choose(std::env::var_os(ISA_VAR).as_deref(), &has).map_err(|why| refused(ISA_VAR, why))? {
        Some(isa) => machine.isa(isa),
        None => machine,
    };
    machine.set().map_err(|e| in_terms(e.into(), flag))
}

/// The kernel set in use, how it was chosen and the ones this CPU has, as `bench`, `count --verbose`
/// and `self-test` say it: e.g. `avx2 (forced by FIBTREE_ISA; this CPU has: baseline, avx2)`, or
/// `avx2 (fastest measured, in lane additions/ns: baseline 1.95, avx2 2.31 in 3 ms; dense sweep avx2;
/// this CPU has: baseline, avx2)`. Cost O(1) after the calibration.
pub(crate) fn kernel_line() -> String {
    let names: Vec<&str> = fibtree::Isa::available().into_iter().map(fibtree::Isa::name).collect();
    let has = format!("this CPU has: {}", names.join(", "));
    match fibtree::isa_choice() {
        Some(c) => {
            let rates: Vec<String> = c.rates.iter().map(|(k, r)| format!("{k} {r:.2}")).collect();
            let widest = fibtree::Isa::available().last().copied().unwrap_or(fibtree::Isa::Baseline);
            let ms = (c.seconds * 1e3).round();
            let how = format!("fastest measured, in lane additions/ns: {} in {ms} ms", rates.join(", "));
            format!("{} ({how}; dense sweep {widest}; {has})", c.chosen)
        }
        None => format!("{} (forced by {}; {has})", fibtree::isa(), ISA_VAR),
    }
}

/// The machine `text` simulates on a CPU whose widest kernel set is `widest`, with the widest kernel
/// set it names, or what is wrong with it, in words. Cost O(length of `text`).
fn parse(text: &str, widest: Isa) -> Result<(Machine, Option<Isa>), String> {
    const EXPECTED: &str = "expected KEY=VALUE pairs separated by commas, keys l2, l3, cores, kernels, memory";
    let mut machine = Machine::default();
    let shown = |s: &str| fibtree_util::quoted(OsStr::new(s));
    if text.trim().len() > 200 {
        return Err(format!("{EXPECTED}; got {}", shown(text)));
    }
    let (mut seen, mut named): (Vec<String>, Option<Isa>) = (Vec::new(), None);
    for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((key, value)) = pair.split_once('=') else {
            return Err(format!("{EXPECTED}; got {}", shown(pair)));
        };
        let (key, value) = (key.trim().to_ascii_lowercase(), value.trim());
        if seen.contains(&key) {
            return Err(format!("{key} is given twice"));
        }
        let cache = |value: &str| match value.eq_ignore_ascii_case("none") {
            true => Ok(None),
            false => match fibtree_util::parse_bytes(value) {
                Ok(bytes) if (MIN_CACHE..=MAX_CACHE).contains(&bytes) => Ok(Some(bytes)),
                Ok(_) => Err(format!("{key}: expected a cache from 16K to 1T, or none, got {}", shown(value))),
                Err(e) => Err(format!("{key}: {e}, or none, got {}", shown(value))),
            },
        };
        machine = match key.as_str() {
            "l2" => machine.l2(cache(value)?),
            "l3" => machine.l3(cache(value)?),
            "cores" => {
                let cores = fibtree_util::parse_whole::<usize>(value).ok().filter(|c| (1..=MAX_CORES).contains(c));
                let bad = || format!("cores: expected from 1 to {MAX_CORES}, got {}", shown(value));
                machine.cores(cores.ok_or_else(bad)?)
            }
            "kernels" => {
                let wanted = value.to_ascii_lowercase();
                let Some(isa) = Isa::ALL.into_iter().find(|k| k.name() == wanted) else {
                    return Err(format!("kernels: expected baseline, avx2 or avx512, got {}", shown(value)));
                };
                if isa > widest {
                    return Err(format!("kernels: this CPU has no {isa} to run (its widest set is {widest})"));
                }
                named = Some(isa);
                machine.widest_isa(isa)
            }
            "memory" => {
                let bytes =
                    fibtree_util::parse_bytes(value).map_err(|e| format!("memory: {e}, got {}", shown(value)))?;
                machine.memory(bytes)
            }
            _ => return Err(format!("{EXPECTED}; got the key {}", shown(&key))),
        };
        seen.push(key);
    }
    Ok((machine, named))
}

/// The kernel set `value` of `FIBTREE_ISA` forces on a machine that runs `has` (the narrowest
/// first), `None` where it leaves the choice to the engines, or what is wrong with it. Cost O(length
/// of `value`).
fn choose(value: Option<&OsStr>, has: &[Isa]) -> Result<Option<Isa>, String> {
    let shown = fibtree_util::quoted(value.unwrap_or_default());
    let Some(value) = value.unwrap_or_default().to_str() else {
        return Err(format!("expected auto, baseline, avx2 or avx512, got {shown}"));
    };
    let wanted = value.trim().to_ascii_lowercase();
    if wanted.is_empty() || wanted == "auto" {
        return Ok(None);
    }
    let Some(isa) = Isa::ALL.into_iter().find(|k| k.name() == wanted) else {
        return Err(format!("expected auto, baseline, avx2 or avx512, got {shown}"));
    };
    if has.contains(&isa) {
        Ok(Some(isa))
    } else {
        let names: Vec<&str> = has.iter().map(|k| k.name()).collect();
        Err(format!("this CPU has no {} (it has: {})", isa.vendor_name(), names.join(", ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(s: &str) -> Option<&OsStr> {
        Some(OsStr::new(s))
    }

    #[test]
    fn every_key_read_and_the_rest_left_to_the_machine() {
        let s = parse("l2=512K, l3=none,cores=64,kernels=AVX2,memory=1.5G", Isa::Avx512).unwrap();
        let want = Machine::default().l2(Some(512 << 10)).l3(None).cores(64).widest_isa(Isa::Avx2).memory(3 << 29);
        assert_eq!(s, (want, Some(Isa::Avx2)));
        assert_eq!(parse("cores=1", Isa::Baseline).unwrap(), (Machine::default().cores(1), None));
        assert_eq!(parse("", Isa::Baseline).unwrap(), (Machine::default(), None));
    }

    #[test]
    fn what_cannot_be_simulated_is_refused_in_words() {
        let refused = |text: &str| parse(text, Isa::Avx2).unwrap_err();
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

    #[test]
    fn auto_empty_and_unset_leave_the_choice() {
        let has = [Isa::Baseline, Isa::Avx2];
        for value in [None, os(""), os("auto"), os("AUTO"), os(" Auto ")] {
            assert_eq!(choose(value, &has), Ok(None), "{value:?}");
        }
        assert_eq!(choose(None, &[Isa::Baseline]), Ok(None));
    }

    #[test]
    fn a_named_set_is_taken_in_any_case() {
        let has = Isa::ALL;
        for isa in Isa::ALL {
            assert_eq!(choose(os(isa.name()), &has), Ok(Some(isa)));
            assert_eq!(choose(os(&isa.name().to_uppercase()), &has), Ok(Some(isa)));
        }
    }

    #[test]
    fn unknown_values_and_missing_sets_are_refused() {
        let has = [Isa::Baseline, Isa::Avx2];
        assert_eq!(choose(os("sse9"), &has), Err(r#"expected auto, baseline, avx2 or avx512, got "sse9""#.into()));
        assert_eq!(choose(os("avx512"), &has), Err("this CPU has no AVX-512 (it has: baseline, avx2)".into()));
        assert_eq!(choose(os("AVX2"), &[Isa::Baseline]), Err("this CPU has no AVX2 (it has: baseline)".into()));
        let e = refused(ISA_VAR, choose(os("x\ny"), &has).unwrap_err());
        assert_eq!(e.to_string(), r#"FIBTREE_ISA: expected auto, baseline, avx2 or avx512, got "x\ny""#);
    }
}
