//! Integers in the JSON every command writes: a number up to 2^53 - 1, the largest that every JSON
//! reader keeps exactly (many read numbers as 64-bit floating point), and a decimal string above,
//! so that no digit is lost; a reader of fibtree's own files takes either form.

use serde::{Deserialize, Deserializer, Serializer};

/// The largest integer every JSON reader holds exactly: 2^53 - 1.
pub(super) const EXACT: u64 = (1 << 53) - 1;

/// Writes `v` as a JSON number up to [`EXACT`], as a decimal string above (for `serialize_with`).
///
/// # Errors
/// The serializer's.
pub(super) fn int<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
    if *v <= EXACT { s.serialize_u64(*v) } else { s.collect_str(v) }
}

/// [`int`] for an optional value, `null` where there is none (for `serialize_with`).
///
/// # Errors
/// The serializer's.
pub(super) fn opt_int<S: Serializer>(v: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => int(v, s),
        None => s.serialize_none(),
    }
}

/// [`int`] for a signed value (G(K), -1 for the empty tree): a number within 2^53 - 1 of zero, a
/// decimal string beyond (for `serialize_with`).
///
/// # Errors
/// The serializer's.
pub(super) fn signed<S: Serializer>(v: &i128, s: S) -> Result<S::Ok, S::Error> {
    match i64::try_from(*v) {
        Ok(small) if small.unsigned_abs() <= EXACT => s.serialize_i64(small),
        _ => s.collect_str(v),
    }
}

/// Reads an integer [`int`] wrote: a number, or a string of decimal digits (for `deserialize_with`).
///
/// # Errors
/// The deserializer's, for anything else or a value past 2^64 - 1.
pub(super) fn read_int<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Number(u64),
        Digits(String),
    }
    match Either::deserialize(d)? {
        Either::Number(v) => Ok(v),
        Either::Digits(s) => fibtree_util::parse_whole(&s)
            .map_err(|_| serde::de::Error::custom(format!("expected a whole number below 2^64, got '{s}'"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Serialize, Deserialize, Debug, PartialEq)]
    struct G {
        #[serde(serialize_with = "int", deserialize_with = "read_int")]
        g: u64,
    }

    #[test]
    fn numbers_below_2_53_strings_above() {
        let json = |g| serde_json::to_string(&G { g }).unwrap();
        assert_eq!(json(0), r#"{"g":0}"#);
        assert_eq!(json(EXACT), r#"{"g":9007199254740991}"#);
        assert_eq!(json(EXACT + 1), r#"{"g":"9007199254740992"}"#);
        assert_eq!(json(u64::MAX), r#"{"g":"18446744073709551615"}"#);
        for g in [0, EXACT, EXACT + 1, u64::MAX] {
            assert_eq!(serde_json::from_str::<G>(&json(g)).unwrap(), G { g });
        }
        assert!(serde_json::from_str::<G>(r#"{"g":"-1"}"#).is_err());
        let signed_json = |v: i128| {
            let mut out = Vec::new();
            signed(&v, &mut serde_json::Serializer::new(&mut out)).unwrap();
            String::from_utf8(out).unwrap()
        };
        assert_eq!(signed_json(-1), "-1");
        assert_eq!(signed_json(EXACT.into()), "9007199254740991");
        assert_eq!(signed_json(i128::from(u64::MAX) - 1), r#""18446744073709551614""#);
        assert!(serde_json::from_str::<G>(r#"{"g":"18446744073709551616"}"#).is_err());
    }
}
