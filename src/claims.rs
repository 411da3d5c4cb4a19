//! Checking claimed residues against the exact value: one claim, or a CSV file of them.
//!
//! A claim says "c(n, g) mod m = answer". Its truth is the exact value reduced modulo m (any m from 2
//! to 2^128 - 1); where m < 2^63 the modular engine computes the same residue independently, and the
//! two must agree before a verdict is given.
//!
//! ```
//! use fibtree::claims::{check_claims, parse_claims};
//! let (claims, malformed) = parse_claims(b"n,g,modulus,answer\n10,0,7,3\n10,0,1000,18\n");
//! assert!(malformed.is_empty());
//! let (checked, refused) = check_claims(&claims, &fibtree::Options::default())?;
//! assert!(refused.is_empty());
//! // f(10) = 17: 3 mod 7 is right, 18 mod 1000 is not
//! assert_eq!(checked.iter().map(|c| c.ok()).collect::<Vec<_>>(), [true, false]);
//! # Ok::<(), fibtree::Error>(())
//! ```

use num_bigint::BigUint;
use num_traits::ToPrimitive;

use crate::engines::modular::MODULUS_LIMIT;
use crate::error::{Error, Result};
use crate::numbers::{NotWhole, parse_modulus, parse_whole};
use crate::report::{Counting, Options, Report};

/// The header a claims file must start with.
pub const CLAIMS_HEADER: &str = "n,g,modulus,answer";

/// The longest line a claims file may have, in bytes.
pub const MAX_LINE: usize = 4096;

/// One claim: c(n, g) mod `modulus` = `answer`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    /// The 1-based line of the claims file it came from (0 for a claim not from a file).
    pub line: usize,
    /// The tree T(n).
    pub n: u64,
    /// The Grundy value.
    pub g: u64,
    /// The modulus, at least 2.
    pub modulus: u128,
    /// The claimed residue.
    pub answer: u128,
}

/// A line of a claims file that is not a claim, with what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Malformed {
    /// The 1-based line number.
    pub line: usize,
    /// What is wrong, in one line.
    pub error: String,
}

/// A claim with its verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// The claim.
    pub claim: Claim,
    /// The exact value of c(n, g) reduced modulo the claim's modulus.
    pub expected: u128,
    /// The modular engine's residue, where the modulus is below 2^63.
    pub independent: Option<u64>,
}

impl Checked {
    /// Whether the claim is right.
    pub fn ok(&self) -> bool {
        self.claim.answer == self.expected
    }

    /// Whether the exact and the modular engine agree (true where the modular engine did not run).
    pub fn engines_agree(&self) -> bool {
        self.independent.is_none_or(|r| r as u128 == self.expected)
    }
}

/// Reads a claims file: the header `n,g,modulus,answer`, then one claim a line (`g` may be empty,
/// meaning 0); blank lines and lines starting with `#` are skipped, and so is a UTF-8 byte-order
/// mark at the start. Every line that is not a claim is reported with its number, once; a missing
/// header is reported at the first line that should hold it (that line is then not read as a
/// claim, and the lines after it are).
///
/// Cost O(bytes).
pub fn parse_claims(text: &[u8]) -> (Vec<Claim>, Vec<Malformed>) {
    let text = text.strip_prefix(b"\xef\xbb\xbf").unwrap_or(text);
    let (mut claims, mut malformed) = (Vec::new(), Vec::new());
    let mut header_seen = false;
    for (i, raw) in text.split(|&b| b == b'\n').enumerate() {
        let line = i + 1;
        let mut bad = |error: String| malformed.push(Malformed { line, error });
        if raw.len() > MAX_LINE {
            bad(format!("longer than {MAX_LINE} bytes"));
            continue;
        }
        let Ok(s) = std::str::from_utf8(raw) else {
            bad("not text (invalid UTF-8)".into());
            continue;
        };
        let s = s.trim();
        if s.is_empty() || s.starts_with('#') {
            continue;
        }
        if !header_seen {
            header_seen = true;
            let fields: Vec<&str> = s.split(',').map(str::trim).collect();
            if fields.join(",") == CLAIMS_HEADER {
                continue;
            }
            bad(format!("header missing: expected '{CLAIMS_HEADER}' first"));
            continue;
        }
        match parse_claim(s, line) {
            Ok(claim) => claims.push(claim),
            Err(error) => malformed.push(Malformed { line, error }),
        }
    }
    if !header_seen {
        malformed.push(Malformed { line: 1, error: format!("header missing: expected '{CLAIMS_HEADER}' first") });
    }
    (claims, malformed)
}

