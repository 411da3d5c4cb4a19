//! What a count will cost before it runs: the plan's states, the exact engine's limb additions, the
//! size of the value, the primes of the residue route, the memory of one machine and of a shard,
//! and the time on this machine, from a short calibration of both engines.
//!
//! **Method.**
//! - *States.* The plan's backward pass is run layer by layer and counted, keeping two layers,
//!   each thinned to its states of non-zero count as the plan's are (the plan's census): the exact
//!   number, at the cost of the pass without its memory, O(n x W / 64) word operations (and as many
//!   for each of the support's two forward passes). Where that would take long (n x W above
//!   [`CENSUS_LIMIT`], W the width of the layers: n above about 480,000 for g = 0) it is skipped
//!   unless asked for, and the states are bounded instead by the g of the classes modulo 4 that the
//!   plan can hold below W (the dense modular engine's windows, which hold the states of count zero
//!   too): an upper bound, 1.10 x the plan's states at n = 20000, 2.87 x at n = 100000, 1.29 x at
//!   n = 200000 and 2.49 x at n = 1,000,000 (where its limb additions are 1.94 x the plan's).
//! - *Work.* The exact engine's limb additions, counted from both ends at the cut with the least of
//!   them ([`crate::Cut::Auto`]): below the cut the sum over layers of the states times the limbs of a
//!   count of the layer, above it the states times the limbs of a path count, limbs(n - k + 1)
//!   (bottom-up alone, the first sum over every layer); the residue route's lane operations per prime are the dense modular
//!   engine's, counted exactly from its windows.
//! - *Speed.* On one thread, in rounds: the exact engine runs f(k) and f(k / 2) (k = n clamped to
//!   1000..=7000); the dense sweep runs about 2.5 x 10^7 lane operations with arrays of n's width,
//!   four times modulo a prime of the route (`u64` lanes) and four times modulo 998244353 (`u32`
//!   lanes, for `combine`'s check); Garner's algorithm runs over 400 primes. The rounds go on for
//!   about a second (three at least), each run timed by the thread's CPU time, so that time spent
//!   waiting for a core that other programs hold is not the engine's; what they still do to a run
//!   only slows it, and comes and goes: the fastest run gives the figure, the slowest the top of its
//!   range ([`Spread`]). The two exact runs, of different limbs per state, give a cost per state and
//!   a cost per limb addition ([`ExactModel`]); the engine's kernel, timed on synthetic layers as
//!   wide as the widths where the calibration's and the run's limb additions are made, scales the
//!   cost per limb to the level of the cache the run's layers fall in. The rates give the predicted CPU time; the wall time of
//!   T threads assumes the CPU time divides evenly (the exact engine), that each thread takes whole
//!   primes (the residue route), or that the three direct checks of `combine` run a thread each.
//!
//! How the predictions compare with real runs is recorded in docs/performance.md.
//!
//! ```
//! # use fibtree_core as fibtree;
//! use fibtree::estimate::{CensusWhen, estimate};
//! let e = estimate(300, 0, &[1], CensusWhen::Always, fibtree::Hooks::default())?;
//! assert!(e.states_counted);
//! assert_eq!((e.states, e.bottom_up_limb_additions), (27_680, 59_109));
//! assert_eq!((e.cut, e.limb_additions), (180, 43_511)); // what `fibtree bench 300` runs
//! # Ok::<(), fibtree::Error>(())
//! ```

use crate::engines::{self, modular};
use crate::error::{Error, Param, Result};
use crate::game::P998244353;
use crate::guard::{PROCESS_BYTES, Run};
use crate::hooks::Hooks;
use crate::plan::{self, Sizes};
use crate::targets::Targets;

mod model;
mod spread;
pub use model::ExactModel;
pub use spread::{Seconds, Spread};

/// The largest n x W (the top layer times the width of the layers) for which [`estimate`] counts
/// the plan's states by default: the census is O(n x W / 64) word operations, about 3.9 x 10^9
/// words at this limit for the backward pass and as many for each of the support's two forward
/// passes (n = 476,837 for g = 0, where W = 2^19; n = 200000 has n x W = 5.2 x 10^10,
/// n = 1,000,000 has 1.05 x 10^12).
pub const CENSUS_LIMIT: u64 = 250_000_000_000;

