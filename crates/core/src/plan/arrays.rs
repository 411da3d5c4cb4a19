//! Bitsets of g from 0 as whole arrays of words (a power of two of them, at least [`BLOCK`]), and
//! their images under a step of the recurrence, in passes over blocks of words that the compiler
//! vectorises: what the census of a plan below W and the support's checkpoints are made of.

use super::layer_set::LOWER_HALVES;

/// The words moved at once: aligned blocks of eight words move whole under a xor.
pub(super) const BLOCK: usize = 8;

/// The words of an array holding every g below `w` (a power of two, at least 64): w / 64, at least
/// [`BLOCK`]. Cost O(1).
pub(super) fn words_below(w: u64) -> usize {
    (w / 64).max(BLOCK as u64) as usize
}

/// Writes to `out` (or adds to it, with `add`) the bitset `src` with every g moved to g xor `e`,
/// both of the same power-of-two number of words (at least [`BLOCK`]), `e` below their width.
/// Whole words move to index v xor (e / 64) (aligned blocks of eight whole, the words within them
/// by the low three bits of e / 64), the bits within them as
/// [`xor_bits`](super::layer_set::xor_bits) moves them (the swaps that e mod 64 selects, each over
/// the whole block). Cost: one pass over the words.
#[inline(always)]
fn xor_into(out: &mut [u64], src: &[u64], e: usize, add: bool) {
    let (high, low) = (e / 64, e % 64);
    let len = src.len();
    assert!(len.is_power_of_two() && len >= BLOCK && out.len() >= len && high < len, "bitsets from g = 0");
    for (b, out) in out[..len].chunks_exact_mut(BLOCK).enumerate() {
        let from = (b * BLOCK) ^ (high & !(BLOCK - 1));
        let block: [u64; BLOCK] = src[from..from + BLOCK].try_into().expect("a block");
        let mut words: [u64; BLOCK] = std::array::from_fn(|v| block[v ^ (high % BLOCK)]);
        for (t, &mask) in LOWER_HALVES.iter().enumerate() {
            if (low >> t) & 1 == 1 {
                let d = 1 << t;
                for x in &mut words {
                    *x = ((*x & mask) << d) | ((*x >> d) & mask);
                }
            }
        }
        if add {
            out.iter_mut().zip(words).for_each(|(o, w)| *o |= w);
        } else {
            out.copy_from_slice(&words);
        }
    }
}

/// Adds to `dst` the image of `src` under the backward step with edge `e` (g -> (g xor e) - 1), both
/// bitsets of the same power-of-two number of words (at least [`BLOCK`]) from g = 0, e below their
/// width; `scratch` has one word more. Cost: two passes over the words, one for the xor and one for
/// the shift by one.
#[inline(always)]
pub(super) fn back_image_into(dst: &mut [u64], src: &[u64], e: usize, scratch: &mut [u64]) {
    let len = src.len();
    assert!(scratch.len() > len && dst.len() == len, "a scratch word more");
    xor_into(scratch, src, e, false);
    scratch[len] = 0;
    // minus one: bit 0 of word v + 1 becomes bit 63 of word v; bit 0 of word 0 is g = -1, no state
    for (v, out) in dst.iter_mut().enumerate() {
        *out |= (scratch[v] >> 1) | (scratch[v + 1] << 63);
    }
}

/// Adds to `dst` the image of `src` under the forward step with edge `e` (a -> (a + 1) xor e),
/// within the arrays' width: an a + 1 at the width leaves (xor with an e below it keeps every value
/// at or above it there). Arrays as [`back_image_into`]'s, `scratch` at least as long. Cost: two
/// passes over the words, one for the shift by one and one for the xor.
#[inline(always)]
pub(super) fn forward_image_into(dst: &mut [u64], src: &[u64], e: usize, scratch: &mut [u64]) {
    let len = src.len();
    assert!(scratch.len() >= len && dst.len() == len, "arrays of one width");
    // plus one: bit 63 of word v - 1 becomes bit 0 of word v; bit 63 of the last word leaves
    scratch[0] = src[0] << 1;
    for v in 1..len {
        scratch[v] = (src[v] << 1) | (src[v - 1] >> 63);
    }
    xor_into(dst, &scratch[..len], e, true);
}

/// Clears every g at or above `w` in `set` (arrays wider than w where w is below 64 x [`BLOCK`]).
/// Cost O(words above w).
#[inline(always)]
pub(super) fn clear_from(set: &mut [u64], w: u64) {
    let (whole, bits) = ((w / 64) as usize, w % 64);
    if let Some(word) = set.get_mut(whole) {
        *word &= (1u64 << bits).wrapping_sub(1);
    }
    set.iter_mut().skip(whole + 1).for_each(|word| *word = 0);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both images against the definition, member by member, for random sets of every width from
    /// 64 to 4096 (fixed, printed seed).
    #[test]
    fn images_match_the_definition() {
        let seed = 0x00a7_7ae5_u64;
        println!("SplitMix64 seed {seed:#x}");
        let mut rng = fibtree_util::SplitMix64(seed);
        for case in 0..200 {
            let w = 64u64 << (case % 7);
            let words = words_below(w);
            let members: Vec<u64> = (0..rng.next_u64() % 80).map(|_| rng.next_u64() % w).collect();
            let mut src = vec![0u64; words];
            members.iter().for_each(|&g| src[g as usize / 64] |= 1 << (g % 64));
            let e = (rng.next_u64() % w) as usize;
            let mut scratch = vec![0u64; words + 1];
            let (mut back, mut forward) = (vec![0u64; words], vec![0u64; words]);
            back_image_into(&mut back, &src, e, &mut scratch);
            forward_image_into(&mut forward, &src, e, &mut scratch);
            clear_from(&mut forward, w);
            let set = |a: &[u64]| -> Vec<u64> {
                (0..64 * a.len() as u64).filter(|&g| a[g as usize / 64] >> (g % 64) & 1 == 1).collect()
            };
            let mut want_back: Vec<u64> = members.iter().filter_map(|&g| (g ^ e as u64).checked_sub(1)).collect();
            let mut want_forward: Vec<u64> = members.iter().map(|&a| (a + 1) ^ e as u64).filter(|&g| g < w).collect();
            for want in [&mut want_back, &mut want_forward] {
                want.sort_unstable();
                want.dedup();
            }
            assert_eq!(set(&back), want_back, "seed {seed:#x}, case {case}: back, e {e}, w {w}");
            assert_eq!(set(&forward), want_forward, "seed {seed:#x}, case {case}: forward, e {e}, w {w}");
        }
    }
}
