//! Benchmarks of the counts through the public API: the exact count and the modular count over
//! sizes of n, with the kernel set in use (the one measured fastest, or `FIBTREE_ISA`'s).
//! Run with `cargo bench` (the kernels alone: `cargo bench --features kernels`, benches/kernels.rs);
//! CI runs them once each in test mode (`cargo test --release --benches --features kernels`).

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
fn exact(c: &mut Criterion) {
    let mut group = c.benchmark_group("count");
    group.sample_size(10);
    for n in [1_000u64, 5_000, 10_000] {
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            b.iter(|| fibtree::count(black_box(n), 0).unwrap())
        });
    }
    group.finish();
}

fn modular(c: &mut Criterion) {
    let mut group = c.benchmark_group("count_mod");
    group.sample_size(10);
    for n in [1_000u64, 10_000, 20_000] {
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            b.iter(|| fibtree::count_mod(black_box(n), 0, 998_244_353).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, exact, modular);
criterion_main!(benches);
