//! The verification ladder: each engine checked against the simpler one before it. [`run`] runs
//! every rung, as `fibtree self-test` does; the tests call the rungs too, with wider ranges.
//!
//! A rung returns `Ok(verdict)` when it could run: the verdict is `Ok(what was compared)` or
//! `Err(the first disagreement)`.

use std::time::Instant;

use fibtree::{
    Counting, Cut, Engine, Error, Hooks, Limit, Options, Param, Result, count, count_mod, count_parity, exact, grundy,
    support,
};
use fibtree_oracles::{MAX_FIRST_PRINCIPLES_K, explicit_tree_counts, first_principles_counts};
use fibtree_util::SplitMix64;
use num_bigint::BigUint;

/// The address space the ladder needs beyond what the process maps before it: under `ulimit -v` it
/// completes from 98 MiB, 17 MiB of it mapped at its start (its rungs' pools of up to 4 threads
/// and the allocator's heap grow what is mapped as they go, to 46 MB of `VmPeak` unlimited).
const LADDER_BYTES: u64 = 80 << 20;

/// What a rung found: `Ok(what was compared)` or `Err(the first disagreement)`.
pub(crate) type Verdict = std::result::Result<String, String>;

/// The first rung: the first-principles oracle (mex over all moves) against the explicit tree
/// (colon principle), every g of T(k) for k <= `max_k` (at most 7).
///
/// Cost: both oracles on every tree up to T(max_k), dominated by the first principles at `max_k`
/// (94,505 positions memoised at 7, about 30 MB).
///
/// # Errors
/// [`fibtree::Error::InvalidArgument`] for `max_k` above 7.
pub(crate) fn oracles_agree(max_k: u32) -> Result<Verdict> {
    let too_large = |e: fibtree_oracles::TooLarge| Error::invalid(Param::N, e.to_string());
    for k in 0..=max_k {
        if first_principles_counts(k).map_err(too_large)? != explicit_tree_counts(k).map_err(too_large)? {
            return Ok(Err(format!("they differ at k = {k}")));
        }
    }
    Ok(Ok(format!("every g of {} trees", max_k + 1)))
}

/// The second rung: the explicit tree against the whole distribution by the blocked exact engine,
/// every g of T(k) for k <= `max_k` (at most 30).
///
/// Cost: dominated by the explicit trees, O(|T(k)| · k) steps for each k <= `max_k`:
/// O(|T(max_k)| · max_k) in all, since |T(k)| = F(k+2) - 1 grows by about 1.618 a level.
///
/// # Errors
/// [`fibtree::Error::InvalidArgument`] for `max_k` above 30; [`fibtree::Error::Interrupted`] when
/// cancelled.
pub(crate) fn explicit_tree_agrees_with_engine(max_k: u32, hooks: Hooks) -> Result<Verdict> {
    for k in 0..=max_k {
        let oracle = explicit_tree_counts(k).map_err(|e| Error::invalid(Param::N, e.to_string()))?;
        let want: Vec<(u64, BigUint)> =
            oracle.iter().enumerate().filter(|e| *e.1 > 0).map(|(g, &c)| (g as u64, BigUint::from(c))).collect();
        if fibtree::dist::distribution(
            k as u64,
            &Options { hooks, memory_limit: Some(u64::MAX.into()), ..Options::default() },
        )? != want
        {
            return Ok(Err(format!("they differ at k = {k}")));
        }
    }
    Ok(Ok(format!("every g of {} trees", max_k + 1)))
}

