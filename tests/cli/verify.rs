//! `fibtree verify`: one claim (`--mod M` in every form, `--last-digits D`, `--g`, `--json`); a CSV
//! file of claims is tested in `claims`.
//!
//! The true residues come from the library (`fibtree::count`), reduced here with `BigUint`, and the
//! public value f(10000) mod 10^18 = 438505383468410633 (docs/math.md).

use num_bigint::BigUint;
use num_traits::ToPrimitive;
use serde_json::Value;

use crate::common::*;

/// f(10000) mod 10^18 (docs/math.md, "Known values (public)").
const F10000_LAST18: u128 = 438_505_383_468_410_633;

/// Runs `fibtree args`, checks the exit status and that stderr is empty, and returns stdout.
pub(super) fn expect_status(args: &[&str], code: i32) -> String {
    let output = fibtree(args);
    assert_eq!(output.status.code(), Some(code), "fibtree {args:?}: {}", stderr(&output));
    assert_eq!(stderr(&output), "", "fibtree {args:?}: stderr");
    stdout(&output)
}

/// `value` mod `m`, for moduli up to 2^128 (`common::residue` takes a `u64`).
pub(super) fn residue(value: &BigUint, m: u128) -> u128 {
    (value % BigUint::from(m)).to_u128().unwrap()
}

/// The exact c(n, g) from the library.
pub(super) fn exact(n: u64, g: u64) -> BigUint {
    fibtree::count(n, g).unwrap_or_else(|e| panic!("count({n}, {g}): {e}"))
}

/// What a verdict judged by the exact count says ran.
pub(super) const BY_EXACT: &str =
    "judged by the exact count, checked by the modular engine and the closed form's parity";

/// What a verdict on a residue modulo `m` says ran, by default: the modular engine below 2^63,
/// checked modulo m 2^j (the largest below 2^31 where m < 2^30, else below 2^63) and by the parity,
/// or by the parity alone (an even m of 2^62 or more), or alone (an odd one); the exact count above.
pub(super) fn by_route(m: u128) -> String {
    let below: u128 = if m < 1 << 30 { 1 << 31 } else { 1 << 63 };
    match m {
        m if m >= 1 << 63 => BY_EXACT.to_string(),
        m if 2 * m < below => {
            let j = (1..).take_while(|j| m << j < below).last().unwrap();
            let power = if j == 1 { "2".to_string() } else { format!("2^{j}") };
            format!("judged by the modular engine, checked modulo {m} * {power} and by the closed form's parity")
        }
        m if m % 2 == 0 => "judged by the modular engine, checked by the closed form's parity".to_string(),
        _ => "judged by the modular engine alone, the modulus having no multiple below 2^63".to_string(),
    }
}

/// The line that tells a claim of the wrong parity, `what` being `c(n, g)` or `c(n, g) mod m`.
pub(super) fn wrong_parity(n: u64, g: u64, what: &str, claimed_odd: bool) -> String {
    let value = fibtree::grundy(n).unwrap();
    let (closed_odd, reason) =
        if g < value { (true, format!("{g} < G({n}) = {value}")) } else { (false, format!("{g} >= G({n}) = {value}")) };
    assert_ne!(claimed_odd, closed_odd, "a claim of the right parity has no such line");
    let word = |odd: bool| if odd { "odd" } else { "even" };
    let keeps = if what.contains(" mod ") { "; an even modulus keeps the parity" } else { "" };
    format!(
        "the claim is {}, and {what} is {} by the closed form of G ({reason}{keeps}): it cannot be right",
        word(claimed_odd),
        word(closed_odd)
    )
}

// ---------------------------------------------------------------------------------------------
// One claim
// ---------------------------------------------------------------------------------------------

#[test]
fn library_value_is_what_count_prints() {
    let out = expect_status(&["count", "500", "-q"], 0);
    assert_eq!(out, format!("{}\n", exact(500, 0)));
}

