//! Sizes in words, and as people write them.

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

/// A size in bytes: digits with an optional unit K, M, G or T (powers of 1024; `KiB`, `MB` and the
/// like are read the same way), and a decimal fraction (5.5G); more than 0 and below 2^64. Cost O(length).
///
/// ```
/// assert_eq!(fibtree_util::parse_bytes("512M"), Ok(512 << 20));
/// assert_eq!(fibtree_util::parse_bytes("1.5KiB"), Ok(1536));
/// assert!(fibtree_util::parse_bytes("lots").is_err() && fibtree_util::parse_bytes("0").is_err());
/// ```
///
/// # Errors
/// What was expected (the caller names the text given).
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let bad = || "expected a size such as 4G, 5.5G, 512M or 1000000".to_string();
    let whole = s.bytes().take_while(u8::is_ascii_digit).count();
    let (number, rest) = s.split_at(whole);
    // a decimal fraction, as in 5.4G
    let (fraction, unit) = match rest.strip_prefix('.') {
        Some(rest) => rest.split_at(rest.bytes().take_while(u8::is_ascii_digit).count()),
        None => ("", rest),
    };
    if number.is_empty() || (rest.starts_with('.') && fraction.is_empty()) || fraction.len() > 18 {
        return Err(bad());
    }
    let number: u128 = number.parse().map_err(|_| bad())?;
    let shift = match unit.trim().to_ascii_uppercase().trim_end_matches('B').trim_end_matches('I') {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return Err(bad()),
    };
    let scale = 10u128.pow(fraction.len() as u32);
    let fraction: u128 = if fraction.is_empty() { 0 } else { fraction.parse().map_err(|_| bad())? };
    let bytes = number.checked_mul(1 << shift).and_then(|b| b.checked_add((fraction << shift) / scale));
    bytes.and_then(|b| u64::try_from(b).ok()).filter(|&b| b > 0).ok_or_else(bad)
}
