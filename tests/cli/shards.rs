//! `fibtree shard` and `fibtree combine`: shards written anywhere and combined into the exact value
//! `count` gives, and every bad set of shard files refused naming the file or shard at fault.

use serde_json::Value;

use crate::common::*;

/// Writes the `count` shards of c(n, g) into `dir` as `I.json`.
fn write_shards(dir: &TempDir, n: &str, g: &str, count: usize) {
    for i in 1..=count {
        let out = dir.join(&format!("{i}.json"));
        success(&["shard", n, "--g", g, "--shard", &format!("{i}/{count}"), "-o", &out]);
    }
}

#[test]
fn shards_combine_to_the_count_in_every_form() {
    let dir = TempDir::new("shards");
    write_shards(&dir, "3000", "2", 3);
    let file: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("2.json")).unwrap()).unwrap();
    assert_eq!((file["n"].as_u64(), file["g"].as_u64(), file["shard"].as_str()), (Some(3000), Some(2), Some("2/3")));
    assert_eq!(file["format"], 1);
    assert_eq!(file["checksum"].as_str().unwrap(), shard_checksum(&file), "the checksum is FNV-1a of the content");
    assert_eq!(file["primes"].as_array().unwrap().len(), file["residues"].as_array().unwrap().len());
    let count = success_json(&["count", "3000", "--g", "2", "--json"]);
    let combined = success_json(&["combine", dir.path().to_str().unwrap(), "--json"]);
    for field in ["value", "digits", "last18", "mod_998244353", "ok", "parity"] {
        assert_eq!(combined[field], count[field], "{field}");
    }
    // count's projections, then one modulo a prime drawn for the run, which no file can know
    let projections = combined["projections"].as_array().unwrap();
    assert_eq!(projections[..2], count["projections"].as_array().unwrap()[..], "{combined}");
    assert!(projections[2]["modulus"].as_str().unwrap().parse::<u64>().unwrap() > 1 << 61, "{combined}");
    assert_eq!(projections[2]["agrees"], true, "{combined}");
    // c(3000, 2) is odd: 2 < G(3000) = 1999
    assert_eq!(combined["parity"], serde_json::json!({"agrees": true, "closed_form": 1, "residue": 1}));
    // its memory: the modular check's estimate and the reconstruction's, not 0
    let modular = success_json(&["count", "3000", "--g", "2", "--mod-only", "--json"]);
    let estimate = combined["memory_estimate_bytes"].as_u64().unwrap();
    assert!(estimate > modular["memory_estimate_bytes"].as_u64().unwrap(), "{combined}");
    // files listed one by one, a shard twice, and the quiet form
    let files: Vec<String> = (1..=3).map(|i| dir.join(&format!("{i}.json"))).collect();
    let mut args: Vec<&str> = vec!["combine", "-q"];
    args.extend(files.iter().map(String::as_str));
    args.push(&files[0]);
    assert_eq!(success(&args).trim(), count["value"].as_str().unwrap());
}

/// `combine` keeps its inputs: `-o` naming one of the shard files is refused before any work, and a
/// result written into the shards' folder (`combine DIR --json -o DIR/result.json`) is skipped, with
/// a line saying so, by every later `combine DIR`.
#[test]
fn combine_neither_replaces_a_shard_nor_reads_its_own_result() {
    let dir = TempDir::new("shards-result");
    write_shards(&dir, "1200", "0", 2);
    let folder = dir.path().to_str().unwrap().to_string();
    let shard = dir.join("1.json");
    let before = std::fs::read(&shard).unwrap();
    let line = usage_error(&["combine", &shard, &dir.join("2.json"), "-o", &shard], "--output");
    assert!(line.contains("1.json"), "{line}");
    let line = usage_error(&["combine", &folder, "-o", &shard], "--output");
    assert!(line.contains("1.json"), "{line}");
    assert_eq!(std::fs::read(&shard).unwrap(), before, "the shard is untouched");
    let result = dir.join("result.json");
    let (out, _) = success_with_stderr(&["combine", &folder, "--json", "-o", &result]);
    assert_eq!(out, "");
    for _ in 0..2 {
        let output = fibtree(&["combine", &folder, "--json", "-o", &result]);
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(0), "{err}");
        assert!(err.contains("skipped") && err.contains("result.json"), "{err}");
        let combined: Value = serde_json::from_str(&std::fs::read_to_string(&result).unwrap()).unwrap();
        assert_eq!(combined["ok"], true);
    }
    // a damaged shard file is still an error, not skipped
    std::fs::write(&shard, &before[..before.len() / 2]).unwrap();
    let output = fibtree(&["combine", &folder]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.lines().last().unwrap().contains("'") && err.contains("1.json' is not a shard file"), "{err}");
}

