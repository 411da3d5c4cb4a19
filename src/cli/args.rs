//! The command line's definition (clap), built by [`command`] and read by [`parse`]; the parsers of
//! its values are [`parsers`]'s, the environment variables and exit statuses it documents
//! [`documented`]'s.

mod documented;
mod parsers;

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};

use documented::after_help;
pub(super) use documented::{ENVIRONMENT_VARIABLES, EXIT_STATUSES};
pub(super) use parsers::{MAX_THREADS, Ns, parse_shard};
use parsers::{
    parse_answer, parse_bench_n, parse_chunk_lanes, parse_jobs, parse_last_digits, parse_modulus, parse_ns, parse_runs,
    parse_seconds, parse_seed, parse_shards, parse_size, parse_stress_digits, parse_threads, parse_whole,
    parse_wide_modulus,
};

/// The command line's definition, as parsing, `--help`, the manual and the completions use it:
/// the derived [`Cli`] with [`after_help`], and every argument that takes a value allowed to
/// start with `-` and a digit (so that `-1` is refused as a value out of range, not taken for an
/// unknown option). Cost: builds every command's definition afresh.
pub(super) fn command() -> clap::Command {
    let negative_numbers =
        |arg: clap::Arg| if arg.get_action().takes_values() { arg.allow_negative_numbers(true) } else { arg };
    Cli::command().after_help(after_help()).mut_subcommands(move |sub| sub.mut_args(negative_numbers))
}

/// `args` (the program's name first) read by [`command`]'s definition.
///
/// # Errors
/// clap's error for a bad command line, and its "errors" for `--help` and `--version`.
pub(super) fn parse<T: Into<OsString> + Clone>(args: impl IntoIterator<Item = T>) -> Result<Cli, clap::Error> {
    let mut cmd = command();
    let mut matches = cmd.try_get_matches_from_mut(args)?;
    Cli::from_arg_matches_mut(&mut matches).map_err(|e| e.format(&mut cmd))
}

/// Exact counts of the winning first moves of the Fibonacci tree game.
#[derive(Debug, Parser)]
#[command(name = "fibtree", version, about, long_about = None, subcommand_required = true, propagate_version = true,
          disable_help_subcommand = true)]
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
        #[arg(value_name = "K", value_parser = parse_whole)]
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
        #[arg(value_name = "K", value_parser = parse_whole)]
        k: u64,
        /// Only this Grundy value.
        #[arg(long, value_name = "G", value_parser = parse_whole)]
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

/// `--threads`: the worker threads of a computation.
#[derive(Debug, Args)]
pub(super) struct ThreadsArg {
    /// Worker threads (default: all cores). The answer is the same for every count.
    #[arg(long, value_name = "T", value_parser = parse_threads)]
    pub(super) threads: Option<usize>,
}

/// `--max-memory`: the memory a computation may use.
#[derive(Debug, Args)]
pub(super) struct MemoryArg {
    /// The memory a run may use, e.g. 512M or 4G (default: what the machine has available).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub(super) max_memory: Option<u64>,
}

impl MemoryArg {
    /// The memory limit of a run on `threads` threads (every core if `None`): `--max-memory`, or
    /// what the machine has available, and never more than the machine's cgroup, address-space and
    /// data-segment limits allow ([`fibtree::Limit::new`]). Reads those limits (a few files).
    pub(super) fn limit(&self, threads: Option<usize>) -> fibtree::Limit {
        let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        fibtree::Limit::new(self.max_memory, threads)
    }
}

/// The tree and the Grundy value whose moves a command counts: `N` and `--g G`.
#[derive(Debug, Args)]
pub(super) struct TargetArgs {
    /// The tree T(N).
    #[arg(value_name = "N", value_parser = parse_whole)]
    pub(super) n: u64,
    /// Count the moves that leave Grundy value G.
    #[arg(long, value_name = "G", default_value_t = 0, value_parser = parse_whole)]
    pub(super) g: u64,
}

/// How a computation runs: its threads, its exact engine, its memory and where its results go.
#[derive(Debug, Args)]
pub(super) struct RunArgs {
    #[command(flatten)]
    pub(super) threads: ThreadsArg,
    /// The exact engine: `blocked` (fast, in cache), `reference` (whole values layer by layer) or
    /// `crt` (residues modulo primes, combined by the Chinese remainder theorem).
    #[arg(long, value_enum, default_value_t = fibtree::Engine::Blocked)]
    pub(super) engine: fibtree::Engine,
    #[command(flatten)]
    pub(super) memory: MemoryArg,
    #[command(flatten)]
    pub(super) output: OutputArg,
}

