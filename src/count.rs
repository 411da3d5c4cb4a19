//! `fibtree count`: the exact c(N, G) with its projections, each checked; `--mod-only`: the residues
//! alone.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use fibtree::{Checkpoint, Counting, Cut, LAST18, ModReport, Options, P998244353, Report};
use fibtree_core::Halves;
use fibtree_util::human_bytes;
use serde::Serialize;

use super::args::CountArgs;
use super::output::distinct;
use super::say;
use super::session::{Outcome, OutputForm, Session};

/// `count`'s result (fields in alphabetical order, as the JSON lists them).
#[derive(Serialize)]
pub(super) struct Counted {
    digits: usize,
    double_check: Option<bool>,
    #[serde(serialize_with = "super::json::int")]
    g: u64,
    last18: Option<String>,
    memory_estimate_bytes: u64,
    mod_998244353: Option<String>,
    n: u64,
    ok: bool,
    parity: ParityOut,
    projections: Vec<ProjectionOut>,
    seconds: f64,
    threads: usize,
    value: String,
    /// Whether the value is withheld from the human form: it failed a check, and only the report
    /// on standard error shows the run.
    #[serde(skip)]
    withheld: bool,
}

/// One projection as `count --json` gives it.
#[derive(Serialize)]
struct ProjectionOut {
    agrees: bool,
    independent: String,
    modulus: String,
    residue: String,
}

/// The parity as `count --json` gives it: the exact value's (`residue`) and the closed form's.
#[derive(Serialize)]
struct ParityOut {
    agrees: bool,
    closed_form: u8,
    residue: u8,
}

impl Counted {
    pub(super) fn new(report: &Report, threads: usize, seconds: f64) -> Counted {
        let value = report.value.to_str_radix(10);
        let residue = |m: u64| report.projection(m).map(|p| p.residue.to_string());
        Counted {
            digits: value.len(),
            double_check: report.double_check,
            g: report.g,
            last18: Some(last_18_digits(&value)),
            memory_estimate_bytes: report.memory_estimate_bytes,
            mod_998244353: residue(P998244353),
            n: report.n,
            ok: report.ok(),
            parity: ParityOut {
                agrees: report.parity.agrees(),
                closed_form: report.parity.closed_form,
                residue: report.parity.residue,
            },
            projections: report
                .projections
                .iter()
                .map(|p| ProjectionOut {
                    agrees: p.agrees(),
                    independent: p.independent.to_string(),
                    modulus: p.modulus.to_string(),
                    residue: p.residue.to_string(),
                })
                .collect(),
            seconds,
            threads,
            value,
            withheld: false,
        }
    }
}

/// The last 18 digits of the value whose decimal digits are `value`, as every form of `count` and
/// `table` gives them: the value itself where it has at most 18 digits (no zeros that are not its
/// digits), else its last 18 digits, zeros included (they are its digits). Cost O(1).
pub(super) fn last_18_digits(value: &str) -> String {
    value[value.len().saturating_sub(18)..].to_string()
}

impl Outcome for Counted {
    /// A label column as wide as its longest label, and a residue column as wide as its longest
    /// residue, so that a long `--mod` keeps the columns aligned.
    fn human(&self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "{}", title(self.n, self.g))?;
        let mut rows: Vec<(String, &str, &str)> = self
            .projections
            .iter()
            .map(|p| {
                let verdict =
                    if p.agrees { "agrees with the modular engine" } else { "DISAGREES with the modular engine" };
                match (p.modulus.parse::<u64>(), &self.last18) {
                    (Ok(LAST18), Some(last18)) => ("last 18 digits".to_string(), last18.as_str(), verdict),
                    _ => (format!("mod {}", p.modulus), p.residue.as_str(), verdict),
                }
            })
            .collect();
        let parity = if self.parity.residue == 1 { "odd" } else { "even" };
        let verdict =
            if self.parity.agrees { "agrees with the closed form of G" } else { "DISAGREES with the closed form of G" };
        rows.push(("parity".to_string(), parity, verdict));
        let label = rows.iter().map(|r| r.0.len()).chain([15]).max().unwrap_or(15);
        let residue = rows.iter().map(|r| r.1.len()).chain([20]).max().unwrap_or(20);
        writeln!(out, "{:<label$} {}", "digits", self.digits)?;
        for (name, value, verdict) in &rows {
            writeln!(out, "{name:<label$} {value:<residue$} {verdict}")?;
        }
        match self.withheld {
            true => writeln!(out, "{:<label$} withheld: it failed a check", "value")?,
            false => writeln!(out, "{:<label$} {}", "value", self.value)?,
        }
        if let Some(agree) = self.double_check {
            let word = if agree { "agrees" } else { "DISAGREES" };
            writeln!(out, "{:<label$} the other exact engine {word}", "double check")?;
        }
        Ok(())
    }

    fn quiet(&self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "{}", self.value)
    }
}

/// The first line of `count`'s human output: what c(n, g) counts.
fn title(n: u64, g: u64) -> String {
    if g == 0 {
        format!("c({n}, 0) = f({n}): the winning first moves of T({n})")
    } else {
        format!("c({n}, {g}): the first moves of T({n}) that leave Grundy value {g}")
    }
}

/// Prints the loud message for each projection of `report` that disagrees (the parity's too); true
/// when all agree.
pub(super) fn all_agree(report: &Report) -> bool {
    for failure in report.failures() {
        say(&format!("error: {failure}"));
    }
    report.ok()
}

/// `count --verbose`: the run's memory estimate and its kernel set on stderr.
///
/// # Errors
/// The library's error for an invalid `FIBTREE_ISA` (which the command line checked at its start).
fn say_estimate(verbose: bool, estimate: u64, limit: fibtree::Limit) -> fibtree::Result<()> {
    if verbose {
        say(&format!("memory estimate {} (limit {})", human_bytes(estimate), human_bytes(limit.bytes())));
        say(&format!("kernel {}", super::kernel_line()));
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

pub(super) fn count(args: CountArgs) -> anyhow::Result<ExitCode> {
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
        && let Some(peak) = peak_memory()
    {
        let estimate = human_bytes(report.memory_estimate_bytes);
        say(&format!("memory peak {} (estimate {estimate})", human_bytes(peak)));
    }
    Ok(status)
}

/// Writes the exact count of `report` (as `counted`, in `form`) where every check agreed, and gives
/// exit status 0; where one failed (a projection, the parity, the double check), nothing where the
/// results go: the report on standard error with its value withheld, each failure said loudly, exit
/// status 1. So no value that failed a check reaches standard output or a file.
///
/// # Errors
/// Any I/O error writing the results.
pub(super) fn emit_checked(
    session: &mut Session,
    report: &Report,
    mut counted: Counted,
    form: OutputForm,
) -> anyhow::Result<ExitCode> {
    if report.ok() && report.double_check != Some(false) {
        session.emit(&counted, form)?;
        return Ok(ExitCode::SUCCESS);
    }
    counted.withheld = true;
    session.emit_failed(&counted)?;
    if report.double_check == Some(false) {
        say(&format!("error: DOUBLE CHECK FAILED for c({}, {}): the two exact engines disagree", report.n, report.g));
    }
    all_agree(report);
    Ok(ExitCode::from(1))
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
fn count_mod_only(args: CountArgs) -> anyhow::Result<ExitCode> {
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

/// The peak resident memory of this process so far (`VmHWM` of `/proc/self/status`), where it can
/// be read: what `count --verbose` sets beside the estimate, and `dist --verbose` says. Cost: one read of a small file.
pub(super) fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse::<u64>().ok()?.checked_mul(1024)
}
