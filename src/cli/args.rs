//! The command line's definition (clap) and the parsers of its values.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use fibtree_util::NotWhole;

/// The environment variables fibtree reads, with what they do: listed by `--help` after its options
/// and by the manual's ENVIRONMENT section.
pub(super) const ENVIRONMENT_VARIABLES: [(&str, &str); 1] = [(
    "FIBTREE_ISA",
    "The vector kernels: auto (the widest set this CPU has; also when empty or unset), baseline (the portable \
     code as compiled for the build's target), avx2 or avx512, in any case. A set this CPU lacks, or any other \
     value, is refused (exit 2) by every command that computes.",
)];

/// The exit statuses of every command, with what each means: listed by `--help` and by the
/// manual's EXIT STATUS section.
pub(super) const EXIT_STATUSES: [(&str, &str); 7] = [
    ("0", "Success; also when a reader closes the output pipe early."),
    (
        "1",
        "A check failed (an exact value and its independent residue, a double check, a claim that is wrong), \
           or an input or output file failed.",
    ),
    (
        "2",
        "Bad input, named on one line (an argument, a file, a checkpoint), or a run refused before any work \
           (more memory than the limit).",
    ),
    ("101", "An internal error (a bug): please report it."),
    ("129", "Stopped by SIGHUP (a checkpoint, if asked for, is saved)."),
    ("130", "Stopped by SIGINT (Ctrl-C; a checkpoint, if asked for, is saved)."),
    ("143", "Stopped by SIGTERM (a checkpoint, if asked for, is saved)."),
];

/// `--help`'s short form of [`ENVIRONMENT_VARIABLES`] and [`EXIT_STATUSES`] (a constant, as clap's
/// derive takes it).
const ENVIRONMENT: &str = "Environment:\n  FIBTREE_ISA  auto (the widest kernels this CPU has; also when empty or unset), baseline, avx2 or\n               avx512, in any case; a set this CPU lacks is refused (exit 2)\n\nExit status:\n  0    success (also when a reader closes the output pipe early)\n  1    a check failed (a value and its independent residue, a double check, a wrong claim), or a file failed\n  2    bad input, or a run refused before any work (more memory than the limit)\n  101  an internal error (a bug)\n  129, 130, 143  stopped by SIGHUP, SIGINT, SIGTERM (a checkpoint, if asked for, is saved)";

/// Exact counts of the winning first moves of the Fibonacci tree game.
#[derive(Debug, Parser)]
#[command(name = "fibtree", version, about, long_about = None, subcommand_required = true, propagate_version = true,
          disable_help_subcommand = true, after_help = ENVIRONMENT)]
pub(super) struct Cli {
    #[command(subcommand)]
    pub(super) command: Command,
}

#[derive(Debug, Subcommand)]
pub(super) enum Command {
    /// The exact count c(N, G) of moves in T(N) leading to Grundy value G (G = 0: winning moves),
    /// with its last 18 digits and residues checked against an independent modular computation.
    Count(CountArgs),
    /// Check a claimed residue of c(N, G), its claimed whole value, or a CSV file of claims, against
    /// the exact value (a residue whose exact count does not fit in memory: against the modular
    /// engine alone, as `count --mod-only` computes it, which is said).
    Verify(VerifyArgs),
    /// The whole distribution c(N, g) over every g with a non-zero count, as CSV `g,count` or JSON.
    Dist(DistArgs),
    /// f(k) = c(k, 0) for every k from FROM to TO, in one pass: `k,digits,last18,mod_998244353,value`.
    Table(TableArgs),
    /// The moves to Grundy value G (default: the winning moves) named by their paths from the root
    /// (L: left child T(k-1), R: right child T(k-2)), in preorder: all, the I-th, or one at random.
    Moves(MovesArgs),
    /// The value left by deleting the node at PATH, and its index among the moves to that value.
    Rank(RankArgs),
    /// An SVG picture of T(K), or of T(A)..T(B) side by side, with the moves to G drawn in red.
    Draw(DrawArgs),
    /// The residues of c(N, G) modulo shard I of S of the primes that determine it, as a JSON file
    /// for `combine`: run the S shards anywhere, in any order.
    Shard(ShardArgs),
    /// The exact c(N, G) from the files of all its shards (files or folders of them), checked as
    /// `count` checks it.
    Combine(CombineArgs),
    /// What counting c(N, G) will take: the plan's states, the limb additions, the value's size, the
    /// primes, the memory and the time on this machine, exactly and in S residue shards.
    Estimate(EstimateArgs),
    /// Run another program once for each n and check its answers: from which n it goes wrong
    /// (OK, MISMATCH, CRASH, TIMEOUT or NO ANSWER for each n).
    Stress(StressArgs),
    /// Time the exact engine for each N and thread count (every run checked against the modular
    /// engine): median seconds, speedup, parallel efficiency and limb additions per nanosecond.
    Bench(BenchArgs),
    /// The verification ladder: every engine against the simpler one before it, in under a minute.
    SelfTest {
        /// The seed of the random cases, decimal or 0x-hexadecimal as it is printed (default: from the
        /// clock; printed).
        #[arg(long, value_name = "S", value_parser = parse_seed)]
        seed: Option<u64>,
    },
    /// Shell completions for fibtree, on standard output.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// The manual (roff), generated from the command-line definition.
    ///
    /// On standard output, one page that documents every command and its options; with -o DIR, a page
    /// per command (fibtree-count.1, ...) and fibtree.1, which refers to them.
    Man {
        /// Write the pages into the folder DIR (created, with its parents, if missing), each one
        /// atomically: a temporary file renamed when complete. `-` is standard output (one page).
        #[arg(long, short = 'o', value_name = "DIR")]
        output: Option<PathBuf>,
    },
    /// The Grundy value G(K) of the Fibonacci tree T(K) (-1 for the empty tree T(0)), for any K below
    /// 2^64, from its closed form.
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
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        output: OutputArg,
    },
    /// The help of fibtree, or of one of its commands (the same as `fibtree COMMAND --help`).
    Help {
        /// The command.
        #[arg(value_name = "COMMAND")]
        command: Option<String>,
    },
}

