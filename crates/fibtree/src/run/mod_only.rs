//! The runs of the modular engine alone: the residues of targets, with no exact engine and nothing
//! to cross-check ([`mod_only`]), and the moduli every run projects onto.

use fibtree_core::{Guard, Request};

use crate::error::Result;
use crate::options::{LAST18, Options, P998244353};
use crate::report::ModReport;

/// c(n, g) modulo 10^18, 998244353 and every modulus in `options` for every target (n, g), by the
/// modular engine alone: no big integers, no exact engine, so nothing to cross-check (the options'
/// engine, double check, checkpoint are not used). One run of the modular engine over them all (a
/// table of residues: every c(k, 0) of a range of k from the one sweep that reaches the top k); the
/// reports in the order of `targets`, a repeated target reported each time.
///
/// Cost: where g is small (the dense arrays within 256 MiB), the modular engine over every g below W
/// (in the classes modulo 4 the targets need) in every layer up to the highest n, with no plan;
/// otherwise the plan's backward pass and the engine over it; a target known to count 0 without
/// counting costs nothing. Memory the process, the engine's arrays and the plan if any, estimated
/// and checked against the limit before anything large is allocated.
///
/// # Errors
/// As [`Counting::new`](super::Counting::new).
///
/// # Examples
///
/// ```
/// let options = fibtree::Options { moduli: vec![7], ..Default::default() };
/// let reports = fibtree::mod_only(&[(10, 0), (6, 0), (300, 0)], &options)?;
/// let mod7: Vec<u64> = reports.iter().map(|r| r.residues[2].1).collect();
/// assert_eq!(mod7, [17 % 7, 3, fibtree::count_mod(300, 0, 7)?]); // as the runs of each alone
/// assert_eq!(reports[2].residues[1], (fibtree::P998244353, 110_881_951));
/// # Ok::<(), fibtree::Error>(())
/// ```
pub fn mod_only(targets: &[(u64, u64)], options: &Options) -> Result<Vec<ModReport>> {
    let moduli = moduli_of(options)?;
    let (residues, estimate) = residues_each(targets, &moduli, options)?;
    let report = |(&(n, g), residues): (&(u64, u64), Vec<u64>)| ModReport {
        n,
        g,
        residues: moduli.iter().copied().zip(residues).collect(),
        memory_estimate_bytes: estimate,
    };
    Ok(targets.iter().zip(residues).map(report).collect())
}

/// The residues of every one of `targets` modulo each of `moduli` (checked here, and only these:
/// no default projection is added), in one run of the modular engine, as [`mod_only`] runs it:
/// a vector of residues a target, in the order of `targets` (a repeated target each time), each in
/// the order of `moduli`; and the run's memory estimate.
///
/// Cost: as [`mod_only`], for these moduli.
///
/// # Errors
/// As [`Counting::new`](super::Counting::new).
pub(crate) fn residues_each(targets: &[(u64, u64)], moduli: &[u64], options: &Options) -> Result<(Vec<Vec<u64>>, u64)> {
    let guard = Guard::residues(options.limit(), moduli.len(), 1);
    let planned = Request::residues(targets, moduli.to_vec()).guard(guard).hooks(options.hooks).plan()?;
    let (estimate, distinct) = (planned.estimate(), planned.targets().to_vec());
    let mut residues = vec![Vec::new(); distinct.len()];
    planned.run(|index, _, found| {
        residues[index] = found.to_vec();
        Ok(())
    })?;
    let of = |target: &(u64, u64)| residues[distinct.binary_search(target).expect("every target is planned")].clone();
    Ok((targets.iter().map(of).collect(), estimate))
}

/// The moduli a run projects onto: 10^18, 998244353, then those of `options` (repeats removed).
///
/// # Errors
/// [`Error::InvalidArgument`] for a modulus outside 2..2^63.
pub(crate) fn moduli_of(options: &Options) -> Result<Vec<u64>> {
    let mut moduli = vec![LAST18, P998244353];
    for &m in &options.moduli {
        check_modulus(m)?;
        if !moduli.contains(&m) {
            moduli.push(m);
        }
    }
    Ok(moduli)
}

/// Checks that `m` is a modulus the modular engine accepts: 2 <= m < 2^63.
///
/// # Errors
/// [`crate::Error::InvalidArgument`] naming [`crate::Param::Modulus`].
pub(crate) fn check_modulus(m: u64) -> Result<()> {
    if (2..fibtree_core::MODULUS_LIMIT).contains(&m) {
        Ok(())
    } else {
        Err(crate::error::Error::invalid(
            crate::error::Param::Modulus,
            format!("a modulus with 2 <= M < 2^63, got {m}"),
        ))
    }
}
