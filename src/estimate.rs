//! `fibtree estimate`: what counting c(N, G) will take, on one machine and in residue shards.

use std::io::Write;
use std::process::ExitCode;

use fibtree::estimate::{self, CensusWhen, Estimate, Seconds, Spread};
use fibtree_util::{counted, human_bytes};
use serde::Serialize;

use super::args::EstimateArgs;
use super::progress::duration;
use super::session::{Outcome, OutputForm, Session};

/// The estimate as `--json` gives it (fields in alphabetical order). Big counts are strings, so
/// that any JSON reader keeps every digit; seconds are predictions, rounded to the millisecond, at
/// the calibration's fastest runs, each with its range (`_low`, the same, to `_high`, at the
/// calibration's slowest runs).
#[derive(Debug, Serialize)]
struct EstimateOut {
    bits_at_most: u64,
    calibration: Calibration,
    combine: Combine,
    digits_at_most: u64,
    exact: Exact,
    #[serde(serialize_with = "super::json::int")]
    g: u64,
    kernel: String,
    /// Whether c(N, G) = 0 is known without counting (then the work is none).
    known_zero: bool,
    n: u64,
    plan: PlanOut,
    primes: usize,
    residues: Residues,
    shards: Vec<ShardOut>,
    threads: usize,
}

#[derive(Debug, Serialize)]
struct Calibration {
    /// The share of a core the calibration's thread had (its CPU time over its wall time).
    core_share: f64,
    /// The exact engine's limb additions per nanosecond on one thread, in its fastest run.
    exact_limbs_per_ns: f64,
    /// The same in its slowest run.
    exact_limbs_per_ns_low: f64,
    /// The exact engine's nanoseconds per state beside its limbs, in its fastest runs.
    exact_ns_per_state: f64,
    /// The exact engine's nanoseconds per limb addition at the calibration's width, in its fastest
    /// runs.
    exact_ns_per_limb: f64,
    /// How much more a limb addition costs at the run's widest layer than at the calibration's.
    width_factor: f64,
    /// The dense sweep's lane operations per nanosecond on one thread, in its fastest run.
    residue_lanes_per_ns: f64,
    /// The same in its slowest run.
    residue_lanes_per_ns_low: f64,
}

#[derive(Debug, Serialize)]
struct Combine {
    /// Garner's algorithm's part.
    garner_seconds: f64,
    garner_seconds_high: f64,
    garner_seconds_low: f64,
    seconds: f64,
    seconds_high: f64,
    seconds_low: f64,
}

#[derive(Debug, Serialize)]
struct PlanOut {
    bytes: u64,
    /// Whether the states were counted (else `states` and `widest_layer` are upper bounds).
    counted: bool,
    states: String,
    widest_layer: u64,
}

#[derive(Debug, Serialize)]
struct Exact {
    /// The limb additions of the bottom-up count alone.
    bottom_up_limb_additions: String,
    cpu_seconds: f64,
    cpu_seconds_high: f64,
    cpu_seconds_low: f64,
    /// The layer where the count is cut between its halves (n: bottom-up alone).
    cut: u64,
    /// Whether `memory_bytes` is within what this machine has available (else `count` refuses).
    fits_here: bool,
    limb_additions: String,
    memory_bytes: u64,
    seconds: f64,
    seconds_high: f64,
    seconds_low: f64,
}

#[derive(Debug, Serialize)]
struct Residues {
    /// One prime's sweep.
    prime_cpu_seconds: f64,
    prime_cpu_seconds_high: f64,
    prime_cpu_seconds_low: f64,
    prime_lanes: String,
    prime_memory_bytes: u64,
    /// `verify` of a residue modulo M < 2^63, at most: the modular engine modulo M and its check
    /// modulus, two primes' sweeps.
    verify_cpu_seconds: f64,
    verify_cpu_seconds_high: f64,
}

