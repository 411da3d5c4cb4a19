//! Which kernel set runs, read once per process: the one the environment variable `FIBTREE_ISA`
//! forces, or where it does not, for the exact engine's lanes the fastest of this CPU's sets as
//! measured ([`super::calibrate`]) and for the dense modular sweep (and the plan's bitset passes)
//! the widest.
//!
//! `FIBTREE_ISA` is `auto` (or empty, or unset: chosen as above), `baseline` (the portable kernels
//! as compiled for the build's target: SSE2 on x86-64, NEON on aarch64), `avx2` or `avx512`, in any
//! case. An unknown value, or a set this CPU lacks, is an error that [`kernel`] returns and that
//! every engine returns before it runs a kernel: nothing falls back silently.
//!
//! Why two rules: the lanes' kernel streams chunks through the level-2 cache, where the widest set
//! was not the fastest on the AMD EPYC Zen 4 and the Intel Xeon measured; the dense sweep permutes
//! residues in registers with hand-written intrinsics, 3 to 4 times faster with AVX2 or AVX-512 than
//! the baseline and fastest with the widest on both.

use std::ffi::OsStr;
use std::sync::OnceLock;

use crate::error::{Error, Param, Result};

/// The environment variable that forces a kernel set.
///
/// # Examples
///
/// ```
/// assert_eq!(fibtree::KERNEL_VAR, "FIBTREE_ISA");
/// ```
pub const KERNEL_VAR: &str = "FIBTREE_ISA";

/// A set of vector kernels fibtree can run, from the narrowest: each CPU that runs one runs the
/// ones before it.
///
/// # Examples
///
/// ```
/// use fibtree::Kernel;
/// assert_eq!(Kernel::available()[0], Kernel::Baseline); // every CPU runs the baseline
/// assert_eq!(Kernel::Avx2.name(), "avx2");
/// assert!(Kernel::ALL.iter().all(|k| k.to_string() == k.name()));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Kernel {
    /// The portable kernels as compiled for the build's target (SSE2 on x86-64, NEON on aarch64):
    /// every CPU.
    Baseline,
    /// x86-64 with AVX2, BMI1 and POPCNT.
    Avx2,
    /// x86-64 with AVX-512F as well.
    Avx512,
}

impl Kernel {
    /// Every kernel set, the narrowest first.
    pub const ALL: [Kernel; 3] = [Kernel::Baseline, Kernel::Avx2, Kernel::Avx512];

