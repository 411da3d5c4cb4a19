//! The true values a set of claims asks for: gathered a claim at a time ([`Asked`]: each distinct
//! (n, g), the distinct moduli of its claims and whether one claims its whole value), computed by
//! the route of each (n, g) ([`answer`]: the modular engine, [`modular`], or the exact count,
//! [`exact`]), and looked up for each claim ([`Answers::judge`]). The memory grows with the distinct
//! (n, g, modulus) of the claims (and the values of those whose whole value is claimed), not with
//! their number.

use std::collections::{BTreeMap, BTreeSet};

use num_bigint::BigUint;

use super::{Checked, Claim, Judged, Refused, Route};
use crate::error::{Error, Result};
use crate::options::Options;
use fibtree_core::MODULUS_LIMIT;

mod exact;
mod modular;

/// The bytes [`Asked`] and [`Answers`] hold together for a distinct (n, g) (its entries in both
/// maps, with room for the maps' nodes), and for a distinct modulus of one (its entry in the set
/// of moduli and its residues, 48 bytes, in the answers).
const TARGET_BYTES: u64 = 256;
const MODULUS_BYTES: u64 = 128;

/// The claims of a set gathered for [`answer`]: each distinct (n, g), the line of its first
/// claim, the distinct moduli of its claims, and whether one claims its whole value.
///
/// ```
/// use fibtree::claims::{Asked, Claim};
/// let mut asked = Asked::default();
/// for (line, modulus) in [(2, Some(7)), (3, Some(7)), (4, Some(1000)), (5, None)] {
///     asked.add(&Claim { line, n: 10, g: 0, modulus, answer: 3u32.into() });
/// }
/// assert_eq!((asked.targets(), asked.residues()), (1, 3));
/// assert!(asked.bytes() > 0);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Asked {
    targets: BTreeMap<(u64, u64), Wanted>,
    residues: usize,
    /// The bytes of the whole values asked, each once.
    values: u64,
}

#[derive(Clone, Debug)]
struct Wanted {
    first_line: usize,
    moduli: BTreeSet<u128>,
    /// A claim of the whole value.
    whole: bool,
}

impl Wanted {
    /// Whether the exact count judges this (n, g) by `route`: a whole value, a modulus the modular
    /// engine cannot take, or the exact route asked for.
    fn exact(&self, route: Route) -> bool {
        route == Route::Exact || self.whole || self.moduli.iter().any(|&m| m >= u128::from(MODULUS_LIMIT))
    }
}

impl Asked {
    /// Adds what `claim` asks. Cost O(log of what is asked).
    pub fn add(&mut self, claim: &Claim) {
        let wanted = self.targets.entry((claim.n, claim.g)).or_insert_with(|| Wanted {
            first_line: claim.line,
            moduli: BTreeSet::new(),
            whole: false,
        });
        wanted.first_line = wanted.first_line.min(claim.line);
        match claim.modulus {
            Some(m) => self.residues += usize::from(wanted.moduli.insert(m)),
            None if !wanted.whole => {
                wanted.whole = true;
                self.residues += 1;
                self.values = self.values.saturating_add(fibtree_core::Guard::value_bytes(claim.n) + 64);
            }
            None => {}
        }
    }

    /// The distinct (n, g) asked.
    pub fn targets(&self) -> usize {
        self.targets.len()
    }

    /// The distinct (n, g, modulus) asked, a claim of a whole value counting as one modulus.
    pub fn residues(&self) -> usize {
        self.residues
    }

    /// The memory what is asked holds, and its answers will, in bytes (an estimate with room to
    /// spare): a few hundred bytes a distinct (n, g), about a hundred a distinct modulus of one,
    /// and the whole values asked for. The engines' own memory is not in it. Cost O(1).
    pub fn bytes(&self) -> u64 {
        (self.targets.len() as u64)
            .saturating_mul(TARGET_BYTES)
            .saturating_add((self.residues as u64).saturating_mul(MODULUS_BYTES))
            .saturating_add(self.values)
    }
}

/// What [`answer`] found for each (n, g) asked (by default nothing: the answers of no claim).
#[derive(Clone, Debug, Default)]
pub struct Answers {
    targets: BTreeMap<(u64, u64), Answer>,
}

#[derive(Clone, Debug)]
struct Answer {
    first_line: usize,
    found: Found,
}

/// A residue by the modular engine, and its second computation where one ran.
#[derive(Clone, Copy, Debug)]
struct ModularResidue {
    modulus: u64,
    residue: u64,
    /// The multiple of the modulus, and the residue modulo it.
    second: Option<(u64, u64)>,
}

#[derive(Clone, Debug)]
enum Found {
    /// By the exact count: `(modulus, residue, the modular engine's residue beside it)`, by
    /// modulus, and the value where a claim of it asks.
    Exact { residues: Vec<(u128, u128, Option<u64>)>, value: Option<BigUint> },
    /// By the modular engine, by modulus.
    Modular { judged: Judged, residues: Vec<ModularResidue> },
    /// Its own run did not fit.
    Refused(Error),
}

