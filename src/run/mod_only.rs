//! The runs of the modular engine alone: the residues of targets, with no exact engine and nothing
//! to cross-check ([`mod_only`], [`mod_only_each`]), and the moduli every run projects onto.

use crate::budget::{Guard, PROCESS_BYTES, Run};
use crate::engines::modular;
use crate::error::Result;
use crate::hooks::Hooks;
use crate::options::{LAST18, Options, P998244353};
use crate::plan;
use crate::report::ModReport;
use crate::targets::Targets;

/// c(n, g) modulo 10^18, 998244353 and every modulus in `options`, by the modular engine alone: no
/// big integers, no exact engine, so nothing to cross-check (the options' engine, double check,
/// checkpoint are not used).
///
/// Cost: where g is small (the dense arrays within 256 MiB), the modular engine over every g below W
/// (in the classes modulo 4 the target needs) in every layer, with no plan; otherwise the plan's
/// backward pass and the engine over it. Memory the process, the engine's arrays and the plan
/// if any, estimated and checked against the limit before anything large is allocated.
///
/// # Errors
/// As [`Counting::new`](super::Counting::new).
///
/// # Examples
///
/// ```
/// let options = fibtree::Options { moduli: vec![7], ..Default::default() };
/// let report = fibtree::mod_only(10, 0, &options)?;
/// assert_eq!(report.residues.last(), Some(&(7, 17 % 7)));
/// # Ok::<(), fibtree::Error>(())
/// ```
pub fn mod_only(n: u64, g: u64, options: &Options) -> Result<ModReport> {
    Ok(mod_only_each(&[(n, g)], options)?.remove(0))
}

/// [`mod_only`] for every target at once, in one run of the modular engine over them
/// all (a table of residues: every c(k, 0) of a range of k from the one sweep that reaches the
/// top k); the reports in the order of `targets`, a repeated target reported each time.
///
/// Cost: one modular run up to the highest n, as [`mod_only`] for it (its window
/// holding every target's g), and the targets' residues; a target known to count 0 without
/// counting costs nothing.
///
/// # Errors
/// As [`Counting::new`](super::Counting::new).
///
/// # Examples
///
/// ```
/// let options = fibtree::Options { moduli: vec![7], ..Default::default() };
/// let reports = fibtree::mod_only_each(&[(10, 0), (6, 0), (300, 0)], &options)?;
/// let mod7: Vec<u64> = reports.iter().map(|r| r.residues[2].1).collect();
/// assert_eq!(mod7, [17 % 7, 3, fibtree::count_mod(300, 0, 7)?]); // as the runs of each alone
/// assert_eq!(reports[2].residues[1], (fibtree::P998244353, 110_881_951));
/// # Ok::<(), fibtree::Error>(())
/// ```
pub fn mod_only_each(targets: &[(u64, u64)], options: &Options) -> Result<Vec<ModReport>> {
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
/// no default projection is added), in one run of the modular engine, as [`mod_only_each`] runs it:
/// a vector of residues a target, in the order of `targets` (a repeated target each time), each in
/// the order of `moduli`; and the run's memory estimate.
///
/// Cost: as [`mod_only_each`], for these moduli.
///
/// # Errors
/// As [`Counting::new`](super::Counting::new).
pub(crate) fn residues_each(targets: &[(u64, u64)], moduli: &[u64], options: &Options) -> Result<(Vec<Vec<u64>>, u64)> {
    for &m in moduli {
        modular::check_modulus(m)?;
    }
    let all = Targets::new(targets);
    // Before anything of size O(n): the Grundy values either way take 4 bytes a layer.
    let guard = Guard::new(Run::Residues { moduli: moduli.len(), at_once: 1 }, options.limit());
    guard.floor(all.top(), all.g_range().1)?;
    let mut live = Vec::new();
    for &(n, g) in all.iter() {
        if !plan::known_zero(n, g, options.hooks)? {
            live.push((n, g));
        }
    }
    let live = Targets::new(&live);
    let (residues, estimate) =
        if live.is_empty() { (Vec::new(), PROCESS_BYTES) } else { residues_of(&live, moduli, &guard, options.hooks)? };
    let of =
        |&target: &(u64, u64)| live.index_of(target).map_or_else(|| vec![0; moduli.len()], |at| residues[at].clone());
    Ok((targets.iter().map(of).collect(), estimate))
}

/// The residues of every one of `targets` (none known to count 0) modulo each of `moduli`, in one run
/// of the modular engine, and the run's memory estimate, checked by `guard`: without a plan where
/// the dense arrays are small (g below about 2^20), else over the plan.
///
/// # Errors
/// As [`Counting::new`](super::Counting::new).
fn residues_of(targets: &Targets, moduli: &[u64], guard: &Guard, hooks: Hooks) -> Result<(Vec<Vec<u64>>, u64)> {
    if let Some(bytes) = modular::unplanned_bytes(targets, moduli.len(), hooks)? {
        let estimate = guard.unplanned(bytes)?;
        if let Some(residues) = modular::count_mod_unplanned(targets, moduli, hooks)? {
            return Ok((residues, estimate));
        }
    }
    let (plan, estimate) = guard.plan(targets, hooks)?;
    Ok((modular::count_mod_with_plan(&plan, targets, moduli, hooks)?, estimate))
}

/// The moduli a run projects onto: 10^18, 998244353, then those of `options` (repeats removed).
///
/// # Errors
/// [`Error::InvalidArgument`] for a modulus outside 2..2^63.
pub(super) fn moduli_of(options: &Options) -> Result<Vec<u64>> {
    let mut moduli = vec![LAST18, P998244353];
    for &m in &options.moduli {
        modular::check_modulus(m)?;
        if !moduli.contains(&m) {
            moduli.push(m);
        }
    }
    Ok(moduli)
}