#[test]
fn right_and_wrong_answer_for_every_modulus_form() {
    let value = exact(500, 0);
    assert!(value.bits() > 128, "f(500) should exceed every modulus here");
    let forms: [(&str, u128); 12] = [
        ("1000000007", 1_000_000_007),
        ("10^9+7", 1_000_000_007),
        ("1e9+7", 1_000_000_007),
        ("2^61-1", (1 << 61) - 1),
        ("2^128-1", u128::MAX),
        ("998244353", 998_244_353),
        ("10^18", 10u128.pow(18)),
        ("1e18", 10u128.pow(18)),
        ("2^100", 1 << 100),
        ("7", 7),
        ("2^127", 1 << 127),
        ("340282366920938463463374607431768211455", u128::MAX),
    ];
    for (form, m) in forms {
        let right = residue(&value, m);
        let wrong = (right + 1) % m;
        let (right_s, wrong_s) = (right.to_string(), wrong.to_string());
        let by = by_route(m);
        let args = ["verify", "500", "--answer", &right_s, "--mod", form];
        assert_eq!(
            expect_status(&args, 0),
            format!("OK: c(500, 0) mod {m}: claimed {right}, true {right} ({by})\n"),
            "{args:?}"
        );
        // the same verdict by the exact count
        let exact_args = [&args[..], &["--exact"]].concat();
        assert_eq!(
            expect_status(&exact_args, 0),
            format!("OK: c(500, 0) mod {m}: claimed {right}, true {right} ({BY_EXACT})\n"),
            "{exact_args:?}"
        );
        let args = ["verify", "500", "--answer", &wrong_s, "--mod", form];
        // modulo an even modulus the wrong claim has the wrong parity, and is told so
        let parity = match m % 2 {
            0 => format!("{}\n", wrong_parity(500, 0, &format!("c(500, 0) mod {m}"), wrong % 2 == 1)),
            _ => String::new(),
        };
        assert_eq!(
            expect_status(&args, 1),
            format!("MISMATCH: c(500, 0) mod {m}: claimed {wrong}, true {right} ({by})\n{parity}"),
            "{args:?}"
        );
    }
}

#[test]
fn small_modulus_and_value_below_the_modulus() {
    // f(10) = 17: mod 7 it is 3; below 2^100 the residue is the value itself.
    let by7 = by_route(7);
    assert_eq!(
        expect_status(&["verify", "10", "--answer", "3", "--mod", "7"], 0),
        format!("OK: c(10, 0) mod 7: claimed 3, true 3 ({by7})\n")
    );
    assert_eq!(
        expect_status(&["verify", "10", "--answer", "6", "--mod", "7"], 1),
        format!("MISMATCH: c(10, 0) mod 7: claimed 6, true 3 ({by7})\n")
    );
    assert_eq!(
        expect_status(&["verify", "10", "--answer", "1", "--mod", "2"], 0),
        format!("OK: c(10, 0) mod 2: claimed 1, true 1 ({})\n", by_route(2))
    );
    let value = exact(100, 0).to_string();
    let out = expect_status(&["verify", "100", "--answer", &value, "--mod", "2^100"], 0);
    assert!(out.starts_with("OK: c(100, 0) mod 1267650600228229401496703205376:"), "{out}");
    // leading zeros in the answer are the same number
    assert_eq!(
        expect_status(&["verify", "10", "--answer", "0003", "--mod", "7"], 0),
        format!("OK: c(10, 0) mod 7: claimed 3, true 3 ({by7})\n")
    );
}

#[test]
fn last_digits_18_of_f10000() {
    let right = F10000_LAST18.to_string();
    let by = by_route(10u128.pow(18));
    let out = expect_status(&["verify", "10000", "--answer", &right, "--last-digits", "18"], 0);
    assert_eq!(
        out,
        format!(
            "OK: c(10000, 0) mod 1000000000000000000: claimed {right}, true {right} ({by})\n\
             the true last 18 digits: {right}\n"
        )
    );
    let wrong = (F10000_LAST18 + 10u128.pow(17)).to_string();
    let out = expect_status(&["verify", "10000", "--answer", &wrong, "--last-digits", "18"], 1);
    assert_eq!(
        out,
        format!(
            "MISMATCH: c(10000, 0) mod 1000000000000000000: claimed {wrong}, true {right} ({by})\n\
             the true last 18 digits: {right}\n"
        )
    );
}

