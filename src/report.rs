//! A counted value with its projections and the verdict of every cross-check.

use std::sync::atomic::{AtomicBool, Ordering};

use num_bigint::BigUint;
use num_traits::ToPrimitive;

use crate::engine::Hooks;
use crate::plan::Plan;
use crate::{Error, Result};
use crate::{exact, modular};

/// 10^18: the modulus of the "last 18 digits" projection.
pub const LAST18: u64 = 1_000_000_000_000_000_000;
/// The prime modulus the contest problem asks for.
pub const P998244353: u64 = 998_244_353;

/// One projection of the exact value: its residue modulo `modulus`, and the residue an independent
/// modular computation found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Projection {
    /// The modulus, 2 <= modulus < 2^63.
    pub modulus: u64,
    /// The exact value reduced modulo `modulus`.
    pub residue: u64,
    /// The modular engine's residue, computed without big integers.
    pub independent: u64,
}

impl Projection {
    /// Whether the two computations agree.
    pub fn agrees(&self) -> bool {
        self.residue == self.independent
    }
}

/// What a counting run should do beyond the two default projections.
#[derive(Clone, Debug, Default)]
pub struct Options<'a> {
    /// Further moduli to project onto and check (each 2 <= m < 2^63).
    pub moduli: Vec<u64>,
    /// The memory the run may use, in bytes; `None` for what the machine has available.
    pub memory_limit: Option<u64>,
    /// A cancel flag and a progress callback for the engines.
    pub hooks: Hooks<'a>,
    /// The exact engine.
    pub engine: exact::Engine,
    /// Testing only: adds 1 to the independent residue of this modulus, to exercise the
    /// disagreement path without a real bug.
    #[doc(hidden)]
    pub perturb: Option<u64>,
}

/// The exact c(n, g) with its projections and checks.
#[derive(Clone, Debug)]
pub struct Report {
    /// The tree T(n).
    pub n: u64,
    /// The Grundy value the moves lead to (0: winning moves).
    pub g: u64,
    /// The exact count.
    pub value: BigUint,
    /// mod 10^18, mod 998244353, then each further modulus in the order asked (repeats removed).
    pub projections: Vec<Projection>,
    /// The peak memory estimated before the run, in bytes.
    pub memory_estimate_bytes: u64,
}

impl Report {
    /// Whether every projection agrees with its independent computation.
    pub fn ok(&self) -> bool {
        self.projections.iter().all(Projection::agrees)
    }

    /// The number of decimal digits of the value (1 for 0). Cost O(digits^2 / 64).
    pub fn digits(&self) -> usize {
        self.value.to_str_radix(10).len()
    }

    /// The projection onto `modulus`, if the report has it.
    pub fn projection(&self, modulus: u64) -> Option<&Projection> {
        self.projections.iter().find(|p| p.modulus == modulus)
    }
}

/// The memory available to a run: `MemAvailable` from `/proc/meminfo`, or `u64::MAX` where that
/// cannot be read.
pub fn available_memory() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("MemAvailable:"))?;
            let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kb * 1024)
        })
        .unwrap_or(u64::MAX)
}

/// Computes the exact c(n, g) and checks it modulo 10^18, 998244353 and every modulus in `options`
/// against the modular engine, in the current rayon pool.
///
/// Cost: the exact engine's O(states x limbs(n)) limb additions plus the modular engine's
/// O(states x moduli); memory the plan (one bit per g of each layer's window) plus three layers of
/// each engine, estimated and checked against the limit before any layer is allocated.
///
/// # Errors
/// [`Error::InvalidArgument`] for n too large or a modulus outside 2..2^63;
/// [`Error::OutOfMemory`] when the estimate exceeds the memory limit; [`Error::Interrupted`] when
/// the cancel flag is set.
pub fn count_report(n: u64, g: u64, options: &Options) -> Result<Report> {
    Ok(count_reports(&[(n, g)], options)?.remove(0))
}

/// [`count_report`] for many targets in one pass of each engine over one plan; reports in the order
/// of `targets`.
///
/// Cost: as [`count_report`] for the union of the targets' states, plus the values kept.
///
/// # Errors
/// As [`count_report`].
pub fn count_reports(targets: &[(u64, u64)], options: &Options) -> Result<Vec<Report>> {
    let mut reports: Vec<Option<Report>> = vec![None; targets.len()];
    for_each_report(targets, options, |t, report| {
        reports[t] = Some(report);
        Ok(())
    })?;
    Ok(reports.into_iter().map(|r| r.expect("every target is reported")).collect())
}

/// [`count_reports`] handing each report to `sink(index, report)` in order of n (targets of one n in
/// the order given). Where all the values together are small (up to 64 MiB) the two engines run at
/// the same time and the values are kept until both are done; otherwise the modular engine runs
/// first and the exact engine streams, so that nothing is kept per target but its residues.
///
/// Cost: as [`count_reports`], without the values kept.
///
/// # Errors
/// As [`count_report`], and whatever `sink` returns.
pub fn for_each_report(
    targets: &[(u64, u64)],
    options: &Options,
    sink: impl FnMut(usize, Report) -> Result<()> + Send,
) -> Result<()> {
    Counting::new(targets, options)?.for_each(sink)
}

