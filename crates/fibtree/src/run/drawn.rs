//! The prime a check draws for its run: a modulus that no file, clock or earlier run can know, so
//! that a value read from files (a checkpoint's state, the residues of shards) and altered to agree
//! with every fixed projection cannot be made to agree with it.

use crate::error::Result;

/// A prime between 2^61 and 2^63, none of `moduli`, drawn from the system's random source
/// ([`fibtree_util::system_seed`]). Cost: a few dozen primality tests.
///
/// # Errors
/// [`crate::Error::Io`] where the system's random source cannot be read: the check is then not
/// made, and the run that asked for it does not go on.
pub(crate) fn drawn_prime(moduli: &[u64]) -> Result<u64> {
    Ok(prime_from(fibtree_util::system_seed()?, moduli))
}

/// The first prime at or above a random odd number of [2^61, 2^62) drawn from `seed`, none of
/// `moduli`. A value altered by a multiple of the other moduli's product agrees with it by chance
/// alone, about once in 2^61 draws. Cost: a few dozen primality tests.
fn prime_from(seed: u64, moduli: &[u64]) -> u64 {
    let mut p = (1 << 61) | (fibtree_util::SplitMix64(seed).next_u64() >> 3) | 1;
    while !primal_check::miller_rabin(p) || moduli.contains(&p) {
        p += 2;
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drawn_prime_is_a_modulus_of_its_own() {
        let seed = 0x5eed_d4a3_u64;
        println!("seeds from {seed:#x}");
        for i in 0..50 {
            let p = prime_from(seed + i, &[]);
            assert!(primal_check::miller_rabin(p) && p > 1 << 61 && p < fibtree_core::MODULUS_LIMIT, "{p}");
            assert_ne!(prime_from(seed + i, &[p]), p, "never one of the moduli given");
        }
        assert_ne!(prime_from(1, &[]), prime_from(2, &[]));
    }

    #[test]
    fn each_draw_is_its_own() {
        // from the system's source: two draws agree once in about 2^56 (the primes near 2^61)
        let drawn: Vec<u64> = (0..4).map(|_| drawn_prime(&[]).unwrap()).collect();
        assert!(drawn.iter().all(|&p| primal_check::miller_rabin(p) && p > 1 << 61), "{drawn:?}");
        assert!(drawn.windows(2).all(|w| w[0] != w[1]), "{drawn:?}");
    }
}