/// Where the results go.
#[derive(Debug, Args)]
pub(super) struct OutputArg {
    /// Write the results to FILE (atomically: a temporary file renamed when complete).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub(super) output: Option<PathBuf>,
}

/// How a computation runs.
#[derive(Debug, Args)]
pub(super) struct RunArgs {
    /// Worker threads (default: all cores). The answer is the same for every count.
    #[arg(long, value_name = "T", value_parser = parse_threads, allow_negative_numbers = true)]
    pub(super) threads: Option<usize>,
    /// The exact engine: `blocked` (fast, in cache), `reference` (whole values layer by layer) or
    /// `crt` (residues modulo primes, combined by the Chinese remainder theorem).
    #[arg(long, value_enum, default_value_t = EngineArg::Blocked)]
    pub(super) engine: EngineArg,
    /// The memory a run may use, e.g. 512M or 4G (default: what the machine has available).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, allow_negative_numbers = true)]
    pub(super) max_memory: Option<u64>,
    #[command(flatten)]
    pub(super) output: OutputArg,
}

/// The memory limit of a run on `threads` threads (every core if `None`) with `--max-memory`
/// `max_memory`: see [`RunArgs::memory_limit`].
pub(super) fn memory_limit(max_memory: Option<u64>, threads: Option<usize>) -> u64 {
    let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    fibtree::Limit::new(max_memory, threads).bytes()
}

impl RunArgs {
    /// The memory limit of the run: `--max-memory`, or what the machine has available, and never
    /// more than the machine's cgroup, address-space and data-segment limits allow
    /// ([`fibtree::Limit::new`]).
    pub(super) fn memory_limit(&self) -> u64 {
        memory_limit(self.max_memory, self.threads)
    }
}

#[derive(Debug, Args)]
pub(super) struct CountArgs {
    /// The tree T(N).
    #[arg(value_name = "N", value_parser = parse_whole, allow_negative_numbers = true)]
    pub(super) n: u64,
    /// Count the moves that leave Grundy value G.
    #[arg(long, value_name = "G", default_value_t = 0, value_parser = parse_whole, allow_negative_numbers = true)]
    pub(super) g: u64,
    /// Also project onto modulus M and check it (2 <= M < 2^63; forms such as 10^18, 1e18, 10^9+7 and 2^61-1
    /// accepted); repeatable.
    #[arg(long = "mod", value_name = "M", value_parser = parse_modulus, allow_negative_numbers = true)]
    pub(super) moduli: Vec<u64>,
    /// Print one JSON object.
    #[arg(long, conflicts_with = "quiet")]
    pub(super) json: bool,
    /// Print only the exact value (with --mod-only: the residues, one a line).
    #[arg(short, long)]
    pub(super) quiet: bool,
    #[command(flatten)]
    pub(super) run: RunArgs,
    /// Also print the run's memory estimate on stderr.
    #[arg(long, short = 'v')]
    pub(super) verbose: bool,
    /// Save the run's state to FILE every so often and on Ctrl-C; the same command resumes from it.
    #[arg(long, value_name = "FILE")]
    pub(super) checkpoint: Option<PathBuf>,
    /// Seconds between checkpoints.
    #[arg(long, value_name = "SECONDS", default_value_t = 60, requires = "checkpoint", value_parser = parse_whole,
          allow_negative_numbers = true)]
    pub(super) checkpoint_every: u64,
    /// Keep the checkpoint file when the run completes.
    #[arg(long, requires = "checkpoint")]
    pub(super) keep_checkpoint: bool,
    /// Discard an existing checkpoint and start over.
    #[arg(long, requires = "checkpoint")]
    pub(super) fresh: bool,
    /// Compute the exact value a second time with the other exact engine, and fail unless both agree.
    #[arg(long)]
    pub(super) double_check: bool,
    /// Count bottom-up to layer M and top-down from the target above it, 2 <= M <= N (M = N:
    /// bottom-up alone). Default: the cut with the least work, about N / 2.
    #[arg(long, value_name = "M", value_parser = parse_whole, allow_negative_numbers = true)]
    pub(super) cut: Option<u64>,
    /// Residues only (mod 10^18, 998244353 and each --mod), by the modular engine alone: no exact
    /// value, no big integers, nothing to cross-check.
    #[arg(long, conflicts_with_all = ["double_check", "engine", "checkpoint", "checkpoint_every", "keep_checkpoint", "fresh", "test_perturb", "cut"])]
    pub(super) mod_only: bool,
    /// Testing only: panic, to exercise the report of a bug.
    #[arg(long, hide = true)]
    pub(super) test_panic: bool,
    /// Testing only: perturb the independent residue for this modulus.
    #[arg(long, hide = true, value_name = "M", value_parser = parse_whole)]
    pub(super) test_perturb: Option<u64>,
}

