//! The usage errors of outputs and checkpoints, each before any work: an output that cannot be
//! written or is immutable, a folder without shards, a checkpoint path that cannot serve, and a
//! checkpoint damaged, truncated, foreign or of another run. Checked as `validation` checks every
//! refusal.

use std::os::unix::fs::PermissionsExt;

use super::validation::refused;
use crate::common::*;

/// An output that cannot be written is refused before any work, and nothing is made or changed.
#[test]
fn outputs_that_cannot_be_written() {
    let dir = TempDir::new("outputs");
    let claims_text = "n,g,modulus,answer\n10,0,7,3\n";
    let claims = dir.file("claims.csv", claims_text);
    // into a missing folder: every command that writes a file, with either spelling of the option
    let missing = dir.join("no-such-folder");
    let file = dir.join("no-such-folder/out.txt");
    let in_missing = format!("--output: the folder '{missing}' does not exist");
    let writers: &[&[&str]] = &[
        &["count", "10"],
        &["count", "10", "-q"],
        &["verify", "10", "--answer", "3", "--mod", "7"],
        &["verify", "--claims", &claims],
        &["dist", "10"],
        &["table", "1", "10"],
        &["grundy", "10"],
        &["brute", "7"],
        &["draw", "6"],
        &["bench", "--n", "100"],
    ];
    for args in writers {
        for flag in ["-o", "--output"] {
            let with: Vec<&str> = args.iter().copied().chain([flag, file.as_str()]).collect();
            usage_error(&with, &in_missing);
        }
    }
    // onto a folder, a file man would need as one, a read-only file, one file for two roles
    let sub = dir.join("sub");
    std::fs::create_dir(&sub).unwrap();
    let sub_slash = dir.join("sub/");
    let page = dir.file("page.1", "x");
    let read_only = dir.file("read-only.txt", "keep me\n");
    std::fs::set_permissions(&read_only, std::fs::Permissions::from_mode(0o444)).unwrap();
    let link = dir.join("link.csv");
    std::os::unix::fs::symlink(&claims, &link).unwrap();
    let same = dir.join("same");
    let also_claims = format!("--output: '{claims}' is also the file of --claims");
    let also_output = format!("--svg: '{same}' is also the file of --output");
    refused(&[
        // /proc refuses new files even to root
        (&["count", "10", "-o", "/proc/fibtree-x.txt"], "--output: cannot write in the folder '/proc'"),
        (&["count", "10", "-o", "/tmp"], "--output: '/tmp' is a folder; expected a file name"),
        (&["grundy", "10", "-o", &sub], &format!("--output: '{sub}' is a folder")),
        (&["grundy", "10", "-o", &sub_slash], &format!("--output: '{sub_slash}' is a folder")),
        (&["draw", "6", "-o", &sub], &format!("--output: '{sub}' is a folder")),
        (&["draw", "15", "-o", &dir.join("t15.svg")], "K: at most 14"),
        (&["man", "-o", &page], &format!("--output: '{page}' is not a folder")),
        (&["man", "-o", &dir.join("page.1/pages")], "--output: cannot create the folder"),
        (
            &["dist", "20", "--svg", &dir.join("no-such-folder/plot.svg")],
            &format!("--svg: the folder '{missing}' does not exist"),
        ),
        (&["count", "10", "-o", &read_only], &format!("--output: '{read_only}' is read-only")),
        (&["verify", "--claims", &claims, "-o", &claims], &also_claims),
        (&["verify", "--claims", &claims, "-o", &link], &format!("--output: '{link}' is also the file of --claims")),
        (
            &["count", "100", "-o", &same, "--checkpoint", &same],
            &format!("--output: '{same}' is also the file of --checkpoint"),
        ),
        (&["dist", "30", "-o", &same, "--svg", &same], &also_output),
    ]);
    // an existing file for two roles too
    std::fs::write(&same, "old").unwrap();
    usage_error(&["dist", "30", "-o", &same, "--svg", &same], &also_output);
    assert_eq!(dir.names(), ["claims.csv", "link.csv", "page.1", "read-only.txt", "same", "sub"]);
    for (path, text) in [(&claims, claims_text), (&page, "x"), (&read_only, "keep me\n"), (&same, "old")] {
        assert_eq!(std::fs::read_to_string(path).unwrap(), text, "{path} left as it was");
    }
    assert_eq!(std::fs::read_dir(&sub).unwrap().count(), 0, "nothing made in {sub}");
}