#[derive(Debug, Serialize)]
struct ShardOut {
    cpu_seconds: f64,
    cpu_seconds_high: f64,
    cpu_seconds_low: f64,
    memory_bytes: u64,
    primes_per_shard: usize,
    seconds: f64,
    seconds_high: f64,
    seconds_low: f64,
    shards: usize,
}

/// Seconds to the millisecond.
fn ms(seconds: f64) -> f64 {
    (seconds * 1e3).round() / 1e3
}

/// A predicted time as the JSON gives it, each to the millisecond: the figure, the top of its
/// range and the bottom (the figure).
fn ms_range(seconds: Seconds) -> (f64, f64, f64) {
    (ms(seconds.low), ms(seconds.high), ms(seconds.low))
}

/// Work per second as work per nanosecond, to three decimals: the fastest run's (the figure) and
/// the slowest's.
/// Seconds in nanoseconds, to a thousandth.
fn ns(seconds: f64) -> f64 {
    (seconds * 1e12).round() / 1e3
}

fn per_ns(rate: Spread) -> (f64, f64) {
    let round = |r: f64| (r / 1e9 * 1e3).round() / 1e3;
    (round(rate.fast), round(rate.slow))
}

impl EstimateOut {
    /// `e` for the output, `kernel` the kernel set in use, `threads` those of the session (for the
    /// memory a count here would have).
    fn new(e: &Estimate, kernel: String, threads: usize) -> EstimateOut {
        let (garner_seconds, garner_seconds_high, garner_seconds_low) = ms_range(e.garner_seconds);
        let (seconds, seconds_high, seconds_low) = ms_range(e.combine_seconds);
        let (cpu_seconds, cpu_seconds_high, cpu_seconds_low) = ms_range(e.exact_cpu_seconds);
        let (exact_seconds, exact_seconds_high, exact_seconds_low) = ms_range(e.exact_seconds());
        let (prime_cpu_seconds, prime_cpu_seconds_high, prime_cpu_seconds_low) = ms_range(e.prime_cpu_seconds);
        EstimateOut {
            bits_at_most: e.bits_at_most,
            calibration: Calibration::new(e),
            combine: Combine {
                garner_seconds,
                garner_seconds_high,
                garner_seconds_low,
                seconds,
                seconds_high,
                seconds_low,
            },
            digits_at_most: e.digits_at_most,
            exact: Exact {
                bottom_up_limb_additions: e.bottom_up_limb_additions.to_string(),
                cpu_seconds,
                cpu_seconds_high,
                cpu_seconds_low,
                cut: e.cut,
                fits_here: e.exact_bytes <= fibtree::Limit::new(None, threads).bytes(),
                limb_additions: e.limb_additions.to_string(),
                memory_bytes: e.exact_bytes,
                seconds: exact_seconds,
                seconds_high: exact_seconds_high,
                seconds_low: exact_seconds_low,
            },
            g: e.g,
            kernel,
            known_zero: e.known_zero,
            n: e.n,
            plan: PlanOut {
                bytes: e.plan_bytes,
                counted: e.states_counted,
                states: e.states.to_string(),
                widest_layer: e.widest_layer,
            },
            primes: e.primes,
            residues: Residues {
                prime_cpu_seconds,
                prime_cpu_seconds_high,
                prime_cpu_seconds_low,
                prime_lanes: e.prime_lanes.to_string(),
                prime_memory_bytes: e.prime_bytes,
                verify_cpu_seconds: 2.0 * prime_cpu_seconds,
                verify_cpu_seconds_high: 2.0 * prime_cpu_seconds_high,
            },
            shards: e.shards.iter().map(ShardOut::new).collect(),
            threads: e.threads,
        }
    }
}

impl Calibration {
    /// The calibration of `e`, rounded for the output.
    fn new(e: &Estimate) -> Calibration {
        let (exact_limbs_per_ns, exact_limbs_per_ns_low) = per_ns(e.exact_rate);
        let (residue_lanes_per_ns, residue_lanes_per_ns_low) = per_ns(e.prime_rate);
        Calibration {
            core_share: (e.core_share * 1e3).round() / 1e3,
            exact_limbs_per_ns,
            exact_limbs_per_ns_low,
            exact_ns_per_state: ns(e.exact_model.state_seconds),
            exact_ns_per_limb: ns(e.exact_model.limb_seconds),
            width_factor: (e.exact_model.width_factor * 1e3).round() / 1e3,
            residue_lanes_per_ns,
            residue_lanes_per_ns_low,
        }
    }
}