#[test]
fn last_digits_pads_the_true_digits() {
    // f(10) = 17 has fewer digits than D: the true last D digits are printed zero-padded.
    let by = by_route(100_000);
    assert_eq!(
        expect_status(&["verify", "10", "--answer", "17", "--last-digits", "5"], 0),
        format!("OK: c(10, 0) mod 100000: claimed 17, true 17 ({by})\nthe true last 5 digits: 00017\n")
    );
    assert_eq!(
        expect_status(&["verify", "10", "--answer", "00017", "--last-digits", "5"], 0),
        format!("OK: c(10, 0) mod 100000: claimed 17, true 17 ({by})\nthe true last 5 digits: 00017\n")
    );
    // 18 is even, and c(10, 0) odd: modulo 10^5 its residue is odd too
    assert_eq!(
        expect_status(&["verify", "10", "--answer", "18", "--last-digits", "5"], 1),
        format!(
            "MISMATCH: c(10, 0) mod 100000: claimed 18, true 17 ({by})\nthe true last 5 digits: 00017\n{}\n",
            wrong_parity(10, 0, "c(10, 0) mod 100000", false)
        )
    );
    // one digit: 17 mod 10 = 7
    assert_eq!(
        expect_status(&["verify", "10", "--answer", "7", "--last-digits", "1"], 0),
        format!("OK: c(10, 0) mod 10: claimed 7, true 7 ({})\nthe true last 1 digit: 7\n", by_route(10))
    );
    // 38 digits, the most: 10^38 < 2^128
    let out = expect_status(&["verify", "10", "--answer", "17", "--last-digits", "38"], 0);
    assert!(out.ends_with(&format!("the true last 38 digits: {}17\n", "0".repeat(36))), "{out}");
    // f(500) has more than 38 digits
    let value = exact(500, 0);
    let last38 = residue(&value, 10u128.pow(38));
    let out = expect_status(&["verify", "500", "--answer", &last38.to_string(), "--last-digits", "38"], 0);
    assert!(out.ends_with(&format!("the true last 38 digits: {last38:038}\n")), "{out}");
}

#[test]
fn claims_about_other_grundy_values() {
    let c30_5 = exact(30, 5);
    assert_eq!(c30_5, BigUint::from(9755u32), "README: c(30, 5) = 9755");
    let by = by_route(1_000_000_007);
    assert_eq!(
        expect_status(&["verify", "30", "--g", "5", "--answer", "9755", "--mod", "1000000007"], 0),
        format!("OK: c(30, 5) mod 1000000007: claimed 9755, true 9755 ({by})\n")
    );
    assert_eq!(
        expect_status(&["verify", "30", "--g", "5", "--answer", "9756", "--mod", "1000000007"], 1),
        format!("MISMATCH: c(30, 5) mod 1000000007: claimed 9756, true 9755 ({by})\n")
    );
    // --g 0 is the default
    assert_eq!(
        expect_status(&["verify", "10", "--g", "0", "--answer", "17", "--mod", "1e18"], 0),
        expect_status(&["verify", "10", "--answer", "17", "--mod", "1e18"], 0)
    );
    // a large c(n, g) with g > 0, reduced modulo a modulus above 2^63
    let value = exact(400, 9);
    let m = (1u128 << 100) + 277;
    let right = residue(&value, m).to_string();
    let out = expect_status(&["verify", "400", "--g", "9", "--answer", &right, "--mod", &m.to_string()], 0);
    assert_eq!(out, format!("OK: c(400, 9) mod {m}: claimed {right}, true {right} ({BY_EXACT})\n"));
    // c(10, 14) = 0 and c(10, 1000000) = 0: the residue 0 is right, anything else wrong
    assert_eq!(exact(10, 14), BigUint::ZERO);
    assert_eq!(
        expect_status(&["verify", "10", "--g", "14", "--answer", "0", "--mod", "7"], 0),
        format!("OK: c(10, 14) mod 7: claimed 0, true 0 ({})\n", by_route(7))
    );
    assert_eq!(
        expect_status(&["verify", "10", "--g", "1000000", "--answer", "1", "--last-digits", "3"], 1),
        format!(
            "MISMATCH: c(10, 1000000) mod 1000: claimed 1, true 0 ({})\nthe true last 3 digits: 000\n{}\n",
            by_route(1000),
            wrong_parity(10, 1_000_000, "c(10, 1000000) mod 1000", true)
        )
    );
}

