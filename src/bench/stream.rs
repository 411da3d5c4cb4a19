//! The machine's own streaming rate: the yardstick the exact engine's rate is stated against.
//!
//! A limb addition of the exact engine is one `u64` addition of two source words into a third
//! word; the streaming add `a[i] = b[i] + c[i]` over `u64` words is the same word operation with
//! nothing else: no indices, no carries, no plan. Its rate on one core, in additions per
//! nanosecond, at the engine's working sets (in L2, in L3, from memory), is what the engine's rate
//! is a fraction of. The loop is the kernel `kernels::stream_add`, compiled for the instruction set asked
//! for, as the engine's kernels are.
//!
//! Each level is measured at a size taken from the caches ([`Caches`], three arrays together):
//!
//! - **L2**: half the level-2 cache, so that the three arrays and what else runs stay in it;
//! - **L3**: 4 x L2, at most half the level-3 cache: the largest working set a pass of the
//!   blocked engine keeps (a chunk past L2 where measured fastest), well past L2 and well within L3; skipped
//!   where the L3 is under 4 x L2 (no size is both);
//! - **memory**: 4 x L3, so that nearly every word comes from memory; under the memory limit the
//!   room left (the limit less what the process holds) caps it, down to 2 x L3, below which the
//!   level is skipped. A size the limit refuses is measured smaller or skipped, and [`StreamRate::note`]
//!   says so: never an error. The arrays are allocated fallibly; one that cannot be is skipped too.
//!
//! At each size the arrays are written once (which maps their pages and brings them into the
//! caches that hold them), the loop is warmed up until 2 ms have passed since the writing began,
//! then timed in rounds of 10 ms, at most 5 of them and no more once two have run and 50 ms have
//! passed; the fastest round gives the rate. A round goes on over the arrays from where the last
//! one stopped, so that at the memory level it needs no whole sweep of 4 x L3 bytes. Time is the
//! thread's CPU time (as `estimate`'s calibration counts it), so that the time it waits while other
//! programs hold the core is not the loop's.
//!
//! The fastest round, not the median: the rate is what the core can do, and what shares the
//! machine (other programs in the caches and on the memory bus, a preempted thread coming back to
//! a cold cache, interrupts) only ever slows a round down, so the fastest is the nearest to it (as
//! `estimate`'s calibration keeps its fastest run). Against the engine's median time, the fraction
//! `fibtree bench` gives is thereby rather low than high.

use std::hint::black_box;

use fibtree_util::human_bytes;

use fibtree::{Hooks, Limit, Result};
use fibtree::{Isa, Machine};

/// The warm-up at each size before any round is timed (one sweep at least).
const WARM_UP: f64 = 2e-3;

/// A timed round: sweeps until this much time has passed (one sweep at least).
const ROUND: f64 = 10e-3;

/// The most rounds at a size.
const ROUNDS: usize = 5;

/// No round more at a size once two have run and their time reaches this.
const LEVEL_TIME: f64 = 50e-3;

/// The caches a streaming measurement is sized by, in bytes: as the operating system reports them
/// or, where it reports none, the fallback.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caches {
    /// The level-2 cache of one core.
    pub l2: u64,
    /// Whether the operating system reported it (else it is [`Caches::FALLBACK_L2`]).
    pub l2_reported: bool,
    /// The level-3 cache the first core shares with others.
    pub l3: u64,
    /// Whether the operating system reported it (else the larger of [`Caches::FALLBACK_L3`] and
    /// 16 x L2).
    pub l3_reported: bool,
}

impl Caches {
    /// The L2 taken where none is reported: 512 KiB, the smallest L2 of the CPUs measured (docs/performance.md).
    pub const FALLBACK_L2: u64 = 512 << 10;

    /// The L3 taken where none is reported (not Linux, a virtual machine that hides it, or a CPU
    /// without one), unless 16 x L2 is larger: 32 MiB, the L3 of the EPYC of docs/performance.md.
    pub const FALLBACK_L3: u64 = 32 << 20;

