//! The checksum of fibtree's files (checkpoints, shard files): it catches damage, not forgery.

/// The offset basis of 64-bit FNV-1a.
const BASIS: u64 = 0xcbf2_9ce4_8422_2325;

/// 64-bit FNV-1a of `bytes` (Fowler, Noll and Vo), written here as it is four lines. Cost O(bytes).
///
/// ```
/// assert_eq!(fibtree_util::fnv1a(b""), 0xcbf2_9ce4_8422_2325);
/// assert_eq!(fibtree_util::fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
/// ```
pub fn fnv1a(bytes: &[u8]) -> u64 {
    Fnv1a::default().update(bytes).finish()
}

/// 64-bit FNV-1a over bytes given a part at a time, for a file written or read as a stream: the
/// same as [`fnv1a`] of the parts joined. Cost O(bytes).
///
/// ```
/// let mut h = fibtree_util::Fnv1a::default();
/// h.update(b"fib").update(b"tree");
/// assert_eq!(h.finish(), fibtree_util::fnv1a(b"fibtree"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Fnv1a {
        Fnv1a(BASIS)
    }
}

impl Fnv1a {
    /// Takes in `bytes`.
    pub fn update(&mut self, bytes: &[u8]) -> &mut Fnv1a {
        self.0 = bytes.iter().fold(self.0, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
        self
    }

    /// The checksum of the bytes taken in so far.
    pub fn finish(&self) -> u64 {
        self.0
    }
}