/// The exact engine's calibration runs f(n) for n up to this.
const CALIBRATION_N: u64 = 7000;

/// About the lane operations of each run of the dense sweep's calibration, which runs
/// [`SWEEPS_PER_ROUND`] times a round for each of two moduli (`u64` and `u32` lanes).
const CALIBRATION_LANES: u64 = 25_000_000;

/// The dense sweep's runs of each modulus in a round: short runs, so that some fall in the moments
/// the machine runs at full speed.
const SWEEPS_PER_ROUND: usize = 4;

/// The calibration's rounds (a run of each of its measures) go on until they have taken this
/// long, in wall time...
const CALIBRATION_SPAN: std::time::Duration = std::time::Duration::from_millis(1000);

/// ...and there are at least this many...
const MIN_ROUNDS: usize = 3;

/// ...or this many (small n, whose rounds are short).
const MAX_ROUNDS: usize = 40;

/// When [`estimate`] counts the plan's states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CensusWhen {
    /// Where n x W is at most [`CENSUS_LIMIT`]; else bound them.
    Auto,
    /// Always, however long it takes.
    Always,
}

/// The predicted cost of c(n, g), as [`estimate`] gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// The tree T(n).
    pub n: u64,
    /// The Grundy value of the count.
    pub g: u64,
    /// Whether c(n, g) = 0 is known without counting (g above every value a move of T(n) can
    /// leave): `fibtree count` then answers at once, and the work below is none.
    pub known_zero: bool,
    /// The threads the times are predicted for (the current rayon pool's).
    pub threads: usize,
    /// The plan's states: counted, or an upper bound (see `states_counted`).
    pub states: u64,
    /// Whether `states` and `widest_layer` were counted (else they are upper bounds).
    pub states_counted: bool,
    /// The states of the plan's widest layer (counted or an upper bound, as `states`).
    pub widest_layer: u64,
    /// The exact engine's 64-bit limb additions from both ends, cut at `cut`.
    pub limb_additions: u128,
    /// The layer where the count is cut between its halves (n: bottom-up alone).
    pub cut: u64,
    /// The limb additions of the bottom-up count alone: the sum over layers of states times limbs.
    pub bottom_up_limb_additions: u128,
    /// An upper bound on the bits of the value: it is below |T(n)|.
    pub bits_at_most: u64,
    /// An upper bound on its decimal digits.
    pub digits_at_most: u64,
    /// The primes below 2^62 whose residues determine the value ([`crate::primes_for`]).
    pub primes: usize,
    /// The plan's bytes (the exact engine holds it whole).
    pub plan_bytes: u64,
    /// The peak memory of `fibtree count` on one machine (the plan up to the cut, or the engine's
    /// layers from both ends, whichever is larger; the modular check).
    pub exact_bytes: u64,
    /// The dense modular engine's lane operations for one prime of the residue route.
    pub prime_lanes: u64,
    /// The memory of one prime's sweep (its arrays), beside the process's own.
    pub prime_bytes: u64,
    /// The calibration: the exact engine's limb additions per second on one thread, on f(k) for n
    /// clamped to 1000..=7000 (the average of its states' work and their limbs').
    pub exact_rate: Spread,
    /// The calibration: the exact engine's cost per state and per limb addition, and the factor of
    /// the run's width, which give `exact_cpu_seconds`.
    pub exact_model: ExactModel,
    /// The calibration: the dense sweep's lane operations per second on one thread.
    pub prime_rate: Spread,
    /// The calibration's CPU time over its wall time: the share of a core its thread had (near 1
    /// where the machine had a core to spare). The wall times below are for threads that have
    /// their cores; sharing them makes a run longer in proportion.
    pub core_share: f64,
    /// The predicted CPU seconds of the exact engine.
    pub exact_cpu_seconds: Seconds,
    /// The predicted CPU seconds of one prime of the residue route.
    pub prime_cpu_seconds: Seconds,
    /// The residue route cut into each number of shards asked for.
    pub shards: Vec<ShardCost>,
    /// The predicted wall seconds of `fibtree combine` on [`Estimate::threads`] threads: Garner's
    /// algorithm over the primes, then the direct checks (the modular engine modulo 10^18,
    /// 998244353 and a prime drawn for the run, a thread each).
    pub combine_seconds: Seconds,
    /// The part of `combine_seconds` that is Garner's algorithm.
    pub garner_seconds: Seconds,
}