fn parse_claim(s: &str, line: usize) -> std::result::Result<Claim, String> {
    let fields: Vec<&str> = s.split(',').map(str::trim).collect();
    let [n, g, modulus, answer] = fields[..] else {
        return Err(format!("expected 4 fields (n,g,modulus,answer), found {}", fields.len()));
    };
    let whole = |name: &str, t: &str| -> std::result::Result<u64, String> {
        parse_whole(t).map_err(|e| match e {
            NotWhole::NotDigits => format!("{name}: expected a whole number, got '{t}'"),
            NotWhole::TooLarge => format!("{name}: '{t}' is larger than 2^64 - 1"),
        })
    };
    let n = whole("n", n)?;
    crate::game::check_n(n).map_err(|_| format!("n: at most {}, got {n}", crate::game::MAX_N))?;
    let g = if g.is_empty() { 0 } else { whole("g", g)? };
    let modulus = parse_modulus(modulus).map_err(|e| format!("modulus: {e}"))?;
    let answer: u128 = parse_whole(answer).map_err(|e| match e {
        NotWhole::NotDigits => format!("answer: expected a whole number, got '{answer}'"),
        NotWhole::TooLarge => format!("answer: '{answer}' is not below the modulus {modulus}"),
    })?;
    if answer >= modulus {
        return Err(format!("answer: {answer} is not below the modulus {modulus}"));
    }
    Ok(Claim { line, n, g, modulus, answer })
}

/// A claim that was not checked, with the reason: its own run would not fit in memory.
#[derive(Clone, Debug)]
pub struct Refused {
    /// The claim.
    pub claim: Claim,
    /// Why ([`Error::OutOfMemory`] naming [`crate::Param::N`], with the estimate of the claim's run
    /// alone, or [`Error::InvalidArgument`]).
    pub error: Error,
}

/// Checks every claim: each distinct (n, g) is counted once, all of them in one pass of the exact
/// engine over one plan where that fits in memory; moduli below 2^63 are also computed by the
/// modular engine. A (n, g) whose count is known to be 0 without counting (see
/// [`crate::Counting::new`]) costs no plan. Where the whole file does not fit, each (n, g) is judged
/// on its own: those whose own run does not fit are refused (every claim of theirs), the others are
/// counted together, or one at a time where even they do not fit together.
/// Verdicts come in the order of `claims`, and so do the refusals.
///
/// Cost: one exact run over the union of the targets' states (up to the largest n), one modular run
/// with every distinct modulus below 2^63 (and the two defaults); memory as for that one run. Where
/// that does not fit, the memory guard of each target alone (its plan, where it is small enough to
/// plan) and the runs that do.
///
/// # Errors
/// As [`Counting::new`], except the refusals for memory, which are per claim.
pub fn check_claims(claims: &[Claim], options: &Options) -> Result<(Vec<Checked>, Vec<Refused>)> {
    let mut targets: Vec<(u64, u64)> = claims.iter().map(|c| (c.n, c.g)).collect();
    targets.sort_unstable();
    targets.dedup();
    let mut options = options.clone();
    for c in claims {
        if let Ok(m) = u64::try_from(c.modulus)
            && m < MODULUS_LIMIT
            && !options.moduli.contains(&m)
        {
            options.moduli.push(m);
        }
    }
    let mut checked: Vec<Option<Checked>> = vec![None; claims.len()];
    let mut failures = Vec::new();
    let mut sink = |_, report: Report| {
        if !report.ok() {
            failures.extend(report.projections.iter().filter(|p| !p.agrees()).map(|p| (report.n, report.g, p.clone())));
        }
        for (i, c) in claims.iter().enumerate().filter(|(_, c)| (c.n, c.g) == (report.n, report.g)) {
            let expected = residue(&report.value, c.modulus);
            let independent = u64::try_from(c.modulus).ok().and_then(|m| report.projection(m)).map(|p| p.independent);
            checked[i] = Some(Checked { claim: c.clone(), expected, independent });
        }
        Ok(())
    };
    let mut refused: Vec<((u64, u64), Error)> = Vec::new();
    match Counting::new(&targets, &options) {
        Ok(counting) => counting.for_each(&mut sink)?,
        Err(Error::OutOfMemory { .. }) => {
            let mut fit = Vec::new();
            for &t in &targets {
                match Counting::new(&[t], &options) {
                    Ok(_) => fit.push(t),
                    Err(e @ (Error::OutOfMemory { .. } | Error::InvalidArgument { .. })) => refused.push((t, e)),
                    Err(e) => return Err(e),
                }
            }
            match Counting::new(&fit, &options) {
                Ok(counting) => counting.for_each(&mut sink)?,
                Err(Error::OutOfMemory { .. }) => {
                    for t in &fit {
                        Counting::new(std::slice::from_ref(t), &options)?.for_each(&mut sink)?;
                    }
                }
                Err(e) => return Err(e),
            }
        }
        Err(e) => return Err(e),
    }
    if let Some((n, g, p)) = failures.first() {
        return Err(Error::cross_check(*n, *g, p.modulus, p.residue, p.independent));
    }
    let refusals = claims
        .iter()
        .filter_map(|c| refused.iter().find(|r| r.0 == (c.n, c.g)).map(|r| (c, &r.1)))
        .map(|(c, e)| Refused { claim: c.clone(), error: e.clone() })
        .collect();
    Ok((checked.into_iter().flatten().collect(), refusals))
}

