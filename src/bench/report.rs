//! What `fibtree bench` measured, as the table for people and as the JSON: one [`Bench`] of the
//! machine, the kernel set, the streaming rates and a row per (n, threads).

use std::io::Write;

use fibtree::Halves;
use fibtree::timing::Summary;

use super::timing::{Level, Stream};
use fibtree_util::human_bytes;
use serde::Serialize;

use super::super::session::Outcome;

/// Which way a subject is counted, as the plan line says it: "from both ends (cut at layer 10044:
/// 4527... bottom-up + 4403... top-down; 1636... bottom-up alone)" or "bottom-up".
pub(super) fn halves_line(halves: Halves) -> String {
    match halves.both_ends() {
        true => format!(
            "from both ends (cut at layer {}: {} bottom-up + {} top-down; {} bottom-up alone)",
            halves.cut, halves.below, halves.above, halves.bottom_up
        ),
        false => "bottom-up".to_string(),
    }
}

/// The measurements (fields in alphabetical order, as the JSON lists them).
#[derive(Serialize)]
pub(super) struct Bench {
    /// How the kernel set was chosen, where it was measured (null where `FIBTREE_ISA` forced it).
    pub(super) calibration: Option<CalibrationOut>,
    /// The kernel set every run used.
    pub(super) kernel: &'static str,
    /// The kernel line of the human form ([`crate::machine::kernel_line`]).
    #[serde(skip)]
    pub(super) kernel_line: String,
    pub(super) machine: HostOut,
    /// What `--pin` found (`None`: not asked for).
    pub(super) pin: Option<PinOut>,
    /// The header's pin lines ([`super::pin`]; not in the JSON, which has `pin`).
    #[serde(skip)]
    pub(super) pin_lines: Vec<String>,
    pub(super) results: Vec<ResultOut>,
    /// One core's streaming add, measured once before the timed runs (`None`: no n was planned).
    pub(super) stream: Option<StreamOut>,
    /// The header's stream lines ([`stream_lines`]; not in the JSON, which has `stream`).
    #[serde(skip)]
    pub(super) stream_lines: Option<Vec<String>>,
    /// Each n's plan, for the table's heading (not in the JSON, whose rows repeat it).
    #[serde(skip)]
    pub(super) plans: Vec<(u64, u64, u128, String)>,
}

#[derive(Serialize)]
pub(super) struct HostOut {
    pub(super) cores: usize,
    pub(super) cpu: Option<String>,
    /// The kernel sets this CPU runs, the narrowest first.
    pub(super) kernels: Vec<&'static str>,
    /// What `FIBTREE_MACHINE` simulates, as given (`None`: this machine as it is).
    pub(super) simulated: Option<&'static str>,
}

/// What `--pin` found: the CPUs the workers take, worker i the i-th, and why no row was pinned
/// any more, where something stopped it (the rows of more threads than CPUs are unpinned too).
#[derive(Serialize)]
pub(super) struct PinOut {
    pub(super) cpus: Vec<usize>,
    pub(super) failed: Option<String>,
}

/// What the calibration of the exact engine's kernel set measured: each set's lane additions per
/// nanosecond, and the seconds it took.
#[derive(Serialize)]
pub(super) struct CalibrationOut {
    pub(super) rates: Vec<RateOut>,
    pub(super) seconds: f64,
}

#[derive(Serialize)]
pub(super) struct RateOut {
    pub(super) kernel: &'static str,
    pub(super) lane_additions_per_ns: f64,
}

/// The streaming add `a[i] = b[i] + c[i]` on one core at each level, and the caches that sized it.
#[derive(Serialize)]
pub(super) struct StreamOut {
    pub(super) caches: CachesOut,
    /// The kernel set the loop was compiled for.
    pub(super) kernel: &'static str,
    pub(super) l2: LevelOut,
    pub(super) l3: LevelOut,
    pub(super) memory: LevelOut,
}

#[derive(Serialize)]
pub(super) struct CachesOut {
    pub(super) l2_bytes: u64,
    pub(super) l2_reported: bool,
    pub(super) l3_bytes: u64,
    pub(super) l3_reported: bool,
}

/// The rate at one level: `bytes` 0 and `adds_per_ns` null where it was skipped, `note` why.
#[derive(Serialize)]
pub(super) struct LevelOut {
    pub(super) adds_per_ns: Option<f64>,
    pub(super) bytes: u64,
    pub(super) note: Option<String>,
    pub(super) wanted_bytes: u64,
}

impl StreamOut {
    pub(super) fn of(stream: &Stream) -> StreamOut {
        let level = |level| {
            let r = stream.rate(level);
            LevelOut { adds_per_ns: r.adds_per_ns, bytes: r.bytes, note: r.note.clone(), wanted_bytes: r.wanted }
        };
        let c = stream.caches;
        StreamOut {
            caches: CachesOut {
                l2_bytes: c.l2,
                l2_reported: c.l2_reported,
                l3_bytes: c.l3,
                l3_reported: c.l3_reported,
            },
            kernel: stream.kernel.name(),
            l2: level(Level::L2),
            l3: level(Level::L3),
            memory: level(Level::Memory),
        }
    }
}

