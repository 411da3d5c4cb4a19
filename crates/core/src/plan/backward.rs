//! The backward pass: the states a set of targets needs, made layer by layer from the top down.
//!
//! c(k, g) reads c(k - 1, (g xor R) - 1) and c(k - 2, (g xor L) - 1), with R = 1 + G(k - 2) and
//! L = 1 + G(k - 1); so layer i needs its own targets, the image of layer i + 1 through that layer's
//! R (edge value i - 1) and the image of layer i + 2 through its L (edge value i + 1). Layers 0 and
//! 1 hold no moves and are never made. The plan keeps every layer; the census keeps two. With the
//! support below W ([`Walk`]) each layer is thinned to its states of non-zero count as it is made
//! (docs/math.md, "Zero states"): the image of the thinned layers above it is then the plan's layer
//! less some of its zero states, and the thinning takes the rest.

use super::layer_set::{LayerSet, Step};
use super::thinning::Walk;
use crate::error::Result;
use crate::hooks::Hooks;
use crate::targets::Targets;

/// What the backward pass keeps of the layers it makes.
pub(super) trait Keep {
    /// Whether [`Keep::before`] is to be called (it costs a pass over the sources' words).
    const PROJECTS: bool = false;

    /// Layers i + 1 and i + 2 as layer i is made: those kept, or empty sets.
    fn above(&self, i: usize) -> [&LayerSet; 2];

    /// Called before layer i is allocated, with the bytes of its window: where a memory guard
    /// refuses a plan that would grow past its limit.
    ///
    /// # Errors
    /// Whatever the keeper refuses with.
    fn before(&mut self, _i: usize, _window_bytes: u64) -> Result<()> {
        Ok(())
    }

    /// Takes layer i, the last made (every layer from the top down to 2, empty ones included).
    ///
    /// # Errors
    /// Whatever the keeper refuses with.
    fn keep(&mut self, i: usize, set: LayerSet) -> Result<()>;
}

/// Makes every layer of the plan of `targets` from the top down to layer 2, handing each to `keeper`,
/// thinned by the support of `support` where given (the targets themselves kept in their layers).
/// `edge` holds the edge values `1 + G(k)` from 0 to at least the top layer.
///
/// Cost: O(window / 64) word operations a layer (the sources' words, twice where the keeper
/// projects, and the support's); with the support, its walk down (one forward pass in all);
/// memory what the keeper keeps. `hooks` are checked every layer.
///
/// # Errors
/// [`crate::Error::Interrupted`] once cancelled; whatever the keeper refuses with.
pub(super) fn backward<K: Keep>(
    targets: &Targets,
    edge: &[u32],
    hooks: Hooks,
    mut support: Option<&mut Walk>,
    keeper: &mut K,
) -> Result<()> {
    for i in (2..=targets.top() as usize).rev() {
        hooks.check()?;
        let own: Vec<u64> = targets.at_layer(i as u64).iter().map(|t| t.1).collect();
        // the window first, for a keeper that refuses a layer before it is allocated
        if K::PROJECTS {
            let Some((lo, hi)) = LayerSet::union_bounds(&back_sources(i, keeper.above(i), edge), Step::Back, &own)
            else {
                keeper.keep(i, LayerSet::default())?;
                continue;
            };
            keeper.before(i, (hi - lo + 1).saturating_mul(8))?;
        }
        let mut set = LayerSet::image(&back_sources(i, keeper.above(i), edge), Step::Back, &own);
        if let Some(walk) = support.as_deref_mut()
            && !set.is_empty()
        {
            set.retain_below(walk.layer(i, hooks)?, &own);
        }
        keeper.keep(i, set)?;
    }
    Ok(())
}

/// Where layer `i`'s states are read from by the layers above it: layer i + 1 through its R (edge
/// i - 1) and layer i + 2 through its L (edge i + 1), those that are not empty.
fn back_sources<'a>(i: usize, above: [&'a LayerSet; 2], edge: &[u32]) -> Vec<(&'a LayerSet, u64)> {
    above.into_iter().zip([i - 1, i + 1]).filter(|(s, _)| !s.is_empty()).map(|(s, e)| (s, edge[e] as u64)).collect()
}
