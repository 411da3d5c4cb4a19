//! The exact route of a set of claims: each (n, g) counted exactly, all of them in one pass of the
//! exact engine where that fits in memory, its residues modulo the claims' moduli taken from the
//! value, each modulus below 2^63 also computed by the modular engine (a projection of the count,
//! which checks it).

use std::collections::{BTreeMap, BTreeSet};

use super::super::residue;
use super::{Answer, Asked, Found};
use crate::error::{Error, Result};
use crate::options::Options;
use crate::report::Report;
use crate::run::Counting;
use fibtree_core::MODULUS_LIMIT;

/// Counts `targets` (each asked by `asked`) exactly, and adds what each claim of theirs needs to
/// `answers`: all of them in one run where it fits; else each on its own, those that fit together
/// in one run, or one at a time where even they do not; those whose own run does not fit are
/// returned with the reason, in the order of `targets`.
///
/// # Errors
/// As [`super::answer`]: a failure of a check of the exact value, or of the engines.
pub(super) fn count(
    asked: &Asked,
    targets: &[(u64, u64)],
    options: &Options,
    answers: &mut BTreeMap<(u64, u64), Answer>,
) -> Result<Vec<((u64, u64), Error)>> {
    if targets.is_empty() {
        return Ok(Vec::new());
    }
    let mut options = options.clone();
    let extra: BTreeSet<u64> = targets
        .iter()
        .flat_map(|t| asked.targets[t].moduli.iter())
        .filter_map(|&m| u64::try_from(m).ok().filter(|&m| m < MODULUS_LIMIT))
        .filter(|m| !options.moduli.contains(m))
        .collect();
    options.moduli.extend(extra);
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
        let value = wanted.whole.then_some(report.value);
        let found = Found::Exact { residues, value };
        answers.insert((report.n, report.g), Answer { first_line: wanted.first_line, found });
        Ok(())
    };
    let mut refused = Vec::new();
    match Counting::new(targets, &options) {
        Ok(counting) => counting.for_each(&mut sink)?,
        Err(Error::OutOfMemory { .. }) => {
            let mut fit = Vec::new();
            for &t in targets {
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
    match failures.into_iter().next() {
        Some(failure) => Err(failure),
        None => Ok(refused),
    }
}
