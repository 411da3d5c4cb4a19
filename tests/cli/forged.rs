//! Damaged and forged input files fed to the commands that read them: shard sets to `combine`,
//! claims files to `verify --claims`. Property tests with fixed, printed seeds mutate real files
//! (a field given another value or removed, the text cut, a byte changed; a shard's checksum made
//! right again, so that its structure is what is tested): every run ends with a status of its own
//! (0, 1 or 2), never a panic, an abort or a signal, and a combine that succeeds gives the count.
//! Forged checkpoints are tested beside their reader (`crates/fibtree/src/checkpoint/fuzz.rs`).

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};
use serde_json::Value;

use crate::common::*;

/// A runner of `cases` cases from `seed`, printed so that a failure can be reproduced.
fn runner(what: &str, seed: u64, cases: u32) -> TestRunner {
    eprintln!("{what}: seed {seed:#x}, {cases} cases");
    TestRunner::new(Config { cases, rng_seed: RngSeed::Fixed(seed), failure_persistence: None, ..Config::default() })
}

/// A value worth putting in a field of a file: edges of the numbers, wrong types, long digits.
fn value() -> impl Strategy<Value = Value> {
    let strings = [
        "",
        "0",
        "1",
        "2",
        "-1",
        "1/2",
        "2/2",
        "3/2",
        "0/2",
        "1/0",
        "2/1",
        "18446744073709551616",
        "4611686018427387847",
        "4611686018427387848",
        "340282366920938463463374607431768211456",
        "99999999999999999999999999999999999999999999999999",
        "x",
        "1e9",
        " 1",
    ];
    prop_oneof![
        prop::sample::select(strings.to_vec()).prop_map(|s| Value::String(s.to_string())),
        prop::sample::select(vec![0i64, 1, 2, 3, -1, 300, 299, i64::MAX, i64::MIN]).prop_map(Value::from),
        Just(Value::from(u64::MAX)),
        Just(Value::from(1e300)),
        Just(Value::Null),
        Just(Value::Bool(true)),
        Just(Value::Array(vec![])),
        prop::collection::vec("[0-9]{1,30}", 0..5).prop_map(|v| v.into_iter().map(Value::String).collect()),
        Just(Value::Object(Default::default())),
    ]
}

/// One change to a shard file.
#[derive(Clone, Debug)]
enum ShardChange {
    /// The field at this index (of the file's, sorted) given a value.
    Field(usize, Value),
    /// An element of the primes or the residues given a value.
    Element(bool, usize, Value),
    /// The field at this index removed.
    Remove(usize),
    /// The text cut to this many bytes (the checksum left as it is).
    Cut(usize),
    /// The byte at this index xor-ed (the checksum left as it is).
    Byte(usize, u8),
}

fn shard_change() -> impl Strategy<Value = ShardChange> {
    prop_oneof![
        4 => (any::<usize>(), value()).prop_map(|(i, v)| ShardChange::Field(i, v)),
        3 => (any::<bool>(), any::<usize>(), value()).prop_map(|(p, i, v)| ShardChange::Element(p, i, v)),
        1 => any::<usize>().prop_map(ShardChange::Remove),
        1 => any::<usize>().prop_map(ShardChange::Cut),
        1 => (any::<usize>(), 1..=255u8).prop_map(|(i, b)| ShardChange::Byte(i, b)),
    ]
}

/// The text of `shard` with `change` made (and its checksum made right, but for a cut or a byte).
fn changed(shard: &Value, change: &ShardChange) -> Vec<u8> {
    let mut file = shard.clone();
    let keys: Vec<String> = file.as_object().unwrap().keys().cloned().collect();
    match change {
        ShardChange::Field(i, v) => file[&keys[i % keys.len()]] = v.clone(),
        ShardChange::Element(primes, i, v) => {
            if let Some(list) = file[if *primes { "primes" } else { "residues" }].as_array_mut() {
                let at = i % list.len();
                list[at] = v.clone();
            }
        }
        ShardChange::Remove(i) => {
            file.as_object_mut().unwrap().remove(&keys[i % keys.len()]);
        }
        ShardChange::Cut(_) | ShardChange::Byte(..) => {}
    }
    if !matches!(change, ShardChange::Field(i, _) if keys[i % keys.len()] == "checksum") {
        file["checksum"] = Value::String(shard_checksum(&file));
    }
    let mut text = serde_json::to_vec(&file).unwrap();
    match *change {
        ShardChange::Cut(len) => text.truncate(len % (text.len() + 1)),
        ShardChange::Byte(i, b) => {
            let at = i % text.len();
            text[at] ^= b;
        }
        _ => {}
    }
    text
}

