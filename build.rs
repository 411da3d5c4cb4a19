//! The commit the binary is built from, for `fibtree --version` (`FIBTREE_COMMIT`): read from the
//! checkout's git, or "unknown" where there is none (a source package).

use std::path::Path;
use std::process::Command;

fn main() {
    let git = Path::new(".git");
    if git.is_dir() {
        // built again when the checkout moves to another commit
        println!("cargo::rerun-if-changed=.git/HEAD");
        println!("cargo::rerun-if-changed=.git/packed-refs");
        if let Ok(head) = std::fs::read_to_string(git.join("HEAD"))
            && let Some(name) = head.trim().strip_prefix("ref: ")
        {
            println!("cargo::rerun-if-changed=.git/{name}");
        }
    }
    let commit = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo::rustc-env=FIBTREE_COMMIT={commit}");
}
