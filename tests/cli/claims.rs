//! `fibtree verify --claims`: a CSV file of claims (from a file or standard input, text and JSON),
//! malformed lines and files reported line by line, the columns in any order, encodings and line
//! ends.

use num_traits::ToPrimitive;
use serde_json::Value;

use super::verify::{BY_EXACT, by_route, exact, expect_status, residue, wrong_parity};
use crate::common::*;

/// What a line of a claims file should give.
enum Want {
    /// A claim and its true residue.
    Claim { line: usize, n: u64, g: u64, modulus: u128, answer: u128, expected: u128 },
    /// A malformed line, whose error contains `needle`.
    Bad { line: usize, needle: &'static str },
}

impl Want {
    fn line(&self) -> usize {
        match self {
            Want::Claim { line, .. } | Want::Bad { line, .. } => *line,
        }
    }
}

/// Whether the exact count judges the claims of (n, g) among `wants`: one of them is modulo 2^63
/// or more.
fn counted_exactly(wants: &[Want], (n, g): (u64, u64)) -> bool {
    wants
        .iter()
        .any(|w| matches!(w, Want::Claim { n: wn, g: wg, modulus, .. } if (*wn, *wg) == (n, g) && *modulus >= 1 << 63))
}

/// The verdict line of a claim, as the default route gives it (`exact`: the exact count judged it).
fn claim_line(line: usize, (n, g): (u64, u64), modulus: u128, answer: u128, expected: u128, exact: bool) -> String {
    let verdict = if answer == expected { "OK" } else { "MISMATCH" };
    let by = if exact { BY_EXACT.to_string() } else { by_route(modulus) };
    let mut text =
        format!("line {line}: c({n}, {g}) mod {modulus}: claimed {answer}, true {expected}: {verdict} ({by})");
    if modulus.is_multiple_of(2) && answer % 2 != expected % 2 {
        text = format!("{text}; {}", wrong_parity(n, g, &format!("c({n}, {g}) mod {modulus}"), answer % 2 == 1));
    }
    text
}

/// Checks the text output of a claims run against `wants` (in file order) and the summary.
fn check_claims_text(out: &str, wants: &[Want]) {
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), wants.len() + 1, "one line per claim or malformed line, and a summary:\n{out}");
    let (mut ok, mut mismatch, mut bad) = (0, 0, 0);
    for (got, want) in lines.iter().zip(wants) {
        match want {
            &Want::Claim { line, n, g, modulus, answer, expected } => {
                if answer == expected {
                    ok += 1;
                } else {
                    mismatch += 1;
                }
                let exact = counted_exactly(wants, (n, g));
                assert_eq!(*got, claim_line(line, (n, g), modulus, answer, expected, exact));
            }
            Want::Bad { line, needle } => {
                bad += 1;
                let prefix = format!("line {line}: malformed: ");
                assert!(got.starts_with(&prefix), "expected {prefix:?}...: {got:?}\n{out}");
                assert!(got.contains(needle), "line {line} should say {needle:?}: {got:?}");
            }
        }
    }
    assert_eq!(lines.last().unwrap(), &format!("{ok} OK, {mismatch} MISMATCH, {bad} malformed"), "{out}");
}

