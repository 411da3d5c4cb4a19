//! The blocked engine against the reference engine, for every tuning, thread count and instruction
//! set, whole and in segments; its residue kind against the modular engine.

use super::memory::{bytes_with, residue_bytes_with};
use super::tuning::CHUNKS_PER_THREAD;
use super::*;
use crate::kernels::Isa;
use crate::targets::Targets;

/// A tile's bytes that give tiles of the fewest positions ([`TILE_POSITIONS_MIN`]): a few states of
/// the top layer each, so that most states lie at a border; and whole layers of more than half of
/// them "leave the level-2 cache".
const TINY_TILES: usize = 256;

/// Every tuning of the blocked engine gives the reference engine's values, for single targets,
/// many targets across layers (as `table` asks) and whole distributions (as `dist` asks).
#[test]
fn blocked_equals_reference() {
    use crate::engines::{Engine, count_exact, to_biguint};
    let cases: Vec<Vec<(u64, u64)>> = vec![
        vec![(700, 0)],
        vec![(1200, 5)],
        vec![(333, 1 << 40)],
        vec![(2, 0), (3, 1), (4, 3), (5, 7)],
        (0..=150).map(|k| (k, 0)).chain([(150, 3), (149, 0)]).collect(),
        crate::plan::support_set(260, Hooks::default()).unwrap().iter().map(|g| (260, g)).collect(),
    ];
    for targets in cases.iter().map(|t| Targets::new(t)) {
        let targets = &targets;
        let plan = Plan::new(targets, u64::MAX, Hooks::default()).unwrap();
        let want = count_exact(Engine::Reference, &plan, targets, Hooks::default()).unwrap();
        let widest = plan.widest_layer();
        // every tuning under every instruction set this CPU has
        let cuts = [(1, 4), (4, 4), (7, 8), (64, 16), (22, 32), (9, 64), (5, 1), (22, 2)];
        let chosen = Tuning::for_width(widest);
        let for_many = Tuning::for_run(widest, plan.top(), 64);
        let tunings = Isa::available().into_iter().flat_map(|isa| {
            // tiles of a few states each (many borders) on every other cut, whole layers on the rest
            let cut = cuts.iter().enumerate().map(move |(i, &(block_layers, chunk_lanes))| {
                let tiles = if i % 2 == 0 { TileRule::Always } else { TileRule::Never };
                Tuning { block_layers, chunk_lanes, isa, tile_bytes: TINY_TILES, tiles }
            });
            cut.chain([Tuning { isa, ..chosen }, Tuning { isa, ..for_many }])
        });
        for tuning in tunings {
            for threads in [1, 2, 3] {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                let mut got = vec![None; targets.len()];
                pool.install(|| {
                    run(Run::exact(&plan, targets, Hooks::default(), tuning), None, |t, w| got[t] = Some(to_biguint(w)))
                })
                .unwrap();
                let got: Vec<_> = got.into_iter().map(|v| v.expect("every target reported")).collect();
                assert_eq!(
                    got,
                    want,
                    "{tuning:?}, {threads} threads, {} targets up to {:?}",
                    targets.len(),
                    targets.last()
                );
                // in segments, as a run that saves checkpoints goes
                let mut segmented = vec![None; targets.len()];
                let mut boundaries = 0;
                pool.install(|| {
                    let mut count_boundaries = |_: &State, _| {
                        boundaries += 1;
                        Ok(())
                    };
                    let exact = Run::exact(&plan, targets, Hooks::default(), tuning);
                    run(exact, Some(&mut count_boundaries), |t, w| segmented[t] = Some(to_biguint(w)))
                })
                .unwrap();
                let segmented: Vec<_> = segmented.into_iter().map(|v| v.expect("every target reported")).collect();
                assert_eq!(segmented, want, "{tuning:?}, {threads} threads, in segments");
                assert!(boundaries > 1 || plan.top() < 2 + 4 * tuning.block_layers.min(MAX_BLOCK_LAYERS));
            }
        }
    }
}

#[test]
fn tuning_stays_in_range() {
    for widest in [0, 1, 100, 2048, 8192, 40_000, 1 << 20] {
        let t = Tuning::for_width(widest);
        assert!([4, 8, 16].contains(&t.chunk_lanes));
        assert_eq!(t.isa, crate::kernels::isa());
        assert!((1..=MAX_BLOCK_LAYERS).contains(&t.block_layers));
        for n in [0, 2, 300, 10_000, 20_000, 1_000_000] {
            // one or two threads: the width's cut
            assert_eq!(Tuning::for_run(widest, n, 1), t);
            assert_eq!(Tuning::for_run(widest, n, 2), t);
            let mut last = t.chunk_lanes;
            for threads in [3, 4, 16, 64, 128, usize::MAX] {
                let many = Tuning::for_run(widest, n, threads);
                assert!(CHUNK_LANES.contains(&many.chunk_lanes), "{many:?}");
                assert!(many.chunk_lanes <= last, "more threads, no larger chunks");
                let chunks = lanes(n.max(2)).div_ceil(many.chunk_lanes);
                assert!(
                    many.chunk_lanes == 1 || chunks >= CHUNKS_PER_THREAD.saturating_mul(threads),
                    "{n} {threads}: {many:?}"
                );
                last = many.chunk_lanes;
            }
        }
    }
    // the cuts of the measured runs on 64 threads (at n = 20000, 2 lanes with the 48-bit lanes' 290
    // lanes; 1 with 56-bit lanes, whose 2-lane chunks would be fewer than 2 a thread)
    assert_eq!(lanes(20_000).div_ceil(2), 124);
    assert_eq!(Tuning::for_run(8192, 20_000, 64).chunk_lanes, 1);
    assert_eq!(Tuning::for_run(2048, 10_000, 64).chunk_lanes, 1);
}

