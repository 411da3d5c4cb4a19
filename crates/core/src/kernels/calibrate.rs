//! Measurements that choose how the exact engine runs on this CPU: which instruction set its lanes run
//! ([`lanes_isa`]) and how many lanes a chunk has at a given layer width ([`chunk_lanes`]).
//!
//! Neither follows from what the CPU reports. The lane kernel streams chunks through the level-2
//! cache, so the sets' widths matter less than how each is compiled, and on the AMD EPYC Zen 4 and
//! the Intel Xeon measured the widest set was not the fastest. A chunk's working set (three layers
//! of it) past L2 costs little where L3 is near (three times L2 was best on an AMD EPYC with 512 KiB
//! of L2) and costs 1.6 times the time where it is far (1.5 times L2 on an Intel Xeon with 2 MiB of
//! L2, whose L3 streams at a quarter of L2's rate). So both are measured, once per process (and per
//! width for the chunks), on the engine's own kernel over a synthetic layer: the same sum of two
//! gathered chunks, at sources permuted by xor as the recurrence permutes them.
//!
//! Each candidate is timed by the thread's CPU time (other programs' turns on the core do not
//! count), over rounds that alternate the candidates, keeping each one's best round: what another
//! program does to the caches only slows a round. A candidate near the best counts as a tie, settled
//! by the order of preference the callers give: for the sets within [`SET_TIE`] (20 %), AVX2 first;
//! for the chunks within [`TIE`] (5 %), the smaller first. The sets' tie is the wider because the
//! calibration's rates of the sets spread by up to 14 % from one process to the next on a 2-core
//! Intel Xeon (family 6 model 167), AVX-512 chosen in 7 processes of 12 and AVX2 in 5, where the
//! engine itself ran them within 3 % of each other (docs/performance.md, "A choice that stays"); on
//! every CPU measured no set ran the engine more than 5 % faster than AVX2. With a narrower tie and
//! the larger chunk preferred, the chunk at layers of 8192 states moved between 4, 8 and 16 lanes
//! from one process to the next on a 2-core AMD EPYC with 1 MiB of L2 (rates within 2 to 8 % of
//! each other), where 4 lanes run `count 20000` in 0.85 of the time of 16 (docs/performance.md, "A
//! choice that stays").

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use super::{Isa, sum_layer};
use crate::machine::thread_cpu_seconds;

/// Two chunk sizes' rates within this fraction of each other are a tie.
pub(crate) const TIE: f64 = 0.05;

/// Two instruction sets' rates within this fraction of each other are a tie (the module's doc says
/// why it is wider than [`TIE`]).
pub(crate) const SET_TIE: f64 = 0.20;

/// The rounds of a calibration: each candidate runs once a round, in turn.
const ROUNDS: usize = 4;

/// The rounds of the chunk sizes' calibration: twice the sets', since chunks past L2 measure noisier.
const CHUNK_ROUNDS: usize = 8;

/// The layers of a synthetic block a candidate runs in one round, after two to warm the caches.
const LAYERS: usize = 6;

/// What the calibration of the lanes' instruction set measured: each set's rate and the time it took.
///
/// # Examples
///
/// ```
/// # use fibtree_core as fibtree;
/// // None where the machine's setting forces a set
/// if let Some(choice) = fibtree::isa_choice() {
///     let fastest = choice.rates.iter().map(|r| r.1).fold(0.0, f64::max);
///     let chosen = choice.rates.iter().find(|r| r.0 == choice.chosen).unwrap().1;
///     assert!(chosen >= fastest * 0.8); // the fastest, or AVX2 within 20 % of it
/// }
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct IsaChoice {
    /// Each instruction set this CPU has, the narrowest first, with its best rate in lane additions per
    /// nanosecond (the sum of a layer of 8-lane chunks whose three layers take half of L2).
    pub rates: Vec<(Isa, f64)>,
    /// The set chosen: the fastest, or in a tie (within 20 %) the first of AVX2, AVX-512, baseline.
    pub chosen: Isa,
    /// The seconds the calibration took, of the calling thread's CPU time.
    pub seconds: f64,
}

