//! Splitting the primes of a count into shards that run anywhere, and putting the shards' residues
//! back together.

use std::collections::BTreeMap;

use num_bigint::BigUint;

use fibtree_core::{Hooks, garner, primes_for};

use crate::error::{Error, Param, Result};

/// The most shards a count may be cut into: a million (f(1,000,000) has 11,384 primes, so more
/// shards would be empty), so that a shard number read from a file cannot ask for a list of
/// billions.
const MAX_SHARDS: usize = ShardResidues::MAX_SHARDS;

/// The primes of shard `index` (1-based) of `count` for c(n, g): every `count`-th prime of those a
/// count of T(n) needs ([`fibtree_core::primes_for`]), starting at prime `index - 1`, so that shards
/// of one count have equal shares (within one prime) and together hold every prime once. A shard
/// beyond the number of primes holds none.
///
/// Cost: that of [`fibtree_core::primes_for`].
///
/// # Errors
/// [`Error::InvalidArgument`] naming [`Param::Shard`] unless 1 <= index <= count <=
/// [`ShardResidues::MAX_SHARDS`]; naming [`Param::N`] for n above [`crate::MAX_N`].
///
/// # Examples
///
/// ```
/// let (one, two) = (fibtree::crt::shard_primes(300, 1, 2)?, fibtree::crt::shard_primes(300, 2, 2)?);
/// assert_eq!((one.len(), two.len()), (3, 3)); // the 6 primes of f(300), 3 a shard
/// # Ok::<(), fibtree::Error>(())
/// ```
pub fn shard_primes(n: u64, index: usize, count: usize) -> Result<Vec<u64>> {
    if !(1..=count).contains(&index) || count > MAX_SHARDS {
        let expected = format!("a shard I/S with 1 <= I <= S <= {MAX_SHARDS}, got {index}/{count}");
        return Err(Error::invalid(Param::Shard, expected));
    }
    Ok(share(&primes_for(n, Hooks::default())?, index, count))
}

/// Shard `index` (1-based) of `count`'s share of `all`: every `count`-th, from the `index`-th.
/// Cost O(all / count).
fn share(all: &[u64], index: usize, count: usize) -> Vec<u64> {
    all.iter().copied().skip(index - 1).step_by(count).collect()
}

/// The residues of one shard: `residues[i]` is the count modulo `primes[i]`.
///
/// # Examples
///
/// ```
/// use fibtree::crt::{ShardResidues, combine_shards, residues, shard_primes};
/// let options = fibtree::Options::default();
/// let shards: Vec<ShardResidues> = (1..=2)
///     .map(|index| {
///         let primes = shard_primes(300, index, 2)?;
///         let residues = residues(300, 0, &primes, &options)?;
///         Ok(ShardResidues { index, primes, residues })
///     })
///     .collect::<fibtree::Result<_>>()?;
/// assert_eq!(combine_shards(300, 2, &shards, fibtree::Hooks::default())?, fibtree::count(300, 0)?);
/// assert_eq!(ShardResidues::combine_bytes(1000), 96_000);
/// # Ok::<(), fibtree::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardResidues {
    /// The shard's number, 1-based.
    pub index: usize,
    /// The primes, in the shard's order.
    pub primes: Vec<u64>,
    /// The count modulo each prime.
    pub residues: Vec<u64>,
}

impl ShardResidues {
    /// The most shards a count may be cut into: a million (f(1,000,000) has 11,384 primes, so more
    /// shards would be empty), so that a shard number read from a file cannot ask for a list of
    /// billions.
    pub const MAX_SHARDS: usize = 1_000_000;

    /// The bytes a reconstruction by [`combine_shards`] from `primes` primes in all may take,
    /// besides the shards themselves: the sequence of primes (while the shards' shares are checked),
    /// then the primes and residues gathered (16 bytes a prime), Garner's mixed-radix digits (8) and
    /// the value with its next step (16); and the decimal digits of the value a caller prints (about
    /// 19 bytes a prime, twice while they are made). An estimate with room to spare: 96 bytes a
    /// prime. Cost O(1).
    pub fn combine_bytes(primes: usize) -> u64 {
        (primes as u64).saturating_mul(96)
    }
}