impl ShardOut {
    /// The cost of `s`, rounded for the output.
    fn new(s: &fibtree::estimate::ShardCost) -> ShardOut {
        let (cpu_seconds, cpu_seconds_high, cpu_seconds_low) = ms_range(s.cpu_seconds);
        let (seconds, seconds_high, seconds_low) = ms_range(s.seconds);
        ShardOut {
            cpu_seconds,
            cpu_seconds_high,
            cpu_seconds_low,
            memory_bytes: s.bytes,
            primes_per_shard: s.primes_per_shard,
            seconds,
            seconds_high,
            seconds_low,
            shards: s.shards,
        }
    }
}

/// A predicted time: to the hundredth below ten seconds, else as [`duration`] writes it.
fn time(seconds: f64) -> String {
    if seconds < 10.0 { format!("{seconds:.2}s") } else { duration(seconds) }
}

/// A predicted time from its figure to the top of its range, e.g. `28m 26s to 43m 05s`: one time
/// where both read the same.
fn range(low: f64, high: f64) -> String {
    let (low, high) = (time(low), time(high));
    if low == high { low } else { format!("{low} to {high}") }
}

/// A large count in scientific notation with three digits, e.g. `2.45e9`; below 10^6 in full.
fn big(x: f64) -> String {
    if x < 1e6 {
        format!("{x:.0}")
    } else {
        let exp = x.log10().floor() as i32;
        format!("{:.2}e{exp}", x / 10f64.powi(exp))
    }
}

impl Outcome for EstimateOut {
    fn human(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let f = |s: &str| s.parse::<f64>().unwrap_or(f64::NAN);
        let (n, g) = (self.n, self.g);
        let threads = fibtree_util::counted(self.threads as u64, "thread");
        let at_most = if self.plan.counted { "" } else { "at most " };
        writeln!(out, "c({n}, {g}), predicted for this machine ({threads}, kernel {}):", self.kernel)?;
        if self.known_zero {
            writeln!(
                out,
                "  value     0: G is above every value a move of T({n}) can leave (`count` answers at once)"
            )?;
        } else {
            let (bits, digits) = (counted(self.bits_at_most, "bit"), counted(self.digits_at_most, "decimal digit"));
            writeln!(out, "  value     at most {bits}, {digits}")?;
        }
        let counted = if self.plan.counted { "counted" } else { "an upper bound: --census counts them" };
        writeln!(
            out,
            "  plan      {at_most}{} states ({counted}), widest layer {at_most}{}, {}",
            big(f(&self.plan.states)),
            self.plan.widest_layer,
            human_bytes(self.plan.bytes)
        )?;
        let route = match self.exact.cut < self.n {
            true => format!(
                " from both ends (cut at layer {}; {} bottom-up alone)",
                self.exact.cut,
                big(f(&self.exact.bottom_up_limb_additions))
            ),
            false => String::new(),
        };
        // from a plan bounded, not counted, the memory is an upper bound too
        let memory = match self.plan.counted {
            true => format!("{} of memory", human_bytes(self.exact.memory_bytes)),
            false => format!(
                "at most {} of memory (from the plan's bound; --census measures it)",
                human_bytes(self.exact.memory_bytes)
            ),
        };
        writeln!(
            out,
            "  count     {} limb additions{route}, {memory}{}, {} CPU, {} on {threads}",
            big(f(&self.exact.limb_additions)),
            if self.exact.fits_here { "" } else { " (more than this machine has: count would refuse)" },
            range(self.exact.cpu_seconds, self.exact.cpu_seconds_high),
            range(self.exact.seconds, self.exact.seconds_high)
        )?;
        writeln!(
            out,
            "  residues  {} primes below 2^62; a prime: {} lane operations, {} of arrays, {} CPU",
            self.primes,
            big(f(&self.residues.prime_lanes)),
            human_bytes(self.residues.prime_memory_bytes),
            range(self.residues.prime_cpu_seconds, self.residues.prime_cpu_seconds_high)
        )?;
        // verify of a residue: the modular engine modulo M and the check modulus beside it, each at
        // most a prime's sweep
        writeln!(
            out,
            "  verify    a residue modulo M < 2^63: at most {} CPU (the modular engine, M and its check modulus)",
            range(self.residues.verify_cpu_seconds, self.residues.verify_cpu_seconds_high)
        )?;
        self.shards_and_combine(out, &threads)?;
        self.calibration.human(out)
    }
}

