//! The caches the operating system reports: what the blocked engine sizes its chunks by.

use std::sync::OnceLock;

/// The bytes of the level-2 cache of one core, as `/sys/devices/system/cpu/cpu0/cache/index*/`
/// reports it (the data or unified cache of level 2), or `None` where it does not (not Linux, or a
/// virtual machine that hides it). Read once. Cost: a few reads of small files, the first time.
pub(crate) fn l2_bytes() -> Option<u64> {
    static L2: OnceLock<Option<u64>> = OnceLock::new();
    *L2.get_or_init(|| read_l2(std::path::Path::new("/sys/devices/system/cpu/cpu0/cache")))
}

/// The level-2 data or unified cache among the `index*` folders under `folder`.
fn read_l2(folder: &std::path::Path) -> Option<u64> {
    let read = |dir: &std::path::Path, name: &str| std::fs::read_to_string(dir.join(name)).ok();
    std::fs::read_dir(folder).ok()?.flatten().find_map(|entry| {
        let dir = entry.path();
        let is_index = entry.file_name().to_str().is_some_and(|n| n.starts_with("index"));
        let level = read(&dir, "level")?;
        let kind = read(&dir, "type")?;
        let wanted = is_index && level.trim() == "2" && matches!(kind.trim(), "Data" | "Unified");
        wanted.then(|| parse_size(&read(&dir, "size")?)).flatten()
    })
}

/// A cache size as sysfs writes it: `512K`, `2048K`, `32M`, or bytes.
fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let (digits, scale) = match text.as_bytes().last()? {
        b'K' => (&text[..text.len() - 1], 1 << 10),
        b'M' => (&text[..text.len() - 1], 1 << 20),
        b'G' => (&text[..text.len() - 1], 1 << 30),
        _ => (text, 1),
    };
    digits.parse::<u64>().ok()?.checked_mul(scale).filter(|&b| b > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_as_sysfs_writes_them() {
        assert_eq!(parse_size("512K\n"), Some(512 << 10));
        assert_eq!(parse_size("32M"), Some(32 << 20));
        assert_eq!(parse_size("2048"), Some(2048));
        assert_eq!(parse_size("0K"), None);
        assert_eq!(parse_size("lots"), None);
    }

    #[test]
    fn the_level_2_cache_of_a_made_up_cpu() {
        let folder = tempfile::tempdir().unwrap();
        let root = folder.path().join("cache");
        for (index, level, kind, size) in
            [(0, 1, "Data", "48K"), (1, 1, "Instruction", "32K"), (2, 2, "Unified", "2048K")]
        {
            let dir = root.join(format!("index{index}"));
            std::fs::create_dir_all(&dir).unwrap();
            for (name, text) in [("level", level.to_string()), ("type", kind.to_string()), ("size", size.to_string())] {
                std::fs::write(dir.join(name), format!("{text}\n")).unwrap();
            }
        }
        assert_eq!(read_l2(&root), Some(2 << 20));
        std::fs::remove_dir_all(root.join("index2")).unwrap();
        assert_eq!(read_l2(&root), None, "no level-2 cache reported");
        std::fs::remove_dir_all(&root).unwrap();
        assert_eq!(read_l2(&root), None, "no folder");
        println!("this machine: L2 {:?}", l2_bytes());
    }
}
