//! The command-line interface: its clap definition, its parsers, and the dispatch to the commands.

mod commands;
mod output;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, CommandFactory, Parser, Subcommand};

use fibtree::Error;

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
    /// Check a claimed residue of c(N, G), or a CSV file of claims, against the exact value.
    Verify(VerifyArgs),
    /// The whole distribution c(N, g) over every g with a non-zero count, as CSV `g,count` or JSON.
    Dist(DistArgs),
    /// f(k) = c(k, 0) for every k from FROM to TO, in one pass: `k,digits,last18,mod_998244353,value`.
    Table(TableArgs),
    /// The Grundy value G(K) of the Fibonacci tree T(K) (-1 for the empty tree T(0)).
    Grundy {
        /// The tree T(K).
        #[arg(value_name = "K", value_parser = parse_whole, allow_negative_numbers = true)]
        k: u64,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        output: OutputArg,
    },
    /// The brute-force oracles' counts c(K, g): the explicit tree (K <= 30) and first principles (K <= 7).
    Brute {
        /// The tree T(K).
        #[arg(value_name = "K", value_parser = parse_whole, allow_negative_numbers = true)]
        k: u64,
        /// Only this Grundy value.
        #[arg(long, value_name = "G", value_parser = parse_whole, allow_negative_numbers = true)]
        g: Option<u64>,
        #[command(flatten)]
        output: OutputArg,
    },
}

/// Where the results go.
#[derive(Debug, Args)]
struct OutputArg {
    /// Write the results to FILE (atomically: a temporary file renamed when complete).
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
}

/// How a computation runs.
#[derive(Debug, Args)]
struct RunArgs {
    /// Worker threads (default: all cores). The answer is the same for every count.
    #[arg(long, value_name = "T", value_parser = parse_threads)]
    threads: Option<usize>,
    /// The exact engine: `blocked` (fast, in cache) or `reference` (whole values layer by layer).
    #[arg(long, value_enum, default_value_t = EngineArg::Blocked)]
    engine: EngineArg,
    #[command(flatten)]
    output: OutputArg,
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
    /// Print one JSON object.
    #[arg(long, conflicts_with = "quiet")]
    json: bool,
    /// Print only the exact value.
    #[arg(short, long)]
    quiet: bool,
    #[command(flatten)]
    run: RunArgs,
    /// Testing only: perturb the independent residue for this modulus.
    #[arg(long, hide = true, value_name = "M", value_parser = parse_whole)]
    test_perturb: Option<u64>,
}

/// The exact engines, as `--engine` names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum EngineArg {
    /// Blocks of layers one limb chunk at a time.
    Blocked,
    /// Whole values, layer by layer.
    Reference,
}

impl From<EngineArg> for fibtree::exact::Engine {
    fn from(e: EngineArg) -> Self {
        match e {
            EngineArg::Blocked => fibtree::exact::Engine::Blocked,
            EngineArg::Reference => fibtree::exact::Engine::Reference,
        }
    }
}

#[derive(Debug, Args)]
struct VerifyArgs {
    /// The tree T(N) of the claim.
    #[arg(value_name = "N", value_parser = parse_whole, allow_negative_numbers = true,
          required_unless_present = "claims", conflicts_with = "claims")]
    n: Option<u64>,
    /// The claimed residue.
    #[arg(long, value_name = "A", value_parser = parse_answer, allow_negative_numbers = true,
          required_unless_present = "claims", conflicts_with = "claims")]
    answer: Option<u128>,
    /// The claim's modulus, 2 <= M < 2^128 (digits, 10^18 or 1e18 forms).
    #[arg(long = "mod", value_name = "M", value_parser = parse_wide_modulus, allow_negative_numbers = true,
          conflicts_with_all = ["last_digits", "claims"])]
    modulus: Option<u128>,
    /// The claim is the last D digits (modulus 10^D, 1 <= D <= 38).
    #[arg(long, value_name = "D", value_parser = parse_last_digits, allow_negative_numbers = true,
          conflicts_with = "claims")]
    last_digits: Option<u32>,
    /// The Grundy value of the claim.
    #[arg(long, value_name = "G", default_value_t = 0, value_parser = parse_whole, allow_negative_numbers = true,
          conflicts_with = "claims")]
    g: u64,
    /// A CSV file of claims with the header `n,g,modulus,answer` (`-` for standard input).
    #[arg(long, value_name = "FILE")]
    claims: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, Args)]