/// A set of three shards of c(300, 0), one of them changed, combined: it ends with a status of its
/// own; where it succeeds, with the count.
#[test]
fn forged_shards_are_refused_or_combine_to_the_count() {
    let want = success(&["count", "300", "-q"]);
    let dir = TempDir::new("forged-shards");
    let shards: Vec<Value> = (1..=3)
        .map(|i| serde_json::from_str(&success(&["shard", "300", "--shard", &format!("{i}/3")])).unwrap())
        .collect();
    let (refused, combined) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
    let mut runner = runner("forged shards", 0x5eed_54a2_d026, 160);
    runner
        .run(&(0..3usize, shard_change()), |(which, change)| {
            for (i, shard) in shards.iter().enumerate() {
                let text = if i == which { changed(shard, &change) } else { serde_json::to_vec(shard).unwrap() };
                std::fs::write(dir.join(&format!("{}.json", i + 1)), text).unwrap();
            }
            let args = ["combine", &dir.join(""), "-q"];
            let output = fibtree(&args);
            match output.status.code() {
                Some(0) => {
                    prop_assert_eq!(stdout(&output), want.clone(), "{:?}", change);
                    combined.set(combined.get() + 1);
                }
                Some(1 | 2) => {
                    prop_assert!(!stderr(&output).trim().is_empty(), "{:?}: a refusal says why", change);
                    refused.set(refused.get() + 1);
                }
                code => prop_assert!(false, "{:?}: exit {:?}: {}", change, code, stderr(&output)),
            }
            Ok(())
        })
        .unwrap();
    let (refused, combined) = (refused.get(), combined.get());
    eprintln!("forged shards: {refused} refused, {combined} combined");
    assert!(refused > 0 && combined > 0, "both outcomes reached");
}

/// 2 x 10^18 x 998244353: a value changed by a multiple of it agrees with the true count modulo 10^18,
/// 998244353 and 2, every projection fixed before a run.
fn fixed_product() -> num_bigint::BigUint {
    num_bigint::BigUint::from(2u32) * 10u64.pow(18) * 998_244_353u64
}

/// The shards of c(3000, 0) in three (13 primes each), as JSON.
fn shards_of_3000() -> Vec<Value> {
    (1..=3).map(|i| serde_json::from_str(&success(&["shard", "3000", "--shard", &format!("{i}/3")])).unwrap()).collect()
}

/// The primes of a shard file.
fn primes_of(shard: &Value) -> Vec<u64> {
    shard["primes"].as_array().unwrap().iter().map(|p| p.as_str().unwrap().parse().unwrap()).collect()
}

/// `shard` with its residues those of `value` and its checksum made right.
fn forged_to(shard: &Value, value: &num_bigint::BigUint) -> Value {
    let mut file = shard.clone();
    let residues: Vec<Value> = primes_of(shard).iter().map(|&p| Value::String(residue(value, p).to_string())).collect();
    file["residues"] = Value::Array(residues);
    file["checksum"] = Value::String(shard_checksum(&file));
    file
}

