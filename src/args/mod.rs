//! The command line's definition (clap), built by [`command`] and read by [`parse`]: the commands
//! and the options they share here, each command's own in [`commands`]; the parsers of their
//! values are [`parsers`]'s, the environment variables and exit statuses it documents
//! [`documented`]'s.
//!
//! Every summary (the first paragraph of a doc comment: what `-h` and the list of commands show)
//! fits one line of 80 columns; the details follow in further paragraphs, which `--help` adds.

mod commands;
mod documented;
mod parsers;

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};

pub(super) use commands::{
    BenchArgs, CombineArgs, CountArgs, DistArgs, DrawArgs, EstimateArgs, MovesArgs, RankArgs, ShardArgs, StressArgs,
    TableArgs, VerifyArgs,
};
use documented::after_help;
pub(super) use documented::{ENVIRONMENT_VARIABLES, EXIT_STATUSES, examples_of};
pub(super) use parsers::{MAX_BENCH_RUNS, MAX_THREADS, parse_shard};
use parsers::{parse_seed, parse_size, parse_threads, parse_whole};

/// The width the help is laid out for where it goes to no terminal (a pipe, a file), whatever
/// `COLUMNS` says: the same text everywhere, and one that fits a terminal of 80 columns.
pub(super) const PIPED_HELP_WIDTH: usize = 80;

/// The widest the help is laid out for on a terminal, however wide the terminal is.
pub(super) const MAX_HELP_WIDTH: usize = 100;

/// The width to lay the help out for on `stream`: its width where it is a terminal (at most
/// [`MAX_HELP_WIDTH`]), else [`PIPED_HELP_WIDTH`]. Cost: one system call on a terminal.
pub(super) fn help_width(stream: &console::Term) -> usize {
    match stream.is_term() {
        true => stream.size_checked().map_or(PIPED_HELP_WIDTH, |(_, columns)| usize::from(columns).min(MAX_HELP_WIDTH)),
        false => PIPED_HELP_WIDTH,
    }
}

/// The command line's definition, as parsing, `--help`, the manual and the completions use it:
/// the derived [`Cli`] with [`after_help`], its help laid out for standard output
/// ([`help_width`]), and every argument that takes a value allowed to start with `-` and a digit
/// (so that `-1` is refused as a value out of range, not taken for an unknown option), every option
/// that takes one but a path allowed to start with `-` at all (`--max-memory -5M` is refused by
/// its parser, naming the option). Cost:
/// builds every command's definition afresh.
pub(super) fn command() -> clap::Command {
    // an option's value that starts with `-` (`--max-memory -5M`) is its value, refused by its
    // parser naming the option, but for a file's or a folder's name, where `-o --json` is a slip
    let negative_numbers = |arg: clap::Arg| {
        let names = arg.get_value_names().unwrap_or_default();
        let path = names.iter().any(|n| ["FILE", "DIR", "PATH"].contains(&n.as_str()));
        match arg.get_action().takes_values() {
            true if arg.get_long().is_some() && !path => arg.allow_negative_numbers(true).allow_hyphen_values(true),
            true => arg.allow_negative_numbers(true),
            false => arg,
        }
    };
    Cli::command()
        .version(version())
        .after_help(after_help())
        .term_width(help_width(&console::Term::stdout()))
        .mut_subcommands(move |sub| {
            let sub = sub.mut_args(negative_numbers);
            match documented::examples_help(sub.get_name()) {
                Some(examples) => sub.after_long_help(examples),
                None => sub,
            }
        })
}

