//! Checking claims about c(n, g): its residue modulo m, or its whole value. One claim, or a CSV
//! file of them.
//!
//! A claim says "c(n, g) mod m = answer" (any m from 2 to 2^128 - 1), or "c(n, g) = answer". A
//! residue modulo m < 2^63 is judged by the modular engine ([`Judged::Modular`]), which computes it
//! a second time modulo a multiple of m and compares the parity with the closed form of G, unless
//! the exact count is asked for ([`Route::Exact`]); a whole value, a residue modulo m >= 2^63, and
//! every claim of an (n, g) counted exactly anyway are judged by the exact count ([`Judged::Exact`]),
//! whose residues the modular engine computes independently and whose parity the closed form
//! gives. Every check must agree before a verdict is given.
//!
//! ```
//! use fibtree::claims::{Route, check_claims, parse_claims};
//! let (claims, malformed) = parse_claims(b"n,g,modulus,answer\n10,0,7,3\n10,0,1000,18\n10,0,,17\n")?;
//! assert!(malformed.is_empty());
//! let (checked, refused) = check_claims(&claims, &fibtree::Options::default(), Route::default())?;
//! assert!(refused.is_empty());
//! // f(10) = 17: 3 mod 7 is right, 18 mod 1000 is not, and 17 is the whole count
//! assert_eq!(checked.iter().map(|c| c.ok()).collect::<Vec<_>>(), [true, false, true]);
//! # Ok::<(), fibtree::Error>(())
//! ```

use num_bigint::BigUint;
use num_traits::ToPrimitive;

use crate::error::{Error, Result};
use crate::options::Options;

mod answers;
mod lines;
mod read;

pub use answers::{Answers, Asked, answer};
pub use read::{ClaimsReader, Line};

/// The header a claims file must start with.
pub const CLAIMS_HEADER: &str = "n,g,modulus,answer";

/// The longest line a claims file may have, in bytes.
pub const MAX_LINE: usize = 4096;

/// One claim: c(n, g) mod `modulus` = `answer`, or c(n, g) = `answer` without a modulus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    /// The 1-based line of the claims file it came from (0 for a claim not from a file).
    pub line: usize,
    /// The tree T(n).
    pub n: u64,
    /// The Grundy value.
    pub g: u64,
    /// The modulus, at least 2; `None` for a claim of the whole count.
    pub modulus: Option<u128>,
    /// The claimed residue (below the modulus), or the claimed whole count.
    pub answer: BigUint,
}

/// A line of a claims file that is not a claim, with what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Malformed {
    /// The 1-based line number.
    pub line: usize,
    /// What is wrong, in one line.
    pub error: String,
}

/// How claimed residues are judged (a whole value always by the exact count).
///
/// ```
/// use fibtree::claims::{Claim, Judged, Route, check_claims};
/// let claim = Claim { line: 0, n: 10, g: 0, modulus: Some(7), answer: 3u32.into() };
/// let options = fibtree::Options::default();
/// let (checked, _) = check_claims(&[claim.clone()], &options, Route::Residues)?;
/// assert_eq!(checked[0].judged, Judged::Modular);
/// let (checked, _) = check_claims(&[claim], &options, Route::Exact)?;
/// assert_eq!(checked[0].judged, Judged::Exact);
/// # Ok::<(), fibtree::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Route {
    /// A residue modulo m < 2^63 by the modular engine, checked by its run modulo a multiple of m
    /// and by the closed form's parity; the exact count for the rest.
    #[default]
    Residues,
    /// The exact count for every claim (and the modular engine instead where the exact count does
    /// not fit in memory and every modulus of the (n, g) is below 2^63).
    Exact,
}

/// The route that judged a claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Judged {
    /// The exact count, reduced modulo the claim's modulus where it has one; the modular engine
    /// computed its residues modulo 10^18, 998244353 and each modulus below 2^63 beside it, and
    /// the closed form of G gave its parity.
    Exact,
    /// The modular engine (what `count --mod-only` runs), the route of a residue modulo m < 2^63:
    /// checked by its residue modulo a multiple of m ([`Checked::multiple`]) and by the parity of
    /// the closed form of G ([`Checked::parity_checked`]), where they exist.
    Modular,
    /// The modular engine, as [`Judged::Modular`], where the exact count was asked for but does not
    /// fit in memory (every modulus of the claims of the (n, g) is below 2^63).
    ModularInstead {
        /// The estimated peak memory of the exact count, in bytes.
        exact_estimate: u64,
        /// The memory the run may use, and the limit that sets it.
        limit: crate::Limit,
    },
}

