//! The parsers of the command line's values: each refuses a bad value with one line saying what
//! was expected, which clap shows after the argument's name.

use fibtree_util::NotWhole;

/// A whole number in 0..2^64, written as every number of the command line is (digits, `A^B` or
/// `AeB`, each with an optional `+C` or `-C`: [`fibtree_util::parse_number`]), as N, G and a modulus
/// alike.
pub(super) fn parse_whole(s: &str) -> Result<u64, String> {
    match fibtree_util::parse_whole::<u64>(s) {
        Ok(n) => Ok(n),
        Err(NotWhole::TooLarge) => Err("expected a whole number below 2^64".into()),
        Err(NotWhole::NotDigits) => match fibtree_util::parse_number(s).map(u64::try_from) {
            Ok(Ok(n)) => Ok(n),
            Ok(Err(_)) => Err("expected a whole number below 2^64".into()),
            Err(_) => Err(format!("expected a whole number ({})", fibtree_util::NUMBER_FORMS)),
        },
    }
}

/// A modulus for the modular engine, 2 <= M < 2^63, written as [`fibtree_util::parse_number`]
/// reads it (digits, `A^B` or `AeB`, with an optional `+C` or `-C`).
pub(super) fn parse_modulus(s: &str) -> Result<u64, String> {
    fibtree_util::parse_number(s)
        .ok()
        .and_then(|m| u64::try_from(m).ok())
        .filter(|m| (2..fibtree::MODULUS_LIMIT).contains(m))
        .ok_or_else(|| format!("expected a modulus with 2 <= M < 2^63 ({})", fibtree_util::NUMBER_FORMS))
}

/// A modulus from 2 to 2^128 - 1, written as [`parse_modulus`] reads one.
pub(super) fn parse_wide_modulus(s: &str) -> Result<u128, String> {
    fibtree_util::parse_modulus(s)
}

/// A claimed residue or whole count: decimal digits, of any size.
pub(super) fn parse_answer(s: &str) -> Result<num_bigint::BigUint, String> {
    fibtree_util::parse_whole(s).map_err(|_| "expected a whole number (decimal digits only)".into())
}

/// A number of last digits, 1 to 38 (10^38 < 2^128).
pub(super) fn parse_last_digits(s: &str) -> Result<u32, String> {
    match parse_whole(s)? {
        d @ 1..=38 => Ok(d as u32),
        _ => Err("expected from 1 to 38 digits".into()),
    }
}

/// A size in bytes, as [`fibtree_util::parse_bytes`] reads it (4G, 5.5G, 512M, 1000000).
pub(super) fn parse_size(s: &str) -> Result<u64, String> {
    fibtree_util::parse_bytes(s)
}

/// The memory of a program `stress` runs (`--memory-limit`): a size as [`parse_size`] reads it, at
/// least 1 MiB (less than any program needs to start; a bare number is bytes, not megabytes).
pub(super) fn parse_program_memory(s: &str) -> Result<u64, String> {
    match parse_size(s)? {
        bytes @ 0x10_0000.. => Ok(bytes),
        _ => Err("expected a size of at least 1M (a bare number is bytes), such as 256M".to_string()),
    }
}

/// A seed: decimal digits, or `0x` and hexadecimal digits (the form `self-test` prints), below 2^64.
pub(super) fn parse_seed(s: &str) -> Result<u64, String> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
            u64::from_str_radix(hex, 16).map_err(|_| "expected a seed below 2^64".to_string())
        }
        Some(_) => Err("expected a seed: decimal digits, or 0x and hexadecimal digits".to_string()),
        None => fibtree_util::parse_whole(s).map_err(|e| match e {
            NotWhole::TooLarge => "expected a seed below 2^64".to_string(),
            NotWhole::NotDigits => "expected a seed: decimal digits, or 0x and hexadecimal digits".to_string(),
        }),
    }
}

/// The most worker threads `--threads` accepts.
pub(crate) const MAX_THREADS: u64 = 1024;

/// A thread count from 1 to [`MAX_THREADS`].
pub(super) fn parse_threads(s: &str) -> Result<usize, String> {
    parse_count(s, MAX_THREADS, "a thread count")
}

/// A count from 1 to `max`; `what` names it in the error.
fn parse_count(s: &str, max: u64, what: &str) -> Result<usize, String> {
    match parse_whole(s)? {
        t @ 1.. if t <= max => Ok(t as usize),
        _ => Err(format!("expected {what} from 1 to {max}")),
    }
}

/// The runs of each (n, threads) when no number is given.
pub(crate) const BENCH_RUNS: usize = 3;

/// The most timed runs of each (n, threads) `bench` accepts. A median settles long before: on a
/// shared machine the spread between runs, not their number, limits it. A thousand runs of the
/// default f(20000) are already 1.6 x 10^13 limb additions, so a larger count is a slip rather
/// than a plan (and the runs' times are kept, one number each).
pub(crate) const MAX_BENCH_RUNS: usize = 1000;

