//! The lane format of the blocked engine: a value is held in lanes of [`PAYLOAD`] bits in `u64`
//! words, value = sum of lane_i x 2^(56 i), where a lane may hold more than 56 bits between
//! normalisations.

use crate::game::count_bits_bound;

/// Payload bits per lane: 8 bits of headroom, for blocks of about 11 layers. Measured against 48, 52,
/// 54, 58 and 60 bits (docs/performance.md, "Wider lanes"): the fewest word additions that still
/// pay for the shorter blocks, and the least memory of those that ran as fast.
pub(crate) const PAYLOAD: u32 = 56;
/// The payload bits of a lane.
const MASK: u64 = (1 << PAYLOAD) - 1;
/// The largest carry: the high bits of a lane, which normalising hands to the lane above.
pub(crate) const CARRY_MAX: u64 = u64::MAX >> PAYLOAD;
/// A bound on every lane of a normalised value: its own payload plus the high bits carried in from
/// the lane below.
pub(crate) const LANE_START: u64 = MASK + CARRY_MAX;

/// The most layers a block may have: lanes starting below [`LANE_START`] and growing as
/// x(k) = x(k-1) + x(k-2) + 2 stay within a `u64` for this many layers.
pub(crate) const MAX_BLOCK_LAYERS: usize = max_block_layers();

const fn max_block_layers() -> usize {
    let (mut older, mut old, mut layers) = (LANE_START as u128, LANE_START as u128, 0);
    loop {
        let next = older + old + 2;
        if next > u64::MAX as u128 {
            return layers;
        }
        (older, old, layers) = (old, next, layers + 1);
    }
}

/// Lanes per value of layer `k`: enough for every count c(k, g) <= |T(k)| - 1.
pub(crate) fn lanes(k: usize) -> usize {
    count_bits_bound(k as u64).div_ceil(PAYLOAD as u64) as usize
}

/// The value of raw lanes (each below 2^64, value = sum of lane_i 2^(56 i)) in the words format of
/// the exact engines: a length word, then 64-bit limbs. Cost O(lanes).
pub(crate) fn limbs_of(lanes: &[u64]) -> Vec<u64> {
    let bits = lanes.len() * PAYLOAD as usize;
    let mut words = vec![0u64; 1 + bits.div_ceil(64) + 1];
    let mut carry: u128 = 0;
    for (i, &lane) in lanes.iter().enumerate() {
        let t = lane as u128 + carry;
        let payload = (t as u64) & MASK;
        carry = t >> PAYLOAD;
        let at = i * PAYLOAD as usize;
        let (w, shift) = (1 + at / 64, at % 64);
        words[w] |= payload << shift;
        if shift + PAYLOAD as usize > 64 {
            words[w + 1] |= payload >> (64 - shift);
        }
    }
    // a run's lanes hold its value whole (they are sized for the bound on its counts); the lanes of
    // a forged checkpoint may carry out of them: the value is then their own sum, never a panic
    let mut at = bits;
    while carry != 0 {
        let (w, shift) = (1 + at / 64, at % 64);
        words.resize(words.len().max(w + 2), 0);
        words[w] |= (carry as u64) << shift;
        if shift > 0 {
            words[w + 1] |= (carry as u64) >> (64 - shift);
        }
        (carry, at) = (carry >> 64, at + 64);
    }
    let len = words[1..].iter().rposition(|&w| w != 0).map_or(0, |i| i + 1);
    words.truncate(1 + len);
    words[0] = len as u64;
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_cannot_overflow_a_lane() {
        assert!((8..=16).contains(&MAX_BLOCK_LAYERS), "{MAX_BLOCK_LAYERS}");
        // the worst lane of the block's last layer, from two edge layers at the bound
        let (mut a, mut b) = (LANE_START as u128, LANE_START as u128);
        for _ in 0..MAX_BLOCK_LAYERS {
            (a, b) = (b, a + b + 2);
        }
        assert!(b <= u64::MAX as u128);
        assert!(a + b + 2 > u64::MAX as u128, "a block could be one layer longer");
    }

    #[test]
    fn limbs_of_normalises_raw_lanes() {
        use num_bigint::BigUint;
        let lanes = [u64::MAX, u64::MAX, 5, 0];
        let want =
            BigUint::from(u64::MAX) + (BigUint::from(u64::MAX) << PAYLOAD) + (BigUint::from(5u64) << (2 * PAYLOAD));
        assert_eq!(crate::engines::to_biguint(&limbs_of(&lanes)), want);
        assert_eq!(limbs_of(&[0, 0]), vec![0]);
        // lanes that carry out of themselves (a forged state's) give their own sum
        let over = [u64::MAX; 3];
        let want: BigUint = (0..3).map(|i| BigUint::from(u64::MAX) << (i * PAYLOAD)).sum();
        assert_eq!(crate::engines::to_biguint(&limbs_of(&over)), want);
    }
}
