//! The report of a counting run: each target's exact value with its projections and the verdict of
//! every cross-check ([`Report`], [`Projection`], [`Parity`]), and the residues alone of a run of the
//! modular engine ([`ModReport`]). The run that makes them is [`crate::run`].

use num_bigint::BigUint;

use crate::error::Error;
use fibtree_core::count_parity;

/// One projection of the exact value: its residue modulo `modulus`, and the residue an independent
/// modular computation found.
///
/// # Examples
///
/// ```
/// let report = fibtree::Counting::new(&[(300, 0)], &fibtree::Options::default())?.reports()?.remove(0);
/// let p = report.projection(fibtree::P998244353).unwrap();
/// assert_eq!((p.residue, p.independent, p.agrees()), (110_881_951, 110_881_951, true));
/// # Ok::<(), fibtree::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Projection {
    /// The modulus, 2 <= modulus < 2^63.
    pub modulus: u64,
    /// The exact value reduced modulo `modulus`.
    pub residue: u64,
    /// The modular engine's residue, computed without big integers.
    pub independent: u64,
}

impl Projection {
    /// Whether the two computations agree.
    pub fn agrees(&self) -> bool {
        self.residue == self.independent
    }
}

/// The third projection, which needs no engine: the exact value's parity against the closed form's,
/// c(n, g) mod 2 = [g < G(n)] (docs/math.md, "The parity of a count"; [`crate::count_parity`]). It
/// is kept apart from the [`Projection`]s, each of which is checked against the modular engine: this
/// one is checked against the closed form of G alone (and a `--mod 2` projection, where asked,
/// still goes to the modular engine).
///
/// # Examples
///
/// ```
/// let report = fibtree::Counting::new(&[(10, 0), (10, 26)], &fibtree::Options::default())?.reports()?;
/// // f(10) = 17 is odd, as 0 < G(10) = 14 says; c(10, 26) = 4 is even, as 26 >= 14 says
/// assert_eq!(report[0].parity, fibtree::Parity { residue: 1, closed_form: 1 });
/// assert_eq!(report[1].parity, fibtree::Parity::of(10, 26, &4u32.into()));
/// assert!(report[1].parity.agrees() && !fibtree::Parity::of(10, 26, &5u32.into()).agrees());
/// # Ok::<(), fibtree::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parity {
    /// The exact value mod 2.
    pub residue: u8,
    /// [g < G(n)]: the parity the closed form of G gives, from n and g alone.
    pub closed_form: u8,
}

impl Parity {
    /// The parity of `value`, claimed to be c(n, g), beside the closed form's. Cost O(1).
    pub fn of(n: u64, g: u64, value: &BigUint) -> Parity {
        Parity { residue: u8::from(value.bit(0)), closed_form: count_parity(n, g) }
    }

    /// Whether the exact value's parity is the closed form's.
    pub fn agrees(&self) -> bool {
        self.residue == self.closed_form
    }
}

/// The exact c(n, g) with its projections and checks.
///
/// # Examples
///
/// ```
/// let report = fibtree::Counting::new(&[(10, 0)], &fibtree::Options::default())?.reports()?.remove(0);
/// assert!(report.ok());
/// assert_eq!((report.value.to_string(), report.digits()), ("17".to_string(), 2));
/// assert_eq!(report.projections.len(), 2); // mod 10^18 and mod 998244353
/// assert!(report.parity.agrees()); // and mod 2, by the closed form of G
/// assert_eq!(report.double_check, None); // not asked for
/// # Ok::<(), fibtree::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Report {
    /// The tree T(n).
    pub n: u64,
    /// The Grundy value the moves lead to (0: winning moves).
    pub g: u64,
    /// The exact count.
    pub value: BigUint,
    /// mod 10^18, mod 998244353, then each further modulus in the order asked (repeats removed).
    pub projections: Vec<Projection>,
    /// The value's parity against the closed form's, the projection that needs no engine.
    pub parity: Parity,
    /// With [`crate::Options::double_check`]: whether the other exact engine gave the same value.
    pub double_check: Option<bool>,
    /// The peak memory estimated before the run, in bytes.
    pub memory_estimate_bytes: u64,
}

impl Report {
    /// Whether every projection agrees with its independent computation: each modulus with the
    /// modular engine, the parity with the closed form. (The double check is apart: see
    /// [`Report::double_check`].)
    pub fn ok(&self) -> bool {
        self.projections.iter().all(Projection::agrees) && self.parity.agrees()
    }

    /// Every check of [`Report::ok`] that failed, each as the error that says it: an
    /// [`Error::CrossCheck`] for each projection the modular engine disagrees with, in order, then an
    /// [`Error::ParityCheck`] where the closed form does. Empty exactly where the report is ok.
    ///
    /// # Examples
    ///
    /// ```
    /// let options = fibtree::Options::default();
    /// let mut report = fibtree::Counting::new(&[(10, 0)], &options)?.reports()?.remove(0);
    /// assert!(report.failures().is_empty());
    /// report.parity.closed_form ^= 1; // as `count --test-perturb 2` does
    /// let failures = report.failures();
    /// assert!(matches!(failures[..], [fibtree::Error::ParityCheck { n: 10, g: 0, .. }]));
    /// assert!(failures[0].to_string().starts_with("CROSS-CHECK FAILED for c(10, 0) mod 2"));
    /// # Ok::<(), fibtree::Error>(())
    /// ```
    pub fn failures(&self) -> Vec<Error> {
        let (n, g) = (self.n, self.g);
        let mut failures: Vec<Error> = (self.projections.iter().filter(|p| !p.agrees()))
            .map(|p| Error::cross_check(n, g, p.modulus, p.residue, p.independent))
            .collect();
        if !self.parity.agrees() {
            failures.push(Error::ParityCheck {
                n,
                g,
                exact: self.parity.residue,
                closed_form: self.parity.closed_form,
            });
        }
        failures
    }

    /// The number of decimal digits of the value (1 for 0). Cost O(digits^2 / 64).
    pub fn digits(&self) -> usize {
        fibtree_util::decimal_digits(&self.value)
    }

    /// The projection onto `modulus`, if the report has it.
    pub fn projection(&self, modulus: u64) -> Option<&Projection> {
        self.projections.iter().find(|p| p.modulus == modulus)
    }
}

/// The residues of c(n, g) alone, by the modular engine: what `count --mod-only` prints.
///
/// # Examples
///
/// ```
/// use fibtree::{LAST18, P998244353};
/// let report = fibtree::mod_only(&[(300, 0)], &fibtree::Options::default())?.remove(0);
/// assert_eq!(report.residues, [(LAST18, 799_101_863_880_973_663), (P998244353, 110_881_951)]);
/// # Ok::<(), fibtree::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModReport {
    /// The tree T(n).
    pub n: u64,
    /// The Grundy value the moves lead to (0: winning moves).
    pub g: u64,
    /// `(modulus, residue)`: mod 10^18, mod 998244353, then each further modulus in the order asked
    /// (repeats removed).
    pub residues: Vec<(u64, u64)>,
    /// The peak memory estimated before the run, in bytes.
    pub memory_estimate_bytes: u64,
}