impl EstimateOut {
    /// The shards' table and the combine line of the human form, for `threads` ("2 threads").
    fn shards_and_combine(&self, out: &mut dyn Write, threads: &str) -> std::io::Result<()> {
        writeln!(
            out,
            "  shards    {:>8} {:>13} {:>13} {:>20} {:>20}",
            "S", "primes each", "memory each", "time each", "CPU in all"
        )?;
        for s in &self.shards {
            writeln!(
                out,
                "            {:>8} {:>13} {:>13} {:>20} {:>20}",
                s.shards,
                s.primes_per_shard,
                human_bytes(s.memory_bytes),
                range(s.seconds, s.seconds_high),
                range(s.cpu_seconds, s.cpu_seconds_high)
            )?;
        }
        writeln!(
            out,
            "  combine   {} on {threads}: Garner's algorithm {}, then the direct checks mod 10^18, 998244353 and a drawn prime",
            range(self.combine.seconds, self.combine.seconds_high),
            range(self.combine.garner_seconds, self.combine.garner_seconds_high)
        )?;
        Ok(())
    }
}

impl Calibration {
    /// The calibration's lines of the human form.
    fn human(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let c = self;
        writeln!(
            out,
            "calibrated on one thread's CPU time, from the fastest run to the slowest: the exact engine at {:.2} to {:.2} \
             limb additions/ns, the residues' sweep at {:.2} to {:.2} lane operations/ns",
            c.exact_limbs_per_ns, c.exact_limbs_per_ns_low, c.residue_lanes_per_ns, c.residue_lanes_per_ns_low
        )?;
        writeln!(
            out,
            "the exact engine's time, in its fastest runs: {:.2} ns a state and {:.3} ns a limb addition, the second \
             times {:.2} for the width of this count's layers",
            c.exact_ns_per_state, c.exact_ns_per_limb, c.width_factor
        )?;
        writeln!(
            out,
            "the calibration had {:.0}% of a core; the times are for threads that have their cores (sharing them, a \
             run takes longer in proportion)",
            100.0 * c.core_share.min(1.0)
        )
    }
}

pub(super) fn estimate(args: EstimateArgs) -> crate::error::Result<ExitCode> {
    let mut session = Session::new(args.output.output.as_deref(), args.threads.threads, false)?;
    let census = if args.census { CensusWhen::Always } else { CensusWhen::Auto };
    let shards = if args.shards.is_empty() { vec![1, 64, 1024] } else { args.shards.clone() };
    let e = session.compute(|hooks, _| {
        Ok(estimate::estimate(args.target.n, args.target.g, &shards, census, hooks).map_err(fibtree::Error::from)?)
    })?;
    let out = EstimateOut::new(&e, fibtree::isa().to_string(), session.threads());
    session.emit(&out, OutputForm::of(args.json, false))?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_is_printed_from_its_figure_to_the_top_of_its_range() {
        assert_eq!(range(1706.0, 2590.0), "28m 26s to 43m 10s");
        assert_eq!(range(0.5, 0.75), "0.50s to 0.75s");
        // both ends the same as printed: one time
        assert_eq!(range(1706.0, 1706.4), "28m 26s");
        assert_eq!(range(0.0, 0.0), "0.00s");
    }
}