    /// The caches `/sys/devices/system/cpu/cpu0/cache/` reports, each read once per process, with
    /// the fallbacks. Cost: a few reads of small files, the first time.
    pub fn detect() -> Caches {
        Caches::reported(Machine::cache_bytes(2), Machine::cache_bytes(3))
    }

    /// The caches from the sizes reported (`None`: not reported), with the fallbacks. Cost O(1).
    pub fn reported(l2: Option<u64>, l3: Option<u64>) -> Caches {
        let l2_size = l2.filter(|&b| b > 0).unwrap_or(Caches::FALLBACK_L2);
        let l3_size = l3.filter(|&b| b > 0).unwrap_or(Caches::FALLBACK_L3.max(l2_size.saturating_mul(16)));
        Caches { l2: l2_size, l2_reported: l2.is_some(), l3: l3_size, l3_reported: l3.is_some() }
    }

    /// The bytes of the three arrays at `level`, and the least that still measures it: half the L2
    /// (and no less); 4 x L2 capped at half the L3 (at least 2 x L2); 4 x L3 (at least 2 x L3).
    /// Cost O(1).
    pub fn sizes(&self, level: Level) -> (u64, u64) {
        match level {
            Level::L2 => (self.l2 / 2, self.l2 / 2),
            Level::L3 => (self.l2.saturating_mul(4).min(self.l3 / 2), self.l2.saturating_mul(2)),
            Level::Memory => (self.l3.saturating_mul(4), self.l3.saturating_mul(2)),
        }
    }
}

/// Where the streaming add's words come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// The level-2 cache.
    L2,
    /// The level-3 cache.
    L3,
    /// Main memory.
    Memory,
}

impl Level {
    /// The levels, nearest the core first.
    pub const ALL: [Level; 3] = [Level::L2, Level::L3, Level::Memory];

    /// `L2`, `L3` or `memory`.
    pub fn name(self) -> &'static str {
        match self {
            Level::L2 => "L2",
            Level::L3 => "L3",
            Level::Memory => "memory",
        }
    }
}

/// The streaming rate at one level.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamRate {
    /// The level.
    pub level: Level,
    /// The bytes of the three arrays the caches ask for ([`Caches::sizes`]).
    pub wanted: u64,
    /// The bytes of the three arrays measured: `wanted` (in whole cache lines: up to 191 bytes
    /// less), less where the memory limit left less room, 0 where the level was skipped.
    pub bytes: u64,
    /// Additions per nanosecond on one core (`None`: skipped).
    pub adds_per_ns: Option<f64>,
    /// Why the size is below `wanted` or the level was skipped, in words (`None`: neither).
    pub note: Option<String>,
}

/// The streaming rates of one core at the three levels, with the caches and the instruction set they
/// were measured with.
#[derive(Clone, Debug, PartialEq)]
pub struct Stream {
    /// The caches the sizes were taken from.
    pub caches: Caches,
    /// The instruction set the loop was compiled for.
    pub kernel: Isa,
    /// The rate at each level of [`Level::ALL`], in that order.
    pub rates: [StreamRate; 3],
}

impl Stream {
    /// Measures the streaming add `a[i] = b[i] + c[i]` on the calling thread, compiled for
    /// `kernel`, at each [`Level`] in turn (see the module), the arrays of a level freed before the
    /// next: each level's three arrays within `limit` less `held` bytes (what the process holds
    /// beside them).
    ///
    /// Cost: about 60 ms a level, warm-up and rounds, and before them the writing of its arrays;
    /// from memory that is 4 x L3 bytes of new pages, which the operating system maps a page at a
    /// time (1 GiB on the Xeon of docs/performance.md: 0.9 to 2.8 s there, a virtual machine
    /// beside other work, against 0.2 s of rounds and the caches' levels); memory the largest
    /// level's arrays, 4 x L3 bytes at most, freed before it returns.
    ///
    /// # Errors
    /// [`fibtree::Error::Interrupted`] when `hooks.cancel` is set (checked between rounds and while
    /// the arrays are written).
    pub fn measure(caches: Caches, kernel: Isa, limit: impl Into<Limit>, held: u64, hooks: Hooks) -> Result<Stream> {
        let limit = limit.into();
        let mut rates = Vec::with_capacity(Level::ALL.len());
        for level in Level::ALL {
            rates.push(measure_level(level, caches, kernel, (limit, held), hooks)?);
        }
        let rates = rates.try_into().expect("a rate for each level");
        Ok(Stream { caches, kernel, rates })
    }

