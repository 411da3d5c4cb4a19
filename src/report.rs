//! The report of a counting run: each target's exact value with its projections and the verdict of
//! every cross-check ([`Report`], [`Projection`]), and the residues alone of a run of the modular
//! engine ([`ModReport`]). The run that makes them is [`crate::run`].

use num_bigint::BigUint;

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

/// The exact c(n, g) with its projections and checks.
///
/// # Examples
///
/// ```
/// let report = fibtree::Counting::new(&[(10, 0)], &fibtree::Options::default())?.reports()?.remove(0);
/// assert!(report.ok());
/// assert_eq!((report.value.to_string(), report.digits()), ("17".to_string(), 2));
/// assert_eq!(report.projections.len(), 2); // mod 10^18 and mod 998244353
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
    /// With [`crate::Options::double_check`]: whether the other exact engine gave the same value.
    pub double_check: Option<bool>,
    /// The peak memory estimated before the run, in bytes.
    pub memory_estimate_bytes: u64,
}

impl Report {
    /// Whether every projection agrees with its independent computation.
    pub fn ok(&self) -> bool {
        self.projections.iter().all(Projection::agrees)
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
/// let report = fibtree::mod_only(300, 0, &fibtree::Options::default())?;
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
