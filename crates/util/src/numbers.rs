//! Reading numbers as people write them: decimal digits only, or for moduli `A^B` or `AeB`, with an
//! optional `+C` or `-C`.

use std::str::FromStr;

use num_bigint::BigUint;
use num_traits::ToPrimitive;

/// Why [`parse_whole`] refused a text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotWhole {
    /// Empty, or a character other than the digits 0-9 (no sign, no spaces, no separators).
    NotDigits,
    /// Digits only, but too large for the type.
    TooLarge,
}

/// A whole number written in decimal digits only (no sign, spaces or separators), of any type that
/// parses digits: `u32`, `u64`, `u128` or a big integer. Cost O(length).
///
/// # Errors
/// [`NotWhole::NotDigits`] for an empty text or any other character; [`NotWhole::TooLarge`] for
/// digits that do not fit.
pub fn parse_whole<T: FromStr>(s: &str) -> Result<T, NotWhole> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(NotWhole::NotDigits);
    }
    s.parse().map_err(|_| NotWhole::TooLarge)
}

/// The forms [`parse_number`] reads, as its errors name them.
pub const NUMBER_FORMS: &str = "digits, A^B or AeB, each with an optional +C or -C";

/// Parses a whole number written as decimal digits, `A^B` (A to the power B) or `AeB` (A times ten to
/// the B), either of the last two followed by `+C` or `-C` (as in `10^9+7` or `2^61-1`), if it fits
/// in 128 bits. The arithmetic is exact: `2^128-1` is `u128::MAX`, though `2^128` does not fit. Cost
/// O(length), and O(1) big-integer operations of at most 129 x 128 bits.
///
/// # Errors
/// A message saying what was expected.
pub fn parse_number(s: &str) -> Result<u128, String> {
    let too_big = || format!("'{s}' does not fit in 128 bits");
    let digits = |t: &str| -> Result<u128, String> {
        parse_whole(t).map_err(|e| match e {
            NotWhole::NotDigits => format!("expected a whole number ({NUMBER_FORMS}), got '{s}'"),
            NotWhole::TooLarge => too_big(),
        })
    };
    let Some(at) = s.find(['^', 'e', 'E']) else { return digits(s) };
    let (base, rest) = (digits(&s[..at])?, &s[at + 1..]);
    let (exp, offset) = match rest.find(['+', '-']) {
        Some(i) => (digits(&rest[..i])?, Some((rest.as_bytes()[i] == b'+', digits(&rest[i + 1..])?))),
        None => (digits(rest)?, None),
    };
    // Past 129, a power of 2 or more is at least 2^130, too large with any C below 2^128 taken away.
    let power = match (s.as_bytes()[at], u32::try_from(exp).ok().filter(|&e| e <= 129)) {
        (b'^', Some(exp)) => BigUint::from(base).pow(exp),
        (b'^', None) if base <= 1 => BigUint::from(base),
        (_, Some(exp)) => BigUint::from(base) * BigUint::from(10u32).pow(exp),
        (_, None) if base == 0 => BigUint::ZERO,
        _ => return Err(too_big()),
    };
    let value = match offset {
        None => power,
        Some((true, c)) => power + c,
        Some((false, c)) if BigUint::from(c) <= power => power - c,
        Some((false, _)) => return Err(format!("expected a whole number, got '{s}', which is below 0")),
    };
    value.to_u128().ok_or_else(too_big)
}

/// Parses a modulus: a number as [`parse_number`] reads it, at least 2.
///
/// # Errors
/// A message saying what was expected.
pub fn parse_modulus(s: &str) -> Result<u128, String> {
    match parse_number(s) {
        Ok(m) if m >= 2 => Ok(m),
        Ok(m) => Err(format!("expected a modulus of at least 2, got {m}")),
        Err(e) => Err(e),
    }
}

/// The number of decimal digits of `v` (1 for 0). Cost O(digits^2 / 64).
pub fn decimal_digits(v: &num_bigint::BigUint) -> usize {
    v.to_str_radix(10).len()
}

/// The most characters of a value that a message shows ([`quoted`]).
pub const SHOWN_CHARS: usize = 40;

