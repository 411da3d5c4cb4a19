//! Zeroed arrays whose first element sits on a cache line, so that the dense engine's vector loads of
//! aligned blocks are aligned.

use super::Residue;

/// A zeroed array of residues whose element 0 is 64-byte aligned.
pub(crate) struct AlignedLanes<T> {
    buf: Vec<T>,
    start: usize,
    len: usize,
}

impl<T: Residue> AlignedLanes<T> {
    /// `len` zeros (allocated zeroed: pages never written are never touched). Cost O(len).
    pub(crate) fn zeroed(len: usize) -> Self {
        let slack = 64 / std::mem::size_of::<T>();
        let buf = vec![T::ZERO; len + slack];
        let start = buf.as_ptr().align_offset(64).min(slack);
        AlignedLanes { buf, start, len }
    }

    pub(crate) fn as_slice(&self) -> &[T] {
        &self.buf[self.start..self.start + self.len]
    }

    pub(crate) fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.buf[self.start..self.start + self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_zero_is_on_a_cache_line() {
        for len in [1, 65, 8193] {
            let lanes = AlignedLanes::<u64>::zeroed(len);
            assert_eq!(lanes.as_slice().as_ptr() as usize % 64, 0);
            assert_eq!(lanes.as_slice().len(), len);
            let narrow = AlignedLanes::<u32>::zeroed(len);
            assert_eq!(narrow.as_slice().as_ptr() as usize % 64, 0);
            assert!(narrow.as_slice().iter().all(|&x| x == 0));
        }
    }
}