/// The third rung: the exact engine against the modular engine for `cases` random (n, g, m) drawn
/// from `seed`: n below `max_n`; g 0, small, in the support of c(n, .) or far above every Grundy
/// value (from 2^40 to 2^64 - 1) in turn; m small, 998244353, 10^18, 2^61 - 1 or any below 2^63.
/// The verdict says how many of the counts were not zero.
///
/// Cost: `cases` exact counts of n below `max_n`, each O(plan states x limbs(n)) limb additions
/// (limbs(n) ~ 0.694 n / 64), as many modular ones, and a support's forward pass for a quarter of
/// the cases.
///
/// # Errors
/// [`fibtree::Error::Interrupted`] when cancelled.
pub(crate) fn exact_agrees_with_modular(seed: u64, cases: usize, max_n: u64, hooks: Hooks) -> Result<Verdict> {
    let mut rng = SplitMix64(seed);
    let fixed = [fibtree::P998244353, fibtree::LAST18, (1 << 61) - 1, (1 << 63) - 1];
    let mut nonzero = 0;
    for case in 0..cases {
        hooks.check()?;
        let n = rng.below(max_n);
        let g = match case % 4 {
            0 => 0,
            1 => rng.below(64),
            2 => {
                let support: Vec<u64> = support(n)?;
                if support.is_empty() { 0 } else { support[rng.below(support.len() as u64) as usize] }
            }
            _ => [1 << 40, (1 << 40) + rng.below(1 << 62), u64::MAX][rng.below(3) as usize],
        };
        let m = match rng.below(3) {
            0 => 2 + rng.below(1000),
            1 => fixed[case % fixed.len()],
            _ => 2 + rng.below((1 << 63) - 2),
        };
        let exact = count(n, g)?;
        let modular = count_mod(n, g, m)?;
        if &exact % m != BigUint::from(modular) {
            return Ok(Err(format!("c({n}, {g}) mod {m}: exact gives {}, modular {modular}", &exact % m)));
        }
        nonzero += usize::from(exact != BigUint::ZERO);
    }
    Ok(Ok(format!("{cases} cases from seed {seed:#x}, {nonzero} counts not zero")))
}

/// The fourth rung: each of `targets` counted exactly in pools of each of `threads` threads, which
/// must all give one answer. A number of threads that cannot be started (under a process limit) is
/// left out, and the verdict says so; where none can, the targets are counted in the caller's pool.
///
/// Cost: one exact count per target and thread count.
///
/// # Errors
/// What [`count`] returns (a count too large for memory).
pub(crate) fn thread_counts_agree(targets: &[(u64, u64)], threads: &[usize]) -> Result<Verdict> {
    let mut answers: Vec<Vec<BigUint>> = vec![Vec::new(); targets.len()];
    let mut refused: Vec<String> = Vec::new();
    let mut why = None;
    let count_all = |answers: &mut Vec<Vec<BigUint>>| {
        for (&(n, g), answer) in targets.iter().zip(answers.iter_mut()) {
            answer.push(count(n, g)?);
        }
        Ok::<(), Error>(())
    };
    for &t in threads {
        // one pool at a time: the threads of one are gone before the next starts
        match rayon::ThreadPoolBuilder::new().num_threads(t).build() {
            Ok(pool) => pool.install(|| count_all(&mut answers))?,
            Err(e) => {
                refused.push(t.to_string());
                why.get_or_insert_with(|| crate::os::threads_not_started(t, &e));
            }
        }
    }
    if answers.first().is_some_and(Vec::is_empty) {
        count_all(&mut answers)?;
    }
    if let Some(i) = answers.iter().position(|a| a.windows(2).any(|w| w[0] != w[1])) {
        let (n, g) = targets[i];
        return Ok(Err(format!("c({n}, {g}) differs between thread counts {threads:?}")));
    }
    let shown: Vec<String> = targets.iter().map(|(n, g)| format!("c({n}, {g})")).collect();
    let mut detail = shown.join(", ");
    if let Some(why) = why {
        if refused.len() == threads.len() {
            detail += " counted once, in the caller's pool";
        }
        detail += &format!("; {} threads not compared: {why}", refused.join(", "));
    }
    Ok(Ok(detail))
}

/// The fifth rung: the reference exact engine against the blocked one, on f(10000), two other
/// counts, the whole distribution of T(400) and f(0..=600) in one run.
///
/// Cost: both exact engines over five sets of targets, each planned for each engine, each
/// O(plan states x limbs(n)) limb additions;
/// f(10000)'s is the largest, 10.4 million states (those of count above zero) and 620,736,444 limb
/// additions bottom-up.
///
/// # Errors
/// [`fibtree::Error::Interrupted`] when cancelled.
pub(crate) fn engines_agree(hooks: Hooks) -> Result<Verdict> {
    let whole: Vec<(u64, u64)> = support(400)?.into_iter().map(|g| (400, g)).collect();
    let many: Vec<(u64, u64)> = (0..=600).map(|k| (k, 0)).collect();
    let cases = [vec![(10_000u64, 0u64)], vec![(2000, 3)], vec![(777, 12)], whole, many];
    for targets in &cases {
        let by = |engine| {
            exact(targets, &Options { engine, hooks, memory_limit: Some(u64::MAX.into()), ..Options::default() })
        };
        if by(Engine::Reference)? != by(Engine::Blocked)? {
            return Ok(Err(format!("they differ on {} targets up to {:?}", targets.len(), targets.last())));
        }
    }
    Ok(Ok("c(10000, 0), two more, dist(400), f(0..=600)".into()))
}