#[test]
fn one_claim_as_json() {
    let args = ["verify", "30", "--g", "5", "--answer", "9755", "--mod", "1000000007", "--json"];
    let json = json_line(&args, &expect_status(&args, 0));
    assert_eq!(json["n"], 30);
    assert_eq!(json["g"], 5);
    assert_eq!(json["modulus"], "1000000007");
    assert_eq!(json["answer"], "9755");
    assert_eq!(json["expected"], "9755");
    assert_eq!(json["verdict"], "OK");
    assert_eq!(json["judged_by"], "modular");
    assert_eq!(json["checked_by"], serde_json::json!(["modular", "parity"]));
    assert_eq!(json["independent"], "9755", "the residue modulo the multiple, reduced");
    assert_eq!(json["independent_modulus"], "2000000014");
    assert_eq!(json["last_digits"], Value::Null);
    assert_eq!(json["true_last_digits"], Value::Null);
    assert_eq!(json["meant_modulus"], Value::Null);
    assert_eq!(json["parity"], Value::Null, "an odd modulus keeps no parity");
    assert_eq!(json.as_object().unwrap().len(), 15, "exactly the documented fields: {json}");

    let args = ["verify", "10", "--answer", "18", "--last-digits", "5", "--json"];
    let json = json_line(&args, &expect_status(&args, 1));
    assert_eq!(json["verdict"], "MISMATCH");
    assert_eq!(json["modulus"], "100000");
    assert_eq!(json["answer"], "18");
    assert_eq!(json["expected"], "17");
    assert_eq!(json["last_digits"], 5);
    assert_eq!(json["true_last_digits"], "00017");
    assert_eq!(json["independent"], "17");
    assert_eq!(json["parity"], serde_json::json!({"agrees": false, "claimed": 0, "closed_form": 1}));

    // by the exact count: the modular engine's residue beside it, below 2^63
    let args = ["verify", "30", "--g", "5", "--answer", "9755", "--mod", "1000000007", "--json", "--exact"];
    let json = json_line(&args, &expect_status(&args, 0));
    assert_eq!((json["judged_by"].as_str(), json["independent"].as_str()), (Some("exact"), Some("9755")));
    assert_eq!(
        (json["independent_modulus"].as_str(), &json["checked_by"]),
        (Some("1000000007"), &serde_json::json!(["modular", "parity"]))
    );

    // above 2^63 only the exact count decides: no independent residue
    let value = exact(500, 0);
    let right = residue(&value, 1 << 100).to_string();
    let args = ["verify", "500", "--answer", &right, "--mod", "2^100", "--json"];
    let json = json_line(&args, &expect_status(&args, 0));
    assert_eq!(json["modulus"], (1u128 << 100).to_string());
    assert_eq!(json["expected"], right.as_str());
    assert_eq!((&json["independent"], &json["independent_modulus"]), (&Value::Null, &Value::Null));
    assert_eq!(json["judged_by"], "exact");
    assert_eq!(json["verdict"], "OK");

    // an odd modulus of 2^62 or more has no multiple to check it by: the modular engine alone
    let m = (1u64 << 63) - 25;
    let right = residue(&value, m.into()).to_string();
    let args = ["verify", "500", "--answer", &right, "--mod", &m.to_string(), "--json"];
    let json = json_line(&args, &expect_status(&args, 0));
    assert_eq!((json["judged_by"].as_str(), &json["checked_by"]), (Some("modular"), &serde_json::json!([])));
    assert_eq!((&json["independent"], &json["independent_modulus"]), (&Value::Null, &Value::Null));
}