    /// The set's name as `FIBTREE_ISA` takes it: `baseline`, `avx2` or `avx512`.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Baseline => "baseline",
            Kernel::Avx2 => "avx2",
            Kernel::Avx512 => "avx512",
        }
    }

    /// The instruction set's name as vendors write it, for messages: `baseline`, `AVX2`, `AVX-512`.
    fn vendor_name(self) -> &'static str {
        match self {
            Kernel::Baseline => "baseline",
            Kernel::Avx2 => "AVX2",
            Kernel::Avx512 => "AVX-512",
        }
    }

    /// Every kernel set this CPU runs, the narrowest (always [`Kernel::Baseline`]) first. Cost: one
    /// load after the first call of the process.
    pub fn available() -> Vec<Kernel> {
        Kernel::ALL.into_iter().filter(|&set| set <= Kernel::detect()).collect()
    }

    /// The kernel set `FIBTREE_ISA` forces, or `None` where it leaves the choice (`auto`, empty or
    /// unset): a check of the variable that measures nothing. Read once per process.
    ///
    /// # Errors
    /// As [`kernel`].
    ///
    /// # Examples
    ///
    /// ```
    /// // with FIBTREE_ISA unset (or valid), no error; a forced set is one this CPU has
    /// let forced = fibtree::Kernel::forced()?;
    /// assert!(forced.is_none_or(|k| fibtree::Kernel::available().contains(&k)));
    /// # Ok::<(), fibtree::Error>(())
    /// ```
    pub fn forced() -> Result<Option<Kernel>> {
        forced()
    }

    /// The widest kernel set this CPU has, detected once per process, or the narrower one
    /// `FIBTREE_MACHINE` simulates (never a wider one: [`super::machine`]). Cost: one load after the
    /// first call.
    pub(crate) fn detect() -> Kernel {
        let real = Kernel::detect_real();
        super::simulation().kernels.map_or(real, |simulated| simulated.min(real))
    }

    /// The widest kernel set this CPU has, detected once per process. Cost: one load after the
    /// first call.
    pub(crate) fn detect_real() -> Kernel {
        static DETECTED: OnceLock<Kernel> = OnceLock::new();
        *DETECTED.get_or_init(|| {
            #[cfg(target_arch = "x86_64")]
            {
                use std::arch::is_x86_feature_detected as has;
                if has!("avx2") && has!("bmi1") && has!("popcnt") {
                    return if has!("avx512f") { Kernel::Avx512 } else { Kernel::Avx2 };
                }
            }
            Kernel::Baseline
        })
    }

    /// The kernel set the exact engine's lanes run: [`kernel`]'s, or where `FIBTREE_ISA` is invalid
    /// the widest the CPU has (the engines' entry points have returned that error before they get
    /// here; only the kernels on their own of [`crate::kernels`], whose use is the caller's, reach it
    /// then). Cost: one load after the first call of the process (which may calibrate).
    pub(crate) fn in_use() -> Kernel {
        kernel().unwrap_or_else(|_| Kernel::detect())
    }
}

impl std::fmt::Display for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The kernel set the exact engine's lanes run (most of a count's time): the one `FIBTREE_ISA`
/// names, or where it is `auto`, empty or unset the fastest of this CPU's sets as measured once per
/// process ([`kernel_choice`]). The variable is read on the first call of the process only.
///
/// Cost: a few milliseconds of one core on the first call where it measures (2 to 5 ms on the CPUs
/// measured), one load after.
///
/// # Errors
/// [`Error::InvalidArgument`] naming [`Param::Isa`] for a value that is not a kernel set, or one
/// this CPU lacks (e.g. `avx512` on a CPU with AVX2 only).
///
/// # Examples
///
/// ```
/// // a set this CPU has (with `FIBTREE_ISA` unset or valid: else the error)
/// let chosen = fibtree::kernel()?;
/// assert!(fibtree::Kernel::available().contains(&chosen));
/// # Ok::<(), fibtree::Error>(())
/// ```
pub fn kernel() -> Result<Kernel> {
    Ok(match forced()? {
        Some(kernel) => kernel,
        None => super::calibrate::lanes_kernel(&Kernel::available()).chosen,
    })
}

/// The kernel set of the dense modular sweep and of the plan's bitset passes: the one
/// `FIBTREE_ISA` names, or the widest this CPU has. Cost: one load after the first call.
///
/// # Errors
/// As [`kernel`].
pub(crate) fn dense_kernel() -> Result<Kernel> {
    Ok(forced()?.unwrap_or_else(Kernel::detect))
}

/// What the calibration of the lanes' kernel set measured, where `FIBTREE_ISA` leaves the choice
/// to it (`None` where it forces a set, or is invalid): each set's rate, the one chosen and the time
/// it took. Measures on the first call of the process, as [`kernel`] does.
///
/// # Examples
///
/// ```
/// if let Some(measured) = fibtree::kernel_choice() {
///     assert_eq!(measured.chosen, fibtree::kernel()?);
///     assert_eq!(measured.rates.len(), fibtree::Kernel::available().len());
/// }
/// # Ok::<(), fibtree::Error>(())
/// ```
pub fn kernel_choice() -> Option<&'static super::KernelChoice> {
    match forced() {
        Ok(None) => Some(super::calibrate::lanes_kernel(&Kernel::available())),
        _ => None,
    }
}