/// Forged shard sets whose value agrees with every fixed projection (10^18, 998244353, the parity,
/// below |T(n)|) are withheld: the combined value is also checked modulo a prime drawn for the run,
/// which no file can know. Nothing reaches standard output or `-o`, the exit status is 1, the shard
/// files are kept as they are, and the message names the drawn modulus.
#[test]
fn forged_shard_sets_that_agree_with_every_fixed_projection_are_withheld() {
    let truth: num_bigint::BigUint = success(&["count", "3000", "-q"]).trim().parse().unwrap();
    let shards = shards_of_3000();
    let product = |files: &[&Value]| {
        files.iter().flat_map(|s| primes_of(s)).fold(num_bigint::BigUint::from(1u32), |acc, p| acc * p)
    };
    // one file: the truth shifted by the fixed product times the other files' primes, so that the
    // other files' residues stay those of the truth
    let one = truth.clone() + fixed_product() * product(&[&shards[1], &shards[2]]);
    let one_file = vec![forged_to(&shards[0], &one), shards[1].clone(), shards[2].clone()];
    // every file: the truth shifted by the fixed product, and by 7 times it
    let every = |k: u32| shards.iter().map(|s| forged_to(s, &(truth.clone() + fixed_product() * k))).collect();
    // every file saying it is of c(3000, 1), with the residues of c(3000, 0)
    let other_g: Vec<Value> = shards
        .iter()
        .map(|s| {
            let mut file = s.clone();
            file["g"] = Value::from(1);
            file["checksum"] = Value::String(shard_checksum(&file));
            file
        })
        .collect();
    for (what, set) in [("one file", one_file), ("every file", every(1)), ("every file, 7 x", every(7)), ("g", other_g)]
    {
        let dir = TempDir::new("forged-set");
        let texts: Vec<Vec<u8>> = set.iter().map(|s| serde_json::to_vec(s).unwrap()).collect();
        for (i, text) in texts.iter().enumerate() {
            std::fs::write(dir.join(&format!("{}.json", i + 1)), text).unwrap();
        }
        std::fs::create_dir(dir.join("out")).unwrap();
        let out = format!("{}/result.json", dir.join("out"));
        let output = fibtree(&["combine", &dir.join(""), "--json", "-o", &out]);
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{what}: {err}");
        assert!(stdout(&output).is_empty() && !std::path::Path::new(&out).exists(), "{what}: nothing written");
        for (i, text) in texts.iter().enumerate() {
            assert_eq!(&std::fs::read(dir.join(&format!("{}.json", i + 1))).unwrap(), text, "{what}: shards kept");
        }
        let drawn = err
            .split("checked modulo ")
            .nth(1)
            .and_then(|rest| rest.split(',').next())
            .unwrap_or_else(|| panic!("{what}: the drawn prime is named: {err}"));
        assert!(err.contains(&format!("CROSS-CHECK FAILED for c(3000, {}) mod {drawn}", set[0]["g"])), "{what}: {err}");
    }
    // the honest set combines, checked modulo three moduli, the last drawn for the run
    let dir = TempDir::new("honest-set");
    for (i, shard) in shards.iter().enumerate() {
        std::fs::write(dir.join(&format!("{}.json", i + 1)), serde_json::to_vec(shard).unwrap()).unwrap();
    }
    let report = success_json(&["combine", &dir.join(""), "--json"]);
    assert_eq!(report["value"].as_str().unwrap(), truth.to_string());
    let moduli: Vec<&str> =
        report["projections"].as_array().unwrap().iter().map(|p| p["modulus"].as_str().unwrap()).collect();
    assert_eq!(moduli.len(), 3, "{report}");
    assert!(moduli[2].parse::<u64>().unwrap() > 1 << 61, "{report}");
}

/// A claims file (from docs/formats.in/claims.csv, with more lines) with lines changed: fields given
/// other values, lines repeated or cut, bytes changed, a header moved.
fn claims_change() -> impl Strategy<Value = (usize, usize, String)> {
    let fields = prop_oneof![
        prop::sample::select(vec![
            "",
            "0",
            "1",
            "2",
            "300",
            "-5",
            "1e3",
            "2^64",
            "10^18",
            "10^9+7",
            "2^63",
            "2^1000",
            "1e9",
            "abc",
            "2147483647",
            "99999999999999999999999999",
            "0x10",
            " 7 ",
            "\"3\"",
            "1,2",
            "\u{0}",
            "\u{feff}",
        ])
        .prop_map(str::to_string),
        // digits of a small n, or of one past every n (a count of an n between takes its time)
        "[0-9]{1,3}",
        "[0-9]{11,40}",
        "[ -~]{0,12}",
    ];
    (any::<usize>(), any::<usize>(), fields)
}

#[test]
fn forged_claims_files_end_with_a_status_of_their_own() {
    let base = "n,g,modulus,answer\n300,0,10^18,1\n300,,998244353,2\n100,3,1e9,378655302\n200,0,2^64,5\n40,1,,7\n";
    let dir = TempDir::new("forged-claims");
    let mut runner = runner("forged claims", 0x5eed_c1a1_2026, 200);
    let codes = std::cell::RefCell::new(std::collections::BTreeMap::new());
    runner
        .run(&(prop::collection::vec(claims_change(), 1..4), 0..4u8), |(changes, shape)| {
            let mut lines: Vec<String> = base.lines().map(str::to_string).collect();
            for (line, field, value) in &changes {
                let at = line % lines.len();
                let mut cells: Vec<String> = lines[at].split(',').map(str::to_string).collect();
                let cell = field % cells.len();
                cells[cell] = value.clone();
                lines[at] = cells.join(",");
            }
            let mut text = lines.join("\n").into_bytes();
            match shape {
                1 => text.truncate(text.len() / 2),
                2 => text = String::from_utf8_lossy(&text).replace('\n', "\r\n").into_bytes(),
                3 => text.extend_from_slice(b"\n\xff\xfe,1\n"),
                _ => {}
            }
            let file = dir.file("claims.csv", &text);
            let output = fibtree(&["verify", "--claims", &file]);
            let code = output.status.code();
            prop_assert!(matches!(code, Some(0..=2)), "{:?}: exit {:?}: {}", changes, code, stderr(&output));
            *codes.borrow_mut().entry(code.unwrap()).or_insert(0) += 1;
            Ok(())
        })
        .unwrap();
    let codes = codes.into_inner();
    eprintln!("forged claims: exit statuses {codes:?}");
    assert!(codes.len() >= 2, "more than one outcome reached: {codes:?}");
}
