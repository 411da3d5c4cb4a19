//! `--output FILE` / `-o FILE` (written to a hidden temporary file `.NAME.PID.tmp` in the same
//! folder and renamed when complete) on every command, and stopping a run with SIGINT (exit 130)
//! and SIGTERM (exit 143), which must leave neither the file nor its temporary behind.

use std::io::Read;
use std::time::Duration;

use crate::common::*;

/// Runs `args` to stdout, then with `-o FILE` (and with `--output FILE`) in a fresh folder: the same
/// exit status and stderr, nothing on stdout, the file holds exactly the bytes stdout had, and the
/// folder holds nothing else (no temporary file).
fn check_output_file(args: &[&str]) {
    let plain = fibtree(args);
    assert!(!plain.stdout.is_empty(), "fibtree {args:?} prints something: {}", stderr(&plain));
    for flag in ["-o", "--output"] {
        let dir = TempDir::new("same");
        let file = dir.join("out.txt");
        let with: Vec<&str> = args.iter().copied().chain([flag, file.as_str()]).collect();
        let output = fibtree(&with);
        assert_eq!(output.status.code(), plain.status.code(), "fibtree {with:?}: {}", stderr(&output));
        assert_eq!(stdout(&output), "", "fibtree {with:?}: stdout");
        assert_eq!(stderr(&output), stderr(&plain), "fibtree {with:?}: stderr");
        let written = std::fs::read(&file).unwrap_or_else(|e| panic!("fibtree {with:?}: reading {file}: {e}"));
        assert!(written == plain.stdout, "fibtree {with:?}: the file differs from stdout");
        assert_eq!(dir.names(), ["out.txt"], "fibtree {with:?}: the folder");
    }
}

#[test]
fn output_file_has_the_bytes_of_stdout() {
    let claims = TempDir::new("claims");
    let right_wrong = claims.join("right-wrong.csv");
    std::fs::write(&right_wrong, "n,g,modulus,answer\n10,0,7,3\n10,0,1000,18\n").unwrap();
    let malformed = claims.join("malformed.csv");
    std::fs::write(&malformed, "n,g,modulus,answer\n10,0,7,3\nx,0,7,1\n").unwrap();
    let cases: &[(&[&str], i32)] = &[
        (&["count", "100"], 0),
        (&["count", "300", "-q"], 0),
        (&["count", "30", "--g", "5", "--mod", "1000000007"], 0),
        (&["verify", "100", "--answer", "783211951", "--mod", "998244353"], 0),
        (&["verify", "10", "--answer", "18", "--last-digits", "5"], 1),
        (&["verify", "10", "--answer", "3", "--mod", "7", "--json"], 0),
        (&["verify", "--claims", &right_wrong], 1),
        (&["verify", "--claims", &malformed, "--json"], 2),
        (&["dist", "30"], 0),
        (&["dist", "30", "--mod", "7", "--json"], 0),
        (&["table", "1", "100"], 0),
        (&["table", "0", "50", "--json"], 0),
        (&["grundy", "10"], 0),
        (&["grundy", "0", "--json"], 0),
        (&["brute", "7"], 0),
        (&["brute", "10", "--g", "0"], 0),
    ];
    for (args, code) in cases {
        let status = fibtree(args).status.code();
        assert_eq!(status, Some(*code), "fibtree {args:?}");
        check_output_file(args);
    }
}

#[test]
fn output_relative_path_and_overwrite() {
    let dir = TempDir::new("relative");
    // relative to the working folder
    let output = fibtree_in(dir.path(), &["grundy", "10", "-o", "g.txt"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(std::fs::read_to_string(dir.path().join("g.txt")).unwrap(), "14\n");
    // an existing file is replaced whole
    std::fs::write(dir.path().join("t.csv"), "old contents, much longer than the new ones\n".repeat(100)).unwrap();
    let output = fibtree_in(dir.path(), &["table", "10", "10", "--output", "t.csv"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("t.csv")).unwrap(),
        "k,digits,last18,mod_998244353,value\n10,2,17,17,17\n"
    );
    assert_eq!(dir.names(), ["g.txt", "t.csv"]);
}

#[test]
fn completed_table_file_is_complete() {
    let dir = TempDir::new("complete");
    let file = dir.join("t.csv");
    let plain = fibtree(&["table", "1", "2000"]);
    assert_eq!(plain.status.code(), Some(0));
    let output = fibtree(&["table", "1", "2000", "-o", &file]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.as_bytes() == plain.stdout.as_slice(), "the file differs from stdout");
    assert!(text.ends_with('\n'));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2001, "the header and k = 1..=2000");
    assert_eq!(lines[0], "k,digits,last18,mod_998244353,value");
    assert!(lines[1].starts_with("1,"), "{}", lines[1]);
    let last: Vec<&str> = lines[2000].split(',').collect();
    assert_eq!(last.len(), 5);
    assert_eq!(last[0], "2000", "the last row is k = 2000");
    assert_eq!(last[1].parse::<usize>().unwrap(), last[4].len(), "digits of f(2000)");
    assert_eq!(dir.names(), ["t.csv"]);
}

// ---------------------------------------------------------------------------------------------
// Interrupts
// ---------------------------------------------------------------------------------------------

/// Starts `table 1 30000 --threads 1 -o FILE` (minutes of work), checks after 1.5 s that it still runs with its
/// temporary file `.t.csv.PID.tmp`, sends `signal` with kill(1), and checks the exit status, the
/// message, and that the folder is left empty.
fn interrupt(signal: &str, code: i32) {
    let dir = TempDir::new(&format!("sig{signal}"));
    let file = dir.join("t.csv");
    let args = ["table", "1", "30000", "--threads", "1", "-o", &file];
    let mut child = spawn(&args);
    let pid = child.id();
    std::thread::sleep(Duration::from_millis(1500));
    let running = child.try_wait().unwrap().is_none();
    let names = dir.names();
    if !running {
        let _ = child.wait();
        panic!("table 1 30000 ended within 1.5 s; the folder holds {names:?}");
    }
    let sent = std::process::Command::new("kill")
        .args([format!("-{signal}"), pid.to_string()])
        .status()
        .expect("running kill");
    let status = wait_for_stop(&mut child, &format!("table 1 30000 after SIG{signal}"));
    assert!(sent.success(), "kill -{signal} {pid}");
    let (mut out, mut err) = (String::new(), String::new());
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert_eq!(names, [format!(".t.csv.{pid}.tmp")], "while running, only the temporary file");
    assert_eq!(status.code(), Some(code), "SIG{signal}: {status:?}, stderr {err:?}");
    assert_no_panic(&args, err.as_bytes());
    assert!(err.contains("interrupted"), "stderr: {err:?}");
    assert_eq!(out, "");
    assert!(dir.names().is_empty(), "SIG{signal} left {:?}", dir.names());
}

#[test]
fn sigint_stops_with_130_and_removes_the_file() {
    interrupt("INT", 130);
}

#[test]
fn sigterm_stops_with_143_and_removes_the_file() {
    interrupt("TERM", 143);
}