/// A counting run that is planned and fits in memory, ready to run: what [`for_each_report`] does in
/// two steps, so that a caller can refuse a run (or print its estimate) before it writes anything.
pub struct Counting<'a> {
    targets: &'a [(u64, u64)],
    options: &'a Options<'a>,
    moduli: Vec<u64>,
    plan: Plan,
    estimate: u64,
    /// The modular engine's residues where they were found while the plan was built.
    independent: Option<Vec<Vec<u64>>>,
}

impl<'a> Counting<'a> {
    /// Plans the run and checks its estimated peak memory against the limit. Where the targets' g
    /// are small, the modular engine runs meanwhile, with no plan ([`modular::count_mod_unplanned`]),
    /// so that its residues are ready when the exact engine starts.
    ///
    /// Cost: the plan's backward pass (see [`Plan::new`]), and the modular engine's work.
    ///
    /// # Errors
    /// As [`count_report`] (including [`Error::Interrupted`]).
    pub fn new(targets: &'a [(u64, u64)], options: &'a Options<'a>) -> Result<Counting<'a>> {
        let moduli = moduli_of(options)?;
        let limit = options.memory_limit.unwrap_or_else(available_memory);
        let early = modular::unplanned_bytes(targets, moduli.len())?.is_some_and(|b| PROCESS_BYTES + b <= limit);
        // the plan stops the modular engine when it fails
        let stop = AtomicBool::new(false);
        let (planned, independent) = rayon::join(
            || planned(targets, options, moduli.len()).inspect_err(|_| stop.store(true, Ordering::Relaxed)),
            || match early {
                true => modular::count_mod_unplanned_until(targets, &moduli, options.hooks, Some(&stop)),
                false => Ok(None),
            },
        );
        let (plan, estimate) = planned?;
        Ok(Counting { targets, options, moduli, plan, estimate, independent: independent? })
    }

    /// The estimated peak memory of the run, in bytes.
    pub fn memory_estimate_bytes(&self) -> u64 {
        self.estimate
    }

    /// Runs the engines and hands each report to `sink`, as [`for_each_report`] says.
    ///
    /// Cost: the two engines' work; memory the estimate.
    ///
    /// # Errors
    /// [`Error::Interrupted`] when cancelled, and whatever `sink` returns.
    pub fn for_each(self, mut sink: impl FnMut(usize, Report) -> Result<()> + Send) -> Result<()> {
        let Counting { targets, options, moduli, plan, estimate, independent } = self;
        let report = |t: usize, words: &[u64], independent: &[u64]| {
            assemble(targets[t], words, &moduli, independent, options, estimate)
        };
        let modular = || match &independent {
            Some(residues) => Ok(residues.clone()),
            None => modular::count_mod_with_plan(&plan, targets, &moduli, options.hooks),
        };
        let top = targets.iter().map(|t| t.0).max().unwrap_or(0) as usize;
        if kept_values_bytes(targets.len(), top as u64) <= KEEP_VALUES_BYTES {
            // Small results: both engines at once, the values kept until the residues are known.
            let exact = || exact::count_words(options.engine, &plan, targets, options.hooks);
            let (independent, words) = rayon::join(modular, exact);
            let (independent, words) = (independent?, words?);
            let mut order: Vec<usize> = (0..targets.len()).collect();
            order.sort_by_key(|&t| targets[t].0);
            return order.into_iter().try_for_each(|t| sink(t, report(t, &words[t], &independent[t])));
        }
        // Large results: the residues first, then the exact values streamed.
        let independent = modular()?;
        let mut failed = None;
        exact::run_with(options.engine, &plan, targets, options.hooks, |t, words| {
            if failed.is_none()
                && let Err(e) = sink(t, report(t, words, &independent[t]))
            {
                failed = Some(e);
            }
        })?;
        failed.map_or(Ok(()), Err)
    }
}

/// The residues of c(n, g) alone, by the modular engine: what `count --mod-only` prints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModReport {
    /// The tree T(n).
    pub n: u64,
    /// The Grundy value the moves lead to (0: winning moves).
    pub g: u64,
    /// `(modulus, residue)`: mod 10^18, mod 998244353, then each further modulus in the order asked
    /// (repeats removed).
    pub residues: Vec<(u64, u64)>,
    /// The peak memory estimated before the run, in bytes.
    pub memory_estimate_bytes: u64,
}