impl Estimate {
    /// The predicted wall seconds of the exact engine on [`Estimate::threads`] threads, at a perfect
    /// speedup (`fibtree bench` measures the real one).
    pub fn exact_seconds(&self) -> Seconds {
        self.exact_cpu_seconds.times(1.0 / self.threads as f64)
    }
}

/// The residue route in S shards, each run on [`Estimate::threads`] threads.
#[derive(Clone, Debug, PartialEq)]
pub struct ShardCost {
    /// S.
    pub shards: usize,
    /// The primes of the largest shard.
    pub primes_per_shard: usize,
    /// The peak memory of one shard: the process and one prime's arrays per thread at work.
    pub bytes: u64,
    /// The wall seconds of the largest shard: its primes a thread each, in rounds.
    pub seconds: Seconds,
    /// The CPU seconds of all the shards together.
    pub cpu_seconds: Seconds,
}

/// The cost of counting c(n, g), exactly (`fibtree count`) and by residue shards (`fibtree shard`)
/// cut into each of `shards`, predicted for the current rayon pool's threads: see the module docs
/// for the method.
///
/// Cost: the plan's backward pass when it is counted (O(n x W / 64) word operations; W = 2^17 at
/// n = 100000) with the support's forward pass twice (for a g below W), O(n) otherwise; then the
/// calibration (about a second: three rounds or more, each exact runs of f(7000) and f(3500) at most,
/// and 2 x 10^8 lane operations of the dense sweep; then the kernel on synthetic layers of two widths, up to
/// about 80 ms); memory two layers of the plan (W / 8 bytes each),
/// the support's checkpoints (about 4 sqrt(n) layers of W / 8 bytes: 20 MB at n = 100000), the
/// calibration's plans of f(7000) and f(3500) (a few MB), one prime's arrays, then the kernel's
/// synthetic layers (25 MiB at most), and 8 bytes a layer.
///
/// # Errors
/// [`Error::InvalidArgument`] for n above [`crate::MAX_N`], a shard count of 0 (naming
/// [`Param::Shard`]), or where the calibration's thread cannot be started
/// from a pool of more than one (naming [`Param::Threads`]); [`Error::Interrupted`] once cancelled.
pub fn estimate(n: u64, g: u64, shards: &[usize], census: CensusWhen, hooks: Hooks) -> Result<Estimate> {
    crate::game::check_n(n)?;
    if let Some(s) = shards.iter().find(|&&s| s == 0) {
        return Err(Error::invalid(Param::Shard, format!("a number of shards of at least 1, got {s}")));
    }
    crate::guard::check(own_bytes(n), crate::guard::available_limit())?;
    let limit = match census {
        CensusWhen::Auto => CENSUS_LIMIT,
        CensusWhen::Always => u64::MAX,
    };
    estimate_with(n, g, shards, limit, hooks)
}

/// The memory [`estimate`] itself takes, at most, but the support's checkpoints of the census of a
/// target below W ([`plan::support_bytes`]): per layer the edge values (4 bytes), the states (4), the
/// dense windows' lanes (8) and their shape (22); the census's layers and the calibration's plans and
/// arrays, then its synthetic layers (under 64 MiB here). 38 MB at n = 1,000,000. Cost O(1).
fn own_bytes(n: u64) -> u64 {
    PROCESS_BYTES + (64 << 20) + 38 * (n + 1)
}

