//! The blocked engine's kernels over chunks of C lanes: for exact values (`u64` words, each holding
//! up to P payload bits between normalisations) the lane-wise sum of a layer and the normalisation
//! at a block's end; for residues (lane i modulo its own modulus m_i) the lane-wise sum modulo each
//! lane's modulus. Portable Rust, vectorised by the compiler for each instruction set.

use super::{Kernel, Vectorised, compiled};

/// `out[s] = old[left[s]] + older[right[s]]` lane by lane, for chunks of C lanes, `out` holding
/// `left.len()` chunks.
///
/// Cost: `left.len() x C` additions, reading two chunks and writing one per state.
///
/// # Panics
/// If `out` is shorter than `left.len()` chunks, `right` shorter than `left`, or an index reads
/// past `old` or `older`.
pub(crate) fn sum_layer<const C: usize>(
    isa: Kernel,
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

impl<const C: usize> Vectorised for Sum<'_, C> {
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

/// A lane of residues: `u64` for moduli below 2^63, `u32` for moduli below 2^31 (twice the lanes per
/// vector).
pub(crate) trait ModLane: Copy + Send + Sync + 'static {
    /// `(a + b) mod m` for a, b < m. Branch-free, and vectorisable without an unsigned minimum (which
    /// AVX2 lacks for 64-bit lanes): `t = a + b - m` (wrapping) is negative as a signed number
    /// exactly where a + b < m, and there a + b is kept; with AVX2 a subtraction and a blend on each
    /// lane's top bit.
    fn add_mod(a: Self, b: Self, m: Self) -> Self;
}

impl ModLane for u64 {
    #[inline(always)]
    fn add_mod(a: u64, b: u64, m: u64) -> u64 {
        let s = a + b; // a, b < m < 2^63: no overflow
        let t = s.wrapping_sub(m); // s < 2m: |s - m| < 2^63, so its sign is that of s - m
        if (t as i64) < 0 { s } else { t }
    }
}

impl ModLane for u32 {
    #[inline(always)]
    fn add_mod(a: u32, b: u32, m: u32) -> u32 {
        let s = a + b; // a, b < m < 2^31: no overflow
        let t = s.wrapping_sub(m);
        if (t as i32) < 0 { s } else { t }
    }
}

/// `out[s] = (old[left[s]] + older[right[s]]) mod moduli[i]` in lane i of each chunk of C lanes,
/// `out` holding `left.len()` chunks, every lane of the sources below its modulus.
///
/// Cost: `left.len() x C` additions modulo a lane's modulus (an addition, a subtraction and a
/// blend each), reading two chunks and writing one per state.
///
/// # Panics
/// As [`sum_layer`], and unless `moduli` has C moduli.
pub(crate) fn sum_layer_mod<T: ModLane, const C: usize>(
    isa: Kernel,
    out: &mut [T],
    old: &[T],
    older: &[T],
    left: &[u32],
    right: &[u32],
    moduli: &[T],
) {
    let moduli: &[T; C] = moduli.try_into().expect("C moduli");
    compiled(isa, SumMod::<T, C> { out, old, older, left, right, moduli })
}

struct SumMod<'a, T, const C: usize> {
    out: &'a mut [T],
    old: &'a [T],
    older: &'a [T],
    left: &'a [u32],
    right: &'a [u32],
    moduli: &'a [T; C],
}

impl<T: ModLane, const C: usize> Vectorised for SumMod<'_, T, C> {
    type Output = ();

    #[inline(always)]
    fn run(self) {
        let SumMod { out, old, older, left, right, moduli } = self;
        let m = *moduli; // in registers across the loop
        for ((out, &l), &r) in out.chunks_exact_mut(C).zip(left).zip(right) {
            // copied into locals before the stores, as in `sum`; a plain loop rather than
            // `array::from_fn`, which the compiler does not inline for 16 lanes or more (4 x slower)
            let a: [T; C] = old[l as usize * C..][..C].try_into().expect("C lanes");
            let b: [T; C] = older[r as usize * C..][..C].try_into().expect("C lanes");
            let out: &mut [T; C] = out.try_into().expect("C lanes");
            for i in 0..C {
                out[i] = T::add_mod(a[i], b[i], m[i]);
            }
        }
    }
}

