//! A walk over the exact counts of every state a target needs ([`Counts`]): what naming the moves
//! of T(n) walks down.

use num_bigint::BigUint;

use crate::cost::{CACHED_BLOCKS, block_of};
use crate::engines::recurrence::{self, Layer};
use crate::engines::reference::Limbs;
use crate::engines::to_biguint;
use crate::error::Result;
use crate::guard::Guard;
use crate::hooks::Hooks;
use crate::plan::Plan;
use crate::targets::Targets;

/// Exact counts c(k, t) for the states a target (n, g) needs, any of them on demand: the two
/// layers before every block of about sqrt(n) layers are kept, and a few recomputed blocks. What
/// naming the moves walks over (fibtree's `moves`).
///
/// # Examples
///
/// ```
/// use fibtree_core::{Counts, Guard, Hooks, Limit};
/// let mut counts = Counts::new(10, 0, Guard::walk(Limit::given(1 << 30)), Hooks::default())?;
/// assert_eq!(counts.count_at(10, Some(0))?, 17u32.into()); // f(10)
/// assert_eq!((counts.edge(10), counts.count_at(1, Some(0))?), (15, 0u32.into())); // 1 + G(10); T(1) has no move
/// # Ok::<(), fibtree_core::Error>(())
/// ```
pub struct Counts<'a> {
    plan: Plan,
    block: usize,
    checkpoints: Vec<[Layer; 2]>,
    cache: Vec<(usize, Vec<Layer>)>,
    hooks: Hooks<'a>,
}

impl<'a> Counts<'a> {
    /// Plans (n, g) and runs the layers once, keeping the checkpoints.
    ///
    /// Cost: one run of the reference engine up to n; memory the plan, 2 sqrt(n) checkpoint layers
    /// and up to three blocks of sqrt(n) layers (about 0.5 GB at n = 10000), checked by `guard`
    /// ([`Guard::walk`]) before the plan (a refusal gives the whole estimate). The walk obeys
    /// `hooks`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for n too large; [`Error::OutOfMemory`](crate::Error::OutOfMemory) naming [`Param::N`](crate::Param::N) past
    /// the limit; [`Error::Interrupted`](crate::Error::Interrupted) when cancelled.
    pub fn new(n: u64, g: u64, guard: Guard, hooks: Hooks<'a>) -> Result<Counts<'a>> {
        let (plan, _) = guard.plan(&Targets::one(n, g), hooks)?;
        let block = block_of(n);
        let mut checkpoints: Vec<[Layer; 2]> = vec![Default::default()];
        let mut pending: Option<Layer> = None;
        if plan.top() >= 2 {
            recurrence::run_range(&plan, &Limbs, Default::default(), 2..=plan.top(), hooks, |layer| {
                // block b starts at layer 2 + b * block and needs the two layers before it
                let k = layer.k;
                if (k + 2 - 2) % block == 0 {
                    pending = Some(layer.clone());
                } else if (k + 1 - 2) % block == 0 {
                    checkpoints.push([pending.take().unwrap_or_default(), layer.clone()]);
                }
            })?;
        }
        Ok(Counts { plan, block, checkpoints, cache: Vec::new(), hooks })
    }

    /// c(k, t) for a state the target needs (0 for layers 0 and 1, and for a state the plan leaves
    /// out, whose count is zero: docs/math.md, "Zero states"). Cost O(1) when its block is cached,
    /// else one block's recomputation.
    ///
    /// # Errors
    /// [`Error::Interrupted`](crate::Error::Interrupted) when cancelled during a recomputation.
    fn count(&mut self, k: usize, t: u64) -> Result<BigUint> {
        if k < 2 {
            return Ok(BigUint::ZERO);
        }
        let b = (k - 2) / self.block;
        let at = match self.cache.iter().position(|(cached, _)| *cached == b) {
            Some(at) => at,
            None => {
                if self.cache.len() == CACHED_BLOCKS {
                    self.cache.remove(0);
                }
                let start = 2 + b * self.block;
                let end = (start + self.block - 1).min(self.plan.top());
                let mut layers = Vec::with_capacity(end + 1 - start);
                recurrence::run_range(&self.plan, &Limbs, self.checkpoints[b].clone(), start..=end, self.hooks, |l| {
                    layers.push(l.clone())
                })?;
                self.cache.push((b, layers));
                self.cache.len() - 1
            }
        };
        let layer = &self.cache[at].1[k - 2 - b * self.block];
        // a walk asks only for states the target needs: outside the plan, those of count zero
        Ok(layer.value(t).map_or(BigUint::ZERO, to_biguint))
    }

    /// `1 + G(k)`, the value T(k) adds under an edge (0 for the empty tree), for k up to n. Cost O(1).
    pub fn edge(&self, k: usize) -> u64 {
        self.plan.edge_value(k) as u64
    }

    /// `Err(Interrupted)` once the hooks the walk obeys say to stop. Cost: one or two loads.
    ///
    /// # Errors
    /// [`Error::Interrupted`](crate::Error::Interrupted) when cancelled.
    pub fn cancelled(&self) -> Result<()> {
        self.hooks.check()
    }

    /// c(k, t) for a state the target needs, where t may be "negative" (`None`: the state reached
    /// from a value of 0 by the step down) or k below 2: 0 then (and for a state the plan leaves
    /// out, whose count is zero: docs/math.md, "Zero states"). Cost O(1) when its block of layers is
    /// kept, else one block's recomputation.
    ///
    /// # Errors
    /// [`Error::Interrupted`](crate::Error::Interrupted) when cancelled during a recomputation.
    pub fn count_at(&mut self, k: usize, t: Option<u64>) -> Result<BigUint> {
        match t {
            Some(t) if k >= 2 => self.count(k, t),
            _ => Ok(BigUint::ZERO),
        }
    }
}
