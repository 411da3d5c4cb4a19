//! The dense modular engine's kernel: one layer's window of residues, each read from two earlier
//! layers at positions permuted by xor. Portable Rust, and AVX-512 or AVX2 intrinsics (an aligned
//! load and a lane permutation per vector) where the CPU has them.

use super::{Isa, Kernel, compiled};

/// A residue type of the dense engine: `u64` for any modulus below 2^63, `u32` for moduli below
/// 2^31 (twice the lanes per vector).
pub(crate) trait Residue: Copy + Send + Sync + 'static {
    /// Zero.
    const ZERO: Self;

    /// `x`, which fits.
    fn from_u64(x: u64) -> Self;

    /// The residue as a `u64`.
    fn to_u64(self) -> u64;

    /// `(a + b) mod m` for a, b < m. Branch-free: below m, `s - m` wraps above `s`.
    fn add_mod(a: Self, b: Self, m: Self) -> Self;

    /// [`window`] with AVX-512F intrinsics.
    ///
    /// # Safety
    /// The CPU has AVX-512F, and the arguments are as [`window`] checks them.
    #[cfg(target_arch = "x86_64")]
    unsafe fn avx512(cur: &mut [Self], old: &[Self], older: &[Self], step: WindowStep<Self>);

    /// [`window`] with AVX2 intrinsics (`_mm256_permutevar8x32_epi32` permutes 8 u32 lanes, or 4
    /// u64 lanes as pairs).
    ///
    /// # Safety
    /// The CPU has AVX2, and the arguments are as [`window`] checks them.
    #[cfg(target_arch = "x86_64")]
    unsafe fn avx2(cur: &mut [Self], old: &[Self], older: &[Self], step: WindowStep<Self>);
}

impl Residue for u64 {
    const ZERO: Self = 0;

    fn from_u64(x: u64) -> Self {
        x
    }

    fn to_u64(self) -> u64 {
        self
    }

