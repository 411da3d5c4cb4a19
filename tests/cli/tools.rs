//! `fibtree grundy` and `fibtree brute`; `--version`, `help` and `man` on every command.

use crate::common::*;

// ---------------------------------------------------------------------------------------------
// grundy and brute
// ---------------------------------------------------------------------------------------------

#[test]
fn grundy_values() {
    assert_eq!(success(&["grundy", "10"]), "14\n");
    assert_eq!(success(&["grundy", "0"]), "-1\n");
    assert_eq!(success(&["grundy", "1"]), "0\n");
    let json = success_json(&["grundy", "10", "--json"]);
    assert_eq!(json["grundy"], 14);
    assert_eq!(json["k"], 10);
    let json = success_json(&["grundy", "0", "--json"]);
    assert_eq!(json["grundy"], -1);
    // docs/math.md: G(1..12) = 0 1 3 6 3 3 0 5 7 14 7 7.
    for (k, want) in (1..=12).zip([0, 1, 3, 6, 3, 3, 0, 5, 7, 14, 7, 7]) {
        assert_eq!(success(&["grundy", &k.to_string()]), format!("{want}\n"), "G({k})");
    }
    // 2^31 - 1 = 6m + 1: 0, as the recurrence run that far ends; and any K below 2^64 from the
    // closed form (G(6m + 4) = 2^64 - 2 for m + 1 = 2^61, the largest value G takes)
    assert_eq!(success(&["grundy", "2147483647"]), "0\n");
    assert_eq!(success(&["grundy", "13835058055282163710"]), "18446744073709551614\n");
    assert_eq!(success(&["grundy", "18446744073709551615"]), "12297829382473034411\n");
    // JSON: numbers up to 2^53 - 1, decimal strings above (as every command's JSON)
    let json = success_json(&["grundy", "18446744073709551615", "--json"]);
    assert_eq!(
        (json["grundy"].as_str(), json["k"].as_str()),
        (Some("12297829382473034411"), Some("18446744073709551615"))
    );
    usage_error(&["grundy", "18446744073709551616"], "K");
}

#[test]
fn brute_csv() {
    let out = success(&["brute", "7"]);
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("g,explicit_tree,first_principles"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows[0], ["0", "0", "0"], "f(7) = 0");
    let mut total = 0u64;
    for (g, row) in rows.iter().enumerate() {
        assert_eq!(row.len(), 3, "{row:?}");
        assert_eq!(row[0], g.to_string());
        assert_eq!(row[1], row[2], "the two oracles at g = {g}");
        total += row[1].parse::<u64>().unwrap();
    }
    assert_eq!(total, 32, "|T(7)| - 1 = 33 - 1 moves");

    assert_eq!(success(&["brute", "10", "--g", "0"]), "g,explicit_tree,first_principles\n0,17,\n");
    // no moves in T(0) and T(1), one in T(2); a g beyond every value counts 0 in both oracles
    for k in ["0", "1"] {
        assert_eq!(success(&["brute", k]), "g,explicit_tree,first_principles\n", "brute {k}");
    }
    assert_eq!(success(&["brute", "2"]), "g,explicit_tree,first_principles\n0,1,1\n");
    let out = success(&["brute", "5", "--g", "18446744073709551615"]);
    assert_eq!(out, "g,explicit_tree,first_principles\n18446744073709551615,0,0\n");

    // Above k = 7 only the explicit tree runs.
    let out = success(&["brute", "8"]);
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("g,explicit_tree,first_principles"));
    let first = lines.next().unwrap();
    assert_eq!(first, "0,7,", "f(8) = 7, no first-principles column");
    assert!(lines.all(|l| l.ends_with(',')), "{out}");
    assert_eq!(success(&["brute", "30", "--g", "0"]).lines().count(), 2);
}

#[test]
fn brute_json() {
    let v = success_json(&["brute", "7", "--json"]);
    assert_eq!(v["k"], 7);
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows[0]["g"], 0);
    assert_eq!(rows[0]["explicit_tree"], 0, "f(7) = 0");
    let total: u64 = rows.iter().map(|r| r["explicit_tree"].as_u64().unwrap()).sum();
    assert_eq!(total, 32, "|T(7)| - 1 = 33 - 1 moves");
    assert!(rows.iter().all(|r| r["first_principles"] == r["explicit_tree"]), "{v}");
    // above k = 7 only the explicit tree runs
    let v = success_json(&["brute", "10", "--g", "0", "--json"]);
    assert_eq!(v["rows"].as_array().unwrap().len(), 1);
    assert_eq!(v["rows"][0]["explicit_tree"], 17, "f(10) = 17");
    assert!(v["rows"][0]["first_principles"].is_null(), "{v}");
}

