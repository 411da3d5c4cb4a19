//! `fibtree moves` and `fibtree rank`: the listed moves against the explicit tree, the walk and
//! its inverse against each other, and every path checked by an evaluation written here, apart
//! from the library; long listings streamed under an address-space limit, stopped by a signal and
//! ended by a closed pipe.

use num_bigint::BigUint;
use serde_json::Value;

use crate::common::*;

/// 1 + G(k) for k = 0..=n, computed here: 0, 1, then (a xor b) + 1.
fn edges(n: usize) -> Vec<u64> {
    let mut e = vec![0u64, 1];
    for k in 2..=n {
        e.push((e[k - 1] ^ e[k - 2]) + 1);
    }
    e
}

/// The value left by deleting the node at `path` of T(n): the Grundy value of the tree with that
/// subtree removed, by the colon principle, recursively from the root.
fn value_after(n: usize, path: &[u8], e: &[u64]) -> u64 {
    // the value of T(k) with the node at `path` (relative to it) removed; an empty path removes it
    fn val(k: usize, path: &[u8], e: &[u64]) -> Option<u64> {
        let (&step, rest) = path.split_first()?;
        let (child, sibling) = if step == b'L' { (k - 1, k - 2) } else { (k - 2, k - 1) };
        let contribution = val(child, rest, e).map_or(0, |v| v + 1);
        Some(contribution ^ e[sibling])
    }
    val(n, path, e).expect("a move is a non-root node")
}

/// The paths of T(k) in preorder, left subtree before right.
fn preorder(k: usize) -> Vec<String> {
    fn walk(k: usize, path: &mut String, out: &mut Vec<String>) {
        for (step, child) in [('L', 1), ('R', 2)] {
            if k > child {
                path.push(step);
                out.push(path.clone());
                walk(k - child, path, out);
                path.pop();
            }
        }
    }
    let mut out = Vec::new();
    walk(k, &mut String::new(), &mut out);
    out
}

#[test]
fn list_is_every_move_to_g_in_preorder_up_to_20() {
    for n in 0..=20usize {
        let e = edges(n.max(2));
        let all = preorder(n);
        assert_eq!(all.len() as u64 + 1, fibtree::tree_size(n as u64).try_into().unwrap_or(0u64).max(1));
        for g in [0u64, 1, 2, 3, 5, 9] {
            let want: Vec<&str> =
                all.iter().filter(|p| value_after(n, p.as_bytes(), &e) == g).map(String::as_str).collect();
            let out = success(&["moves", &n.to_string(), "--g", &g.to_string(), "--list"]);
            let got: Vec<&str> = out.lines().collect();
            assert_eq!(got, want, "moves {n} --g {g} --list");
            assert_eq!(got.len() as u64, fibtree::count_mod(n as u64, g, 1 << 62).unwrap(), "c({n}, {g})");
        }
    }
}

#[test]
fn limit_and_json() {
    let out = success(&["moves", "12", "--list", "--limit", "4"]);
    let all = success(&["moves", "12", "--list"]);
    assert_eq!(out.lines().collect::<Vec<_>>(), all.lines().take(4).collect::<Vec<_>>());
    let v: Value = serde_json::from_str(&success(&["moves", "12", "--list", "--limit", "2", "--json"])).unwrap();
    assert_eq!(v["n"], 12);
    assert_eq!(v["g"], 0);
    assert_eq!(v["count"], fibtree::count(12, 0).unwrap().to_string());
    assert_eq!(v["moves"][1]["index"], "1");
    assert_eq!(v["moves"][1]["path"], all.lines().nth(1).unwrap());
}

#[test]
fn nth_then_rank_round_trip_at_500_and_3000() {
    let seed = 0x5EED_0000_0005_0003u64;
    println!("seed = {seed:#x}");
    let mut rng = SplitMix64(seed);
    for (n, g) in [(500usize, 0u64), (500, 6), (3000, 0)] {
        let e = edges(n);
        let count = fibtree::count(n as u64, g).unwrap();
        for _ in 0..3 {
            let i = rng.below_big(&count).to_string();
            let path = success(&["moves", &n.to_string(), "--g", &g.to_string(), "--nth", &i]);
            let path = path.trim_end();
            assert_eq!(value_after(n, path.as_bytes(), &e), g, "moves {n} --nth {i}");
            let v: Value = serde_json::from_str(&success(&["rank", &n.to_string(), path, "--json"])).unwrap();
            assert_eq!(v["value"], g);
            assert_eq!(v["index"], i.as_str(), "rank of moves {n} --g {g} --nth {i}");
        }
    }
}