/// Checks the JSON output of a claims run against `wants`.
fn check_claims_json(json: &Value, wants: &[Want]) {
    let verdicts = json["verdicts"].as_array().expect("verdicts is a list");
    let malformed = json["malformed"].as_array().expect("malformed is a list");
    let claims: Vec<&Want> = wants.iter().filter(|w| matches!(w, Want::Claim { .. })).collect();
    let bads: Vec<&Want> = wants.iter().filter(|w| matches!(w, Want::Bad { .. })).collect();
    assert_eq!(verdicts.len(), claims.len(), "{json}");
    assert_eq!(malformed.len(), bads.len(), "{json}");
    let (mut ok, mut mismatch) = (0, 0);
    for (v, want) in verdicts.iter().zip(&claims) {
        let Want::Claim { line, n, g, modulus, answer, expected } = want else { unreachable!() };
        let verdict = if answer == expected { "OK" } else { "MISMATCH" };
        if answer == expected {
            ok += 1;
        } else {
            mismatch += 1;
        }
        assert_eq!(v["line"], *line as u64, "{v}");
        assert_eq!(v["n"], *n, "{v}");
        assert_eq!(v["g"], *g, "{v}");
        assert_eq!(v["modulus"], modulus.to_string(), "{v}");
        assert_eq!(v["answer"], answer.to_string(), "{v}");
        assert_eq!(v["expected"], expected.to_string(), "{v}");
        assert_eq!(v["verdict"], verdict, "{v}");
        let exact = counted_exactly(wants, (*n, *g));
        assert_eq!(v["judged_by"], if exact { "exact" } else { "modular" }, "{v}");
        let checked_by = v["checked_by"].as_array().unwrap();
        assert!(checked_by.len() == 2 || (!exact && *modulus >= 1 << 62), "{v}");
        if exact && *modulus < 1 << 63 {
            assert_eq!(
                (v["independent"].clone(), v["independent_modulus"].clone()),
                (Value::from(expected.to_string()), Value::from(modulus.to_string())),
                "{v}"
            );
        }
        assert_eq!(v["meant_modulus"], Value::Null, "{v}");
        assert_eq!(v.as_object().unwrap().len(), 13, "exactly the documented fields: {v}");
    }
    for (m, want) in malformed.iter().zip(&bads) {
        let Want::Bad { line, needle } = want else { unreachable!() };
        assert_eq!(m["line"], *line as u64, "{m}");
        let error = m["error"].as_str().expect("error is a string");
        assert!(error.contains(needle), "line {line} should say {needle:?}: {error:?}");
    }
    assert_eq!(json["counts"]["ok"], ok);
    assert_eq!(json["counts"]["mismatch"], mismatch);
    assert_eq!(json["counts"]["malformed"], bads.len());
}

/// The mixed claims file: right, wrong and malformed lines, comments, a blank line, spaces.
fn mixed_claims() -> (String, Vec<Want>) {
    let f100 = exact(100, 0);
    let f500 = exact(500, 0);
    let p = 998_244_353u128;
    let m100 = 1u128 << 100;
    let e18 = 10u128.pow(18);
    let f100_p = residue(&f100, p);
    let f500_2_100 = residue(&f500, m100);
    let f500_e18 = residue(&f500, e18);
    let wrong_e18 = (f500_e18 + 1) % e18;
    let c10_1 = residue(&exact(10, 1), e18);
    assert_eq!(c10_1, 7, "dist 10: c(10, 1) = 7");
    let text = format!(
        "# claims about c(n, g)\n\
         n,g,modulus,answer\n\
         \n\
         10,,1000,17\n\
         10,0,7,4\n\
         100,0,998244353,{f100_p}\n\
         30,5,1000000007,9755\n\
         # the malformed ones\n\
         10,0,1000\n\
         x,0,7,1\n\
         10,0,1,0\n\
         10,0,7,9\n\
         500,0,2^100,{f500_2_100}\n\
         500,0,1e18,{wrong_e18}\n\
         \x20 10 , 1 , 10^18 , 7 \n\
         10,0,7,3,\n"
    );
    let claim = |line, n, g, modulus, answer, expected| Want::Claim { line, n, g, modulus, answer, expected };
    let wants = vec![
        claim(4, 10, 0, 1000, 17, 17),
        claim(5, 10, 0, 7, 4, 3),
        claim(6, 100, 0, p, f100_p, f100_p),
        claim(7, 30, 5, 1_000_000_007, 9755, 9755),
        Want::Bad { line: 9, needle: "4 fields" },
        Want::Bad { line: 10, needle: "n:" },
        Want::Bad { line: 11, needle: "modulus" },
        Want::Bad { line: 12, needle: "not below the modulus" },
        claim(13, 500, 0, m100, f500_2_100, f500_2_100),
        claim(14, 500, 0, e18, wrong_e18, f500_e18),
        claim(15, 10, 1, e18, 7, 7),
        Want::Bad { line: 16, needle: "4 fields" },
    ];
    assert!(wants.windows(2).all(|w| w[0].line() < w[1].line()));
    (text, wants)
}

#[test]
fn claims_file_mixed_text() {
    let dir = TempDir::new("mixed");
    let (text, wants) = mixed_claims();
    let path = dir.file("claims.csv", &text);
    let output = fibtree(&["verify", "--claims", &path]);
    assert_eq!(output.status.code(), Some(2), "a malformed line is exit 2: {}", stderr(&output));
    let out = stdout(&output);
    check_claims_text(&out, &wants);
    assert!(out.ends_with("5 OK, 2 MISMATCH, 5 malformed\n"), "{out}");
}

