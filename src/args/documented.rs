//! The environment variables and the exit statuses that `--help` lists after its options and the
//! manual in sections of their own: one table of each, from which both are written.

/// A name the manual and `--help` document (an environment variable, an exit status): a summary
/// for `--help`, on lines as it shows them, and a paragraph for the manual.
pub(crate) struct Documented {
    /// The variable or the status.
    pub(crate) name: &'static str,
    /// `--help`'s summary; entries in a row with the same summary share its line.
    pub(crate) summary: &'static str,
    /// The manual's paragraph.
    pub(crate) text: &'static str,
}

/// The environment variables fibtree reads, with what they do: listed by `--help` after its options
/// and by the manual's ENVIRONMENT section.
pub(crate) const ENVIRONMENT_VARIABLES: [Documented; 2] = [
    Documented {
        name: "FIBTREE_ISA",
        summary: "auto (the kernels measured fastest on this CPU; also when\n\
                  empty or unset), baseline, avx2 or avx512, in any case; a\n\
                  set this CPU lacks is refused (exit 2)",
        text: "The vector kernels: auto (also when empty or unset: for the exact engine the set measured fastest on \
               this CPU, once per run, in a few milliseconds; for the modular sweep the widest), baseline (the portable \
               code as compiled for the build's target), avx2 or avx512, in any case. A set this CPU lacks, or any \
               other value, is refused (exit 2) by every command that computes.",
    },
    Documented {
        name: "FIBTREE_MACHINE",
        summary: "another machine, simulated: l2=SIZE|none, l3=SIZE|none,\n\
                  cores=C, kernels=SET, memory=SIZE, comma-separated",
        text: "Another machine, simulated, for what fibtree decides from the machine: l2=SIZE and l3=SIZE (16K to 1T, \
               or none: not reported), cores=C (1 to 4096), kernels=SET (the widest set, no wider than the CPU's) and \
               memory=SIZE (the memory available), comma-separated, each optional. An invalid value is refused (exit \
               2) by every command that computes.",
    },
];

/// What a signal that stops a run says in `--help` (the statuses 129, 130 and 143 share a line).
const STOPPED: &str = "stopped by SIGHUP, SIGINT or SIGTERM (a checkpoint,\n\
                       if asked for, is saved)";

/// The exit statuses of every command, with what each means: listed by `--help` and by the
/// manual's EXIT STATUS section.
pub(crate) const EXIT_STATUSES: [Documented; 7] = [
    Documented {
        name: "0",
        summary: "success (also when a reader closes the output pipe early)",
        text: "Success; also when a reader closes the output pipe early.",
    },
    Documented {
        name: "1",
        summary: "a check failed (a value and its independent residue, a double check,\n\
                  a wrong claim), or a file failed",
        text: "A check failed (an exact value and its independent residue, a double check, a claim that is wrong), \
               or an input or output file failed.",
    },
    Documented {
        name: "2",
        summary: "bad input, or a run refused before any work (more memory than the limit)",
        text: "Bad input, named on one line (an argument, a file, a checkpoint), or a run refused before any work \
               (more memory than the limit).",
    },
    Documented {
        name: "101",
        summary: "an internal error (a bug)",
        text: "An internal error (a bug): please report it.",
    },
    Documented { name: "129", summary: STOPPED, text: "Stopped by SIGHUP (a checkpoint, if asked for, is saved)." },
    Documented {
        name: "130",
        summary: STOPPED,
        text: "Stopped by SIGINT (Ctrl-C; a checkpoint, if asked for, is saved).",
    },
    Documented { name: "143", summary: STOPPED, text: "Stopped by SIGTERM (a checkpoint, if asked for, is saved)." },
];

/// `entries` under `title`, as `--help` lists them: a line per summary, its names in a column as
/// wide as the longest name (entries sharing a summary named together, `129, 130, 143`, and their
/// summary after them), its further lines indented as its first. Each summary's lines are short
/// enough for the whole to fit 80 columns, as `--help` is laid out (a test checks it).
fn listed(title: &str, entries: &[Documented]) -> String {
    // laid out here: clap lays out the options' help, not a table of its after_help text
    let width = entries.iter().map(|e| e.name.len()).max().unwrap_or(0) + 2;
    let mut out = format!("{title}:\n");
    for group in entries.chunk_by(|a, b| a.summary == b.summary) {
        let names = group.iter().map(|e| e.name).collect::<Vec<_>>().join(", ") + "  ";
        let column = width.max(names.len());
        for (i, line) in group[0].summary.lines().enumerate() {
            let label = if i == 0 { names.as_str() } else { "" };
            out.push_str(&format!("  {label:<column$}{line}\n"));
        }
    }
    out
}

/// What `--help` says after the options: the environment variables and the exit statuses, from
/// [`ENVIRONMENT_VARIABLES`] and [`EXIT_STATUSES`].
pub(super) fn after_help() -> String {
    let text = format!("{}\n{}", listed("Environment", &ENVIRONMENT_VARIABLES), listed("Exit status", &EXIT_STATUSES));
    text.trim_end().to_string()
}

