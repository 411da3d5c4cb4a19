//! `fibtree bench`: the exact engine's time and throughput for each n and thread count, every run
//! checked, and that throughput as a fraction of one core's streaming add (the timing in
//! [`timing`], the yardstick in [`stream`]); the table and the JSON in [`report`], `--svg`'s plot in [`svg`], the exports in [`export`], `--pin` in
//! [`pin`], and `--compare`, two runs' files side by side with nothing run, in [`compare`].

use std::io::Write;
use std::process::ExitCode;

use fibtree::{Cut, Isa, Options, Param};
use timing::{Caches, DEFAULT_N, Host, Measurement, Stream, Subject, default_threads};

use super::args::{BenchArgs, MAX_THREADS};
use super::output::{Output, distinct};
use super::session::{OutputForm, Session};
use crate::terms::flag;

mod compare;
mod export;
mod pin;
mod report;
pub(super) mod stream;
mod svg;
pub(super) mod timing;

use pin::Pinning;
use report::{
    Bench, CalibrationOut, HostOut, PinOut, PredictedOut, RateOut, ResultOut, StreamOut, halves_line, stream_lines,
};

/// Ascending, repeats removed.
fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
    v.sort_unstable();
    v.dedup();
    v
}

/// `fibtree bench`: the measurements, or with `--compare` the comparison of two files.
///
/// # Errors
/// A refusal of a bad argument or file (before any run where it can be known then), a failed check
/// of a run, an I/O error writing the results.
pub(super) fn bench(args: BenchArgs) -> crate::error::Result<ExitCode> {
    if let Some([old, new]) = args.compare.as_deref() {
        compare::compare(&args, old, new)?;
        return Ok(ExitCode::SUCCESS);
    }
    // the trees are `--n`, one per measured f(n)
    let bench_flags = |param| if param == Param::N { "--n" } else { flag(param) };
    let machine = Host::detect();
    let cores = machine.cores.max(1);
    let ns = sorted(if args.n.is_empty() { DEFAULT_N.to_vec() } else { args.n.clone() });
    let threads = sorted(if args.threads.is_empty() {
        default_threads(machine.cores).into_iter().filter(|&t| t as u64 <= MAX_THREADS).collect()
    } else {
        args.threads.clone()
    });
    // the most threads measured plan each n, and must start: a bench on fewer would mislead
    let most = threads.last().copied();
    // the plot's and the exports' files are checked before any run, so that a bad path fails at once
    distinct(&[
        ("--output", args.output.output.as_deref()),
        ("--svg", args.svg.as_deref()),
        ("--export-csv", args.export_csv.as_deref()),
        ("--export-markdown", args.export_markdown.as_deref()),
    ])?;
    let session = Session::new(args.output.output.as_deref(), most, false)?.naming(bench_flags);
    let mut session = session.requiring_threads();
    let files = Files::open(&args)?;
    let mut pinning = args.pin.then(Pinning::new);
    // the threads alive at once: the session's pool (the most threads, where the plans are made)
    // and a measurement's own pool beside it, each thread's stack in the address space
    let limit = args.memory.limit(most.map(|t| 2 * t));
    let cancel = session.cancel_flag();
    let hooks = fibtree::Hooks::default().cancel_on(&cancel);
    // progress lines, which -q silences
    let say = |line: String| crate::messages::note(&line);
    let mut plans = Vec::new();
    let mut results = Vec::new();
    let mut stream: Option<Stream> = None;
    for &n in &ns {
        let cut = if args.bottom_up { Cut::At(n) } else { Cut::Auto };
        // planned in the session's pool, on the threads it could start
        let options = Options { cut, memory_limit: Some(limit), hooks, ..options(&args) };
        let mut subject = session.in_pool(|| Subject::new(n, &options))?;
        #[cfg(feature = "test-hooks")]
        if let Some(m) = args.test_perturb {
            // the tests' perturbed residue, which every run then fails
            subject.perturb(m);
        }
        let route = halves_line(subject.halves());
        say(format!("n={n}: {} states, {} limb additions {route}", subject.states(), subject.limb_additions()));
        plans.push((n, subject.states(), subject.limb_additions(), route));
        if stream.is_none() {
            // once, on this thread, after the first plan and before any timed run, beside the plan
            let kernel = fibtree::isa();
            let held = subject.held_bytes();
            let measured =
                Stream::measure(Caches::detect(), kernel, limit, held, hooks).map_err(|e| session.error(e))?;
            say(format!("stream: {}", stream_lines(&measured).join("; ")));
            stream = Some(measured);
        }
        let in_l2 = stream.as_ref().and_then(Stream::in_l2);
        let mut row: Vec<(Measurement, Option<Vec<usize>>)> = Vec::new();
        for &t in &threads {
            let pins = pinning.as_mut().and_then(|p| p.arm(&mut subject, t));
            let measured = subject.measure(t, args.runs, hooks, |run, seconds| {
                say(format!("n={n} threads={t} run {run}/{} {seconds:.4} s", args.runs))
            });
            let cpus = pinning.as_mut().and_then(|p| p.settle(&mut subject, pins));
            row.push((measured.map_err(|e| session.error(e))?, cpus));
        }
        let one = row.iter().find(|m| m.0.threads == 1).map(|m| m.0.clone());
        let subject = &subject;
        results.extend(row.into_iter().map(|(m, cpus)| {
            let speedup = one.as_ref().map(|one| m.speedup_over(one));
            result_out(&m, cpus, speedup, subject, in_l2, cores)
        }));
    }
    let bench = assemble(machine, stream.as_ref(), pinning.as_ref(), results, plans);
    // the plot and exports first: a reader that closes the output pipe early (exit 0) still gets them
    files.write(&bench)?;
    session.emit(&bench, OutputForm::of(args.json, false))?;
    Ok(ExitCode::SUCCESS)
}

