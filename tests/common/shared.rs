//! What the library's tests and the command line's share: the moduli, a few small computations the
//! tests compare against, the seeded generator and the skip of a test that cannot run here. The
//! library's tests (crates/fibtree/tests) include this file alone, the command line's through
//! [`super`].

// Each test crate compiles its own copy of this module and uses a different subset of it.
#![allow(dead_code)]

use num_bigint::BigUint;
use num_traits::ToPrimitive;

/// The library's moduli of the last 18 digits (10^18) and of the contest problem (998244353).
pub use fibtree::{LAST18, P998244353};

/// The Mersenne prime 2^61 - 1, a third modulus for the checks.
pub const MERSENNE61: u64 = (1 << 61) - 1;

// ---------------------------------------------------------------------------------------------
// Small computations
// ---------------------------------------------------------------------------------------------

/// |T(n)| - 1, the number of moves of T(n) (0 for the empty tree T(0)).
pub fn moves(n: u64) -> BigUint {
    let size = fibtree::tree_size(n);
    if size == BigUint::ZERO { size } else { size - 1u32 }
}

/// `value` mod `m`.
pub fn residue(value: &BigUint, m: u64) -> u64 {
    (value % m).to_u64().expect("a residue is below its modulus")
}

/// The explicit-tree oracle's c(k, g) (a vector indexed by g), 0 beyond its end.
pub fn oracle_at(oracle: &[u64], g: u64) -> BigUint {
    BigUint::from(usize::try_from(g).ok().and_then(|i| oracle.get(i).copied()).unwrap_or(0))
}

/// The library's seeded generator serves the randomised tests too, so that a seed draws the same
/// cases in the tests as in the library.
pub(crate) use fibtree_util::SplitMix64;

/// Numbers in a range from a [`SplitMix64`].
pub trait Range {
    /// Uniform-ish in `lo..hi` (the modulo bias is irrelevant here).
    fn range(&mut self, lo: u64, hi: u64) -> u64;
}

impl Range for SplitMix64 {
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        assert!(lo < hi);
        lo + self.below(hi - lo)
    }
}

/// Says that the running test could not check what it is for, and why, where the harness shows it
/// in a normal run: straight to the process's standard error (which libtest does not capture, unlike
/// `println!`), as `SKIPPED module::test: reason`. The test then returns early and counts as passed,
/// so every skip of a run is listed by `cargo test 2>&1 | grep SKIPPED`, and once more in the
/// summary of the test target `skipped` (tests/skipped.rs), which reads them from [`SKIPS`].
pub fn skip(reason: impl std::fmt::Display) {
    use std::io::Write;
    let thread = std::thread::current();
    let name = thread.name().unwrap_or("a test");
    let _ = writeln!(std::io::stderr().lock(), "SKIPPED {name}: {reason}");
    // the record of this `cargo test`: its process (the test binaries' parent) first, one line
    let line = format!("{name}: {reason}").replace(['\n', '\t'], " ");
    let file = std::fs::OpenOptions::new().create(true).append(true).open(SKIPS);
    let _ = file.and_then(|mut f| writeln!(f, "{}\t{line}", std::os::unix::process::parent_id()));
}

/// Where [`skip`] records each skip, a line each: the id of the `cargo test` process, a tab, then
/// `module::test: reason`.
pub const SKIPS: &str = concat!(env!("CARGO_TARGET_TMPDIR"), "/skipped-tests.tsv");
