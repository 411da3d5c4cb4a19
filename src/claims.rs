//! Checking claimed residues against the exact value: one claim, or a CSV file of them.
//!
//! A claim says "c(n, g) mod m = answer". Its truth is the exact value reduced modulo m (any m from 2
//! to 2^128 - 1); where m < 2^63 the modular engine computes the same residue independently, and the
//! two must agree before a verdict is given.
//!
//! ```
//! use fibtree::claims::{check_claims, parse_claims};
//! let (claims, malformed) = parse_claims(b"n,g,modulus,answer\n10,0,7,3\n10,0,1000,18\n")?;
//! assert!(malformed.is_empty());
//! let (checked, refused) = check_claims(&claims, &fibtree::Options::default())?;
//! assert!(refused.is_empty());
//! // f(10) = 17: 3 mod 7 is right, 18 mod 1000 is not
//! assert_eq!(checked.iter().map(|c| c.ok()).collect::<Vec<_>>(), [true, false]);
//! # Ok::<(), fibtree::Error>(())
//! ```

use num_bigint::BigUint;
use num_traits::ToPrimitive;

use crate::error::{Error, Result};
use crate::options::Options;

mod answers;
mod read;
mod text;

pub use answers::{Answers, Asked, answer};
pub use read::{ClaimsReader, Line};

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

/// The route that judged a claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Judged {
    /// The exact count reduced modulo the claim's modulus (and, where the modulus is below 2^63,
    /// the modular engine's residue beside it).
    Exact,
    /// The modular engine alone (what `count --mod-only` runs): the exact count did not fit in
    /// memory, and the modulus is below 2^63.
    Modular {
        /// The estimated peak memory of the exact count, in bytes.
        exact_estimate: u64,
        /// The memory the run may use, and the limit that sets it.
        limit: crate::Limit,
    },
}

impl Judged {
    /// Where the modular engine judged alone, why, in words: `judged by the modular engine (the
    /// exact count needs about 13.9 MiB, more than the 10.0 MiB it may use)`.
    pub fn note(&self) -> Option<String> {
        let &Judged::Modular { exact_estimate, limit } = self else { return None };
        let (needs, may) = (fibtree_util::human_bytes(exact_estimate), limit);
        Some(format!("judged by the modular engine (the exact count needs about {needs}, more than {may})"))
    }

    /// The route's name, as the JSON gives it: `exact` or `modular`.
    pub fn name(&self) -> &'static str {
        match self {
            Judged::Exact => "exact",
            Judged::Modular { .. } => "modular",
        }
    }
}

/// A claim with its verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// The claim.
    pub claim: Claim,
    /// c(n, g) reduced modulo the claim's modulus: the exact value's residue, or the modular
    /// engine's where it judged alone ([`Judged::Modular`]).
    pub expected: u128,
    /// The modular engine's residue beside the exact value's, where the modulus is below 2^63 and
    /// the exact count ran.
    pub independent: Option<u64>,
    /// The route that judged it.
    pub judged: Judged,
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

