//! The environment variables and the exit statuses that `--help` lists after its options and the
//! manual in sections of their own: one table of each, from which both are written.

/// A name the manual and `--help` document (an environment variable, an exit status): a summary
/// for `--help`, on lines as it shows them, and a paragraph for the manual.
pub(in crate::cli) struct Documented {
    /// The variable or the status.
    pub(in crate::cli) name: &'static str,
    /// `--help`'s summary; entries in a row with the same summary share its line.
    pub(in crate::cli) summary: &'static str,
    /// The manual's paragraph.
    pub(in crate::cli) text: &'static str,
}

/// The environment variables fibtree reads, with what they do: listed by `--help` after its options
/// and by the manual's ENVIRONMENT section.
pub(in crate::cli) const ENVIRONMENT_VARIABLES: [Documented; 1] = [Documented {
    name: "FIBTREE_ISA",
    summary: "auto (the kernels measured fastest on this CPU; also when\n\
              empty or unset), baseline, avx2 or avx512, in any case; a\n\
              set this CPU lacks is refused (exit 2)",
    text: "The vector kernels: auto (also when empty or unset: for the exact engine the set measured fastest on this \
           CPU, once per run, in a few milliseconds; for the modular sweep the widest), baseline (the portable code as \
           compiled for the build's target), avx2 or avx512, in any case. A set this CPU lacks, or any other value, is \
           refused (exit 2) by every command that computes.",
}];

/// What a signal that stops a run says in `--help` (the statuses 129, 130 and 143 share a line).
const STOPPED: &str = "stopped by SIGHUP, SIGINT or SIGTERM (a checkpoint,\n\
                       if asked for, is saved)";

/// The exit statuses of every command, with what each means: listed by `--help` and by the
/// manual's EXIT STATUS section.
pub(in crate::cli) const EXIT_STATUSES: [Documented; 7] = [
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
