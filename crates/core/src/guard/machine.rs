//! What the machine lets a run use: the least of the memory available, the room left in the
//! process's cgroup, and the room left under its address-space and data-segment limits; and which
//! of them it is, so that a refusal can name it.
//!
//! - *Available*: `MemAvailable` of `/proc/meminfo`.
//! - *Cgroup*: for the process's own cgroup (`/proc/self/cgroup`) and each of its ancestors, where
//!   it has a limit, the limit less what the cgroup uses, not counting the page cache the kernel
//!   can drop (`inactive_file`): cgroup v2 `memory.max` and `memory.current`, cgroup v1
//!   `memory.limit_in_bytes` and `memory.usage_in_bytes` (a Kubernetes pod, a Slurm job's `--mem`).
//! - *Address space* (`ulimit -v`, RLIMIT_AS): the soft limit less what the process already maps
//!   (`VmSize`) and the stacks of the threads still to start. (The allocator's arenas, which each
//!   thread may reserve, are a setting of the whole process: the program's to make, as fibtree's
//!   command line does under such a limit; the library makes none.)
//! - *Data segment* (`ulimit -d`, RLIMIT_DATA): the soft limit less the process's data (`VmData`)
//!   and the stacks still to start.

use std::path::{Path, PathBuf};

use crate::limit::{Bound, Limit};

/// The address space a thread of the pool adds: its stack (2 MiB, the default of Rust's threads),
/// its guard page and its thread-local data, with room to spare.
const THREAD_BYTES: u64 = (2 << 20) + (256 << 10);

impl Limit {
    /// The memory a run on `threads` threads may use: the least of `given` (where there is one) and
    /// the machine's hard limits (cgroup, address space, data segment), or without `given` the least
    /// of those and the memory available.
    ///
    /// Cost: the reads of a few small files of `/proc` and `/sys`.
    pub fn new(given: Option<u64>, threads: usize) -> Limit {
        run_limit(given, threads)
    }
}

/// The memory a run on `threads` threads may use: the least of `given` (where there is one) and the
/// machine's hard limits (cgroup, address space, data segment), or without `given` the least of
/// those and the memory available.
///
/// Cost: the reads of a few small files of `/proc` and `/sys`.
pub(crate) fn run_limit(given: Option<u64>, threads: usize) -> Limit {
    let soft = match given {
        Some(bytes) => Limit { bytes, bound: Bound::Given },
        None => available(),
    };
    // a hard limit of the same bytes as the given one is named: it is the one the user cannot lift
    hard_limits(threads).into_iter().fold(soft, |least, l| if l.bytes <= least.bytes { l } else { least })
}

/// `MemAvailable` (or the memory the machine's setting gives, [`crate::Machine::memory`]), or no
/// limit where it cannot be read.
fn available() -> Limit {
    if let Some(bytes) = crate::machine::memory() {
        return Limit { bytes, bound: Bound::Machine };
    }
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let bytes = field(&meminfo, "MemAvailable:").and_then(|kb| kb.checked_mul(1024));
    Limit { bytes: bytes.unwrap_or(u64::MAX), bound: Bound::Available }
}

/// The limits no run can pass: the cgroups', the address space's, the data segment's, those that
/// are set.
fn hard_limits(threads: usize) -> Vec<Limit> {
    let mut limits = Vec::new();
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib = |key: &str| field(&status, key).and_then(|kb| kb.checked_mul(1024));
    // the threads of the pool still to start (the process's own are counted in what it maps)
    let running = field(&status, "Threads:").unwrap_or(1);
    let to_come = (threads as u64 + 1).saturating_sub(running).saturating_mul(THREAD_BYTES);
    let rlimits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
    if let Some(max) = rlimit(&rlimits, "Max address space") {
        let used = kib("VmSize:").unwrap_or(0).saturating_add(to_come);
        limits.push(Limit { bytes: max.saturating_sub(used), bound: Bound::AddressSpace { max, used } });
    }
    if let Some(max) = rlimit(&rlimits, "Max data size") {
        let used = kib("VmData:").unwrap_or(0).saturating_add(to_come);
        limits.push(Limit { bytes: max.saturating_sub(used), bound: Bound::Data { max, used } });
    }
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    limits.extend(cgroup_room(&cgroups, &mounts));
    limits
}

/// The number of a `/proc` status field (`VmSize:  1234 kB` gives 1234). Cost O(text).
fn field(text: &str, key: &str) -> Option<u64> {
    text.lines().find(|l| l.starts_with(key))?.split_whitespace().nth(1)?.parse().ok()
}

/// The soft limit of the line `name` of `/proc/self/limits`, where it is set. Cost O(text).
pub(super) fn rlimit(text: &str, name: &str) -> Option<u64> {
    text.lines().find_map(|l| l.strip_prefix(name))?.split_whitespace().next()?.parse().ok()
}

/// The least room left under a limit of the process's cgroups, v2 and v1, given the texts of
/// `/proc/self/cgroup` and `/proc/self/mountinfo`: for the process's cgroup and each ancestor up to
/// the mount's root, the limit less the usage and less the page cache that can be dropped. `None`
/// where no cgroup has a limit (or none can be read). Cost: a few small files a level.
fn cgroup_room(cgroups: &str, mounts: &str) -> Option<Limit> {
    let mut rooms = Vec::new();
    for line in cgroups.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next()) else { continue };
        let v2 = controllers.is_empty();
        if !v2 && !controllers.split(',').any(|c| c == "memory") {
            continue;
        }
        let Some((mount, root)) = mount_of(mounts, v2) else { continue };
        let relative = Path::new(path).strip_prefix(&root).unwrap_or(Path::new(path));
        let relative = relative.strip_prefix("/").unwrap_or(relative);
        let mut dir = mount.join(relative);
        loop {
            rooms.extend(room_in(&dir, v2));
            if dir == mount || !dir.pop() || !dir.starts_with(&mount) {
                break;
            }
        }
    }
    rooms.into_iter().min_by_key(|l| l.bytes)
}

