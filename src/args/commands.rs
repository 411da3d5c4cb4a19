//! The arguments of each command that computes: a struct per command, built from the groups the
//! commands share ([`super::RunArgs`] and the others). Each doc comment's first paragraph is the
//! summary `-h` shows, on one line; `--help` adds the paragraphs after it.

use std::path::PathBuf;

use clap::Args;

use super::parsers::{
    BENCH_RUNS, Ns, parse_answer, parse_bench_n, parse_chunk_lanes, parse_jobs, parse_last_digits, parse_modulus,
    parse_ns, parse_program_memory, parse_runs, parse_seconds, parse_seed, parse_shard, parse_shards, parse_threads,
    parse_tiles, parse_whole, parse_wide_modulus,
};
use super::{MemoryArg, OutputArg, QuietArg, RunArgs, TargetArgs, ThreadsArg};

/// `count`'s arguments.
#[derive(Debug, Args)]
pub(crate) struct CountArgs {
    #[command(flatten)]
    pub(crate) target: TargetArgs,
    /// Also project onto modulus M and check it; repeatable.
    ///
    /// 2 <= M < 2^63; forms such as 10^18, 1e18, 10^9+7 and 2^61-1 are accepted.
    #[arg(long = "mod", value_name = "M", value_parser = parse_modulus)]
    pub(crate) moduli: Vec<u64>,
    /// Print one JSON object.
    #[arg(long, conflicts_with = "quiet")]
    pub(crate) json: bool,
    /// Print only the exact value (with --mod-only: the residues).
    #[arg(short, long)]
    pub(crate) quiet: bool,
    #[command(flatten)]
    pub(crate) run: RunArgs,
    /// Also say on stderr the run's memory, kernel set and route.
    ///
    /// On standard error: the memory estimate and the limit, the kernel set, the route (from both
    /// ends with its cut, or bottom-up) and the peak memory used.
    #[arg(long, short = 'v')]
    pub(crate) verbose: bool,
    /// Save the run's state to FILE, and resume from it.
    ///
    /// Saved every --checkpoint-every seconds and on Ctrl-C; the same command resumes from it.
    #[arg(long, value_name = "FILE")]
    pub(crate) checkpoint: Option<PathBuf>,
    /// Seconds between checkpoints.
    #[arg(long, value_name = "SECONDS", default_value_t = 60, requires = "checkpoint", value_parser = parse_whole)]
    pub(crate) checkpoint_every: u64,
    /// Keep the checkpoint file when the run completes.
    #[arg(long, requires = "checkpoint")]
    pub(crate) keep_checkpoint: bool,
    /// Discard an existing checkpoint and start over.
    #[arg(long, requires = "checkpoint")]
    pub(crate) fresh: bool,
    /// Count again with the other exact engine; fail unless both agree.
    #[arg(long)]
    pub(crate) double_check: bool,
    /// The layer M where the bottom-up count meets the top-down one.
    ///
    /// Count bottom-up to layer M and top-down from the target above it, 2 <= M <= N (M = N:
    /// bottom-up alone). Default: the cut with the least work, about N / 2.
    #[arg(long, value_name = "M", value_parser = parse_whole)]
    pub(crate) cut: Option<u64>,
    /// Residues only, by the modular engine alone.
    ///
    /// The residues mod 10^18, 998244353 and each --mod: no exact value, no big integers, nothing
    /// to cross-check.
    #[arg(long, conflicts_with_all = ["double_check", "engine", "checkpoint", "checkpoint_every", "keep_checkpoint", "fresh", "cut"])]
    pub(crate) mod_only: bool,
    /// Testing only: panic, to exercise the report of a bug.
    #[cfg(feature = "test-hooks")]
    #[arg(long, hide = true)]
    pub(crate) test_panic: bool,
    /// Testing only: perturb the independent residue for this modulus (2: the closed form's parity).
    #[cfg(feature = "test-hooks")]
    #[arg(long, hide = true, value_name = "M", value_parser = parse_whole, conflicts_with = "mod_only")]
    pub(crate) test_perturb: Option<u64>,
}

/// `shard`'s arguments.
#[derive(Debug, Args)]
pub(crate) struct ShardArgs {
    #[command(flatten)]
    pub(crate) target: TargetArgs,
    /// This shard of S, as I/S with 1 <= I <= S, e.g. 3/64.
    #[arg(long, value_name = "I/S", value_parser = parse_shard)]
    pub(crate) shard: (usize, usize),
    #[command(flatten)]
    pub(crate) threads: ThreadsArg,
    #[command(flatten)]
    pub(crate) memory: MemoryArg,
    #[command(flatten)]
    pub(crate) output: OutputArg,
}