/// What `--version` says after the name: the version, the commit built and the kernel sets the build
/// holds, e.g. `0.1.0 (commit 3428674f0c1e; kernel sets baseline, avx2, avx512)`. Made once.
pub(super) fn version() -> &'static str {
    static VERSION: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    VERSION.get_or_init(|| {
        let sets: Vec<&str> = fibtree::Isa::built().iter().map(|set| set.name()).collect();
        let commit = env!("FIBTREE_COMMIT");
        format!("{} (commit {commit}; kernel sets {})", env!("CARGO_PKG_VERSION"), sets.join(", "))
    })
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
    /// The exact count c(N, G) of the moves to Grundy value G, checked.
    ///
    /// The moves are those of the tree T(N), G = 0 for the winning moves. The count's last 18
    /// digits and its residues are checked against an independent modular computation.
    Count(CountArgs),
    /// Check a claimed c(N, G), or a residue of it, or a file of claims.
    ///
    /// A residue modulo M < 2^63 is judged by the modular engine (as `count --mod-only` computes
    /// it), checked by its run modulo a multiple of M and by the closed form's parity; a whole
    /// value, a larger modulus, or any claim with --exact, by the exact count. The verdict says
    /// which ran.
    Verify(VerifyArgs),
    /// The whole distribution c(N, g) over every g, as CSV or JSON.
    ///
    /// Every g with a non-zero count, as CSV `g,count` or as JSON.
    Dist(DistArgs),
    /// The winning moves f(k) = c(k, 0) for every k from FROM to TO.
    ///
    /// In one pass, as CSV `k,digits,last18,mod_998244353,value` or as JSON.
    Table(TableArgs),
    /// The moves to Grundy value G, named by their paths from the root.
    ///
    /// A path from the root is of L (the left child, T(k-1)) and R (the right child, T(k-2)). The
    /// moves are in preorder: all of them, the I-th, or one at random. G is 0 unless given: the
    /// winning moves.
    Moves(MovesArgs),
    /// The value left by deleting the node at PATH, and its index.
    ///
    /// Its index among the moves to that value, in preorder (as `moves` numbers them).
    Rank(RankArgs),
    /// An SVG picture of T(K) or of T(A)..T(B), the moves to G in red.
    ///
    /// The trees T(A)..T(B) are drawn side by side.
    Draw(DrawArgs),
    /// The residues of c(N, G) for shard I of S, as a file for combine.
    ///
    /// The residues modulo shard I of S of the primes that determine c(N, G), as a JSON file for
    /// `combine`: run the S shards anywhere, in any order.
    Shard(ShardArgs),
    /// The exact c(N, G) from the files of all its shards, checked.
    ///
    /// The shards' files, or folders of them; the value is checked as `count` checks it.
    Combine(CombineArgs),
    /// What counting c(N, G) will take: states, memory, time, shards.
    ///
    /// The plan's states, the limb additions, the value's size, the primes, the memory and the time
    /// on this machine, for a run in one piece and for one in S residue shards.
    Estimate(EstimateArgs),
    /// Run another program for each n and check its answers.
    ///
    /// Says from which n the program goes wrong, and for each n: OK, MISMATCH, CRASH, TIMEOUT or NO
    /// ANSWER.
    Stress(StressArgs),
    /// Time the exact engine for each N and thread count.
    ///
    /// Every run is checked against the modular engine. The table gives the median seconds, the
    /// speedup, the parallel efficiency and the limb additions per nanosecond; `of stream`, that
    /// rate per core used (the smaller of the threads and the cores) as a fraction of one core's
    /// streaming add in L2 (a[i] = b[i] + c[i] over 64-bit words: the limb addition's word
    /// operation alone), which the `stream` line gives in L2, in L3 and from memory, measured once
    /// before the timed runs. --svg plots the speedup against threads beside the task graph's
    /// prediction; --compare sets two runs' files side by side.
    Bench(BenchArgs),
    /// The verification ladder: every engine against a simpler one.
    ///
    /// Each engine is checked against the simpler one before it, on fixed and random cases, in
    /// seconds.
    SelfTest {
        /// The seed of the random cases, decimal or 0x-hexadecimal.
        ///
        /// As it is printed. Default: drawn from the system's random source (and printed).
        #[arg(long, value_name = "S", value_parser = parse_seed)]
        seed: Option<u64>,
    },
    /// Shell completions for fibtree, on standard output.
    Completions {
        /// The shell (in any case: bash, Zsh, PowerShell, ...).
        #[arg(value_enum, ignore_case = true)]
        shell: clap_complete::Shell,
    },
    /// The manual (roff), generated from the command-line definition.
    ///
    /// On standard output, one page that documents every command and its options; with -o DIR, a page
    /// per command (fibtree-count.1, ...) and fibtree.1, which refers to them.
    Man {
        /// Write a page per command into the folder DIR.
        ///
        /// DIR is created, with its parents, if missing; each page is written atomically (a
        /// temporary file renamed when complete). `-` is standard output (one page).
        #[arg(long, short = 'o', value_name = "DIR")]
        output: Option<PathBuf>,
    },
    /// The Grundy value G(K) of the Fibonacci tree T(K), any K < 2^64.
    ///
    /// From its closed form; -1 for the empty tree T(0).
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
    /// The brute-force oracles' counts c(K, g), for small K.
    ///
    /// The explicit tree (K <= 30) and first principles (K <= 7).
    Brute {
        /// The tree T(K).
        #[arg(value_name = "K", value_parser = parse_whole)]
        k: u64,
        /// Only this Grundy value.
        #[arg(long, short, value_name = "G", value_parser = parse_whole)]
        g: Option<u64>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        output: OutputArg,
    },
    /// The help of fibtree, or of one of its commands.
    ///
    /// The same as `fibtree COMMAND --help`.
    Help {
        /// The command.
        #[arg(value_name = "COMMAND")]
        command: Option<String>,
    },
}