#[test]
fn bad_sets_of_shards_are_refused() {
    let dir = TempDir::new("shards-bad");
    write_shards(&dir, "1500", "0", 4);
    let path = dir.join("3.json");
    let folder = dir.path().to_str().unwrap().to_string();
    // a missing shard
    std::fs::rename(&path, dir.join("3.moved")).unwrap();
    let line = usage_error(&["combine", &folder], "FILES");
    assert!(line.contains("shard 3 of 4 is missing"), "{line}");
    std::fs::rename(dir.join("3.moved"), &path).unwrap();
    let original = std::fs::read_to_string(&path).unwrap();
    // damage: a byte changed, then the file cut short
    std::fs::write(&path, original.replace('7', "8")).unwrap();
    let line = usage_error(&["combine", &folder], "3.json");
    assert!(line.contains("damaged"), "{line}");
    std::fs::write(&path, &original[..original.len() / 2]).unwrap();
    usage_error(&["combine", &folder], "3.json");
    // two answers for one shard: a residue changed, with a matching checksum
    let mut file: Value = serde_json::from_str(&original).unwrap();
    let r0: u64 = file["residues"][0].as_str().unwrap().parse().unwrap();
    let p0: u64 = file["primes"][0].as_str().unwrap().parse().unwrap();
    file["residues"][0] = Value::String(((r0 + 1) % p0).to_string());
    file["checksum"] = Value::String(shard_checksum(&file));
    std::fs::write(&path, serde_json::to_string(&file).unwrap()).unwrap();
    std::fs::write(dir.join("3-again.json"), &original).unwrap();
    let line = usage_error(&["combine", &folder], "3-again.json");
    assert!(line.contains("different residues for shard 3"), "{line}");
    // the wrong residue alone: caught by the size check (exit 1, loudly)
    std::fs::remove_file(dir.join("3-again.json")).unwrap();
    let out = fibtree(&["combine", &folder]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("CROSS-CHECK FAILED"), "{}", stderr(&out));
    std::fs::write(&path, &original).unwrap();
    // a shard of another count
    let other = TempDir::new("shards-other");
    write_shards(&other, "1600", "0", 4);
    let line = usage_error(&["combine", &folder, &other.join("1.json")], "c(1600, 0)");
    assert!(line.contains("1.json"), "{line}");
    // and everything still combines once repaired
    assert_eq!(success_json(&["combine", &folder, "--json"])["ok"], true);
}

/// A shard file that says it is another shard (its checksum made right) is refused in one line
/// naming the file, the shard and what is wrong with it.
#[test]
fn a_shard_that_says_it_is_another_is_refused_in_one_line() {
    let dir = TempDir::new("shards-renamed");
    write_shards(&dir, "3000", "0", 2);
    let path = dir.join("1.json");
    let mut file: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    file["shard"] = Value::String("1/1".into());
    file["checksum"] = Value::String(shard_checksum(&file));
    std::fs::write(&path, serde_json::to_string(&file).unwrap()).unwrap();
    let line = usage_error(&["combine", &path], "FILES");
    let want = format!(
        "FILES: '{path}' says it is shard 1/1 of c(3000, 0), but its primes are not that shard's (those of another \
         shard or count)"
    );
    assert!(line.trim_end().ends_with(&want), "{line}");
}

