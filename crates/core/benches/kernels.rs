//! Benchmarks of the engines' kernels alone (`fibtree_core::kernels::alone`, with the feature `kernels`) under
//! every kernel set this CPU has (`kernel/<set>/lanes/<C>`, `residue_kernel/<set>/<u64|u32>/<C>`,
//! `sweep/<set>/<residue>`), so that the sets can be compared on one machine; and the exact kernel
//! against its two other forms (`forms/<states>/<form>/<C>`: loaded or derived positions, 56-bit
//! lanes or full words with carries apart).
//! Run with `cargo bench --features kernels` (`-- kernel` for one group); CI runs them once each in
//! test mode (`cargo test --release --benches --features kernels`).

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use fibtree_core::Isa;

/// A xorshift generator of the benchmarks' data.
fn xorshift() -> impl FnMut() -> u64 {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

/// One layer of 2048 states (the widest layer of f(10000)) summed from sources at scattered
/// positions, for each kernel set and chunk size: lane additions per second with the data in cache.
fn kernel(c: &mut Criterion) {
    const STATES: usize = 2048;
    let mut group = c.benchmark_group("kernel");
    let mut next = xorshift();
    let left: Vec<u32> = (0..STATES).map(|_| (next() % STATES as u64) as u32).collect();
    let right: Vec<u32> = (0..STATES).map(|_| (next() % STATES as u64) as u32).collect();
    for kernel in Isa::available() {
        for lanes in [4usize, 8, 16, 32] {
            let old: Vec<u64> = (0..STATES * lanes).map(|_| next() >> 16).collect();
            let older: Vec<u64> = (0..STATES * lanes).map(|_| next() >> 16).collect();
            let mut out = vec![0u64; STATES * lanes];
            group.throughput(Throughput::Elements((STATES * lanes) as u64));
            group.bench_with_input(BenchmarkId::new(format!("{kernel}/lanes"), lanes), &lanes, |b, &lanes| {
                b.iter(|| fibtree_core::kernels::alone::sum_layer(kernel, lanes, &mut out, &old, &older, &left, &right))
            });
        }
    }
    group.finish();
}

/// The blocked engine's residue kernel over the same layer of 2048 states, in `u64` lanes modulo the
/// CRT primes (below 2^62) and in `u32` lanes modulo the largest primes below 2^31, at equal bytes
/// per chunk (`u64` with C lanes against `u32` with 2C): residue additions per second with the data
/// in cache. A `u64` lane carries about 62 bits of modulus and a `u32` lane about 31, so the `u32`
/// lanes win per bit only if they run more than twice as many lanes per second.
fn residue_kernel(c: &mut Criterion) {
    const STATES: usize = 2048;
    let mut group = c.benchmark_group("residue_kernel");
    let mut next = xorshift();
    let left: Vec<u32> = (0..STATES).map(|_| (next() % STATES as u64) as u32).collect();
    let right: Vec<u32> = (0..STATES).map(|_| (next() % STATES as u64) as u32).collect();
    let wide = fibtree_core::primes(32, fibtree_core::Hooks::default()).unwrap();
    let narrow: Vec<u64> =
        (1u64..1 << 31).rev().step_by(2).filter(|&q| primal_check::miller_rabin(q)).take(64).collect();
    for kernel in Isa::available() {
        for lanes in [8usize, 16, 32] {
            let moduli = &wide[..lanes];
            let mut residues = |_| (0..STATES * lanes).map(|i| next() % moduli[i % lanes]).collect::<Vec<u64>>();
            let (old, older) = (residues(0), residues(1));
            let mut out = vec![0u64; STATES * lanes];
            group.throughput(Throughput::Elements((STATES * lanes) as u64));
            group.bench_with_input(BenchmarkId::new(format!("{kernel}/u64"), lanes), &lanes, |b, _| {
                b.iter(|| {
                    fibtree_core::kernels::alone::sum_layer_mod(
                        kernel,
                        &mut out,
                        black_box(&old),
                        &older,
                        &left,
                        &right,
                        moduli,
                    )
                })
            });
        }
        for lanes in [16usize, 32, 64] {
            let moduli: Vec<u32> = narrow[..lanes].iter().map(|&q| q as u32).collect();
            let mut residues =
                |_| (0..STATES * lanes).map(|i| (next() % u64::from(moduli[i % lanes])) as u32).collect::<Vec<u32>>();
            let (old, older) = (residues(0), residues(1));
            let mut out = vec![0u32; STATES * lanes];
            group.throughput(Throughput::Elements((STATES * lanes) as u64));
            group.bench_with_input(BenchmarkId::new(format!("{kernel}/u32"), lanes), &lanes, |b, _| {
                b.iter(|| {
                    fibtree_core::kernels::alone::sum_layer_mod_narrow(
                        kernel,
                        &mut out,
                        black_box(&old),
                        &older,
                        &left,
                        &right,
                        &moduli,
                    )
                })
            });
        }
    }
    group.finish();
}

/// The dense modular engine's sweep over a window of 8192 residues (every g of f(10000)'s layers),
/// in `u64` lanes (modulo 10^18) and `u32` lanes (modulo 998244353), for each kernel set: additions
/// mod m per second with the data in cache.
fn sweep(c: &mut Criterion) {
    const W: usize = 8192;
    let mut group = c.benchmark_group("sweep");
    let mut next = xorshift();
    let (r, l) = (next() as usize % W, next() as usize % W);
    group.throughput(Throughput::Elements(W as u64));
    for kernel in Isa::available() {
        let m = 1_000_000_000_000_000_000u64;
        let old: Vec<u64> = (0..=W).map(|_| next() % m).collect();
        let older: Vec<u64> = (0..=W).map(|_| next() % m).collect();
        let mut cur = vec![0u64; W + 1];
        group.bench_function(BenchmarkId::new(kernel.name(), "u64"), |b| {
            b.iter(|| fibtree_core::kernels::alone::sweep(kernel, &mut cur, black_box(&old), &older, r, l, m))
        });
        let m = 998_244_353u32;
        let old: Vec<u32> = (0..=W).map(|_| (next() % u64::from(m)) as u32).collect();
        let older: Vec<u32> = (0..=W).map(|_| (next() % u64::from(m)) as u32).collect();
        let mut cur = vec![0u32; W + 1];
        group.bench_function(BenchmarkId::new(kernel.name(), "u32"), |b| {
            b.iter(|| fibtree_core::kernels::alone::sweep_narrow(kernel, &mut cur, black_box(&old), &older, r, l, m))
        });
    }
    group.finish();
}

/// The exact kernel's three forms (`fibtree_core::kernels::alone`) under the lanes' chosen set, on a
/// layer in L2 (2048 states) and one past it (8192 states of 8 lanes: 1.5 MiB in three layers), the
/// sources permuted by xor as the recurrence permutes them: `loaded` (the engine's, positions read
/// from two arrays), `derived` (positions derived from runs of 64 states) and `carry_save` (full
/// 64-bit words, carries in a byte a lane). The throughput counts payload limbs of 64 bits (a 56-bit
/// lane is 7/8 of one), so that the three compare as the engine would run them.
fn forms(c: &mut Criterion) {
    use fibtree_core::kernels::alone::{Run, sum_layer, sum_layer_carry_save, sum_layer_derived};
    let mut group = c.benchmark_group("forms");
    let isa = fibtree_core::kernels::isa();
    for states in [2048usize, 8192] {
        let (e_left, e_right) = (0x2d5 % states, 0x1a3 % states);
        let runs: Vec<Run> = (0..states / 64)
            .map(|w| Run {
                left: ((64 * w) ^ (e_left & !63)) as u32,
                left_xor: (e_left & 63) as u32,
                right: ((64 * w) ^ (e_right & !63)) as u32,
                right_xor: (e_right & 63) as u32,
            })
            .collect();
        let left: Vec<u32> = (0..states).map(|s| (s ^ e_left) as u32).collect();
        let right: Vec<u32> = (0..states).map(|s| (s ^ e_right) as u32).collect();
        for lanes in [4usize, 8, 16] {
            let mut next = xorshift();
            let mut layer = || (0..states * lanes).map(|_| next() >> 16).collect::<Vec<u64>>();
            let (old, older, mut out) = (layer(), layer(), vec![0u64; states * lanes]);
            let carries = vec![1u8; states * lanes];
            let mut out_carries = vec![0u8; states * lanes];
            let id = |form: &str| BenchmarkId::new(format!("{states}/{form}"), lanes);
            group.throughput(Throughput::Elements((states * lanes * 7 / 8) as u64));
            group.bench_function(id("loaded"), |b| {
                b.iter(|| sum_layer(isa, lanes, &mut out, black_box(&old), &older, &left, &right))
            });
            group.bench_function(id("derived"), |b| {
                b.iter(|| sum_layer_derived(isa, lanes, &mut out, black_box(&old), &older, &runs))
            });
            group.throughput(Throughput::Elements((states * lanes) as u64));
            group.bench_function(id("carry_save"), |b| {
                b.iter(|| {
                    sum_layer_carry_save(
                        isa,
                        lanes,
                        (&mut out, &mut out_carries),
                        (black_box(&old), &carries),
                        (&older, &carries),
                        &left,
                        &right,
                    )
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, kernel, residue_kernel, sweep, forms);
criterion_main!(benches);