/// `combine`'s arguments.
#[derive(Debug, Args)]
#[command(mut_arg("threads", |a| a.help("Worker threads for the check (default: all cores)").long_help(None::<&str>)))]
pub(crate) struct CombineArgs {
    /// Shard files, or folders whose `*.json` files are shard files.
    #[arg(value_name = "FILES", required = true)]
    pub(crate) paths: Vec<PathBuf>,
    /// Print one JSON object.
    #[arg(long, conflicts_with = "quiet")]
    pub(crate) json: bool,
    /// Print only the exact value.
    #[arg(short, long)]
    pub(crate) quiet: bool,
    #[command(flatten)]
    pub(crate) threads: ThreadsArg,
    #[command(flatten)]
    pub(crate) output: OutputArg,
    /// Testing only: perturb the independent residue for this modulus (2: the closed form's parity).
    #[cfg(feature = "test-hooks")]
    #[arg(long, hide = true, value_name = "M", value_parser = parse_whole)]
    pub(crate) test_perturb: Option<u64>,
}

/// `estimate`'s arguments.
#[derive(Debug, Args)]
#[command(mut_arg("threads", |a| a.help("Predict for T worker threads, and use them (default: all cores)")
    .long_help(None::<&str>)))]
pub(crate) struct EstimateArgs {
    #[command(flatten)]
    pub(crate) target: TargetArgs,
    /// Predict a run in S residue shards; repeatable.
    ///
    /// 1 <= S <= 10^6. Default: 1, 64 and 1024.
    #[arg(long, value_name = "S", value_parser = parse_shards)]
    pub(crate) shards: Vec<usize>,
    /// Count the plan's states even where that takes minutes.
    ///
    /// Past N of about 480,000 counting them takes a minute or more; without --census they are
    /// bounded from above there.
    #[arg(long)]
    pub(crate) census: bool,
    /// Print one JSON object.
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) threads: ThreadsArg,
    #[command(flatten)]
    pub(crate) output: OutputArg,
}

/// `verify`'s arguments.
#[derive(Debug, Args)]
pub(crate) struct VerifyArgs {
    /// The tree T(N) of the claim.
    #[arg(value_name = "N", value_parser = parse_whole,
          required_unless_present = "claims", conflicts_with = "claims")]
    pub(crate) n: Option<u64>,
    /// The claimed residue, or the claimed whole count c(N, G).
    ///
    /// The whole count where neither --mod nor --last-digits is given, compared with the exact
    /// count. Decimal digits only (no sign); leading zeros are read as the same number (0017 is
    /// 17).
    #[arg(long, value_name = "A", value_parser = parse_answer,
          required_unless_present = "claims", conflicts_with = "claims")]
    pub(crate) answer: Option<num_bigint::BigUint>,
    /// The claim's modulus, 2 <= M < 2^128.
    ///
    /// Digits, or forms such as 10^18, 1e18, 10^9+7 and 2^128-1.
    #[arg(long = "mod", value_name = "M", value_parser = parse_wide_modulus,
          conflicts_with_all = ["last_digits", "claims"])]
    pub(crate) modulus: Option<u128>,
    /// The claim is the last D digits (modulus 10^D, 1 <= D <= 38).
    #[arg(long, value_name = "D", value_parser = parse_last_digits,
          conflicts_with = "claims")]
    pub(crate) last_digits: Option<u32>,
    /// The Grundy value of the claim.
    #[arg(long, short, value_name = "G", default_value_t = 0, value_parser = parse_whole,
          conflicts_with = "claims")]
    pub(crate) g: u64,
    /// A CSV file of claims (`-` for standard input).
    ///
    /// Its header is `n,g,modulus,answer`.
    #[arg(long, value_name = "FILE")]
    pub(crate) claims: Option<PathBuf>,
    /// Judge residues by the exact count, not the modular engine.
    ///
    /// A residue modulo M < 2^63 is judged by the modular engine by default (checked by its run
    /// modulo a multiple of M and by the parity the closed form of G gives); with --exact, by the
    /// exact count and its projections, as a whole value always is.
    #[arg(long)]
    pub(crate) exact: bool,
    /// Show whole the numbers of more than 40 digits in verdicts for people.
    ///
    /// Without it a claimed or true value of more than 40 digits is cut to its first and last 20
    /// digits and its length (--json always gives them whole).
    #[arg(long)]
    pub(crate) show_value: bool,
    /// Print one JSON object.
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) run: RunArgs,
    #[command(flatten)]
    pub(crate) quiet: QuietArg,
}