#[derive(Debug, Args)]
pub(super) struct ShardArgs {
    /// The tree T(N).
    #[arg(value_name = "N", value_parser = parse_whole, allow_negative_numbers = true)]
    pub(super) n: u64,
    /// Count the moves that leave Grundy value G.
    #[arg(long, value_name = "G", default_value_t = 0, value_parser = parse_whole, allow_negative_numbers = true)]
    pub(super) g: u64,
    /// This shard and the number of shards, I/S with 1 <= I <= S, e.g. 3/64.
    #[arg(long, value_name = "I/S", value_parser = parse_shard)]
    pub(super) shard: (usize, usize),
    /// Worker threads (default: all cores). The residues are the same for every count.
    #[arg(long, value_name = "T", value_parser = parse_threads, allow_negative_numbers = true)]
    pub(super) threads: Option<usize>,
    /// The memory a run may use, e.g. 512M or 4G (default: what the machine has available).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, allow_negative_numbers = true)]
    pub(super) max_memory: Option<u64>,
    #[command(flatten)]
    pub(super) output: OutputArg,
}

#[derive(Debug, Args)]
pub(super) struct CombineArgs {
    /// Shard files, or folders whose `*.json` files are shard files.
    #[arg(value_name = "FILES", required = true)]
    pub(super) paths: Vec<PathBuf>,
    /// Print one JSON object.
    #[arg(long, conflicts_with = "quiet")]
    pub(super) json: bool,
    /// Print only the exact value.
    #[arg(short, long)]
    pub(super) quiet: bool,
    /// Worker threads for the check (default: all cores).
    #[arg(long, value_name = "T", value_parser = parse_threads, allow_negative_numbers = true)]
    pub(super) threads: Option<usize>,
    #[command(flatten)]
    pub(super) output: OutputArg,
}

#[derive(Debug, Args)]
pub(super) struct EstimateArgs {
    /// The tree T(N).
    #[arg(value_name = "N", value_parser = parse_whole, allow_negative_numbers = true)]
    pub(super) n: u64,
    /// Count the moves that leave Grundy value G.
    #[arg(long, value_name = "G", default_value_t = 0, value_parser = parse_whole, allow_negative_numbers = true)]
    pub(super) g: u64,
    /// Predict a run in S residue shards, 1 <= S <= 10^6; repeatable (default: 1, 64 and 1024).
    #[arg(long, value_name = "S", value_parser = parse_shards, allow_negative_numbers = true)]
    pub(super) shards: Vec<usize>,
    /// Count the plan's states even where that takes a minute or more (past N of about 480,000;
    /// else they are bounded from above).
    #[arg(long)]
    pub(super) census: bool,
    /// Print one JSON object.
    #[arg(long)]
    pub(super) json: bool,
    /// Predict for T worker threads, and use them (default: all cores).
    #[arg(long, value_name = "T", value_parser = parse_threads, allow_negative_numbers = true)]
    pub(super) threads: Option<usize>,
    #[command(flatten)]
    pub(super) output: OutputArg,
}

/// `--shards S`: 1 <= S <= [`fibtree::crt::MAX_SHARDS`].
fn parse_shards(s: &str) -> Result<usize, String> {
    match parse_whole(s)? {
        s @ 1.. if s <= fibtree::crt::MAX_SHARDS as u64 => Ok(s as usize),
        _ => Err(format!("expected a number of shards from 1 to {}", fibtree::crt::MAX_SHARDS)),
    }
}

