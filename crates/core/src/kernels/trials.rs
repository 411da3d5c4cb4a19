//! Two other forms of the blocked engine's exact kernel, measured against it and not used by the
//! engine (docs/performance.md, "The kernel's other forms", gives the figures): built with the feature
//! `kernels` alone, for the criterion benchmarks.
//!
//! - [`sum_layer_derived`]: the sources' positions derived in the loop rather than loaded: a run of
//!   64 states whose sources are runs too reads position `base + (i xor x)` for its state i, as
//!   state g reads (g xor R) - 1 where a layer holds every g (two additions and two xors a state in
//!   place of two loads);
//! - [`sum_layer_carry_save`]: full 64-bit words of payload, each lane's carries kept apart in a byte
//!   (`sum = a + b` wrapping, `carry = carry_a + carry_b + (sum < a)`), in place of 56 bits of
//!   payload and 8 of headroom in one word: 9 bytes for 64 bits against 8 bytes for 56 (9.14 for
//!   64), for a compare and a byte addition more a lane.

use super::{Isa, Kernel, compiled};

/// One run of 64 states of [`sum_layer_derived`]: state i of the run reads position `left + (i xor
/// left_xor)` of the layer before and `right + (i xor right_xor)` of the one before that.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    /// The first position of the run's sources in the layer before.
    pub left: u32,
    /// What state i's index is xored with there.
    pub left_xor: u32,
    /// The first position of its sources in the layer before that.
    pub right: u32,
    /// What state i's index is xored with there.
    pub right_xor: u32,
}

/// `out[s] = old[left(s)] + older[right(s)]` lane by lane, chunks of C lanes, state s of run s / 64
/// reading the positions that run derives. Cost: as [`super::sum_layer`], with two additions and two
/// xors a state in place of two loads.
///
/// # Panics
/// If `out` holds other than 64 x `runs.len()` chunks or a position reads past `old` or `older`.
pub(crate) fn sum_layer_derived<const C: usize>(isa: Isa, out: &mut [u64], old: &[u64], older: &[u64], runs: &[Run]) {
    assert_eq!(out.len(), runs.len() * 64 * C, "64 chunks a run");
    compiled(isa, Derived::<C> { out, old, older, runs })
}

struct Derived<'a, const C: usize> {
    out: &'a mut [u64],
    old: &'a [u64],
    older: &'a [u64],
    runs: &'a [Run],
}

impl<const C: usize> Kernel for Derived<'_, C> {
    type Output = ();

    #[inline(always)]
    fn run(self) {
        let Derived { out, old, older, runs } = self;
        for (run, out) in runs.iter().zip(out.chunks_exact_mut(64 * C)) {
            for (i, out) in out.chunks_exact_mut(C).enumerate() {
                let l = (run.left + (i as u32 ^ run.left_xor)) as usize;
                let r = (run.right + (i as u32 ^ run.right_xor)) as usize;
                // copied into locals before the store, as in the engine's kernel
                let a: [u64; C] = old[l * C..][..C].try_into().expect("C lanes");
                let b: [u64; C] = older[r * C..][..C].try_into().expect("C lanes");
                let out: &mut [u64; C] = out.try_into().expect("C lanes");
                for k in 0..C {
                    out[k] = a[k] + b[k];
                }
            }
        }
    }
}

/// The carry-save sum over full words: for each state s and lane k of its chunk of C, `out = a + b`
/// wrapping and `out_carries = carries_a + carries_b + (out < a)`, a and its carries at position
/// `left[s]` of `old`, b at `right[s]` of `older`. Cost: `left.len() x C` additions, compares and
/// byte additions, reading 18 bytes and writing 9 a lane.
///
/// # Panics
/// If the carries' arrays differ in length from their lanes', `out` is shorter than `left.len()`
/// chunks, or an index reads past `old` or `older`.
pub(crate) fn sum_layer_carry_save<const C: usize>(
    isa: Isa,
    out: (&mut [u64], &mut [u8]),
    old: (&[u64], &[u8]),
    older: (&[u64], &[u8]),
    left: &[u32],
    right: &[u32],
) {
    for (words, carries) in [(out.0.len(), out.1.len()), (old.0.len(), old.1.len()), (older.0.len(), older.1.len())] {
        assert_eq!(words, carries, "a carry a lane");
    }
    compiled(isa, CarrySave::<C> { out, old, older, left, right })
}