#[test]
fn claims_file_mixed_json() {
    let dir = TempDir::new("mixed-json");
    let (text, wants) = mixed_claims();
    let path = dir.file("claims.csv", &text);
    let args = ["verify", "--claims", &path, "--json"];
    let output = fibtree(&args);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let json = json_line(&args, &stdout(&output));
    check_claims_json(&json, &wants);
    assert_eq!(json["counts"]["ok"], 5);
    assert_eq!(json["counts"]["mismatch"], 2);
    assert_eq!(json["counts"]["malformed"], 5);
}

#[test]
fn claims_from_standard_input() {
    let dir = TempDir::new("stdin");
    let (text, wants) = mixed_claims();
    let path = dir.file("claims.csv", &text);
    let from_file = fibtree(&["verify", "--claims", &path]);
    let from_stdin = fibtree_with_stdin(&["verify", "--claims", "-"], text.as_bytes());
    assert_eq!(from_stdin.status.code(), Some(2));
    assert_eq!(stdout(&from_stdin), stdout(&from_file));
    check_claims_text(&stdout(&from_stdin), &wants);

    let args = ["verify", "--claims", "-", "--json"];
    let output = fibtree_with_stdin(&args, text.as_bytes());
    assert_eq!(output.status.code(), Some(2));
    check_claims_json(&json_line(&args, &stdout(&output)), &wants);

    // a right file from standard input, without a final newline and with CRLF line ends
    let output = fibtree_with_stdin(&["verify", "--claims", "-"], b"n,g,modulus,answer\r\n10,0,7,3\r\n10,1,7,0");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let by = by_route(7);
    assert_eq!(
        stdout(&output),
        format!(
            "line 2: c(10, 0) mod 7: claimed 3, true 3: OK ({by})\n\
             line 3: c(10, 1) mod 7: claimed 0, true 0: OK ({by})\n\
             2 OK, 0 MISMATCH, 0 malformed\n"
        ),
        "c(10, 1) = 7 = 0 mod 7"
    );
}