/// A residue is judged by the modular engine, checked by its run modulo a multiple of the modulus
/// and by the closed form's parity, and the verdict says so; `--exact` keeps the exact count, which
/// gives the same verdicts. At n = 20000 the exact count takes seconds and the modular engine a
/// fraction of one; the test asserts what the verdicts say ran, not how long they took.
#[test]
fn a_residue_is_judged_by_the_modular_engine_unless_exact_is_asked() {
    let truth = fibtree::count_mod(20000, 0, P998244353).unwrap().to_string();
    let wrong = ((truth.parse::<u64>().unwrap() + 1) % P998244353).to_string();
    for (answer, code, verdict) in [(&truth, 0, "OK"), (&wrong, 1, "MISMATCH")] {
        let args = ["verify", "20000", "--answer", answer, "--mod", "998244353"];
        assert_eq!(
            expect_status(&args, code),
            format!(
                "{verdict}: c(20000, 0) mod 998244353: claimed {answer}, true {truth} (judged by the modular engine, \
                 checked modulo 998244353 * 2 and by the closed form's parity)\n"
            )
        );
        let json_args = [&args[..], &["--json"]].concat();
        let json = json_line(&json_args, &expect_status(&json_args, code));
        assert_eq!((json["judged_by"].as_str(), json["verdict"].as_str()), (Some("modular"), Some(verdict)));
        assert_eq!(
            (json["independent"].as_str(), json["independent_modulus"].as_str()),
            (Some(truth.as_str()), Some("1996488706"))
        );
        assert_eq!(json["exact_memory_estimate_bytes"], Value::Null);
    }
    // the exact route on a smaller n (the same verdict, by the exact count and its projections)
    let truth = residue(&exact(3000, 0), 998_244_353).to_string();
    let args = ["verify", "3000", "--answer", &truth, "--mod", "998244353", "--exact"];
    assert_eq!(
        expect_status(&args, 0),
        format!("OK: c(3000, 0) mod 998244353: claimed {truth}, true {truth} ({BY_EXACT})\n")
    );
}

/// A claim of the whole count (no modulus) is compared with the exact count; the JSON's modulus
/// is null.
#[test]
fn a_claim_of_the_whole_count() {
    let value = exact(100, 0).to_string();
    let out = expect_status(&["verify", "100", "--answer", &value], 0);
    assert_eq!(out, format!("OK: c(100, 0): claimed {value}, true {value} ({BY_EXACT})\n"));
    // --exact changes nothing: a whole value is always counted exactly
    assert_eq!(expect_status(&["verify", "100", "--answer", &value, "--exact"], 0), out);
    let wrong = format!("{}1", &value[..value.len() - 1]);
    let wrong = if wrong == value { format!("{}2", &value[..value.len() - 1]) } else { wrong };
    let out = expect_status(&["verify", "100", "--answer", &wrong], 1);
    assert!(out.starts_with(&format!("MISMATCH: c(100, 0): claimed {wrong}, true {value} ({BY_EXACT})")), "{out}");
    // leading zeros are the same number
    let args = ["verify", "10", "--g", "26", "--answer", "004", "--json"];
    let json = json_line(&args, &expect_status(&args, 0));
    assert_eq!(json["modulus"], Value::Null);
    assert_eq!((json["answer"].as_str(), json["expected"].as_str()), (Some("4"), Some("4")));
    assert_eq!((json["verdict"].as_str(), json["judged_by"].as_str()), (Some("OK"), Some("exact")));
    assert_eq!(json["checked_by"], serde_json::json!(["modular", "parity"]));
    let args = ["verify", "10", "--answer", "18", "--json"];
    assert_eq!(json_line(&args, &expect_status(&args, 1))["verdict"], "MISMATCH");
}

/// A true value of more than 40 digits is cut in the verdict for people, as every long number of
/// a message is, unless --show-value (-v) asks for it whole; the JSON has it whole.
#[test]
fn a_long_true_value_is_cut_unless_asked_for() {
    let value = exact(500, 0).to_string();
    assert!(value.len() > 40, "f(500) has {} digits", value.len());
    let cut = format!("{}...{} ({} digits)", &value[..20], &value[value.len() - 20..], value.len());
    let wrong = "12345";
    let out = expect_status(&["verify", "500", "--answer", wrong], 1);
    assert!(out.starts_with(&format!("MISMATCH: c(500, 0): claimed {wrong}, true {cut} ({BY_EXACT})\n")), "{out}");
    assert!(!out.contains(&value), "{out}");
    let out = expect_status(&["verify", "500", "--answer", wrong, "--show-value"], 1);
    assert!(out.starts_with(&format!("MISMATCH: c(500, 0): claimed {wrong}, true {value} ({BY_EXACT})\n")), "{out}");
    // a long claim is cut too
    let claim = format!("{}9", &value[..value.len() - 1]);
    let claim = if claim == value { format!("{}8", &value[..value.len() - 1]) } else { claim };
    let out = expect_status(&["verify", "500", "--answer", &claim], 1);
    assert!(
        out.contains(&format!("claimed {}...{} ({} digits)", &claim[..20], &claim[claim.len() - 20..], claim.len())),
        "{out}"
    );
    // the JSON keeps the whole values
    let args = ["verify", "500", "--answer", wrong, "--json"];
    let json = json_line(&args, &expect_status(&args, 1));
    assert_eq!(json["expected"], value.as_str());
}

