//! The exact values of some targets by one engine alone, with no cross-check ([`exact`]): what
//! [`crate::count`] gives and what a comparison of the engines runs.

use fibtree_core::{Guard, Request};
use num_bigint::BigUint;

use crate::error::Result;
use crate::options::Options;

/// The exact c(n, g) of each target, in the order given, by `options.engine` alone, cut at
/// `options.cut` and steered by its `chunk_lanes` and `tiles`, within its limit and obeying its
/// hooks (its moduli, checkpoint and double check play no part). Nothing checks these values: a
/// [`crate::Counting`] run checks them against the modular engine.
///
/// Cost: the plan of the targets, then the engine's O(states x limbs(n)) limb additions (about
/// 10.4 million states of up to 6,930 bits for (10000, 0)); memory the plan plus three layers for
/// each thread of the current rayon pool, and the values.
///
/// # Errors
/// [`crate::Error::InvalidArgument`] for n above [`crate::MAX_N`], a cut the engine or the targets
/// cannot take, or lanes outside [`crate::CHUNK_LANES`]; [`crate::Error::OutOfMemory`] when the
/// run would exceed the limit; [`crate::Error::Interrupted`] when cancelled.
///
/// # Examples
///
/// ```
/// use fibtree::{Cut, Engine, Options};
/// let reference = Options { engine: Engine::Reference, ..Options::default() };
/// let halves = Options { cut: Cut::At(150), ..Options::default() };
/// let targets = [(300, 0), (10, 26), (10, 0)];
/// assert_eq!(fibtree::exact(&targets, &reference)?, fibtree::exact(&targets, &Options::default())?);
/// assert_eq!(fibtree::exact(&targets[..1], &halves)?[0], fibtree::count(300, 0)?);
/// assert_eq!(fibtree::exact(&targets[1..], &reference)?, [4u32.into(), 17u32.into()]);
/// # Ok::<(), fibtree::Error>(())
/// ```
pub fn exact(targets: &[(u64, u64)], options: &Options) -> Result<Vec<BigUint>> {
    options.check_lanes()?;
    let guard = Guard::exact(options.limit(), targets.len() as u64);
    let request = Request::exact(targets, options.engine).cut(options.cut).guard(guard).hooks(options.hooks);
    let planned = options.steer(request).plan()?;
    let planned_targets = planned.targets().to_vec();
    let mut values = vec![BigUint::ZERO; planned_targets.len()];
    planned.run(|index, value, _| {
        values[index] = value.unwrap_or_default();
        Ok(())
    })?;
    let at = |t: &(u64, u64)| planned_targets.binary_search(t).expect("every target is planned");
    Ok(targets.iter().map(|t| values[at(t)].clone()).collect())
}
