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
