//! Fuzzing the claims parser: arbitrary bytes never make it panic, and every line it reads is
//! either a claim or reported malformed, each with its true line number; and random claims judged
//! by both routes, the modular engine's and the exact count's, with the same verdicts.
//!
//! The default run is short; a longer one, with a fixed budget of cases:
//! `PROPTEST_CASES=200000 cargo test --release --test lib claims`. The seed is fixed (printed
//! with `--nocapture`); `PROPTEST_RNG_SEED=S` runs another one.

use fibtree::claims::{CLAIMS_HEADER, Claim, Judged, Route, check_claims, parse_claims};
use num_bigint::BigUint;
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
                // a residue below its modulus; an empty modulus claims the whole count
                prop_assert!(c.modulus.is_none_or(|m| m >= 2 && c.answer < m.into()));
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

/// Random claims: (n, g) below 400 with g mostly small, moduli from 2 to 2^128 - 1 (many of them
/// below 2^63, some even, some of 2^62 or more), each answer right or off by one, and some whole
/// values.
fn claims() -> impl Strategy<Value = Vec<Claim>> {
    let modulus = prop_oneof![
        2u128..1000,
        1000u128..1 << 31,
        (1u128 << 31)..1 << 62,
        (1u128 << 62)..1 << 63,
        (1u128 << 63)..u128::MAX,
    ];
    let claim = (0u64..400, prop_oneof![0u64..4, 0u64..300], proptest::option::weighted(0.9, modulus), any::<bool>());
    proptest::collection::vec(claim, 1..8).prop_map(|claims| {
        claims
            .into_iter()
            .enumerate()
            .map(|(line, (n, g, modulus, off))| {
                let value = fibtree::count(n, g).unwrap();
                let truth = match modulus {
                    Some(m) => value % BigUint::from(m),
                    None => value,
                };
                let answer = match (off, modulus) {
                    (true, Some(m)) => (truth + 1u32) % BigUint::from(m),
                    (true, None) => truth + 1u32,
                    (false, _) => truth,
                };
                Claim { line: line + 2, n, g, modulus, answer }
            })
            .collect()
    })
}

proptest! {
    // a fixed number of cases: each counts its claims three times
    #![proptest_config(ProptestConfig { cases: 48, ..config() })]

    /// The modular route and the exact route give every claim the same truth and verdict, that of
    /// the library's exact count; the modular route judges exactly the residues below 2^63 of the
    /// (n, g) with no whole value or larger modulus, each checked where a check exists.
    #[test]
    fn both_routes_give_the_exact_counts_verdicts(claims in claims()) {
        let options = fibtree::Options::default();
        let (by_residues, refused) = check_claims(&claims, &options, Route::Residues).unwrap();
        prop_assert!(refused.is_empty());
        let (by_exact, _) = check_claims(&claims, &options, Route::Exact).unwrap();
        for ((residues, exact), claim) in by_residues.iter().zip(&by_exact).zip(&claims) {
            let value = fibtree::count(claim.n, claim.g).unwrap();
            let truth = claim.modulus.map_or(value.clone(), |m| value % BigUint::from(m));
            prop_assert_eq!(&residues.expected, &truth);
            prop_assert_eq!(&exact.expected, &truth);
            prop_assert_eq!(residues.ok(), exact.ok());
            prop_assert_eq!(exact.judged, Judged::Exact);
            let counted_exactly = claims.iter().any(|c| {
                (c.n, c.g) == (claim.n, claim.g) && c.modulus.is_none_or(|m| m >= 1 << 63)
            });
            let want = if counted_exactly { Judged::Exact } else { Judged::Modular };
            prop_assert_eq!(residues.judged, want, "{:?}", claim);
            if want == Judged::Modular {
                let m = claim.modulus.unwrap();
                prop_assert_eq!(residues.multiple.is_some(), m < 1 << 62);
                prop_assert_eq!(residues.parity_checked(), m < 1 << 62 || m % 2 == 0);
            }
        }
    }
}
