//! The normalisation of a layer's chunks at the end of a block: each lane of a state keeps its P
//! payload bits and takes in the high bits of the lane below it, and the high bits of the chunk's
//! top lane leave it as the state's carry.
//!
//! The work of one state is a shift of its lanes' high bits by one lane, so it is written as such
//! for the vector units (AVX-512: one `valignq` per 8 lanes; AVX2: a permutation and a blend per 4).
//! The portable form, compiled for a wide vector set, was vectorised across states instead, with a
//! gather and a scatter a lane (8 % of a run's time on an AVX-512 Xeon); it stays for the baseline
//! set and for chunks narrower than a vector.

use super::Isa;

/// Normalises each state's chunk of C lanes of `layer` (all but its last chunk, the layer's zero
/// chunk) in place: every lane keeps its P payload bits and adds the high bits of the lane below,
/// lane 0 only its payload. Writes each state's carry out of its top lane (its high bits, below
/// 2^8 for P >= 56, which lane 0 of the next chunk must add) to `carries`: a byte a state.
///
/// Cost: O(lanes of `layer`), one read and one write of each.
pub(crate) fn normalise<const C: usize, const P: u32>(isa: Isa, layer: &mut [u64], carries: &mut Vec<u8>) {
    const { assert!(P >= 56 && P < 64, "a carry, the high bits of a lane, fits in 8 bits") };
    let states = (layer.len() / C).saturating_sub(1);
    carries.clear();
    carries.resize(states, 0);
    let layer = &mut layer[..states * C];
    match isa.min(Isa::detect()) {
        // SAFETY: `Isa::detect` found AVX-512F on this CPU; the layer holds `states` chunks of C
        // lanes and `carries` one word a state.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 if C.is_multiple_of(8) => unsafe { x86::avx512::<C, P>(layer, carries) },
        // SAFETY: `Isa::detect` found AVX2 on this CPU; as above.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 | Isa::Avx512 if C.is_multiple_of(4) => unsafe { x86::avx2::<C, P>(layer, carries) },
        _ => portable::<C, P>(layer, carries),
    }
}

