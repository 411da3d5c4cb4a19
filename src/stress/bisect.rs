//! `stress --bisect`: the first n that goes wrong, from few runs. The ends of the n asked and a
//! spread of n between them run first ([`spread`], from a seed), so that a program wrong on a
//! stretch in the middle and right again after it is caught where the spread falls on the
//! stretch; then the bisection, between the largest n found right below the smallest found wrong
//! and that one ([`bisect`]). What it finds is the first n not OK under its assumption: every n
//! not run below it would be right.

use fibtree_util::SplitMix64;

/// How many n the spread runs, the two ends among them.
pub(super) const SPREAD: usize = 10;

/// The indices (into `len` n, ascending) that the spread runs: the first, the last, and one at
/// random (from `seed`) in each of `count - 2` parts of the others, as equal as can be; every index
/// where `len <= count`. Ascending, each once. Cost O(count).
pub(super) fn spread(len: usize, count: usize, seed: u64) -> Vec<usize> {
    if len <= count.max(2) {
        return (0..len).collect();
    }
    let mut random = SplitMix64(seed);
    let (inner, parts) = (len - 2, count.saturating_sub(2));
    let mut out = vec![0];
    for part in 0..parts {
        // the part's indices: 1 + [inner * part / parts, inner * (part + 1) / parts)
        let (from, to) = (inner * part / parts, inner * (part + 1) / parts);
        if to > from {
            out.push(1 + from + random.below((to - from) as u64) as usize);
        }
    }
    out.push(len - 1);
    out
}

/// The index (into `len` n, ascending) of the first n not OK, found from the runs of `first` (the
/// spread, and any run already) and then, between the largest index found OK below the smallest
/// found not OK and that one, rounds of up to `at_once` runs that cut it into equal parts, until
/// they are next to each other. `run(indices)` runs those n and gives whether each is OK (`None`:
/// stopped, or the runs given up). `None`: every n run was OK, or stopped.
///
/// Runs: `first`, then about log(gap) / log(at_once + 1) rounds, gap being the indices between.
pub(super) fn bisect(
    len: usize,
    first: &[usize],
    at_once: usize,
    mut run: impl FnMut(&[usize]) -> Option<Vec<(usize, bool)>>,
) -> Option<usize> {
    let mut known = std::collections::BTreeMap::new();
    let mut batch: Vec<usize> = first.iter().copied().filter(|&i| i < len).collect();
    batch.sort_unstable();
    batch.dedup();
    loop {
        known.extend(run(&batch)?);
        let wrong = known.iter().find(|(_, ok)| !**ok).map(|(&i, _)| i)?;
        let Some((&right, _)) = known.range(..wrong).next_back() else { return Some(wrong) };
        let gap = wrong - right;
        if gap <= 1 {
            return Some(wrong);
        }
        let parts = at_once.max(1).min(gap - 1) + 1;
        batch = (1..parts).map(|k| right + gap * k / parts).collect();
        batch.dedup();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spread_has_the_ends_and_one_n_in_each_part() {
        for seed in [0, 1, 0x5eed, u64::MAX] {
            for len in [1, 2, 3, 10, 11, 40, 1000, 1_000_000] {
                let s = spread(len, SPREAD, seed);
                assert_eq!(s.len(), len.min(SPREAD), "{len} {seed}");
                assert!(s.windows(2).all(|w| w[0] < w[1]), "{s:?}");
                assert_eq!((s[0], *s.last().unwrap()), (0, len - 1));
                if len > SPREAD {
                    // one in each eighth of the indices between the ends
                    for (part, &i) in s[1..SPREAD - 1].iter().enumerate() {
                        let (from, to) = ((len - 2) * part / 8, (len - 2) * (part + 1) / 8);
                        assert!((1 + from..1 + to).contains(&i), "{len} {seed}: {i} in part {part}");
                    }
                }
            }
        }
        // the seed decides it, and repeats it
        assert_eq!(spread(1000, SPREAD, 7), spread(1000, SPREAD, 7));
        assert_ne!(spread(1000, SPREAD, 7), spread(1000, SPREAD, 8));
    }

    /// The first index not OK that [`bisect`] finds where `ok(i)` says which are, and the indices
    /// it ran.
    fn found(len: usize, at_once: usize, seed: u64, ok: impl Fn(usize) -> bool) -> (Option<usize>, Vec<usize>) {
        let mut ran = Vec::new();
        let first = bisect(len, &spread(len, SPREAD, seed), at_once, |batch| {
            ran.extend_from_slice(batch);
            Some(batch.iter().map(|&i| (i, ok(i))).collect())
        });
        (first, ran)
    }

    #[test]
    fn bisection_finds_the_first_wrong_n_in_few_runs() {
        for at_once in [1, 2, 4] {
            for first_wrong in [0, 1, 777, 10001, 19998, 19999, 20000] {
                let (first, ran) = found(20000, at_once, 0x5eed, |i| i < first_wrong);
                assert_eq!(first, (first_wrong < 20000).then_some(first_wrong), "{at_once} {first_wrong}");
                let mut distinct = ran.clone();
                distinct.sort_unstable();
                distinct.dedup();
                assert_eq!(distinct.len(), ran.len(), "no n runs twice");
                assert!(ran.len() <= SPREAD + 13 * at_once, "{at_once} {first_wrong}: {} runs", ran.len());
            }
        }
        // all right: the spread alone
        let (first, ran) = found(20000, 2, 1, |_| true);
        assert_eq!((first, ran.len()), (None, SPREAD));
        assert_eq!(found(1, 1, 1, |_| false).0, Some(0));
        assert_eq!(bisect(20, &[0, 19], 2, |_| None), None);
    }

    #[test]
    fn a_wrong_stretch_in_the_middle_is_found_where_the_spread_falls_on_it() {
        // wrong from 11 to 14 of 40 (n = 12..15 of 1..40), right elsewhere: found from every seed
        // whose spread falls on the stretch, as the first n not OK
        let wrong = |i: usize| (11..=14).contains(&i);
        let mut hits = 0;
        for seed in 0..200 {
            let (first, ran) = found(40, 2, seed, |i| !wrong(i));
            match spread(40, SPREAD, seed).into_iter().any(wrong) {
                true => {
                    assert_eq!(first, Some(11), "seed {seed}: ran {ran:?}");
                    hits += 1;
                }
                false => assert_eq!(first, None, "seed {seed}"),
            }
        }
        // a stretch of 4 of the 38 between the ends, in parts of 4 or 5: caught most of the time
        assert!(hits > 100, "{hits} of 200");
    }
}