#[test]
fn first_and_last_winning_moves_of_t10000() {
    let n = 10_000usize;
    let e = edges(n);
    let count = fibtree::count(n as u64, 0).unwrap();
    for i in [BigUint::ZERO, &count - 1u32] {
        let path = success(&["moves", "10000", "--nth", &i.to_string()]);
        let path = path.trim_end();
        assert!(path.bytes().all(|b| b == b'L' || b == b'R'), "{path}");
        assert_eq!(value_after(n, path.as_bytes(), &e), 0, "moves 10000 --nth {i}");
    }
}

#[test]
fn random_is_reproducible_with_a_seed() {
    let a = fibtree(&["moves", "300", "--random", "--seed", "42"]);
    let b = fibtree(&["moves", "300", "--random", "--seed", "42"]);
    assert_eq!(a.status.code(), Some(0));
    assert_eq!(a.stdout, b.stdout);
    let err = stderr(&a);
    assert!(err.contains("seed 0x2a") && err.starts_with("index "), "{err}");
    let path = stdout(&a);
    assert_eq!(value_after(300, path.trim_end().as_bytes(), &edges(300)), 0);
}

/// `index` as a message shows it: whole up to 40 digits, else its first and last 20 and its length.
fn cut(index: &str) -> String {
    match index.len() {
        len if len > 40 => format!("{}...{} ({len} digits)", &index[..20], &index[len - 20..]),
        _ => index.to_string(),
    }
}

/// The index of a random move, said on stderr, is cut as every long number of a message is (f(500)
/// has 105 digits, and so have most of its indices); the JSON has it whole, and the seed repeats it.
#[test]
fn a_long_random_index_is_cut_on_stderr() {
    let args = ["moves", "500", "--random", "--seed", "7", "--json"];
    let (out, err) = success_with_stderr(&args);
    let index = json_line(&args, &out)["moves"][0]["index"].as_str().unwrap().to_string();
    assert!(index.len() > 40, "seed 7 picks an index of {} digits: {index}", index.len());
    let cut = format!("{}...{} ({} digits)", &index[..20], &index[index.len() - 20..], index.len());
    assert_eq!(err, format!("index {cut} (seed 0x7)\n"));
    let (_, err) = success_with_stderr(&["moves", "500", "--random", "--seed", "7"]);
    assert_eq!(err, format!("index {cut} (seed 0x7)\n"), "in every form");
    // a short index is whole
    let (_, err) = success_with_stderr(&["moves", "12", "--random", "--seed", "7"]);
    assert!(err.starts_with("index ") && !err.contains("digits)"), "{err}");
}

#[test]
fn random_reports_its_seed_in_every_form() {
    // without --seed the seed comes from the clock: stderr and the JSON both give it, and it repeats
    // the pick
    let (out, err) = success_with_stderr(&["moves", "300", "--random", "--json"]);
    let v = json_line(&["moves", "300", "--random", "--json"], &out);
    let seed = v["seed"].as_str().unwrap_or_else(|| panic!("a seed string in {out}"));
    let hex = seed.strip_prefix("0x").unwrap_or_else(|| panic!("0x and hexadecimal digits: {seed}"));
    u64::from_str_radix(hex, 16).unwrap_or_else(|e| panic!("{seed}: {e}"));
    let index = v["moves"][0]["index"].as_str().unwrap();
    assert_eq!(err, format!("index {} (seed {seed})\n", cut(index)));
    let again = success(&["moves", "300", "--random", "--seed", seed]);
    assert_eq!(again.trim_end(), v["moves"][0]["path"].as_str().unwrap());
    // the human form: the same line on stderr
    let (_, err) = success_with_stderr(&["moves", "300", "--random"]);
    assert!(err.starts_with("index ") && err.contains(" (seed "), "{err}");
    // no seed where nothing is random
    let v = success_json(&["moves", "12", "--nth", "3", "--json"]);
    assert!(v.get("seed").is_none(), "{v}");
    let v = success_json(&["moves", "12", "--list", "--json"]);
    assert!(v.get("seed").is_none(), "{v}");
}

/// A g above every value a move can leave has no move, said at once (no plan of its window, which at
/// g = 99999999 would need about 29 GiB): --nth and --random refuse, --list lists none.
#[test]
fn no_move_leaves_a_value_known_to_count_zero() {
    let start = std::time::Instant::now();
    let err = usage_error(&["moves", "10000", "--nth", "0", "--g", "99999999"], "--nth");
    assert!(err.contains("c(10000, 99999999) = 0"), "{err}");
    let err = usage_error(&["moves", "10000", "--random", "--g", "99999999"], "--random");
    assert!(err.contains("no move to value 99999999"), "{err}");
    let json = success_json(&["moves", "10000", "--list", "--g", "99999999", "--json"]);
    assert_eq!((json["count"].as_str(), json["moves"].as_array().map(Vec::len)), (Some("0"), Some(0)), "{json}");
    assert!(start.elapsed().as_secs() < 10, "{:?}", start.elapsed());
}