    /// The rate at `level`. Cost O(1).
    pub fn rate(&self, level: Level) -> &StreamRate {
        &self.rates[level as usize]
    }

    /// Additions per nanosecond in L2, where measured: what `fibtree bench` states the engine's
    /// rate as a fraction of. Cost O(1).
    pub fn in_l2(&self) -> Option<f64> {
        self.rate(Level::L2).adds_per_ns
    }
}

/// The rate at `level` ([`Stream::measure`]), its arrays within `limit` less `held` bytes.
///
/// # Errors
/// [`fibtree::Error::Interrupted`] when `hooks.cancel` is set.
fn measure_level(
    level: Level,
    caches: Caches,
    kernel: Isa,
    (limit, held): (Limit, u64),
    hooks: Hooks,
) -> Result<StreamRate> {
    hooks.check()?;
    let (wanted, least) = caches.sizes(level);
    let skipped = |note: String| Ok(StreamRate { level, wanted, bytes: 0, adds_per_ns: None, note: Some(note) });
    if wanted < least {
        let (l3, l2) = (human_bytes(caches.l3), human_bytes(caches.l2));
        return skipped(format!("skipped: an L3 of {l3} is under 4 x the L2 of {l2}"));
    }
    let room = limit.bytes().saturating_sub(held);
    let room_note = || format!("{} left of {}", human_bytes(room), limit);
    let size = wanted.min(room);
    if size < least {
        let wants = match least < wanted {
            true => format!("{} (at least {})", human_bytes(wanted), human_bytes(least)),
            false => human_bytes(wanted),
        };
        return skipped(format!("skipped: {wants} wanted, {}", room_note()));
    }
    let Some(mut arrays) = Arrays::new(size, hooks)? else {
        return skipped(format!("skipped: {} could not be allocated", human_bytes(size)));
    };
    let adds_per_ns = arrays.rate(kernel, hooks)?;
    let bytes = arrays.bytes();
    let note =
        (size < wanted).then(|| format!("{} of {} wanted: {}", human_bytes(bytes), human_bytes(wanted), room_note()));
    Ok(StreamRate { level, wanted, bytes, adds_per_ns: Some(adds_per_ns), note })
}

/// The three arrays of a streaming add in one allocation: `a` at a cache line, `b` and `c` after it,
/// one and two cache lines past a multiple of 4 KiB from `a`, so that no load of `b` or `c` has the
/// low 12 bits of a store to `a` just before it (which some CPUs take for a dependency).
struct Arrays {
    buf: Vec<u64>,
    /// Where `a` starts in `buf`.
    start: usize,
    /// From the start of one array to the next, in words.
    stride: usize,
    /// The words of each array.
    words: usize,
    /// When they began to be written: the start of the warm-up.
    made: f64,
}

/// Words in a cache line, and in 4 KiB.
const LINE: usize = 8;
const PAGE: usize = 512;

/// The words of each array one call of the kernel adds (256 KiB of each): a block.
const BLOCK: usize = 1 << 15;

/// A batch of blocks between two reads of the clock takes at least this (seconds; a read is a
/// system call of about 1 µs).
const BATCH: f64 = 200e-6;

