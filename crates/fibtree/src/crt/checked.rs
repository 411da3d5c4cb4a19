//! A value put together from files, checked by computations made in this process that no file can
//! know ([`check`]).

use num_bigint::BigUint;

use crate::error::Result;
use crate::options::Options;
use crate::report::Report;
use crate::run::{assemble, drawn_prime, moduli_of, residues_each};

/// The report of `value`, a claimed c(n, g) put together from files (the residues of shards, by
/// [`super::combine_shards`]): its residues modulo 10^18, 998244353, every modulus of `options` and
/// a prime drawn for this call from the system's random source, each against the modular engine
/// run here, and its parity against the closed form of G. The drawn prime is the last projection,
/// and `options.hooks` is told it. Files altered so that the value agrees with every modulus known
/// before the call (a change by a multiple of their product) cannot be made to agree with the drawn
/// one but by chance, about once in 2^61 draws: the report is then not [`Report::ok`].
///
/// Cost: the modular engine's run of c(n, g) for these moduli ([`crate::mod_only`]), and a few
/// dozen primality tests.
///
/// # Errors
/// As [`crate::mod_only`]; [`crate::Error::Io`] where the system's random source cannot be read.
///
/// # Examples
///
/// ```
/// let options = fibtree::Options::default();
/// let truth = fibtree::count(300, 0)?;
/// assert!(fibtree::crt::check(300, 0, truth.clone(), &options)?.ok());
/// // altered by a multiple of 2 x 10^18 x 998244353: every fixed projection still agrees
/// let forged = truth + num_bigint::BigUint::from(2 * 998_244_353u64) * 10u64.pow(18);
/// let report = fibtree::crt::check(300, 0, forged, &options)?;
/// assert!(report.projections[..2].iter().all(|p| p.agrees()) && report.parity.agrees());
/// assert!(!report.ok()); // the drawn prime's projection does not
/// assert_eq!(report.projections.len(), 3);
/// # Ok::<(), fibtree::Error>(())
/// ```
pub fn check(n: u64, g: u64, value: BigUint, options: &Options) -> Result<Report> {
    let mut moduli = moduli_of(options)?;
    let drawn = drawn_prime(&moduli)?;
    moduli.push(drawn);
    options.hooks.notice(&format!(
        "the value is also checked modulo {drawn}, a prime drawn for this run, which no file can know"
    ));
    let (mut residues, estimate) = residues_each(&[(n, g)], &moduli, options)?;
    Ok(assemble((n, g), value, &moduli, &residues.remove(0), estimate))
}
