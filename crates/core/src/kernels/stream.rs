//! The streaming add, `out[i] = b[i] + c[i]` over `u64` words: two sources and one destination, the
//! word operation of the blocked engine's limb addition without its indices. What the machine's own
//! streaming rate is measured with (by `fibtree bench`), so that the engine's rate can be stated as a
//! fraction of it. Portable Rust, vectorised by the compiler for each instruction set.

use super::{Isa, Kernel, compiled};

/// `out[i] = b[i] + c[i]` (wrapping) for every i below `out.len()`, compiled for `isa`.
///
/// Cost: `out.len()` additions, reading two words and writing one each.
///
/// # Panics
/// If `b` or `c` is shorter than `out`.
pub(crate) fn stream_add(isa: Isa, out: &mut [u64], b: &[u64], c: &[u64]) {
    assert!(b.len() >= out.len() && c.len() >= out.len(), "the sources cover the destination");
    let words = out.len();
    compiled(isa, StreamAdd { out, b: &b[..words], c: &c[..words] })
}

impl Isa {
    /// `out[i] = b[i] + c[i]` (wrapping) over `u64` words, compiled for this instruction set (the
    /// widest below it the machine has, where it lacks this one): the word operation of the blocked
    /// engine's limb addition without its indices, the yardstick the engine's rate is stated
    /// against. Cost: `out.len()` additions, reading two words and writing one each.
    ///
    /// # Panics
    /// If `b` or `c` is shorter than `out`.
    ///
    /// ```
    /// let mut out = [0u64; 3];
    /// fibtree_core::Isa::Baseline.stream_add(&mut out, &[1, 2, 3], &[10, 20, u64::MAX]);
    /// assert_eq!(out, [11, 22, 2]);
    /// ```
    pub fn stream_add(self, out: &mut [u64], b: &[u64], c: &[u64]) {
        stream_add(self, out, b, c)
    }
}

struct StreamAdd<'a> {
    out: &'a mut [u64],
    b: &'a [u64],
    c: &'a [u64],
}

impl Kernel for StreamAdd<'_> {
    type Output = ();

    #[inline(always)]
    fn run(self) {
        for ((out, &b), &c) in self.out.iter_mut().zip(self.b).zip(self.c) {
            *out = b.wrapping_add(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_instruction_set_adds_alike() {
        let seed = 0x57_5eed;
        println!("SplitMix64 seed {seed:#x}");
        let mut rng = fibtree_util::SplitMix64(seed);
        // lengths around the vectors' widths, and words that overflow
        for len in [0, 1, 7, 8, 9, 63, 64, 65, 1000] {
            let b: Vec<u64> = (0..len).map(|_| rng.next_u64()).collect();
            let c: Vec<u64> = (0..len + 3).map(|_| rng.next_u64()).collect();
            let want: Vec<u64> = b.iter().zip(&c).map(|(&b, &c)| b.wrapping_add(c)).collect();
            for isa in Isa::available() {
                let mut out = vec![0; len];
                stream_add(isa, &mut out, &b, &c);
                assert_eq!(out, want, "{isa:?}, {len} words");
            }
        }
    }

    #[test]
    #[should_panic(expected = "the sources cover the destination")]
    fn short_sources_are_refused() {
        stream_add(Isa::Baseline, &mut [0; 4], &[1; 3], &[1; 4]);
    }
}
