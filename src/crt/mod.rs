//! Exact values from residues: the fixed sequence of primes the residues are taken modulo
//! ([`primes`]), how many of them determine a count c(n, g) with room to catch a wrong residue
//! ([`primes_needed`]), the residues themselves ([`residues`], by the modular engine), and the
//! Chinese remainder theorem that turns them back into the value ([`garner`], checked below |T(n)|
//! by [`check_below_tree`]). A count by this route in one process is [`crate::Engine::Crt`].
//!
//! Residues modulo distinct primes are independent computations, so they can run on any number of
//! machines with no communication, and they share no big-integer arithmetic with the exact engines.
//!
//! ```
//! use fibtree::crt;
//! // 6 primes: f(300) has 202 bits, and 128 bits of room are added to a bound on them
//! let primes = crt::primes(crt::primes_needed(300));
//! assert!(primes.windows(2).all(|w| w[0] > w[1]) && primes[0] < 1 << 62);
//! let value = fibtree::count(300, 0)?;
//! let residues: Vec<u64> = primes.iter().map(|&p| fibtree::count_mod(300, 0, p)).collect::<Result<_, _>>()?;
//! assert_eq!(crt::garner(&primes, &residues)?, value);
//! # Ok::<(), fibtree::Error>(())
//! ```

pub(crate) mod garner;
pub(crate) mod primes;
mod residues;
pub(crate) mod shards;

pub use garner::{check_below_tree, garner};
pub use primes::{PRIME_BITS, REDUNDANCY_BITS, primes, primes_needed};
pub use residues::residues;
pub use shards::{MAX_SHARDS, ShardResidues, combine_bytes, combine_shards, combine_shards_with, shard_primes};