/// The blocked engine under every instruction set this CPU has against the explicit-tree oracle
/// (every g of every tree up to 20) and against the modular engine (f(3000) modulo 10^18 and
/// 998244353): the agreements the public API checks under the process's instruction set only. (The
/// modular engine's own kernels are checked under every set in its tests.)
#[test]
fn every_instruction_set_agrees_with_the_oracle_and_the_modular_engine() {
    use crate::engines::{modular, to_biguint};
    use num_bigint::BigUint;
    let moduli = [1_000_000_000_000_000_000u64, 998_244_353];
    let mut targets: Vec<(u64, u64)> = Vec::new();
    let mut want: Vec<BigUint> = Vec::new();
    for k in 0..=20u32 {
        let oracle = fibtree_oracles::explicit_tree_counts(k).unwrap();
        for g in 0..oracle.len() as u64 + 2 {
            targets.push((u64::from(k), g));
            want.push(BigUint::from(oracle.get(g as usize).copied().unwrap_or(0)));
        }
    }
    // (pushed in order of k, then g: the order of the targets)
    let targets = Targets::new(&targets);
    let plan = Plan::new(&targets, u64::MAX, Hooks::default()).unwrap();
    let big = Targets::new(&[(3_000u64, 0u64)]);
    let big_plan = Plan::new(&big, u64::MAX, Hooks::default()).unwrap();
    let residues = modular::count_mod_with_plan(&big_plan, &big, &moduli, Hooks::default()).unwrap();
    for isa in Isa::available() {
        let tuning = Tuning { isa, ..Tuning::for_width(plan.widest_layer()) };
        let mut got = vec![BigUint::ZERO; targets.len()];
        run(Run::exact(&plan, &targets, Hooks::default(), tuning), None, |t, w| got[t] = to_biguint(w)).unwrap();
        assert_eq!(got, want, "{isa:?}: the explicit tree's counts");
        let tuning = Tuning { isa, ..Tuning::for_width(big_plan.widest_layer()) };
        let mut value = BigUint::ZERO;
        run(Run::exact(&big_plan, &big, Hooks::default(), tuning), None, |_, w| value = to_biguint(w)).unwrap();
        let projections: Vec<u64> = moduli.iter().map(|&m| (&value % m).try_into().unwrap()).collect();
        assert_eq!(residues[0], projections, "{isa:?}: f(3000)'s residues");
    }
}

/// The residue kind against the dense modular engine, over plans of several targets (random ones
/// from a fixed seed, g != 0 among them, n up to 600), for moduli of every size (the CRT primes,
/// small ones, the padding's 2), numbers of moduli that are and are not multiples of the chunk,
/// every chunk size, every instruction set this CPU has, and one to three threads.
#[test]
fn residues_equal_the_modular_engine() {
    residues_against_the_modular_engine(600);
}

/// [`residues_equal_the_modular_engine`] with n up to 2000: wider layers, more blocks and chunks a
/// layer, about a minute of two cores
/// (`cargo test --release -p fibtree-core -- --ignored residues_equal_the_modular_engine_up_to_2000`).
#[test]
#[ignore = "a minute: cargo test --release -p fibtree-core -- --ignored residues_equal_the_modular_engine_up_to_2000"]
fn residues_equal_the_modular_engine_up_to_2000() {
    residues_against_the_modular_engine(2000);
}