// ---------------------------------------------------------------------------------------------
// --version, help and man
// ---------------------------------------------------------------------------------------------

/// The commands `fibtree --help` lists.
fn commands() -> Vec<String> {
    let help = success(&["--help"]);
    let listed = help.lines().skip_while(|l| *l != "Commands:").skip(1).take_while(|l| !l.is_empty());
    let names: Vec<String> = listed.map(|l| l.split_whitespace().next().unwrap().to_string()).collect();
    assert!(names.len() >= 14 && names.contains(&"count".to_string()), "{help}");
    names
}

/// The commit of this checkout, as `git rev-parse --short=12 HEAD` gives it, where git can say.
fn checkout_commit() -> Option<String> {
    let out = std::process::Command::new("git").args(["rev-parse", "--short=12", "HEAD"]).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[test]
fn version_on_every_command_with_the_commit_and_the_kernel_sets() {
    let version = success(&["--version"]);
    let line = version.trim_end();
    let rest = line.strip_prefix(&format!("fibtree {} (commit ", env!("CARGO_PKG_VERSION"))).unwrap_or_else(|| {
        panic!("the version, then the commit: {line}");
    });
    let (commit, sets) = rest.split_once("; kernel sets ").unwrap_or_else(|| panic!("the kernel sets: {line}"));
    match checkout_commit() {
        Some(head) => assert_eq!(commit, head, "the commit built is this checkout's"),
        None => skip(format!("git cannot say this checkout's commit: the commit in {line:?} is not compared")),
    }
    assert!(sets.starts_with("baseline") && sets.ends_with(')'), "{line}");
    for command in commands() {
        for flag in ["--version", "-V"] {
            // `fibtree-count 0.1.0 (...)`: the command's name, then the same words
            let out = success(&[&command, flag]);
            assert_eq!(out.split_once(' ').map(|s| s.1), version.split_once(' ').map(|s| s.1), "{command} {flag}");
        }
    }
}

#[test]
fn help_of_every_command_and_of_help() {
    assert_eq!(success(&["help"]), success(&["--help"]));
    for command in commands() {
        let help = success(&["help", &command]);
        assert_eq!(help, success(&[&command, "--help"]), "fibtree help {command}");
        assert!(help.contains(&format!("Usage: fibtree {command}")), "{help}");
    }
    let help = success(&["help", "--help"]);
    assert!(help.contains("Usage: fibtree help [COMMAND]"), "{help}");
    assert!(success(&["help", "-h"]).contains("Usage: fibtree help"));
}

/// The manual page's form of a name: roff writes `-` as `\-`.
fn roff(name: &str) -> String {
    name.replace('-', "\\-")
}

/// The long options of `command` that its help lists (hidden ones are not).
fn long_options(command: &str) -> Vec<String> {
    let help = success(&[command, "--help"]);
    help.split_whitespace()
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(|w| w.trim_end_matches([',', '.', ')', ':']).to_string())
        .filter(|w| w[2..].chars().all(|c| c.is_ascii_lowercase() || c == '-'))
        .collect()
}

#[test]
fn man_on_standard_output_is_one_page_of_every_command_and_option() {
    let page = success(&["man"]);
    assert!(page.contains(".TH fibtree 1"), "{page}");
    assert_eq!(page.matches(".TH ").count(), 1, "one page");
    assert_eq!(page.matches(".ie \\n(.g .ds Aq").count(), 1, "roff's preamble once");
    // no reference to another page: this one is the whole manual
    for command in commands() {
        assert!(!page.contains(&format!("fibtree\\-{}(1)", roff(&command))), "{page}");
    }
    for command in commands() {
        let heading = format!(".SS \"fibtree {}\"", roff(&command));
        let at = page.find(&heading).unwrap_or_else(|| panic!("{heading} in the page"));
        // the command's options, in its subsection (before the next command's)
        let section = &page[at + heading.len()..];
        let section = &section[..section.find(".SS ").unwrap_or(section.len())];
        for option in long_options(&command) {
            assert!(section.contains(&roff(&option)), "fibtree {command} {option} in the page: {section}");
        }
    }
    assert!(page.contains(&roff("--checkpoint-every")) && page.contains(&roff("--mod-only")));
}

#[test]
fn man_into_a_folder_writes_a_page_per_command_and_every_page_referred_to() {
    let dir = TempDir::new("man");
    let folder = dir.join("new/pages"); // created, with its parent
    let (out, _) = success_with_stderr(&["man", "-o", &folder]);
    assert!(out.is_empty(), "{out}");
    let mut names: Vec<String> =
        std::fs::read_dir(&folder).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    let mut want: Vec<String> = commands().iter().map(|c| format!("fibtree-{c}.1")).collect();
    want.push("fibtree.1".into());
    want.sort();
    assert_eq!(names, want, "a page per command and the main page, no temporary file left");
    let read = |name: &str| std::fs::read_to_string(std::path::Path::new(&folder).join(name)).unwrap();
    let main = read("fibtree.1");
    // every page the main page refers to is written
    for reference in main.match_indices("(1)").map(|(i, _)| &main[main[..i].rfind('\n').unwrap() + 1..i]) {
        let file = format!("{}.1", reference.replace("\\-", "-"));
        assert!(names.contains(&file), "fibtree.1 refers to {reference}(1), but {file} is not written");
    }
    assert_eq!(main.matches("(1)").count(), commands().len(), "{main}");
    for command in commands() {
        let page = read(&format!("fibtree-{command}.1"));
        assert!(page.contains(&format!(".TH fibtree-{command} 1")), "{page}");
        for option in long_options(&command) {
            assert!(page.contains(&roff(&option)), "fibtree-{command}.1 documents {option}");
        }
        // its examples, the same as its --help lists, and the exit statuses, each a section
        let examples = page.split(".SH EXAMPLES\n").nth(1).unwrap_or_else(|| panic!("EXAMPLES in fibtree-{command}.1"));
        let help = success(&[command.as_str(), "--help"]);
        let listed = help.split("Examples:\n").nth(1).unwrap_or_else(|| panic!("Examples in {command} --help"));
        for line in listed.lines().filter(|l| l.starts_with("  fibtree ")) {
            assert!(examples.contains(&roff(line.trim())), "fibtree-{command}.1: {line}");
        }
        assert!(page.contains(".SH \"EXIT STATUS\"\n.TP\n\\fB0\\fR"), "EXIT STATUS in fibtree-{command}.1");
        assert!(!page.contains(".SH EXTRA"), "no section of clap's own in fibtree-{command}.1");
    }
    // again into the same folder: the pages are replaced
    success(&["man", "-o", &folder]);
    assert_eq!(std::fs::read_dir(&folder).unwrap().count(), want.len());
}

/// `man -o -` is the one page on standard output, as `man` alone (no folder named `-`).
#[test]
fn man_to_a_dash_is_standard_output() {
    let dir = TempDir::new("man-dash");
    let output = fibtree_in(dir.path(), &["man", "-o", "-"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), success(&["man"]));
    assert!(dir.names().is_empty(), "{:?}", dir.names());
}

/// `fibtree` alone prints the short help on standard error (every command listed) and exits 2.
#[test]
fn no_command_prints_the_help() {
    let output = fibtree(&[]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(output.stdout.is_empty(), "{}", stdout(&output));
    assert!(err.contains("Usage: fibtree"), "{err}");
    for command in commands() {
        assert!(err.lines().any(|l| l.trim_start().starts_with(&command)), "{command} in\n{err}");
    }
}

/// `--help` and the manual say what each exit status means (and every command's help, through
/// the top-level one: the statuses are the same for all).
#[test]
fn help_and_manual_list_the_exit_statuses() {
    let help = success(&["--help"]);
    let listed = help.split("Exit status:\n").nth(1).unwrap_or_else(|| panic!("an exit status list in\n{help}"));
    for status in ["0 ", "1 ", "2 ", "101 ", "129, 130, 143 "] {
        assert!(listed.lines().any(|l| l.trim_start().starts_with(status)), "{status:?} in\n{listed}");
    }
    let man = success(&["man"]);
    let section =
        man.split(".SH \"EXIT STATUS\"\n").nth(1).unwrap_or_else(|| panic!("an EXIT STATUS section in\n{man}"));
    for status in ["0", "1", "2", "101", "129", "130", "143"] {
        assert!(section.contains(&format!(".TP\n\\fB{status}\\fR\n")), "{status} in\n{section}");
    }
}