/// The sixth rung: counting from both ends (the core's `both_ends`) against the bottom-up
/// reference engine, at every cut from 1 (top-down alone) to n (bottom-up alone), in whole values
/// and (from cut 2) in the blocked engine's halves, for `cases` random (n, g) drawn from `seed`:
/// n below `max_n`, g below 64.
///
/// Cost: for each case 2n counts of n (the bottom-up one and two a cut), each its plan's backward
/// pass and O(plan states x limbs(n)) limb additions.
///
/// # Errors
/// [`fibtree::Error::Interrupted`] when cancelled.
pub(crate) fn both_ends_agree(seed: u64, cases: usize, max_n: u64, hooks: Hooks) -> Result<Verdict> {
    let mut rng = SplitMix64(seed);
    for _ in 0..cases {
        let (n, g) = (2 + rng.below(max_n.max(3) - 2), rng.below(64));
        let target = [(n, g)];
        let by = |engine: Engine, cut: Cut| {
            let options = Options { engine, cut, hooks, memory_limit: Some(u64::MAX.into()), ..Options::default() };
            Ok::<_, Error>(exact(&target, &options)?.remove(0))
        };
        let want = by(Engine::Reference, Cut::Auto)?;
        for cut in 1..=n {
            // the reference form in whole values, from 1 (top-down alone) to n (bottom-up alone)
            if by(Engine::Reference, Cut::At(cut))? != want {
                return Ok(Err(format!("c({n}, {g}) cut at {cut}: the join differs from the bottom-up count")));
            }
            // the blocked engine's halves, in its lanes and kernels, at every cut from 2
            if cut >= 2 && (n >= 3 || cut == n) && by(Engine::Blocked, Cut::At(cut))? != want {
                return Ok(Err(format!("c({n}, {g}) cut at {cut}: the blocked engine's halves differ")));
            }
        }
    }
    Ok(Ok(format!("{cases} cases from seed {seed:#x}, every cut, whole values and the blocked engine's halves")))
}

