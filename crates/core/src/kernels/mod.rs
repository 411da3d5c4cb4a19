//! The kernels: the engines' compute routines, each written once in portable Rust and run through
//! [`compiled`] as compiled for an instruction set ([`Isa`]); and which instruction set they run
//! ([`isa()`]).
//!
//! This is the only module with `unsafe` code: the wrappers below, which call a kernel inside a
//! function compiled for the instruction set asked for (the compiler then vectorises the same
//! source for AVX-512, AVX2 or the build's baseline: SSE2 on x86-64, NEON on aarch64), and, where
//! hand-written intrinsics beat the compiler (the dense modular sweep's lane permutation, the
//! normalisation of exact lanes), the kernel's file, which holds them beside its portable form.
//!
//! - [`lanes`]: the blocked engine's kernels, the lane-wise sum of a layer (exact values) and the
//!   lane-wise sum modulo each lane's modulus (residues);
//! - [`normalise`]: the normalisation of exact lanes at a block's end (AVX-512 and AVX2 intrinsics);
//! - [`dense`]: the dense modular engine's sweep of a window: portable (blocks of 4 lanes whose
//!   permutation the compiler turns into shuffles), AVX2 and AVX-512;
//! - [`carry`]: the add-with-carry chain of the reference exact engine;
//! - [`aligned`]: zeroed arrays aligned to a cache line, for the vector loads;
//! - [`stream`]: the streaming add `out[i] = b[i] + c[i]`, the yardstick of `fibtree bench`;
//! - [`chosen`]: which instruction set runs ([`isa()`]: the one the machine's setting forces,
//!   [`crate::Machine::isa`], or the fastest for the lanes as [`calibrate`] measures it, and the
//!   widest for the dense sweep, [`chosen::dense_isa`]). The engines take those, never
//!   [`Isa::detect`], which says only what the machine has;
//! - [`calibrate`]: the measurements that choose the lanes' instruction set and the chunks' lanes;
//! - `alone` (with the feature `kernels`): the kernels on their own, for the criterion benchmarks,
//!   and `trials`: two other forms of the exact kernel, measured against it and not used.

#![allow(unsafe_code)]

mod aligned;
#[cfg(feature = "kernels")]
pub mod alone;
mod calibrate;
mod carry;
pub(crate) mod chosen;
mod dense;
mod lanes;
mod normalise;
mod stream;
#[cfg(feature = "kernels")]
mod trials;

pub use crate::machine::Isa;
pub(crate) use aligned::AlignedLanes;
pub use calibrate::IsaChoice;
pub(crate) use calibrate::{chunk_lanes, lane_rate};
pub(crate) use carry::add_run;
pub use chosen::{isa, isa_choice};
pub(crate) use dense::{Residue, WindowStep, window};
pub(crate) use lanes::{ModLane, sum_layer, sum_layer_mod};
pub(crate) use normalise::normalise;

/// A kernel: portable code for [`compiled`] to run as compiled for an instruction set (vectorised
/// by the compiler for each). Its `run` must be `#[inline(always)]`, so that it is compiled into
/// each instruction set's wrapper.
pub(crate) trait Kernel {
    /// What the kernel returns.
    type Output;

    /// The kernel's work.
    fn run(self) -> Self::Output;
}

/// Runs `kernel` compiled for `isa`, or for the widest instruction set below it that the CPU has.
/// Cost: the kernel's, plus one load and a branch.
#[inline]
pub(crate) fn compiled<K: Kernel>(isa: Isa, kernel: K) -> K::Output {
    match isa.min(Isa::detect()) {
        // SAFETY: `Isa::detect` found AVX-512F, AVX2, BMI1 and POPCNT on this CPU.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { x86::avx512(kernel) },
        // SAFETY: `Isa::detect` found AVX2, BMI1 and POPCNT on this CPU.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { x86::avx2(kernel) },
        _ => kernel.run(),
    }
}

/// The wrappers that compile a kernel for an x86-64 instruction set.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::Kernel;

    #[target_feature(enable = "avx512f,avx2,bmi1,popcnt")]
    pub(super) fn avx512<K: Kernel>(kernel: K) -> K::Output {
        kernel.run()
    }

    #[target_feature(enable = "avx2,bmi1,popcnt")]
    pub(super) fn avx2<K: Kernel>(kernel: K) -> K::Output {
        kernel.run()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_baseline_set_is_always_there() {
        let all = Isa::available();
        assert_eq!(all[0], Isa::Baseline);
        assert_eq!(all.last(), Some(&Isa::detect()));
        assert!(all.windows(2).all(|w| w[0] < w[1]));
    }
}
