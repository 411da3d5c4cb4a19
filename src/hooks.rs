//! The hooks the tests use to see a check bite and a bug reported: `--test-perturb M` (count,
//! combine, bench) and `--test-panic` (count), hidden options built only with the feature
//! `test-hooks`, which the tests turn on (tests/README.md). A build without it, such as the one
//! `cargo install` makes, has neither the options nor this code.

use fibtree::Report;

/// `--test-perturb M`: `report` with the independent residue of its projection onto M off by one,
/// and for M = 2 the closed form's parity flipped (with any `--mod 2` projection), to show a check
/// bite. Cost O(projections).
pub(super) fn perturbed(mut report: Report, modulus: Option<u64>) -> Report {
    for p in report.projections.iter_mut().filter(|p| Some(p.modulus) == modulus) {
        p.independent += 1;
    }
    if modulus == Some(2) {
        report.parity.closed_form ^= 1;
    }
    report
}