/// `--shard I/S` (and a shard file's `shard`): 1 <= I <= S <= [`fibtree::crt::MAX_SHARDS`], both in
/// decimal digits as every other number (no sign, no spaces).
pub(super) fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let most = fibtree::crt::MAX_SHARDS;
    let expected = || format!("expected I/S with 1 <= I <= S <= {most}, e.g. 3/64, got {s:?}");
    let (i, n) = s.split_once('/').ok_or_else(expected)?;
    let whole = |t: &str| fibtree_util::parse_whole::<u64>(t).ok().filter(|&v| v <= most as u64);
    let (i, n) = (whole(i).ok_or_else(expected)? as usize, whole(n).ok_or_else(expected)? as usize);
    if i == 0 || i > n { Err(expected()) } else { Ok((i, n)) }
}

/// The exact engines, as `--engine` names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum EngineArg {
    /// Blocks of layers one limb chunk at a time.
    Blocked,
    /// Whole values, layer by layer.
    Reference,
    /// Residues modulo primes below 2^62, combined by the Chinese remainder theorem
    Crt,
}

impl From<EngineArg> for fibtree::Engine {
    fn from(e: EngineArg) -> Self {
        match e {
            EngineArg::Blocked => fibtree::Engine::Blocked,
            EngineArg::Reference => fibtree::Engine::Reference,
            EngineArg::Crt => fibtree::Engine::Crt,
        }
    }
}

#[derive(Debug, Args)]
pub(super) struct VerifyArgs {
    /// The tree T(N) of the claim.
    #[arg(value_name = "N", value_parser = parse_whole, allow_negative_numbers = true,
          required_unless_present = "claims", conflicts_with = "claims")]
    pub(super) n: Option<u64>,
    /// The claimed residue; with neither --mod nor --last-digits, the claimed whole count c(N, G),
    /// compared with the exact count. Decimal digits only (no sign); leading zeros are read as the
    /// same number (0017 is 17).
    #[arg(long, value_name = "A", value_parser = parse_answer, allow_negative_numbers = true,
          required_unless_present = "claims", conflicts_with = "claims")]
    pub(super) answer: Option<num_bigint::BigUint>,
    /// The claim's modulus, 2 <= M < 2^128 (digits, or forms such as 10^18, 1e18, 10^9+7 and 2^128-1).
    #[arg(long = "mod", value_name = "M", value_parser = parse_wide_modulus, allow_negative_numbers = true,
          conflicts_with_all = ["last_digits", "claims"])]
    pub(super) modulus: Option<u128>,
    /// The claim is the last D digits (modulus 10^D, 1 <= D <= 38).
    #[arg(long, value_name = "D", value_parser = parse_last_digits, allow_negative_numbers = true,
          conflicts_with = "claims")]
    pub(super) last_digits: Option<u32>,
    /// The Grundy value of the claim.
    #[arg(long, value_name = "G", default_value_t = 0, value_parser = parse_whole, allow_negative_numbers = true,
          conflicts_with = "claims")]
    pub(super) g: u64,
    /// A CSV file of claims with the header `n,g,modulus,answer` (`-` for standard input).
    #[arg(long, value_name = "FILE")]
    pub(super) claims: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    pub(super) json: bool,
    #[command(flatten)]
    pub(super) run: RunArgs,
}

#[derive(Debug, Args)]
pub(super) struct StressArgs {
    /// The program, run through `sh -c` (or split into words with --no-shell): n goes in place of
    /// `{}`, or on its standard input as `n` and a newline where CMD has no `{}`. Its answer is the
    /// last integer on its standard output (of the last 1 MiB it prints).
    #[arg(value_name = "CMD")]
    pub(super) command: String,
    /// The n to run it on: a range A..B, a range with a step A..B:STEP, or a list 1,5,9 (of numbers
    /// and ranges).
    #[arg(long = "n", value_name = "NS", value_parser = parse_ns, required = true, allow_hyphen_values = true)]
    pub(super) ns: Ns,
    /// The program counts c(n, G), the moves that leave Grundy value G.
    #[arg(long, value_name = "G", default_value_t = 0, value_parser = parse_whole, allow_negative_numbers = true)]
    pub(super) g: u64,
    /// The program prints c(n, G) mod M (2 <= M < 2^63). Without --mod, --last-digits or --exact,
    /// what it prints is found from its first answers.
    #[arg(long = "mod", value_name = "M", value_parser = parse_modulus, allow_negative_numbers = true,
          conflicts_with_all = ["last_digits", "exact"])]
    pub(super) modulus: Option<u64>,
    /// The program prints the last D digits of c(n, G) (1 <= D <= 18).
    #[arg(long, value_name = "D", value_parser = parse_stress_digits, allow_negative_numbers = true,
          conflicts_with = "exact")]
    pub(super) last_digits: Option<u32>,
    /// The program prints the exact c(n, G).
    #[arg(long)]
    pub(super) exact: bool,
    /// Run CMD without a shell: its words split as a shell splits them (quotes and backslashes).
    #[arg(long, short = 'N')]
    pub(super) no_shell: bool,
    /// The time one run may take, in seconds (e.g. 10 or 0.5); past it the run's process group is killed.
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = parse_seconds, allow_negative_numbers = true)]
    pub(super) timeout: std::time::Duration,
    /// Runs at a time, 1 to 1024 (default: the cores).
    #[arg(long, short = 'j', value_name = "J", value_parser = parse_jobs, allow_negative_numbers = true)]
    pub(super) jobs: Option<usize>,
    /// Assume the program is right up to some n and wrong from it on, and find that n in about
    /// log2 of the number of n runs.
    #[arg(long)]
    pub(super) bisect: bool,
    /// Keep each run's standard output and error in DIR (created if missing) as N.stdout and
    /// N.stderr (what was kept of each: 1 MiB).
    #[arg(long, value_name = "DIR")]
    pub(super) keep_output: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    pub(super) json: bool,
    #[command(flatten)]
    pub(super) run: RunArgs,
}

