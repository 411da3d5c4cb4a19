//! What steers a counting run ([`Options`]) and the two moduli every run projects onto ([`LAST18`],
//! [`P998244353`]).

use fibtree_core::{Cut, Engine, Hooks, Limit, Request, TileRule};

use crate::checkpoint::Checkpoint;
use crate::error::{Error, Param, Result};

/// 10^18: the modulus of the "last 18 digits" projection.
///
/// # Examples
///
/// ```
/// let report = fibtree::Counting::new(&[(300, 0)], &fibtree::Options::default())?.reports()?.remove(0);
/// assert_eq!(report.projection(fibtree::LAST18).unwrap().residue, 799_101_863_880_973_663);
/// # Ok::<(), fibtree::Error>(())
/// ```
pub const LAST18: u64 = 1_000_000_000_000_000_000;
/// The prime modulus the contest problem asks for (the engines' constant).
///
/// # Examples
///
/// ```
/// assert_eq!(fibtree::count_mod(300, 0, fibtree::P998244353)?, 110_881_951);
/// # Ok::<(), fibtree::Error>(())
/// ```
pub use fibtree_core::P998244353;

/// How a counting run goes beyond the two default projections.
///
/// # Examples
///
/// ```
/// let options = fibtree::Options { moduli: vec![7], memory_limit: Some((1 << 30).into()), ..Default::default() };
/// assert_eq!(options.limit().bytes(), 1 << 30);
/// let report = fibtree::Counting::new(&[(10, 0)], &options)?.reports()?.remove(0);
/// assert_eq!(report.projection(7).unwrap().residue, 17 % 7);
/// # Ok::<(), fibtree::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Options<'a> {
    /// Further moduli to project onto and check (each 2 <= m < 2^63).
    pub moduli: Vec<u64>,
    /// The memory the run may use (a number of bytes converts into one: `Some((1 << 30).into())`);
    /// `None` for what the machine lets the run use ([`Limit::new`]).
    pub memory_limit: Option<Limit>,
    /// The cancel flag and the callbacks the engines obey and tell.
    pub hooks: Hooks<'a>,
    /// The exact engine.
    pub engine: Engine,
    /// Where the blocked engine cuts the count of one target between its halves ([`Cut::Auto`]:
    /// where the work is least). A run resumed from a checkpoint goes on at the checkpoint's cut.
    pub cut: Cut,
    /// Compute every exact value a second time with the other exact engine, over a plan made afresh
    /// (see [`crate::Report::double_check`]).
    pub double_check: bool,
    /// Save the run's state to a file every so often and when it is stopped, and resume from it
    /// (one target, the blocked engine).
    pub checkpoint: Option<Checkpoint>,
    /// The lanes of every chunk of the blocked engine (one of [`CHUNK_LANES`]), in place of the
    /// engine's choice from the cache size and the threads (`None`). The values are the same.
    pub chunk_lanes: Option<usize>,
    /// When the blocked engine runs its blocks in tiles, in place of its choice from its own
    /// timings (`None`, as [`TileRule::Measured`]). The values are the same.
    pub tiles: Option<TileRule>,
}

/// The lanes a chunk of the blocked engine may hold ([`Options::chunk_lanes`]).
///
/// # Examples
///
/// ```
/// let options = fibtree::Options { chunk_lanes: Some(fibtree::CHUNK_LANES[3]), ..Default::default() };
/// assert_eq!(fibtree::exact(&[(300, 0)], &options)?[0], fibtree::count(300, 0)?);
/// # Ok::<(), fibtree::Error>(())
/// ```
pub const CHUNK_LANES: [usize; 7] = [1, 2, 4, 8, 16, 32, 64];

impl Options<'_> {
    /// The memory the run may use: [`Options::memory_limit`], or what the machine lets a run in the
    /// current rayon pool use ([`Limit::new`]; the reads of a few small files of `/proc` and `/sys`).
    pub fn limit(&self) -> Limit {
        self.memory_limit.unwrap_or_else(|| Limit::new(None, rayon::current_num_threads()))
    }

    /// Refuses lanes a chunk outside [`CHUNK_LANES`]. Cost O(1).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming [`Param::Lanes`].
    pub(crate) fn check_lanes(&self) -> Result<()> {
        match self.chunk_lanes {
            Some(lanes) if !CHUNK_LANES.contains(&lanes) => {
                let why = format!("expected 1, 2, 4, 8, 16, 32 or 64 lanes, got {lanes}");
                Err(Error::invalid(Param::Lanes, why))
            }
            _ => Ok(()),
        }
    }

    /// `request` with the lanes a chunk and the tiles these options force. Cost O(1).
    pub(crate) fn steer<'r>(&self, request: Request<'r>) -> Request<'r> {
        let request = match self.chunk_lanes {
            Some(lanes) => request.chunk_lanes(lanes),
            None => request,
        };
        match self.tiles {
            Some(rule) => request.tiles(rule),
            None => request,
        }
    }
}