/// `stress`'s arguments.
#[derive(Debug, Args)]
pub(crate) struct StressArgs {
    /// The program, run for each n through `sh -c`.
    ///
    /// Run through `sh -c`, or split into words with --no-shell: n goes in place of `{}`, or on its
    /// standard input as `n` and a newline where CMD has no `{}`. Its answer is the last integer
    /// on its standard output (of the last 1 MiB it prints).
    #[arg(value_name = "CMD")]
    pub(crate) command: String,
    /// The n to run it on: A..B, A..B:STEP or a list 1,5,9.
    ///
    /// A range A..B, a range with a step A..B:STEP, or a list of numbers and ranges.
    #[arg(long = "n", value_name = "NS", value_parser = parse_ns, required = true, allow_hyphen_values = true)]
    pub(crate) ns: Ns,
    /// The program counts c(n, G), the moves to Grundy value G.
    #[arg(long, short, value_name = "G", default_value_t = 0, value_parser = parse_whole)]
    pub(crate) g: u64,
    /// The program prints c(n, G) mod M (2 <= M < 2^63).
    ///
    /// Without --mod, --last-digits or --exact, what it prints is found from its first answers.
    #[arg(long = "mod", value_name = "M", value_parser = parse_modulus,
          conflicts_with_all = ["last_digits", "exact"])]
    pub(crate) modulus: Option<u64>,
    /// The program prints the last D digits (1 <= D <= 38).
    #[arg(long, value_name = "D", value_parser = parse_last_digits,
          conflicts_with = "exact")]
    pub(crate) last_digits: Option<u32>,
    /// The program prints the exact c(n, G).
    #[arg(long)]
    pub(crate) exact: bool,
    /// Run CMD without a shell, split as a shell splits it.
    ///
    /// Quotes and backslashes are read as a shell reads them; nothing else is.
    #[arg(long, short = 'N')]
    pub(crate) no_shell: bool,
    /// The wall time one run may take, in seconds (e.g. 0.5): then killed.
    ///
    /// Past it the run's process group is killed: TIMEOUT. Default: 10, or twice --time-limit and
    /// one more where that is longer.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub(crate) timeout: Option<std::time::Duration>,
    /// The CPU time a run may use, in seconds (e.g. 0.5): past it, TIME LIMIT.
    ///
    /// The CPU time (user and system) of the program and of every process it started in its
    /// process group, read as it runs: once past the limit, the group is killed, whatever --timeout
    /// says. Default: none.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub(crate) time_limit: Option<std::time::Duration>,
    /// The memory one run may use, e.g. 256M: past it, MEMORY LIMIT.
    ///
    /// Enforced as a limit on each of its processes' address space (RLIMIT_AS), so that an
    /// allocation past it fails; a run that then fails is MEMORY LIMIT. Default: none. (fibtree's
    /// own memory is --max-memory's.)
    #[arg(long, value_name = "SIZE", value_parser = parse_program_memory)]
    pub(crate) memory_limit: Option<u64>,
    /// Runs at a time, 1 to 1024 (default: the cores).
    #[arg(long, short = 'j', value_name = "J", value_parser = parse_jobs)]
    pub(crate) jobs: Option<usize>,
    /// Find the first n that goes wrong by bisection, after a spread of n.
    ///
    /// Runs the ends and a spread of about 10 n first (from --seed), then bisects between the
    /// largest n found right and the smallest found wrong; the n not run below it are taken as
    /// right, which the report counts.
    #[arg(long)]
    pub(crate) bisect: bool,
    /// The seed of --bisect's spread, decimal or 0x-hexadecimal.
    ///
    /// Default: drawn from the system's random source; the seed used is in the report and is the JSON's `seed`.
    #[arg(long, value_name = "S", requires = "bisect", value_parser = parse_seed)]
    pub(crate) seed: Option<u64>,
    /// Keep each run's standard output and error in DIR.
    ///
    /// As N.stdout and N.stderr (what was kept of each: 1 MiB), and N.json (its status, times
    /// and peak memory); DIR is created if missing.
    #[arg(long, value_name = "DIR")]
    pub(crate) keep_output: Option<PathBuf>,
    /// Also plot each run's time and peak memory against n as an SVG file.
    #[arg(long, value_name = "FILE")]
    pub(crate) svg: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) run: RunArgs,
    #[command(flatten)]
    pub(crate) quiet: QuietArg,
}

