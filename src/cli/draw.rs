//! `fibtree draw` and `fibtree dist --svg`: pictures.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use num_bigint::BigUint;

use super::DrawArgs;
use super::output::Output;

/// `fibtree draw K|A..B [--g G] [-o FILE]`: the SVG picture of the trees, on standard output or in FILE
/// (atomically).
pub fn draw(args: DrawArgs) -> anyhow::Result<ExitCode> {
    let trees = fibtree::draw::parse_trees(&args.trees)?;
    let svg = fibtree::draw::svg(trees, args.g)?;
    let mut out = Output::open(args.output.output.as_deref())?;
    out.write_all(svg.as_bytes())?;
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}

/// Opens the file of `dist --svg` (a temporary name until the plot is complete), before any work,
/// so that a bad path is refused at once.
pub fn open_svg(path: &Path) -> anyhow::Result<Output> {
    Output::open(Some(path)).map_err(|e| match e.downcast::<fibtree::Error>() {
        // Output::open names --output; here the file is --svg's.
        Ok(fibtree::Error::InvalidArgument { expected, .. }) => fibtree::Error::invalid("--svg", expected).into(),
        Ok(other) => other.into(),
        Err(e) => e,
    })
}

/// Writes the plot of a distribution to `out` (opened by [`open_svg`]) and renames it into place.
pub fn dist_svg(mut out: Output, n: u64, entries: &[(u64, BigUint)], modulus: Option<u64>) -> anyhow::Result<()> {
    let svg = fibtree::draw::dist_svg(n, entries, modulus)?;
    out.write_all(svg.as_bytes())?;
    out.finish()
}
