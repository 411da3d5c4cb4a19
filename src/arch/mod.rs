//! The CPU: the instruction sets fibtree has kernels for, detected in one place, and the kernels.
//!
//! This is the only module with `unsafe` code. A kernel is written once, in portable Rust, and run
//! through [`compiled`], which calls it inside a wrapper compiled for the instruction set asked for
//! (the compiler then vectorises the same source for AVX-512, AVX2 or the build's baseline: SSE2 on
//! x86-64, NEON on aarch64). Where hand-written intrinsics beat the compiler (the dense modular
//! sweep's lane permutation), the kernel's file holds them beside its portable form.
//!
//! - [`lanes`]: the blocked engine's kernels, the lane-wise sum of a layer (exact values) and the
//!   lane-wise sum modulo each lane's modulus (residues);
//! - [`normalise`]: the normalisation of exact lanes at a block's end (AVX-512 and AVX2 intrinsics);
//! - [`dense`]: the dense modular engine's sweep of a window: portable (blocks of 4 lanes whose
//!   permutation the compiler turns into shuffles), AVX2 and AVX-512;
//! - [`carry`]: the add-with-carry chain of the reference exact engine;
//! - [`aligned`]: zeroed arrays aligned to a cache line, for the vector loads;
//! - [`select`]: which kernel set runs ([`select::kernel`]: the one the environment variable
//!   `FIBTREE_ISA` forces, or the fastest for the lanes as [`calibrate`] measures it and the widest
//!   for the dense sweep). The engines take [`Kernel::in_use`] or [`select::dense_kernel`], never
//!   [`Kernel::detect`], which says only what the CPU has.
//! - [`calibrate`]: the measurements that choose the lanes' kernel set and the chunks' lanes;
//! - [`clock`]: the calling thread's CPU time;
//! - [`cache`]: the level-2 and level-3 caches the operating system reports;
//! - [`machine`]: the machine as fibtree sees it, or the one `FIBTREE_MACHINE` simulates (caches,
//!   cores, kernel sets, memory available);
//! - [`stream`]: the streaming add `out[i] = b[i] + c[i]`, the yardstick of `fibtree bench`.

#![allow(unsafe_code)]

mod aligned;
mod cache;
mod calibrate;
mod carry;
mod clock;
mod dense;
mod lanes;
mod machine;
mod normalise;
pub(crate) mod select;
mod stream;

pub(crate) use aligned::AlignedLanes;
pub(crate) use cache::{l2_bytes, l3_bytes};
pub use calibrate::KernelChoice;
pub(crate) use calibrate::chunk_lanes;
pub(crate) use carry::add_run;
pub(crate) use clock::thread_cpu_seconds;
pub(crate) use dense::{Residue, window};
pub(crate) use lanes::{ModLane, sum_layer, sum_layer_mod};
pub(crate) use machine::simulation;
pub use machine::{MACHINE_VAR, cores, simulated};
pub(crate) use normalise::normalise;
pub(crate) use select::Kernel;
pub(crate) use stream::stream_add;

/// A kernel: portable code for [`compiled`] to run as compiled for an instruction set (vectorised
/// by the compiler for each). Its `run` must be `#[inline(always)]`, so that it is compiled into
/// each instruction set's wrapper. (Not to be confused with [`select::Kernel`], a set of kernels.)
pub(crate) trait Vectorised {
    /// What the kernel returns.
    type Output;

    /// The kernel's work.
    fn run(self) -> Self::Output;
}

/// Runs `kernel` compiled for `isa`, or for the widest instruction set below it that the CPU has.
/// Cost: the kernel's, plus one load and a branch.
#[inline]
pub(crate) fn compiled<V: Vectorised>(isa: Kernel, kernel: V) -> V::Output {
    match isa.min(Kernel::detect()) {
        // SAFETY: `Kernel::detect` found AVX-512F, AVX2, BMI1 and POPCNT on this CPU.
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 => unsafe { x86::avx512(kernel) },
        // SAFETY: `Kernel::detect` found AVX2, BMI1 and POPCNT on this CPU.
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => unsafe { x86::avx2(kernel) },
        _ => kernel.run(),
    }
}

/// The wrappers that compile a kernel for an x86-64 instruction set.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::Vectorised;

    #[target_feature(enable = "avx512f,avx2,bmi1,popcnt")]
    pub(super) fn avx512<V: Vectorised>(kernel: V) -> V::Output {
        kernel.run()
    }

    #[target_feature(enable = "avx2,bmi1,popcnt")]
    pub(super) fn avx2<V: Vectorised>(kernel: V) -> V::Output {
        kernel.run()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_baseline_set_is_always_there() {
        let all = Kernel::available();
        assert_eq!(all[0], Kernel::Baseline);
        assert_eq!(all.last(), Some(&Kernel::detect()));
        assert!(all.windows(2).all(|w| w[0] < w[1]));
    }
}