impl Judged {
    /// Where the modular engine judged instead of the exact count, why, in words: `judged by the
    /// modular engine (the exact count needs about 13.9 MiB, more than the 10.0 MiB it may use)`.
    ///
    /// ```
    /// use fibtree::claims::Judged;
    /// let judged = Judged::ModularInstead { exact_estimate: 20 << 20, limit: (10u64 << 20).into() };
    /// assert!(judged.note().unwrap().starts_with("judged by the modular engine (the exact count needs about 20.0 MiB"));
    /// assert_eq!((Judged::Modular.note(), Judged::Modular.name()), (None, "modular"));
    /// ```
    pub fn note(&self) -> Option<String> {
        let &Judged::ModularInstead { exact_estimate, limit } = self else { return None };
        let (needs, may) = (fibtree_util::human_bytes(exact_estimate), limit);
        Some(format!("judged by the modular engine (the exact count needs about {needs}, more than {may})"))
    }

    /// The route's name, as the JSON gives it: `exact` or `modular`.
    pub fn name(&self) -> &'static str {
        match self {
            Judged::Exact => "exact",
            Judged::Modular | Judged::ModularInstead { .. } => "modular",
        }
    }
}

/// A claim with its verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// The claim.
    pub claim: Claim,
    /// c(n, g), reduced modulo the claim's modulus where it has one.
    pub expected: BigUint,
    /// The residue modulo the claim's modulus by a second computation, where one ran: beside the
    /// exact count, the modular engine's (a modulus below 2^63); on the modular route, its residue
    /// modulo [`Checked::multiple`], reduced.
    pub independent: Option<u64>,
    /// On the modular route, the multiple of the modulus the second residue was computed modulo:
    /// m 2^j, the largest in the lanes the engine runs m in, below 2^31 where m < 2^30, else below
    /// 2^63 (`None` for m >= 2^62, which has none).
    pub multiple: Option<u64>,
    /// The route that judged it.
    pub judged: Judged,
}

impl Checked {
    /// Whether the claim is right.
    pub fn ok(&self) -> bool {
        self.claim.answer == self.expected
    }

    /// Whether the closed form of G checked the true value's parity: always beside the exact
    /// count; on the modular route, where the modulus or its multiple is even (the residue modulo
    /// an even modulus has the parity of the count).
    ///
    /// ```
    /// use fibtree::claims::{Claim, Route, check_claims};
    /// let claim = |m: u128| Claim { line: 0, n: 10, g: 0, modulus: Some(m), answer: 0u32.into() };
    /// let claims = [claim(7), claim((1 << 63) - 25)]; // the largest prime below 2^63
    /// let (checked, _) = check_claims(&claims, &fibtree::Options::default(), Route::Residues)?;
    /// assert_eq!(checked[0].multiple, Some(7 << 28)); // 7 * 2^28, even, below 2^31
    /// assert!(checked[0].parity_checked());
    /// assert_eq!((checked[1].multiple, checked[1].parity_checked()), (None, false)); // alone
    /// # Ok::<(), fibtree::Error>(())
    /// ```
    pub fn parity_checked(&self) -> bool {
        match self.judged {
            Judged::Exact => true,
            _ => self.multiple.is_some() || self.claim.modulus.is_some_and(|m| m % 2 == 0),
        }
    }
}

/// Reads a claims file: a header that names the four columns `n`, `g`, `modulus` and `answer` once
/// each, in any order (`n,g,modulus,answer` is the usual one), then one claim a line with its
/// fields in the header's order (`g` may be empty, meaning 0; an empty `modulus` claims the whole
/// count). Blank lines and lines starting with `#` are skipped. A line ends with `\n`, `\r\n` or a
/// lone `\r`; a UTF-8 byte-order mark is dropped, and a file with a UTF-16 byte-order mark is read
/// as UTF-16. Every line after the header that is not a claim is reported with its number, once. A
/// file too large to hold is read a line at a time by [`ClaimsReader`], and its claims gathered by
/// [`Asked`].
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

