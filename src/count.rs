//! `fibtree count`: the exact c(N, G) with its projections, each checked; `--mod-only`: the residues
//! alone.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use fibtree::Halves;
use fibtree::{Checkpoint, Counting, Cut, LAST18, ModReport, Options, P998244353};
use fibtree_util::human_bytes;
use serde::Serialize;

use super::args::CountArgs;
use super::output::distinct;
use super::session::{Outcome, OutputForm, Session};
use crate::checked::{Counted, emit_checked, title};
use crate::messages::say;

/// `count --verbose`: the run's memory estimate and its kernel set on stderr.
///
/// # Errors
/// The library's error for an invalid `FIBTREE_ISA` (which the command line checked at its start).
fn say_estimate(verbose: bool, estimate: u64, limit: fibtree::Limit) -> fibtree::Result<()> {
    if verbose {
        say(&format!("memory estimate {} (limit {})", human_bytes(estimate), human_bytes(limit.bytes())));
        say(&format!("kernel {}", crate::machine::kernel_line()));
    }
    Ok(())
}

/// How `count --verbose` says which way the exact value is counted: from both ends with the cut and
/// each half's work, or bottom-up alone.
fn route_line(halves: Option<Halves>) -> String {
    let work = |w: u128| format!("{:.3e}", w as f64);
    match halves {
        Some(s) if s.both_ends() => format!(
            "route from both ends, cut at layer {}: {} limb additions bottom-up to it + {} top-down above it \
             = {} ({:.3} of bottom-up alone's {})",
            s.cut,
            work(s.below),
            work(s.above),
            work(s.work()),
            s.work() as f64 / s.bottom_up.max(1) as f64,
            work(s.bottom_up)
        ),
        Some(s) => format!("route bottom-up alone: {} limb additions", work(s.bottom_up)),
        None => "route bottom-up alone (another engine, or nothing to count)".to_string(),
    }
}

/// Says on stderr, once each, the `--mod` moduli the report lists once only: a default projection
/// (10^18, 998244353) or one given again.
fn say_repeated_moduli(moduli: &[u64]) {
    for (i, &m) in moduli.iter().enumerate() {
        if moduli[..i].contains(&m) {
            continue;
        }
        if m == LAST18 || m == P998244353 {
            say(&format!("note: --mod {m} is a default projection (mod 10^18 and 998244353 always are); listed once"));
        } else if moduli[i + 1..].contains(&m) {
            say(&format!("note: --mod {m} is given more than once; listed once"));
        }
    }
}

pub(super) fn count(args: CountArgs) -> crate::error::Result<ExitCode> {
    #[cfg(feature = "test-hooks")]
    assert!(!args.test_panic, "a panic asked for by --test-panic");
    say_repeated_moduli(&args.moduli);
    if args.mod_only {
        return count_mod_only(args);
    }
    let form = OutputForm::of(args.json, args.quiet);
    let output = args.run.output.output.as_deref();
    distinct(&[("--checkpoint", args.checkpoint.as_deref()), ("--output", output)])?;
    let mut session = Session::new(output, args.run.threads.threads, form == OutputForm::Human)?;
    let limit = args.run.memory_limit();
    let checkpoint = args.checkpoint.as_ref().map(|path| Checkpoint {
        path: path.clone(),
        every: Duration::from_secs(args.checkpoint_every),
        fresh: args.fresh,
        keep: args.keep_checkpoint,
    });
    let options = Options {
        moduli: args.moduli.clone(),
        memory_limit: Some(limit),
        engine: args.run.engine,
        double_check: args.double_check,
        checkpoint,
        cut: args.cut.map_or(Cut::Auto, Cut::At),
        ..Options::default()
    };
    // the runs the library reports, by their names: the residues, the exact value, and with
    // --double-check the exact value again; one progress bar covers them all
    session.expect_runs(if args.double_check { &["modular", "exact", "exact"] } else { &["modular", "exact"] });
    let targets = [(args.target.n, args.target.g)];
    let report = session.compute(|hooks, _| {
        let options = Options { hooks, ..options };
        let counting = Counting::new(&targets, &options)?;
        say_estimate(args.verbose, counting.memory_estimate_bytes(), limit)?;
        if args.verbose {
            say(&route_line(counting.halves()));
        }
        let mut report = None;
        counting.for_each(|_, r| {
            report = Some(r);
            Ok(())
        })?;
        Ok(report.expect("the one target is reported"))
    })?;
    #[cfg(feature = "test-hooks")]
    let report = super::hooks::perturbed(report, args.test_perturb);
    let counted = Counted::new(&report, session.threads(), session.seconds());
    let status = emit_checked(&mut session, &report, counted, form)?;
    if args.verbose
        && let Some(peak) = crate::os::peak_memory()
    {
        let estimate = human_bytes(report.memory_estimate_bytes);
        say(&format!("memory peak {} (estimate {estimate})", human_bytes(peak)));
    }
    Ok(status)
}

/// `count --mod-only`'s result (fields in alphabetical order, as the JSON lists them).
#[derive(Serialize)]
struct Residues {
    #[serde(serialize_with = "super::json::int")]
    g: u64,
    last18: Option<String>,
    memory_estimate_bytes: u64,
    mod_998244353: Option<String>,
    mod_only: bool,
    n: u64,
    residues: Vec<ResidueOut>,
    seconds: f64,
    threads: usize,
}

/// One residue as `count --mod-only --json` gives it.
#[derive(Serialize)]
struct ResidueOut {
    modulus: String,
    residue: String,
}

impl Residues {
    fn new(report: &ModReport, threads: usize, seconds: f64) -> Residues {
        let residue = |m: u64| report.residues.iter().find(|r| r.0 == m).map(|r| r.1.to_string());
        Residues {
            g: report.g,
            last18: residue(LAST18),
            memory_estimate_bytes: report.memory_estimate_bytes,
            mod_998244353: residue(P998244353),
            mod_only: true,
            n: report.n,
            residues: report
                .residues
                .iter()
                .map(|&(modulus, residue)| ResidueOut { modulus: modulus.to_string(), residue: residue.to_string() })
                .collect(),
            seconds,
            threads,
        }
    }
}

impl Outcome for Residues {
    fn human(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let (n, g) = (self.n, self.g);
        writeln!(out, "{}; residues only, the exact value was not computed", title(n, g))?;
        for r in &self.residues {
            writeln!(out, "c({n}, {g}) mod {} = {}", r.modulus, r.residue)?;
        }
        Ok(())
    }

    fn quiet(&self, out: &mut dyn Write) -> std::io::Result<()> {
        self.residues.iter().try_for_each(|r| writeln!(out, "{}", r.residue))
    }
}

/// `count --mod-only`: the residues by the modular engine alone, in the same three forms as `count`.
fn count_mod_only(args: CountArgs) -> crate::error::Result<ExitCode> {
    let form = OutputForm::of(args.json, args.quiet);
    let mut session =
        Session::new(args.run.output.output.as_deref(), args.run.threads.threads, form == OutputForm::Human)?;
    let limit = args.run.memory_limit();
    let report = session.compute(|hooks, _| {
        let options = Options { moduli: args.moduli.clone(), memory_limit: Some(limit), hooks, ..Options::default() };
        let report = fibtree::mod_only(&[(args.target.n, args.target.g)], &options)?.remove(0);
        say_estimate(args.verbose, report.memory_estimate_bytes, limit)?;
        Ok(report)
    })?;
    let residues = Residues::new(&report, session.threads(), session.seconds());
    session.emit(&residues, form)?;
    Ok(ExitCode::SUCCESS)
}