/// Normalises each state's chunk of C lanes of `layer` (all but its last chunk, the layer's zero
/// chunk) in place: every lane keeps its P payload bits and adds the high bits of the lane below,
/// lane 0 only its payload. Writes each state's carry out of its top lane (its high bits, which
/// lane 0 of the next chunk must add) to `carries`.
///
/// Cost: O(lanes of `layer`).
pub(crate) fn normalise<const C: usize, const P: u32>(isa: Kernel, layer: &mut [u64], carries: &mut Vec<u64>) {
    compiled(isa, Normalise::<C, P> { layer, carries })
}

struct Normalise<'a, const C: usize, const P: u32> {
    layer: &'a mut [u64],
    carries: &'a mut Vec<u64>,
}

impl<const C: usize, const P: u32> Vectorised for Normalise<'_, C, P> {
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
        let mut rng = fibtree_util::SplitMix64(0x5eed);
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
        normalise::<16, 48>(Kernel::Baseline, &mut normalised, &mut carries);
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
        for isa in Kernel::available() {
            let mut got = vec![0; 51 * 16];
            sum_layer::<16>(isa, &mut got, &old, &older, &left, &right);
            assert_eq!(got, want, "{isa:?}");
            let mut got_carries = Vec::new();
            normalise::<16, 48>(isa, &mut got, &mut got_carries);
            assert_eq!((&got, &got_carries), (&normalised, &carries), "{isa:?}");
        }
    }

    /// The residue kernel against a scalar reference (u128 arithmetic and `%`), in both lane widths,
    /// for moduli near the top of each width's range and small ones, under every instruction set.
    #[test]
    fn every_instruction_set_sums_residues_alike() {
        fn check<T, const C: usize>(moduli: [u64; C], seed: u64)
        where
            T: ModLane + TryFrom<u64> + Into<u64> + PartialEq + std::fmt::Debug + Default,
            <T as TryFrom<u64>>::Error: std::fmt::Debug,
        {
            println!("SplitMix64 seed {seed:#x}, {C} lanes of {} bytes", std::mem::size_of::<T>());
            let mut rng = fibtree_util::SplitMix64(seed);
            let (states, sources) = (77usize, 40u64);
            let lanes = |rng: &mut fibtree_util::SplitMix64| -> Vec<T> {
                (0..sources as usize * C)
                    .map(|x| {
                        let m = moduli[x % C];
                        // the extremes m - 1 and 0 often, else anything below m
                        let r = match rng.below(4) {
                            0 => m - 1,
                            1 => 0,
                            _ => rng.below(m),
                        };
                        T::try_from(r).unwrap()
                    })
                    .collect()
            };
            let (old, older) = (lanes(&mut rng), lanes(&mut rng));
            let left: Vec<u32> = (0..states).map(|_| rng.below(sources) as u32).collect();
            let right: Vec<u32> = (0..states).map(|_| rng.below(sources) as u32).collect();
            let mut want = vec![T::default(); states * C];
            for (s, w) in want.chunks_exact_mut(C).enumerate() {
                for i in 0..C {
                    let a: u64 = old[left[s] as usize * C + i].into();
                    let b: u64 = older[right[s] as usize * C + i].into();
                    w[i] = T::try_from(((a as u128 + b as u128) % moduli[i] as u128) as u64).unwrap();
                }
            }
            let m: [T; C] = moduli.map(|m| T::try_from(m).unwrap());
            for isa in Kernel::available() {
                let mut got = vec![T::default(); states * C];
                sum_layer_mod::<T, C>(isa, &mut got, &old, &older, &left, &right, &m);
                assert_eq!(got, want, "{isa:?}, {C} lanes, moduli {moduli:?}");
            }
        }
        let big = crate::crt::primes(9);
        let wide = [big[0], big[1], big[2], big[3], big[4], big[5], (1 << 63) - 25, 2];
        check::<u64, 8>(wide, 0x1a9e_5eed);
        check::<u64, 1>([big[8]], 0x1a9e_5eee);
        check::<u64, 4>([3, 2, 1_000_000_007, (1 << 62) - 57], 0x1a9e_5eef);
        let narrow = [2_147_483_647u64, 2_147_483_629, 998_244_353, 2, 3, 65_537, (1 << 31) - 99, 7];
        let mut sixteen = [0u64; 16];
        for (i, m) in sixteen.iter_mut().enumerate() {
            *m = narrow[i % 8];
        }
        check::<u32, 16>(sixteen, 0x1a9e_5ef0);
        check::<u32, 8>(narrow, 0x1a9e_5ef1);
    }
}