/// The options of a count that `args` sets: the chunks' lanes and the tiles.
fn options(args: &BenchArgs) -> Options<'static> {
    Options { chunk_lanes: args.chunk_lanes, tiles: args.tiles, ..Options::default() }
}

/// The files bench writes beside its report, each opened before any run: the plot (`--svg`) and
/// the exports (`--export-csv`, `--export-markdown`).
struct Files {
    svg: Option<Output>,
    csv: Option<Output>,
    markdown: Option<Output>,
}

impl Files {
    /// Opens the files `args` names.
    ///
    /// # Errors
    /// A refusal naming the flag of a file that cannot be written.
    fn open(args: &BenchArgs) -> crate::error::Result<Files> {
        let open = |path: Option<&std::path::Path>, flag| path.map(|path| Output::open(Some(path), flag)).transpose();
        Ok(Files {
            svg: open(args.svg.as_deref(), "--svg")?,
            csv: open(args.export_csv.as_deref(), "--export-csv")?,
            markdown: open(args.export_markdown.as_deref(), "--export-markdown")?,
        })
    }

    /// Writes each file, whole, from `bench`.
    ///
    /// # Errors
    /// An I/O error writing one.
    fn write(self, bench: &Bench) -> crate::error::Result<()> {
        let writers =
            [(self.svg, svg::bench_svg as fn(&_) -> _), (self.csv, export::csv), (self.markdown, export::markdown)];
        for (file, text) in writers {
            if let Some(mut file) = file {
                file.write_all(text(bench).as_bytes())?;
                file.finish()?;
            }
        }
        Ok(())
    }
}

/// One measurement as `bench --json` gives it: `m` of `subject`, on the CPUs `cpus` where pinned,
/// `speedup` over one thread, and its rate against the stream's in L2 (`in_l2`) on `cores` cores.
fn result_out(
    m: &Measurement,
    cpus: Option<Vec<usize>>,
    speedup: Option<f64>,
    subject: &Subject,
    in_l2: Option<f64>,
    cores: usize,
) -> ResultOut {
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
        pinned: cpus.is_some(),
        cpus,
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
}

/// The whole bench: the machine, the kernel set and its calibration, the stream, the pinning, and
/// each n's plan and measurements.
fn assemble(
    machine: Host,
    stream: Option<&Stream>,
    pinning: Option<&Pinning>,
    results: Vec<ResultOut>,
    plans: Vec<(u64, u64, u128, String)>,
) -> Bench {
    let kernels = Isa::available().into_iter().map(Isa::name).collect();
    let simulated = super::machine::simulated();
    let machine = HostOut { cores: machine.cores, cpu: machine.cpu, kernels, simulated };
    let kernel = fibtree::isa().name();
    let kernel_line = crate::machine::kernel_line();
    let calibration = fibtree::isa_choice().map(|c| CalibrationOut {
        rates: c.rates.iter().map(|&(k, rate)| RateOut { kernel: k.name(), lane_additions_per_ns: rate }).collect(),
        seconds: c.seconds,
    });
    let stream = stream.map(|s| (StreamOut::of(s), stream_lines(s)));
    let (stream, stream_lines) = stream.unzip();
    let (pin, pin_lines) = pinning.map(pin_report).unzip();
    let pin_lines = pin_lines.unwrap_or_default();
    Bench { calibration, kernel, kernel_line, machine, pin, pin_lines, results, stream, stream_lines, plans }
}

/// What `--pin` found, for the JSON and for the header's lines: the CPUs in the order the workers
/// took them, and which rows were not pinned, and why.
fn pin_report(pinning: &Pinning) -> (PinOut, Vec<String>) {
    let cpus = pinning.cpus();
    let mut lines = Vec::new();
    if !cpus.is_empty() {
        lines.push(format!(
            "worker i on the i-th of these CPUs: {} (those this process may run on, one of each core first)",
            pin::listed(cpus)
        ));
    }
    let too_many = pinning.too_many();
    if !too_many.is_empty() {
        let counts: Vec<String> = too_many.iter().map(usize::to_string).collect();
        lines.push(format!(
            "not pinned: the rows of {} threads, more than the {}",
            counts.join(", "),
            fibtree_util::counted(cpus.len() as u64, "CPU")
        ));
    }
    if let Some(why) = pinning.failed() {
        lines.push(format!("not pinned, from the first row that failed on: {why}"));
    }
    (PinOut { cpus: cpus.to_vec(), failed: pinning.failed().map(str::to_string) }, lines)
}
