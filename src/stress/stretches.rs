//! The stretches of n by verdict that a report gives, claiming only what ran: a stretch is n that
//! ran one after another among the n asked (no n asked and not run between them) with one verdict,
//! written `A..B` where it is every n from A to B, `A..B:S` where it is every S-th (as `--n` takes
//! it, at least [`STEPPED`] n), else n by n.

use serde::Serialize;

use super::verdict::{Judged, Verdict};

/// The fewest n of a stretch with a step above 1 written `A..B:S` (fewer are named one by one).
const STEPPED: usize = 4;

/// n from `from` to `to` by `step`, each of them asked and run, with one verdict (fields in
/// alphabetical order, as the JSON lists them).
#[derive(Debug, PartialEq, Eq, Serialize)]
pub(super) struct Stretch {
    pub(super) from: u64,
    pub(super) runs: usize,
    pub(super) step: u64,
    pub(super) to: u64,
    pub(super) verdict: Verdict,
}

impl Stretch {
    /// `A..B`, `A..B:S`, or the one n.
    fn written(&self) -> String {
        match (self.runs, self.step) {
            (1, _) => self.from.to_string(),
            (_, 1) => format!("{}..{}", self.from, self.to),
            (_, step) => format!("{}..{}:{step}", self.from, self.to),
        }
    }
}

/// The stretches of `judged` (ascending n, each one of `asked`, ascending), in order. Cost
/// O(judged log asked).
pub(super) fn stretches(asked: &[u64], judged: &[Judged]) -> Vec<Stretch> {
    // runs one after another among the n asked, with one verdict
    let mut rows: Vec<(Verdict, Vec<u64>)> = Vec::new();
    let mut before: Option<usize> = None;
    for j in judged {
        let at = asked.binary_search(&j.n).ok();
        let next = before.zip(at).is_some_and(|(b, a)| b + 1 == a);
        match rows.last_mut() {
            Some((verdict, row)) if next && *verdict == j.verdict => row.push(j.n),
            _ => rows.push((j.verdict, vec![j.n])),
        }
        before = at;
    }
    rows.iter().flat_map(|(verdict, row)| pieces(row, *verdict)).collect()
}

/// `row` (ascending) cut into stretches: from each n, the longest run of n at one step that is
/// every n from A to B (two or more) or at least [`STEPPED`] n at another step, else the n alone.
fn pieces(row: &[u64], verdict: Verdict) -> Vec<Stretch> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < row.len() {
        let mut j = i;
        if i + 1 < row.len() {
            let step = row[i + 1] - row[i];
            j = i + 1;
            while j + 1 < row.len() && row[j + 1] - row[j] == step {
                j += 1;
            }
            if !(step == 1 || j - i + 1 >= STEPPED) {
                j = i;
            }
        }
        let step = if j > i { row[i + 1] - row[i] } else { 1 };
        out.push(Stretch { from: row[i], runs: j - i + 1, step, to: row[j], verdict });
        i = j + 1;
    }
    out
}

/// The stretches in words, those of one verdict in a row together: `OK 1..22 (22), MISMATCH 23,
/// 25 (2), OK 1, 5, 9, 11 (4)`.
pub(super) fn written(stretches: &[Stretch]) -> String {
    let mut groups: Vec<(Verdict, Vec<String>, usize)> = Vec::new();
    for s in stretches {
        match groups.last_mut() {
            Some((verdict, parts, runs)) if *verdict == s.verdict => {
                parts.push(s.written());
                *runs += s.runs;
            }
            _ => groups.push((s.verdict, vec![s.written()], s.runs)),
        }
    }
    let words: Vec<String> = groups
        .iter()
        .map(|(verdict, parts, runs)| format!("{} {} ({runs})", verdict.word(), parts.join(", ")))
        .collect();
    words.join(", ")
}

#[cfg(test)]
mod tests {
    use super::super::verdict::tests::judged;
    use super::*;

    /// The stretches in words of the runs `(n, verdict)` of the n `asked`.
    fn words(asked: &[u64], runs: &[(u64, Verdict)]) -> String {
        let judged: Vec<Judged> = runs.iter().map(|&(n, v)| judged(n, v)).collect();
        written(&stretches(asked, &judged))
    }

    #[test]
    fn every_n_asked_run() {
        let ok = Verdict::Ok;
        let runs = [(1, ok), (2, ok), (5, Verdict::Crash), (9, ok)];
        let asked: Vec<u64> = (1..=9).collect();
        let judged: Vec<Judged> = runs.iter().map(|&(n, v)| judged(n, v)).collect();
        let s = stretches(&[1, 2, 5, 9], &judged);
        let s: Vec<(u64, u64, u64, usize, Verdict)> =
            s.iter().map(|s| (s.from, s.to, s.step, s.runs, s.verdict)).collect();
        assert_eq!(s, [(1, 2, 1, 2, ok), (5, 5, 1, 1, Verdict::Crash), (9, 9, 1, 1, ok)]);
        // asked 1..9, run at four: nothing spans an n not run
        assert_eq!(words(&asked, &runs), "OK 1..2 (2), CRASH 5 (1), OK 9 (1)");
        let all: Vec<(u64, Verdict)> = asked.iter().map(|&n| (n, ok)).collect();
        assert_eq!(words(&asked, &all), "OK 1..9 (9)");
    }

    #[test]
    fn a_list_names_its_n_and_a_step_is_written_as_asked() {
        let ok = Verdict::Ok;
        let list = [1, 5, 9, 11];
        assert_eq!(words(&list, &list.map(|n| (n, ok))), "OK 1, 5, 9, 11 (4)");
        let stepped: Vec<u64> = (1..=40).step_by(3).collect();
        let runs: Vec<(u64, Verdict)> = stepped.iter().map(|&n| (n, ok)).collect();
        assert_eq!(words(&stepped, &runs), "OK 1..40:3 (14)");
        let two_ranges: Vec<u64> = (1..=3).chain(10..=12).collect();
        let runs: Vec<(u64, Verdict)> = two_ranges.iter().map(|&n| (n, ok)).collect();
        assert_eq!(words(&two_ranges, &runs), "OK 1..3, 10..12 (6)");
    }

    #[test]
    fn bisection_runs_are_named_where_n_between_did_not_run() {
        let asked: Vec<u64> = (1..=40).collect();
        let (ok, wrong) = (Verdict::Ok, Verdict::Mismatch);
        let runs = [(1, ok), (5, ok), (9, ok), (11, ok), (12, wrong), (13, wrong), (20, wrong), (40, ok)];
        assert_eq!(words(&asked, &runs), "OK 1, 5, 9, 11 (4), MISMATCH 12..13, 20 (3), OK 40 (1)");
    }
}