/// The cases of [`residues_equal_the_modular_engine`], n up to `top`.
fn residues_against_the_modular_engine(top: u64) {
    use crate::engines::modular;
    let seed = 0x7e51_d0e5;
    println!("SplitMix64 seed {seed:#x}, n up to {top}");
    let mut rng = fibtree_util::SplitMix64(seed);
    let mut cases: Vec<Vec<(u64, u64)>> = vec![
        vec![(top, 0)],
        vec![(2, 0), (3, 1), (4, 3), (5, 7), (0, 0), (1, 0), (top * 3 / 5, 5)],
        vec![(top / 6, 1 << 40)],
    ];
    for _ in 0..3 {
        let targets = (0..1 + rng.below(6)).map(|_| (rng.below(top * 3 / 4), rng.below(40))).collect();
        cases.push(targets);
    }
    let primes = crate::crt::primes::first(40);
    let small = [2u64, 3, 998_244_353, 1_000_000_000_000_000_000, (1 << 63) - 25];
    let moduli_sets: Vec<Vec<u64>> = vec![
        primes[..1].to_vec(),
        primes[..7].to_vec(),
        primes[..40].to_vec(),
        primes[..5].iter().chain(&small).copied().collect(),
    ];
    for targets in cases.iter().map(|t| Targets::new(t)) {
        let targets = &targets;
        let plan = Plan::new(targets, u64::MAX, Hooks::default()).unwrap();
        for moduli in &moduli_sets {
            let want = modular::count_mod_with_plan(&plan, targets, moduli, Hooks::default()).unwrap();
            let chosen = Tuning::for_residues(plan.widest_layer(), moduli.len(), 2);
            let cuts = CHUNK_LANES.iter().map(|&chunk_lanes| (MAX_BLOCK_LAYERS, chunk_lanes)).chain([
                (1, 4),
                (5, 2),
                (60, 8),
                (1000, 16),
            ]);
            let tunings = Isa::available().into_iter().flat_map(|isa| {
                cuts.clone()
                    .enumerate()
                    .map(move |(i, (block_layers, chunk_lanes))| {
                        let tiles = if i % 2 == 1 { TileRule::Always } else { TileRule::Never };
                        Tuning { block_layers, chunk_lanes, isa, tile_bytes: TINY_TILES, tiles }
                    })
                    .chain([Tuning { isa, ..chosen }])
            });
            for tuning in tunings {
                for threads in [1, 3] {
                    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                    let mut got = vec![None; targets.len()];
                    pool.install(|| {
                        let residues = Run {
                            lanes: Lanes::Residues(moduli),
                            ..Run::exact(&plan, targets, Hooks::default(), tuning)
                        };
                        run(residues, None, |t, r| {
                            assert!(got[t].is_none(), "target {t} reported once");
                            got[t] = Some(r.to_vec())
                        })
                    })
                    .unwrap();
                    let got: Vec<Vec<u64>> = got.into_iter().map(|v| v.expect("every target reported")).collect();
                    assert_eq!(
                        got,
                        want,
                        "{tuning:?}, {threads} threads, {} moduli, targets {targets:?}",
                        moduli.len()
                    );
                }
            }
        }
    }
}

/// A run of residues refuses a modulus the lanes cannot hold, and a run with no moduli reports an
/// empty list for every target.
#[test]
fn residues_refuse_bad_moduli() {
    use crate::error::{Error, Param};
    let targets = Targets::new(&[(100u64, 0u64), (50, 1)]);
    let plan = Plan::new(&targets, u64::MAX, Hooks::default()).unwrap();
    let tuning = Tuning::for_residues(plan.widest_layer(), 3, 1);
    for bad in [0u64, 1, 1 << 63, u64::MAX] {
        let moduli = [7, bad];
        let residues = Run { lanes: Lanes::Residues(&moduli), ..Run::exact(&plan, &targets, Hooks::default(), tuning) };
        let result = run(residues, None, |_, _| {});
        assert!(matches!(result, Err(Error::InvalidArgument { param: Param::Modulus, .. })), "{bad}: {result:?}");
    }
    let mut seen = Vec::new();
    let residues = Run { lanes: Lanes::Residues(&[]), ..Run::exact(&plan, &targets, Hooks::default(), tuning) };
    run(residues, None, |t, r| seen.push((t, r.len()))).unwrap();
    assert_eq!(seen, [(0, 0), (1, 0)], "in order of layer: (50, 1), then (100, 0)");
}

#[test]
fn residue_tuning_cuts_by_the_moduli() {
    // one or two threads: the width's cut, whatever the moduli
    assert_eq!(Tuning::for_residues(8192, 230, 2), Tuning::for_width(8192));
    assert_eq!(Tuning::for_residues(2048, 1, 1), Tuning::for_width(2048));
    // many threads: chunks halved until the moduli make enough of them
    let many = Tuning::for_residues(8192, 230, 64);
    assert!(230usize.div_ceil(many.chunk_lanes) >= CHUNKS_PER_THREAD * 64 || many.chunk_lanes == 1);
    assert_eq!(Tuning::for_residues(8192, 1000, 4).chunk_lanes, Tuning::for_width(8192).chunk_lanes);
    assert!(residue_memory_bytes(8192, 230, 2) < memory_bytes(8192, 20_000, 2), "no carries, fewer lanes");
}

#[test]
fn memory_estimates_bound_the_cut_taken_whatever_the_measurement() {
    for (widest, n) in [(100, 1_000), (8192, 20_000), (100_000, 100_000)] {
        for threads in [1, 2, 4, 64] {
            let taken = Tuning::for_run(widest, n, threads);
            assert!(Tuning::possible(lanes(n), threads).any(|t| t.chunk_lanes == taken.chunk_lanes), "{taken:?}");
            let bound = memory_bytes(widest, n, threads);
            assert!(bytes_with(taken, widest, n, threads) <= bound, "{widest} {n} {threads}");
            let residues = Tuning::for_residues(widest, 230, threads);
            assert!(residue_bytes_with(residues, widest, 230, threads) <= residue_memory_bytes(widest, 230, threads));
        }
    }
}