/// `dist`'s arguments.
#[derive(Debug, Args)]
pub(crate) struct DistArgs {
    /// The tree T(N).
    #[arg(value_name = "N", value_parser = parse_whole)]
    pub(crate) n: u64,
    /// Residues modulo M only (2 <= M < 2^63), without big integers.
    #[arg(long = "mod", value_name = "M", value_parser = parse_modulus)]
    pub(crate) modulus: Option<u64>,
    /// Also plot the distribution (log scale) as an SVG file.
    #[arg(long, value_name = "FILE")]
    pub(crate) svg: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    pub(crate) json: bool,
    /// Also say on stderr the peak memory the run used.
    #[arg(long, short = 'v')]
    pub(crate) verbose: bool,
    #[command(flatten)]
    pub(crate) run: RunArgs,
    #[command(flatten)]
    pub(crate) quiet: QuietArg,
}

/// `moves`'s arguments.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("which").required(true).args(["list", "nth", "random"])))]
pub(crate) struct MovesArgs {
    /// The tree T(N).
    #[arg(value_name = "N", value_parser = parse_whole)]
    pub(crate) n: u64,
    /// The moves that leave Grundy value G.
    #[arg(long, short, value_name = "G", default_value_t = 0, value_parser = parse_whole)]
    pub(crate) g: u64,
    /// Every move to G, in preorder.
    ///
    /// Refused above a million lines without --limit.
    #[arg(long)]
    pub(crate) list: bool,
    /// Only the first K moves (with --list only).
    #[arg(long, value_name = "K", requires = "list", conflicts_with_all = ["nth", "random"], value_parser = parse_whole)]
    pub(crate) limit: Option<u64>,
    /// The I-th move to G (0-based; decimal digits, any length).
    #[arg(long, value_name = "I")]
    pub(crate) nth: Option<String>,
    /// A uniformly random move to G.
    #[arg(long)]
    pub(crate) random: bool,
    /// The seed of --random, decimal or 0x-hexadecimal.
    ///
    /// Default: drawn from the system's random source; the seed used is printed on stderr, and is the JSON's `seed`.
    #[arg(long, value_name = "S", requires = "random", value_parser = parse_seed)]
    pub(crate) seed: Option<u64>,
    /// Print one JSON object.
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) run: RunArgs,
    #[command(flatten)]
    pub(crate) quiet: QuietArg,
}

/// `rank`'s arguments.
#[derive(Debug, Args)]
pub(crate) struct RankArgs {
    /// The tree T(N).
    #[arg(value_name = "N", value_parser = parse_whole)]
    pub(crate) n: u64,
    /// The node, as its path from the root, e.g. LLR.
    ///
    /// L is the left child, T(k-1); R the right child, T(k-2).
    #[arg(value_name = "PATH")]
    pub(crate) path: String,
    /// Print one JSON object.
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) run: RunArgs,
    #[command(flatten)]
    pub(crate) quiet: QuietArg,
}

/// `draw`'s arguments.
#[derive(Debug, Args)]
pub(crate) struct DrawArgs {
    /// The tree T(K), or the trees T(A)..T(B) side by side.
    ///
    /// K, A and B are at most 14.
    #[arg(value_name = "K|A..B", allow_hyphen_values = true)]
    pub(crate) trees: String,
    /// Draw in red the moves that leave Grundy value G.
    ///
    /// By default the winning moves (G = 0).
    #[arg(long, short, value_name = "G", default_value_t = 0, value_parser = parse_whole)]
    pub(crate) g: u64,
    #[command(flatten)]
    pub(crate) output: OutputArg,
}