/// Checks every claim, each distinct (n, g) once, by `route` (see [`answer`]): the residues of the
/// (n, g) judged by the modular engine in one run of it over them all, those counted exactly in
/// one pass of the exact engine over one plan, where each fits in memory; where not, each (n, g)
/// on its own, and those whose own run does not fit are refused (every claim of theirs).
/// Verdicts come in the order of `claims`, and so do the refusals.
///
/// Cost: as [`answer`].
///
/// # Errors
/// As [`answer`].
pub fn check_claims(claims: &[Claim], options: &Options, route: Route) -> Result<(Vec<Checked>, Vec<Refused>)> {
    let mut asked = Asked::default();
    claims.iter().for_each(|c| asked.add(c));
    let answers = answer(&asked, options, route)?;
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
        assert_eq!(claims[0], claim(4, (10, 0), Some(1000), 17));
        assert_eq!(malformed.iter().map(|m| m.line).collect::<Vec<_>>(), vec![6, 8, 9, 10]);
        assert!(malformed[0].error.contains("4 fields"));
        assert!(malformed[1].error.starts_with("n:"));
        assert!(malformed[2].error.starts_with("modulus:"));
        assert!(malformed[3].error.contains("not below the modulus"));
    }

    /// An empty modulus claims the whole count, of any length (leading zeros the same number); its
    /// answer must still be digits.
    #[test]
    fn an_empty_modulus_claims_the_whole_count() {
        let long = "9".repeat(300);
        let text = format!("n,g,modulus,answer\n10,0,,17\n10,3,,0017\n10,0, ,x\n10,0,,{long}\n10,0,,-1\n");
        let (claims, malformed) = parse_claims(text.as_bytes()).unwrap();
        assert_eq!(claims[..2], [claim(2, (10, 0), None, 17), claim(3, (10, 3), None, 17)]);
        assert_eq!((claims[2].line, claims[2].modulus, claims[2].answer.to_string()), (5, None, long));
        assert_eq!(malformed.iter().map(|m| m.line).collect::<Vec<_>>(), [4, 6]);
        assert!(malformed.iter().all(|m| m.error.starts_with("answer: expected a whole number")), "{malformed:?}");
    }

    /// The header names the columns in any order, and the claims are read in that order; a file
    /// whose first line is not such a header is refused whole, its columns not guessed.
    #[test]
    fn the_header_gives_the_order_of_the_columns() {
        let (claims, malformed) = parse_claims(b"n,modulus,answer,g\n6,3,1,1000\n6,3\n").unwrap();
        assert_eq!(claims, vec![claim(2, (6, 1000), Some(3), 1)]);
        assert_eq!(
            malformed,
            vec![Malformed { line: 3, error: "expected 4 fields (n,modulus,answer,g), found 2".into() }]
        );
        let (claims, _) = parse_claims(b" Answer , G ,MODULUS,n\r\n3,,7,10\r\n").unwrap();
        assert_eq!(claims, vec![claim(2, (10, 0), Some(7), 3)]);
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

    /// A claim of `answer` about c(n, g) modulo `modulus` (`None`: the whole count).
    fn claim(line: usize, (n, g): (u64, u64), modulus: Option<u128>, answer: u128) -> Claim {
        Claim { line, n, g, modulus, answer: answer.into() }
    }

    /// Each claim is judged on its own: a g above every value gives 0 without a plan, a claim whose
    /// own run does not fit is refused alone, and the others still get verdicts.
    #[test]
    fn claims_are_judged_one_by_one() {
        let claims = [
            claim(2, (100, 1 << 60), Some(7), 0),
            claim(3, (100, 0), Some(7), 4),
            // above 2^63: the exact count, which does not fit, and the modular engine cannot judge it instead
            claim(4, (1_000_000, 0), Some(1 << 100), 1),
            claim(5, (10, 0), Some(7), 3),
            claim(6, (10, 0), None, 17),
        ];
        let options = Options { memory_limit: Some((1 << 30).into()), ..Options::default() };
        let (checked, refused) = check_claims(&claims, &options, Route::Residues).unwrap();
        let lines: Vec<(usize, BigUint)> = checked.iter().map(|c| (c.claim.line, c.expected.clone())).collect();
        assert_eq!(lines, vec![(2, 0u32.into()), (3, 4u32.into()), (5, 3u32.into()), (6, 17u32.into())]);
        assert_eq!(refused.len(), 1);
        assert_eq!(refused[0].claim.line, 4);
        assert!(matches!(refused[0].error, Error::OutOfMemory { estimate, .. } if estimate > 1 << 30));
    }

    /// Asked for the exact count, a claim whose exact count does not fit is judged by the modular
    /// engine where its modulus allows, and says so; the others keep the exact route.
    #[test]
    fn the_modular_engine_judges_what_the_exact_count_cannot() {
        let truth = crate::count_mod(5000, 0, 7).unwrap() as u128;
        let claims = [
            claim(1, (5000, 0), Some(7), truth),
            claim(2, (5000, 0), Some(7), (truth + 1) % 7),
            claim(3, (10, 0), Some(7), 3),
        ];
        let options = Options { memory_limit: Some((10 << 20).into()), ..Options::default() };
        let (checked, refused) = check_claims(&claims, &options, Route::Exact).unwrap();
        assert!(refused.is_empty());
        assert_eq!(checked.iter().map(Checked::ok).collect::<Vec<_>>(), [true, false, true]);
        assert!(
            matches!(checked[0].judged, Judged::ModularInstead { exact_estimate, limit } if exact_estimate > limit.bytes())
        );
        assert!(checked[0].judged.note().unwrap().contains("judged by the modular engine"));
        assert_eq!(checked[0].multiple, Some(7 << 28), "checked as the modular route checks");
        assert_eq!((checked[2].judged, checked[2].judged.note()), (Judged::Exact, None));
        // a whole value cannot be judged by the modular engine: refused
        let (_, refused) = check_claims(&[claim(1, (5000, 0), None, 1)], &options, Route::Residues).unwrap();
        assert!(matches!(refused[..], [Refused { error: Error::OutOfMemory { .. }, .. }]), "{refused:?}");
    }

    /// Every route gives the same verdicts; each claim says which judged it and what checked it.
    #[test]
    fn check_claims_gives_verdicts_in_order_by_either_route() {
        let claims = [
            claim(1, (10, 0), Some(1000), 17),
            claim(2, (10, 0), Some(1000), 18),
            claim(3, (10_000, 0), Some(998_244_353), 163_314_502),
            claim(4, (20, 0), Some(1 << 100), 1383),
            claim(5, (30, 0), Some(5), 2),
            claim(6, (30, 0), None, 3),
            claim(7, (40, 0), Some((1 << 63) - 25), 0),
        ];
        let mut verdicts = Vec::new();
        for route in [Route::Residues, Route::Exact] {
            let (checked, refused) = check_claims(&claims, &Options::default(), route).unwrap();
            assert!(refused.is_empty());
            verdicts.push(checked.iter().map(|c| (c.ok(), c.expected.clone())).collect::<Vec<_>>());
            let judged: Vec<Judged> = checked.iter().map(|c| c.judged).collect();
            let exact = Judged::Exact;
            let modular = if route == Route::Exact { exact } else { Judged::Modular };
            // a modulus above 2^63 and a whole value: the exact count, with every claim of its (n, g)
            assert_eq!(judged, [modular, modular, modular, exact, exact, exact, modular], "{route:?}");
            assert!(checked.iter().all(|c| c.parity_checked() || c.claim.line == 7), "{route:?}");
        }
        assert_eq!(verdicts[0], verdicts[1]);
        let oks: Vec<bool> = verdicts[0].iter().map(|v| v.0).collect();
        assert_eq!(oks, [true, false, true, true, false, false, false]);
        let (checked, _) = check_claims(&claims, &Options::default(), Route::Residues).unwrap();
        // the modular route: the residue of its multiple, reduced
        assert_eq!((checked[0].independent, checked[0].multiple), (Some(17), Some(1000 << 21)));
        assert_eq!((checked[2].independent, checked[2].multiple), (Some(163_314_502), Some(998_244_353 << 1)));
        // above 2^62 an odd modulus has no multiple: the engine's residue alone
        assert_eq!((checked[6].independent, checked[6].multiple, checked[6].parity_checked()), (None, None, false));
        // the exact count: the modular engine's residue beside it, below 2^63
        assert_eq!((checked[3].independent, checked[3].multiple), (None, None));
        assert_eq!((checked[4].independent, checked[5].independent), (Some(crate::count_mod(30, 0, 5).unwrap()), None));
    }
}