impl RunArgs {
    /// The memory limit of the run: see [`MemoryArg::limit`].
    pub(super) fn memory_limit(&self) -> fibtree::Limit {
        self.memory.limit(self.threads.threads)
    }
}

#[derive(Debug, Args)]
pub(super) struct CountArgs {
    #[command(flatten)]
    pub(super) target: TargetArgs,
    /// Also project onto modulus M and check it (2 <= M < 2^63; forms such as 10^18, 1e18, 10^9+7 and 2^61-1
    /// accepted); repeatable.
    #[arg(long = "mod", value_name = "M", value_parser = parse_modulus)]
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
    #[arg(long, value_name = "SECONDS", default_value_t = 60, requires = "checkpoint", value_parser = parse_whole)]
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
    #[arg(long, value_name = "M", value_parser = parse_whole)]
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
    #[command(flatten)]
    pub(super) target: TargetArgs,
    /// This shard and the number of shards, I/S with 1 <= I <= S, e.g. 3/64.
    #[arg(long, value_name = "I/S", value_parser = parse_shard)]
    pub(super) shard: (usize, usize),
    #[command(flatten)]
    pub(super) threads: ThreadsArg,
    #[command(flatten)]
    pub(super) memory: MemoryArg,
    #[command(flatten)]
    pub(super) output: OutputArg,
}

#[derive(Debug, Args)]
#[command(mut_arg("threads", |a| a.help("Worker threads for the check (default: all cores)")))]
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
    #[command(flatten)]
    pub(super) threads: ThreadsArg,
    #[command(flatten)]
    pub(super) output: OutputArg,
}

#[derive(Debug, Args)]
#[command(mut_arg("threads", |a| a.help("Predict for T worker threads, and use them (default: all cores)")))]
pub(super) struct EstimateArgs {
    #[command(flatten)]
    pub(super) target: TargetArgs,
    /// Predict a run in S residue shards, 1 <= S <= 10^6; repeatable (default: 1, 64 and 1024).
    #[arg(long, value_name = "S", value_parser = parse_shards)]
    pub(super) shards: Vec<usize>,
    /// Count the plan's states even where that takes a minute or more (past N of about 480,000;
    /// else they are bounded from above).
    #[arg(long)]
    pub(super) census: bool,
    /// Print one JSON object.
    #[arg(long)]
    pub(super) json: bool,
    #[command(flatten)]
    pub(super) threads: ThreadsArg,
    #[command(flatten)]
    pub(super) output: OutputArg,
}

#[derive(Debug, Args)]
pub(super) struct VerifyArgs {
    /// The tree T(N) of the claim.
    #[arg(value_name = "N", value_parser = parse_whole,
          required_unless_present = "claims", conflicts_with = "claims")]
    pub(super) n: Option<u64>,
    /// The claimed residue; with neither --mod nor --last-digits, the claimed whole count c(N, G),
    /// compared with the exact count. Decimal digits only (no sign); leading zeros are read as the
    /// same number (0017 is 17).
    #[arg(long, value_name = "A", value_parser = parse_answer,
          required_unless_present = "claims", conflicts_with = "claims")]
    pub(super) answer: Option<num_bigint::BigUint>,
    /// The claim's modulus, 2 <= M < 2^128 (digits, or forms such as 10^18, 1e18, 10^9+7 and 2^128-1).
    #[arg(long = "mod", value_name = "M", value_parser = parse_wide_modulus,
          conflicts_with_all = ["last_digits", "claims"])]
    pub(super) modulus: Option<u128>,
    /// The claim is the last D digits (modulus 10^D, 1 <= D <= 38).
    #[arg(long, value_name = "D", value_parser = parse_last_digits,
          conflicts_with = "claims")]
    pub(super) last_digits: Option<u32>,
    /// The Grundy value of the claim.
    #[arg(long, value_name = "G", default_value_t = 0, value_parser = parse_whole,
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
    #[arg(long, value_name = "G", default_value_t = 0, value_parser = parse_whole)]
    pub(super) g: u64,
    /// The program prints c(n, G) mod M (2 <= M < 2^63). Without --mod, --last-digits or --exact,
    /// what it prints is found from its first answers.
    #[arg(long = "mod", value_name = "M", value_parser = parse_modulus,
          conflicts_with_all = ["last_digits", "exact"])]
    pub(super) modulus: Option<u64>,
    /// The program prints the last D digits of c(n, G) (1 <= D <= 18).
    #[arg(long, value_name = "D", value_parser = parse_stress_digits,
          conflicts_with = "exact")]
    pub(super) last_digits: Option<u32>,
    /// The program prints the exact c(n, G).
    #[arg(long)]
    pub(super) exact: bool,
    /// Run CMD without a shell: its words split as a shell splits them (quotes and backslashes).
    #[arg(long, short = 'N')]
    pub(super) no_shell: bool,
    /// The time one run may take, in seconds (e.g. 10 or 0.5); past it the run's process group is killed.
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = parse_seconds)]
    pub(super) timeout: std::time::Duration,
    /// Runs at a time, 1 to 1024 (default: the cores).
    #[arg(long, short = 'j', value_name = "J", value_parser = parse_jobs)]
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

