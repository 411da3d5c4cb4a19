//! The blocked engine's kernels over chunks of C lanes: for exact values (`u64` words, each holding
//! up to P payload bits between normalisations) the lane-wise sum of a layer (the normalisation at a
//! block's end is [`super::normalise`]); for residues (lane i modulo its own modulus m_i) the
//! lane-wise sum modulo each lane's modulus. Portable Rust, vectorised by the compiler for each
//! instruction set.

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
    isa: Isa,
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

impl<T: ModLane, const C: usize> Kernel for SumMod<'_, T, C> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_instruction_set_sums_alike() {
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
        for isa in Isa::available() {
            let mut got = vec![0; 51 * 16];
            sum_layer::<16>(isa, &mut got, &old, &older, &left, &right);
            assert_eq!(got, want, "{isa:?}");
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
            for isa in Isa::available() {
                let mut got = vec![T::default(); states * C];
                sum_layer_mod::<T, C>(isa, &mut got, &old, &older, &left, &right, &m);
                assert_eq!(got, want, "{isa:?}, {C} lanes, moduli {moduli:?}");
            }
        }
        let big = crate::crt::primes::first(9);
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