/// The lanes' instruction set measured once per process among `has` (the sets this CPU runs), with its
/// measurement. Cost: the first time, [`ROUNDS`] x (2 + [`LAYERS`]) layers of about L2 / 384
/// states (256 to 8192) and 8 lanes for each set (2 to 5 ms of one core on the CPUs measured;
/// buffers of half of L2), one load after.
pub(crate) fn lanes_isa(has: &[Isa]) -> &'static IsaChoice {
    static MEASURED: OnceLock<IsaChoice> = OnceLock::new();
    MEASURED.get_or_init(|| {
        let start = thread_cpu_seconds();
        let l2 = crate::machine::l2_bytes().unwrap_or(1 << 20) as usize;
        // three layers of 8-lane chunks in half of L2, between 256 and 8192 states
        let states = (l2 / 2 / (3 * 8 * 8)).clamp(256, 8192);
        let candidates: Vec<(Isa, usize)> = has.iter().map(|&k| (k, 8)).collect();
        // without room for the buffers (under a tight limit), every set rated alike: the preference
        let rates = measure(&candidates, states, ROUNDS).unwrap_or_else(|| vec![0.0; has.len()]);
        let rates: Vec<(Isa, f64)> = has.iter().copied().zip(rates).collect();
        let chosen = pick(&rates, &[Isa::Avx2, Isa::Avx512, Isa::Baseline], SET_TIE);
        IsaChoice { rates, chosen, seconds: thread_cpu_seconds() - start }
    })
}

/// The lanes a chunk has at layers of at most `states` states under the instruction set `isa`: the largest
/// of `candidates` (ascending) whose three layers fit in half of `l2` bytes where even the largest
/// fits there (no measurement), else the fastest as measured, ties (within [`TIE`]) to the smaller.
/// Measured once per process for each set and power of two of the states. Cost: [`CHUNK_ROUNDS`] x
/// (2 + [`LAYERS`]) layers of each candidate, up to about 60 ms of one core the first time for a width (buffers of three layers of the largest candidate's chunks), one lock
/// after.
pub(crate) fn chunk_lanes(isa: Isa, states: usize, candidates: &[usize], l2: Option<u64>) -> usize {
    let largest = *candidates.last().expect("a chunk size to choose");
    let fits = |c: usize| l2.is_some_and(|l2| 3 * 8 * c * states <= l2 as usize / 2);
    if fits(largest) {
        return largest;
    }
    static MEASURED: OnceLock<Mutex<HashMap<(Isa, usize), usize>>> = OnceLock::new();
    // the width rounded up to a power of two (at most 2^14 states, 6 MiB of buffers for 16 lanes:
    // wider layers, whose chunks are past L2 whichever, share its choice)
    let width = states.clamp(64, 1 << 14).next_power_of_two();
    let key = (isa, width);
    if let Some(&c) = MEASURED.get_or_init(Default::default).lock().expect("not poisoned").get(&key) {
        return c;
    }
    let run: Vec<(Isa, usize)> = candidates.iter().map(|&c| (isa, c)).collect();
    let c = match measure(&run, width, CHUNK_ROUNDS) {
        Some(rates) => {
            let rated: Vec<(usize, f64)> = candidates.iter().copied().zip(rates).collect();
            // in a tie the smaller chunk: its layers are the nearer the core
            pick(&rated, candidates, TIE)
        }
        // no room for the buffers: the largest candidate that fits half of L2, or the smallest
        None => candidates.iter().rev().copied().find(|&c| fits(c)).unwrap_or(candidates[0]),
    };
    MEASURED.get().expect("made above").lock().expect("not poisoned").insert(key, c);
    c
}

/// The widest layer [`lane_rate`] measures, in states: 8 MiB a layer of 16-lane chunks (wider layers
/// are rated as this one, past L2 and in the largest level-3 caches either way).
const RATED_STATES_MAX: usize = 1 << 16;

