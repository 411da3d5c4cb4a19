//! `fibtree bench`: the exact engine's time and throughput for each n and thread count, every run
//! checked, and that throughput as a fraction of one core's streaming add (the work is in
//! `fibtree::bench`).

use std::io::Write;
use std::process::ExitCode;

pub(super) mod stream;
pub(super) mod timing;

use fibtree::{Cut, Halves, Param};
use fibtree_core::{Isa, Summary};
use timing::{Caches, DEFAULT_N, Level, Machine, Measurement, Stream, Subject, default_threads};
use fibtree_util::human_bytes;
use serde::Serialize;

use super::args::{BenchArgs, MAX_THREADS};
use super::flag;
use super::session::{Outcome, OutputForm, Session};

/// Which way a subject is counted, as the plan line says it: "from both ends (cut at layer 10044:
/// 4527... bottom-up + 4403... top-down; 1636... bottom-up alone)" or "bottom-up".
fn halves_line(halves: Halves) -> String {
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
struct Bench {
    /// How the kernel set was chosen, where it was measured (null where `FIBTREE_ISA` forced it).
    calibration: Option<CalibrationOut>,
    /// The kernel set every run used.
    kernel: &'static str,
    /// The kernel line of the human form ([`super::kernel_line`]).
    #[serde(skip)]
    kernel_line: String,
    machine: MachineOut,
    results: Vec<ResultOut>,
    /// One core's streaming add, measured once before the timed runs (`None`: no n was planned).
    stream: Option<StreamOut>,
    /// The header's stream lines ([`stream_lines`]; not in the JSON, which has `stream`).
    #[serde(skip)]
    stream_lines: Option<Vec<String>>,
    /// Each n's plan, for the table's heading (not in the JSON, whose rows repeat it).
    #[serde(skip)]
    plans: Vec<(u64, u64, u128, String)>,
}

#[derive(Serialize)]
struct MachineOut {
    cores: usize,
    cpu: Option<String>,
    /// The kernel sets this CPU runs, the narrowest first.
    kernels: Vec<&'static str>,
    /// What `FIBTREE_MACHINE` simulates, as given (`None`: this machine as it is).
    simulated: Option<&'static str>,
}

/// What the calibration of the exact engine's kernel set measured: each set's lane additions per
/// nanosecond, and the seconds it took.
#[derive(Serialize)]
struct CalibrationOut {
    rates: Vec<RateOut>,
    seconds: f64,
}

#[derive(Serialize)]
struct RateOut {
    kernel: &'static str,
    lane_additions_per_ns: f64,
}

/// The streaming add `a[i] = b[i] + c[i]` on one core at each level, and the caches that sized it.
#[derive(Serialize)]
struct StreamOut {
    caches: CachesOut,
    /// The kernel set the loop was compiled for.
    kernel: &'static str,
    l2: LevelOut,
    l3: LevelOut,
    memory: LevelOut,
}

#[derive(Serialize)]
struct CachesOut {
    l2_bytes: u64,
    l2_reported: bool,
    l3_bytes: u64,
    l3_reported: bool,
}

/// The rate at one level: `bytes` 0 and `adds_per_ns` null where it was skipped, `note` why.
#[derive(Serialize)]
struct LevelOut {
    adds_per_ns: Option<f64>,
    bytes: u64,
    note: Option<String>,
    wanted_bytes: u64,
}

impl StreamOut {
    fn of(stream: &Stream) -> StreamOut {
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
fn stream_lines(stream: &Stream) -> Vec<String> {
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
struct ResultOut {
    checked: bool,
    /// The layer where the count is cut between its halves (n: bottom-up alone).
    cut: u64,
    efficiency: Option<f64>,
    limb_additions: String,
    limb_additions_per_ns: f64,
    max_seconds: f64,
    median_seconds: f64,
    min_seconds: f64,
    n: u64,
    parallelism: f64,
    predicted: Vec<PredictedOut>,
    runs: Vec<f64>,
    serial_s: f64,
    span_s: f64,
    speedup: Option<f64>,
    states: u64,
    /// The limb additions per ns of each core used (the smaller of `threads` and the machine's
    /// cores) as a fraction of the streaming add's in L2 (`None`: not measured there).
    stream_fraction: Option<f64>,
    tasks: usize,
    threads: usize,
    work_s: f64,
}

/// The time a greedy scheduler would take on the row's graph with `threads` workers.
#[derive(Serialize)]
struct PredictedOut {
    seconds: f64,
    speedup: f64,
    threads: usize,
}

impl Outcome for Bench {
    fn human(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let cores =
            if self.machine.cores == 1 { "1 core".to_string() } else { format!("{} cores", self.machine.cores) };
        let simulated = self.machine.simulated.map_or(String::new(), |s| format!(" (simulated: {s})"));
        writeln!(out, "machine  {}, {cores}{simulated}", self.machine.cpu.as_deref().unwrap_or("unknown CPU"))?;
        writeln!(out, "kernel   {}", self.kernel_line)?;
        if let Some(lines) = &self.stream_lines {
            for (i, line) in lines.iter().enumerate() {
                writeln!(out, "{}{line}", if i == 0 { "stream   " } else { "         " })?;
            }
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

/// Ascending, repeats removed.
fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
    v.sort_unstable();
    v.dedup();
    v
}

pub(super) fn bench(args: BenchArgs) -> anyhow::Result<ExitCode> {
    // the trees are `--n`, one per measured f(n)
    let bench_flags = |param| if param == Param::N { "--n" } else { flag(param) };
    let machine = Machine::detect();
    let cores = machine.cores.max(1);
    let ns = sorted(if args.n.is_empty() { DEFAULT_N.to_vec() } else { args.n.clone() });
    let threads = sorted(if args.threads.is_empty() {
        default_threads(machine.cores).into_iter().filter(|&t| t as u64 <= MAX_THREADS).collect()
    } else {
        args.threads.clone()
    });
    // the most threads measured plan each n, and must start: a bench on fewer would mislead
    let most = threads.last().copied();
    let session = Session::new(args.output.output.as_deref(), most, false)?.naming(bench_flags);
    let mut session = session.requiring_threads();
    // the threads alive at once: the session's pool (the most threads, where the plans are made)
    // and a measurement's own pool beside it, each thread's stack in the address space
    let limit = args.memory.limit(most.map(|t| 2 * t));
    let cancel = session.cancel_flag();
    let hooks = fibtree::Hooks::default().cancel_on(&cancel);
    let say = |line: String| {
        if !args.no_progress {
            super::say(&line);
        }
    };
    let mut plans = Vec::new();
    let mut results = Vec::new();
    let mut stream: Option<Stream> = None;
    for &n in &ns {
        let cut = if args.bottom_up { Cut::At(n) } else { Cut::Auto };
        // planned in the session's pool, on the threads it could start
        let mut subject = session.in_pool(|| Subject::new(n, cut, limit, hooks))?;
        if let Some(lanes) = args.chunk_lanes {
            subject.force_chunk_lanes(lanes).map_err(|e| session.error(e))?;
        }
        if let Some(m) = args.test_perturb {
            subject.perturb(m);
        }
        let route = halves_line(subject.halves());
        say(format!("n={n}: {} states, {} limb additions {route}", subject.states(), subject.limb_additions()));
        plans.push((n, subject.states(), subject.limb_additions(), route));
        if stream.is_none() {
            // once, on this thread, after the first plan and before any timed run, beside the plan
            let kernel = fibtree_core::isa();
            let held = subject.held_bytes();
            let measured =
                Stream::measure(Caches::detect(), kernel, limit, held, hooks).map_err(|e| session.error(e))?;
            say(format!("stream: {}", stream_lines(&measured).join("; ")));
            stream = Some(measured);
        }
        let in_l2 = stream.as_ref().and_then(Stream::in_l2);
        let mut row: Vec<Measurement> = Vec::new();
        for &t in &threads {
            let measured = subject.measure(t, args.runs, hooks, |run, seconds| {
                say(format!("n={n} threads={t} run {run}/{} {seconds:.4} s", args.runs))
            });
            row.push(measured.map_err(|e| session.error(e))?);
        }
        let one = row.iter().find(|m| m.threads == 1).cloned();
        results.extend(row.into_iter().map(|m| {
            let speedup = one.as_ref().map(|one| m.speedup_over(one));
            let g = &m.graph;
            let predicted = g
                .predicted
                .iter()
                .map(|&(threads, seconds)| PredictedOut {
                    seconds,
                    speedup: g.predicted_speedup(threads).unwrap_or(1.0),
                    threads,
                })
                .collect();
            ResultOut {
                checked: true,
                cut: subject.halves().cut,
                efficiency: speedup.map(|s| s / m.threads as f64),
                limb_additions: m.limb_additions.to_string(),
                limb_additions_per_ns: m.limb_additions_per_ns(),
                max_seconds: m.max_seconds(),
                median_seconds: m.median_seconds(),
                min_seconds: m.min_seconds(),
                n: m.n,
                parallelism: g.parallelism,
                predicted,
                runs: m.seconds.clone(),
                serial_s: g.serial,
                span_s: g.span,
                speedup,
                states: subject.states(),
                stream_fraction: in_l2.map(|l2| m.limb_additions_per_ns() / m.threads.min(cores) as f64 / l2),
                tasks: g.tasks,
                threads: m.threads,
                work_s: g.work,
            }
        }));
    }
    let kernels = Isa::available().into_iter().map(Isa::name).collect();
    let simulated = super::machine::simulated();
    let machine = MachineOut { cores: machine.cores, cpu: machine.cpu, kernels, simulated };
    let kernel = fibtree_core::isa().name();
    let kernel_line = super::kernel_line();
    let calibration = fibtree_core::isa_choice().map(|c| CalibrationOut {
        rates: c.rates.iter().map(|&(k, rate)| RateOut { kernel: k.name(), lane_additions_per_ns: rate }).collect(),
        seconds: c.seconds,
    });
    let stream = stream.as_ref().map(|s| (StreamOut::of(s), stream_lines(s)));
    let (stream, stream_lines) = stream.unzip();
    let bench = Bench { calibration, kernel, kernel_line, machine, results, stream, stream_lines, plans };
    session.emit(&bench, OutputForm::of(args.json, false))?;
    Ok(ExitCode::SUCCESS)
}
