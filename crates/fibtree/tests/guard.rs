//! The memory guard, watched by the allocator: every public entry that allocates by n refuses a run
//! that does not fit before it allocates anything large. A binary of its own, because it counts
//! every allocation of the process through its own global allocator; its cases run one after
//! another in one test, so that the peak of each is its own.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use fibtree::{Error, Options};

/// The system allocator, keeping the bytes allocated now and the peak since the last reset.
struct Watched;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed on to the system allocator unchanged; only counters are added.
unsafe impl GlobalAlloc for Watched {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = NOW.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        // SAFETY: the caller's contract for `layout` is the system allocator's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        NOW.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` was allocated by `alloc` above with this `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Watched = Watched;

/// What a refused run may allocate at most: a few layers' worth of bookkeeping, nothing of size
/// O(n) at the n of these cases.
const SMALL: usize = 16 << 20;

/// Runs `entry`, which must be refused for memory with an estimate above `at_least` bytes, and
/// checks that it allocated at most [`SMALL`] bytes on the way.
fn refused_early<T: std::fmt::Debug>(what: &str, at_least: u64, entry: impl FnOnce() -> fibtree::Result<T>) {
    let base = NOW.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let result = entry();
    let peak = PEAK.load(Ordering::Relaxed) - base;
    match result {
        Err(Error::OutOfMemory { estimate, limit, .. }) => {
            let limit = limit.bytes();
            assert!(estimate > limit && estimate >= at_least, "{what}: estimate {estimate}, limit {limit}");
        }
        other => panic!("{what}: expected a refusal for memory, got {other:?}"),
    }
    assert!(peak <= SMALL, "{what}: allocated {peak} bytes before the refusal");
}

#[test]
fn every_entry_is_refused_before_any_large_allocation() {
    let tight = |double_check| Options { memory_limit: Some((1 << 20).into()), double_check, ..Options::default() };
    // the machine's own memory: far more than any machine has
    refused_early("count", 1 << 40, || fibtree::count(100_000_000, 0));
    refused_early("count_mod", 1 << 40, || fibtree::count_mod(1_000_000_000, 0, 7));
    // a limit of 1 MiB, at n = 100000 (a plan of 1.3 GB, values of 8.7 KB)
    refused_early("Counting", 1 << 24, || fibtree::Counting::new(&[(100_000, 0)], &tight(false)).map(|_| ()));
    refused_early("Counting, double check", 1 << 24, || {
        fibtree::Counting::new(&[(100_000, 0)], &tight(true)).map(|_| ())
    });
    refused_early("Counting::mod_only", 1 << 20, || fibtree::mod_only(&[(100_000, 0)], &tight(false)));
    refused_early("crt::residues", 1 << 20, || fibtree::crt::residues(100_000, 0, &[7, 11], &tight(false)));
    // the highest g a move of T(20000) leaves, far above W
    let g = *fibtree::support(20_000).unwrap().last().unwrap();
    refused_early("crt::residues, g above W", 1 << 24, || fibtree::crt::residues(20_000, g, &[7], &tight(false)));
    refused_early("distribution", 1 << 24, || fibtree::dist::distribution(100_000, &tight(false)));
    let walk = fibtree_core::Guard::walk((1 << 20).into());
    refused_early("moves", 1 << 24, || {
        Ok(fibtree::moves::Counts::new(100_000, 0, walk, fibtree::Hooks::default()).map(|_| ())?)
    });
}
