//! Every exact engine over the plan without its states of count zero against the reference engine
//! over the plan with them (docs/math.md, "Zero states"): the same counts, for single targets (of
//! count zero too), tables, whole distributions and targets far above every Grundy value.

use super::*;
use crate::targets::Targets;

#[test]
fn the_engines_count_the_same_over_a_thinned_plan() {
    let seed = 0x7417_2e57u64;
    println!("SplitMix64 seed {seed:#x}");
    let mut rng = fibtree_util::SplitMix64(seed);
    let mut cases: Vec<Vec<(u64, u64)>> = vec![
        vec![(7, 0)],
        vec![(13, 0)],
        vec![(700, 0)],
        vec![(1200, 5)],
        vec![(333, 1 << 40)],
        vec![(2, 0), (3, 1), (4, 3), (5, 7)],
        (0..=150).map(|k| (k, 0)).chain([(150, 3), (149, 0)]).collect(),
        crate::plan::support_set(260, Hooks::default()).unwrap().iter().map(|g| (260, g)).collect(),
    ];
    cases.extend((0..10).map(|_| vec![(2 + rng.below(600), rng.below(64))]));
    for targets in cases.iter().map(|t| Targets::new(t)) {
        let plan = Plan::new(&targets, u64::MAX, Hooks::default()).unwrap();
        let unthinned = Plan::unthinned(&targets);
        assert!(plan.states() <= unthinned.states(), "{targets:?}");
        let want = count_exact(Engine::Reference, &unthinned, &targets, Hooks::default()).unwrap();
        for engine in [Engine::Reference, Engine::Blocked, Engine::Crt] {
            for (plan, which) in [(&plan, "thinned"), (&unthinned, "unthinned")] {
                let got = count_exact(engine, plan, &targets, Hooks::default()).unwrap();
                assert_eq!(got, want, "{engine:?} over the {which} plan of {targets:?}, seed {seed:#x}");
            }
        }
        // a count from both ends at several cuts, over either plan
        if let [(n, g)] = targets[..]
            && n >= 3
        {
            for cut in [2, n / 3, n / 2, n - 1] {
                for plan in [&plan, &unthinned] {
                    let got = both_ends::count_blocked(plan, (n, g), cut.max(2), Hooks::default(), |t| t).unwrap();
                    assert_eq!(got, want[0], "c({n}, {g}) cut at {cut}, seed {seed:#x}");
                }
            }
        }
    }
}

/// The residue route of the exact engines against the reference engine, many targets at once.
#[test]
fn the_crt_engine_gives_the_reference_values_for_many_targets_at_once() {
    use crate::engines::{Engine, count_exact};
    use crate::hooks::Hooks;
    use crate::targets::Targets;
    let cases: Vec<Vec<(u64, u64)>> = vec![
        vec![(2, 0), (3, 1), (4, 3), (5, 7), (0, 0), (1, 0)],
        (0..=150).map(|k| (k, 0)).chain([(150, 3), (149, 0)]).collect(),
        vec![(333, 1 << 40)],
        vec![(900, 0), (899, 5)],
    ];
    for targets in cases.iter().map(|t| Targets::new(t)) {
        let targets = &targets;
        let plan = crate::plan::Plan::new(targets, u64::MAX, Hooks::default()).unwrap();
        let want = count_exact(Engine::Reference, &plan, targets, Hooks::default()).unwrap();
        let got = count_exact(Engine::Crt, &plan, targets, Hooks::default()).unwrap();
        assert_eq!(got, want, "{targets:?}");
    }
}
