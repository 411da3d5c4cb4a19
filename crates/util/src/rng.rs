//! A small, seeded random generator (splitmix64) for the random cases of the self-test and for
//! `moves --random`: reproducible from its printed seed, and no dependency; and the system's random
//! source, for the seeds that guard a check ([`system_seed`]).

use num_bigint::BigUint;

/// splitmix64 (Steele, Lea and Flood): 64 well-mixed bits a step from a 64-bit state.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 bits. Cost O(1).
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n` (> 0), nearly uniform (the bias is below n / 2^64). Cost O(1).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// A uniform number below `bound` (> 0), by rejection of numbers of its bit length.
    /// Cost O(bits of bound) a try, fewer than two tries on average.
    pub fn below_big(&mut self, bound: &BigUint) -> BigUint {
        let bits = bound.bits();
        loop {
            let digits: Vec<u32> = (0..bits.div_ceil(32)).map(|_| self.next_u64() as u32).collect();
            let r = BigUint::new(digits) & ((BigUint::from(1u32) << bits) - 1u32);
            if &r < bound {
                return r;
            }
        }
    }
}

/// A seed for runs not given one (the seed used is always printed, so that a run can be repeated):
/// from the system's random source ([`system_seed`]), else from the clock. Cost: a system call.
pub fn fresh_seed() -> u64 {
    system_seed().unwrap_or_else(|_| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64)
    })
}

/// 64 bits from the system's random source (`getrandom(2)`): the seed of whatever guards a check,
/// which no file, clock or earlier run can predict. Cost: one system call.
///
/// # Errors
/// The system's source cannot be read (the message says what it said).
///
/// ```
/// assert_ne!(fibtree_util::system_seed()?, fibtree_util::system_seed()?); // but once in 2^64
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn system_seed() -> std::io::Result<u64> {
    getrandom::u64().map_err(|e| std::io::Error::other(format!("cannot read the system's random source: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_big_stays_below_and_spreads() {
        let mut rng = SplitMix64(7);
        let bound = BigUint::from(10u32);
        let mut seen = [0u32; 10];
        for _ in 0..10_000 {
            let r = rng.below_big(&bound);
            assert!(r < bound);
            seen[usize::try_from(&r).unwrap()] += 1;
        }
        assert!(seen.iter().all(|&c| (800..1200).contains(&c)), "{seen:?}");
        let huge = BigUint::from(3u32) << 5000u32;
        assert!(rng.below_big(&huge) < huge);
    }
}