/// The kernel set `FIBTREE_ISA` forces, `None` where it leaves the choice (auto, empty or unset).
/// Read once per process. Cost: one load after the first call.
fn forced() -> Result<Option<Kernel>> {
    // the machine simulated, where one is, first: the sets available are its
    super::simulated()?;
    static FORCED: OnceLock<Result<Option<Kernel>, String>> = OnceLock::new();
    FORCED
        .get_or_init(|| choose(std::env::var_os(KERNEL_VAR).as_deref(), &Kernel::available()))
        .clone()
        .map_err(|expected| Error::invalid(Param::Isa, expected))
}

/// The kernel set `value` of `FIBTREE_ISA` forces on a CPU that runs `has` (the narrowest first),
/// `None` where it leaves the choice to the engines, or what is wrong with it. Cost O(length of
/// `value`).
fn choose(value: Option<&OsStr>, has: &[Kernel]) -> Result<Option<Kernel>, String> {
    let shown = fibtree_util::quoted(value.unwrap_or_default());
    let Some(value) = value.unwrap_or_default().to_str() else {
        return Err(format!("expected auto, baseline, avx2 or avx512, got {shown}"));
    };
    let wanted = value.trim().to_ascii_lowercase();
    if wanted.is_empty() || wanted == "auto" {
        return Ok(None);
    }
    let Some(kernel) = Kernel::ALL.into_iter().find(|k| k.name() == wanted) else {
        return Err(format!("expected auto, baseline, avx2 or avx512, got {shown}"));
    };
    if has.contains(&kernel) {
        Ok(Some(kernel))
    } else {
        let names: Vec<&str> = has.iter().map(|k| k.name()).collect();
        Err(format!("this CPU has no {} (it has: {})", kernel.vendor_name(), names.join(", ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(s: &str) -> Option<&OsStr> {
        Some(OsStr::new(s))
    }

    #[test]
    fn auto_empty_and_unset_leave_the_choice() {
        let has = [Kernel::Baseline, Kernel::Avx2];
        for value in [None, os(""), os("auto"), os("AUTO"), os(" Auto ")] {
            assert_eq!(choose(value, &has), Ok(None), "{value:?}");
        }
        assert_eq!(choose(None, &[Kernel::Baseline]), Ok(None));
    }

    #[test]
    fn a_named_set_is_taken_in_any_case() {
        let has = Kernel::ALL;
        for kernel in Kernel::ALL {
            assert_eq!(choose(os(kernel.name()), &has), Ok(Some(kernel)));
            assert_eq!(choose(os(&kernel.name().to_uppercase()), &has), Ok(Some(kernel)));
            assert_eq!(kernel.to_string(), kernel.name());
        }
    }

    #[test]
    fn unknown_values_and_missing_sets_are_refused() {
        let has = [Kernel::Baseline, Kernel::Avx2];
        assert_eq!(choose(os("sse9"), &has), Err(r#"expected auto, baseline, avx2 or avx512, got "sse9""#.into()));
        assert_eq!(choose(os("avx512"), &has), Err("this CPU has no AVX-512 (it has: baseline, avx2)".into()));
        assert_eq!(choose(os("AVX2"), &[Kernel::Baseline]), Err("this CPU has no AVX2 (it has: baseline)".into()));
        let e = Error::invalid(Param::Isa, choose(os("x\ny"), &has).unwrap_err());
        assert_eq!(e.to_string(), r#"FIBTREE_ISA: expected auto, baseline, avx2 or avx512, got "x\ny""#);
    }

    #[test]
    fn the_sets_match_the_instruction_sets() {
        let available = Kernel::available();
        assert_eq!(available[0], Kernel::Baseline);
        assert_eq!(available.last().copied(), Some(Kernel::detect()));
        // the tests run with FIBTREE_ISA unset or valid
        let chosen = kernel().expect("a valid FIBTREE_ISA");
        assert!(available.contains(&chosen));
        assert_eq!(Kernel::in_use(), chosen);
    }
}
