//! The command-line interface: its clap definition and what each command prints.

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::{Args, CommandFactory, Parser, Subcommand};
use serde_json::json;

use fibtree::report::{LAST18, P998244353};
use fibtree::{Error, Options, Report, brute};

/// Exact counts of the winning first moves of the Fibonacci tree game.
#[derive(Debug, Parser)]
#[command(name = "fibtree", version, about, long_about = None, subcommand_required = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// The exact count c(N, G) of moves in T(N) leading to Grundy value G (G = 0: winning moves),
    /// with its last 18 digits and residues checked against an independent modular computation.
    Count(CountArgs),
    /// The Grundy value G(K) of the Fibonacci tree T(K) (-1 for the empty tree T(0)).
    Grundy {
        /// The tree T(K).
        #[arg(value_name = "K", value_parser = parse_whole, allow_negative_numbers = true)]
        k: u64,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// The brute-force oracles' counts c(K, g): the explicit tree (K <= 30) and first principles (K <= 7).
    Brute {
        /// The tree T(K).
        #[arg(value_name = "K", value_parser = parse_whole, allow_negative_numbers = true)]
        k: u64,
        /// Only this Grundy value.
        #[arg(long, value_name = "G", value_parser = parse_whole, allow_negative_numbers = true)]
        g: Option<u64>,
    },
}

#[derive(Debug, Args)]
struct CountArgs {
    /// The tree T(N).
    #[arg(value_name = "N", value_parser = parse_whole, allow_negative_numbers = true)]
    n: u64,
    /// Count the moves that leave Grundy value G.
    #[arg(long, value_name = "G", default_value_t = 0, value_parser = parse_whole, allow_negative_numbers = true)]
    g: u64,
    /// Also project onto modulus M and check it (2 <= M < 2^63; 10^18 and 1e18 forms accepted); repeatable.
    #[arg(long = "mod", value_name = "M", value_parser = parse_modulus, allow_negative_numbers = true)]
    moduli: Vec<u64>,
    /// Worker threads (default: all cores). The answer is the same for every count.
    #[arg(long, value_name = "T", value_parser = parse_threads)]
    threads: Option<usize>,
    /// Print one JSON object.
    #[arg(long, conflicts_with = "quiet")]
    json: bool,
    /// Print only the exact value.
    #[arg(short, long)]
    quiet: bool,
    /// Testing only: perturb the independent residue for this modulus.
    #[arg(long, hide = true, value_name = "M", value_parser = parse_whole)]
    test_perturb: Option<u64>,
}

/// A whole number in 0..2^64, in decimal digits only.
fn parse_whole(s: &str) -> Result<u64, String> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err("expected a whole number (decimal digits only)".into());
    }
    s.parse().map_err(|_| "expected a whole number below 2^64".into())
}

/// A modulus 2 <= M < 2^63, written as digits, `A^B` or `AeB`.
fn parse_modulus(s: &str) -> Result<u64, String> {
    let too_big = || "expected a modulus with 2 <= M < 2^63 (digits, A^B or AeB)".to_string();
    parse_modulus_forms(s)
        .ok()
        .filter(|m| (2..fibtree::modular::MODULUS_LIMIT).contains(m))
        .ok_or_else(too_big)
}

/// A number written as digits, `A^B` or `AeB` (A times ten to the B), if it fits in a `u64`.
fn parse_modulus_forms(s: &str) -> Result<u64, String> {
    let too_big = || "too large".to_string();
    if let Some((base, exp)) = s.split_once('^') {
        let exp = u32::try_from(parse_whole(exp)?).map_err(|_| too_big())?;
        parse_whole(base)?.checked_pow(exp).ok_or_else(too_big)
    } else if let Some((mantissa, exp)) = s.split_once(['e', 'E']) {
        let exp = u32::try_from(parse_whole(exp)?).map_err(|_| too_big())?;
        10u64
            .checked_pow(exp)
            .and_then(|p| parse_whole(mantissa).ok()?.checked_mul(p))
            .ok_or_else(too_big)
    } else {
        parse_whole(s)
    }
}