/// Where the results go.
#[derive(Debug, Args)]
pub(super) struct OutputArg {
    /// Write the results to FILE, atomically.
    ///
    /// Into a temporary file, renamed to FILE when complete.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub(super) output: Option<PathBuf>,
}

impl Command {
    /// Whether the command was asked to be quiet (`-q, --quiet`, bench's `--no-progress`).
    pub(super) fn quiet(&self) -> bool {
        match self {
            Command::Count(args) => args.quiet,
            Command::Combine(args) => args.quiet,
            Command::Bench(args) => args.quiet,
            Command::Verify(args) => args.quiet.quiet,
            Command::Dist(args) => args.quiet.quiet,
            Command::Table(args) => args.quiet.quiet,
            Command::Moves(args) => args.quiet.quiet,
            Command::Rank(args) => args.quiet.quiet,
            Command::Stress(args) => args.quiet.quiet,
            Command::Draw(_)
            | Command::Shard(_)
            | Command::Estimate(_)
            | Command::SelfTest { .. }
            | Command::Completions { .. }
            | Command::Man { .. }
            | Command::Help { .. }
            | Command::Grundy { .. }
            | Command::Brute { .. } => false,
        }
    }
}

/// `-q`: the results alone, with no progress on standard error.
#[derive(Debug, Args)]
pub(super) struct QuietArg {
    /// No progress bar or notes on standard error; the results as without it.
    ///
    /// Warnings and errors are still said.
    #[arg(short, long)]
    pub(super) quiet: bool,
}

/// `--threads`: the worker threads of a computation.
#[derive(Debug, Args)]
pub(super) struct ThreadsArg {
    /// Worker threads (default: all cores).
    ///
    /// The answer is the same for every number of threads.
    #[arg(long, value_name = "T", value_parser = parse_threads)]
    pub(super) threads: Option<usize>,
}

/// `--max-memory`: the memory a computation may use.
#[derive(Debug, Args)]
pub(super) struct MemoryArg {
    /// The memory a run may use, e.g. 512M or 4G.
    ///
    /// Default: what the machine has available. A run that needs more is refused before it
    /// starts.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub(super) max_memory: Option<u64>,
}

