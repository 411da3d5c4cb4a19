//! The checksum of fibtree's files (checkpoints, shard files): it catches damage, not forgery.

/// 64-bit FNV-1a of `bytes` (Fowler, Noll and Vo), written here as it is four lines. Cost O(bytes).
///
/// ```
/// assert_eq!(fibtree_util::fnv1a(b""), 0xcbf2_9ce4_8422_2325);
/// assert_eq!(fibtree_util::fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
/// ```
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}