/// `bench`'s arguments.
#[derive(Debug, Args)]
pub(crate) struct BenchArgs {
    /// Measure f(N), 2 <= N; repeatable (default: 5000, 10000, 20000).
    #[arg(long = "n", value_name = "N", value_parser = parse_bench_n)]
    pub(crate) n: Vec<u64>,
    /// Measure with T worker threads, 1 to 1024; repeatable.
    ///
    /// Default: 1, 2, 4, ... up to the core count, and the core count itself.
    #[arg(long, value_name = "T", value_parser = parse_threads)]
    pub(crate) threads: Vec<usize>,
    /// Timed runs of each N and T, 1 to 1000; the table shows their median.
    #[arg(long, value_name = "R", default_value_t = BENCH_RUNS, value_parser = parse_runs)]
    pub(crate) runs: usize,
    #[command(flatten)]
    pub(crate) memory: MemoryArg,
    /// Measure the bottom-up count alone, not the count from both ends.
    #[arg(long)]
    pub(crate) bottom_up: bool,
    /// Cut every run into chunks of C lanes.
    ///
    /// C is 1, 2, 4, 8, 16, 32 or 64, in place of the engine's choice from the cache size and the
    /// threads.
    #[arg(long, value_name = "C", value_parser = parse_chunk_lanes)]
    pub(crate) chunk_lanes: Option<usize>,
    /// Run blocks in tiles: never, always, or where measured to pay.
    ///
    /// Only blocks whose whole layers leave L2 can run in tiles. The default is measured: each run times its first such blocks both ways and tiles a block
    /// where the tiles save its passes more than their making costs. The values are the same.
    #[arg(long, value_name = "WHEN", value_parser = parse_tiles)]
    pub(crate) tiles: Option<fibtree::TileRule>,
    /// Set two files of bench --json side by side, OLD and NEW; run nothing.
    ///
    /// For each N and T in both: the two medians, the two limb additions per ns and the ratios
    /// NEW/OLD, with each file's machine; the rows of one file only are listed. With -o, --json and
    /// -q only: the options of a run are refused.
    #[arg(
        long,
        num_args = 2,
        value_names = ["OLD", "NEW"],
        action = clap::ArgAction::Set,
        conflicts_with_all = ["n", "threads", "runs", "max_memory", "bottom_up", "chunk_lanes", "tiles", "pin", "svg",
                             "export_csv", "export_markdown"],
    )]
    pub(crate) compare: Option<Vec<PathBuf>>,
    /// Pin each worker thread of a measurement to a CPU of its own.
    ///
    /// Worker i on the i-th CPU this process may run on, one of each core first (SMT siblings
    /// last). A row of more threads than those CPUs runs unpinned, and so does every row once a
    /// pinning fails, each said once on stderr; the JSON says of each row whether it was pinned.
    #[arg(long)]
    pub(crate) pin: bool,
    /// Also plot speedup and efficiency against threads to FILE (SVG).
    ///
    /// For each N: the measured speedup over the 1-thread run, and the speedup the task graph
    /// predicts on 1 to 128 workers. Written atomically; the path is checked before any run.
    #[arg(long, value_name = "FILE")]
    pub(crate) svg: Option<PathBuf>,
    /// Also write the results to FILE as CSV, a row for each N and T.
    ///
    /// Columns: n, threads, median_s, min_s, max_s, runs, speedup, efficiency, limb_additions,
    /// limb_additions_per_ns, stream_fraction, cut, parallelism (an empty field where not measured).
    /// Written atomically; the path is checked before any run.
    #[arg(long, value_name = "FILE")]
    pub(crate) export_csv: Option<PathBuf>,
    /// Also write the results to FILE as a Markdown table.
    ///
    /// A row for each N and T, with the columns of --export-csv (`-` where not measured). Written
    /// atomically; the path is checked before any run.
    #[arg(long, value_name = "FILE")]
    pub(crate) export_markdown: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    pub(crate) json: bool,
    /// No progress lines on standard error; the results as without it.
    #[arg(short, long, visible_alias = "no-progress")]
    pub(crate) quiet: bool,
    #[command(flatten)]
    pub(crate) output: OutputArg,
    /// Testing only: perturb the independent residue for this modulus.
    #[cfg(feature = "test-hooks")]
    #[arg(long, hide = true, value_name = "M", value_parser = parse_whole, conflicts_with = "compare")]
    pub(crate) test_perturb: Option<u64>,
}

/// `table`'s arguments.
#[derive(Debug, Args)]
pub(crate) struct TableArgs {
    /// The first k.
    #[arg(value_name = "FROM", value_parser = parse_whole)]
    pub(crate) from: u64,
    /// The last k.
    #[arg(value_name = "TO", value_parser = parse_whole)]
    pub(crate) to: u64,
    /// Print one JSON object.
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) run: RunArgs,
    #[command(flatten)]
    pub(crate) quiet: QuietArg,
}
