//! The machine as fibtree computes for it, in one place: its caches ([`cache`]), its cores, its
//! instruction sets ([`Isa`]) and the memory it has available, read from the operating system unless the
//! program sets another machine once, before any engine runs ([`Machine`]), as fibtree's command
//! line does to simulate one for its tests (the library reads no environment variable); and the
//! calling thread's CPU time ([`clock`]).

mod cache;
mod clock;
mod isa;

use std::sync::OnceLock;

pub(crate) use cache::l2_bytes;
pub(crate) use clock::thread_cpu_seconds;

use crate::error::{Error, Param, Result};
pub use isa::Isa;

/// The machine fibtree computes for, where it is not the one the operating system reports: each
/// setting left out is read from the machine. Set once per process, before any engine runs
/// ([`Machine::set`]); the engines then size their chunks by its caches, count its cores, run its
/// instruction sets and stay within its memory.
///
/// # Examples
///
/// ```
/// # use fibtree_core as fibtree;
/// // what the machine reports, and a machine that differs in its level-2 cache alone
/// let machine = fibtree::Machine::default().l2(Some(512 << 10));
/// assert_ne!(machine, fibtree::Machine::default());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Machine {
    /// The level-2 cache (`Some(None)`: not reported).
    pub(crate) l2: Option<Option<u64>>,
    /// The level-3 cache (`Some(None)`: not reported).
    pub(crate) l3: Option<Option<u64>>,
    /// The cores.
    pub(crate) cores: Option<usize>,
    /// The widest instruction set.
    pub(crate) widest: Option<Isa>,
    /// The memory available.
    pub(crate) memory: Option<u64>,
    /// The instruction set every kernel runs.
    pub(crate) isa: Option<Isa>,
}

impl Machine {
    /// This machine with a level-2 cache of `bytes` per core (`None`: not reported, as a virtual
    /// machine that hides it). Cost O(1).
    pub fn l2(self, bytes: Option<u64>) -> Machine {
        Machine { l2: Some(bytes), ..self }
    }

    /// This machine with a level-3 cache of `bytes` shared by the first core (`None`: not
    /// reported). Cost O(1).
    pub fn l3(self, bytes: Option<u64>) -> Machine {
        Machine { l3: Some(bytes), ..self }
    }

    /// This machine with `cores` cores for the process. Cost O(1).
    pub fn cores(self, cores: usize) -> Machine {
        Machine { cores: Some(cores.max(1)), ..self }
    }

    /// This machine with `isa` as the widest instruction set its CPU has: no wider than this
    /// CPU's ([`Isa::of_cpu`]), since a set it lacks cannot run ([`Machine::set`] refuses it).
    /// Cost O(1).
    pub fn widest_isa(self, isa: Isa) -> Machine {
        Machine { widest: Some(isa), ..self }
    }

    /// This machine with `bytes` of memory available (what `MemAvailable` reports). Cost O(1).
    pub fn memory(self, bytes: u64) -> Machine {
        Machine { memory: Some(bytes), ..self }
    }

    /// This machine with every kernel run as compiled for `isa` (one the machine has), rather than
    /// the exact engine's lanes as measured fastest and the dense sweep as the widest. Cost O(1).
    pub fn isa(self, isa: Isa) -> Machine {
        Machine { isa: Some(isa), ..self }
    }

    /// Makes this the machine every engine of the process computes for. Once per process, before
    /// anything reads the machine (any count, [`crate::cores`], [`crate::isa`]). Cost O(1).
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] naming [`Param::Machine`] for a widest instruction set
    /// this CPU lacks, or once the machine is set or read; naming [`Param::Isa`] for an
    /// instruction set to run that the machine lacks.
    ///
    /// # Examples
    ///
    /// ```
    /// # use fibtree_core as fibtree;
    /// let _ = fibtree::cores(); // the machine is read: it stays the one the system reports
    /// assert!(fibtree::Machine::default().cores(2).set().is_err());
    /// ```
    pub fn set(self) -> Result<()> {
        let real = Isa::of_cpu();
        if let Some(widest) = self.widest.filter(|&w| w > real) {
            let why = format!("this CPU has no {widest} to run (its widest set is {real})");
            return Err(Error::invalid(Param::Machine, why));
        }
        if let Some(isa) = self.isa.filter(|&isa| isa > self.widest.unwrap_or(real).min(real)) {
            let has: Vec<&str> =
                Isa::ALL.iter().filter(|&&k| k <= self.widest.unwrap_or(real)).map(|k| k.name()).collect();
            let why = format!("this CPU has no {} (it has: {})", isa.vendor_name(), has.join(", "));
            return Err(Error::invalid(Param::Isa, why));
        }
        SETTINGS
            .set(self)
            .map_err(|_| Error::invalid(Param::Machine, "the machine is set once, before anything reads it"))
    }
}

impl Machine {
    /// The bytes of the cache of `level` (2 or 3) the first core has, as the machine's setting gives
    /// it or the operating system reports it, `None` where it reports none. Read once. Cost: a few
    /// reads of small files, the first time.
    ///
    /// ```
    /// # use fibtree_core as fibtree;
    /// assert_eq!(fibtree::Machine::cache_bytes(1), None); // only levels 2 and 3 are read
    /// ```
    pub fn cache_bytes(level: u32) -> Option<u64> {
        match level {
            2 => l2_bytes(),
            3 => cache::l3_bytes(),
            _ => None,
        }
    }

    /// Seconds of CPU time the calling thread has used so far, so that more threads than cores do
    /// not inflate a task's time (wall time on a platform without a thread clock). Only differences
    /// matter. Cost: one `clock_gettime`.
    ///
    /// ```
    /// # use fibtree_core as fibtree;
    /// let start = fibtree::Machine::thread_seconds();
    /// assert!(fibtree::Machine::thread_seconds() >= start);
    /// ```
    pub fn thread_seconds() -> f64 {
        thread_cpu_seconds()
    }
}

/// The machine set for the process, or the one the system reports.
static SETTINGS: OnceLock<Machine> = OnceLock::new();

/// The machine's settings: [`Machine::set`]'s, or none (every figure read from the system) once
/// anything reads them. Cost: one load after the first call.
pub(crate) fn settings() -> &'static Machine {
    SETTINGS.get_or_init(Machine::default)
}

/// The memory available that the machine's setting gives, if it gives one. Cost: one load.
pub(crate) fn memory() -> Option<u64> {
    settings().memory
}

/// The cores this process may use: the machine's setting ([`Machine::cores`]), else the operating
/// system's (`std::thread::available_parallelism`, 1 where it cannot say). What the command line's
/// thread counts and `bench`'s machine default to. Cost: a system call or two.
///
/// # Examples
///
/// ```
/// # use fibtree_core as fibtree;
/// assert!(fibtree::cores() >= 1);
/// ```
pub fn cores() -> usize {
    settings().cores.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}
