//! `fibtree bench`: the exact engine's time and throughput for each n and thread count, every run
//! checked (the work is in `fibtree::bench`).

use std::io::Write;
use std::process::ExitCode;

use serde_json::json;

use fibtree::bench::{DEFAULT_N, Machine, Measurement, Subject, default_threads};
use fibtree::{Error, Hooks};

use super::output::{Output, Signals};
use super::{BenchArgs, MAX_THREADS};

/// One n's plan and its measurements, in ascending thread count.
struct Row {
    n: u64,
    states: u64,
    limb_additions: u128,
    measurements: Vec<Measurement>,
}

pub fn bench(args: BenchArgs) -> anyhow::Result<ExitCode> {
    let mut out = Output::open(args.output.output.as_deref())?;
    let machine = Machine::detect();
    let ns = sorted(if args.n.is_empty() { DEFAULT_N.to_vec() } else { args.n.clone() });
    let threads = sorted(if args.threads.is_empty() {
        default_threads(machine.cores).into_iter().filter(|&t| t as u64 <= MAX_THREADS).collect()
    } else {
        args.threads.clone()
    });
    let limit = args.max_memory.unwrap_or_else(fibtree::report::available_memory);
    let signals = Signals::install()?;
    let hooks = Hooks { cancel: Some(&signals.cancel), progress: None };
    let say = |line: String| {
        if !args.quiet {
            eprintln!("{line}");
        }
    };
    let measured = ns
        .iter()
        .map(|&n| {
            let mut subject = Subject::new(n, limit, hooks)?;
            if let Some(m) = args.test_perturb {
                subject.perturb(m);
            }
            say(format!("n={n}: {} states, {} limb additions", subject.states(), subject.limb_additions()));
            let measurements = threads
                .iter()
                .map(|&t| {
                    subject.measure(t, args.runs, hooks, |run, seconds| {
                        say(format!("n={n} threads={t} run {run}/{} {seconds:.4} s", args.runs))
                    })
                })
                .collect::<fibtree::Result<Vec<_>>>()?;
            Ok(Row { n, states: subject.states(), limb_additions: subject.limb_additions(), measurements })
        })
        .collect::<fibtree::Result<Vec<_>>>();
    let rows = match measured {
        Err(Error::Interrupted) => return Err(signals.stopped().into()),
        other => other?,
    };
    if args.json {
        writeln!(out, "{}", to_json(&machine, &rows))?;
    } else {
        write_table(&mut out, &machine, &rows)?;
    }
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}

/// Ascending, repeats removed.
fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
    v.sort_unstable();
    v.dedup();
    v
}

/// The speedup and parallel efficiency of `m` over the 1-thread measurement of its row, if any.
fn scaling(row: &Row, m: &Measurement) -> Option<(f64, f64)> {
    let one = row.measurements.iter().find(|o| o.threads == 1)?;
    let speedup = m.speedup_over(one);
    Some((speedup, speedup / m.threads as f64))
}

fn machine_name(machine: &Machine) -> String {
    let cores = if machine.cores == 1 { "1 core".to_string() } else { format!("{} cores", machine.cores) };
    format!("{}, {cores}", machine.cpu.as_deref().unwrap_or("unknown CPU"))
}

fn write_table(out: &mut Output, machine: &Machine, rows: &[Row]) -> std::io::Result<()> {
    writeln!(out, "machine  {}", machine_name(machine))?;
    for row in rows {
        writeln!(out, "plan     n={}: {} states, {} limb additions", row.n, row.states, row.limb_additions)?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "{:>8} {:>7} {:>10} {:>10} {:>10} {:>8} {:>10} {:>12}",
        "n", "threads", "median s", "min s", "max s", "speedup", "efficiency", "limb adds/ns"
    )?;
    for row in rows {
        for m in &row.measurements {
            let (speedup, efficiency) = match scaling(row, m) {
                Some((s, e)) => (format!("{s:.2}"), format!("{e:.2}")),
                None => ("-".into(), "-".into()),
            };
            writeln!(
                out,
                "{:>8} {:>7} {:>10.4} {:>10.4} {:>10.4} {speedup:>8} {efficiency:>10} {:>12.3}",
                m.n,
                m.threads,
                m.median_seconds(),
                m.min_seconds(),
                m.max_seconds(),
                m.limb_additions_per_ns()
            )?;
        }
    }
    Ok(())
}

fn to_json(machine: &Machine, rows: &[Row]) -> serde_json::Value {
    let results: Vec<serde_json::Value> = rows
        .iter()
        .flat_map(|row| {
            row.measurements.iter().map(move |m| {
                let scaling = scaling(row, m);
                json!({
                    "n": m.n,
                    "threads": m.threads,
                    "runs": m.seconds,
                    "median_seconds": m.median_seconds(),
                    "min_seconds": m.min_seconds(),
                    "max_seconds": m.max_seconds(),
                    "speedup": scaling.map(|s| s.0),
                    "efficiency": scaling.map(|s| s.1),
                    "states": row.states,
                    "limb_additions": m.limb_additions.to_string(),
                    "limb_additions_per_ns": m.limb_additions_per_ns(),
                    "checked": true,
                })
            })
        })
        .collect();
    json!({
        "machine": {"cpu": machine.cpu, "cores": machine.cores},
        "results": results,
    })
}