/// The seventh rung: the parity of the engines' counts against the closed form, c(n, g) mod 2 =
/// [g < G(n)] (docs/math.md, "The parity of a count"), which needs no engine. For `cases` n below
/// `max_n` drawn from `seed`: every g of the whole distribution of T(n), by the exact engine and by
/// the modular engine mod 2, and every g from the support's top to 64 past it and past G(n) (counts
/// 0); then 4 `cases` (n, g), n below 10 `max_n`, g at G(n) - 1, G(n), G(n) + 1 and below 2 G(n) + 2
/// in turn (where the parity changes), by one counting run of each engine. The verdict says how many
/// (n, g) were compared and how many counts were odd.
///
/// Cost: `cases` distributions of n below `max_n` by both engines (about 12 times the work of
/// c(n, 0) each), and one exact and one modular run over 4 `cases` targets of n below 10 `max_n`.
///
/// # Errors
/// [`fibtree::Error::Interrupted`] when cancelled; what the engines return for memory.
pub(crate) fn parity_agrees_with_closed_form(seed: u64, cases: usize, max_n: u64, hooks: Hooks) -> Result<Verdict> {
    let mut rng = SplitMix64(seed);
    let options = Options { hooks, memory_limit: Some(u64::MAX.into()), ..Options::default() };
    let (mut compared, mut odd) = (0usize, 0usize);
    // the exact engine's parity `e` and the modular engine's `m` of c(n, g) against the closed form's
    let disagreement = |(n, g): (u64, u64), e: u8, m: u8| {
        let want = count_parity(n, g);
        ((e, m) != (want, want))
            .then(|| format!("c({n}, {g}) mod 2: exact gives {e}, modular {m}, the closed form {want}"))
    };
    for _ in 0..cases {
        let n = rng.below(max_n);
        let exact = fibtree::dist::distribution(n, &options)?;
        let modular = fibtree::dist::distribution_mod(n, 2, &options)?;
        let top = exact.last().map_or(0, |e| e.0).max(grundy(n).unwrap_or(0)) + 64;
        let (mut exact, mut modular) = (exact.iter().peekable(), modular.iter().peekable());
        for g in 0..=top {
            let e = exact.next_if(|e| e.0 == g).map_or(0, |e| u8::from(e.1.bit(0)));
            let m = modular.next_if(|m| m.0 == g).map_or(0, |m| m.1 as u8);
            if let Some(disagreement) = disagreement((n, g), e, m) {
                return Ok(Err(disagreement));
            }
            (compared, odd) = (compared + 1, odd + usize::from(e));
        }
    }
    let targets: Vec<(u64, u64)> = (0..4 * cases)
        .map(|case| {
            let n = rng.below(10 * max_n);
            let value = grundy(n).unwrap_or(0);
            let g = match case % 4 {
                0 => value.saturating_sub(1),
                1 => value,
                2 => value + 1,
                _ => rng.below(2 * value + 2),
            };
            (n, g)
        })
        .collect();
    let residues = fibtree::mod_only(&targets, &Options { moduli: vec![2], ..options.clone() })?;
    let reports = Counting::new(&targets, &options)?.reports()?;
    for ((&(n, g), report), residues) in targets.iter().zip(&reports).zip(&residues) {
        let (e, m) = (u8::from(report.value.bit(0)), residues.residues[2].1 as u8);
        if let Some(disagreement) = disagreement((n, g), e, m) {
            return Ok(Err(disagreement));
        }
        (compared, odd) = (compared + 1, odd + usize::from(e));
    }
    let (near, above) = (4 * cases, 10 * max_n);
    Ok(Ok(format!(
        "{compared} (n, g) from seed {seed:#x}: every g of {cases} trees below {max_n}, {near} near G(n) below \
         {above}; {odd} odd"
    )))
}

/// One rung of the ladder as [`run`] reports it: what was checked, whether it held, what was seen,
/// and how long it took.
#[derive(Clone, Debug)]
pub(crate) struct Rung {
    /// What the rung checks.
    pub(crate) name: &'static str,
    /// Whether it held.
    pub(crate) ok: bool,
    /// What was compared, or the first disagreement.
    pub(crate) detail: String,
    /// Seconds taken.
    pub(crate) seconds: f64,
}

