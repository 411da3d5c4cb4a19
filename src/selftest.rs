//! The verification ladder: each engine checked against the simpler one before it, in under a
//! minute, as `fibtree self-test` runs it.

use std::time::Instant;

use num_bigint::BigUint;

use crate::engine::Hooks;
use crate::exact::{Engine, count_with_engine};
use crate::plan::Plan;
use crate::rng::SplitMix64;
use crate::{Result, brute, count, count_mod, dist, verify};

/// One rung of the ladder: what was checked, whether it held, what was seen, and how long it took.
#[derive(Clone, Debug)]
pub struct Rung {
    /// What the rung checks.
    pub name: &'static str,
    /// Whether it held.
    pub ok: bool,
    /// How many comparisons were made, or the first disagreement.
    pub detail: String,
    /// Seconds taken.
    pub seconds: f64,
}

/// Runs every rung in order, handing each to `report` as it finishes; returns whether all held.
///
/// The rungs: first principles against the explicit tree (k <= 7, every g); the explicit tree
/// against the exact DP (k <= 22, every g); exact against modular for random (n, g, m) drawn from
/// `seed`; the same count with 1, 2 and 4 threads; the reference engine against the blocked one.
///
/// Cost: about half a minute on two cores.
///
/// # Errors
/// Only what the engines return for their own reasons (memory, interruption through `hooks`).
pub fn run(seed: u64, hooks: Hooks, mut report: impl FnMut(&Rung)) -> Result<bool> {
    let mut all = true;
    let mut rung = |name: &'static str, check: &mut dyn FnMut() -> Result<std::result::Result<String, String>>| {
        let start = Instant::now();
        let outcome = check()?;
        let (ok, detail) = match outcome {
            Ok(d) => (true, d),
            Err(d) => (false, d),
        };
        all &= ok;
        report(&Rung { name, ok, detail, seconds: start.elapsed().as_secs_f64() });
        Ok::<(), crate::Error>(())
    };
    rung("first principles = explicit tree, k <= 7", &mut || {
        for k in 0..=brute::MAX_FIRST_PRINCIPLES_K {
            if brute::first_principles_counts(k)? != brute::explicit_tree_counts(k)? {
                return Ok(Err(format!("they differ at k = {k}")));
            }
        }
        Ok(Ok("every g of 8 trees".into()))
    })?;
    rung("explicit tree = exact DP, k <= 22", &mut || {
        for k in 0..=22u32 {
            let oracle = brute::explicit_tree_counts(k)?;
            let want: Vec<(u64, BigUint)> =
                oracle.iter().enumerate().filter(|e| *e.1 > 0).map(|(g, &c)| (g as u64, BigUint::from(c))).collect();
            if dist::exact(k as u64, Engine::Blocked, hooks, u64::MAX)? != want {
                return Ok(Err(format!("they differ at k = {k}")));
            }
        }
        Ok(Ok("every g of 23 trees".into()))
    })?;
    rung("exact = modular, random (n, g, m)", &mut || {
        let mut rng = SplitMix64(seed);
        let cases = 100;
        for _ in 0..cases {
            let n = rng.below(4000);
            let g = if rng.below(2) == 0 { 0 } else { rng.below(64) };
            let m = match rng.below(3) {
                0 => 2 + rng.below(1000),
                1 => 998_244_353,
                _ => 2 + rng.below((1 << 63) - 2),
            };
            let exact = count(n, g)?;
            let modular = count_mod(n, g, m)?;
            if verify::residue(&exact, m as u128) != modular as u128 {
                return Ok(Err(format!("c({n}, {g}) mod {m}: exact gives {}, modular {modular}", &exact % m)));
            }
        }
        Ok(Ok(format!("{cases} cases from seed {seed:#x}")))
    })?;
    rung("1, 2 and 4 threads give one answer", &mut || {
        let mut answers = Vec::new();
        for threads in [1, 2, 4] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a thread pool");
            answers.push(pool.install(|| count(6000, 5))?);
        }
        Ok(if answers.windows(2).all(|w| w[0] == w[1]) {
            Ok("c(6000, 5)".into())
        } else {
            Err("c(6000, 5) differs between thread counts".into())
        })
    })?;
    rung("reference engine = blocked engine", &mut || {
        let whole: Vec<(u64, u64)> = crate::plan::support(400)?.iter().map(|g| (400, g)).collect();
        let many: Vec<(u64, u64)> = (0..=600).map(|k| (k, 0)).collect();
        let cases = [vec![(10_000u64, 0u64)], vec![(2000, 3)], vec![(777, 12)], whole, many];
        for targets in &cases {
            let plan = Plan::new(targets, u64::MAX)?;
            let reference = count_with_engine(Engine::Reference, &plan, targets, hooks)?;
            let blocked = count_with_engine(Engine::Blocked, &plan, targets, hooks)?;
            if reference != blocked {
                return Ok(Err(format!("they differ on {} targets up to {:?}", targets.len(), targets.last())));
            }
        }
        Ok(Ok("c(10000, 0), two more, dist(400), f(0..=600)".into()))
    })?;
    Ok(all)
}