/// The header's stream line, `L2 (1.0 MiB) 3.95 adds/ns, L3 (8.0 MiB) 2.10 adds/ns, memory (1.0 GiB)
/// 0.85 adds/ns` (the three arrays' bytes; a level skipped: `memory skipped`), then a line for each
/// note and each cache not reported.
pub(super) fn stream_lines(stream: &Stream) -> Vec<String> {
    let figures: Vec<String> = stream
        .rates
        .iter()
        .map(|r| match r.adds_per_ns {
            // the size asked for, unless a limit made it smaller (the arrays' own bytes are within
            // a few cache lines of it)
            Some(rate) => {
                let bytes = if r.note.is_none() { r.wanted } else { r.bytes };
                format!("{} ({}) {rate:.2} adds/ns", r.level.name(), human_bytes(bytes))
            }
            None => format!("{} skipped", r.level.name()),
        })
        .collect();
    let mut lines = vec![figures.join(", ")];
    lines.extend(stream.rates.iter().filter_map(|r| Some(format!("{} {}", r.level.name(), r.note.as_deref()?))));
    let c = stream.caches;
    for (level, bytes, reported) in [("L2", c.l2, c.l2_reported), ("L3", c.l3, c.l3_reported)] {
        if !reported {
            lines.push(format!("no {level} cache reported: taken as {}", human_bytes(bytes)));
        }
    }
    lines
}

/// One (n, threads) row; `parallelism` to `work_s` describe the median run's task graph.
#[derive(Serialize)]
pub(super) struct ResultOut {
    pub(super) checked: bool,
    /// The CPUs the workers were pinned to, worker i to the i-th (`None`: not pinned).
    pub(super) cpus: Option<Vec<usize>>,
    /// The layer where the count is cut between its halves (n: bottom-up alone).
    pub(super) cut: u64,
    pub(super) efficiency: Option<f64>,
    pub(super) limb_additions: String,
    pub(super) limb_additions_per_ns: f64,
    pub(super) max_seconds: f64,
    pub(super) median_seconds: f64,
    pub(super) min_seconds: f64,
    pub(super) n: u64,
    pub(super) parallelism: f64,
    /// Whether each worker thread ran pinned to a CPU of its own (`--pin`).
    pub(super) pinned: bool,
    pub(super) predicted: Vec<PredictedOut>,
    pub(super) runs: Vec<f64>,
    pub(super) serial_s: f64,
    pub(super) span_s: f64,
    pub(super) speedup: Option<f64>,
    pub(super) states: u64,
    /// The limb additions per ns of each core used (the smaller of `threads` and the machine's
    /// cores) as a fraction of the streaming add's in L2 (`None`: not measured there).
    pub(super) stream_fraction: Option<f64>,
    pub(super) tasks: usize,
    pub(super) threads: usize,
    pub(super) work_s: f64,
}

/// The time a greedy scheduler would take on the row's graph with `threads` workers.
#[derive(Serialize)]
pub(super) struct PredictedOut {
    pub(super) seconds: f64,
    pub(super) speedup: f64,
    pub(super) threads: usize,
}

impl Outcome for Bench {
    fn human(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let cores = fibtree_util::counted(self.machine.cores as u64, "core");
        let simulated = self.machine.simulated.map_or(String::new(), |s| format!(" (simulated: {s})"));
        writeln!(out, "machine  {}, {cores}{simulated}", self.machine.cpu.as_deref().unwrap_or("unknown CPU"))?;
        writeln!(out, "kernel   {}", self.kernel_line)?;
        if let Some(lines) = &self.stream_lines {
            for (i, line) in lines.iter().enumerate() {
                writeln!(out, "{}{line}", if i == 0 { "stream   " } else { "         " })?;
            }
        }
        for (i, line) in self.pin_lines.iter().enumerate() {
            writeln!(out, "{}{line}", if i == 0 { "pin      " } else { "         " })?;
        }
        for (n, states, limb_additions, route) in &self.plans {
            writeln!(out, "plan     n={n}: {states} states, {limb_additions} limb additions {route}")?;
        }
        writeln!(out)?;
        writeln!(
            out,
            "{:>8} {:>7} {:>10} {:>10} {:>10} {:>8} {:>10} {:>12} {:>9} {:>9} {:>9} {:>7} {:>9}",
            "n",
            "threads",
            "median s",
            "min s",
            "max s",
            "speedup",
            "efficiency",
            "limb adds/ns",
            "of stream",
            "work s",
            "span s",
            "par.",
            "pred. s"
        )?;
        for r in &self.results {
            let (speedup, efficiency) = match (r.speedup, r.efficiency) {
                (Some(s), Some(e)) => (format!("{s:.2}"), format!("{e:.2}")),
                _ => ("-".into(), "-".into()),
            };
            let fraction = r.stream_fraction.map_or_else(|| "-".into(), |f| format!("{f:.3}"));
            let predicted = match r.predicted.iter().find(|p| p.threads == r.threads) {
                Some(p) => format!("{:.4}", p.seconds),
                None => "-".into(),
            };
            writeln!(
                out,
                "{:>8} {:>7} {:>10.4} {:>10.4} {:>10.4} {speedup:>8} {efficiency:>10} {:>12.3} {fraction:>9} {:>9.4} \
                 {:>9.4} {:>7.1} {predicted:>9}",
                r.n,
                r.threads,
                r.median_seconds,
                r.min_seconds,
                r.max_seconds,
                r.limb_additions_per_ns,
                r.work_s,
                r.span_s,
                r.parallelism
            )?;
        }
        writeln!(out)?;
        writeln!(out, "predicted speedup of each row's task graph on P workers (greedy schedule + serial part)")?;
        let ps: Vec<String> = Summary::PREDICTED_THREADS.iter().map(|p| format!("{:>6}", format!("P={p}"))).collect();
        writeln!(out, "{:>8} {:>7} {}", "n", "threads", ps.join(" "))?;
        for r in &self.results {
            let speedups: Vec<String> = r.predicted.iter().map(|p| format!("{:>6.2}", p.speedup)).collect();
            writeln!(out, "{:>8} {:>7} {}", r.n, r.threads, speedups.join(" "))?;
        }
        Ok(())
    }
}
