//! The blocked exact engine's two kernels over chunks of C lanes (`u64` words, each holding up to
//! P payload bits between normalisations): the lane-wise sum of a layer, and the normalisation at a
//! block's end. Portable Rust, vectorised by the compiler for each instruction set.

use super::{Isa, Kernel, compiled};

/// `out[s] = old[left[s]] + older[right[s]]` lane by lane, for chunks of C lanes, `out` holding
/// `left.len()` chunks.
///
/// Cost: `left.len() x C` additions, reading two chunks and writing one per state.
///
/// # Panics
/// If `out` is shorter than `left.len()` chunks, `right` shorter than `left`, or an index reads
/// past `old` or `older`.
pub(crate) fn sum_layer<const C: usize>(
    isa: Isa,
    out: &mut [u64],
    old: &[u64],
    older: &[u64],
    left: &[u32],
    right: &[u32],
) {
    compiled(isa, Sum::<C> { out, old, older, left, right })
}

struct Sum<'a, const C: usize> {
    out: &'a mut [u64],
    old: &'a [u64],
    older: &'a [u64],
    left: &'a [u32],
    right: &'a [u32],
}

impl<const C: usize> Kernel for Sum<'_, C> {
    type Output = ();

    #[inline(always)]
    fn run(self) {
        sum::<C>(self.out, self.old, self.older, self.left, self.right)
    }
}

/// The loop of [`sum_layer`]. Each chunk's sources are copied into locals before its sum is stored,
/// so that the compiler vectorises the chunk without having to prove that `out` aliases neither
/// source (a fact that inlining loses).
#[inline(always)]
fn sum<const C: usize>(out: &mut [u64], old: &[u64], older: &[u64], left: &[u32], right: &[u32]) {
    for ((out, &l), &r) in out.chunks_exact_mut(C).zip(left).zip(right) {
        let a: [u64; C] = old[l as usize * C..][..C].try_into().expect("C lanes");
        let b: [u64; C] = older[r as usize * C..][..C].try_into().expect("C lanes");
        let sum: [u64; C] = std::array::from_fn(|i| a[i] + b[i]);
        out.copy_from_slice(&sum);
    }
}

/// Normalises each state's chunk of C lanes of `layer` (all but its last chunk, the layer's zero
/// chunk) in place: every lane keeps its P payload bits and adds the high bits of the lane below,
/// lane 0 only its payload. Writes each state's carry out of its top lane (its high bits, which
/// lane 0 of the next chunk must add) to `carries`.
///
/// Cost: O(lanes of `layer`).
pub(crate) fn normalise<const C: usize, const P: u32>(isa: Isa, layer: &mut [u64], carries: &mut Vec<u64>) {
    compiled(isa, Normalise::<C, P> { layer, carries })
}

struct Normalise<'a, const C: usize, const P: u32> {
    layer: &'a mut [u64],
    carries: &'a mut Vec<u64>,
}

impl<const C: usize, const P: u32> Kernel for Normalise<'_, C, P> {
    type Output = ();

    #[inline(always)]
    fn run(self) {
        normalise_loop::<C, P>(self.layer, self.carries)
    }
}

/// The loop of [`normalise`]: each chunk is copied into a local, normalised there and stored back
/// before its carry is written (as [`sum`] says why); the carries are sized first, so that the loop
/// stores each carry without growing a vector.
#[inline(always)]
fn normalise_loop<const C: usize, const P: u32>(layer: &mut [u64], carries: &mut Vec<u64>) {
    let mask = (1u64 << P) - 1;
    let states = layer.len() / C - 1;
    carries.clear();
    carries.resize(states, 0);
    for (chunk, carry) in layer[..states * C].chunks_exact_mut(C).zip(carries.iter_mut()) {
        let lanes: [u64; C] = (&*chunk).try_into().expect("C lanes");
        let high: [u64; C] = std::array::from_fn(|i| lanes[i] >> P);
        let kept: [u64; C] = std::array::from_fn(|i| (lanes[i] & mask) + if i > 0 { high[i - 1] } else { 0 });
        chunk.copy_from_slice(&kept);
        *carry = high[C - 1];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_instruction_set_sums_and_normalises_alike() {
        let mut rng = crate::rng::SplitMix64(0x5eed);
        let old: Vec<u64> = (0..64 * 16).map(|_| rng.next_u64() >> 2).collect();
        let older: Vec<u64> = (0..64 * 16).map(|_| rng.next_u64() >> 2).collect();
        let left: Vec<u32> = (0..50).map(|_| rng.below(64) as u32).collect();
        let right: Vec<u32> = (0..50).map(|_| rng.below(64) as u32).collect();
        let mut want = vec![0; 51 * 16];
        for (s, w) in want.chunks_exact_mut(16).take(50).enumerate() {
            for i in 0..16 {
                w[i] = old[left[s] as usize * 16 + i] + older[right[s] as usize * 16 + i];
            }
        }
        let mut normalised = want.clone();
        let mut carries = Vec::new();
        normalise::<16, 48>(Isa::Portable, &mut normalised, &mut carries);
        assert_eq!(carries.len(), 50);
        let value = |lanes: &[u64], top: u64| -> num_bigint::BigUint {
            let mut v = num_bigint::BigUint::from(top) << (48 * lanes.len());
            for (i, &lane) in lanes.iter().enumerate() {
                v += num_bigint::BigUint::from(lane) << (48 * i);
            }
            v
        };
        for (s, chunk) in normalised.chunks_exact(16).take(50).enumerate() {
            assert_eq!(value(chunk, carries[s]), value(&want[s * 16..][..16], 0), "state {s}: the value is kept");
            assert!(chunk.iter().all(|&l| l < (1 << 48) + (1 << 16)), "state {s}: lanes normalised");
        }
        for isa in Isa::available() {
            let mut got = vec![0; 51 * 16];
            sum_layer::<16>(isa, &mut got, &old, &older, &left, &right);
            assert_eq!(got, want, "{isa:?}");
            let mut got_carries = Vec::new();
            normalise::<16, 48>(isa, &mut got, &mut got_carries);
            assert_eq!((&got, &got_carries), (&normalised, &carries), "{isa:?}");
        }
    }
}