/// [`estimate`], counting the plan's states where n x W is at most `census_limit` (or where no
/// bound can be had: a g at or above W whose dense windows would be too wide), else bounding them:
/// by the dense windows, or by W a layer where those are too wide (every state of a target below W
/// is below W).
fn estimate_with(n: u64, g: u64, shards: &[usize], census_limit: u64, hooks: Hooks) -> Result<Estimate> {
    let targets = Targets::one(n, g);
    let bits_at_most = crate::game::count_bits_bound(n);
    let max_edge = crate::game::max_edge_value_with(n, hooks)?;
    // g above every value a move can leave: `count` answers 0 without a plan or an engine
    let known_zero = crate::game::value_bound(n, max_edge as u64).is_some_and(|bound| g > bound);
    let unplanned = if known_zero { None } else { modular::unplanned_work(&targets, hooks)? };
    let w = crate::game::window_of_edge(max_edge);
    let (lens, sizes, counted) = layer_sizes(&targets, w, known_zero, unplanned.as_ref(), census_limit, hooks)?;
    let states = lens.iter().map(|&l| l as u64).sum();
    let halves = engines::both_ends::halves(&lens, engines::Cut::Auto);
    let limb_additions = halves.work();
    let exact_bytes = if known_zero {
        PROCESS_BYTES
    } else {
        // from both ends the plan keeps its layers up to the bound on the cut, and the support whole;
        // the sweeps hold what the layers counted say (where they are bounds, the widest at the
        // top layer's lanes)
        let support = plan::support_bytes(&targets, w).min(sizes.plan);
        let keep = engines::both_ends::keep_for_both_ends(n as usize);
        let kept = plan::kept_share(sizes.plan - support, n, keep) + support;
        let held = counted.then(|| engines::held(&lens, Some(engines::Cut::Auto)));
        let sizes = Sizes { plan: kept, held, ..sizes };
        Run::Count { moduli: 2, targets: 1, double_check: false }.bytes(n, &sizes)
    };
    let (prime_lanes, prime_bytes) = match &unplanned {
        _ if known_zero => (0, 0),
        Some((lanes, bytes)) => (lanes.iter().sum(), *bytes),
        // the modular engine over the plan: a lane per state, and the plan
        None => (states, sizes.plan + modular::memory_bytes_for(&sizes, 1, 1)),
    };
    let primes = crate::crt::primes::primes_needed(n);
    let Calibration { exact_rate, exact_model, prime_rate, narrow_rate, garner_rate, core_share } =
        calibrate(n, crate::cost::working_width(&lens, halves.cut as usize), hooks)?;
    let exact_cpu_seconds = exact_model.seconds(states as f64, limb_additions as f64);
    let prime_cpu_seconds = prime_rate.seconds(prime_lanes as f64);
    let threads = rayon::current_num_threads();
    // combine: the three direct checks (10^18 and a drawn prime in u64 lanes, 998244353 in u32
    // lanes), a thread each: the two wide ones first
    let narrow_seconds = narrow_rate.seconds(prime_lanes as f64);
    let checks = match threads {
        1 => prime_cpu_seconds + prime_cpu_seconds + narrow_seconds,
        2 => prime_cpu_seconds + narrow_seconds,
        _ => prime_cpu_seconds.max(narrow_seconds),
    };
    let garner_seconds = if known_zero { Seconds::default() } else { garner_rate.seconds((primes as f64).powi(2)) };
    let shards = shard_costs(shards, primes, threads, prime_bytes, prime_cpu_seconds);
    Ok(Estimate {
        n,
        g,
        known_zero,
        threads,
        states,
        states_counted: counted,
        widest_layer: sizes.widest,
        limb_additions,
        cut: halves.cut,
        bottom_up_limb_additions: halves.bottom_up,
        bits_at_most,
        digits_at_most: (bits_at_most as f64 * std::f64::consts::LOG10_2).ceil() as u64,
        primes,
        plan_bytes: sizes.plan,
        exact_bytes,
        prime_lanes,
        prime_bytes,
        exact_rate,
        exact_model,
        prime_rate,
        core_share,
        exact_cpu_seconds,
        prime_cpu_seconds,
        shards,
        combine_seconds: garner_seconds + checks,
        garner_seconds,
    })
}

