//! The summary of the tests this `cargo test` skipped, and why: the last of the command line's test
//! targets (no harness), it lists what `skip` (tests/common/shared.rs) recorded in this run, by the
//! library's tests and the command line's, or says that none was skipped. Records of earlier runs
//! (another `cargo test` process) are left out and dropped.

#[path = "common/shared.rs"]
#[allow(unused)]
mod shared;

fn main() {
    let this_run = std::os::unix::process::parent_id().to_string();
    let records = std::fs::read_to_string(shared::SKIPS).unwrap_or_default();
    let skipped: Vec<&str> =
        records.lines().filter_map(|l| l.split_once('\t')).filter(|(run, _)| *run == this_run).map(|r| r.1).collect();
    // what earlier runs recorded is of no use now
    let kept: String = skipped.iter().map(|s| format!("{this_run}\t{s}\n")).collect();
    let _ = std::fs::write(shared::SKIPS, kept);
    match skipped.len() {
        0 => println!("\nno test was skipped in this run\n"),
        k => {
            let tests = fibtree_util::counted(k as u64, "test");
            println!("\n{tests} skipped in this run (each passed without checking what it is for):");
            for line in skipped {
                println!("  SKIPPED {line}");
            }
            println!(
                "(tests/README.md says what each kind of test needs; scripts/install-test-tools installs the tools)\n"
            );
        }
    }
}