/// The most worker threads `--threads` accepts.
const MAX_THREADS: u64 = 1024;

/// A thread count from 1 to [`MAX_THREADS`].
fn parse_threads(s: &str) -> Result<usize, String> {
    match parse_whole(s)? {
        t @ 1..=MAX_THREADS => Ok(t as usize),
        _ => Err(format!("expected a thread count from 1 to {MAX_THREADS}")),
    }
}

/// Exit status for an error: 2 for bad input (including a run too large for memory), 1 otherwise.
pub fn exit_status(err: &anyhow::Error) -> u8 {
    match err.downcast_ref::<Error>() {
        Some(Error::InvalidArgument { .. } | Error::OutOfMemory { .. }) => 2,
        _ => 1,
    }
}

/// clap's usage error folded into one line: its message lines without the usage and the pointer to
/// `--help`.
fn one_line(rendered: &str) -> String {
    let parts: Vec<&str> = rendered
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:"))
        .filter(|l| !l.is_empty() && !l.starts_with("For more information"))
        .collect();
    let line = parts.join(" ");
    if line.starts_with("error:") {
        line
    } else {
        "error: bad arguments (see --help)".into()
    }
}

/// Parses the arguments and runs the command. Usage errors print one line and exit 2.
pub fn run(args: impl IntoIterator<Item = OsString>) -> anyhow::Result<ExitCode> {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            e.print()?;
            return Ok(ExitCode::SUCCESS);
        }
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let names: Vec<String> = Cli::command()
                .get_subcommands()
                .map(|c| c.get_name().to_string())
                .collect();
            eprintln!(
                "error: a command is required, one of: {} (see --help)",
                names.join(", ")
            );
            return Ok(ExitCode::from(2));
        }
        Err(e) => {
            eprintln!("{}", one_line(&e.render().to_string()));
            return Ok(ExitCode::from(2));
        }
    };
    match cli.command {
        Command::Count(args) => count(args),
        Command::Grundy { k, json } => grundy(k, json),
        Command::Brute { k, g } => brute(k, g),
    }
}

fn count(args: CountArgs) -> anyhow::Result<ExitCode> {
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("starting the thread pool")?;
    let options = Options {
        moduli: args.moduli.clone(),
        memory_limit: None,
        perturb: args.test_perturb,
    };
    let start = Instant::now();
    let report = pool.install(|| fibtree::count_report(args.n, args.g, &options))?;
    let seconds = start.elapsed().as_secs_f64();
    let value = report.value.to_str_radix(10);
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", count_json(&report, &value, threads, seconds))?;
    } else if args.quiet {
        writeln!(out, "{value}")?;
    } else {
        write_count_human(&mut out, &report, &value)?;
    }
    out.flush()?;
    if report.ok() {
        return Ok(ExitCode::SUCCESS);
    }
    for p in report.projections.iter().filter(|p| !p.agrees()) {
        eprintln!(
            "error: CROSS-CHECK FAILED for c({}, {}) mod {}: the exact value gives {}, the modular engine gives {}",
            report.n, report.g, p.modulus, p.residue, p.independent
        );
    }
    Ok(ExitCode::from(1))
}

fn verdict(agrees: bool) -> &'static str {
    if agrees {
        "agrees with the modular engine"
    } else {
        "DISAGREES with the modular engine"
    }
}

