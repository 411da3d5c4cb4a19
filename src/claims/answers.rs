//! The true residues a set of claims asks for: gathered a claim at a time ([`Asked`]: each distinct
//! (n, g) and the distinct moduli of its claims), computed in one pass of each engine
//! ([`answer`]), and looked up for each claim ([`Answers::judge`]). The memory grows with the
//! distinct (n, g, modulus) of the claims, not with their number.

use std::collections::{BTreeMap, BTreeSet};

use super::{Checked, Claim, Judged, Refused, residue};
use crate::engines::modular::MODULUS_LIMIT;
use crate::error::{Error, Result};
use crate::options::Options;
use crate::report::Report;
use crate::run::{Counting, mod_only};

/// The bytes [`Asked`] and [`Answers`] hold together for a distinct (n, g) (its entries in both
/// maps, with room for the maps' nodes), and for a distinct modulus of one (its entry in the set
/// of moduli and its residues, 48 bytes, in the answers).
const TARGET_BYTES: u64 = 256;
const MODULUS_BYTES: u64 = 128;

/// The claims of a set gathered for [`answer`]: each distinct (n, g), the line of its first
/// claim, and the distinct moduli of its claims.
///
/// ```
/// use fibtree::claims::{Asked, Claim};
/// let mut asked = Asked::default();
/// for (line, modulus) in [(2, 7), (3, 7), (4, 1000)] {
///     asked.add(&Claim { line, n: 10, g: 0, modulus, answer: 3 });
/// }
/// assert_eq!((asked.targets(), asked.residues()), (1, 2));
/// assert!(asked.bytes() > 0);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Asked {
    targets: BTreeMap<(u64, u64), Wanted>,
    residues: usize,
}

#[derive(Clone, Debug)]
struct Wanted {
    first_line: usize,
    moduli: BTreeSet<u128>,
}

impl Asked {
    /// Adds what `claim` asks. Cost O(log of what is asked).
    pub fn add(&mut self, claim: &Claim) {
        let wanted = self
            .targets
            .entry((claim.n, claim.g))
            .or_insert_with(|| Wanted { first_line: claim.line, moduli: BTreeSet::new() });
        wanted.first_line = wanted.first_line.min(claim.line);
        self.residues += usize::from(wanted.moduli.insert(claim.modulus));
    }

    /// The distinct (n, g) asked.
    pub fn targets(&self) -> usize {
        self.targets.len()
    }

    /// The distinct (n, g, modulus) asked.
    pub fn residues(&self) -> usize {
        self.residues
    }