    #[inline(always)]
    fn add_mod(a: u64, b: u64, m: u64) -> u64 {
        let s = a + b; // a, b < m < 2^63: no overflow
        s.min(s.wrapping_sub(m))
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn avx512(cur: &mut [u64], old: &[u64], older: &[u64], step: WindowStep<u64>) {
        let WindowStep { lo, hi, r, l, m } = step;
        use std::arch::x86_64::*;
        // lane i of the block at g0 reads element i xor (r & 7) of the aligned block at g0 xor r
        let lanes = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
        let by_r = _mm512_xor_si512(lanes, _mm512_set1_epi64((r & 7) as i64));
        let by_l = _mm512_xor_si512(lanes, _mm512_set1_epi64((l & 7) as i64));
        let modulus = _mm512_set1_epi64(m as i64);
        let (r, l) = (r & !7, l & !7);
        let (out, a, b) = (cur.as_mut_ptr(), old.as_ptr(), older.as_ptr());
        for g in (lo..hi).step_by(8) {
            // SAFETY: g, r and l are below W, g a multiple of 8 and hi <= W, so g ^ r + 8 <= W and
            // g + 1 + 8 <= W + 1: every access is within the W (sources) and W + 1 (`cur`)
            // elements `window` checked.
            unsafe {
                let x = _mm512_permutexvar_epi64(by_r, _mm512_loadu_si512(a.add(g ^ r).cast()));
                let y = _mm512_permutexvar_epi64(by_l, _mm512_loadu_si512(b.add(g ^ l).cast()));
                let s = _mm512_add_epi64(x, y);
                _mm512_storeu_si512(out.add(g + 1).cast(), _mm512_min_epu64(s, _mm512_sub_epi64(s, modulus)));
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn avx2(cur: &mut [u64], old: &[u64], older: &[u64], step: WindowStep<u64>) {
        let WindowStep { lo, hi, r, l, m } = step;
        use std::arch::x86_64::*;
        // lane i of the block of 4 at g0 reads element i xor (r & 3) of the aligned block at g0 xor
        // r: as 32-bit lanes, the pair 2 (i xor (r & 3)), 2 (i xor (r & 3)) + 1
        let pairs = |x: usize| {
            let e = |i: usize| (2 * (i ^ (x & 3))) as i32;
            _mm256_set_epi32(e(3) + 1, e(3), e(2) + 1, e(2), e(1) + 1, e(1), e(0) + 1, e(0))
        };
        let (by_r, by_l) = (pairs(r), pairs(l));
        let modulus = _mm256_set1_epi64x(m as i64);
        let (r, l) = (r & !3, l & !3);
        let (out, a, b) = (cur.as_mut_ptr(), old.as_ptr(), older.as_ptr());
        for g in (lo..hi).step_by(4) {
            // SAFETY: g, r and l are below W, g a multiple of 4 and hi <= W, so g ^ r + 4 <= W and
            // g + 1 + 4 <= W + 1: every access is within the W (sources) and W + 1 (`cur`)
            // elements `window` checked.
            unsafe {
                let x = _mm256_permutevar8x32_epi32(_mm256_loadu_si256(a.add(g ^ r).cast()), by_r);
                let y = _mm256_permutevar8x32_epi32(_mm256_loadu_si256(b.add(g ^ l).cast()), by_l);
                let s = _mm256_add_epi64(x, y);
                // s < 2m and m < 2^63: s - m has its top bit set (wrapped, at least 2^64 - m) exactly
                // where s < m, and there s is kept: a blend on the top bit of each lane
                let d = _mm256_sub_epi64(s, modulus);
                let (s, d) = (_mm256_castsi256_pd(s), _mm256_castsi256_pd(d));
                let reduced = _mm256_castpd_si256(_mm256_blendv_pd(d, s, d));
                _mm256_storeu_si256(out.add(g + 1).cast(), reduced);
            }
        }
    }
}

impl Residue for u32 {
    const ZERO: Self = 0;

    fn from_u64(x: u64) -> Self {
        x as u32
    }

    fn to_u64(self) -> u64 {
        self as u64
    }

    #[inline(always)]
    fn add_mod(a: u32, b: u32, m: u32) -> u32 {
        let s = a + b; // a, b < m < 2^31: no overflow
        s.min(s.wrapping_sub(m))
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn avx512(cur: &mut [u32], old: &[u32], older: &[u32], step: WindowStep<u32>) {
        let WindowStep { lo, hi, r, l, m } = step;
        use std::arch::x86_64::*;
        let lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
        let by_r = _mm512_xor_si512(lanes, _mm512_set1_epi32((r & 15) as i32));
        let by_l = _mm512_xor_si512(lanes, _mm512_set1_epi32((l & 15) as i32));
        let modulus = _mm512_set1_epi32(m as i32);
        let (r, l) = (r & !15, l & !15);
        let (out, a, b) = (cur.as_mut_ptr(), old.as_ptr(), older.as_ptr());
        for g in (lo..hi).step_by(16) {
            // SAFETY: as for u64, with blocks of 16 (W and the window ends are multiples of 64).
            unsafe {
                let x = _mm512_permutexvar_epi32(by_r, _mm512_loadu_si512(a.add(g ^ r).cast()));
                let y = _mm512_permutexvar_epi32(by_l, _mm512_loadu_si512(b.add(g ^ l).cast()));
                let s = _mm512_add_epi32(x, y);
                _mm512_storeu_si512(out.add(g + 1).cast(), _mm512_min_epu32(s, _mm512_sub_epi32(s, modulus)));
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn avx2(cur: &mut [u32], old: &[u32], older: &[u32], step: WindowStep<u32>) {
        let WindowStep { lo, hi, r, l, m } = step;
        use std::arch::x86_64::*;
        let lanes = _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0);
        let by_r = _mm256_xor_si256(lanes, _mm256_set1_epi32((r & 7) as i32));
        let by_l = _mm256_xor_si256(lanes, _mm256_set1_epi32((l & 7) as i32));
        let modulus = _mm256_set1_epi32(m as i32);
        let (r, l) = (r & !7, l & !7);
        let (out, a, b) = (cur.as_mut_ptr(), old.as_ptr(), older.as_ptr());
        for g in (lo..hi).step_by(8) {
            // SAFETY: as for u64, with blocks of 8 (W and the window ends are multiples of 64).
            unsafe {
                let x = _mm256_permutevar8x32_epi32(_mm256_loadu_si256(a.add(g ^ r).cast()), by_r);
                let y = _mm256_permutevar8x32_epi32(_mm256_loadu_si256(b.add(g ^ l).cast()), by_l);
                let s = _mm256_add_epi32(x, y);
                _mm256_storeu_si256(out.add(g + 1).cast(), _mm256_min_epu32(s, _mm256_sub_epi32(s, modulus)));
            }
        }
    }
}

/// One layer's window of the dense engine: `cur[g + 1] = old[g ^ r] + older[g ^ l] mod m` for every
/// g in `lo..hi`, where `old` and `older` are the arrays read through the edges r and l (of layers
/// k-1 and k-2, see [`crate::engines::modular`]). AVX-512 or AVX2 intrinsics where `isa` (and the
/// CPU) has them, else the portable loop.
///
/// Cost: `hi - lo` additions mod m.
///
/// # Panics
/// Unless `cur` has W + 1 elements for a power of two W >= 64 and `old` and `older` at least W,
/// `lo` and `hi` are multiples of 64 with `lo <= hi <= W`, and `r, l < W`: what makes the vector
/// accesses safe.
pub(crate) fn window<T: Residue>(isa: Isa, cur: &mut [T], old: &[T], older: &[T], step: WindowStep<T>) {
    let WindowStep { lo, hi, r, l, .. } = step;
    let w = cur.len() - 1;
    assert!(w.is_power_of_two() && w >= 64 && old.len() >= w && older.len() >= w, "arrays of W + 1 and W");
    assert!(
        lo.is_multiple_of(64) && hi.is_multiple_of(64) && lo <= hi && hi <= w && r < w && l < w,
        "a window within W"
    );
    #[cfg(target_arch = "x86_64")]
    if isa.min(Isa::detect()) == Isa::Avx512 {
        // SAFETY: `Isa::detect` found AVX-512F on this CPU; the bounds are checked above.
        return unsafe { T::avx512(cur, old, older, step) };
    }
    #[cfg(target_arch = "x86_64")]
    if isa.min(Isa::detect()) == Isa::Avx2 {
        // SAFETY: `Isa::detect` found AVX2 on this CPU; the bounds are checked above.
        return unsafe { T::avx2(cur, old, older, step) };
    }
    compiled(isa, Window { cur, old, older, step })
}

/// A layer's window as [`window`] sweeps it: the g from `lo` to `hi` (multiples of 64), read from
/// `old` at g xor `r` and from `older` at g xor `l`, modulo `m`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WindowStep<T> {
    pub(crate) lo: usize,
    pub(crate) hi: usize,
    pub(crate) r: usize,
    pub(crate) l: usize,
    pub(crate) m: T,
}

struct Window<'a, T> {
    cur: &'a mut [T],
    old: &'a [T],
    older: &'a [T],
    step: WindowStep<T>,
}

impl<T: Residue> Kernel for Window<'_, T> {
    type Output = ();

    #[inline(always)]
    fn run(self) {
        let Window { cur, old, older, step } = self;
        sweep(cur, old, older, step)
    }
}

/// The portable loop of [`window`], its slices arguments of their own, so that the compiler knows
/// `cur` aliases neither source: blocks of 4 lanes, each read from an aligned block of 4 of each
/// source permuted by xor with the low two bits of r (or l), made constants by a dispatch over the 16
/// pairs so that the compiler turns each block into vector shuffles (SSE2 on x86-64, NEON on
/// aarch64) rather than single loads.
#[inline(always)]
fn sweep<T: Residue>(cur: &mut [T], old: &[T], older: &[T], step: WindowStep<T>) {
    let high = WindowStep { r: step.r & !3, l: step.l & !3, ..step };
    macro_rules! by_low_bits {
        ($(($rl:literal, $ll:literal)),*) => {
            match (step.r & 3, step.l & 3) {
                $(($rl, $ll) => blocks::<T, $rl, $ll>(cur, old, older, high),)*
                _ => unreachable!("two bits each"),
            }
        };
    }
    by_low_bits!(
        (0, 0),
        (0, 1),
        (0, 2),
        (0, 3),
        (1, 0),
        (1, 1),
        (1, 2),
        (1, 3),
        (2, 0),
        (2, 1),
        (2, 2),
        (2, 3),
        (3, 0),
        (3, 1),
        (3, 2),
        (3, 3)
    )
}

/// [`sweep`] for r and l whose low two bits are `RL` and `LL` (`high` holds their other bits).
#[inline(always)]
fn blocks<T: Residue, const RL: usize, const LL: usize>(cur: &mut [T], old: &[T], older: &[T], high: WindowStep<T>) {
    let WindowStep { lo, hi, r: rh, l: lh, m } = high;
    for g in (lo..hi).step_by(4) {
        let (a, b) = (&old[g ^ rh..][..4], &older[g ^ lh..][..4]);
        let out = &mut cur[g + 1..][..4];
        for i in 0..4 {
            out[i] = T::add_mod(a[i ^ RL], b[i ^ LL], m);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_instruction_set_sweeps_alike() {
        let mut rng = fibtree_util::SplitMix64(0xd1ce);
        let w = 256;
        for m in [7u64, 998_244_353, (1 << 63) - 25] {
            let old: Vec<u64> = (0..=w).map(|_| rng.below(m)).collect();
            let older: Vec<u64> = (0..=w).map(|_| rng.below(m)).collect();
            let (r, l) = (rng.below(w as u64) as usize, rng.below(w as u64) as usize);
            let mut want = vec![0u64; w + 1];
            for g in 64..192 {
                want[g + 1] = (old[g ^ r] + older[g ^ l]) % m;
            }
            for isa in Isa::available() {
                let mut got = vec![0u64; w + 1];
                window(isa, &mut got, &old, &older, WindowStep { lo: 64, hi: 192, r, l, m });
                assert_eq!(got, want, "{isa:?}, mod {m}");
                if m < 1 << 31 {
                    let narrow = |v: &[u64]| v.iter().map(|&x| x as u32).collect::<Vec<_>>();
                    let mut got = vec![0u32; w + 1];
                    window(
                        isa,
                        &mut got,
                        &narrow(&old),
                        &narrow(&older),
                        WindowStep { lo: 64, hi: 192, r, l, m: m as u32 },
                    );
                    assert_eq!(got, narrow(&want), "{isa:?}, mod {m}, u32 lanes");
                }
            }
        }
    }
}
