//! The library, through its public API: the engines against the oracles and each other, the
//! recorded values in `data/`, the parity of counts against the closed form, and the claims parser
//! under fuzzing.
//!
//! Where new tests go: engines, distributions and the ladder's rungs in `engines`; a value recorded
//! in `data/` in `known`; the claims parser in `claims`; the parity of counts against the closed
//! form of G in `parity`. Tests of one module's internals stay beside its code (`#[cfg(test)]`);
//! tests of the command line go in the root package's `tests/cli/`.

#[path = "../../../../tests/common/shared.rs"]
mod common;

mod claims;
mod engines;
mod known;
mod parity;