/// c(n, g) modulo 10^18, 998244353 and every modulus in `options`, by the modular engine alone: no
/// big integers, no exact engine, so nothing to cross-check (`options.engine` and `options.perturb`
/// are not used).
///
/// Cost: where g is small (the dense arrays within [`modular::DENSE_LIMIT_BYTES`]), the modular
/// engine over every g below W in every layer, with no plan ([`modular::count_mod_unplanned`]:
/// about 20 ms for both default moduli at n = 10000); otherwise the plan's backward pass and the
/// engine over it ([`modular::count_mod_with_plan`]). Memory the process, the engine's arrays and
/// the plan if any, estimated and checked against the limit before anything large is allocated.
///
/// # Errors
/// As [`count_report`].
pub fn count_mod_report(n: u64, g: u64, options: &Options) -> Result<ModReport> {
    let moduli = moduli_of(options)?;
    let limit = options.memory_limit.unwrap_or_else(available_memory);
    let targets = [(n, g)];
    let report = |residues: Vec<u64>, estimate| ModReport {
        n,
        g,
        residues: moduli.iter().copied().zip(residues).collect(),
        memory_estimate_bytes: estimate,
    };
    // Without a plan where the dense arrays are small (g below about 2^20), else over the plan.
    if let Some(bytes) = modular::unplanned_bytes(&targets, moduli.len())? {
        let estimate = PROCESS_BYTES + bytes;
        if estimate > limit {
            return Err(Error::OutOfMemory { arg: "N", estimate, limit });
        }
        if let Some(mut residues) = modular::count_mod_unplanned(&targets, &moduli, options.hooks)? {
            return Ok(report(residues.remove(0), estimate));
        }
    }
    let plan = Plan::new_until(&targets, limit, options.hooks.cancel)?;
    let estimate = PROCESS_BYTES + plan.bytes() + modular::memory_bytes(&plan, moduli.len(), targets.len());
    if estimate > limit {
        return Err(Error::OutOfMemory { arg: "N", estimate, limit });
    }
    let residues = modular::count_mod_with_plan(&plan, &targets, &moduli, options.hooks)?.remove(0);
    Ok(report(residues, estimate))
}

/// The moduli a run projects onto: 10^18, 998244353, then those of `options` (repeats removed).
///
/// # Errors
/// [`Error::InvalidArgument`] for a modulus outside 2..2^63.
pub(crate) fn moduli_of(options: &Options) -> Result<Vec<u64>> {
    let mut moduli = vec![LAST18, P998244353];
    for &m in &options.moduli {
        modular::check_modulus(m)?;
        if !moduli.contains(&m) {
            moduli.push(m);
        }
    }
    Ok(moduli)
}

/// The plan of a counting run and its memory estimate, checked against the limit.
///
/// # Errors
/// As [`Counting::new`].
pub(crate) fn planned(targets: &[(u64, u64)], options: &Options, moduli: usize) -> Result<(Plan, u64)> {
    let limit = options.memory_limit.unwrap_or_else(available_memory);
    let plan = Plan::new_until(targets, limit, options.hooks.cancel)?;
    let top = targets.iter().map(|t| t.0).max().unwrap_or(0);
    let estimate = estimate_bytes(&plan, top, moduli, targets.len());
    if estimate > limit {
        return Err(Error::OutOfMemory { arg: "N", estimate, limit });
    }
    Ok((plan, estimate))
}

/// The report of c(n, g) from its exact words and the modular engine's residues.
pub(crate) fn assemble(
    (n, g): (u64, u64),
    words: &[u64],
    moduli: &[u64],
    independent: &[u64],
    options: &Options,
    estimate: u64,
) -> Report {
    let value = exact::to_biguint(words);
    let projections = moduli
        .iter()
        .zip(independent)
        .map(|(&modulus, &independent)| Projection {
            modulus,
            residue: (&value % modulus).to_u64().expect("a residue is below its modulus"),
            independent: independent + (options.perturb == Some(modulus)) as u64,
        })
        .collect();
    Report { n, g, value, projections, memory_estimate_bytes: estimate }
}

/// Results up to this size are kept whole, so that the two engines can run at the same time.
const KEEP_VALUES_BYTES: u64 = 64 << 20;

/// The estimated peak memory of a counting run over `plan` up to layer `n`, in bytes: the process,
/// the plan, the exact engine's three layers, the modular engine's arrays and its residues for each
/// target, the values where they are kept, and the decimal string of one result.
fn estimate_bytes(plan: &Plan, n: u64, moduli: usize, targets: usize) -> u64 {
    let modular = modular::memory_bytes(plan, moduli, targets);
    let values = kept_values_bytes(targets, n);
    let kept = if values <= KEEP_VALUES_BYTES { values } else { 0 };
    PROCESS_BYTES + plan.bytes() + exact::layer_bytes(plan, n as usize) + modular + kept + n
}

/// The bytes of every target's value, at most `limbs(n)` words each.
fn kept_values_bytes(targets: usize, n: u64) -> u64 {
    targets as u64 * exact::limbs(n as usize) as u64 * 8
}

/// What the process needs before any run: code, thread stacks, the allocator's arenas (measured
/// peak of `count 10` on Linux x86-64).
pub const PROCESS_BYTES: u64 = 8 << 20;