/// `value` mod `m`. Cost O(value's limbs).
pub fn residue(value: &BigUint, m: u128) -> u128 {
    (value % BigUint::from(m)).to_u128().expect("a residue is below its modulus")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_file_lines_and_errors() {
        let text = b"# a comment\n\nn,g,modulus,answer\n10,,1000,17\n10,0,10^18,17\n10,1,7\n\nx,0,7,1\n10,0,1,0\n10,0,7,9\n10,0,7,3";
        let (claims, malformed) = parse_claims(text);
        assert_eq!(claims.iter().map(|c| c.line).collect::<Vec<_>>(), vec![4, 5, 11]);
        assert_eq!(claims[0], Claim { line: 4, n: 10, g: 0, modulus: 1000, answer: 17 });
        assert_eq!(malformed.iter().map(|m| m.line).collect::<Vec<_>>(), vec![6, 8, 9, 10]);
        assert!(malformed[0].error.contains("4 fields"));
        assert!(malformed[1].error.starts_with("n:"));
        assert!(malformed[2].error.starts_with("modulus:"));
        assert!(malformed[3].error.contains("not below the modulus"));
    }

    #[test]
    fn header_missing_binary_and_long_lines() {
        let (claims, malformed) = parse_claims(b"10,0,7,3\n10,0,7,2\n");
        assert_eq!(claims.iter().map(|c| c.line).collect::<Vec<_>>(), vec![2], "the headless line 1 is not a claim");
        assert_eq!(
            malformed,
            vec![Malformed { line: 1, error: "header missing: expected 'n,g,modulus,answer' first".into() }]
        );
        let (claims, malformed) = parse_claims(b"");
        assert!(claims.is_empty());
        assert_eq!(malformed.len(), 1);
        let mut text = b"n,g,modulus,answer\n\xff\xfe,1\n".to_vec();
        text.extend(std::iter::repeat_n(b'1', MAX_LINE + 1));
        let (_, malformed) = parse_claims(&text);
        assert_eq!(malformed.iter().map(|m| m.line).collect::<Vec<_>>(), vec![2, 3]);
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        let (claims, malformed) = parse_claims(b"\xef\xbb\xbfn,g,modulus,answer\n10,0,7,3\n");
        assert_eq!((claims.len(), malformed), (1, vec![]));
    }

    /// Each claim is judged on its own: a g above every value gives 0 without a plan, a claim whose
    /// own run does not fit is refused alone, and the others still get verdicts.
    #[test]
    fn claims_are_judged_one_by_one() {
        let claim = |line, n, g, answer| Claim { line, n, g, modulus: 7, answer };
        let claims = [claim(2, 100, 1 << 60, 0), claim(3, 100, 0, 4), claim(4, 1_000_000, 0, 1), claim(5, 10, 0, 3)];
        let options = Options { memory_limit: Some(1 << 30), ..Options::default() };
        let (checked, refused) = check_claims(&claims, &options).unwrap();
        assert_eq!(
            checked.iter().map(|c| (c.claim.line, c.expected)).collect::<Vec<_>>(),
            vec![(2, 0), (3, 4), (5, 3)]
        );
        assert_eq!(refused.len(), 1);
        assert_eq!(refused[0].claim.line, 4);
        assert!(matches!(refused[0].error, Error::OutOfMemory { estimate, .. } if estimate > 1 << 30));
    }

    #[test]
    fn check_claims_gives_verdicts_in_order() {
        let claim = |line, n, g, modulus, answer| Claim { line, n, g, modulus, answer };
        let claims = [
            claim(1, 10, 0, 1000, 17),
            claim(2, 10, 0, 1000, 18),
            claim(3, 10_000, 0, 998_244_353, 163_314_502),
            claim(4, 10, 0, 1u128 << 100, 17),
            claim(5, 10, 0, 5, 2),
        ];
        let (checked, refused) = check_claims(&claims, &Options::default()).unwrap();
        assert!(refused.is_empty());
        assert_eq!(checked.iter().map(Checked::ok).collect::<Vec<_>>(), vec![true, false, true, true, true]);
        assert_eq!(checked[1].expected, 17);
        assert_eq!(checked[3].independent, None);
        assert_eq!(checked[0].independent, Some(17));
        assert!(checked.iter().all(Checked::engines_agree));
    }
}