#[derive(Debug, Args)]
pub(super) struct DistArgs {
    /// The tree T(N).
    #[arg(value_name = "N", value_parser = parse_whole)]
    pub(super) n: u64,
    /// Residues modulo M only (2 <= M < 2^63), without big integers.
    #[arg(long = "mod", value_name = "M", value_parser = parse_modulus)]
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
    #[arg(value_name = "N", value_parser = parse_whole)]
    pub(super) n: u64,
    /// The moves that leave Grundy value G.
    #[arg(long, value_name = "G", default_value_t = 0, value_parser = parse_whole)]
    pub(super) g: u64,
    /// Every move to G in preorder (refused above a million lines without --limit).
    #[arg(long)]
    pub(super) list: bool,
    /// Only the first K moves (with --list only).
    #[arg(long, value_name = "K", requires = "list", conflicts_with_all = ["nth", "random"], value_parser = parse_whole)]
    pub(super) limit: Option<u64>,
    /// The I-th move to G (0-based; decimal digits, any length).
    #[arg(long, value_name = "I")]
    pub(super) nth: Option<String>,
    /// A uniformly random move to G.
    #[arg(long)]
    pub(super) random: bool,
    /// The seed of --random, decimal or 0x-hexadecimal (default: from the clock; the seed used is
    /// printed on stderr, and is the JSON's `seed`).
    #[arg(long, value_name = "S", requires = "random", value_parser = parse_seed)]
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
    #[arg(value_name = "N", value_parser = parse_whole)]
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
    #[arg(long, value_name = "G", default_value_t = 0, value_parser = parse_whole)]
    pub(super) g: u64,
    #[command(flatten)]
    pub(super) output: OutputArg,
}

#[derive(Debug, Args)]
pub(super) struct BenchArgs {
    /// Measure f(N), 2 <= N; repeatable (default: 5000, 10000 and 20000).
    #[arg(long = "n", value_name = "N", value_parser = parse_bench_n)]
    pub(super) n: Vec<u64>,
    /// Measure with T worker threads, 1 to 1024; repeatable (default: 1, 2, 4, ... up to the core count,
    /// and the core count itself).
    #[arg(long, value_name = "T", value_parser = parse_threads)]
    pub(super) threads: Vec<usize>,
    /// Timed runs of each N and T, 1 to 1000; the table shows their median.
    #[arg(long, value_name = "R", default_value_t = fibtree::bench::DEFAULT_RUNS, value_parser = parse_runs)]
    pub(super) runs: usize,
    #[command(flatten)]
    pub(super) memory: MemoryArg,
    /// Measure the bottom-up count alone, not the count from both ends.
    #[arg(long)]
    pub(super) bottom_up: bool,
    /// Cut every run into chunks of C lanes (1, 2, 4, 8, 16, 32 or 64) in place of the engine's
    /// choice from the cache size and the threads.
    #[arg(long, value_name = "C", value_parser = parse_chunk_lanes)]
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
    #[arg(value_name = "FROM", value_parser = parse_whole)]
    pub(super) from: u64,
    /// The last k.
    #[arg(value_name = "TO", value_parser = parse_whole)]
    pub(super) to: u64,
    /// Print one JSON object.
    #[arg(long)]
    pub(super) json: bool,
    #[command(flatten)]
    pub(super) run: RunArgs,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_definition_is_valid() {
        command().debug_assert();
    }
}