impl Answers {
    /// The verdict on `claim`: checked, or refused with the reason of its (n, g); `None` for a
    /// claim whose (n, g, modulus) was not asked. Cost O(log of what was asked), and a copy of the
    /// value for a claim of it.
    pub fn judge(&self, claim: &Claim) -> Option<std::result::Result<Checked, Refused>> {
        let checked = |expected: BigUint, independent, multiple, judged| {
            Some(Ok(Checked { claim: claim.clone(), expected, independent, multiple, judged }))
        };
        match (&self.targets.get(&(claim.n, claim.g))?.found, claim.modulus) {
            (Found::Refused(error), _) => Some(Err(Refused { claim: claim.clone(), error: error.clone() })),
            (Found::Exact { value, .. }, None) => checked(value.clone()?, None, None, Judged::Exact),
            (Found::Exact { residues, .. }, Some(m)) => {
                let i = residues.binary_search_by_key(&m, |r| r.0).ok()?;
                let (_, expected, independent) = residues[i];
                checked(expected.into(), independent, None, Judged::Exact)
            }
            (Found::Modular { .. }, None) => None,
            (Found::Modular { judged, residues }, Some(m)) => {
                let i = residues.binary_search_by_key(&m, |r| u128::from(r.modulus)).ok()?;
                let ModularResidue { modulus, residue, second } = residues[i];
                checked(residue.into(), second.map(|s| s.1 % modulus), second.map(|s| s.0), *judged)
            }
        }
    }

    /// The (n, g) the modular engine judged instead of the exact count ([`Judged::ModularInstead`]),
    /// each with its route, in the order of their first claims.
    pub fn instead_of_exact(&self) -> Vec<((u64, u64), Judged)> {
        let mut instead: Vec<(usize, (u64, u64), Judged)> = self
            .targets
            .iter()
            .filter_map(|(&t, a)| match a.found {
                Found::Modular { judged: judged @ Judged::ModularInstead { .. }, .. } => {
                    Some((a.first_line, t, judged))
                }
                _ => None,
            })
            .collect();
        instead.sort_by_key(|m| m.0);
        instead.into_iter().map(|(_, t, judged)| (t, judged)).collect()
    }
}

/// The true values `asked` asks for, each distinct (n, g) computed once by its route:
///
/// - by the modular engine ([`Judged::Modular`]) the (n, g) all of whose claims are residues
///   modulo m < 2^63, unless `route` is [`Route::Exact`]: one run of the engine over them all,
///   modulo each m and the multiple of each (m 2^j, the largest below 2^63, where m < 2^62); each
///   residue is checked against the one of its multiple, and its parity (modulo an even m, or that
///   of the multiple) against the closed form of G;
/// - by the exact count ([`Judged::Exact`]) the others (a whole value, a modulus of 2^63 or more,
///   or every (n, g) under [`Route::Exact`]), every claim of theirs: one pass of the exact engine
///   over one plan, its residues modulo the claims' moduli below 2^63 also computed by the
///   modular engine, its parity given by the closed form.
///
/// Where a run does not fit in memory, each (n, g) is run on its own; one whose exact count does
/// not fit is judged by the modular engine instead ([`Judged::ModularInstead`]) where no claim of
/// it is a whole value and every modulus is below 2^63; one whose own run does not fit is refused.
///
/// Cost: one modular run up to the highest n of its (n, g), with two moduli for each distinct
/// modulus below 2^62 (one above); one exact run over the union of the states of the others;
/// memory as for the larger of the two runs, and [`Asked::bytes`]. Where that does not fit, the
/// memory guard of each (n, g) alone (its plan, where it is small enough to plan) and the runs that
/// do.
///
/// # Errors
/// As [`crate::Counting::new`], except the refusals for memory, which are per (n, g);
/// [`Error::CrossCheck`] where the exact and the modular engine disagree, [`Error::ParityCheck`]
/// where an exact value and the closed form of G disagree on its parity, [`Error::ResidueCheck`]
/// where a residue of the modular engine and its second computation do.
pub fn answer(asked: &Asked, options: &Options, route: Route) -> Result<Answers> {
    let (exact, residues): (Vec<_>, Vec<_>) = asked.targets.keys().partition(|t| asked.targets[*t].exact(route));
    let mut answers = BTreeMap::new();
    let refused = exact::count(asked, &exact, options, &mut answers)?;
    let mut modular: Vec<((u64, u64), Judged)> = residues.into_iter().map(|t| (t, Judged::Modular)).collect();
    for (t, error) in refused {
        let wanted = &asked.targets[&t];
        let fits = !wanted.whole && wanted.moduli.iter().all(|&m| m < u128::from(MODULUS_LIMIT));
        match error {
            Error::OutOfMemory { estimate, limit, .. } if fits => {
                modular.push((t, Judged::ModularInstead { exact_estimate: estimate, limit }));
            }
            error => {
                answers.insert(t, Answer { first_line: wanted.first_line, found: Found::Refused(error) });
            }
        }
    }
    modular::residues(asked, &modular, options, &mut answers)?;
    Ok(Answers { targets: answers })
}