/// An immutable or append-only output (`chattr +i`, `+a`), which its mode does not show, is refused
/// before any work (exit 2), and left as it was. Skipped, and said, where chattr cannot set it.
#[test]
fn an_immutable_output_is_refused_before_any_work() {
    let dir = TempDir::new("immutable");
    for attribute in ["+i", "+a"] {
        let file = dir.file("result.txt", "keep me\n");
        let set =
            std::process::Command::new("chattr").args([attribute, &file]).stderr(std::process::Stdio::null()).status();
        if !set.is_ok_and(|s| s.success()) {
            skip(format!("chattr {attribute} cannot be set here (root and a file system with attributes are needed)"));
            return;
        }
        let output = fibtree(&["count", "10", "-o", &file]);
        let _ = std::process::Command::new("chattr").args([&attribute.replace('+', "-"), &file]).status();
        let err = check_usage_error(&["count", "10", "-o", &file], &output, "--output");
        assert!(err.contains(&format!("'{file}' cannot be replaced")), "chattr {attribute}: {err}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "keep me\n");
    }
}

#[test]
fn combine_of_a_folder_without_shards() {
    let empty = TempDir::new("shards-empty");
    let folder = empty.path().to_str().unwrap();
    usage_error(&["combine", folder], &format!("FILES: '{folder}' holds no shard file (*.json)"));
}

#[test]
fn checkpoint_paths_are_checked_before_any_work() {
    let dir = TempDir::new("checkpoint-path");
    // a missing folder, a folder, a FIFO (which would block the run), a file /proc will not make
    let fifo = dir.join("fifo");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let missing = dir.join("no-such-folder");
    let folder = dir.path().to_str().unwrap();
    // runs short enough to end before any save: the check is still made
    refused(&[
        (
            &["count", "100", "--checkpoint", &dir.join("no-such-folder/x.ckpt")],
            &format!("--checkpoint: the folder '{missing}' does not exist"),
        ),
        (&["count", "100", "--checkpoint", folder], &format!("--checkpoint: '{folder}' is not a regular file")),
        (&["count", "100", "--checkpoint", &fifo], &format!("--checkpoint: '{fifo}' is not a regular file")),
        (
            &["count", "100", "--checkpoint", "/proc/fibtree.ckpt"],
            "--checkpoint: cannot make its lock file in the folder '/proc'",
        ),
    ]);
    assert_eq!(dir.names(), ["fifo"]);
}

#[test]
fn checkpoint_damaged_truncated_foreign_or_of_another_run_is_refused() {
    let dir = TempDir::new("checkpoint");
    let ckpt = dir.join("run.ckpt");
    // a short run that saves at every segment and keeps its last checkpoint
    let kept = ["count", "3000", "-q", "--checkpoint", &ckpt, "--checkpoint-every", "0", "--keep-checkpoint"];
    assert_eq!(success(&kept), success(&["count", "3000", "-q"]));
    let bytes = std::fs::read(&ckpt).unwrap();
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 3] ^= 1;
    let flipped = dir.file("flipped.ckpt", flipped);
    let cut = dir.file("cut.ckpt", &bytes[..bytes.len() / 2]);
    let foreign = dir.file("foreign.ckpt", b"not a checkpoint at all");
    let made_for = format!("--checkpoint: '{ckpt}' was made for count 3000 --g 0");
    refused(&[
        (&["count", "3000", "-q", "--checkpoint", &flipped], &format!("--checkpoint: '{flipped}' is damaged")),
        (&["count", "3000", "-q", "--checkpoint", &cut], &format!("--checkpoint: '{cut}' is damaged")),
        (
            &["count", "3000", "-q", "--checkpoint", &foreign],
            &format!("--checkpoint: '{foreign}' is not a fibtree checkpoint"),
        ),
        (&["count", "3000", "-q", "--checkpoint", &ckpt, "--g", "1"], &made_for),
        (&["count", "3000", "-q", "--checkpoint", &ckpt, "--mod", "7"], &made_for),
        (
            &["count", "3000", "-q", "--checkpoint", &ckpt, "--engine", "reference"],
            "--checkpoint: checkpoints work with the blocked engine only",
        ),
    ]);
    assert_eq!(std::fs::read(&ckpt).unwrap(), bytes, "a refused run leaves the checkpoint as it was");
}