    /// The memory what is asked holds, and its answers will, in bytes (an estimate with room to
    /// spare): a few hundred bytes a distinct (n, g) and about a hundred a distinct modulus of one.
    /// The engines' own memory is not in it. Cost O(1).
    pub fn bytes(&self) -> u64 {
        (self.targets.len() as u64).saturating_mul(TARGET_BYTES) + (self.residues as u64).saturating_mul(MODULUS_BYTES)
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

#[derive(Clone, Debug)]
enum Found {
    /// `(modulus, expected, independent)`, by modulus.
    Residues { judged: Judged, residues: Vec<(u128, u128, Option<u64>)> },
    /// Its own run did not fit.
    Refused(Error),
}

impl Answers {
    /// The verdict on `claim`: checked, or refused with the reason of its (n, g); `None` for a
    /// claim whose (n, g, modulus) was not asked. Cost O(log of what was asked).
    pub fn judge(&self, claim: &Claim) -> Option<std::result::Result<Checked, Refused>> {
        match &self.targets.get(&(claim.n, claim.g))?.found {
            Found::Refused(error) => Some(Err(Refused { claim: claim.clone(), error: error.clone() })),
            Found::Residues { judged, residues } => {
                let i = residues.binary_search_by_key(&claim.modulus, |r| r.0).ok()?;
                let (_, expected, independent) = residues[i];
                Some(Ok(Checked { claim: claim.clone(), expected, independent, judged: *judged }))
            }
        }
    }

    /// The (n, g) the modular engine judged alone ([`Judged::Modular`]), each with its route, in the
    /// order of their first claims.
    pub fn modular(&self) -> Vec<((u64, u64), Judged)> {
        let mut modular: Vec<(usize, (u64, u64), Judged)> = self
            .targets
            .iter()
            .filter_map(|(&t, a)| match a.found {
                Found::Residues { judged: judged @ Judged::Modular { .. }, .. } => Some((a.first_line, t, judged)),
                _ => None,
            })
            .collect();
        modular.sort_by_key(|m| m.0);
        modular.into_iter().map(|(_, t, judged)| (t, judged)).collect()
    }

    /// [`Error::CrossCheck`] for a residue on which the exact and the modular engine disagree (of
    /// the (n, g) with the first claim), if there is one.
    pub fn cross_check(&self) -> Option<Error> {
        let mut bad: Vec<(usize, Error)> = Vec::new();
        for (&(n, g), answer) in &self.targets {
            let Found::Residues { residues, .. } = &answer.found else { continue };
            if let Some(&(m, expected, Some(r))) = residues.iter().find(|r| r.2.is_some_and(|i| i as u128 != r.1)) {
                bad.push((answer.first_line, Error::cross_check(n, g, m, expected, r)));
            }
        }
        bad.into_iter().min_by_key(|b| b.0).map(|b| b.1)
    }
}

/// The residues `asked` asks for, as [`super::check_claims`] computes them: each distinct (n, g) is
/// counted once, all of them in one pass of the exact engine over one plan where that fits in
/// memory; moduli below 2^63 are also computed by the modular engine. Where they do not fit
/// together, each (n, g) is judged on its own: those whose own run does not fit are judged by the
/// modular engine alone ([`Judged::Modular`]) where every modulus asked of them is below 2^63 and
/// that run fits, else refused; the others are counted together, or one at a time where even they
/// do not fit together.
///
/// Cost: as [`super::check_claims`]; memory that of the runs, and [`Asked::bytes`].
///
/// # Errors
/// As [`Counting::new`], except the refusals for memory, which are per (n, g);
/// [`Error::CrossCheck`] where the engines disagree, [`Error::ParityCheck`] where an exact value and the
/// closed form of G disagree on its parity.
pub fn answer(asked: &Asked, options: &Options) -> Result<Answers> {
    let targets: Vec<(u64, u64)> = asked.targets.keys().copied().collect();
    let mut options = options.clone();
    let extra: BTreeSet<u64> = asked
        .targets
        .values()
        .flat_map(|w| w.moduli.iter())
        .filter_map(|&m| u64::try_from(m).ok().filter(|&m| m < MODULUS_LIMIT))
        .filter(|m| !options.moduli.contains(m))
        .collect();
    options.moduli.extend(extra);
    let mut answers: BTreeMap<(u64, u64), Answer> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut sink = |_, report: Report| {
        failures.extend(report.failures());
        let wanted = &asked.targets[&(report.n, report.g)];
        let independent: BTreeMap<u64, u64> = report.projections.iter().map(|p| (p.modulus, p.independent)).collect();
        let residues = wanted
            .moduli
            .iter()
            .map(|&m| (m, residue(&report.value, m), u64::try_from(m).ok().and_then(|m| independent.get(&m).copied())))
            .collect();
        let found = Found::Residues { judged: Judged::Exact, residues };
        answers.insert((report.n, report.g), Answer { first_line: wanted.first_line, found });
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
    // a target whose exact count does not fit, all of whose moduli the modular engine takes: judged
    // by the modular engine alone
    for (t, mut error) in refused {
        let wanted = &asked.targets[&t];
        let moduli: Option<Vec<u64>> =
            wanted.moduli.iter().map(|&m| u64::try_from(m).ok().filter(|&m| m < MODULUS_LIMIT)).collect();
        if let (Some(moduli), &Error::OutOfMemory { estimate, limit, .. }) = (moduli, &error) {
            match mod_only(t.0, t.1, &Options { moduli, ..options.clone() }) {
                Ok(report) => {
                    let found: BTreeMap<u64, u64> = report.residues.iter().copied().collect();
                    let residues = wanted
                        .moduli
                        .iter()
                        .map(|&m| (m, found.get(&(m as u64)).copied().expect("each modulus is reported").into(), None))
                        .collect();
                    let judged = Judged::Modular { exact_estimate: estimate, limit };
                    let found = Found::Residues { judged, residues };
                    answers.insert(t, Answer { first_line: wanted.first_line, found });
                    continue;
                }
                Err(e @ Error::OutOfMemory { .. }) => error = e,
                Err(e) => return Err(e),
            }
        }
        answers.insert(t, Answer { first_line: wanted.first_line, found: Found::Refused(error) });
    }
    if let Some(failure) = failures.into_iter().next() {
        return Err(failure);
    }
    Ok(Answers { targets: answers })
}