/// The states of each layer of the plan of `targets` (one target (n, g), W its window) and the
/// plan's sizes, and whether they were counted: counted (the census) where n x W is at most
/// `census_limit` or where no bound can be had, else bounded by the dense windows of `unplanned`
/// (the modular engine's lanes) or by W a layer. Cost: the census's, where it runs; else O(n).
fn layer_sizes(
    targets: &Targets,
    w: u64,
    known_zero: bool,
    unplanned: Option<&(Vec<u64>, u64)>,
    census_limit: u64,
    hooks: Hooks,
) -> Result<(Vec<u32>, Sizes, bool)> {
    let n = targets.top();
    let (g, _) = targets.g_range();
    let bound: Option<Vec<u32>> = match unplanned {
        _ if known_zero || n.saturating_mul(w) <= census_limit => None,
        // every state of the plan is a g of a kept class in the dense windows
        Some((lanes, _)) => Some(lanes.iter().map(|&l| l.min(u32::MAX as u64) as u32).collect()),
        // the dense windows too wide, and every state of a target below W below W: W a layer
        None if g < w => Some((0..=n).map(|k| if k < 2 { 0 } else { w.min(u32::MAX as u64) as u32 }).collect()),
        None => None,
    };
    let counted = bound.is_none();
    let (lens, sizes) = match bound {
        _ if known_zero => (vec![0; n as usize + 1], Sizes { plan: 0, widest: 0, highest: 0, held: None }),
        Some(lens) => {
            // every layer's window within [0, W), and the support's checkpoints that thin them
            let widest = lens.iter().copied().max().unwrap_or(0) as u64;
            let plan = 4 * (n + 1) + (n + 1) * (w / 8) + plan::support_bytes(targets, w);
            (lens, Sizes { plan, widest, highest: w - 1, held: None })
        }
        None => {
            // the census keeps the support's checkpoints too, for a g below W
            let support = plan::support_bytes(targets, w);
            crate::guard::check(own_bytes(n).saturating_add(support), crate::guard::available_limit())?;
            let census = plan::census(targets, hooks)?;
            let sizes = census.sizes();
            (census.lens, sizes)
        }
    };
    Ok((lens, sizes, counted))
}

/// The cost of the residue route cut into each of `shards`: `primes` primes of `prime_bytes` and
/// `prime_cpu_seconds` each, on `threads` threads a shard. Cost O(shards).
fn shard_costs(
    shards: &[usize],
    primes: usize,
    threads: usize,
    prime_bytes: u64,
    prime_cpu_seconds: Seconds,
) -> Vec<ShardCost> {
    shards
        .iter()
        .map(|&s| {
            let per_shard = primes.div_ceil(s);
            let at_once = per_shard.min(threads) as u64;
            ShardCost {
                shards: s,
                primes_per_shard: per_shard,
                bytes: PROCESS_BYTES + at_once * prime_bytes,
                seconds: prime_cpu_seconds.times(per_shard.div_ceil(threads.max(1)) as f64),
                cpu_seconds: prime_cpu_seconds.times(primes as f64),
            }
        })
        .collect()
}

/// What [`calibrate`] measures, each on one thread: the exact engine's limb additions per second
/// and its costs per state and per limb, the dense sweep's lane operations per second in `u64` lanes (a prime of the route) and in `u32`
/// lanes (998244353), and Garner's algorithm's k^2 per second for k primes; and the share of a core
/// the thread had.
struct Calibration {
    exact_rate: Spread,
    exact_model: ExactModel,
    prime_rate: Spread,
    narrow_rate: Spread,
    garner_rate: Spread,
    core_share: f64,
}

/// The dense sweep's calibration runs with the width of n up to this n (W = 2^20).
const CALIBRATION_TOP: u64 = 1_000_000;

/// The primes of Garner's algorithm's calibration.
const CALIBRATION_PRIMES: usize = 400;