/// The kernel's best rate, in lane additions per nanosecond, in chunks of `chunk_lanes` lanes over
/// synthetic layers of `states` states (at most [`RATED_STATES_MAX`]), compiled for `isa`, or `None`
/// where the buffers cannot be allocated. What tells the estimate how much slower a run's wide
/// layers are than the calibration's narrow ones. Cost: [`CHUNK_ROUNDS`] x (2 + [`LAYERS`]) layers
/// (about 20 ms of one core at the widest); memory three layers (25 MiB at the widest, 16 lanes).
pub(crate) fn lane_rate(isa: Isa, chunk_lanes: usize, states: usize) -> Option<f64> {
    measure(&[(isa, chunk_lanes)], states.clamp(64, RATED_STATES_MAX), CHUNK_ROUNDS).map(|rates| rates[0])
}

/// The best rate, in lane additions per nanosecond, of each candidate (instruction set, chunk lanes)
/// summing synthetic layers of `states` states, or `None` where the buffers cannot be allocated
/// (a run under a tight `ulimit -v` is refused later by the memory guard, not aborted here). Cost:
/// `rounds` x (2 + [`LAYERS`]) layers of each; memory three layers of the largest candidate.
fn measure(candidates: &[(Isa, usize)], states: usize, rounds: usize) -> Option<Vec<f64>> {
    let most = candidates.iter().map(|c| c.1).max().unwrap_or(1);
    let words = (states + 1) * most;
    let mut layers: [Vec<u64>; 3] = Default::default();
    // zeros: the rounds sum each layer into the next, so any other start would overflow a lane
    // within a hundred layers (a sum's time does not depend on its values)
    for layer in layers.iter_mut() {
        layer.try_reserve_exact(words).ok()?;
        layer.resize(words, 0);
    }
    // sources permuted by xor within the next power of two, as g -> (g xor e) - 1 permutes a layer
    let span = states.next_power_of_two();
    let permuted = |e: usize| -> Vec<u32> {
        (0..states).map(|s| if (s ^ e) < states { (s ^ e) as u32 } else { s as u32 }).collect()
    };
    let sources: Vec<(Vec<u32>, Vec<u32>)> =
        (0..LAYERS + 2).map(|t| (permuted((0x2d5 * (t + 1)) % span), permuted((0x1a3 * (t + 3)) % span))).collect();
    let mut best = vec![0.0f64; candidates.len()];
    for _ in 0..rounds {
        for (i, &(isa, c)) in candidates.iter().enumerate() {
            let mut seconds = 0.0;
            for (t, (left, right)) in sources.iter().enumerate() {
                let start = thread_cpu_seconds();
                let [cur, old, older] = &mut layers;
                by_chunk(
                    c,
                    isa,
                    &mut cur[..states * c],
                    &old[..(states + 1) * c],
                    &older[..(states + 1) * c],
                    left,
                    right,
                );
                if t >= 2 {
                    seconds += thread_cpu_seconds() - start;
                }
                layers.rotate_right(1); // older <- old <- cur, and the oldest is overwritten next
            }
            let rate = (LAYERS * states * c) as f64 / (seconds.max(1e-9) * 1e9);
            best[i] = best[i].max(rate);
        }
    }
    std::hint::black_box(&layers);
    Some(best)
}

/// [`sum_layer`] with the chunk size `c` as its constant.
fn by_chunk(c: usize, isa: Isa, out: &mut [u64], old: &[u64], older: &[u64], left: &[u32], right: &[u32]) {
    match c {
        1 => sum_layer::<1>(isa, out, old, older, left, right),
        2 => sum_layer::<2>(isa, out, old, older, left, right),
        4 => sum_layer::<4>(isa, out, old, older, left, right),
        8 => sum_layer::<8>(isa, out, old, older, left, right),
        16 => sum_layer::<16>(isa, out, old, older, left, right),
        32 => sum_layer::<32>(isa, out, old, older, left, right),
        64 => sum_layer::<64>(isa, out, old, older, left, right),
        _ => unreachable!("a chunk is 1, 2, 4, 8, 16, 32 or 64 lanes"),
    }
}