// ---------------------------------------------------------------------------------------------
// Long listings: streamed in bounded memory, stopped by a signal, ended by a closed pipe
// ---------------------------------------------------------------------------------------------

/// The address-space limit (`ulimit -v`, in KiB) the long listings run under: far below what a
/// million paths of T(200) take when kept (about 280 MB), well above what one walk takes.
const ADDRESS_SPACE_KIB: u32 = 150_000;

/// Starts `fibtree args` under `ulimit -v` [`ADDRESS_SPACE_KIB`] from `sh -c` (which `exec`s it, so
/// that a signal sent to the child reaches fibtree), standard output and error piped; `None` where
/// no shell can set the limit.
fn limited(args: &[&str]) -> Option<std::process::Child> {
    use std::process::{Command, Stdio};
    let script = format!("ulimit -v {ADDRESS_SPACE_KIB} && exec \"$@\"");
    let can = Command::new("sh").args(["-c", &script, "sh", "true"]).status().is_ok_and(|s| s.success());
    if !can {
        return None;
    }
    let child = Command::new("sh")
        .args(["-c", &script, "sh"])
        .arg(binary())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("starting fibtree {args:?} under ulimit -v: {e}"));
    Some(child)
}

/// The standard error of a child that has ended, checked for a panic.
fn stderr_of(child: &mut std::process::Child, args: &[&str]) -> String {
    use std::io::Read;
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert_no_panic(args, err.as_bytes());
    err
}

/// What a run under [`limited`] wrote: its exit status, the bytes of its standard output, their
/// count of `byte`, their first and last 16 bytes, and its standard error.
struct Streamed {
    status: std::process::ExitStatus,
    bytes: u64,
    count: u64,
    head: Vec<u8>,
    tail: Vec<u8>,
    err: String,
}

/// Runs `fibtree args` under [`limited`], reading its standard output as it comes (nothing of it
/// kept but its ends) and counting `byte` in it.
fn streamed(args: &[&str], byte: u8) -> Option<Streamed> {
    use std::io::Read;
    let mut child = limited(args)?;
    let mut out = child.stdout.take().unwrap();
    let (mut bytes, mut count, mut head, mut tail) = (0u64, 0u64, Vec::new(), Vec::new());
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let read = out.read(&mut buf).unwrap();
        if read == 0 {
            break;
        }
        let chunk = &buf[..read];
        bytes += read as u64;
        count += chunk.iter().filter(|&&b| b == byte).count() as u64;
        head.extend(chunk.iter().take(16 - head.len().min(16)));
        tail.extend_from_slice(chunk);
        tail.drain(..tail.len().saturating_sub(16));
    }
    let status = wait_for_stop(&mut child, &format!("fibtree {args:?}"));
    let err = stderr_of(&mut child, args);
    Some(Streamed { status, bytes, count, head, tail, err })
}

/// A million moves of T(200), listed under an address-space limit far below what they take when
/// kept, come out whole: a line a move, or one JSON object holding them all, written as found.
#[test]
fn a_long_list_streams_in_bounded_memory() {
    let args = ["moves", "200", "--list", "--limit", "1000000", "--threads", "1"];
    let Some(lines) = streamed(&args, b'\n') else {
        skip(format!("no sh to set ulimit -v {ADDRESS_SPACE_KIB}"));
        return;
    };
    assert_eq!(lines.status.code(), Some(0), "{args:?}: {:?}, stderr {}", lines.status, lines.err);
    assert_eq!((lines.count, lines.err.as_str()), (1_000_000, ""), "{args:?}");
    assert!(lines.bytes > 100_000_000, "{args:?}: paths of about 190 steps, got {} bytes", lines.bytes);
    let first = success(&["moves", "200", "--list", "--limit", "1"]);
    assert!(first.as_bytes().starts_with(&lines.head[..first.len().min(16)]), "{first} against {:?}", lines.head);
    let json = [&args[..], &["--json"]].concat();
    let objects = streamed(&json, b'{').unwrap();
    assert_eq!(objects.status.code(), Some(0), "{json:?}: {:?}, stderr {}", objects.status, objects.err);
    assert_eq!((objects.count, objects.err.as_str()), (1_000_001, ""), "{json:?}: the result and each move");
    assert!(objects.head.starts_with(b"{\"count\":\""), "{:?}", String::from_utf8_lossy(&objects.head));
    assert!(objects.tail.ends_with(b"\"}],\"n\":200}\n"), "{:?}", String::from_utf8_lossy(&objects.tail));
}