/// The one-thread speeds of the exact engine (limb additions per second, on f(k) for k = n clamped
/// to 1000..=[`CALIBRATION_N`], and its costs per state and per limb from f(k) and f(k / 2), scaled
/// to a run whose limb additions are made at `width` states a layer ([`crate::cost::working_width`]):
/// [`ExactModel`]), of the dense sweep of the
/// residue route (lane operations per second, with the arrays of the width of n, clamped to
/// 1000..=1,000,000, and a prime of the route) and of Garner's algorithm, each the spread of its
/// runs: one of each a round (of the sweep [`SWEEPS_PER_ROUND`]), timed by the thread's CPU time,
/// for [`CALIBRATION_SPAN`] and at least [`MIN_ROUNDS`] rounds, at most [`MAX_ROUNDS`].
///
/// Cost: the plans of f(k) and f(k / 2); then a round is an exact run over each (at 7000, 4.9 x 10^6
/// states and 1.3 x 10^8 limb additions from both ends, at 3500 6.0 x 10^6 and 6.9 x 10^7), Garner's
/// algorithm over [`CALIBRATION_PRIMES`] primes (O(k^2) word multiplications for k primes) and
/// [`SWEEPS_PER_ROUND`] sweeps of about [`CALIBRATION_LANES`] lane operations for each of two
/// moduli; after the rounds the kernel on synthetic layers of both widths (a few ms each).
fn calibrate(n: u64, width: u64, hooks: Hooks) -> Result<Calibration> {
    // a thread of its own; where none can be started (a process limit), the caller's thread where
    // it is its pool's only one, whose CPU time is then the runs' own too
    let threads = rayon::current_num_threads();
    let one = match crate::guard::pool(1) {
        Ok(pool) => Some(pool),
        Err(_) if threads == 1 => None,
        Err(e) => return Err(e),
    };
    // the route's first prime (the largest below 2^62): every prime of the route costs the same
    let prime = crate::crt::primes::first(1)[0];
    // on the pool's one thread, whose CPU time is then the runs' own
    let rounds = || {
        let (start, cpu_start) = (std::time::Instant::now(), crate::machine::thread_cpu_seconds());
        let k = n.clamp(1000, CALIBRATION_N);
        let exact = [k / 2, k].map(|k| model::ExactRun::new(k, hooks));
        let [small, large] = exact;
        let (mut small, mut large) = (small?, large?);
        let primes = crate::crt::primes::first(CALIBRATION_PRIMES);
        let residues: Vec<u64> = primes.iter().zip(1u64..).map(|(&p, i)| p - i * i).collect();
        // below n = 1000 a layer is too short for its rate to mean anything (nor does the time);
        // above 1,000,000 the arrays of n's width would take more than the dense engine allows, and
        // the rate at 1,000,000's (2^20, well beyond the caches) stands for them
        let sweep = modular::DenseRun::new(n.clamp(1000, CALIBRATION_TOP), CALIBRATION_LANES)?;
        let mut garner = spread::Runs::new((CALIBRATION_PRIMES as f64).powi(2));
        let [mut wide, mut narrow] = [(); 2].map(|_| spread::Runs::new(sweep.lanes() as f64));
        for round in 1..=MAX_ROUNDS {
            hooks.check()?;
            small.time(hooks)?;
            large.time(hooks)?;
            garner.time(|| crate::crt::garner::garner(&primes, &residues).map(|_| ()))?;
            for _ in 0..SWEEPS_PER_ROUND {
                wide.time(|| sweep.run(prime))?;
                narrow.time(|| sweep.run(P998244353))?;
            }
            if round >= MIN_ROUNDS && start.elapsed() >= CALIBRATION_SPAN {
                break;
            }
        }
        drop(sweep); // its arrays, before the synthetic layers of the width factor
        let width_factor = model::width_factor(large.working_width(), k, width, n, threads);
        Ok(Calibration {
            exact_rate: large.runs.spread(),
            exact_model: small.model(&large, width_factor),
            prime_rate: wide.spread(),
            narrow_rate: narrow.spread(),
            garner_rate: garner.spread(),
            core_share: (crate::machine::thread_cpu_seconds() - cpu_start) / start.elapsed().as_secs_f64().max(1e-9),
        })
    };
    match one {
        Some(pool) => pool.install(rounds),
        None => rounds(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Plan;

    #[test]
    fn the_estimate_counts_the_plans_states() {
        for n in [3u64, 700, 5000] {
            let e = estimate(n, 0, &[1, 7], CensusWhen::Auto, Hooks::default()).unwrap();
            let plan = Plan::new(&crate::targets::Targets::new(&[(n, 0)]), u64::MAX, Hooks::default()).unwrap();
            assert!(e.states_counted);
            assert_eq!(e.states, plan.states(), "n = {n}");
            assert_eq!(e.widest_layer, plan.widest_layer() as u64);
            assert_eq!(e.primes, crate::crt::primes::primes_needed(n));
            assert!(crate::tree_size(n).bits() <= e.bits_at_most);
            assert!(e.exact_rate.slow > 0.0 && e.prime_rate.slow > 0.0);
            let t = e.exact_cpu_seconds;
            assert!(0.0 < t.low && t.low <= t.high, "{t:?}");
            assert_eq!(e.shards.len(), 2);
            assert_eq!(e.shards[1].primes_per_shard, e.primes.div_ceil(7));
            assert!(e.shards[0].seconds.low >= e.shards[1].seconds.low);
        }
    }

    #[test]
    fn the_model_gives_the_calibrations_own_count_its_fastest_time() {
        // n within the calibration: f(n) is its larger run, whose time the two costs give back
        let e = estimate(4000, 0, &[1], CensusWhen::Auto, Hooks::default()).unwrap();
        let m = e.exact_model;
        assert_eq!(m.width_factor, 1.0, "the calibration's own widths");
        assert!(m.slowdown >= 1.0 && m.limb_seconds > 0.0 && m.state_seconds >= 0.0, "{m:?}");
        let fastest = e.limb_additions as f64 / e.exact_rate.fast;
        let t = e.exact_cpu_seconds;
        assert!((t.low - fastest).abs() <= 1e-9 * fastest, "{t:?} against {fastest}");
        assert!((t.high - fastest * m.slowdown).abs() <= 1e-9 * t.high, "{t:?}");
    }

    #[test]
    fn uncounted_states_are_bounded_from_above() {
        let counted = estimate_with(3000, 0, &[1], u64::MAX, Hooks::default()).unwrap();
        let bounded = estimate_with(3000, 0, &[1], 0, Hooks::default()).unwrap();
        assert!(counted.states_counted && !bounded.states_counted);
        assert!(bounded.states >= counted.states && bounded.states <= 2 * counted.states, "{bounded:?}");
        assert!(bounded.widest_layer >= counted.widest_layer);
        assert!(bounded.limb_additions >= counted.limb_additions);
        assert!(bounded.plan_bytes >= counted.plan_bytes);
        assert_eq!(bounded.prime_lanes, counted.prime_lanes);
    }

    #[test]
    fn the_bound_is_above_the_count() {
        // the bound's ingredients, at an n whose census is cheap
        for n in [2000u64, 12_000] {
            let (lanes, _) = modular::unplanned_work(&Targets::one(n, 0), Hooks::default()).unwrap().unwrap();
            let census = plan::census(&Targets::one(n, 0), Hooks::default()).unwrap();
            for (k, (&l, &c)) in lanes.iter().zip(&census.lens).enumerate() {
                assert!(c as u64 <= l, "layer {k} of n = {n}: {c} states, bound {l}");
            }
        }
    }

    #[test]
    fn a_count_known_to_be_zero_costs_nothing() {
        let e = estimate(1_000_000, 1 << 40, &[1], CensusWhen::Auto, Hooks::default()).unwrap();
        assert!(e.known_zero);
        assert_eq!((e.states, e.limb_additions, e.prime_lanes), (0, 0, 0));
        assert_eq!(crate::request::count_one(1000, 1 << 40).unwrap(), num_bigint::BigUint::from(0u32));
        assert!(!estimate(1000, 5, &[1], CensusWhen::Auto, Hooks::default()).unwrap().known_zero);
    }

    #[test]
    fn no_shards_is_refused() {
        let e = estimate(100, 0, &[4, 0], CensusWhen::Auto, Hooks::default()).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { param: Param::Shard, .. }), "{e}");
    }
}