/// A wrong whole value that is the true last D digits, or the true residue modulo 998244353, is
/// told which option it may have meant; one that is neither, or right, is not.
#[test]
fn a_whole_claim_that_is_a_residue_is_told_the_option_it_meant() {
    let last18 = F10000_LAST18.to_string();
    let out = expect_status(&["verify", "10000", "--answer", &last18], 1);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("MISMATCH: c(10000, 0): claimed 438505383468410633, true "), "{out}");
    assert!(lines[0].contains("...") && lines[0].contains("(2087 digits)"), "the true value cut: {out}");
    assert_eq!(lines[1..], ["the claim is the true last 18 digits: did you mean --last-digits 18?"], "{out}");
    let json = json_line(&["--json"], &expect_status(&["verify", "10000", "--answer", &last18, "--json"], 1));
    assert_eq!(json["meant_modulus"], "1000000000000000000");
    // f(10000) mod 998244353 = 163314502 (docs/math.md): even, and f(10000) odd
    let out = expect_status(&["verify", "10000", "--answer", "163314502"], 1);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[1..],
        [
            wrong_parity(10000, 0, "c(10000, 0)", false).as_str(),
            "the claim is the true residue modulo 998244353: did you mean --mod 998244353?"
        ],
        "{out}"
    );
    // the last 7 digits (a hint needs a modulus of 10^6 or more): f(500)'s
    let value = exact(500, 0).to_string();
    let last7 = value[value.len() - 7..].trim_start_matches('0').to_string();
    let out = expect_status(&["verify", "500", "--answer", &last7], 1);
    let hint = format!("did you mean --last-digits {}?", last7.len());
    assert!(out.ends_with(&format!("{hint}\n")), "{out}");
    // neither: no hint; nor for the last digits of a small modulus (a chance match), or a right claim
    for (n, answer, code) in [("10000", "438505383468410634", 1), ("10", "7", 1), ("10", "17", 0)] {
        let out = expect_status(&["verify", n, "--answer", answer], code);
        assert!(!out.contains("did you mean"), "{out}");
    }
}

/// A whole claim's parity against the closed form's: a wrong claim of the wrong parity is told so in a
/// second line and in the JSON, a wrong claim of the right parity is a plain MISMATCH, with the same
/// exit status 1 either way; a right claim has nothing more to say.
#[test]
fn a_whole_claim_of_the_wrong_parity_is_told_so() {
    // c(399, 9) is odd (9 < G(399) = 267), c(10, 26) = 4 even (26 >= G(10) = 14)
    let value = exact(399, 9);
    assert!(value.bit(0), "c(399, 9) = {value}");
    for (claim, odd) in [(&value + 1u32, false), (&value + 2u32, true)] {
        let claim = claim.to_string();
        let out = expect_status(&["verify", "399", "--g", "9", "--answer", &claim, "--show-value"], 1);
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].starts_with(&format!("MISMATCH: c(399, 9): claimed {claim}, true {value}")), "{out}");
        if odd {
            assert_eq!(lines.len(), 1, "the right parity: nothing more to say\n{out}");
        } else {
            let why = "the claim is even, and c(399, 9) is odd by the closed form of G (9 < G(399) = 267): it cannot \
                       be right";
            assert_eq!(lines[1..], [why], "{out}");
        }
        let args = ["verify", "399", "--g", "9", "--answer", &claim, "--json"];
        let json = json_line(&args, &expect_status(&args, 1));
        let want = serde_json::json!({"agrees": odd, "claimed": u8::from(odd), "closed_form": 1});
        assert_eq!((&json["verdict"], &json["parity"]), (&Value::from("MISMATCH"), &want), "{json}");
    }
    let out = expect_status(&["verify", "10", "--g", "26", "--answer", "5"], 1);
    assert!(
        out.ends_with(
            "the claim is odd, and c(10, 26) is even by the closed form of G (26 >= G(10) = 14): \
                           it cannot be right\n"
        ),
        "{out}"
    );
    let out = expect_status(&["verify", "0", "--answer", "1"], 1);
    assert!(out.ends_with("c(0, 0) is even by the closed form of G (T(0) has no move): it cannot be right\n"), "{out}");
    let args = ["verify", "10", "--g", "26", "--answer", "4", "--json"];
    let json = json_line(&args, &expect_status(&args, 0));
    assert_eq!(json["parity"], serde_json::json!({"agrees": true, "claimed": 0, "closed_form": 0}));
}