/// Reads a claims file: a header that names the four columns `n`, `g`, `modulus` and `answer` once
/// each, in any order (`n,g,modulus,answer` is the usual one), then one claim a line with its
/// fields in the header's order (`g` may be empty, meaning 0). Blank lines and lines starting with
/// `#` are skipped. A line ends with `\n`, `\r\n` or a lone `\r`; a UTF-8 byte-order mark is
/// dropped, and a file with a UTF-16 byte-order mark is read as UTF-16. Every line after the header
/// that is not a claim is reported with its number, once. A file too large to hold is read a line
/// at a time by [`ClaimsReader`], and its claims gathered by [`Asked`].
///
/// Cost O(bytes).
///
/// # Errors
/// [`Error::InvalidArgument`] naming [`crate::Param::Claims`] for a file without that header (the
/// first line that is not blank or a comment must be it: the meaning of the columns cannot be
/// guessed), or a UTF-16 file that is not valid UTF-16.
pub fn parse_claims(file: &[u8]) -> Result<(Vec<Claim>, Vec<Malformed>)> {
    let (mut claims, mut malformed) = (Vec::new(), Vec::new());
    for line in ClaimsReader::new(file) {
        match line? {
            Line::Claim(claim) => claims.push(claim),
            Line::Malformed(m) => malformed.push(m),
            Line::TooLong(line) => malformed.push(Malformed { line, error: format!("longer than {MAX_LINE} bytes") }),
        }
    }
    Ok((claims, malformed))
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
/// on its own: those whose own run does not fit are judged by the modular engine alone
/// ([`Judged::Modular`]) where every modulus of their claims is below 2^63 and that run fits, else
/// refused (every claim of theirs); the others are counted together, or one at a time where even
/// they do not fit together.
/// Verdicts come in the order of `claims`, and so do the refusals.
///
/// Cost: one exact run over the union of the targets' states (up to the largest n), one modular run
/// with every distinct modulus below 2^63 (and the two defaults); memory as for that one run. Where
/// that does not fit, the memory guard of each target alone (its plan, where it is small enough to
/// plan) and the runs that do.
///
/// # Errors
/// As [`crate::Counting::new`], except the refusals for memory, which are per claim.
pub fn check_claims(claims: &[Claim], options: &Options) -> Result<(Vec<Checked>, Vec<Refused>)> {
    let mut asked = Asked::default();
    claims.iter().for_each(|c| asked.add(c));
    let answers = answer(&asked, options)?;
    let (mut checked, mut refused) = (Vec::new(), Vec::new());
    for c in claims {
        match answers.judge(c).expect("every claim was asked") {
            Ok(verdict) => checked.push(verdict),
            Err(refusal) => refused.push(refusal),
        }
    }
    Ok((checked, refused))
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
        let (claims, malformed) = parse_claims(text).unwrap();
        assert_eq!(claims.iter().map(|c| c.line).collect::<Vec<_>>(), vec![4, 5, 11]);
        assert_eq!(claims[0], Claim { line: 4, n: 10, g: 0, modulus: 1000, answer: 17 });
        assert_eq!(malformed.iter().map(|m| m.line).collect::<Vec<_>>(), vec![6, 8, 9, 10]);
        assert!(malformed[0].error.contains("4 fields"));
        assert!(malformed[1].error.starts_with("n:"));
        assert!(malformed[2].error.starts_with("modulus:"));
        assert!(malformed[3].error.contains("not below the modulus"));
    }

    /// The header names the columns in any order, and the claims are read in that order; a file
    /// whose first line is not such a header is refused whole, its columns not guessed.
    #[test]
    fn the_header_gives_the_order_of_the_columns() {
        let (claims, malformed) = parse_claims(b"n,modulus,answer,g\n6,3,1,1000\n6,3\n").unwrap();
        assert_eq!(claims, vec![Claim { line: 2, n: 6, g: 1000, modulus: 3, answer: 1 }]);
        assert_eq!(
            malformed,
            vec![Malformed { line: 3, error: "expected 4 fields (n,modulus,answer,g), found 2".into() }]
        );
        let (claims, _) = parse_claims(b" Answer , G ,MODULUS,n\r\n3,,7,10\r\n").unwrap();
        assert_eq!(claims, vec![Claim { line: 2, n: 10, g: 0, modulus: 7, answer: 3 }]);
        for (text, why) in [
            (&b"10,0,7,3\n10,0,7,2\n"[..], "line 1: expected a header naming the columns n, g, modulus and answer"),
            (b"# comment\n\nn,g,mod,answer\n", "line 3: expected a header"),
            (b"n,g,modulus,answer,n\n", "got 'n,g,modulus,answer,n'"),
            (b"n,g,g,answer\n", "line 1: expected a header"),
            (b"\xc3\x28,1\nn,g,modulus,answer\n", "line 1: not text (invalid UTF-8); expected a header"),
            (b"", "no header"),
            (b"# only a comment\n", "no header"),
        ] {
            match parse_claims(text) {
                Err(Error::InvalidArgument { param: crate::Param::Claims, expected }) => {
                    assert!(expected.contains(why), "{expected}")
                }
                other => panic!("{text:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn binary_and_long_lines_each_once() {
        let mut text = b"n,g,modulus,answer\n\xff\xfe,1\n".to_vec();
        text.extend(std::iter::repeat_n(b'1', MAX_LINE + 1));
        let (_, malformed) = parse_claims(&text).unwrap();
        assert_eq!(malformed.iter().map(|m| m.line).collect::<Vec<_>>(), vec![2, 3]);
    }

    /// `\n`, `\r\n` and a lone `\r` end lines; a UTF-8 byte-order mark is skipped; UTF-16 with its
    /// byte-order mark is read as UTF-16, each line once.
    #[test]
    fn line_ends_and_encodings() {
        let lines = |text: &[u8]| {
            let (claims, malformed) = parse_claims(text).unwrap();
            (claims.iter().map(|c| c.line).collect::<Vec<_>>(), malformed.iter().map(|m| m.line).collect::<Vec<_>>())
        };
        assert_eq!(lines(b"\xef\xbb\xbfn,g,modulus,answer\n10,0,7,3\n"), (vec![2], vec![]));
        assert_eq!(lines(b"n,g,modulus,answer\r10,0,7,3\r10,0,7\r\r10,0,7,2\r"), (vec![2, 5], vec![3]));
        assert_eq!(lines(b"n,g,modulus,answer\r\n10,0,7,3\n10,0,7\r10,0,7,2"), (vec![2, 4], vec![3]));
        let utf16 = |big: bool| {
            let text = "n,g,modulus,answer\r\n10,0,7,3\r\nx,0,7,3\r\n";
            let mut bytes = if big { vec![0xFE, 0xFF] } else { vec![0xFF, 0xFE] };
            for unit in text.encode_utf16() {
                bytes.extend(if big { unit.to_be_bytes() } else { unit.to_le_bytes() });
            }
            bytes
        };
        assert_eq!(lines(&utf16(false)), (vec![2], vec![3]));
        assert_eq!(lines(&utf16(true)), (vec![2], vec![3]));
        let mut odd = utf16(false);
        odd.pop();
        assert!(
            matches!(parse_claims(&odd), Err(Error::InvalidArgument { expected, .. }) if expected.contains("UTF-16"))
        );
    }

    /// Each claim is judged on its own: a g above every value gives 0 without a plan, a claim whose
    /// own run does not fit is refused alone, and the others still get verdicts.
    #[test]
    fn claims_are_judged_one_by_one() {
        let claim = |line, n, g, answer| Claim { line, n, g, modulus: 7, answer };
        let mut claims =
            [claim(2, 100, 1 << 60, 0), claim(3, 100, 0, 4), claim(4, 1_000_000, 0, 1), claim(5, 10, 0, 3)];
        // above 2^63: the modular engine cannot judge it instead
        claims[2].modulus = 1 << 100;
        let options = Options { memory_limit: Some((1 << 30).into()), ..Options::default() };
        let (checked, refused) = check_claims(&claims, &options).unwrap();
        assert_eq!(
            checked.iter().map(|c| (c.claim.line, c.expected)).collect::<Vec<_>>(),
            vec![(2, 0), (3, 4), (5, 3)]
        );
        assert_eq!(refused.len(), 1);
        assert_eq!(refused[0].claim.line, 4);
        assert!(matches!(refused[0].error, Error::OutOfMemory { estimate, .. } if estimate > 1 << 30));
    }

    /// A claim whose exact count does not fit is judged by the modular engine where its modulus
    /// allows, and says so; the others keep the exact route.
    #[test]
    fn the_modular_engine_judges_what_the_exact_count_cannot() {
        let claim = |line, n, modulus, answer| Claim { line, n, g: 0, modulus, answer };
        let truth = crate::count_mod(5000, 0, 7).unwrap() as u128;
        let claims = [claim(1, 5000, 7, truth), claim(2, 5000, 7, (truth + 1) % 7), claim(3, 10, 7, 3)];
        let options = Options { memory_limit: Some((10 << 20).into()), ..Options::default() };
        let (checked, refused) = check_claims(&claims, &options).unwrap();
        assert!(refused.is_empty());
        assert_eq!(checked.iter().map(Checked::ok).collect::<Vec<_>>(), [true, false, true]);
        assert!(
            matches!(checked[0].judged, Judged::Modular { exact_estimate, limit } if exact_estimate > limit.bytes())
        );
        assert!(checked[0].judged.note().unwrap().contains("judged by the modular engine"));
        assert_eq!((checked[2].judged, checked[2].judged.note()), (Judged::Exact, None));
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
