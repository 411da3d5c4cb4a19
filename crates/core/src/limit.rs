//! The memory a run may use and the limit that sets it ([`Limit`], [`Bound`]): what an out-of-memory
//! error names; the machine's limits that set it are the guard's.

use fibtree_util::human_bytes;

/// Which limit bounds a run, with the figure it starts from (bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The limit the caller gave (`--max-memory`).
    Given,
    /// The memory the system has available (`MemAvailable`).
    Available,
    /// The memory the machine is set to have ([`crate::Machine::memory`]), in place of what the
    /// system has available.
    Machine,
    /// The limit of a cgroup of the process (v2 `memory.max`, or v1 `memory.limit_in_bytes`).
    Cgroup {
        /// The cgroup's limit.
        max: u64,
        /// Whether it is a cgroup v2 limit.
        v2: bool,
    },
    /// The address-space limit (RLIMIT_AS, `ulimit -v`), less what the process maps and what its
    /// threads will add.
    AddressSpace {
        /// The soft limit.
        max: u64,
        /// What the process mapped when it was read, and what its threads will add.
        used: u64,
    },
    /// The data-segment limit (RLIMIT_DATA, `ulimit -d`), less the process's data and what its
    /// threads will add.
    Data {
        /// The soft limit.
        max: u64,
        /// The process's data when it was read, and what its threads will add.
        used: u64,
    },
}

/// The memory a run may use, in bytes, and the limit that sets it: what an
/// [`Error::OutOfMemory`](crate::Error::OutOfMemory) names.
///
/// # Examples
///
/// ```
/// # use fibtree_core as fibtree;
/// use fibtree::{Bound, Limit};
/// let limit = Limit::new(Some(1 << 30), 2);
/// assert!(limit.bytes() <= 1 << 30); // never above the machine's own limits
/// let given = Limit::given(1 << 30);
/// assert_eq!((given.bytes(), given.bound()), (1 << 30, Bound::Given));
/// assert_eq!(given.to_string(), "the 1.0 GiB it may use");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    /// The bytes the run may use.
    pub(crate) bytes: u64,
    /// Which limit it is.
    pub(crate) bound: Bound,
}

impl Limit {
    /// A limit of `bytes` the caller gives, as it is. Cost O(1).
    pub fn given(bytes: u64) -> Limit {
        Limit { bytes, bound: Bound::Given }
    }

    /// The bytes the run may use. Cost O(1).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Which limit it is. Cost O(1).
    pub fn bound(&self) -> Bound {
        self.bound
    }
}

impl std::fmt::Display for Limit {
    /// E.g. `the 40.1 MiB it may use under the address-space limit (ulimit -v) of 58.6 MiB (less
    /// 18.5 MiB mapped or for its threads)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the {} it may use", human_bytes(self.bytes))?;
        match self.bound {
            Bound::Given => Ok(()),
            Bound::Available => write!(f, " (the memory available)"),
            Bound::Machine => write!(f, " (the memory the machine is set to have)"),
            Bound::Cgroup { max, v2 } => {
                let file = if v2 { "memory.max" } else { "memory.limit_in_bytes" };
                write!(f, " under its cgroup's limit ({file}) of {}, less what the cgroup uses", human_bytes(max))
            }
            Bound::AddressSpace { max, used } => write!(
                f,
                " under the address-space limit (ulimit -v) of {} (less {} mapped or for its threads)",
                human_bytes(max),
                human_bytes(used)
            ),
            Bound::Data { max, used } => write!(
                f,
                " under the data-segment limit (ulimit -d) of {} (less {} of data or for its threads)",
                human_bytes(max),
                human_bytes(used)
            ),
        }
    }
}

impl From<u64> for Limit {
    /// A limit of `bytes` the caller gives ([`Limit::given`]).
    fn from(bytes: u64) -> Limit {
        Limit::given(bytes)
    }
}
