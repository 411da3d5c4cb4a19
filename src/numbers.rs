//! Reading numbers as people write them: decimal digits only, `A^B` or `AeB` for moduli.

use std::str::FromStr;

/// Why [`parse_whole`] refused a text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NotWhole {
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
pub(crate) fn parse_whole<T: FromStr>(s: &str) -> Result<T, NotWhole> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(NotWhole::NotDigits);
    }
    s.parse().map_err(|_| NotWhole::TooLarge)
}

/// Parses a whole number written as decimal digits, `A^B` (A to the power B) or `AeB` (A times ten to
/// the B), if it fits in 128 bits. Cost O(length).
///
/// # Errors
/// A message saying what was expected.
pub(crate) fn parse_number(s: &str) -> Result<u128, String> {
    let too_big = || format!("'{s}' does not fit in 128 bits");
    let digits = |t: &str| -> Result<u128, String> {
        parse_whole(t).map_err(|e| match e {
            NotWhole::NotDigits => format!("expected a whole number (digits, A^B or AeB), got '{s}'"),
            NotWhole::TooLarge => too_big(),
        })
    };
    if let Some((base, exp)) = s.split_once('^') {
        let exp = u32::try_from(digits(exp)?).map_err(|_| too_big())?;
        digits(base)?.checked_pow(exp).ok_or_else(too_big)
    } else if let Some((mantissa, exp)) = s.split_once(['e', 'E']) {
        let exp = u32::try_from(digits(exp)?).map_err(|_| too_big())?;
        10u128.checked_pow(exp).and_then(|p| p.checked_mul(digits(mantissa).ok()?)).ok_or_else(too_big)
    } else {
        digits(s)
    }
}

/// Parses a modulus: a number as [`parse_number`] reads it, at least 2.
///
/// # Errors
/// A message saying what was expected.
pub(crate) fn parse_modulus(s: &str) -> Result<u128, String> {
    match parse_number(s) {
        Ok(m) if m >= 2 => Ok(m),
        Ok(m) => Err(format!("expected a modulus of at least 2, got {m}")),
        Err(e) => Err(e),
    }
}

/// The number of decimal digits of `v` (1 for 0). Cost O(digits^2 / 64).
pub(crate) fn decimal_digits(v: &num_bigint::BigUint) -> usize {
    v.to_str_radix(10).len()
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
        for bad in ["2^128", "1e39", "340282366920938463463374607431768211456", "", "-3", "1.5", "x^2", "10^", "e5"] {
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
