//! Whether a block's passes run in tiles ([`super::tiles`]) or layer after layer, whole.
//!
//! Tiles keep a pass's working set in the level-2 cache, where three layers of a chunk (what a
//! whole-layer pass keeps live) would leave it; but they are made once a block, by a walk over its
//! source positions that costs about as much a state as a few lanes of the passes, and they compute
//! the states at their borders twice. Whether they pay depends on the CPU (how much leaving L2
//! costs it) and on the block (how many passes share its tiles): so a run whose tuning says
//! [`TileRule::Measured`] times both kinds of passes, and the making of tiles, on its own first
//! blocks that leave L2, and from then on tiles a block where the time they save its passes is more
//! than the time their making costs.

use std::sync::Mutex;

/// When the blocked engine runs a block in tiles (ranges of its top layer's states, each with what
/// it reads, from the block's first layer to its last in a buffer of half the level-2 cache) rather
/// than a whole layer at a time: only ever a block whose three layers of a chunk leave L2, and of
/// those, as this says. The values are the same either way; the time is not ([`crate::Request::tiles`]).
///
/// ```
/// use fibtree_core::{Engine, Request, TileRule};
/// let target = [(3000, 0)];
/// let whole = Request::exact(&target, Engine::Blocked).tiles(TileRule::Never);
/// let tiled = Request::exact(&target, Engine::Blocked).tiles(TileRule::Always);
/// let value = |request: Request| {
///     let mut found = Vec::new();
///     request.plan()?.run(|_, value, _| Ok(found.push(value)))?;
///     Ok::<_, fibtree_core::Error>(found)
/// };
/// assert_eq!(value(whole)?, value(tiled)?);
/// # Ok::<(), fibtree_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TileRule {
    /// Never: every pass layer after layer.
    Never,
    /// Every block whose three layers of a chunk leave L2.
    Always,
    /// Those of them where the run's own timings say tiles pay: it times its first such blocks each
    /// way, and the making of tiles, and then tiles a block where the time saved on its passes is
    /// more than their making (the default).
    Measured,
}

/// The blocks of each kind a measured run tries before it chooses, and the passes of each kind and
/// makings of tiles it times at most (two clock reads each).
const TRIALS: u32 = 4;
const TIMED: u32 = 256;

/// What a run has measured: the seconds of the passes of each kind per state and lane, and of the
/// making of tiles per state; and the blocks tried each way.
#[derive(Default)]
pub(super) struct Costs(Mutex<Measured>);

#[derive(Default)]
struct Measured {
    rolling: Rate,
    tiled: Rate,
    making: Rate,
    tried: [u32; 2],
}

/// Seconds over units, from `count` samples.
#[derive(Default, Clone, Copy)]
struct Rate {
    seconds: f64,
    units: f64,
    count: u32,
}

impl Rate {
    fn per_unit(self) -> f64 {
        self.seconds / self.units.max(1.0)
    }
}

impl Costs {
    /// Whether a block of `passes` passes of `c` lanes, whose three layers of a chunk take `live`
    /// bytes, runs in tiles under `rule` on a CPU whose level-2 cache holds `l2` bytes. Cost O(1).
    pub(super) fn tiles(&self, rule: TileRule, live: u64, l2: u64, passes: usize, c: usize) -> bool {
        if live <= l2 {
            return false; // the whole layers stay in L2
        }
        match rule {
            TileRule::Never => false,
            TileRule::Always => true,
            TileRule::Measured => {
                let mut m = self.0.lock().expect("not poisoned");
                let known = m.rolling.count >= TRIALS && m.tiled.count >= TRIALS && m.making.count >= 1;
                let tiles = match known {
                    // each way in turn until both are timed
                    false => m.tried[1] <= m.tried[0],
                    true => {
                        let saved = (m.rolling.per_unit() - m.tiled.per_unit()) * (passes * c) as f64;
                        saved > m.making.per_unit()
                    }
                };
                m.tried[tiles as usize] += 1;
                tiles
            }
        }
    }

    /// Whether a pass (`tiled` or not) or a making of tiles is still to be timed. Cost O(1).
    pub(super) fn timing(&self, what: Timed) -> bool {
        let m = self.0.lock().expect("not poisoned");
        m.rate(what).count < TIMED
    }

    /// A pass or a making of tiles took `seconds` for `units` (states and lanes of a pass, states of
    /// a making). Cost O(1).
    pub(super) fn record(&self, what: Timed, seconds: f64, units: u64) {
        let mut m = self.0.lock().expect("not poisoned");
        let rate = m.rate_mut(what);
        rate.seconds += seconds.max(0.0);
        rate.units += units as f64;
        rate.count += 1;
    }
}

/// What a run times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Timed {
    Rolling,
    Tiled,
    Making,
}

impl Measured {
    fn rate(&self, what: Timed) -> Rate {
        match what {
            Timed::Rolling => self.rolling,
            Timed::Tiled => self.tiled,
            Timed::Making => self.making,
        }
    }

    fn rate_mut(&mut self, what: Timed) -> &mut Rate {
        match what {
            Timed::Rolling => &mut self.rolling,
            Timed::Tiled => &mut self.tiled,
            Timed::Making => &mut self.making,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whole layers that fit in L2 are never tiled; the fixed rules do as they say; a measured run
    /// tries both ways, then tiles a block where the time saved on its passes beats the making.
    #[test]
    fn a_measured_run_tiles_where_tiles_pay() {
        let costs = Costs::default();
        assert!(!costs.tiles(TileRule::Always, 100, 100, 8, 8), "fits in L2");
        assert!(costs.tiles(TileRule::Always, 101, 100, 8, 8));
        assert!(!costs.tiles(TileRule::Never, 101, 100, 8, 8));
        let tried: Vec<bool> = (0..4).map(|_| costs.tiles(TileRule::Measured, 101, 100, 8, 8)).collect();
        assert_eq!(tried, [true, false, true, false], "each way in turn");
        for _ in 0..TRIALS {
            costs.record(Timed::Rolling, 2.0, 1000); // 2 ms a thousand state-lanes
            costs.record(Timed::Tiled, 1.0, 1000); // 1 ms
        }
        costs.record(Timed::Making, 10.0, 1000); // 10 ms a thousand states
        // saved: 1 ms a thousand state-lanes x (passes x lanes); made: 10 ms a thousand states
        assert!(!costs.tiles(TileRule::Measured, 101, 100, 1, 8), "8 lanes save less than the making");
        assert!(costs.tiles(TileRule::Measured, 101, 100, 2, 8), "16 lanes save more");
        assert!(costs.timing(Timed::Making));
        for _ in 0..TIMED {
            costs.record(Timed::Making, 1.0, 1);
        }
        assert!(!costs.timing(Timed::Making), "timed enough");
    }
}
