//! The blocked engine against the reference engine, for every tuning, thread count and instruction
//! set, whole and in segments.

use super::*;

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
        crate::plan::support(260, Hooks::default()).unwrap().iter().map(|g| (260, g)).collect(),
    ];
    for targets in &cases {
        let plan = Plan::new(targets, u64::MAX, Hooks::default()).unwrap();
        let want = count_exact(Engine::Reference, &plan, targets, Hooks::default()).unwrap();
        let widest = plan.widest_layer();
        // every instruction set in turn, so that each runs some of the tunings
        let isas = Isa::available();
        let cuts = [(1, 4), (4, 4), (7, 8), (64, 16), (22, 32), (9, 64), (5, 1), (22, 2)];
        let tunings = cuts.iter().enumerate().map(|(i, &(block_layers, chunk_lanes))| Tuning {
            block_layers,
            chunk_lanes,
            isa: isas[i % isas.len()],
        });
        let for_many = Tuning::for_run(widest, plan.top(), 64);
        for tuning in tunings.chain([Tuning::for_width(widest), for_many]) {
            for threads in [1, 2, 3] {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                let mut got = vec![None; targets.len()];
                pool.install(|| {
                    run_with(&plan, targets, Hooks::default(), tuning, |t, w| got[t] = Some(to_biguint(w)))
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
                    run_resumable(
                        &plan,
                        targets,
                        Hooks::default(),
                        tuning,
                        None,
                        Some(&mut count_boundaries),
                        |t, w| segmented[t] = Some(to_biguint(w)),
                    )
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
        assert_eq!(t.isa, Isa::detect());
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
    // the cuts of the measured runs on 64 threads
    assert_eq!(Tuning::for_run(8192, 20_000, 64).chunk_lanes, 2);
    assert_eq!(Tuning::for_run(2048, 10_000, 64).chunk_lanes, 1);
}