impl MemoryArg {
    /// The memory limit of a run on `threads` threads (every core if `None`): `--max-memory`, or
    /// what the machine has available, and never more than the machine's cgroup, address-space and
    /// data-segment limits allow ([`fibtree::Limit::new`]). Reads those limits (a few files).
    pub(super) fn limit(&self, threads: Option<usize>) -> fibtree::Limit {
        let threads = threads.unwrap_or_else(fibtree::cores);
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
    #[arg(long, short, value_name = "G", default_value_t = 0, value_parser = parse_whole)]
    pub(super) g: u64,
}

/// How a computation runs: its threads, its exact engine, its memory and where its results go.
#[derive(Debug, Args)]
pub(super) struct RunArgs {
    #[command(flatten)]
    pub(super) threads: ThreadsArg,
    /// The exact engine (each gives the same value).
    #[arg(long, value_parser = engine_parser(), default_value = "blocked")]
    pub(super) engine: fibtree::Engine,
    #[command(flatten)]
    pub(super) memory: MemoryArg,
    #[command(flatten)]
    pub(super) output: OutputArg,
}

/// `--engine`'s values, named as the engines are, each with its help.
fn engine_parser() -> impl clap::builder::TypedValueParser<Value = fibtree::Engine> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    use fibtree::Engine;
    PossibleValuesParser::new([
        PossibleValue::new("blocked").help("Blocks of layers one limb chunk at a time"),
        PossibleValue::new("reference").help("Whole values, layer by layer"),
        PossibleValue::new("crt").help("Residues modulo primes below 2^62, combined by the Chinese remainder theorem"),
    ])
    .map(|name| match name.as_str() {
        "reference" => Engine::Reference,
        "crt" => Engine::Crt,
        _ => Engine::Blocked,
    })
}

impl RunArgs {
    /// The memory limit of the run: see [`MemoryArg::limit`].
    pub(super) fn memory_limit(&self) -> fibtree::Limit {
        self.memory.limit(self.threads.threads)
    }
}

/// Writes the text of clap's `--help` or `--version` "error" on standard output, in colour on a
/// terminal.
///
/// # Errors
/// A write error, saying it was standard output.
pub(crate) fn print_help(e: &clap::Error) -> std::io::Result<()> {
    use std::io::{IsTerminal, Write};
    let mut out = std::io::stdout().lock();
    let text = e.render();
    let text = if out.is_terminal() { text.ansi().to_string() } else { text.to_string() };
    out.write_all(text.as_bytes()).and_then(|()| out.flush()).map_err(crate::output::on_stdout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_definition_is_valid() {
        command().debug_assert();
    }

    /// Every command has examples, and each is a command line the definition reads (as a shell
    /// splits it, up to a redirection), of its own command.
    #[test]
    fn every_command_has_examples_that_parse() {
        let cmd = command();
        for sub in cmd.get_subcommands().filter(|c| !c.is_hide_set()) {
            let examples = examples_of(sub.get_name());
            assert!(!examples.is_empty(), "{} has no examples", sub.get_name());
            for e in examples {
                let words = shell_words::split(e.line).unwrap();
                let words: Vec<&str> = words.iter().map(String::as_str).take_while(|w| *w != ">").collect();
                assert_eq!(words[..2], ["fibtree", sub.get_name()], "{}", e.line);
                if let Err(err) = parse(&words) {
                    assert!(!err.use_stderr(), "{}: {err}", e.line);
                }
            }
        }
        assert_eq!(documented::EXAMPLES.len(), cmd.get_subcommands().filter(|c| !c.is_hide_set()).count());
    }

    /// Each command's summary fits its line of the list of commands in 80 columns (after the
    /// indent and the longest name, `completions`), each option's summary about 70 columns; the
    /// details are in the long help.
    #[test]
    fn summaries_fit_one_line() {
        let cmd = command();
        let column = 2 + cmd.get_subcommands().map(|c| c.get_name().len()).max().unwrap() + 2;
        for sub in cmd.get_subcommands() {
            let about = sub.get_about().map(ToString::to_string).unwrap_or_default();
            assert!(!about.is_empty() && column + about.len() < PIPED_HELP_WIDTH, "{}: {about}", sub.get_name());
            for arg in sub.get_arguments().filter(|a| !a.is_hide_set()) {
                let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
                assert!(!help.is_empty() && help.len() <= 70, "{} {}: {help}", sub.get_name(), arg.get_id());
                assert!(!help.contains('\n'), "{} {}: {help}", sub.get_name(), arg.get_id());
            }
        }
    }
}