impl Arrays {
    /// Three arrays of whole cache lines in at most `bytes` (their own bytes; the allocation adds at
    /// most three pages), each word written once; `None` where they cannot be allocated. Cost
    /// O(bytes): the writing maps the pages, a block at a time, `hooks` checked between blocks.
    ///
    /// # Errors
    /// [`fibtree::Error::Interrupted`] when `hooks.cancel` is set.
    fn new(bytes: u64, hooks: Hooks) -> Result<Option<Arrays>> {
        let Some(words) = usize::try_from(bytes / 24).ok() else { return Ok(None) };
        let words = (words / LINE * LINE).max(LINE);
        let stride = words.div_ceil(PAGE) * PAGE + LINE;
        let Some(len) = stride.checked_mul(2).and_then(|l| l.checked_add(words + LINE)) else { return Ok(None) };
        let made = Machine::thread_seconds();
        let mut buf: Vec<u64> = Vec::new();
        if buf.try_reserve_exact(len).is_err() {
            return Ok(None);
        }
        while buf.len() < len {
            hooks.check()?;
            let from = buf.len() as u64;
            let to = (from + (16 * BLOCK) as u64).min(len as u64);
            buf.extend((from..to).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 16));
        }
        let start = buf.as_ptr().align_offset(64).min(LINE - 1);
        Ok(Some(Arrays { buf, start, stride, words, made }))
    }

    /// The bytes of the three arrays.
    fn bytes(&self) -> u64 {
        3 * 8 * self.words as u64
    }

    /// Warms up (the writing of the arrays counts), times the rounds and returns the fastest's
    /// additions per nanosecond. The loop goes over the arrays a block at a time, on from where the
    /// last block ended and round again from the start, so that a round of arrays larger than it
    /// can sweep still reads each word as long after the last time as a whole sweep would (from
    /// memory at the memory level), and the clock is read after each batch of blocks, the batch
    /// doubled while it takes under [`BATCH`].
    fn rate(&mut self, kernel: Isa, hooks: Hooks) -> Result<f64> {
        let (words, stride) = (self.words, self.stride);
        let (a, sources) = self.buf[self.start..].split_at_mut(stride);
        let (a, b, c) = (&mut a[..words], &sources[..words], &sources[stride..stride + words]);
        let mut next = 0;
        // the words of `count` blocks, from where the last call stopped
        let mut blocks = |count: usize| -> u64 {
            let mut done = 0;
            for _ in 0..count {
                let end = (next + BLOCK).min(words);
                kernel.stream_add(black_box(&mut a[next..end]), black_box(&b[next..end]), black_box(&c[next..end]));
                done += (end - next) as u64;
                next = if end == words { 0 } else { end };
            }
            black_box(&*a);
            done
        };
        let (mut batch, mut last) = (1usize, Machine::thread_seconds());
        // a batch of blocks and the clock after it; the batch doubled for the next while it takes
        // under `BATCH`
        let mut timed = |batch: &mut usize, last: &mut f64| -> u64 {
            let done = blocks(*batch);
            let now = Machine::thread_seconds();
            if now - *last < BATCH {
                *batch *= 2;
            }
            *last = now;
            done
        };
        while last - self.made < WARM_UP {
            timed(&mut batch, &mut last);
        }
        let (mut best, mut spent) = (0.0f64, 0.0);
        for round in 1..=ROUNDS {
            hooks.check()?;
            let (start, mut done) = (last, 0u64);
            while done == 0 || last - start < ROUND {
                done += timed(&mut batch, &mut last);
            }
            let seconds = last - start;
            best = best.max(done as f64 / (seconds * 1e9).max(1.0));
            spent += seconds;
            if round >= 2 && spent >= LEVEL_TIME {
                break;
            }
        }
        Ok(best)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Made-up caches small enough for a test: 64 KiB of L2, 1 MiB of L3.
    fn small() -> Caches {
        Caches::reported(Some(64 << 10), Some(1 << 20))
    }

    #[test]
    fn fallbacks_where_none_is_reported() {
        assert_eq!(
            Caches::reported(None, None),
            Caches { l2: 512 << 10, l2_reported: false, l3: 32 << 20, l3_reported: false }
        );
        let no_l3 = Caches::reported(Some(4 << 20), None);
        assert_eq!((no_l3.l2, no_l3.l2_reported, no_l3.l3, no_l3.l3_reported), (4 << 20, true, 64 << 20, false));
        // a size of 0 is none
        assert_eq!(Caches::reported(Some(0), Some(0)).l2, Caches::FALLBACK_L2);
        let here = Caches::detect();
        println!("this machine: {here:?}");
        assert_eq!(here.l2_reported, Machine::cache_bytes(2).is_some());
        assert_eq!(here.l3_reported, Machine::cache_bytes(3).is_some());
    }

    #[test]
    fn every_level_measured_at_the_sizes_of_the_caches_given() {
        for kernel in Isa::available() {
            let stream = Stream::measure(small(), kernel, u64::MAX, 0, Hooks::default()).unwrap();
            assert_eq!(stream.kernel, kernel);
            let levels: Vec<Level> = stream.rates.iter().map(|r| r.level).collect();
            assert_eq!(levels, Level::ALL);
            let bytes: Vec<u64> = stream.rates.iter().map(|r| r.bytes).collect();
            // 32 KiB, 256 KiB (4 x L2, under L3 / 2) and 4 MiB: whole cache lines of three arrays
            assert_eq!(bytes, [32 << 10, 256 << 10, 4 << 20].map(|b: u64| b / 192 * 192), "{kernel:?}");
            for rate in &stream.rates {
                assert_eq!(rate.wanted, small().sizes(rate.level).0);
                assert!(rate.adds_per_ns.is_some_and(|r| r > 0.0 && r.is_finite()), "{rate:?}");
                assert_eq!(rate.note, None, "{rate:?}");
            }
            println!("{kernel:?}: {:?}", stream.rates);
        }
        // the L3 level capped at half the L3: 4 x 64 KiB is more than 384 KiB / 2
        let capped = Caches::reported(Some(64 << 10), Some(384 << 10));
        assert_eq!(capped.sizes(Level::L3), (192 << 10, 128 << 10));
        // an L3 under 4 x L2 leaves no size for the L3 level: skipped, said so
        let close = Caches::reported(Some(64 << 10), Some(192 << 10));
        let stream = Stream::measure(close, Isa::Baseline, u64::MAX, 0, Hooks::default()).unwrap();
        let l3 = stream.rate(Level::L3);
        assert_eq!((l3.bytes, l3.adds_per_ns), (0, None));
        assert!(l3.note.as_deref().is_some_and(|n| n.contains("under 4 x the L2")), "{l3:?}");
        assert!(stream.rate(Level::Memory).adds_per_ns.is_some());
    }

    #[test]
    fn a_limit_shrinks_or_skips_a_level_never_fails() {
        let caches = small();
        // 3.5 MiB left: memory measured at 3.5 MiB of the 4 wanted, said so
        let stream = Stream::measure(caches, Isa::Baseline, 4 << 20, 512 << 10, Hooks::default()).unwrap();
        let memory = stream.rate(Level::Memory);
        assert_eq!((memory.wanted, memory.bytes), (4 << 20, (7 << 19) / 192 * 192));
        assert!(memory.adds_per_ns.is_some());
        let note = memory.note.as_deref().unwrap();
        assert!(note.contains("of 4.0 MiB wanted: 3.5 MiB left of the 4.0 MiB it may use"), "{note}");
        assert_eq!(stream.rate(Level::L3).note, None, "the caches' levels fit");
        // 1 MiB left: under 2 x L3, the memory level is skipped, the others measured
        let stream = Stream::measure(caches, Isa::Baseline, 9 << 20, 8 << 20, Hooks::default()).unwrap();
        let memory = stream.rate(Level::Memory);
        assert_eq!((memory.bytes, memory.adds_per_ns), (0, None));
        let note = memory.note.as_deref().unwrap();
        assert!(note.starts_with("skipped: 4.0 MiB (at least 2.0 MiB) wanted, 1.0 MiB left of the 9.0 MiB"), "{note}");
        assert!(stream.in_l2().is_some() && stream.rate(Level::L3).adds_per_ns.is_some());
        // no room at all: every level skipped, no error
        let stream = Stream::measure(caches, Isa::Baseline, 1 << 20, 2 << 20, Hooks::default()).unwrap();
        assert!(stream.rates.iter().all(|r| r.adds_per_ns.is_none() && r.bytes == 0 && r.note.is_some()));
        assert_eq!(stream.in_l2(), None);
    }

    #[test]
    fn cancelled_before_it_starts() {
        let flag = std::sync::atomic::AtomicBool::new(true);
        let cancelled = Stream::measure(small(), Isa::Baseline, u64::MAX, 0, Hooks::default().cancel_on(&flag));
        assert!(matches!(cancelled, Err(fibtree::Error::Interrupted)), "{cancelled:?}");
    }

    #[test]
    fn the_arrays_lie_apart_and_aligned() {
        for bytes in [24, 1000, 32 << 10, (1 << 20) + 7] {
            let arrays = Arrays::new(bytes, Hooks::default()).unwrap().unwrap();
            let words = arrays.words;
            assert!(words.is_multiple_of(LINE) && words >= LINE && (arrays.bytes() <= bytes.max(192)), "{bytes}");
            let a = arrays.buf[arrays.start..].as_ptr() as usize;
            assert_eq!(a % 64, 0);
            assert_eq!(arrays.stride % PAGE, LINE, "b one line past a page multiple from a");
            assert!(arrays.start + 2 * arrays.stride + words <= arrays.buf.len());
        }
    }

    #[test]
    fn caches_as_reported_or_the_fallback() {
        use super::Caches;
        let reported = Caches::reported(Some(2 << 20), Some(260 << 20));
        assert_eq!((reported.l2, reported.l3, reported.l2_reported), (2 << 20, 260 << 20, true));
        // none reported: 512 KiB of L2, and an L3 of the larger of 32 MiB and 16 x L2
        let none = Caches::reported(None, None);
        assert_eq!((none.l2, none.l3, none.l3_reported), (512 << 10, 32 << 20, false));
        assert_eq!(Caches::reported(Some(4 << 20), None).l3, 64 << 20);
        let here = Caches::detect(); // this machine's
        assert!(here.l2 > 0 && here.l3 > 0);
    }

    #[test]
    fn the_sizes_of_each_level() {
        use super::{Caches, Level};
        let caches = Caches::reported(Some(2 << 20), Some(260 << 20));
        assert_eq!(caches.sizes(Level::L2), (1 << 20, 1 << 20));
        assert_eq!(caches.sizes(Level::L3), (8 << 20, 4 << 20));
        assert_eq!(caches.sizes(Level::Memory), (1040 << 20, 520 << 20));
    }

    #[test]
    fn the_levels_by_name() {
        use super::Level;
        let names: Vec<&str> = Level::ALL.iter().map(|l| l.name()).collect();
        assert_eq!(names, ["L2", "L3", "memory"]);
    }

    #[test]
    fn a_stream_measured_and_squeezed() -> fibtree::Result<()> {
        use super::{Caches, Level, Stream};
        // made-up caches of 64 KiB and 1 MiB: arrays of 32 KiB, 256 KiB and 4 MiB
        let caches = Caches::reported(Some(64 << 10), Some(1 << 20));
        let kernel = fibtree::isa();
        let stream = Stream::measure(caches, kernel, 1 << 30, 0, fibtree::Hooks::default())?;
        let l2 = stream.rate(Level::L2);
        assert!(l2.adds_per_ns.is_some_and(|r| r > 0.0 && r.is_finite()));
        assert_eq!((l2.wanted, l2.note.as_deref()), (32 << 10, None));
        assert!(l2.bytes <= l2.wanted && l2.bytes > l2.wanted - 192); // whole cache lines of 3 arrays
        assert_eq!(stream.in_l2(), l2.adds_per_ns);
        // a limit that leaves 3 MiB: memory measured at 3 MiB, not 4 (its least is 2)
        let squeezed = Stream::measure(caches, kernel, 4 << 20, 1 << 20, fibtree::Hooks::default())?;
        assert_eq!(squeezed.rate(Level::Memory).bytes, 3 << 20);
        assert!(squeezed.rate(Level::Memory).note.is_some());
        Ok(())
    }
}
