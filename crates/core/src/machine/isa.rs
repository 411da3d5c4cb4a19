//! The instruction sets fibtree's kernels are compiled for ([`Isa`]), and those the machine has.

use std::sync::OnceLock;

/// An instruction set fibtree's kernels are compiled for, from the narrowest: each CPU that runs one
/// runs the ones before it. (The command line calls the kernels compiled for one a kernel set.)
///
/// # Examples
///
/// ```
/// # use fibtree_core as fibtree;
/// use fibtree::Isa;
/// assert_eq!(Isa::available()[0], Isa::Baseline); // every CPU runs the baseline
/// assert_eq!(Isa::Avx2.name(), "avx2");
/// assert!(Isa::ALL.iter().all(|k| k.to_string() == k.name()));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Isa {
    /// The portable kernels as compiled for the build's target (SSE2 on x86-64, NEON on aarch64):
    /// every CPU.
    Baseline,
    /// x86-64 with AVX2, BMI1 and POPCNT.
    Avx2,
    /// x86-64 with AVX-512F as well.
    Avx512,
}

impl Isa {
    /// Every instruction set, the narrowest first.
    pub const ALL: [Isa; 3] = [Isa::Baseline, Isa::Avx2, Isa::Avx512];

    /// The set's name: `baseline`, `avx2` or `avx512`. Cost O(1).
    pub fn name(self) -> &'static str {
        match self {
            Isa::Baseline => "baseline",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
        }
    }

    /// The instruction set's name as vendors write it, for messages: `baseline`, `AVX2`, `AVX-512`.
    /// Cost O(1).
    pub fn vendor_name(self) -> &'static str {
        match self {
            Isa::Baseline => "baseline",
            Isa::Avx2 => "AVX2",
            Isa::Avx512 => "AVX-512",
        }
    }

    /// Every instruction set whose kernels this build holds, the narrowest first: all of them on
    /// x86-64, the baseline alone elsewhere. Cost O(1).
    ///
    /// ```
    /// # use fibtree_core as fibtree;
    /// assert_eq!(fibtree::Isa::built()[0], fibtree::Isa::Baseline);
    /// ```
    pub fn built() -> &'static [Isa] {
        if cfg!(target_arch = "x86_64") { &Isa::ALL } else { &Isa::ALL[..1] }
    }

    /// Every instruction set the machine runs (the CPU's, up to [`crate::Machine::widest_isa`]), the narrowest (always
    /// [`Isa::Baseline`]) first. Cost: one load after the first call of the process.
    pub fn available() -> Vec<Isa> {
        Isa::ALL.into_iter().filter(|&set| set <= Isa::detect()).collect()
    }

    /// The widest instruction set the machine has: the CPU's ([`Isa::of_cpu`]), or the narrower one
    /// the machine's setting gives ([`crate::Machine::widest_isa`]). Cost: one load after the first
    /// call.
    pub(crate) fn detect() -> Isa {
        let real = Isa::of_cpu();
        super::settings().widest.map_or(real, |set| set.min(real))
    }

    /// The widest instruction set this CPU has, detected once per process, whatever the machine's
    /// setting. Cost: one load after the first call.
    ///
    /// ```
    /// # use fibtree_core as fibtree;
    /// assert!(fibtree::Isa::of_cpu() >= *fibtree::Isa::available().last().unwrap());
    /// ```
    pub fn of_cpu() -> Isa {
        static DETECTED: OnceLock<Isa> = OnceLock::new();
        *DETECTED.get_or_init(|| {
            #[cfg(target_arch = "x86_64")]
            {
                use std::arch::is_x86_feature_detected as has;
                if has!("avx2") && has!("bmi1") && has!("popcnt") {
                    return if has!("avx512f") { Isa::Avx512 } else { Isa::Avx2 };
                }
            }
            Isa::Baseline
        })
    }
}

impl std::fmt::Display for Isa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