/// A header with the columns in another order is read as that order.
#[test]
fn claims_file_with_its_columns_in_another_order() {
    let dir = TempDir::new("order");
    let text = "n,modulus,answer,g\n6,3,1,1000\n10,1000,17,0\n10,7\n10,10^9+7,17,\n10,2^128-1,16,0\n10,2^128,1,0\n";
    let path = dir.file("claims.csv", text);
    let wants = [
        Want::Claim { line: 2, n: 6, g: 1000, modulus: 3, answer: 1, expected: 0 },
        Want::Claim { line: 3, n: 10, g: 0, modulus: 1000, answer: 17, expected: 17 },
        Want::Bad { line: 4, needle: "expected 4 fields (n,modulus,answer,g), found 2" },
        Want::Claim { line: 5, n: 10, g: 0, modulus: 1_000_000_007, answer: 17, expected: 17 },
        Want::Claim { line: 6, n: 10, g: 0, modulus: u128::MAX, answer: 16, expected: 17 },
        Want::Bad { line: 7, needle: "modulus: '2^128' does not fit in 128 bits" },
    ];
    let output = fibtree(&["verify", "--claims", &path]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    check_claims_text(&stdout(&output), &wants);
    let args = ["verify", "--claims", &path, "--json"];
    let output = fibtree(&args);
    check_claims_json(&json_line(&args, &stdout(&output)), &wants);
}

#[test]
fn claims_file_only_malformed() {
    let dir = TempDir::new("malformed");
    // a quote left open: never judged on its first digits (f(100) = 29580893155...), nor judged
    // whole (f(1000) mod 10^18 = 867114317183878825)
    let path = dir.file(
        "claims.csv",
        "n,g,modulus,answer\nx,0,7,1\n10,0,1,0\n10,0,2^128,1\n10,0,7\n100,0,,\"29580893155\n\
         1000,0,10^18,\"867114317183878825\n",
    );
    let quote = "field 4 opens a quote that does not close on its line";
    let wants = [
        Want::Bad { line: 2, needle: "n:" },
        Want::Bad { line: 3, needle: "modulus" },
        Want::Bad { line: 4, needle: "modulus" },
        Want::Bad { line: 5, needle: "4 fields" },
        Want::Bad { line: 6, needle: quote },
        Want::Bad { line: 7, needle: quote },
    ];
    let output = fibtree(&["verify", "--claims", &path]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    check_claims_text(&stdout(&output), &wants);
    assert!(stdout(&output).ends_with("0 OK, 0 MISMATCH, 6 malformed\n"));

    let args = ["verify", "--claims", &path, "--json"];
    let output = fibtree(&args);
    assert_eq!(output.status.code(), Some(2));
    let json = json_line(&args, &stdout(&output));
    check_claims_json(&json, &wants);
    assert_eq!(json["verdicts"], Value::Array(vec![]));
}

#[test]
fn claims_file_all_right_exits_0_and_a_wrong_one_exits_1() {
    let dir = TempDir::new("right");
    let f300 = exact(300, 0);
    let c300_4 = exact(300, 4);
    let p = 998_244_353u128;
    let lines = [
        (300u64, 0u64, 1_000_000_007u128, residue(&f300, 1_000_000_007)),
        (300, 0, 10u128.pow(18), residue(&f300, 10u128.pow(18))),
        (300, 4, p, residue(&c300_4, p)),
        (300, 4, 1 << 127, residue(&c300_4, 1 << 127)),
        (10, 0, 100, 17),
    ];
    let mut text = String::from("n,g,modulus,answer\n");
    for (n, g, m, a) in lines {
        text.push_str(&format!("{n},{g},{m},{a}\n"));
    }
    let wants: Vec<Want> = lines
        .iter()
        .enumerate()
        .map(|(i, &(n, g, modulus, answer))| Want::Claim { line: i + 2, n, g, modulus, answer, expected: answer })
        .collect();
    let path = dir.file("right.csv", &text);
    let out = expect_status(&["verify", "--claims", &path], 0);
    check_claims_text(&out, &wants);
    assert!(out.ends_with("5 OK, 0 MISMATCH, 0 malformed\n"), "{out}");
    let args = ["verify", "--claims", &path, "--json"];
    check_claims_json(&json_line(&args, &expect_status(&args, 0)), &wants);

    // one wrong claim more: exit 1
    text.push_str("10,0,100,18\n");
    let path = dir.file("one-wrong.csv", &text);
    let out = expect_status(&["verify", "--claims", &path], 1);
    let line = claim_line(7, (10, 0), 100, 18, 17, false);
    assert!(out.ends_with(&format!("{line}\n5 OK, 1 MISMATCH, 0 malformed\n")), "{out}");
}

/// Content that is no claims file at all (binary, or no header) is refused in one line (exit 2),
/// never a crash.
#[test]
fn claims_file_binary_or_headless_is_refused() {
    let dir = TempDir::new("not-claims");
    let binary: Vec<u8> = (0..4096u32).map(|i| (i * 37 % 256) as u8).collect();
    for (name, bytes) in [("binary.csv", binary), ("headless.csv", b"10,0,7,3\n".to_vec())] {
        let path = dir.file(name, &bytes);
        let line = usage_error(&["verify", "--claims", &path], &format!("--claims: '{path}': line 1: "));
        assert!(line.contains("expected a header naming the columns"), "{line}");
    }
}

/// A line longer than a claims line may hold (4096 bytes) stops the reading with one line naming
/// it, before any work: a file, standard input, and `/dev/zero`, which is not read whole (it would
/// never end).
#[test]
fn a_line_too_long_stops_the_reading() {
    let dir = TempDir::new("long-claims");
    let mut long = b"n,g,modulus,answer\n10,0,7,3\n".to_vec();
    long.extend(std::iter::repeat_n(b'9', 4097));
    long.extend(b"\n10,0,7,3\n");
    let path = dir.file("long.csv", &long);
    let err = usage_error(&["verify", "--claims", &path], "--claims");
    assert!(err.contains("line 3 of") && err.contains("longer than 4096 bytes"), "{err}");
    let err = usage_error_with_stdin(&["verify", "--claims", "-"], &long, "--claims");
    assert!(err.contains("line 3 of standard input"), "{err}");
    // 4096 bytes and its newline is a line like any other (here malformed, not too long)
    let mut longest = b"n,g,modulus,answer\n".to_vec();
    longest.extend(std::iter::repeat_n(b'9', 4096));
    longest.push(b'\n');
    let out = stdout(&fibtree_with_stdin(&["verify", "--claims", "-"], &longest));
    assert!(out.contains("line 2: malformed: expected 4 fields"), "{out}");
    if std::path::Path::new("/dev/zero").exists() {
        let start = std::time::Instant::now();
        let err = usage_error(&["verify", "--claims", "/dev/zero"], "--claims");
        assert!(err.contains("line 1 of '/dev/zero' is longer than 4096 bytes"), "{err}");
        assert!(start.elapsed().as_secs() < 5, "{:?}", start.elapsed());
    }
}

/// Lines end with `\n`, `\r\n` or a lone `\r` (old Mac files); a UTF-8 byte-order mark is skipped;
/// a UTF-16 file with its byte-order mark is read as UTF-16: the same verdicts, each line once.
#[test]
fn line_ends_and_encodings_give_the_same_verdicts() {
    let text = "n,g,modulus,answer\n10,0,7,3\nx,0,7,3\n10,0,7,4\n";
    let by = by_route(7);
    let want = format!(
        "line 2: c(10, 0) mod 7: claimed 3, true 3: OK ({by})\n\
         line 3: malformed: n: expected a whole number, got 'x'\n\
         line 4: c(10, 0) mod 7: claimed 4, true 3: MISMATCH ({by})\n\
         1 OK, 1 MISMATCH, 1 malformed\n"
    );
    let utf16 = |bom: [u8; 2], unit: fn(u16) -> [u8; 2]| {
        let mut bytes = bom.to_vec();
        text.encode_utf16().for_each(|u| bytes.extend(unit(u)));
        bytes
    };
    let forms: [(&str, Vec<u8>); 6] = [
        ("LF", text.into()),
        ("CRLF", text.replace('\n', "\r\n").into()),
        ("CR", text.replace('\n', "\r").into()),
        ("UTF-8 BOM", [&b"\xef\xbb\xbf"[..], text.as_bytes()].concat()),
        ("UTF-16LE", utf16([0xFF, 0xFE], u16::to_le_bytes)),
        ("UTF-16BE", utf16([0xFE, 0xFF], u16::to_be_bytes)),
    ];
    for (form, bytes) in forms {
        let output = fibtree_with_stdin(&["verify", "--claims", "-"], &bytes);
        assert_eq!(output.status.code(), Some(2), "{form}: {}", stderr(&output));
        assert_eq!(stdout(&output), want, "{form}");
    }
    let mut odd = utf16([0xFF, 0xFE], u16::to_le_bytes);
    odd.pop();
    let line = usage_error_with_stdin(&["verify", "--claims", "-"], &odd, "--claims: standard input: a UTF-16");
    assert!(line.contains("little-endian"), "{line}");
}

/// A g above every value gives 0 without sizing the file by it; a claim whose own run does not fit
/// is a bad line with its number and the estimate; the others still get verdicts.
#[test]
fn claims_judged_each_on_its_own() {
    let dir = TempDir::new("own");
    // above 2^63 the modular engine cannot judge a claim whose exact count does not fit
    let text = "n,g,modulus,answer\n100,1152921504606846976,7,0\n100,0,7,4\n1000000,0,2^100,1\n10,0,1000,17\n";
    let path = dir.file("claims.csv", text);
    let want_4 = (exact(100, 0) % 7u32).to_u128().unwrap();
    let wants = [
        Want::Claim { line: 2, n: 100, g: 1 << 60, modulus: 7, answer: 0, expected: 0 },
        Want::Claim { line: 3, n: 100, g: 0, modulus: 7, answer: 4, expected: want_4 },
        Want::Bad { line: 4, needle: "memory" },
        Want::Claim { line: 5, n: 10, g: 0, modulus: 1000, answer: 17, expected: 17 },
    ];
    // a limit of its own, so that f(10^6) does not fit whatever the machine's memory
    let output = fibtree(&["verify", "--claims", &path, "--max-memory", "8G"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let out = stdout(&output);
    check_claims_text(&out, &wants);
    assert!(out.contains("3 OK, 0 MISMATCH, 1 malformed"), "{out}");
    assert!(!out.contains("TiB"), "not sized by the largest g: {out}");
}

/// A malformed line's reason quotes the file: its control characters are escaped and its long
/// numbers cut, on standard output as in the JSON, so that the file cannot reach the terminal.
#[test]
fn malformed_reasons_are_escaped_and_cut() {
    let digits = "9".repeat(3000);
    let text = format!("n,g,modulus,answer\n10,0,7\u{1b}[31m\u{7}\0,3\n{digits},0,7,3\n10,0,7,3\n");
    let output = fibtree_with_stdin(&["verify", "--claims", "-"], text.as_bytes());
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let out = stdout(&output);
    assert!(!out.chars().any(|c| c.is_control() && c != '\n'), "no raw control character: {out:?}");
    assert!(out.contains("got '7\\u{1b}[31m\\u{7}\\u{0}'"), "{out}");
    assert!(out.contains("99999999999999999999...99999999999999999999 (3000 digits)"), "{out}");
    assert!(out.lines().all(|l| l.len() < 200), "every line short: {out}");
    let args = ["verify", "--claims", "-", "--json"];
    let json = json_line(&args, &stdout(&fibtree_with_stdin(&args, text.as_bytes())));
    let errors: Vec<&str> =
        json["malformed"].as_array().unwrap().iter().map(|m| m["error"].as_str().unwrap()).collect();
    assert!(errors.iter().all(|e| !e.chars().any(char::is_control) && e.len() < 200), "{errors:?}");
}

/// A reader that closes the pipe early (`| head -c 5`) ends the command quietly, and its exit
/// status still says that wrong claims were found: the verdicts are known before they are written.
#[test]
fn a_closed_pipe_keeps_the_verdicts_exit_status() {
    let dir = TempDir::new("pipe");
    // far more output than a pipe holds, so that the reader is gone before the end
    let text = format!("n,g,modulus,answer\n{}", "10,0,1000,18\n".repeat(20_000));
    let path = dir.file("wrong.csv", &text);
    for (args, code) in [
        (&["verify", "--claims", &path][..], 1),
        (&["verify", "--claims", &path, "--json"], 1),
        (&["verify", "10", "--answer", "18", "--mod", "1000"], 1),
        (&["verify", "10", "--answer", "17", "--mod", "1000"], 0),
    ] {
        let (status, err) = closed_after(args, 5);
        assert_eq!(status.code(), Some(code), "fibtree {args:?} | head -c 5: {err}");
        assert!(!err.contains("error"), "quietly: {err}");
    }
}

/// An empty modulus claims the whole count: OK or MISMATCH as `verify --answer` alone gives them,
/// by the exact count, with the parity's words where the claim's parity is wrong and the modulus
/// it may have meant where it is the true residue modulo one asked before it (or 998244353, or
/// its true last digits); a long true value cut unless --show-value.
#[test]
fn an_empty_modulus_claims_the_whole_count() {
    let f100 = exact(100, 0).to_string();
    let f10000 = exact(10000, 0);
    let mod_1e9_7 = residue(&f10000, 1_000_000_007);
    let text = format!(
        "n,g,modulus,answer\n10,0,,17\n10,0,,18\n10,0,,19\n100,0,,{f100}\n\
         10000,0,1000000007,{mod_1e9_7}\n10000,0,,{mod_1e9_7}\n10000,0,,163314502\n10000,0,,438505383468410633\n"
    );
    let output = fibtree_with_stdin(&["verify", "--claims", "-"], text.as_bytes());
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let out = stdout(&output);
    let lines: Vec<&str> = out.lines().collect();
    let value = f10000.to_string();
    let cut = format!("{}...{} (2087 digits)", &value[..20], &value[value.len() - 20..]);
    let by = BY_EXACT;
    let parity = |n, odd| wrong_parity(n, 0, &format!("c({n}, 0)"), odd);
    let want = [
        format!("line 2: c(10, 0): claimed 17, true 17: OK ({by})"),
        format!("line 3: c(10, 0): claimed 18, true 17: MISMATCH ({by}); {}", parity(10, false)),
        format!("line 4: c(10, 0): claimed 19, true 17: MISMATCH ({by})"),
        format!("line 5: c(100, 0): claimed {f100}, true {f100}: OK ({by})"),
        format!("line 6: c(10000, 0) mod 1000000007: claimed {mod_1e9_7}, true {mod_1e9_7}: OK ({by})"),
        format!(
            "line 7: c(10000, 0): claimed {mod_1e9_7}, true {cut}: MISMATCH ({by}){}; the claim is the true residue \
             modulo 1000000007: did you mean the modulus 1000000007?",
            if mod_1e9_7.is_multiple_of(2) { format!("; {}", parity(10000, false)) } else { String::new() }
        ),
        format!(
            "line 8: c(10000, 0): claimed 163314502, true {cut}: MISMATCH ({by}); {}; the claim is the true residue \
             modulo 998244353: did you mean the modulus 998244353?",
            parity(10000, false)
        ),
        format!(
            "line 9: c(10000, 0): claimed 438505383468410633, true {cut}: MISMATCH ({by}); the claim is the true last \
             18 digits: did you mean the modulus 10^18?"
        ),
        "3 OK, 5 MISMATCH, 0 malformed".to_string(),
    ];
    assert_eq!(lines, want, "{out}");
    // --show-value: the true value whole
    let output = fibtree_with_stdin(&["verify", "--claims", "-", "--show-value"], text.as_bytes());
    assert!(stdout(&output).contains(&format!("true {value}: MISMATCH")), "{}", stdout(&output));
    // the JSON: modulus null, the values whole, the claim's parity and the modulus meant
    let args = ["verify", "--claims", "-", "--json"];
    let json = json_line(&args, &stdout(&fibtree_with_stdin(&args, text.as_bytes())));
    let verdicts = json["verdicts"].as_array().unwrap();
    assert_eq!(verdicts.len(), 8);
    assert_eq!((&verdicts[0]["modulus"], verdicts[0]["verdict"].as_str()), (&Value::Null, Some("OK")));
    assert_eq!(verdicts[1]["parity"], serde_json::json!({"agrees": false, "claimed": 0, "closed_form": 1}));
    assert_eq!(verdicts[6]["expected"], value.as_str());
    assert_eq!(verdicts[5]["meant_modulus"], "1000000007");
    assert_eq!(verdicts[6]["meant_modulus"], "998244353");
    assert_eq!(verdicts[7]["meant_modulus"], "1000000000000000000");
    assert!(verdicts.iter().all(|v| v["judged_by"] == "exact"), "a whole claim's (n, g) is counted exactly");
    assert_eq!(json["counts"], serde_json::json!({"malformed": 0, "mismatch": 5, "ok": 3}));
}

/// A file of residues is judged by the modular engine, each line saying so and what checked it;
/// `--exact` judges the same lines by the exact count, with the same verdicts. At n = 20000 the
/// exact count would take seconds: the test asserts what the verdicts say ran.
#[test]
fn residues_by_the_modular_engine_and_with_exact_by_the_exact_count() {
    let truth = fibtree::count_mod(20000, 0, P998244353).unwrap();
    let last18 = fibtree::count_mod(20000, 0, LAST18).unwrap();
    let text = format!("n,g,modulus,answer\n20000,0,998244353,{truth}\n20000,0,10^18,{last18}\n20000,0,998244353,1\n");
    let out = stdout(&fibtree_with_stdin(&["verify", "--claims", "-"], text.as_bytes()));
    let want = [
        claim_line(2, (20000, 0), 998_244_353, truth.into(), truth.into(), false),
        claim_line(3, (20000, 0), LAST18.into(), last18.into(), last18.into(), false),
        claim_line(4, (20000, 0), 998_244_353, 1, truth.into(), false),
    ];
    assert_eq!(out.lines().take(3).collect::<Vec<_>>(), want, "{out}");
    assert!(
        out.contains("(judged by the modular engine, checked modulo 998244353 * 2 and by the closed form's parity)")
    );
    assert!(out.contains(
        "(judged by the modular engine, checked modulo 1000000000000000000 * 2^3 and by the closed form's parity)"
    ));
    // --exact on a smaller n: the exact count, the same verdicts
    let truth = residue(&exact(2000, 0), 998_244_353);
    let text = format!("n,g,modulus,answer\n2000,0,998244353,{truth}\n2000,0,998244353,1\n");
    let by_default = stdout(&fibtree_with_stdin(&["verify", "--claims", "-"], text.as_bytes()));
    let by_exact = stdout(&fibtree_with_stdin(&["verify", "--claims", "-", "--exact"], text.as_bytes()));
    assert_eq!(by_default, by_exact.replace(BY_EXACT, &by_route(998_244_353)));
    assert_eq!(by_exact.matches(BY_EXACT).count(), 2, "{by_exact}");
}