/// Asked for the exact count, a residue whose exact count does not fit in memory is judged by the
/// modular engine instead, as `count --mod-only` computes it, and that is said on stderr, in the
/// verdict and in the JSON.
#[test]
fn a_residue_too_large_to_count_exactly_is_judged_by_the_modular_engine() {
    let truth = residue(&exact(5000, 0), 998_244_353).to_string();
    let wrong = ((truth.parse::<u128>().unwrap() + 1) % 998_244_353).to_string();
    let by = by_route(998_244_353);
    // 10 MiB: the exact count of c(5000, 0) needs about 14 MiB, the modular engine about 8 MiB
    for (answer, code, verdict) in [(&truth, 0, "OK"), (&wrong, 1, "MISMATCH")] {
        let args = ["verify", "5000", "--mod", "998244353", "--answer", answer, "--max-memory", "10M", "--exact"];
        let output = fibtree(&args);
        assert_eq!(output.status.code(), Some(code), "{}", stderr(&output));
        let err = stderr(&output);
        assert!(err.contains("judged by the modular engine (the exact count needs about"), "{err}");
        assert!(err.contains("more than the 10.0 MiB it may use"), "{err}");
        let out = stdout(&output);
        assert_eq!(out, format!("{verdict}: c(5000, 0) mod 998244353: claimed {answer}, true {truth} ({by})\n"));
        let json_args = [&args[..], &["--json"]].concat();
        let json = json_line(&json_args, &stdout(&fibtree(&json_args)));
        assert_eq!((json["judged_by"].as_str(), json["verdict"].as_str()), (Some("modular"), Some(verdict)));
        assert!(json["exact_memory_estimate_bytes"].as_u64().unwrap() > 10 << 20, "{json}");
        assert_eq!(json["independent"], truth.as_str());
    }
    // where the exact count fits, it judges, with its cross-check
    let args = ["verify", "5000", "--mod", "998244353", "--answer", &truth, "--json", "--exact"];
    let json = json_line(&args, &expect_status(&args, 0));
    assert_eq!((json["judged_by"].as_str(), json["independent"].as_str()), (Some("exact"), Some(truth.as_str())));
    // in a claims file, line by line
    let dir = TempDir::new("modular-route");
    let path = dir.file("claims.csv", format!("n,g,modulus,answer\n5000,0,998244353,{wrong}\n10,0,7,3\n"));
    let output = fibtree(&["verify", "--claims", &path, "--max-memory", "10M", "--json", "--exact"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(stderr(&output).contains("c(5000, 0) judged by the modular engine"), "{}", stderr(&output));
    let json: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let judged: Vec<_> = json["verdicts"].as_array().unwrap().iter().map(|v| v["judged_by"].clone()).collect();
    assert_eq!(judged, ["modular", "exact"]);
    assert_eq!(json["verdicts"][0]["expected"], truth.as_str());
    // a whole value has no modular route: refused, naming the memory
    let err = fibtree(&["verify", "5000", "--answer", "1", "--max-memory", "10M"]);
    assert_eq!(err.status.code(), Some(2), "{}", stderr(&err));
    assert!(stderr(&err).contains("memory"), "{}", stderr(&err));
}
