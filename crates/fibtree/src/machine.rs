//! The machine the engines compute for ([`Machine`], set once per process, or the one the operating
//! system reports), and what they read of it: the instruction sets ([`Isa`], [`isa`],
//! [`isa_choice`]) and the cores ([`cores`]). The library reads no environment variable: a program
//! that simulates a machine says so here.

pub use fibtree_core::{Isa, IsaChoice};

use crate::error::Result;

/// The machine fibtree computes for, where it is not the one the operating system reports: each
/// setting left out is read from the machine. Set once per process, before any engine runs
/// ([`Machine::set`]); the engines then size their chunks by its caches, count its cores, run its
/// instruction sets and stay within its memory.
///
/// # Examples
///
/// ```
/// // what the machine reports, and a machine that differs in its level-2 cache alone
/// let machine = fibtree::Machine::default().l2(Some(512 << 10));
/// assert_ne!(machine, fibtree::Machine::default());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Machine(fibtree_core::Machine);

impl Machine {
    /// This machine with a level-2 cache of `bytes` per core (`None`: not reported, as a virtual
    /// machine that hides it). Cost O(1).
    ///
    /// ```
    /// assert_ne!(fibtree::Machine::default().l2(None), fibtree::Machine::default());
    /// ```
    pub fn l2(self, bytes: Option<u64>) -> Machine {
        Machine(self.0.l2(bytes))
    }

    /// This machine with a level-3 cache of `bytes` shared by the first core (`None`: not
    /// reported). Cost O(1).
    ///
    /// ```
    /// assert_ne!(fibtree::Machine::default().l3(Some(32 << 20)), fibtree::Machine::default());
    /// ```
    pub fn l3(self, bytes: Option<u64>) -> Machine {
        Machine(self.0.l3(bytes))
    }

    /// This machine with `cores` cores for the process. Cost O(1).
    ///
    /// ```
    /// assert_ne!(fibtree::Machine::default().cores(64), fibtree::Machine::default());
    /// ```
    pub fn cores(self, cores: usize) -> Machine {
        Machine(self.0.cores(cores))
    }

    /// This machine with `isa` as the widest instruction set its CPU has: no wider than this CPU's
    /// ([`Isa::of_cpu`]), since a set it lacks cannot run ([`Machine::set`] refuses it). Cost O(1).
    ///
    /// ```
    /// let machine = fibtree::Machine::default().widest_isa(fibtree::Isa::Baseline);
    /// assert_ne!(machine, fibtree::Machine::default());
    /// ```
    pub fn widest_isa(self, isa: Isa) -> Machine {
        Machine(self.0.widest_isa(isa))
    }

    /// This machine with `bytes` of memory available (what `MemAvailable` reports): a run's limit
    /// then names it ([`crate::Bound::Machine`]). Cost O(1).
    ///
    /// ```
    /// assert_ne!(fibtree::Machine::default().memory(1 << 30), fibtree::Machine::default());
    /// ```
    pub fn memory(self, bytes: u64) -> Machine {
        Machine(self.0.memory(bytes))
    }

    /// This machine with every kernel run as compiled for `isa` (one the machine has), rather than
    /// the exact engine's lanes as measured fastest and the dense sweep as the widest. Cost O(1).
    ///
    /// ```
    /// let machine = fibtree::Machine::default().isa(fibtree::Isa::Baseline);
    /// assert_ne!(machine, fibtree::Machine::default());
    /// ```
    pub fn isa(self, isa: Isa) -> Machine {
        Machine(self.0.isa(isa))
    }

    /// Makes this the machine every engine of the process computes for. Once per process, before
    /// anything reads the machine (any count, [`cores`], [`isa`]). Cost O(1).
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] naming [`crate::Param::Machine`] for a widest instruction
    /// set this CPU lacks, or once the machine is set or read; naming [`crate::Param::Isa`] for an
    /// instruction set to run that the machine lacks.
    ///
    /// # Examples
    ///
    /// ```
    /// let _ = fibtree::cores(); // the machine is read: it stays the one the system reports
    /// let refused = fibtree::Machine::default().cores(2).set();
    /// assert!(matches!(refused, Err(fibtree::Error::InvalidArgument { param: fibtree::Param::Machine, .. })));
    /// ```
    pub fn set(self) -> Result<()> {
        Ok(self.0.set()?)
    }

    /// The bytes of the cache of `level` (2 or 3) the first core has, as the machine's setting gives
    /// it or the operating system reports it, `None` where it reports none. Read once. Cost: a few
    /// reads of small files, the first time.
    ///
    /// ```
    /// assert_eq!(fibtree::Machine::cache_bytes(1), None); // only levels 2 and 3 are read
    /// ```
    pub fn cache_bytes(level: u32) -> Option<u64> {
        fibtree_core::Machine::cache_bytes(level)
    }

    /// Seconds of CPU time the calling thread has used so far (wall time on a platform without a
    /// thread clock). Only differences matter. Cost: one `clock_gettime`.
    ///
    /// ```
    /// let start = fibtree::Machine::thread_seconds();
    /// assert!(fibtree::Machine::thread_seconds() >= start);
    /// ```
    pub fn thread_seconds() -> f64 {
        fibtree_core::Machine::thread_seconds()
    }
}

/// The cores this process may use: the machine's setting ([`Machine::cores`]), else the operating
/// system's (1 where it cannot say). Cost: a system call or two.
///
/// # Examples
///
/// ```
/// assert!(fibtree::cores() >= 1);
/// ```
pub fn cores() -> usize {
    fibtree_core::cores()
}

/// The instruction set the exact engine's lanes run (most of a count's time): the one the machine's
/// setting forces ([`Machine::isa`]), or the fastest of the machine's sets as measured once per
/// process ([`isa_choice`]).
///
/// Cost: a few milliseconds of one core on the first call where it measures, one load after.
///
/// # Examples
///
/// ```
/// assert!(fibtree::Isa::available().contains(&fibtree::isa()));
/// ```
pub fn isa() -> Isa {
    fibtree_core::isa()
}

/// What the calibration of the lanes' instruction set measured, where the machine's setting leaves
/// the choice to it (`None` where it forces a set): each set's rate, the one chosen and the time it
/// took. Measures on the first call of the process, as [`isa()`] does.
///
/// # Examples
///
/// ```
/// if let Some(measured) = fibtree::isa_choice() {
///     assert_eq!(measured.chosen, fibtree::isa());
///     assert_eq!(measured.rates.len(), fibtree::Isa::available().len());
/// }
/// ```
pub fn isa_choice() -> Option<&'static IsaChoice> {
    fibtree_core::isa_choice()
}