/// Where the cgroup hierarchy is mounted (v2, or v1's with the memory controller), and the root of
/// the hierarchy it shows, from `/proc/self/mountinfo`. Cost O(text).
fn mount_of(mounts: &str, v2: bool) -> Option<(PathBuf, PathBuf)> {
    mounts.lines().find_map(|line| {
        let (mine, theirs) = line.split_once(" - ")?;
        let mine: Vec<&str> = mine.split_whitespace().collect();
        let theirs: Vec<&str> = theirs.split_whitespace().collect();
        let fits = match (theirs.first().copied(), v2) {
            (Some("cgroup2"), true) => true,
            (Some("cgroup"), false) => theirs.get(2).is_some_and(|o| o.split(',').any(|o| o == "memory")),
            _ => false,
        };
        (fits && mine.len() >= 5).then(|| (PathBuf::from(mine[4]), PathBuf::from(mine[3])))
    })
}

/// The room left under the limit of the cgroup `dir`, where it has one: the limit less the usage,
/// and less the page cache the kernel can drop. Cost: three small files.
fn room_in(dir: &Path, v2: bool) -> Option<Limit> {
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).ok();
    let (max, usage, cache) = if v2 {
        ("memory.max", "memory.current", "inactive_file")
    } else {
        ("memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file")
    };
    // "max" (v2) does not parse; v1 writes no limit as about 2^63
    let max: u64 = read(max)?.trim().parse().ok().filter(|&m| m < 1 << 62)?;
    let usage: u64 = read(usage).and_then(|u| u.trim().parse().ok()).unwrap_or(0);
    let stat = read("memory.stat").unwrap_or_default();
    let dropped = stat.lines().find_map(|l| l.strip_prefix(cache)?.trim().parse::<u64>().ok()).unwrap_or(0);
    let used = usage.saturating_sub(dropped);
    Some(Limit { bytes: max.saturating_sub(used), bound: Bound::Cgroup { max, v2 } })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_soft_limits_are_read() {
        let text = "Limit                     Soft Limit           Hard Limit           Units\n\
                    Max data size             unlimited            unlimited            bytes\n\
                    Max processes             2                    2                    processes\n\
                    Max address space         61440000             unlimited            bytes\n";
        assert_eq!(rlimit(text, "Max address space"), Some(61_440_000));
        assert_eq!(rlimit(text, "Max processes"), Some(2));
        assert_eq!(rlimit(text, "Max data size"), None);
        assert_eq!(field("VmSize:\t   10240 kB\nThreads:\t3\n", "Threads:"), Some(3));
    }

    /// A cgroup tree of both versions, written to a folder and named by mount texts: the least room
    /// of the process's cgroup and its ancestors, the dropped cache not counted as used.
    #[test]
    fn the_cgroups_room_is_the_least_of_its_levels() {
        let root = std::env::temp_dir().join(format!("fibtree-cgroups-{}", std::process::id()));
        let write = |dir: &str, name: &str, text: &str| {
            let dir = root.join(dir);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join(name), text).unwrap();
        };
        write("v2/pod/job", "memory.max", "1000000\n");
        write("v2/pod/job", "memory.current", "300000\n");
        write("v2/pod/job", "memory.stat", "anon 1\ninactive_file 100000\n");
        write("v2/pod", "memory.max", "max\n");
        write("v1/memory/slurm", "memory.limit_in_bytes", "9223372036854771712\n");
        write("v1/memory/slurm/job", "memory.limit_in_bytes", "5000000\n");
        write("v1/memory/slurm/job", "memory.usage_in_bytes", "1000000\n");
        let mounts = format!(
            "41 31 0:38 / {} rw - cgroup2 cgroup2 rw\n35 31 0:32 / {} rw - cgroup cgroup rw,memory\n",
            root.join("v2").display(),
            root.join("v1/memory").display()
        );
        let v2 = cgroup_room("0::/pod/job\n", &mounts).unwrap();
        assert_eq!(v2, Limit { bytes: 800_000, bound: Bound::Cgroup { max: 1_000_000, v2: true } });
        let v1 = cgroup_room("4:memory:/slurm/job\n0::/\n", &mounts).unwrap();
        assert_eq!(v1, Limit { bytes: 4_000_000, bound: Bound::Cgroup { max: 5_000_000, v2: false } });
        let both = cgroup_room("4:memory:/slurm/job\n0::/pod/job\n", &mounts).unwrap();
        assert_eq!(both.bytes, 800_000);
        assert_eq!(cgroup_room("4:cpu:/slurm/job\n", &mounts), None);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_limit_names_itself() {
        let limit = Limit { bytes: 40 << 20, bound: Bound::AddressSpace { max: 60_000 << 10, used: 18 << 20 } };
        let text = limit.to_string();
        assert!(text.contains("the address-space limit (ulimit -v) of 58.6 MiB"), "{text}");
        assert!(text.starts_with("the 40.0 MiB it may use"), "{text}");
    }
}