/// Runs every rung in order, handing each to `report` as it finishes; returns whether all held.
///
/// The rungs: first principles against the explicit tree (k <= 7, every g); the explicit tree
/// against the exact DP (k <= 22, every g); exact against modular for 100 random (n, g, m) drawn
/// from `seed`; the same count with 1, 2 and 4 threads; the reference engine against the blocked
/// one; counting from both ends against bottom-up at every cut, for 8 random (n, g) from `seed`; the
/// parity of counts by both engines against the closed form of G, for 8 trees and 32 (n, g) from
/// `seed`.
///
/// Cost: the seven rungs': both oracles up to k = 7, the explicit tree and a distribution up to
/// k = 22, 100 exact and 100 modular counts of n below 4000, c(6000, 5) on 1, 2 and 4 threads, and
/// both exact engines over f(10000)'s plan and four smaller ones, n + 1 counts each of 8 n
/// below 300, and 8 distributions of n below 400 and 32 counts of n below 4000 by both engines.
///
/// # Errors
/// [`fibtree::Error::OutOfMemory`] before any rung where the machine leaves less than the ladder's
/// peak; otherwise only what the engines return for their own reasons (memory, interruption
/// through `hooks`).
///
pub(crate) fn run(seed: u64, hooks: Hooks, mut report: impl FnMut(&Rung)) -> Result<bool> {
    // refused whole, before any rung, where the machine's limits leave less than the ladder's peak,
    // rather than aborted in a rung by a failed allocation
    let limit = Limit::new(None, 4);
    if LADDER_BYTES > limit.bytes() {
        return Err(Error::OutOfMemory { param: Param::N, estimate: LADDER_BYTES, limit });
    }
    let mut all = true;
    let mut rung = |name: &'static str, check: &mut dyn FnMut() -> Result<Verdict>| {
        let start = Instant::now();
        let (ok, detail) = match check()? {
            Ok(d) => (true, d),
            Err(d) => (false, d),
        };
        all &= ok;
        report(&Rung { name, ok, detail, seconds: start.elapsed().as_secs_f64() });
        Ok::<(), Error>(())
    };
    rung("first principles = explicit tree, k <= 7", &mut || oracles_agree(MAX_FIRST_PRINCIPLES_K))?;
    rung("explicit tree = exact DP, k <= 22", &mut || explicit_tree_agrees_with_engine(22, hooks))?;
    rung("exact = modular, random (n, g, m)", &mut || exact_agrees_with_modular(seed, 100, 4000, hooks))?;
    rung("1, 2 and 4 threads give one answer", &mut || thread_counts_agree(&[(6000, 5)], &[1, 2, 4]))?;
    rung("reference engine = blocked engine", &mut || engines_agree(hooks))?;
    rung("bottom-up = both ends, every cut", &mut || both_ends_agree(seed, 8, 300, hooks))?;
    rung("parity = closed form, g < G(n)", &mut || parity_agrees_with_closed_form(seed, 8, 400, hooks))?;
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_rung_up_to_7_and_no_further() {
        assert_eq!(oracles_agree(7).unwrap(), Ok("every g of 8 trees".into()));
        assert!(matches!(oracles_agree(8), Err(Error::InvalidArgument { .. })), "first principles stop at 7");
    }

    #[test]
    fn second_rung_wider_than_self_test_runs_it() {
        // every distribution up to 25
        assert_eq!(explicit_tree_agrees_with_engine(25, Hooks::default()).unwrap(), Ok("every g of 26 trees".into()));
    }

    #[test]
    fn third_rung_on_its_own_seed() {
        let seed = 0x00C0_FFEE_F1B7_4EE5u64;
        println!("seed = {seed:#x}");
        let verdict = exact_agrees_with_modular(seed, 40, 3001, Hooks::default()).unwrap();
        let detail = verdict.unwrap_or_else(|disagreement| panic!("seed {seed:#x}: {disagreement}"));
        // enough of the cases must count something for the agreement to mean anything
        let nonzero: usize = detail.split(", ").nth(1).and_then(|s| s.split(' ').next()).unwrap().parse().unwrap();
        assert!(nonzero >= 12, "too few non-zero cases: {detail}");
    }

    #[test]
    fn sixth_rung_wider_than_self_test_runs_it() {
        let seed = 0x0b07_4e4d_5eedu64;
        println!("seed = {seed:#x}");
        let verdict = both_ends_agree(seed, 16, 400, Hooks::default()).unwrap();
        assert_eq!(
            verdict,
            Ok(format!("16 cases from seed {seed:#x}, every cut, whole values and the blocked engine's halves"))
        );
    }

    #[test]
    fn seventh_rung_wider_than_self_test_runs_it() {
        let seed = 0x00dd_0e7e_5eed_u64;
        println!("seed = {seed:#x}");
        let verdict = parity_agrees_with_closed_form(seed, 24, 500, Hooks::default()).unwrap();
        let detail = verdict.unwrap_or_else(|disagreement| panic!("seed {seed:#x}: {disagreement}"));
        assert!(detail.contains("every g of 24 trees below 500, 96 near G(n) below 5000"), "{detail}");
        // both parities must be seen often for the agreement to mean anything
        let compared: usize = detail.split(' ').next().unwrap().parse().unwrap();
        let odd: usize = detail.rsplit("; ").next().and_then(|s| s.split(' ').next()).unwrap().parse().unwrap();
        assert!(odd >= 1000 && compared - odd >= 1000, "{detail}");
    }

    #[test]
    fn fourth_rung_on_three_cases() {
        let cases = [(3000u64, 0u64), (2500, 7), (1999, 5)];
        assert_eq!(thread_counts_agree(&cases, &[1, 2, 4]).unwrap(), Ok("c(3000, 0), c(2500, 7), c(1999, 5)".into()));
    }
}