/// The streamed JSON is the one object it was when the list was kept: byte for byte, built here.
#[test]
fn the_listed_json_is_one_object_as_before() {
    let all = success(&["moves", "12", "--g", "1", "--list"]);
    let count = fibtree::count(12, 1).unwrap();
    let moves: Vec<String> =
        all.lines().enumerate().map(|(i, p)| format!("{{\"index\":\"{i}\",\"path\":\"{p}\"}}")).collect();
    let want = format!("{{\"count\":\"{count}\",\"g\":1,\"moves\":[{}],\"n\":12}}\n", moves.join(","));
    assert_eq!(success(&["moves", "12", "--g", "1", "--list", "--json"]), want);
    let first = format!("{{\"count\":\"{count}\",\"g\":1,\"moves\":[{}],\"n\":12}}\n", moves[0]);
    assert_eq!(success(&["moves", "12", "--g", "1", "--list", "--json", "--limit", "1"]), first);
    let none = format!("{{\"count\":\"{count}\",\"g\":1,\"moves\":[],\"n\":12}}\n");
    assert_eq!(success(&["moves", "12", "--g", "1", "--list", "--json", "--limit", "0"]), none);
}

/// SIGINT stops a listing of 10^8 moves of T(3000) with status 130, its output file not written (no
/// temporary left); SIGTERM with 143.
#[test]
fn a_signal_stops_a_long_listing() {
    let dir = TempDir::new("moves-signal");
    let file = dir.join("moves.txt");
    let to_file = ["moves", "3000", "--list", "--limit", "100000000", "--threads", "1", "-o", &file];
    let to_null = ["moves", "3000", "--list", "--limit", "100000000", "--threads", "1", "-o", "/dev/null"];
    for (args, signal, code) in [(&to_file, "INT", 130), (&to_null, "TERM", 143)] {
        let Some(mut child) = limited(args) else {
            skip(format!("no sh to set ulimit -v {ADDRESS_SPACE_KIB}"));
            return;
        };
        std::thread::sleep(std::time::Duration::from_millis(1500));
        if let Some(status) = child.try_wait().unwrap() {
            panic!("fibtree {args:?} ended within 1.5 s: {status:?}, stderr {}", stderr_of(&mut child, args));
        }
        let pid = child.id().to_string();
        let sent = std::process::Command::new("kill").args([&format!("-{signal}"), &pid]).status().unwrap();
        assert!(sent.success(), "kill -{signal} {pid}");
        let status = wait_for_stop(&mut child, &format!("fibtree {args:?} after SIG{signal}"));
        let err = stderr_of(&mut child, args);
        assert_eq!(status.code(), Some(code), "SIG{signal}: {status:?}, stderr {err}");
        assert!(err.starts_with(&format!("error: interrupted by SIG{signal}")), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(dir.names().is_empty(), "SIG{signal} left {:?}", dir.names());
    }
}

/// A reader that closes the pipe after the first line (`| head -1`), or the first bytes of the
/// JSON, ends a listing of 10^8 moves of T(3000) at once and quietly: status 0, nothing on stderr.
#[test]
fn a_closed_pipe_ends_a_long_listing_quietly() {
    use std::io::{BufRead, Read};
    let lines = ["moves", "3000", "--list", "--limit", "100000000", "--threads", "1"];
    let json = [&lines[..], &["--json"]].concat();
    for args in [&lines[..], &json[..]] {
        let Some(mut child) = limited(args) else {
            skip(format!("no sh to set ulimit -v {ADDRESS_SPACE_KIB}"));
            return;
        };
        let mut first = Vec::new();
        let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
        if args.contains(&"--json") {
            first.resize(100, 0);
            let read = out.read_exact(&mut first);
            assert!(read.is_ok(), "fibtree {args:?}: {read:?}, stderr {}", stderr_of(&mut child, args));
        } else {
            out.read_until(b'\n', &mut first).unwrap();
            assert!(first.len() > 1000 && first.ends_with(b"\n"), "fibtree {args:?}: {} bytes", first.len());
        }
        drop(out);
        let status = wait_for_stop(&mut child, &format!("fibtree {args:?} | head"));
        let err = stderr_of(&mut child, args);
        assert_eq!((status.code(), err.as_str()), (Some(0), ""), "fibtree {args:?} | head: {status:?}");
    }
}