/// The value rebuilt from shards is checked mod 2 against the closed form of G, the third projection:
/// a perturbed parity (`--test-perturb 2`, as for `count`) fails loudly with exit 1, and so does a
/// perturbed residue, the value never on stdout.
#[test]
fn combine_checks_the_parity_of_the_value_it_rebuilds() {
    let dir = TempDir::new("shards-parity");
    write_shards(&dir, "900", "5", 2);
    let folder = dir.path().to_str().unwrap().to_string();
    let out = success(&["combine", &folder]);
    assert!(out.contains("agrees with the closed form of G"), "{out}");
    for (perturbed, said) in [("2", "mod 2: the exact value gives"), ("998244353", "mod 998244353")] {
        let output = fibtree(&["combine", &folder, "--test-perturb", perturbed, "--json"]);
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{err}");
        assert!(err.contains(&format!("CROSS-CHECK FAILED for c(900, 5) {said}")), "{err}");
        // nothing on stdout: the report on stderr, its value withheld
        assert_eq!(stdout(&output), "", "{err}");
        assert!(err.contains("withheld: it failed a check"), "{err}");
        let parity = err.lines().find(|l| l.starts_with("parity ")).unwrap_or_else(|| panic!("{err}"));
        assert_eq!(parity.ends_with("DISAGREES with the closed form of G"), perturbed == "2", "{err}");
    }
}

#[test]
fn eight_shards_of_f20000_through_gnu_parallel_with_a_failed_one_rerun() {
    if std::process::Command::new("parallel").arg("--version").output().is_err() {
        crate::common::skip("GNU parallel is not installed (`apt-get install parallel`; .ci/run installs it)");
        return;
    }
    let dir = TempDir::new("parallel");
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    // shard 5's output path is taken by a folder: that shard fails, the others finish
    std::fs::create_dir_all(out.join("5.json").join("in-the-way")).unwrap();
    let log = dir.join("shards.log");
    let run = || {
        std::process::Command::new("parallel")
            .args(["-j", "2", "--joblog", &log, "--resume-failed"])
            .arg(binary())
            .args(["shard", "20000", "--shard", "{}/8", "-o"])
            .arg(out.join("{}.json"))
            .arg(":::")
            .args((1..=8).map(|i| i.to_string()))
            .output()
            .unwrap()
    };
    let first = run();
    assert_eq!(first.status.code(), Some(1), "parallel exits with the number of failed jobs: {}", stderr(&first));
    let out_dir = out.to_str().unwrap();
    let line = usage_error(&["combine", out_dir], "shard 5 of 8 is missing");
    assert!(line.contains("FILES"), "{line}");
    // the way cleared, --resume-failed runs shard 5 alone
    std::fs::remove_dir_all(out.join("5.json")).unwrap();
    let second = run();
    assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));
    let jobs = std::fs::read_to_string(&log).unwrap();
    let runs_of =
        |i: usize| jobs.lines().filter(|l| l.ends_with(&format!("--shard {i}/8 -o {out_dir}/{i}.json"))).count();
    assert_eq!((runs_of(5), runs_of(1)), (2, 1), "only the failed shard ran again:\n{jobs}");
    let combined = success_json(&["combine", out_dir, "--json"]);
    assert_eq!(combined["ok"], true);
    assert_eq!(combined["digits"], 4176);
    // c(20000, 0)'s residues as the modular engine alone gives them (count --mod-only)
    let residues = success(&["count", "20000", "--mod-only", "-q"]);
    let residues: Vec<&str> = residues.lines().collect();
    assert_eq!(residues, [combined["last18"].as_str().unwrap(), combined["mod_998244353"].as_str().unwrap()]);
}