struct CarrySave<'a, 'b, const C: usize> {
    out: (&'a mut [u64], &'a mut [u8]),
    old: (&'b [u64], &'b [u8]),
    older: (&'b [u64], &'b [u8]),
    left: &'b [u32],
    right: &'b [u32],
}

impl<const C: usize> Kernel for CarrySave<'_, '_, C> {
    type Output = ();

    #[inline(always)]
    fn run(self) {
        let CarrySave { out: (words, carries), old, older, left, right } = self;
        let states = words.chunks_exact_mut(C).zip(carries.chunks_exact_mut(C));
        for (((words, carries), &l), &r) in states.zip(left).zip(right) {
            let (l, r) = (l as usize * C, r as usize * C);
            let a: [u64; C] = old.0[l..][..C].try_into().expect("C lanes");
            let b: [u64; C] = older.0[r..][..C].try_into().expect("C lanes");
            let ca: [u8; C] = old.1[l..][..C].try_into().expect("C lanes");
            let cb: [u8; C] = older.1[r..][..C].try_into().expect("C lanes");
            let words: &mut [u64; C] = words.try_into().expect("C lanes");
            let carries: &mut [u8; C] = carries.try_into().expect("C lanes");
            for k in 0..C {
                let sum = a[k].wrapping_add(b[k]);
                words[k] = sum;
                carries[k] = ca[k].wrapping_add(cb[k]).wrapping_add((sum < a[k]) as u8);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The derived positions against the loaded ones of the engine's kernel, under every set.
    #[test]
    fn derived_positions_sum_as_loaded_ones() {
        let seed = 0xde71_7ed5;
        println!("SplitMix64 seed {seed:#x}");
        let mut rng = fibtree_util::SplitMix64(seed);
        let sources = 64 * 6;
        let old: Vec<u64> = (0..sources * 8).map(|_| rng.next_u64() >> 8).collect();
        let older: Vec<u64> = (0..sources * 8).map(|_| rng.next_u64() >> 8).collect();
        let runs: Vec<Run> = (0..4)
            .map(|_| Run {
                left: 64 * rng.below(5) as u32,
                left_xor: rng.below(64) as u32,
                right: 64 * rng.below(5) as u32,
                right_xor: rng.below(64) as u32,
            })
            .collect();
        let left: Vec<u32> = runs.iter().flat_map(|r| (0..64).map(move |i| r.left + (i ^ r.left_xor))).collect();
        let right: Vec<u32> = runs.iter().flat_map(|r| (0..64).map(move |i| r.right + (i ^ r.right_xor))).collect();
        for isa in Isa::available() {
            let mut want = vec![0; 256 * 8];
            super::super::sum_layer::<8>(isa, &mut want, &old, &older, &left, &right);
            let mut got = vec![0; 256 * 8];
            sum_layer_derived::<8>(isa, &mut got, &old, &older, &runs);
            assert_eq!(got, want, "{isa:?}");
        }
    }

    /// The carry-save sum against 128-bit arithmetic: word plus 2^64 times carries, under every set.
    #[test]
    fn carry_save_sums_hold_the_whole_value() {
        let seed = 0xca22_75a7;
        println!("SplitMix64 seed {seed:#x}");
        let mut rng = fibtree_util::SplitMix64(seed);
        let (states, c) = (40usize, 16usize);
        let mut layer = || -> (Vec<u64>, Vec<u8>) {
            ((0..states * c).map(|_| rng.next_u64()).collect(), (0..states * c).map(|_| rng.below(100) as u8).collect())
        };
        let (old, older) = (layer(), layer());
        let left: Vec<u32> = (0..states).map(|s| ((s * 7) % states) as u32).collect();
        let right: Vec<u32> = (0..states).map(|s| ((s * 11 + 3) % states) as u32).collect();
        let whole = |w: u64, c: u8| w as u128 + ((c as u128) << 64);
        for isa in Isa::available() {
            let (mut words, mut carries) = (vec![0u64; states * c], vec![0u8; states * c]);
            sum_layer_carry_save::<16>(
                isa,
                (&mut words, &mut carries),
                (&old.0, &old.1),
                (&older.0, &older.1),
                &left,
                &right,
            );
            for s in 0..states {
                for k in 0..c {
                    let (i, a, b) = (s * c + k, left[s] as usize * c + k, right[s] as usize * c + k);
                    let want = whole(old.0[a], old.1[a]) + whole(older.0[b], older.1[b]);
                    assert_eq!(whole(words[i], carries[i]), want, "{isa:?}, state {s}, lane {k}");
                }
            }
        }
    }
}