/// A command line that shows a command at work, and what it does: `--help` lists a command's after
/// its options, the manual in its EXAMPLES section. Each is a whole command line as a shell reads
/// it, parsed by the tests.
pub(crate) struct Example {
    /// The command line.
    pub(crate) line: &'static str,
    /// What it does, in a line.
    pub(crate) what: &'static str,
}

/// Shorthand for an [`Example`].
const fn ex(line: &'static str, what: &'static str) -> Example {
    Example { line, what }
}

/// Each command's examples, by the command's name.
pub(crate) const EXAMPLES: [(&str, &[Example]); 18] = [
    (
        "count",
        &[
            ex("fibtree count 10000", "f(10000) exactly, each projection checked"),
            ex("fibtree count 30 -g 5 --mod 1e9+7", "c(30, 5), also modulo 10^9 + 7"),
            ex("fibtree count 10000 --mod-only", "its residues alone, by the modular engine"),
            ex("fibtree count 100000 --checkpoint f.ckpt", "a long count that resumes if stopped"),
        ],
    ),
    (
        "verify",
        &[
            ex("fibtree verify 10000 --answer 163314502 --mod 998244353", "a residue, by the modular engine"),
            ex("fibtree verify 100 --answer 29580893155023212545", "a whole count, by the exact one"),
            ex("fibtree verify --claims answers.csv", "a file of claims, each judged on its own"),
        ],
    ),
    (
        "dist",
        &[
            ex("fibtree dist 12", "c(12, g) for every g, as CSV"),
            ex("fibtree dist 2000 --svg dist.svg > dist.csv", "and its plot"),
        ],
    ),
    (
        "table",
        &[
            ex("fibtree table 1 30", "f(1) to f(30), as CSV"),
            ex("fibtree table 1000 1010 --json", "f(1000) to f(1010), as JSON"),
        ],
    ),
    (
        "moves",
        &[
            ex("fibtree moves 6 --list", "the winning moves of T(6), by their paths"),
            ex("fibtree moves 10000 --random", "one winning move of T(10000) at random"),
        ],
    ),
    ("rank", &[ex("fibtree rank 6 LLLR", "the value the move LLLR leaves, and its index")]),
    (
        "draw",
        &[
            ex("fibtree draw 6 -o t6.svg", "T(6), its winning moves in red"),
            ex("fibtree draw 1..6 -o trees.svg", "T(1) to T(6) side by side"),
        ],
    ),
    ("shard", &[ex("fibtree shard 20000 --shard 3/8 -o out/3.json", "shard 3 of 8 of f(20000)")]),
    ("combine", &[ex("fibtree combine out/", "f(20000) from the 8 shards in out/")]),
    (
        "estimate",
        &[
            ex("fibtree estimate 100000", "what f(100000) will take, in one piece and in shards"),
            ex("fibtree estimate 1000000 --census", "the same of f(10^6), its states counted"),
        ],
    ),
    (
        "stress",
        &[
            ex("fibtree stress './solve {}' --n 1..100", "run ./solve N for n = 1 to 100, check each"),
            ex("fibtree stress './solve' --n 1..1000 --bisect", "where a solver reading n goes wrong"),
            ex("fibtree stress './solve {}' --n 100..2000:100 --time-limit 1", "and judge its time"),
        ],
    ),
    (
        "bench",
        &[
            ex("fibtree bench", "f(20000) on 1, 2, 4, ... threads, every run checked"),
            ex("fibtree bench --n 5000 --threads 1 --json", "one figure, as JSON"),
            ex("fibtree bench --n 20000 --pin --svg scaling.svg", "workers pinned to cores; speedup plotted"),
            ex("fibtree bench --compare old.json new.json", "two files of bench --json -o, side by side"),
        ],
    ),
    ("self-test", &[ex("fibtree self-test", "every engine against a simpler one, in seconds")]),
    ("completions", &[ex("fibtree completions bash > ~/.local/share/bash-completion/completions/fibtree", "for bash")]),
    ("man", &[ex("fibtree man -o ~/.local/share/man/man1", "a page per command; then man fibtree-count")]),
    ("grundy", &[ex("fibtree grundy 10", "G(10) = 14")]),
    ("brute", &[ex("fibtree brute 10", "c(10, g) for every g, by the oracles")]),
    ("help", &[ex("fibtree help count", "count's options")]),
];

/// The examples of the command `name` (none for an unknown name).
pub(crate) fn examples_of(name: &str) -> &'static [Example] {
    EXAMPLES.iter().find(|(command, _)| *command == name).map_or(&[], |(_, examples)| examples)
}

/// What a command's long `--help` says after its options: its examples, each line with what it does
/// under it, and where the exit statuses are.
pub(super) fn examples_help(name: &str) -> Option<String> {
    let examples = examples_of(name);
    if examples.is_empty() {
        return None;
    }
    let mut text = String::from("Examples:\n");
    for e in examples {
        text.push_str(&format!("  {}\n      {}\n", e.line, e.what));
    }
    text.push_str("\nExit status: as `fibtree --help` lists them (0 success, 1 a failed check, 2 bad input).");
    Some(text)
}