/// The n of `stress --n`, ascending, each once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Ns(pub(super) Vec<u64>);

/// The most n one `stress` run takes.
pub(super) const MAX_RUNS: usize = 1_000_000;

/// `--n`: comma-separated items, each a number N, a range A..B (A <= B) or A..B:STEP (STEP >= 1),
/// every n at most [`fibtree::MAX_N`] and at most [`MAX_RUNS`] of them; sorted, repeats removed.
fn parse_ns(s: &str) -> Result<Ns, String> {
    let expected = |why: &str| format!("{why}; expected a range A..B, A..B:STEP or a list such as 1,5,9, got {s:?}");
    let mut ns = Vec::new();
    for item in s.split(',') {
        let (range, step) = match item.split_once(':') {
            Some((range, step)) => (range, parse_whole(step).map_err(|e| expected(&format!("STEP: {e}")))?),
            None => (item, 1),
        };
        let (a, b) = match range.split_once("..") {
            Some((a, b)) => (a, b),
            None if step == 1 && !item.contains(':') => (range, range),
            None => return Err(expected("a STEP goes with a range")),
        };
        let (a, b) = (parse_whole(a).map_err(|e| expected(&e))?, parse_whole(b).map_err(|e| expected(&e))?);
        if a > b {
            return Err(expected(&format!("{a} > {b}")));
        }
        if step == 0 {
            return Err(expected("STEP is 0"));
        }
        if b > fibtree::MAX_N {
            return Err(format!("expected every n at most {}, got {b}", fibtree::MAX_N));
        }
        if (b - a) / step >= MAX_RUNS as u64 || ns.len() + ((b - a) / step) as usize >= MAX_RUNS {
            return Err(format!("expected at most {MAX_RUNS} n"));
        }
        ns.extend((a..=b).step_by(step as usize));
    }
    ns.sort_unstable();
    ns.dedup();
    Ok(Ns(ns))
}

/// `stress --last-digits`: 1 to 18 (10^18 < 2^63, the modular engine's range).
fn parse_stress_digits(s: &str) -> Result<u32, String> {
    match parse_whole(s)? {
        d @ 1..=18 => Ok(d as u32),
        _ => Err("expected from 1 to 18 digits".into()),
    }
}

/// Seconds: a positive decimal number (digits, an optional fraction), at most 10^6.
fn parse_seconds(s: &str) -> Result<std::time::Duration, String> {
    let bad = || format!("expected a number of seconds above 0 and at most 1000000, such as 10 or 0.5, got {s:?}");
    let (whole, fraction) = s.split_once('.').unwrap_or((s, "0"));
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !digits(fraction) {
        return Err(bad());
    }
    let seconds: f64 = s.parse().map_err(|_| bad())?;
    if seconds > 0.0 && seconds <= 1e6 { Ok(std::time::Duration::from_secs_f64(seconds)) } else { Err(bad()) }
}

/// `--jobs`: from 1 to [`MAX_THREADS`] runs at a time.
fn parse_jobs(s: &str) -> Result<usize, String> {
    parse_count(s, MAX_THREADS, "a number of runs at a time")
}

#[derive(Debug, Args)]
pub(super) struct DistArgs {
    /// The tree T(N).
    #[arg(value_name = "N", value_parser = parse_whole, allow_negative_numbers = true)]
    pub(super) n: u64,
    /// Residues modulo M only (2 <= M < 2^63), without big integers.
    #[arg(long = "mod", value_name = "M", value_parser = parse_modulus, allow_negative_numbers = true)]
    pub(super) modulus: Option<u64>,
    /// Also plot the distribution (log scale) as an SVG file.
    #[arg(long, value_name = "FILE")]
    pub(super) svg: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    pub(super) json: bool,
    #[command(flatten)]
    pub(super) run: RunArgs,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("which").required(true).args(["list", "nth", "random"])))]