fn write_count_human(out: &mut impl Write, report: &Report, value: &str) -> std::io::Result<()> {
    let (n, g) = (report.n, report.g);
    if g == 0 {
        writeln!(out, "c({n}, 0) = f({n}): the winning first moves of T({n})")?;
    } else {
        writeln!(
            out,
            "c({n}, {g}): the first moves of T({n}) that leave Grundy value {g}"
        )?;
    }
    writeln!(out, "digits          {}", value.len())?;
    for p in &report.projections {
        let label = match p.modulus {
            LAST18 => "last 18 digits".to_string(),
            m => format!("mod {m}"),
        };
        let residue = if p.modulus == LAST18 {
            format!("{:018}", p.residue)
        } else {
            p.residue.to_string()
        };
        writeln!(out, "{label:<15} {residue:<20} {}", verdict(p.agrees()))?;
    }
    writeln!(out, "value           {value}")
}

fn count_json(report: &Report, value: &str, threads: usize, seconds: f64) -> serde_json::Value {
    let residue = |m: u64| report.projection(m).map(|p| p.residue.to_string());
    json!({
        "n": report.n,
        "g": report.g,
        "value": value,
        "digits": value.len(),
        "last18": residue(LAST18),
        "mod_998244353": residue(P998244353),
        "projections": report.projections.iter().map(|p| json!({
            "modulus": p.modulus.to_string(),
            "residue": p.residue.to_string(),
            "independent": p.independent.to_string(),
            "agrees": p.agrees(),
        })).collect::<Vec<_>>(),
        "ok": report.ok(),
        "threads": threads,
        "seconds": seconds,
        "memory_estimate_bytes": report.memory_estimate_bytes,
    })
}

fn grundy(k: u64, json: bool) -> anyhow::Result<ExitCode> {
    let value = fibtree::grundy(k)?.map_or(-1, |g| g as i128);
    if json {
        println!("{}", json!({ "k": k, "grundy": value }));
    } else {
        println!("{value}");
    }
    Ok(ExitCode::SUCCESS)
}

fn brute(k: u64, g: Option<u64>) -> anyhow::Result<ExitCode> {
    let too_large = || {
        Error::invalid(
            "K",
            format!(
                "at most {} for the explicit-tree oracle, got {k}",
                brute::MAX_EXPLICIT_K
            ),
        )
    };
    let k32 = u32::try_from(k).map_err(|_| too_large())?;
    let explicit = brute::explicit_tree_counts(k32)?;
    let first = (k32 <= brute::MAX_FIRST_PRINCIPLES_K)
        .then(|| brute::first_principles_counts(k32))
        .transpose()?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "g,explicit_tree,first_principles")?;
    let rows = match g {
        Some(g) => vec![g],
        None => (0..explicit.len().max(first.as_ref().map_or(0, Vec::len)) as u64).collect(),
    };
    for g in rows {
        let at = |v: &Vec<u64>| v.get(g as usize).copied().unwrap_or(0);
        let fp = first.as_ref().map_or(String::new(), |f| at(f).to_string());
        writeln!(out, "{g},{},{fp}", at(&explicit))?;
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_definition_is_valid() {
        Cli::command().debug_assert();
    }

    #[test]
    fn moduli_in_every_form() {
        assert_eq!(parse_modulus("1000000007"), Ok(1_000_000_007));
        assert_eq!(parse_modulus("10^18"), Ok(LAST18));
        assert_eq!(parse_modulus("1e18"), Ok(LAST18));
        assert_eq!(parse_modulus("2^62"), Ok(1 << 62));
        for bad in [
            "0",
            "1",
            "2^63",
            "1e19",
            "-7",
            "x",
            "",
            "10^",
            "^3",
            "9223372036854775808",
        ] {
            assert!(parse_modulus(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn whole_numbers_only() {
        assert_eq!(parse_whole("0"), Ok(0));
        assert_eq!(parse_whole("18446744073709551615"), Ok(u64::MAX));
        for bad in ["-1", "+1", " 1", "1 ", "1.0", "18446744073709551616", "abc", ""] {
            assert!(parse_whole(bad).is_err(), "{bad}");
        }
        assert!(parse_threads("0").is_err());
        assert_eq!(parse_threads("4"), Ok(4));
    }
}
