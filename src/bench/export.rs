//! `bench --export-csv` and `--export-markdown`: the table of results, a row for each n and thread
//! count, as CSV or as a Markdown table. Written by hand: every field is a number or a fixed name,
//! so nothing needs quoting or escaping.

use super::report::{Bench, ResultOut};

/// A column: its name in both forms, and a row's value.
type Column = (&'static str, fn(&ResultOut) -> String);

/// The columns, in order.
const COLUMNS: [Column; 13] = [
    ("n", |r| r.n.to_string()),
    ("threads", |r| r.threads.to_string()),
    ("median_s", |r| format!("{:.6}", r.median_seconds)),
    ("min_s", |r| format!("{:.6}", r.min_seconds)),
    ("max_s", |r| format!("{:.6}", r.max_seconds)),
    ("runs", |r| r.runs.len().to_string()),
    ("speedup", |r| r.speedup.map_or(String::new(), |s| format!("{s:.3}"))),
    ("efficiency", |r| r.efficiency.map_or(String::new(), |e| format!("{e:.3}"))),
    ("limb_additions", |r| r.limb_additions.clone()),
    ("limb_additions_per_ns", |r| format!("{:.4}", r.limb_additions_per_ns)),
    ("stream_fraction", |r| r.stream_fraction.map_or(String::new(), |f| format!("{f:.4}"))),
    ("cut", |r| r.cut.to_string()),
    ("parallelism", |r| format!("{:.2}", r.parallelism)),
];

/// The results as CSV: a header line, then a line for each n and thread count, in the order run; a
/// figure not measured (the speedup without a 1-thread run) is an empty field. Cost O(rows).
pub(super) fn csv(bench: &Bench) -> String {
    let mut text = COLUMNS.map(|(name, _)| name).join(",") + "\n";
    for row in &bench.results {
        text += &(COLUMNS.map(|(_, value)| value(row)).join(",") + "\n");
    }
    text
}

/// The results as a Markdown table, the numbers aligned right; a figure not measured is `-`.
/// Cost O(rows).
pub(super) fn markdown(bench: &Bench) -> String {
    let mut text = format!("| {} |\n", COLUMNS.map(|(name, _)| name).join(" | "));
    text += &format!("|{}\n", " ---: |".repeat(COLUMNS.len()));
    for row in &bench.results {
        let cells = COLUMNS.map(|(_, value)| value(row)).map(|v| if v.is_empty() { "-".to_string() } else { v });
        text += &format!("| {} |\n", cells.join(" | "));
    }
    text
}