pub(super) struct MovesArgs {
    /// The tree T(N).
    #[arg(value_name = "N", value_parser = parse_whole, allow_negative_numbers = true)]
    pub(super) n: u64,
    /// The moves that leave Grundy value G.
    #[arg(long, value_name = "G", default_value_t = 0, value_parser = parse_whole, allow_negative_numbers = true)]
    pub(super) g: u64,
    /// Every move to G in preorder (refused above a million lines without --limit).
    #[arg(long)]
    pub(super) list: bool,
    /// Only the first K moves (with --list only).
    #[arg(long, value_name = "K", requires = "list", conflicts_with_all = ["nth", "random"], value_parser = parse_whole,
          allow_negative_numbers = true)]
    pub(super) limit: Option<u64>,
    /// The I-th move to G (0-based; decimal digits, any length).
    #[arg(long, value_name = "I", allow_negative_numbers = true)]
    pub(super) nth: Option<String>,
    /// A uniformly random move to G.
    #[arg(long)]
    pub(super) random: bool,
    /// The seed of --random, decimal or 0x-hexadecimal (default: from the clock; the seed used is
    /// printed on stderr, and is the JSON's `seed`).
    #[arg(long, value_name = "S", requires = "random", value_parser = parse_seed, allow_negative_numbers = true)]
    pub(super) seed: Option<u64>,
    /// Print one JSON object.
    #[arg(long)]
    pub(super) json: bool,
    #[command(flatten)]
    pub(super) run: RunArgs,
}

#[derive(Debug, Args)]
pub(super) struct RankArgs {
    /// The tree T(N).
    #[arg(value_name = "N", value_parser = parse_whole, allow_negative_numbers = true)]
    pub(super) n: u64,
    /// The node, as its path from the root: L (left child) and R (right child), e.g. LLR.
    #[arg(value_name = "PATH")]
    pub(super) path: String,
    /// Print one JSON object.
    #[arg(long)]
    pub(super) json: bool,
    #[command(flatten)]
    pub(super) run: RunArgs,
}

#[derive(Debug, Args)]
pub(super) struct DrawArgs {
    /// The tree T(K), or the trees T(A)..T(B) side by side (K, A and B at most 14).
    #[arg(value_name = "K|A..B", allow_hyphen_values = true)]
    pub(super) trees: String,
    /// Draw in red the moves that leave Grundy value G (default: the winning moves).
    #[arg(long, value_name = "G", default_value_t = 0, value_parser = parse_whole, allow_negative_numbers = true)]
    pub(super) g: u64,
    #[command(flatten)]
    pub(super) output: OutputArg,
}

#[derive(Debug, Args)]
pub(super) struct BenchArgs {
    /// Measure f(N), 2 <= N; repeatable (default: 5000, 10000 and 20000).
    #[arg(long = "n", value_name = "N", value_parser = parse_bench_n, allow_negative_numbers = true)]
    pub(super) n: Vec<u64>,
    /// Measure with T worker threads, 1 to 1024; repeatable (default: 1, 2, 4, ... up to the core count,
    /// and the core count itself).
    #[arg(long, value_name = "T", value_parser = parse_threads, allow_negative_numbers = true)]
    pub(super) threads: Vec<usize>,
    /// Timed runs of each N and T, 1 to 1000; the table shows their median.
    #[arg(long, value_name = "R", default_value_t = fibtree::bench::DEFAULT_RUNS, value_parser = parse_runs,
          allow_negative_numbers = true)]
    pub(super) runs: usize,
    /// The memory a run may use, e.g. 512M or 4G (default: what the machine has available).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, allow_negative_numbers = true)]
    pub(super) max_memory: Option<u64>,
    /// Measure the bottom-up count alone, not the count from both ends.
    #[arg(long)]
    pub(super) bottom_up: bool,
    /// Cut every run into chunks of C lanes (1, 2, 4, 8, 16, 32 or 64) in place of the engine's
    /// choice from the cache size and the threads.
    #[arg(long, value_name = "C", value_parser = parse_chunk_lanes, allow_negative_numbers = true)]
    pub(super) chunk_lanes: Option<usize>,
    /// Print one JSON object.
    #[arg(long)]
    pub(super) json: bool,
    /// No progress lines on stderr.
    #[arg(short, long)]
    pub(super) quiet: bool,
    #[command(flatten)]
    pub(super) output: OutputArg,
    /// Testing only: perturb the independent residue for this modulus.
    #[arg(long, hide = true, value_name = "M", value_parser = parse_whole)]
    pub(super) test_perturb: Option<u64>,
}

#[derive(Debug, Args)]
pub(super) struct TableArgs {
    /// The first k.
    #[arg(value_name = "FROM", value_parser = parse_whole, allow_negative_numbers = true)]
    pub(super) from: u64,
    /// The last k.
    #[arg(value_name = "TO", value_parser = parse_whole, allow_negative_numbers = true)]
    pub(super) to: u64,
    /// Print one JSON object.
    #[arg(long)]
    pub(super) json: bool,
    #[command(flatten)]
    pub(super) run: RunArgs,
}

