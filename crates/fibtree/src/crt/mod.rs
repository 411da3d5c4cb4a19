//! A count's residues modulo many primes ([`residues`], by the modular engine), cut into shards that
//! run anywhere ([`shard_primes`]) and put back together into the exact value ([`combine_shards`]),
//! which is then checked by computations that no file can know ([`check`]).
//! The primes, how many of them determine a count, and the Chinese remainder theorem that turns
//! residues back into the value are the engines' ([`primes_for`], [`garner`], re-exported here); a
//! count by this route in one process is [`crate::Engine::Crt`].
//!
//! Residues modulo distinct primes are independent computations, so they can run on any number of
//! machines with no communication, and they share no big-integer arithmetic with the exact engines.
//!
//! ```
//! use fibtree::Hooks;
//! use fibtree::crt::{garner, primes_for};
//! // 6 primes: f(300) has 202 bits, and 128 bits of room are added to a bound on them
//! let primes = primes_for(300, Hooks::default())?;
//! let residues = fibtree::crt::residues(300, 0, &primes, &fibtree::Options::default())?;
//! assert_eq!(garner(&primes, &residues, Hooks::default())?, fibtree::count(300, 0)?);
//! # Ok::<(), fibtree::Error>(())
//! ```

mod checked;
mod residues;
mod shards;

pub use checked::check;
pub use fibtree_core::{check_below_tree, garner, primes_for};
pub use residues::residues;
pub use shards::{ShardResidues, combine_shards, shard_primes};