struct DistArgs {
    /// The tree T(N).
    #[arg(value_name = "N", value_parser = parse_whole, allow_negative_numbers = true)]
    n: u64,
    /// Residues modulo M only (2 <= M < 2^63), without big integers.
    #[arg(long = "mod", value_name = "M", value_parser = parse_modulus, allow_negative_numbers = true)]
    modulus: Option<u64>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, Args)]
struct TableArgs {
    /// The first k.
    #[arg(value_name = "FROM", value_parser = parse_whole, allow_negative_numbers = true)]
    from: u64,
    /// The last k.
    #[arg(value_name = "TO", value_parser = parse_whole, allow_negative_numbers = true)]
    to: u64,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    run: RunArgs,
}

/// A whole number in 0..2^64, in decimal digits only.
fn parse_whole(s: &str) -> Result<u64, String> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err("expected a whole number (decimal digits only)".into());
    }
    s.parse().map_err(|_| "expected a whole number below 2^64".into())
}

/// A modulus for the modular engine, 2 <= M < 2^63, written as digits, `A^B` or `AeB`.
fn parse_modulus(s: &str) -> Result<u64, String> {
    fibtree::verify::parse_number(s)
        .ok()
        .and_then(|m| u64::try_from(m).ok())
        .filter(|m| (2..fibtree::modular::MODULUS_LIMIT).contains(m))
        .ok_or_else(|| "expected a modulus with 2 <= M < 2^63 (digits, A^B or AeB)".to_string())
}

/// A modulus from 2 to 2^128 - 1, written as digits, `A^B` or `AeB`.
fn parse_wide_modulus(s: &str) -> Result<u128, String> {
    fibtree::verify::parse_modulus(s)
}

/// A claimed residue: decimal digits, below 2^128.
fn parse_answer(s: &str) -> Result<u128, String> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err("expected a whole number (decimal digits only)".into());
    }
    s.parse().map_err(|_| "expected a number below 2^128".into())
}

/// A number of last digits, 1 to 38 (10^38 < 2^128).
fn parse_last_digits(s: &str) -> Result<u32, String> {
    match parse_whole(s)? {
        d @ 1..=38 => Ok(d as u32),
        _ => Err("expected from 1 to 38 digits".into()),
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
    if line.starts_with("error:") { line } else { "error: bad arguments (see --help)".into() }
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
            let names: Vec<String> = Cli::command().get_subcommands().map(|c| c.get_name().to_string()).collect();
            eprintln!("error: a command is required, one of: {} (see --help)", names.join(", "));
            return Ok(ExitCode::from(2));
        }
        Err(e) => {
            eprintln!("{}", one_line(&e.render().to_string()));
            return Ok(ExitCode::from(2));
        }
    };
    match cli.command {
        Command::Count(args) => commands::count(args),
        Command::Verify(args) => commands::verify(args),
        Command::Dist(args) => commands::dist(args),
        Command::Table(args) => commands::table(args),
        Command::Grundy { k, json, output } => commands::grundy(k, json, output),
        Command::Brute { k, g, output } => commands::brute(k, g, output),
    }
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
        assert_eq!(parse_modulus("10^18"), Ok(fibtree::report::LAST18));
        assert_eq!(parse_modulus("1e18"), Ok(fibtree::report::LAST18));
        assert_eq!(parse_modulus("2^62"), Ok(1 << 62));
        assert_eq!(parse_wide_modulus("2^127"), Ok(1 << 127));
        assert!(parse_wide_modulus("2^128").is_err());
        assert_eq!(parse_last_digits("38"), Ok(38));
        assert!(parse_last_digits("39").is_err() && parse_last_digits("0").is_err());
        assert_eq!(parse_answer("0017"), Ok(17));
        assert!(parse_answer("1e3").is_err());
        for bad in ["0", "1", "2^63", "1e19", "-7", "x", "", "10^", "^3", "9223372036854775808"] {
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