/// A whole number in 0..2^64, in decimal digits only.
fn parse_whole(s: &str) -> Result<u64, String> {
    fibtree_util::parse_whole(s).map_err(|e| match e {
        NotWhole::NotDigits => "expected a whole number (decimal digits only)".into(),
        NotWhole::TooLarge => "expected a whole number below 2^64".into(),
    })
}

/// A modulus for the modular engine, 2 <= M < 2^63, written as [`fibtree_util::parse_number`]
/// reads it (digits, `A^B` or `AeB`, with an optional `+C` or `-C`).
fn parse_modulus(s: &str) -> Result<u64, String> {
    fibtree_util::parse_number(s)
        .ok()
        .and_then(|m| u64::try_from(m).ok())
        .filter(|m| (2..fibtree::MODULUS_LIMIT).contains(m))
        .ok_or_else(|| format!("expected a modulus with 2 <= M < 2^63 ({})", fibtree_util::NUMBER_FORMS))
}

/// A modulus from 2 to 2^128 - 1, written as [`parse_modulus`] reads one.
fn parse_wide_modulus(s: &str) -> Result<u128, String> {
    fibtree_util::parse_modulus(s)
}

/// A claimed residue or whole count: decimal digits, of any size.
fn parse_answer(s: &str) -> Result<num_bigint::BigUint, String> {
    fibtree_util::parse_whole(s).map_err(|_| "expected a whole number (decimal digits only)".into())
}

/// A number of last digits, 1 to 38 (10^38 < 2^128).
fn parse_last_digits(s: &str) -> Result<u32, String> {
    match parse_whole(s)? {
        d @ 1..=38 => Ok(d as u32),
        _ => Err("expected from 1 to 38 digits".into()),
    }
}

/// A size in bytes: digits with an optional unit K, M, G or T (powers of 1024; `KiB`, `MB` and the
/// like are read the same way).
fn parse_size(s: &str) -> Result<u64, String> {
    let bad = || format!("expected a size such as 4G, 5.5G, 512M or 1000000, got '{s}'");
    let whole = s.bytes().take_while(u8::is_ascii_digit).count();
    let (number, rest) = s.split_at(whole);
    // a decimal fraction, as in 5.4G
    let (fraction, unit) = match rest.strip_prefix('.') {
        Some(rest) => rest.split_at(rest.bytes().take_while(u8::is_ascii_digit).count()),
        None => ("", rest),
    };
    if number.is_empty() || (rest.starts_with('.') && fraction.is_empty()) || fraction.len() > 18 {
        return Err(bad());
    }
    let number: u128 = number.parse().map_err(|_| bad())?;
    let shift = match unit.trim().to_ascii_uppercase().trim_end_matches('B').trim_end_matches('I') {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return Err(bad()),
    };
    let scale = 10u128.pow(fraction.len() as u32);
    let fraction: u128 = if fraction.is_empty() { 0 } else { fraction.parse().map_err(|_| bad())? };
    let bytes = number.checked_mul(1 << shift).and_then(|b| b.checked_add((fraction << shift) / scale));
    bytes.and_then(|b| u64::try_from(b).ok()).filter(|&b| b > 0).ok_or_else(bad)
}

/// A seed: decimal digits, or `0x` and hexadecimal digits (the form `self-test` prints), below 2^64.
fn parse_seed(s: &str) -> Result<u64, String> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
            u64::from_str_radix(hex, 16).map_err(|_| "expected a seed below 2^64".to_string())
        }
        Some(_) => Err("expected a seed: decimal digits, or 0x and hexadecimal digits".to_string()),
        None => parse_whole(s),
    }
}

/// The most worker threads `--threads` accepts.
pub(super) const MAX_THREADS: u64 = 1024;

/// A thread count from 1 to [`MAX_THREADS`].
fn parse_threads(s: &str) -> Result<usize, String> {
    parse_count(s, MAX_THREADS, "a thread count")
}

/// A count from 1 to `max`; `what` names it in the error.
fn parse_count(s: &str, max: u64, what: &str) -> Result<usize, String> {
    match parse_whole(s)? {
        t @ 1.. if t <= max => Ok(t as usize),
        _ => Err(format!("expected {what} from 1 to {max}")),
    }
}

/// Lanes per chunk for `bench --chunk-lanes`: one of the chunk sizes the engine has kernels for.
fn parse_chunk_lanes(s: &str) -> Result<usize, String> {
    let lanes = parse_whole(s)?;
    let sizes = fibtree::bench::CHUNK_LANES;
    match sizes.iter().find(|&&c| c as u64 == lanes) {
        Some(&c) => Ok(c),
        None => Err("expected 1, 2, 4, 8, 16, 32 or 64 lanes".to_string()),
    }
}