/// Lanes per chunk for `bench --chunk-lanes`: one of the chunk sizes the engine has kernels for.
pub(super) fn parse_chunk_lanes(s: &str) -> Result<usize, String> {
    let lanes = parse_whole(s)?;
    match fibtree::CHUNK_LANES.iter().find(|&&c| c as u64 == lanes) {
        Some(&c) => Ok(c),
        None => Err("expected 1, 2, 4, 8, 16, 32 or 64 lanes".to_string()),
    }
}

/// When `bench --tiles` tiles the engine's blocks: never, always or measured.
pub(super) fn parse_tiles(s: &str) -> Result<fibtree::TileRule, String> {
    match s {
        "never" => Ok(fibtree::TileRule::Never),
        "always" => Ok(fibtree::TileRule::Always),
        "measured" => Ok(fibtree::TileRule::Measured),
        _ => Err("expected never, always or measured".to_string()),
    }
}

/// A tree for `bench --n`: 2 <= N <= MAX_N (T(0) and T(1) have no moves to time).
pub(super) fn parse_bench_n(s: &str) -> Result<u64, String> {
    match parse_whole(s)? {
        n @ 2..=fibtree::MAX_N => Ok(n),
        _ => Err(format!("expected N from 2 to {}", fibtree::MAX_N)),
    }
}

/// A number of timed runs, from 1 to [`MAX_BENCH_RUNS`].
pub(super) fn parse_runs(s: &str) -> Result<usize, String> {
    let max = MAX_BENCH_RUNS;
    usize::try_from(parse_whole(s)?)
        .ok()
        .filter(|r| (1..=max).contains(r))
        .ok_or_else(|| format!("expected from 1 to {max} runs"))
}

/// `--shards S`: 1 <= S <= [`fibtree::crt::ShardResidues::MAX_SHARDS`].
pub(super) fn parse_shards(s: &str) -> Result<usize, String> {
    match parse_whole(s)? {
        s @ 1.. if s <= fibtree::crt::ShardResidues::MAX_SHARDS as u64 => Ok(s as usize),
        _ => Err(format!("expected a number of shards from 1 to {}", fibtree::crt::ShardResidues::MAX_SHARDS)),
    }
}

/// `--shard I/S` (and a shard file's `shard`): 1 <= I <= S <= [`fibtree::crt::ShardResidues::MAX_SHARDS`], both in
/// decimal digits as every other number (no sign, no spaces).
pub(crate) fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let most = fibtree::crt::ShardResidues::MAX_SHARDS;
    let expected = || format!("expected I/S with 1 <= I <= S <= {most}, e.g. 3/64");
    let (i, n) = s.split_once('/').ok_or_else(expected)?;
    let whole = |t: &str| fibtree_util::parse_whole::<u64>(t).ok().filter(|&v| v <= most as u64);
    let (i, n) = (whole(i).ok_or_else(expected)? as usize, whole(n).ok_or_else(expected)? as usize);
    if i == 0 || i > n { Err(expected()) } else { Ok((i, n)) }
}

/// The n of `stress --n`, ascending, each once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Ns(pub(crate) Vec<u64>);

/// The most n one `stress` run takes.
pub(super) const MAX_RUNS: usize = 1_000_000;

/// `--n`: comma-separated items, each a number N, a range A..B (A <= B) or A..B:STEP (STEP >= 1),
/// every n at most [`fibtree::MAX_N`] and at most [`MAX_RUNS`] of them; sorted, repeats removed.
pub(super) fn parse_ns(s: &str) -> Result<Ns, String> {
    let expected = |why: &str| format!("{why}; expected a range A..B, A..B:STEP or a list such as 1,5,9");
    let mut ns = Vec::new();
    for item in s.split(',') {
        let (range, step) = match item.split_once(':') {
            Some((range, step)) => (range, parse_whole(step).map_err(|e| expected(&format!("STEP: {e}")))?),
            None => (item, 1),
        };
        let (a, b) = match range.split_once("..") {
            Some((a, b)) => (a, b),
            None if step == 1 && !item.contains(':') => (range, range),
            None => return Err(expected("a STEP goes with a range")),
        };
        let (a, b) = (parse_whole(a).map_err(|e| expected(&e))?, parse_whole(b).map_err(|e| expected(&e))?);
        if a > b {
            return Err(expected(&format!("{a} > {b}")));
        }
        if step == 0 {
            return Err(expected("STEP is 0"));
        }
        if b > fibtree::MAX_N {
            return Err(format!("expected every n at most {}, got {b}", fibtree::MAX_N));
        }
        if (b - a) / step >= MAX_RUNS as u64 || ns.len() + ((b - a) / step) as usize >= MAX_RUNS {
            return Err(format!("expected at most {MAX_RUNS} n"));
        }
        ns.extend((a..=b).step_by(step as usize));
    }
    ns.sort_unstable();
    ns.dedup();
    Ok(Ns(ns))
}

/// Seconds: a positive decimal number (digits, an optional fraction), at most 10^6.
pub(super) fn parse_seconds(s: &str) -> Result<std::time::Duration, String> {
    let bad = || "expected a number of seconds above 0 and at most 1000000, such as 10 or 0.5".to_string();
    let (whole, fraction) = s.split_once('.').unwrap_or((s, "0"));
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !digits(fraction) {
        return Err(bad());
    }
    let seconds: f64 = s.parse().map_err(|_| bad())?;
    if seconds > 0.0 && seconds <= 1e6 { Ok(std::time::Duration::from_secs_f64(seconds)) } else { Err(bad()) }
}

