//! Fuzzing the claims parser: arbitrary bytes never make it panic, and every line it reads is
//! either a claim or reported malformed, each with its true line number.
//!
//! The default run is short; a longer one, with a fixed budget of cases:
//! `PROPTEST_CASES=200000 cargo test --release --test lib claims`. The seed is fixed (printed
//! with `--nocapture`); `PROPTEST_RNG_SEED=S` runs another one.

use fibtree::claims::{CLAIMS_HEADER, parse_claims};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

/// The seed of the generated cases, unless PROPTEST_RNG_SEED names another.
const SEED: u64 = 0x00C1_A135_F022;

fn config() -> ProptestConfig {
    let config = ProptestConfig::default(); // reads PROPTEST_CASES and PROPTEST_RNG_SEED
    let rng_seed = match config.rng_seed {
        RngSeed::Random => RngSeed::Fixed(SEED),
        fixed => fixed,
    };
    println!("proptest seed: {rng_seed:?}, cases: {}", config.cases);
    ProptestConfig { rng_seed, ..config }
}

/// The line ends of `bytes`: `\n`, `\r\n` and a lone `\r` each end a line.
fn line_ends(bytes: &[u8]) -> usize {
    bytes.iter().enumerate().filter(|&(i, &b)| b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n'))).count()
}

/// Lines that look like claims, with their pieces drawn from likely and unlikely values.
fn claim_line() -> impl Strategy<Value = String> {
    let field = prop_oneof![
        "[0-9]{0,5}",
        "[0-9]{1,3}\\^[0-9]{1,3}",
        "[0-9]{1,2}e[0-9]{1,2}",
        "-?[0-9a-z .]{0,6}",
        "[0-9]{30,45}",
        Just(String::new()),
    ];
    proptest::collection::vec(field, 0..6).prop_map(|f| f.join(","))
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        // alone (almost always refused whole: no header) and after the header (read line by line)
        for text in [bytes.clone(), [format!("{CLAIMS_HEADER}\n").as_bytes(), &bytes].concat()] {
            let Ok((claims, malformed)) = parse_claims(&text) else { continue };
            let lines = line_ends(&text) + 1;
            for c in &claims {
                prop_assert!(c.line >= 2 && c.line <= lines);
                prop_assert!(c.modulus >= 2 && c.answer < c.modulus);
            }
            for m in &malformed {
                prop_assert!(m.line >= 2 && m.line <= lines);
                prop_assert!(!m.error.contains('\n'));
            }
            let mut numbers: Vec<usize> = claims.iter().map(|c| c.line).chain(malformed.iter().map(|m| m.line)).collect();
            numbers.sort_unstable();
            let count = numbers.len();
            numbers.dedup();
            prop_assert_eq!(numbers.len(), count, "each line once");
        }
    }

    #[test]
    fn claim_like_lines_are_read_or_reported(lines in proptest::collection::vec(claim_line(), 0..40)) {
        let text = format!("{CLAIMS_HEADER}\n{}", lines.join("\n"));
        let (claims, malformed) = parse_claims(text.as_bytes()).unwrap();
        // every non-blank line after the header is exactly one of the two
        let nonblank = lines.iter().filter(|l| !l.trim().is_empty() && !l.trim().starts_with('#')).count();
        prop_assert_eq!(claims.len() + malformed.len(), nonblank);
        let mut numbers: Vec<usize> = claims.iter().map(|c| c.line).chain(malformed.iter().map(|m| m.line)).collect();
        numbers.sort_unstable();
        numbers.dedup();
        prop_assert_eq!(numbers.len(), nonblank, "one verdict a line");
    }
}