/// The fastest of `rated`, or among those within the fraction `tie` of it the first in
/// `preference` (then the first rated). Cost O(rated x preference).
fn pick<T: Copy + PartialEq>(rated: &[(T, f64)], preference: &[T], tie: f64) -> T {
    let best = rated.iter().map(|r| r.1).fold(0.0, f64::max);
    let near: Vec<T> = rated.iter().filter(|r| r.1 >= best * (1.0 - tie)).map(|r| r.0).collect();
    preference.iter().copied().find(|p| near.contains(p)).or(near.first().copied()).unwrap_or(rated[0].0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_go_by_preference_and_a_clear_winner_wins() {
        let prefer = [Isa::Avx2, Isa::Avx512, Isa::Baseline];
        let rates = [(Isa::Baseline, 2.0), (Isa::Avx2, 1.99), (Isa::Avx512, 2.01)];
        assert_eq!(pick(&rates, &prefer, TIE), Isa::Avx2, "within 5 %: the preferred");
        let rates = [(Isa::Baseline, 2.0), (Isa::Avx2, 1.92), (Isa::Avx512, 1.5)];
        assert_eq!(pick(&rates, &prefer, TIE), Isa::Avx2, "4 % below the fastest: still a tie");
        let rates = [(Isa::Baseline, 2.0), (Isa::Avx2, 1.88), (Isa::Avx512, 1.5)];
        assert_eq!(pick(&rates, &prefer, TIE), Isa::Baseline, "6 % below: the fastest");
        let rates = [(Isa::Baseline, 2.0), (Isa::Avx2, 1.5), (Isa::Avx512, 2.5)];
        assert_eq!(pick(&rates, &prefer, TIE), Isa::Avx512, "a clear winner");
        // the sets' tie: the rates of two processes on the Xeon of the module's doc, AVX2 in both
        let rates = [(Isa::Baseline, 3.44), (Isa::Avx2, 3.57), (Isa::Avx512, 4.07)];
        assert_eq!(pick(&rates, &prefer, SET_TIE), Isa::Avx2, "14 % below: a tie of the sets");
        let rates = [(Isa::Baseline, 3.08), (Isa::Avx2, 3.63), (Isa::Avx512, 3.52)];
        assert_eq!(pick(&rates, &prefer, SET_TIE), Isa::Avx2);
        let rates = [(Isa::Baseline, 2.0), (Isa::Avx2, 1.5), (Isa::Avx512, 2.5)];
        assert_eq!(pick(&rates, &prefer, SET_TIE), Isa::Avx512, "40 % below: the fastest");
        assert_eq!(pick(&[(16, 1.0), (8, 1.02), (4, 0.5)], &[16, 8, 4], TIE), 16);
        // the chunks' order: the smaller in a tie (the rates of one process at 8192 states), the
        // larger where it is clearly faster
        assert_eq!(pick(&[(4, 4.17), (8, 4.27), (16, 4.28)], &[4, 8, 16], TIE), 4);
        assert_eq!(pick(&[(4, 3.13), (8, 3.27), (16, 3.54)], &[4, 8, 16], TIE), 16);
        assert_eq!(pick(&[(16, 0.6), (8, 1.0), (4, 0.9)], &[16, 8, 4], TIE), 8);
    }

    /// The calibration picks one of the sets it was given and rates each (never a figure of speed
    /// asserted: only that one was measured).
    #[test]
    fn the_calibration_rates_every_set_and_picks_one() {
        let has = Isa::available();
        let c = lanes_isa(&has);
        assert_eq!(c.rates.iter().map(|r| r.0).collect::<Vec<_>>(), has);
        assert!(c.rates.iter().all(|r| r.1.is_finite() && r.1 > 0.0), "{c:?}");
        assert!(has.contains(&c.chosen));
        println!("this machine: {c:?}");
    }

    #[test]
    fn a_chunk_that_fits_half_of_l2_is_taken_without_measuring() {
        // 16 lanes of 2048 states: 768 KiB in three layers, within half of 2 MiB
        assert_eq!(chunk_lanes(Isa::Baseline, 2048, &[4, 8, 16], Some(2 << 20)), 16);
        // past half of L2 (or none reported): measured, and one of the candidates
        for l2 in [Some(512 << 10), None] {
            let c = chunk_lanes(Isa::Baseline, 4096, &[4, 8, 16], l2);
            assert!([4, 8, 16].contains(&c), "{c}");
        }
    }
}
