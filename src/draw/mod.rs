//! `fibtree draw`: an SVG picture of T(K), or of T(A)..T(B) side by side, with the moves to G in red.

use std::ops::RangeInclusive;
use std::process::ExitCode;

pub(crate) mod svg;

use fibtree_util::NotWhole;
use serde::Serialize;
use svg::{MAX_DRAW_K, svg};

use super::args::DrawArgs;
use super::session::{Outcome, OutputForm, Session};
use crate::error::refused;

/// The picture: an SVG document (its JSON form is not offered; `draw` has no `--json`).
#[derive(Serialize)]
struct Picture {
    svg: String,
}

impl Outcome for Picture {
    fn human(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        out.write_all(self.svg.as_bytes())
    }
}

/// `fibtree draw K|A..B [--g G] [-o FILE]`: the SVG picture of the trees, on standard output or in
/// FILE (atomically).
pub(super) fn draw(args: DrawArgs) -> crate::error::Result<ExitCode> {
    let trees = parse_trees(&args.trees).map_err(|(flag, message)| refused(flag, message))?;
    let picture = Picture { svg: svg(trees, args.g).map_err(|why| refused("K", why))? };
    let mut session = Session::new(args.output.output.as_deref(), None, false)?;
    session.emit(&picture, OutputForm::Human)?;
    Ok(ExitCode::SUCCESS)
}

/// The trees `K` or `A..B` (both ends included), each at most [`MAX_DRAW_K`].
///
/// # Errors
/// `(argument, message)`, the argument `K|A..B` for a malformed value, `K` or `B` for a tree above
/// [`MAX_DRAW_K`], `A..B` for A > B.
fn parse_trees(s: &str) -> Result<RangeInclusive<u32>, (&'static str, String)> {
    // Digits only, so the only failure is overflow: a huge number, refused as above the limit.
    let value = |t: &str| match fibtree_util::parse_whole::<u32>(t) {
        Ok(v) => Some(v),
        Err(NotWhole::TooLarge) => Some(u32::MAX),
        Err(NotWhole::NotDigits) => None,
    };
    let too_many = |arg, t: &str| (arg, format!("at most {MAX_DRAW_K}: too many nodes to draw legibly, got {t}"));
    if let Some(k) = value(s) {
        return if k > MAX_DRAW_K { Err(too_many("K", s)) } else { Ok(k..=k) };
    }
    match s.split_once("..").map(|(a, b)| (value(a), value(b), b)) {
        Some((Some(from), Some(to), b)) => {
            if from > to {
                Err(("A..B", format!("A at most B, got {s}")))
            } else if to > MAX_DRAW_K {
                Err(too_many("B", b))
            } else {
                Ok(from..=to)
            }
        }
        _ => Err(("K|A..B", format!("expected a tree K or a range A..B of whole numbers (e.g. 6 or 1..6), got '{s}'"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_trees_and_ranges() {
        assert_eq!(parse_trees("6").unwrap(), 6..=6);
        assert_eq!(parse_trees("0").unwrap(), 0..=0);
        assert_eq!(parse_trees("1..6").unwrap(), 1..=6);
        assert_eq!(parse_trees("14..14").unwrap(), 14..=14);
        let arg = |s: &str| match parse_trees(s) {
            Err((arg, _)) => arg,
            other => panic!("{s}: {other:?}"),
        };
        assert_eq!(arg("15"), "K");
        assert_eq!(arg("99999999999999999999999"), "K");
        assert_eq!(arg("3..20"), "B");
        assert_eq!(arg("5..2"), "A..B");
        for bad in ["x", "", "1..", "..3", "1...3", "1..=3", "-1", "1..2..3", " 1", "1 .. 2", "+3"] {
            assert_eq!(arg(bad), "K|A..B", "{bad:?}");
        }
    }
}
