//! The checked report of an exact count, as `count` and `combine` write it: the value with its
//! projections and parity, each checked ([`Counted`]), written only where every check agreed
//! ([`emit_checked`]).

use std::io::Write;
use std::process::ExitCode;

use fibtree::{LAST18, P998244353, Report};
use serde::Serialize;

use crate::messages::say;
use crate::session::{Outcome, OutputForm, Session};

/// `count`'s result (fields in alphabetical order, as the JSON lists them).
#[derive(Serialize)]
pub(crate) struct Counted {
    digits: usize,
    double_check: Option<bool>,
    #[serde(serialize_with = "crate::json::int")]
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
    pub(crate) fn new(report: &Report, threads: usize, seconds: f64) -> Counted {
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
pub(crate) fn last_18_digits(value: &str) -> String {
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
pub(crate) fn title(n: u64, g: u64) -> String {
    if g == 0 {
        format!("c({n}, 0) = f({n}): the winning first moves of T({n})")
    } else {
        format!("c({n}, {g}): the first moves of T({n}) that leave Grundy value {g}")
    }
}

/// Prints the loud message for each projection of `report` that disagrees (the parity's too); true
/// when all agree.
fn all_agree(report: &Report) -> bool {
    for failure in report.failures() {
        say(&format!("error: {failure}"));
    }
    report.ok()
}

/// Writes the exact count of `report` (as `counted`, in `form`) where every check agreed, and gives
/// exit status 0; where one failed (a projection, the parity, the double check), nothing where the
/// results go: the report on standard error with its value withheld, each failure said loudly, exit
/// status 1. So no value that failed a check reaches standard output or a file.
///
/// # Errors
/// Any I/O error writing the results.
pub(crate) fn emit_checked(
    session: &mut Session,
    report: &Report,
    mut counted: Counted,
    form: OutputForm,
) -> crate::error::Result<ExitCode> {
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
