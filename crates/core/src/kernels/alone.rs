//! The engines' kernels on their own, for the criterion benchmarks (`benches/kernels.rs`) to compare
//! the instruction sets on one machine; not part of the API. Each runs one kernel of `crate::kernels`
//! compiled for the instruction set `isa` (one this CPU lacks runs as the widest below it that it has):
//!
//! - [`sum_layer`]: the blocked engine's exact kernel, `out[s] = old[left[s]] + older[right[s]]`
//!   lane by lane in chunks of `chunk_lanes` lanes;
//! - [`sum_layer_mod`] and [`sum_layer_mod_narrow`]: its residue kernel, `out[s] = (old[left[s]] +
//!   older[right[s]]) mod moduli[i]` in lane i of each chunk of `moduli.len()` lanes, every source
//!   lane below its modulus, in `u64` lanes (moduli below 2^63) and in `u32` lanes (below 2^31, twice
//!   the lanes per vector: what a residue kind of 31-bit primes would run);
//! - [`sum_layer_derived`] and [`sum_layer_carry_save`]: two other forms of the exact kernel, measured
//!   against it and not used by the engine (`kernels::trials`): positions derived in the loop from
//!   runs of 64 states ([`Run`]), and full 64-bit words with their carries in a byte a lane;
//! - [`sweep`] and [`sweep_narrow`]: the dense modular engine's sweep, `cur[g + 1] = (old[g ^ r] +
//!   older[g ^ l]) mod m` for every g below W, the three arrays of W + 1 residues below `m`, in `u64`
//!   residues (m below 2^63) and in `u32` residues (m below 2^31).
//!
//! Cost: one addition (modulo a lane's modulus for the last four) per lane of `out` or `cur`.
//!
//! # Panics
//! A chunk is 1, 2, 4, 8, 16, 32 or 64 lanes, `left` and `right` have one length, and `out` holds
//! `left.len()` chunks, whose indices read within `old` and `older`; a sweep's arrays have W + 1
//! elements for a power of two W >= 64, and `r, l < W`.

use crate::kernels;
use crate::kernels::Isa;
pub use crate::kernels::trials::Run;

/// Calls `kernels::$kernel` with the chunk size `$c` as its constant C.
macro_rules! by_chunk {
    ($c:expr; $($kernel:ident)::+ $(, $t:ty)?; $($arg:expr),*) => {
        match $c {
            1 => kernels::$($kernel)::+::<$($t,)? 1>($($arg),*),
            2 => kernels::$($kernel)::+::<$($t,)? 2>($($arg),*),
            4 => kernels::$($kernel)::+::<$($t,)? 4>($($arg),*),
            8 => kernels::$($kernel)::+::<$($t,)? 8>($($arg),*),
            16 => kernels::$($kernel)::+::<$($t,)? 16>($($arg),*),
            32 => kernels::$($kernel)::+::<$($t,)? 32>($($arg),*),
            64 => kernels::$($kernel)::+::<$($t,)? 64>($($arg),*),
            _ => panic!("a chunk is 1, 2, 4, 8, 16, 32 or 64 lanes"),
        }
    };
}

/// `out` cut to the `left.len()` chunks of `c` lanes the sums write, after checking that the sources
/// pair up and that `out` holds them.
fn chunks<'o, T>(out: &'o mut [T], left: &[u32], right: &[u32], c: usize) -> &'o mut [T] {
    assert_eq!(left.len(), right.len(), "one right source per left source");
    assert!(out.len() >= left.len() * c, "out holds every chunk");
    &mut out[..left.len() * c]
}

/// The blocked engine's exact kernel (see the module).
pub fn sum_layer(
    isa: Isa,
    chunk_lanes: usize,
    out: &mut [u64],
    old: &[u64],
    older: &[u64],
    left: &[u32],
    right: &[u32],
) {
    let out = chunks(out, left, right, chunk_lanes);
    by_chunk!(chunk_lanes; sum_layer; isa, out, old, older, left, right)
}

/// The exact kernel with its positions derived from runs of 64 states (see the module).
pub fn sum_layer_derived(isa: Isa, chunk_lanes: usize, out: &mut [u64], old: &[u64], older: &[u64], runs: &[Run]) {
    by_chunk!(chunk_lanes; trials::sum_layer_derived; isa, out, old, older, runs)
}

/// The exact kernel over full words, carries apart (see the module): each layer as its words and a
/// carry byte a word.
pub fn sum_layer_carry_save(
    isa: Isa,
    chunk_lanes: usize,
    out: (&mut [u64], &mut [u8]),
    old: (&[u64], &[u8]),
    older: (&[u64], &[u8]),
    left: &[u32],
    right: &[u32],
) {
    let words = chunks(out.0, left, right, chunk_lanes);
    let n = words.len();
    let out = (words, &mut out.1[..n]);
    by_chunk!(chunk_lanes; trials::sum_layer_carry_save; isa, out, old, older, left, right)
}

/// The blocked engine's residue kernel in `u64` lanes (see the module).
pub fn sum_layer_mod(
    isa: Isa,
    out: &mut [u64],
    old: &[u64],
    older: &[u64],
    left: &[u32],
    right: &[u32],
    moduli: &[u64],
) {
    let out = chunks(out, left, right, moduli.len());
    by_chunk!(moduli.len(); sum_layer_mod, u64; isa, out, old, older, left, right, moduli)
}

/// The blocked engine's residue kernel in `u32` lanes (see the module).
pub fn sum_layer_mod_narrow(
    isa: Isa,
    out: &mut [u32],
    old: &[u32],
    older: &[u32],
    left: &[u32],
    right: &[u32],
    moduli: &[u32],
) {
    let out = chunks(out, left, right, moduli.len());
    by_chunk!(moduli.len(); sum_layer_mod, u32; isa, out, old, older, left, right, moduli)
}

/// The dense modular engine's sweep in `u64` residues (see the module).
pub fn sweep(isa: Isa, cur: &mut [u64], old: &[u64], older: &[u64], r: usize, l: usize, m: u64) {
    let w = cur.len().saturating_sub(1);
    kernels::window(isa, cur, old, older, kernels::WindowStep { lo: 0, hi: w, r, l, m })
}

/// The dense modular engine's sweep in `u32` residues (see the module).
pub fn sweep_narrow(isa: Isa, cur: &mut [u32], old: &[u32], older: &[u32], r: usize, l: usize, m: u32) {
    let w = cur.len().saturating_sub(1);
    kernels::window(isa, cur, old, older, kernels::WindowStep { lo: 0, hi: w, r, l, m })
}
