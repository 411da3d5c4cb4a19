//! Sizes in words.

/// `bytes` in binary units, to one decimal: `512 B`, `1.5 KiB`, `63.0 MiB`, `2.6 GiB`. Cost O(1).
///
/// ```
/// assert_eq!(fibtree_util::human_bytes(512), "512 B");
/// assert_eq!(fibtree_util::human_bytes(1536), "1.5 KiB");
/// ```
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 { format!("{bytes} B") } else { format!("{value:.1} {}", UNITS[unit]) }
}
