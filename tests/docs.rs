//! Every `console` example of README.md and of the guides in docs/ is run here, by trycmd: each
//! `$ fibtree ...` line is run (split as a shell splits words, without a shell) and its standard output
//! and standard error, together, must read as the lines below it, where `[..]` stands for any part of
//! a line and `...` on a line of its own for any lines; `? N` after a command is its exit status
//! (0 where none is given). The blocks of one page run in order, in one folder: for `docs/NAME.md`,
//! a copy of `docs/NAME.in/` where that exists (the files its examples read), made afresh for each run
//! where `docs/NAME.out/` exists (the pages whose examples write files). Blocks marked `text` or `sh`
//! are not run: those that need other programs (a C compiler, GNU parallel, Slurm) or hours.
//!
//! `TRYCMD=overwrite cargo test --release --test docs` writes the real output into the pages, for a
//! page that changed on purpose (then put the `[..]` back where the output varies).

use std::path::Path;
use std::time::Duration;

#[test]
fn the_examples_of_the_readme_and_the_guides() {
    let fibtree = Path::new(env!("CARGO_BIN_EXE_fibtree"));
    // `fibtree stress` runs its command through `sh -c`: there, `fibtree` is this build
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![fibtree.parent().unwrap().to_path_buf()];
    dirs.extend(std::env::split_paths(&path));
    let path = std::env::join_paths(dirs).unwrap();
    trycmd::TestCases::new()
        .register_bin("fibtree", fibtree)
        .register_bin("cat", Path::new("/bin/cat"))
        .env("PATH", path.to_string_lossy())
        .env("FIBTREE_ISA", "auto")
        .timeout(Duration::from_secs(120))
        .case("README.md")
        .case("docs/*.md")
        .run();
}

/// Every figure of the README's section "Performance" is in docs/performance.md too, where its
/// machine and date are given: a number the README quotes cannot drift from the guide's.
#[test]
fn the_readmes_performance_figures_are_in_the_guide() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let guide = std::fs::read_to_string(root.join("docs/performance.md")).unwrap();
    let section = readme.split("\n## Performance\n").nth(1).expect("the README's Performance section");
    let section = section.split("\n## ").next().unwrap();
    // the figures with a decimal point or a unit: 0.169, 16.2 MiB, 1 min 53 s (not dates or n)
    let mut figures = Vec::new();
    for word in section.split(|c: char| c.is_whitespace() || "|(),`".contains(c)) {
        let word = word.trim_end_matches(['.', ':', ';']);
        if word.contains('.') && word.chars().all(|c| c.is_ascii_digit() || c == '.') && word.len() > 2 {
            figures.push(word.to_string());
        }
    }
    assert!(figures.len() >= 10, "the figures read: {figures:?}");
    let missing: Vec<&String> = figures.iter().filter(|f| !guide.contains(f.as_str())).collect();
    assert!(missing.is_empty(), "README figures not in docs/performance.md: {missing:?}");
}

/// The README's exit statuses are those `fibtree --help` lists, each status in both.
#[test]
fn the_readmes_exit_statuses_are_the_helps() {
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_fibtree")).arg("--help").output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    let statuses = |text: &str, prefix: &str| -> Vec<u32> {
        let mut found: Vec<u32> = text
            .lines()
            .filter_map(|l| l.strip_prefix(prefix))
            .flat_map(|l| l.split(|c: char| !c.is_ascii_digit() && c != ',').next().map(str::to_string))
            .flat_map(|first| first.split(',').filter_map(|s| s.trim().parse().ok()).collect::<Vec<u32>>())
            .collect();
        found.sort_unstable();
        found
    };
    let listed = help.split("Exit status:\n").nth(1).expect("--help lists the exit statuses");
    // `  0    success`, `  129, 130, 143  stopped ...`: the numbers that open a line
    let from_help = statuses(&listed.replace(", ", ","), "  ");
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let table = readme.split("Exit status, as `fibtree --help` gives it:").nth(1).expect("the README's exit statuses");
    let table = table.split("\n\n").nth(1).unwrap();
    let from_readme = statuses(&table.replace(", ", ","), "| ");
    assert_eq!(from_readme, from_help, "README: {table}\n--help: {listed}");
    assert_eq!(from_help, [0, 1, 2, 101, 129, 130, 143]);
}