/// `--jobs`: from 1 to [`MAX_THREADS`] runs at a time.
pub(super) fn parse_jobs(s: &str) -> Result<usize, String> {
    parse_count(s, MAX_THREADS, "a number of runs at a time")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moduli_in_every_form() {
        assert_eq!(parse_modulus("1000000007"), Ok(1_000_000_007));
        assert_eq!(parse_modulus("10^18"), Ok(fibtree::LAST18));
        assert_eq!(parse_modulus("1e18"), Ok(fibtree::LAST18));
        assert_eq!(parse_modulus("2^62"), Ok(1 << 62));
        assert_eq!(parse_modulus("10^9+7"), Ok(1_000_000_007));
        assert_eq!(parse_modulus("2^63-25"), Ok(9_223_372_036_854_775_783));
        assert_eq!(parse_wide_modulus("2^128-1"), Ok(u128::MAX));
        let past = parse_modulus("2^128-1").unwrap_err();
        assert!(past.contains("2 <= M < 2^63") && past.contains("+C"), "{past}");
        assert_eq!(parse_wide_modulus("2^127"), Ok(1 << 127));
        assert!(parse_wide_modulus("2^128").is_err());
        assert_eq!(parse_last_digits("38"), Ok(38));
        assert!(parse_last_digits("39").is_err() && parse_last_digits("0").is_err());
        assert_eq!(parse_answer("0017"), Ok(17u32.into()));
        assert_eq!(parse_answer(&"9".repeat(50)).unwrap().to_string(), "9".repeat(50));
        assert!(parse_answer("+17").is_err());
        assert!(parse_answer("1e3").is_err());
        for bad in ["0", "1", "2^63", "1e19", "-7", "x", "", "10^", "^3", "9223372036854775808"] {
            assert!(parse_modulus(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn whole_numbers_only() {
        assert_eq!(parse_whole("0"), Ok(0));
        assert_eq!(parse_whole("18446744073709551615"), Ok(u64::MAX));
        for bad in ["-1", "+1", " 1", "1 ", "1.0", "18446744073709551616", "abc", ""] {
            assert!(parse_whole(bad).is_err(), "{bad}");
        }
        assert!(parse_threads("0").is_err());
        assert_eq!(parse_threads("4"), Ok(4));
        assert_eq!(parse_size("4G"), Ok(4 << 30));
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("1000"), Ok(1000));
        // decimal fractions of a unit, as `count --verbose` prints sizes
        assert_eq!(parse_size("1.5G"), Ok(3 << 29));
        assert_eq!(parse_size("5.4G"), Ok((54u64 << 30) / 10));
        assert_eq!(parse_size("0.5K"), Ok(512));
        assert_eq!(parse_program_memory("256M"), Ok(256 << 20));
        assert!(parse_program_memory("256").is_err() && parse_program_memory("1023K").is_err());
        for bad in ["", "G", "-1G", "4X", "0", "0.0G", "1.G", ".5G", "1..5G", "1.5.5G", "99999999999T"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_n_of_stress() {
        assert_eq!(parse_ns("1..5"), Ok(Ns(vec![1, 2, 3, 4, 5])));
        assert_eq!(parse_ns("10..20:5"), Ok(Ns(vec![10, 15, 20])));
        assert_eq!(parse_ns("9,1,5,5,3..4"), Ok(Ns(vec![1, 3, 4, 5, 9])));
        assert_eq!(parse_ns("7"), Ok(Ns(vec![7])));
        for bad in ["", "5..1", "1..5:0", "1..", "..5", "a..b", "1,,2", "3:2", "-1..5", "1..2147483648", "0..1000000"] {
            assert!(parse_ns(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_ns("0..999999").map(|ns| ns.0.len()), Ok(MAX_RUNS));
        assert_eq!(parse_seconds("0.5"), Ok(std::time::Duration::from_millis(500)));
        assert_eq!(parse_seconds("10"), Ok(std::time::Duration::from_secs(10)));
        for bad in ["0", "0.0", "-1", "1e3", "inf", "nan", ".5", "5.", "1000001", ""] {
            assert!(parse_seconds(bad).is_err(), "{bad}");
        }
        assert!(parse_jobs("0").is_err() && parse_jobs("1025").is_err());
        assert_eq!(parse_last_digits("38"), Ok(38));
        assert!(parse_last_digits("39").is_err() && parse_last_digits("0").is_err());
    }

    #[test]
    fn seeds_as_they_are_printed() {
        assert_eq!(parse_seed("12345"), Ok(12345));
        assert_eq!(parse_seed("0x18ed18332ee0d166"), Ok(0x18ed_1833_2ee0_d166));
        assert_eq!(parse_seed("0XFF"), Ok(255));
        for bad in ["0x", "0x1g", "0x10000000000000000", "-1", "1e3", ""] {
            assert!(parse_seed(bad).is_err(), "{bad}");
        }
    }
}
