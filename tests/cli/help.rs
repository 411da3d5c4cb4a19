//! The help: `fibtree --help`, `-h`, `help` and every command's `-h`, `--help` and `help COMMAND`
//! fit 80 columns where they go to no terminal, the same whatever `COLUMNS` says, with each
//! command's summary on one line; and what the help says of `-v` and of `self-test`.

use std::process::Command;

use crate::common::*;

/// The commands that `fibtree --help` must list, in its order.
const COMMANDS: [&str; 18] = [
    "count",
    "verify",
    "dist",
    "table",
    "moves",
    "rank",
    "draw",
    "shard",
    "combine",
    "estimate",
    "stress",
    "bench",
    "self-test",
    "completions",
    "man",
    "grundy",
    "brute",
    "help",
];

/// The widest a line of the help may be.
const COLUMNS: usize = 80;

/// The standard output of `fibtree args` (exit status 0) with `COLUMNS` set to `columns`, or unset
/// where `None`; its standard output and error are pipes, not a terminal.
fn help_with(args: &[&str], columns: Option<&str>) -> String {
    let mut cmd = Command::new(binary());
    cmd.args(args).env_remove("COLUMNS");
    if let Some(columns) = columns {
        cmd.env("COLUMNS", columns);
    }
    let output = cmd.output().unwrap_or_else(|e| panic!("running fibtree {args:?}: {e}"));
    assert_no_panic(args, &output.stderr);
    assert_eq!(output.status.code(), Some(0), "fibtree {args:?}: {}", stderr(&output));
    stdout(&output)
}

/// The commands listed under `Commands:` in `help`: the first word of each line indented by two
/// spaces (a summary wrapped onto a further line would be indented more).
fn listed(help: &str) -> Vec<&str> {
    let section = help.lines().skip_while(|l| *l != "Commands:").skip(1).take_while(|l| !l.is_empty());
    section.map(|l| l.split_whitespace().next().unwrap_or_default()).collect()
}

/// The lines of `text` wider than [`COLUMNS`].
fn too_wide(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.chars().count() > COLUMNS).collect()
}

#[test]
fn every_help_fits_80_columns_whatever_columns_says() {
    let top = help_with(&["--help"], None);
    assert_eq!(listed(&top), COMMANDS, "one line per command, none wrapped:\n{top}");
    let mut invocations: Vec<Vec<&str>> = vec![vec!["--help"], vec!["-h"], vec!["help"]];
    for command in COMMANDS {
        invocations.extend([vec![command, "-h"], vec![command, "--help"], vec!["help", command]]);
    }
    for args in &invocations {
        let help = help_with(args, None);
        assert!(help.contains("Usage: fibtree"), "fibtree {args:?}:\n{help}");
        assert!(too_wide(&help).is_empty(), "fibtree {args:?}: lines over {COLUMNS} columns: {:#?}", too_wide(&help));
        // laid out for 80 columns where it goes to no terminal, not for COLUMNS
        for columns in ["40", "200"] {
            assert_eq!(help_with(args, Some(columns)), help, "fibtree {args:?} with COLUMNS={columns}");
        }
    }
}

/// `fibtree` alone: the short help on standard error, laid out as on standard output.
#[test]
fn the_help_without_a_command_fits_too() {
    let output = fibtree(&[]);
    assert_eq!(output.status.code(), Some(2));
    let help = stderr(&output);
    assert!(too_wide(&help).is_empty(), "lines over {COLUMNS} columns: {:#?}", too_wide(&help));
    assert_eq!(listed(&help), COMMANDS, "{help}");
}

/// The short help gives a summary, the long one the details after it.
#[test]
fn the_long_help_adds_the_details() {
    let (short, long) = (help_with(&["count", "-h"], None), help_with(&["count", "--help"], None));
    assert!(!short.contains("independent modular") && long.contains("independent modular"), "{short}\n{long}");
    // `-v` says all it prints
    let verbose = long.split("--verbose").nth(1).unwrap_or_else(|| panic!("--verbose in\n{long}"));
    let verbose: String = verbose.split("\n\n").take(2).collect::<Vec<_>>().join(" ");
    let verbose = verbose.split_whitespace().collect::<Vec<_>>().join(" ");
    for what in ["memory estimate", "the limit", "the kernel set", "the route", "the peak memory"] {
        assert!(verbose.contains(what), "{what} in --verbose's help: {verbose}");
    }
    // the self-test takes seconds, and the help names no machine's figure
    let self_test = help_with(&["self-test", "--help"], None);
    assert!(self_test.contains("in seconds") && !self_test.contains("minute"), "{self_test}");
}

/// One spelling everywhere: `-q, --quiet` on every command that draws a bar or prints a report,
/// each run with it quietly (nothing on standard error) and with its results; `-v` only as
/// `--verbose`; a shell named in any case.
#[test]
fn one_spelling_of_quiet_verbose_and_the_shells() {
    let runs: [&[&str]; 9] = [
        &["count", "300", "-q"],
        &["dist", "12", "-q"],
        &["table", "1", "5", "-q"],
        &["verify", "10", "--answer", "17", "-q"],
        &["moves", "10", "--list", "--limit", "2", "-q"],
        &["rank", "10", "LLLLLLLL", "-q"],
        &["stress", "echo 1", "--n", "3", "--quiet"],
        &["bench", "--n", "100", "--threads", "1", "--runs", "1", "-q"],
        &["bench", "--n", "100", "--threads", "1", "--runs", "1", "--no-progress"],
    ];
    for args in runs {
        let output = fibtree(args);
        assert!(!stdout(&output).is_empty(), "{args:?} prints its results");
        assert_eq!(stderr(&output), "", "{args:?} says nothing on standard error");
        if args[0] != "stress" {
            assert!(output.status.success(), "{args:?}: {}", stderr(&output));
        }
    }
    for command in ["count", "dist", "table", "verify", "moves", "rank", "stress", "bench", "combine"] {
        let help = help_with(&[command, "--help"], None);
        assert!(help.contains("-q, --quiet"), "{command} --help lists -q, --quiet:\n{help}");
        if help.contains("-v,") {
            assert!(help.contains("-v, --verbose"), "{command}'s -v is --verbose:\n{help}");
        }
    }
    usage_error(&["verify", "10", "--answer", "17", "-v"], "-v");
    for shell in ["PowerShell", "BASH", "zsh", "Fish"] {
        assert!(success(&["completions", shell]).contains("fibtree"), "completions {shell}");
    }
}