/// The normalisation one state at a time, in plain Rust.
fn portable<const C: usize, const P: u32>(layer: &mut [u64], carries: &mut [u8]) {
    let mask = (1u64 << P) - 1;
    for (chunk, carry) in layer.chunks_exact_mut(C).zip(carries) {
        let mut below = 0;
        for lane in chunk.iter_mut() {
            let high = *lane >> P;
            *lane = (*lane & mask) + below;
            below = high;
        }
        *carry = below as u8;
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// [`super::normalise`] on 8 lanes a vector: the high bits shifted up a lane by `valignq`, the
    /// top lane's carried into the next vector of the chunk.
    ///
    /// # Safety
    /// The CPU has AVX-512F; C is a multiple of 8, `layer` holds `carries.len()` chunks of C lanes.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn avx512<const C: usize, const P: u32>(layer: &mut [u64], carries: &mut [u8]) {
        let mask = _mm512_set1_epi64(((1u64 << P) - 1) as i64);
        let zero = _mm512_setzero_si512();
        let lanes = layer.as_mut_ptr();
        for (s, carry) in carries.iter_mut().enumerate() {
            let mut below = zero;
            for v in (0..C).step_by(8) {
                // SAFETY: s < states and v + 8 <= C: within the `states` chunks of C lanes.
                unsafe {
                    let at = lanes.add(s * C + v);
                    let x = _mm512_loadu_si512(at.cast());
                    let high = _mm512_srli_epi64::<P>(x);
                    // lane i takes lane i - 1 of `high`, lane 0 the top lane of `below`
                    let shifted = _mm512_alignr_epi64::<7>(high, below);
                    _mm512_storeu_si512(at.cast(), _mm512_add_epi64(_mm512_and_si512(x, mask), shifted));
                    below = high;
                }
            }
            *carry = _mm256_extract_epi64::<3>(_mm512_extracti64x4_epi64::<1>(below)) as u8;
        }
    }

    /// [`super::normalise`] on 4 lanes a vector: the high bits rotated up a lane, lane 0 blended
    /// from the top lane of the vector below.
    ///
    /// # Safety
    /// The CPU has AVX2; C is a multiple of 4, `layer` holds `carries.len()` chunks of C lanes.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn avx2<const C: usize, const P: u32>(layer: &mut [u64], carries: &mut [u8]) {
        let mask = _mm256_set1_epi64x(((1u64 << P) - 1) as i64);
        let shift = _mm_set_epi64x(0, P as i64);
        let zero = _mm256_setzero_si256();
        let lanes = layer.as_mut_ptr();
        for (s, carry) in carries.iter_mut().enumerate() {
            let mut below = zero;
            for v in (0..C).step_by(4) {
                // SAFETY: s < states and v + 4 <= C: within the `states` chunks of C lanes.
                unsafe {
                    let at = lanes.add(s * C + v);
                    let x = _mm256_loadu_si256(at.cast());
                    let high = _mm256_srl_epi64(x, shift);
                    // [h3, h0, h1, h2], then lane 0 (two 32-bit halves) from the top lane below
                    let rotated = _mm256_permute4x64_epi64::<0b10_01_00_11>(high);
                    let top_below = _mm256_permute4x64_epi64::<0b11_11_11_11>(below);
                    let shifted = _mm256_blend_epi32::<0b0000_0011>(rotated, top_below);
                    _mm256_storeu_si256(at.cast(), _mm256_add_epi64(_mm256_and_si256(x, mask), shifted));
                    below = high;
                }
            }
            *carry = _mm256_extract_epi64::<3>(below) as u8;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every chunk size under every instruction set against the portable form, and the value of each state
    /// (its lanes plus its carry above them) unchanged; lanes at their largest (2^64 - 1) included.
    #[test]
    fn every_set_and_chunk_normalises_alike() {
        fn check<const C: usize>(seed: u64) {
            println!("SplitMix64 seed {seed:#x}, {C} lanes");
            let mut rng = fibtree_util::SplitMix64(seed);
            let states = 37;
            let raw: Vec<u64> = (0..(states + 1) * C)
                .map(|i| match (i >= states * C, rng.below(5)) {
                    (true, _) => 0, // the zero chunk
                    (_, 0) => u64::MAX,
                    (_, 1) => 0,
                    _ => rng.next_u64(),
                })
                .collect();
            let (mut want, mut want_carries) = (raw.clone(), vec![0; states]);
            portable::<C, 56>(&mut want[..states * C], &mut want_carries);
            let value = |lanes: &[u64], top: u8| -> num_bigint::BigUint {
                let mut v = num_bigint::BigUint::from(top) << (56 * lanes.len());
                for (i, &lane) in lanes.iter().enumerate() {
                    v += num_bigint::BigUint::from(lane) << (56 * i);
                }
                v
            };
            for s in 0..states {
                let chunk = &want[s * C..(s + 1) * C];
                assert_eq!(value(chunk, want_carries[s]), value(&raw[s * C..(s + 1) * C], 0), "state {s}");
                assert!(chunk.iter().all(|&l| l < (1 << 56) + (1 << 8)), "state {s}: lanes normalised");
            }
            for isa in Isa::available() {
                let (mut got, mut carries) = (raw.clone(), vec![7; 3]);
                normalise::<C, 56>(isa, &mut got, &mut carries);
                assert_eq!((&got, &carries), (&want, &want_carries), "{isa:?}, {C} lanes");
            }
        }
        check::<1>(0x0e11);
        check::<2>(0x0e12);
        check::<4>(0x0e14);
        check::<8>(0x0e18);
        check::<16>(0x0e1a);
        check::<32>(0x0e1b);
        check::<64>(0x0e1c);
    }
}
