//! Benchmarks of the engines: the exact count and the modular count over sizes of n, and the
//! exact engine's kernel alone.
//! Run with `cargo bench`; CI runs them once each in test mode (`cargo test --release --benches`).

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

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

/// One layer of 2048 states (the widest layer of f(10000)) summed from sources at scattered
/// positions, for each chunk size: lane additions per second with the data in cache.
fn kernel(c: &mut Criterion) {
    const STATES: usize = 2048;
    let mut group = c.benchmark_group("kernel");
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let left: Vec<u32> = (0..STATES).map(|_| (next() % STATES as u64) as u32).collect();
    let right: Vec<u32> = (0..STATES).map(|_| (next() % STATES as u64) as u32).collect();
    for lanes in [4usize, 8, 16, 32] {
        let old: Vec<u64> = (0..STATES * lanes).map(|_| next() >> 16).collect();
        let older: Vec<u64> = (0..STATES * lanes).map(|_| next() >> 16).collect();
        let mut out = vec![0u64; STATES * lanes];
        group.throughput(Throughput::Elements((STATES * lanes) as u64));
        group.bench_with_input(BenchmarkId::new("lanes", lanes), &lanes, |b, &lanes| {
            b.iter(|| fibtree::bench::sum_layer(lanes, &mut out, &old, &older, &left, &right))
        });
    }
    group.finish();
}

criterion_group!(benches, exact, modular, kernel);
criterion_main!(benches);
