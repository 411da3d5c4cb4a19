//! Which instruction set the kernels run ([`crate::Isa`]), decided once per process: the one the
//! machine's setting forces ([`crate::Machine::isa`]), or where it forces none, for the exact
//! engine's lanes the fastest of the machine's sets as measured ([`super::calibrate`]) and for the
//! dense modular sweep (and the plan's bitset passes) the widest.
//!
//! Why two rules: the lanes' kernel streams chunks through the level-2 cache, where the widest set
//! was not the fastest on the AMD EPYC Zen 4 and the Intel Xeon measured; the dense sweep permutes
//! residues in registers with hand-written intrinsics, 3 to 4 times faster with AVX2 or AVX-512 than
//! the baseline and fastest with the widest on both.

use crate::machine::Isa;

/// The instruction set the exact engine's lanes run (most of a count's time): the one the machine's
/// setting forces ([`crate::Machine::isa`]), or the fastest of the machine's sets as measured once
/// per process ([`isa_choice`]).
///
/// Cost: a few milliseconds of one core on the first call where it measures (2 to 5 ms on the CPUs
/// measured), one load after.
///
/// # Examples
///
/// ```
/// assert!(fibtree_core::Isa::available().contains(&fibtree_core::isa()));
/// ```
pub fn isa() -> Isa {
    match crate::machine::settings().isa {
        Some(forced) => forced,
        None => super::calibrate::lanes_isa(&Isa::available()).chosen,
    }
}

/// The instruction set of the dense modular sweep and of the plan's bitset passes: the one the
/// machine's setting forces, or the widest the machine has. Cost: one load after the first call.
pub(crate) fn dense_isa() -> Isa {
    crate::machine::settings().isa.unwrap_or_else(Isa::detect)
}

/// What the calibration of the lanes' instruction set measured, where the machine's setting leaves
/// the choice to it (`None` where it forces a set): each set's rate, the one chosen and the time it
/// took. Measures on the first call of the process, as [`isa()`] does.
///
/// # Examples
///
/// ```
/// if let Some(measured) = fibtree_core::isa_choice() {
///     assert_eq!(measured.chosen, fibtree_core::isa());
///     assert_eq!(measured.rates.len(), fibtree_core::Isa::available().len());
/// }
/// ```
pub fn isa_choice() -> Option<&'static super::IsaChoice> {
    match crate::machine::settings().isa {
        None => Some(super::calibrate::lanes_isa(&Isa::available())),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sets_match_the_instruction_sets() {
        let available = Isa::available();
        assert_eq!(available[0], Isa::Baseline);
        assert_eq!(available.last().copied(), Some(Isa::detect()));
        assert!(available.contains(&isa()));
        assert!(Isa::ALL.iter().all(|k| k.to_string() == k.name()));
    }
}
