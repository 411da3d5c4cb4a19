//! The caches the operating system reports: what the blocked engine sizes its chunks by (level 2),
//! and what the streaming rate of `fibtree bench` is measured at (levels 2 and 3).

use std::path::Path;
use std::sync::OnceLock;

/// Where Linux describes the caches of the first CPU, one `index*` folder a cache.
const CPU0_CACHES: &str = "/sys/devices/system/cpu/cpu0/cache";

/// The bytes of the level-2 cache of one core, as `/sys/devices/system/cpu/cpu0/cache/index*/`
/// reports it (the data or unified cache of level 2), or `None` where it does not (not Linux, or a
/// virtual machine that hides it); or the one the machine's setting gives ([`crate::Machine::l2`]).
/// Read once. Cost: a few reads of small files, the first time.
pub(crate) fn l2_bytes() -> Option<u64> {
    static L2: OnceLock<Option<u64>> = OnceLock::new();
    super::settings().l2.unwrap_or_else(|| *L2.get_or_init(|| read_level(Path::new(CPU0_CACHES), 2)))
}

/// The bytes of the level-3 cache that the first CPU shares with others, as
/// `/sys/devices/system/cpu/cpu0/cache/index*/` reports it (the data or unified cache of level 3),
/// or `None` where it does not (not Linux, a virtual machine that hides it, or a CPU without one:
/// the callers' fallback is theirs to say); or the one the machine's setting gives
/// ([`crate::Machine::l3`]). Read once. Cost: a few reads of small files, the first time.
pub(crate) fn l3_bytes() -> Option<u64> {
    static L3: OnceLock<Option<u64>> = OnceLock::new();
    super::settings().l3.unwrap_or_else(|| *L3.get_or_init(|| read_level(Path::new(CPU0_CACHES), 3)))
}

/// The level-2 data or unified cache among the `index*` folders under `folder`.
#[cfg(test)]
fn read_l2(folder: &Path) -> Option<u64> {
    read_level(folder, 2)
}

/// The data or unified cache of `level` among the `index*` folders under `folder`.
fn read_level(folder: &Path, level: u32) -> Option<u64> {
    let read = |dir: &Path, name: &str| std::fs::read_to_string(dir.join(name)).ok();
    std::fs::read_dir(folder).ok()?.flatten().find_map(|entry| {
        let dir = entry.path();
        let is_index = entry.file_name().to_str().is_some_and(|n| n.starts_with("index"));
        let its_level = read(&dir, "level")?;
        let kind = read(&dir, "type")?;
        let wanted = is_index
            && its_level.trim().parse::<u32>().is_ok_and(|l| l == level)
            && matches!(kind.trim(), "Data" | "Unified");
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

    /// A made-up `cache` folder under `root`: one `index*` folder a `(index, level, type, size)`.
    fn made_up(root: &Path, caches: &[(u32, u32, &str, &str)]) {
        for &(index, level, kind, size) in caches {
            let dir = root.join(format!("index{index}"));
            std::fs::create_dir_all(&dir).unwrap();
            for (name, text) in [("level", level.to_string()), ("type", kind.to_string()), ("size", size.to_string())] {
                std::fs::write(dir.join(name), format!("{text}\n")).unwrap();
            }
        }
    }

    #[test]
    fn the_level_2_cache_of_a_made_up_cpu() {
        let folder = tempfile::tempdir().unwrap();
        let root = folder.path().join("cache");
        made_up(&root, &[(0, 1, "Data", "48K"), (1, 1, "Instruction", "32K"), (2, 2, "Unified", "2048K")]);
        assert_eq!(read_l2(&root), Some(2 << 20));
        std::fs::remove_dir_all(root.join("index2")).unwrap();
        assert_eq!(read_l2(&root), None, "no level-2 cache reported");
        std::fs::remove_dir_all(&root).unwrap();
        assert_eq!(read_l2(&root), None, "no folder");
        println!("this machine: L2 {:?}", l2_bytes());
    }

    #[test]
    fn the_level_3_cache_of_a_made_up_cpu() {
        let folder = tempfile::tempdir().unwrap();
        let root = folder.path().join("cache");
        let caches = [(0, 1, "Data", "48K"), (1, 1, "Instruction", "32K"), (2, 2, "Unified", "2048K")];
        made_up(&root, &caches);
        assert_eq!(read_level(&root, 3), None, "no level-3 cache reported");
        // a level-3 instruction cache is not the one, a unified one is, whatever its index
        made_up(&root, &[(3, 3, "Instruction", "8M"), (7, 3, "Unified", "266240K")]);
        assert_eq!(read_level(&root, 3), Some(260 << 20));
        assert_eq!(read_level(&root, 2), Some(2 << 20), "level 2 unchanged beside it");
        // a level written as 13 is not level 3, a folder not named index* is not read
        std::fs::remove_dir_all(root.join("index7")).unwrap();
        made_up(&root, &[(8, 3, "Unified", "1M")]);
        std::fs::rename(root.join("index8"), root.join("power")).unwrap();
        made_up(&root, &[(9, 13, "Unified", "1M")]);
        assert_eq!(read_level(&root, 3), None);
        // an unreadable size is none
        made_up(&root, &[(10, 3, "Data", "lots")]);
        assert_eq!(read_level(&root, 3), None);
        println!("this machine: L3 {:?}", l3_bytes());
    }
}