/// A tree for `bench --n`: 2 <= N <= MAX_N (T(0) and T(1) have no moves to time).
fn parse_bench_n(s: &str) -> Result<u64, String> {
    match parse_whole(s)? {
        n @ 2..=fibtree::MAX_N => Ok(n),
        _ => Err(format!("expected N from 2 to {}", fibtree::MAX_N)),
    }
}

/// A number of timed runs, from 1 to [`fibtree::bench::MAX_RUNS`].
fn parse_runs(s: &str) -> Result<usize, String> {
    let max = fibtree::bench::MAX_RUNS;
    usize::try_from(parse_whole(s)?)
        .ok()
        .filter(|r| (1..=max).contains(r))
        .ok_or_else(|| format!("expected from 1 to {max} runs"))
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn clap_definition_is_valid() {
        Cli::command().debug_assert();
    }

    /// `--help` lists every exit status the manual lists.
    #[test]
    fn help_lists_every_exit_status() {
        for (status, _) in EXIT_STATUSES {
            assert!(
                ENVIRONMENT.lines().any(|l| l.trim_start().starts_with(status) || l.contains(&format!(" {status}"))),
                "{status}"
            );
        }
    }

    #[test]
    fn moduli_in_every_form() {
        assert_eq!(parse_modulus("1000000007"), Ok(1_000_000_007));
        assert_eq!(parse_modulus("10^18"), Ok(fibtree::LAST18));
        assert_eq!(parse_modulus("1e18"), Ok(fibtree::LAST18));
        assert_eq!(parse_modulus("2^62"), Ok(1 << 62));
        assert_eq!(parse_modulus("10^9+7"), Ok(1_000_000_007));
        assert_eq!(parse_modulus("2^63-25"), Ok(9_223_372_036_854_775_783));
        assert_eq!(parse_wide_modulus("2^128-1"), Ok(u128::MAX));
        let past = parse_modulus("2^128-1").unwrap_err();
        assert!(past.contains("2 <= M < 2^63") && past.contains("+C"), "{past}");
        assert_eq!(parse_wide_modulus("2^127"), Ok(1 << 127));
        assert!(parse_wide_modulus("2^128").is_err());
        assert_eq!(parse_last_digits("38"), Ok(38));
        assert!(parse_last_digits("39").is_err() && parse_last_digits("0").is_err());
        assert_eq!(parse_answer("0017"), Ok(17u32.into()));
        assert_eq!(parse_answer(&"9".repeat(50)).unwrap().to_string(), "9".repeat(50));
        assert!(parse_answer("+17").is_err());
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
        assert_eq!(parse_size("4G"), Ok(4 << 30));
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("1000"), Ok(1000));
        // decimal fractions of a unit, as `count --verbose` prints sizes
        assert_eq!(parse_size("1.5G"), Ok(3 << 29));
        assert_eq!(parse_size("5.4G"), Ok((54u64 << 30) / 10));
        assert_eq!(parse_size("0.5K"), Ok(512));
        for bad in ["", "G", "-1G", "4X", "0", "0.0G", "1.G", ".5G", "1..5G", "1.5.5G", "99999999999T"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_n_of_stress() {
        assert_eq!(parse_ns("1..5"), Ok(Ns(vec![1, 2, 3, 4, 5])));
        assert_eq!(parse_ns("10..20:5"), Ok(Ns(vec![10, 15, 20])));
        assert_eq!(parse_ns("9,1,5,5,3..4"), Ok(Ns(vec![1, 3, 4, 5, 9])));
        assert_eq!(parse_ns("7"), Ok(Ns(vec![7])));
        for bad in ["", "5..1", "1..5:0", "1..", "..5", "a..b", "1,,2", "3:2", "-1..5", "1..2147483648", "0..1000000"] {
            assert!(parse_ns(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_ns("0..999999").map(|ns| ns.0.len()), Ok(MAX_RUNS));
        assert_eq!(parse_seconds("0.5"), Ok(std::time::Duration::from_millis(500)));
        assert_eq!(parse_seconds("10"), Ok(std::time::Duration::from_secs(10)));
        for bad in ["0", "0.0", "-1", "1e3", "inf", "nan", ".5", "5.", "1000001", ""] {
            assert!(parse_seconds(bad).is_err(), "{bad}");
        }
        assert!(parse_jobs("0").is_err() && parse_jobs("1025").is_err());
        assert_eq!(parse_stress_digits("18"), Ok(18));
        assert!(parse_stress_digits("19").is_err());
    }

    #[test]
    fn seeds_as_they_are_printed() {
        assert_eq!(parse_seed("12345"), Ok(12345));
        assert_eq!(parse_seed("0x18ed18332ee0d166"), Ok(0x18ed_1833_2ee0_d166));
        assert_eq!(parse_seed("0XFF"), Ok(255));
        for bad in ["0x", "0x1g", "0x10000000000000000", "-1", "1e3", ""] {
            assert!(parse_seed(bad).is_err(), "{bad}");
        }
    }
}