/// `value` as a message shows what was given: in double quotes, each control character and each
/// byte that is not UTF-8 escaped (`\n`, `\x1b`, `\xff`), and cut after [`SHOWN_CHARS`] characters
/// with how long it was, so that a message stays one short line whatever it is given. Cost
/// O(length).
///
/// ```
/// use std::ffi::OsStr;
/// assert_eq!(fibtree_util::quoted(OsStr::new("avx3")), r#""avx3""#);
/// assert_eq!(fibtree_util::quoted(OsStr::new("a\nb")), r#""a\nb""#);
/// let long = "x".repeat(100_000);
/// assert_eq!(fibtree_util::quoted(OsStr::new(&long)), format!("\"{}...\" (100000 characters)", "x".repeat(40)));
/// # #[cfg(unix)] {
/// use std::os::unix::ffi::OsStrExt;
/// assert_eq!(fibtree_util::quoted(OsStr::from_bytes(b"\xff\xfeok")), r#""\xff\xfeok""#);
/// # }
/// ```
pub fn quoted(value: &std::ffi::OsStr) -> String {
    let bytes = value.as_encoded_bytes();
    let mut shown = String::new();
    let (mut chars, mut rest) = (0usize, bytes);
    while !rest.is_empty() {
        let (piece, len) = match std::str::from_utf8(rest) {
            Ok(text) => (text.chars().next().map(Ok), text.chars().next().map_or(1, char::len_utf8)),
            Err(e) if e.valid_up_to() > 0 => {
                let text = std::str::from_utf8(&rest[..e.valid_up_to()]).unwrap_or_default();
                (text.chars().next().map(Ok), text.chars().next().map_or(1, char::len_utf8))
            }
            Err(_) => (Some(Err(rest[0])), 1),
        };
        if chars < SHOWN_CHARS {
            match piece {
                Some(Ok(c)) if c.is_control() => shown.extend(c.escape_default()),
                Some(Ok('"')) => shown.push_str("\\\""),
                Some(Ok(c)) => shown.push(c),
                Some(Err(byte)) => shown.push_str(&format!("\\x{byte:02x}")),
                None => {}
            }
        }
        chars += 1;
        rest = &rest[len..];
    }
    match chars > SHOWN_CHARS {
        true => format!("\"{shown}...\" ({chars} characters)"),
        false => format!("\"{shown}\""),
    }
}

/// `count` and its noun, which agree in number: `1 run`, `2 runs`, `0 runs` (`noun` is the singular;
/// the plural adds `s`). Cost O(length).
///
/// # Examples
///
/// ```
/// assert_eq!(fibtree_util::counted(1, "run"), "1 run");
/// assert_eq!(fibtree_util::counted(3, "decimal digit"), "3 decimal digits");
/// ```
pub fn counted(count: u64, noun: &str) -> String {
    if count == 1 { format!("1 {noun}") } else { format!("{count} {noun}s") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_every_form() {
        assert_eq!(parse_number("1000000007"), Ok(1_000_000_007));
        assert_eq!(parse_number("10^18"), Ok(10u128.pow(18)));
        assert_eq!(parse_number("1e18"), Ok(10u128.pow(18)));
        assert_eq!(parse_number("3e2"), Ok(300));
        assert_eq!(parse_number("2^127"), Ok(1u128 << 127));
        assert_eq!(parse_number("340282366920938463463374607431768211455"), Ok(u128::MAX));
        assert_eq!(parse_number("10^9+7"), Ok(1_000_000_007));
        assert_eq!(parse_number("1e9+7"), Ok(1_000_000_007));
        assert_eq!(parse_number("2^61-1"), Ok((1 << 61) - 1));
        assert_eq!(parse_number("2^128-1"), Ok(u128::MAX), "exact, though 2^128 does not fit");
        assert_eq!(parse_number("2^128-340282366920938463463374607431768211455"), Ok(1));
        assert_eq!(parse_number("1E3-1000"), Ok(0));
        assert_eq!(parse_number("1^999999999999+1"), Ok(2));
        assert_eq!(parse_number("0e99999-0"), Ok(0));
        for bad in [
            "2^128",
            "1e39",
            "340282366920938463463374607431768211456",
            "",
            "-3",
            "1.5",
            "x^2",
            "10^",
            "e5",
            "2^128+0",
            "2^130-1",
            "2^129-340282366920938463463374607431768211455",
            "2^9999999999-1",
            "1e3-1001",
            "10^9+",
            "10^9+-7",
            "10^9+7+1",
            "10^9 + 7",
            "5+3",
            "10^-9",
            "2^64-x",
        ] {
            assert!(parse_number(bad).is_err(), "{bad}");
        }
        assert!(parse_modulus("1").is_err());
        assert!(parse_modulus("0").is_err());
        assert_eq!(parse_modulus("2"), Ok(2));
    }

    #[test]
    fn whole_numbers_in_digits_only() {
        assert_eq!(parse_whole::<u64>("0"), Ok(0));
        assert_eq!(parse_whole::<u64>("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(parse_whole::<u64>("18446744073709551616"), Err(NotWhole::TooLarge));
        assert_eq!(parse_whole::<u128>("18446744073709551616"), Ok(1 << 64));
        for bad in ["", "-1", "+1", " 1", "1 ", "1.0", "1_000", "1e3", "x"] {
            assert_eq!(parse_whole::<u64>(bad), Err(NotWhole::NotDigits), "{bad:?}");
        }
        let big: num_bigint::BigUint = parse_whole(&"9".repeat(100)).unwrap();
        assert_eq!(decimal_digits(&big), 100);
        assert_eq!(decimal_digits(&num_bigint::BigUint::ZERO), 1);
    }
}