/// c(n, g) from the residues of all `count` shards ([`shard_primes`]): every shard must be there
/// with exactly its primes; a shard given twice must say the same. The value is then reconstructed
/// (Garner's algorithm); checking it (below |T(n)|, its projections) is the caller's. Stopped by
/// `hooks`: asked once a prime while the sequence of primes is made, and once a digit of Garner's
/// algorithm. Memory as [`ShardResidues::combine_bytes`] says.
///
/// Cost: O(k^2) word operations for the k primes of a count of T(n), and making them.
///
/// # Errors
/// [`Error::InvalidArgument`] naming [`Param::N`] for an n above [`crate::MAX_N`], or naming
/// [`Param::Shard`] for more than [`ShardResidues::MAX_SHARDS`] shards, a shard number outside
/// 1..=count, a shard missing (the first missing ones named, and how many), a shard whose primes are
/// not its share, or two different sets of residues for one shard; [`Error::Interrupted`] once
/// `hooks` cancel the run.
pub fn combine_shards(n: u64, count: usize, shards: &[ShardResidues], hooks: Hooks) -> Result<BigUint> {
    if n > fibtree_core::MAX_N {
        return Err(Error::invalid(Param::N, format!("at most {}, got {n}", fibtree_core::MAX_N)));
    }
    if count > MAX_SHARDS {
        return Err(Error::invalid(Param::Shard, format!("at most {MAX_SHARDS} shards, got {count}")));
    }
    let mut by_index: BTreeMap<usize, &ShardResidues> = BTreeMap::new();
    for shard in shards {
        if !(1..=count).contains(&shard.index) {
            return Err(Error::invalid(Param::Shard, format!("shards 1 to {count}, got shard {}", shard.index)));
        }
        if shard.primes.len() != shard.residues.len() {
            return Err(Error::invalid(Param::Shard, format!("one residue per prime in shard {}", shard.index)));
        }
        if let Some(seen) = by_index.insert(shard.index, shard)
            && seen != shard
        {
            let what = format!("one answer for shard {}/{count}, got two that differ", shard.index);
            return Err(Error::invalid(Param::Shard, what));
        }
    }
    let missing = count - by_index.len();
    if missing > 0 {
        const NAMED: usize = 20;
        let first: Vec<String> =
            (1..=count).filter(|i| !by_index.contains_key(i)).take(NAMED).map(|i| i.to_string()).collect();
        let what = match missing {
            1 => format!("shard {} of {count} is missing", first[0]),
            _ if missing > NAMED => {
                format!("shards {}, ... ({missing} in all) of {count} are missing", first.join(", "))
            }
            _ => format!("shards {} of {count} are missing", first.join(", ")),
        };
        return Err(Error::invalid(Param::Shard, what));
    }
    let all = primes_for(n, hooks)?;
    for (&index, shard) in &by_index {
        let mut share = all.iter().skip(index - 1).step_by(count);
        if shard.primes.len() != share.len() || !shard.primes.iter().all(|p| share.next() == Some(p)) {
            let what = format!(
                "shard {index}/{count} of a count of T({n}) holds primes that are not its share: those of another \
                 shard or count"
            );
            return Err(Error::invalid(Param::Shard, what));
        }
    }
    let total = all.len();
    drop(all);
    let (mut ps, mut rs) = (Vec::with_capacity(total), Vec::with_capacity(total));
    for shard in by_index.values() {
        ps.extend_from_slice(&shard.primes);
        rs.extend_from_slice(&shard.residues);
    }
    Ok(garner(&ps, &rs, hooks)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crt::residues;
    use crate::options::Options;

    fn primes(n: u64) -> Vec<u64> {
        primes_for(n, Hooks::default()).unwrap()
    }

    fn shard(n: u64, g: u64, index: usize, count: usize) -> ShardResidues {
        let primes = shard_primes(n, index, count).unwrap();
        let residues =
            residues(n, g, &primes, &Options { memory_limit: Some(u64::MAX.into()), ..Options::default() }).unwrap();
        ShardResidues { index, primes, residues }
    }

    #[test]
    fn shards_split_the_primes_and_combine_to_the_count() {
        let (n, g) = (2000u64, 3u64);
        let want = crate::count(n, g).unwrap();
        for count in [1usize, 3, 7, 40] {
            let shards: Vec<ShardResidues> = (1..=count).map(|i| shard(n, g, i, count)).collect();
            let mut all: Vec<u64> = shards.iter().flat_map(|s| s.primes.clone()).collect();
            all.sort_unstable_by(|a, b| b.cmp(a));
            assert_eq!(all, primes(n), "{count} shards hold every prime once");
            assert_eq!(combine_shards(n, count, &shards, Hooks::default()).unwrap(), want, "{count} shards");
            // in any order, with a shard repeated
            let mut shuffled: Vec<ShardResidues> = shards.iter().rev().cloned().collect();
            shuffled.push(shards[0].clone());
            assert_eq!(
                combine_shards(n, count, &shuffled, Hooks::default()).unwrap(),
                want,
                "{count} shards, shuffled"
            );
        }
    }

    #[test]
    fn hostile_shard_numbers_and_trees_are_refused_before_any_work() {
        let one = shard(300, 0, 1, 1);
        let refused = |got: Result<BigUint>, param: Param| {
            assert!(matches!(&got, Err(Error::InvalidArgument { param: p, .. }) if *p == param), "{got:?}");
            got.unwrap_err().to_string()
        };
        // n past the engines (a file's n with its checksum recomputed): no primes are made
        refused(combine_shards(u64::MAX, 1, std::slice::from_ref(&one), Hooks::default()), Param::N);
        refused(combine_shards(1 << 40, 1, std::slice::from_ref(&one), Hooks::default()), Param::N);
        // a count of shards past the bound: no list of them is made
        refused(combine_shards(300, 100_000_000_000, std::slice::from_ref(&one), Hooks::default()), Param::Shard);
        assert!(shard_primes(300, 1, MAX_SHARDS + 1).is_err());
        // a million shards with one there: the message names the first missing and how many
        let far = ShardResidues { index: 1, primes: Vec::new(), residues: Vec::new() };
        let line = refused(combine_shards(300, MAX_SHARDS, &[far], Hooks::default()), Param::Shard);
        assert!(line.contains("shards 2, 3, 4") && line.contains("(999999 in all) of 1000000 are missing"), "{line}");
        assert!(line.len() < 300, "{line}");
    }

    #[test]
    fn bad_sets_of_shards_are_refused_naming_the_shard() {
        let n = 1000;
        let shards: Vec<ShardResidues> = (1..=4).map(|i| shard(n, 0, i, 4)).collect();
        let refusal = |shards: &[ShardResidues], count: usize| match combine_shards(n, count, shards, Hooks::default())
        {
            Err(Error::InvalidArgument { param: Param::Shard, expected }) => expected,
            other => panic!("expected a refusal, got {other:?}"),
        };
        assert_eq!(refusal(&shards[..2], 4), "shards 3, 4 of 4 are missing");
        assert_eq!(refusal(&shards[..3], 4), "shard 4 of 4 is missing");
        let mut conflicting = shards.clone();
        let mut changed = shards[1].clone();
        changed.residues[0] = (changed.residues[0] + 1) % changed.primes[0];
        conflicting.push(changed);
        assert!(refusal(&conflicting, 4).contains("shard 2/4"));
        assert!(refusal(&shards, 3).contains("shards 1 to 3, got shard 4"));
        let foreign: Vec<ShardResidues> = (1..=4).map(|i| shard(n + 5000, 0, i, 4)).collect();
        let share =
            "shard 1/4 of a count of T(1000) holds primes that are not its share: those of another shard or count";
        assert_eq!(refusal(&foreign, 4), share);
        // a shard that says it is another shard of the count, or the only one
        let (mut renumbered, mut alone) = (shards.clone(), shards[1].clone());
        renumbered.swap(1, 2);
        (renumbered[1].index, renumbered[2].index) = (2, 3);
        assert!(refusal(&renumbered, 4).starts_with("shard 2/4 of a count of T(1000) holds primes that are not"));
        alone.index = 1;
        assert!(refusal(&[alone], 1).starts_with("shard 1/1 of a count of T(1000) holds primes that are not"));
        assert!(shard_primes(n, 0, 4).is_err() && shard_primes(n, 5, 4).is_err());
        assert!(shard_primes(n, 200, 200).unwrap().is_empty(), "a shard past the primes holds none");
    }
}
