//! `bench --pin`: each worker thread of a measurement on a CPU of its own (`sched_setaffinity`, on
//! Linux). The CPUs are those of the process's affinity mask, one of each core first: ordered by
//! their rank among the CPUs of their core (the first CPU of each core, then the second of each:
//! SMT siblings last), then by package, then by number, from the `core_id` and
//! `physical_package_id` Linux reports under `/sys/devices/system/cpu/cpuN/topology/`. Worker i of
//! a pool of T threads takes the i-th, so that T threads run on T distinct cores while the machine
//! has as many, on the cores of one package first.
//!
//! Where the machine does not allow it, the rows run unpinned and stderr says so, once for each
//! reason: a row of more threads than the mask's CPUs; the mask that cannot be read; a worker that
//! cannot be pinned, after which no row is (and the workers of that pool that were pinned are set
//! back to the whole mask before its first run: a pool is pinned whole or not at all).

use std::sync::{Arc, Barrier, Mutex, MutexGuard};

use super::timing::Subject;

use crate::messages::say;

/// The CPUs this process may run on, and the pinning of the calling thread, where the operating
/// system has them.
#[cfg(any(target_os = "linux", target_os = "android"))]
mod affinity {
    use rustix::thread::{CpuSet, sched_getaffinity, sched_setaffinity};

    /// The CPUs of the calling thread's affinity mask, ascending. Cost: one system call and a
    /// pass over the mask's bits.
    pub(super) fn allowed() -> std::io::Result<Vec<usize>> {
        let mask = sched_getaffinity(None)?;
        Ok((0..CpuSet::MAX_CPU).filter(|&cpu| mask.is_set(cpu)).collect())
    }

    /// Sets the calling thread's affinity mask to `cpus`. Cost: one system call.
    pub(super) fn set(cpus: &[usize]) -> std::io::Result<()> {
        let mut mask = CpuSet::new();
        for &cpu in cpus {
            if cpu >= CpuSet::MAX_CPU {
                return Err(std::io::Error::other(format!("past the {} CPUs of a mask", CpuSet::MAX_CPU)));
            }
            mask.set(cpu);
        }
        Ok(sched_setaffinity(None, &mask)?)
    }
}

/// No affinity on this operating system: each call says so.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
mod affinity {
    fn unsupported() -> std::io::Error {
        std::io::Error::new(std::io::ErrorKind::Unsupported, "not on this operating system")
    }

    pub(super) fn allowed() -> std::io::Result<Vec<usize>> {
        Err(unsupported())
    }

    pub(super) fn set(_: &[usize]) -> std::io::Result<()> {
        Err(unsupported())
    }
}

/// The core of `cpu` as Linux reports it: `(physical_package_id, core_id)`; `None` where it is not
/// reported. Cost: the reads of two small files.
fn core_of(cpu: usize) -> Option<(u64, u64)> {
    let read = |name: &str| -> Option<u64> {
        let path = format!("/sys/devices/system/cpu/cpu{cpu}/topology/{name}");
        std::fs::read_to_string(path).ok()?.trim().parse().ok()
    };
    Some((read("physical_package_id")?, read("core_id")?))
}

/// `cpus` (ascending) in the order the workers take them: by their rank among the CPUs of their
/// core (`core`'s answer; a CPU of unknown core is a core of its own), then by package, then by
/// number. Cost O(c log c) for c CPUs, and a call of `core` for each.
fn ordered(cpus: &[usize], core: impl Fn(usize) -> Option<(u64, u64)>) -> Vec<usize> {
    let mut seen: std::collections::HashMap<(u64, u64), usize> = std::collections::HashMap::new();
    let mut keyed: Vec<(usize, u64, usize)> = cpus
        .iter()
        .map(|&cpu| match core(cpu) {
            Some(key) => {
                let rank = seen.entry(key).or_default();
                *rank += 1;
                (*rank - 1, key.0, cpu)
            }
            None => (0, u64::MAX, cpu),
        })
        .collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, _, cpu)| cpu).collect()
}

/// `0, 2, 1, 3`, the first 16 and how many in all past them.
pub(super) fn listed(cpus: &[usize]) -> String {
    let shown: Vec<String> = cpus.iter().take(16).map(usize::to_string).collect();
    match cpus.len() > 16 {
        true => format!("{}, ... ({} in all)", shown.join(", "), cpus.len()),
        false => shown.join(", "),
    }
}

/// A mutex's guard, also where a thread panicked holding it (what it guards stays valid).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The pinning of one pool: worker i to `cpus[i]`, all of them or none.
pub(super) struct PoolPins {
    cpus: Vec<usize>,
    /// The process's whole mask, which a pool that could not be pinned whole is set back to.
    whole: Vec<usize>,
    /// Every worker's call waits here for the others', so that each knows whether all were pinned.
    barrier: Barrier,
    /// The first failure: the CPU and why.
    failed: Mutex<Option<String>>,
}

impl PoolPins {
    /// Pins the calling worker, `worker`, to its CPU; once every worker has tried, sets it back to the
    /// whole mask if any failed.
    fn pin(&self, worker: usize) {
        let tried = match self.cpus.get(worker) {
            Some(&cpu) => affinity::set(&[cpu]).map_err(|e| format!("CPU {cpu}: {e}")),
            None => Err(format!("worker {worker} of a pool of more than {} threads", self.cpus.len())),
        };
        if let Err(why) = tried {
            lock(&self.failed).get_or_insert(why);
        }
        self.barrier.wait();
        if lock(&self.failed).is_some() {
            // a failure here can leave this worker pinned; the row still says that it was not
            let _ = affinity::set(&self.whole);
        }
    }
}

/// What `--pin` found and did: the CPUs the workers take, and what stopped it.
pub(super) struct Pinning {
    /// The process's CPUs, in the order the workers take them (empty where they cannot be read).
    cpus: Vec<usize>,
    /// Why no row is pinned any more (the mask unread, a worker not pinned), in words.
    failed: Option<String>,
    /// The thread counts too many for the CPUs, each said once.
    too_many: Vec<usize>,
}

impl Pinning {
    /// The CPUs of the process's affinity mask, in the order the workers take them; where they
    /// cannot be read, says so (on stderr) and pins nothing. Cost: a system call and two small
    /// files read for each CPU.
    pub(super) fn new() -> Pinning {
        match affinity::allowed() {
            Ok(cpus) => Pinning { cpus: ordered(&cpus, core_of), failed: None, too_many: Vec::new() },
            Err(e) => {
                let why = format!("the CPUs this process may run on cannot be read ({e})");
                say(&format!("--pin: {why}: the runs are not pinned"));
                Pinning { cpus: Vec::new(), failed: Some(why), too_many: Vec::new() }
            }
        }
    }

    /// The CPUs in the order the workers take them.
    pub(super) fn cpus(&self) -> &[usize] {
        &self.cpus
    }

    /// Why no row is pinned any more, where something stopped it.
    pub(super) fn failed(&self) -> Option<&str> {
        self.failed.as_deref()
    }

    /// The thread counts that were more than the CPUs.
    pub(super) fn too_many(&self) -> &[usize] {
        &self.too_many
    }

    /// Sets `subject`'s next measurement, of `threads` threads, to pin its workers, where it can:
    /// the pool's pinning, to be [settled](Pinning::settle) after it, or `None` (nothing set; a row
    /// of more threads than CPUs said once).
    pub(super) fn arm(&mut self, subject: &mut Subject, threads: usize) -> Option<Arc<PoolPins>> {
        subject.on_each_worker(None);
        if self.failed.is_some() {
            return None;
        }
        if threads > self.cpus.len() {
            if !self.too_many.contains(&threads) {
                let cpus = fibtree_util::counted(self.cpus.len() as u64, "CPU");
                say(&format!("--pin: {threads} threads are more than the {cpus} this process may run on: not pinned"));
                self.too_many.push(threads);
            }
            return None;
        }
        let pins = Arc::new(PoolPins {
            cpus: self.cpus[..threads].to_vec(),
            whole: self.cpus.clone(),
            barrier: Barrier::new(threads),
            failed: Mutex::new(None),
        });
        let each = pins.clone();
        subject.on_each_worker(Some(Arc::new(move |worker| each.pin(worker))));
        Some(pins)
    }

    /// After a measurement [armed](Pinning::arm) with `pins`: the CPUs its workers ran on, worker i on
    /// the i-th, or `None` where they were not pinned (a failure said once, and no row pinned from
    /// here on).
    pub(super) fn settle(&mut self, subject: &mut Subject, pins: Option<Arc<PoolPins>>) -> Option<Vec<usize>> {
        subject.on_each_worker(None);
        let pins = pins?;
        match lock(&pins.failed).clone() {
            None => Some(pins.cpus.clone()),
            Some(why) => {
                let why = format!("a worker could not be pinned ({why})");
                say(&format!("--pin: {why}: the runs are not pinned from here on"));
                self.failed = Some(why);
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_cpu_of_each_core_first() {
        let cpus: Vec<usize> = (0..8).collect();
        // siblings numbered apart (cpu c and c + 4 on one core), as many Intel machines number them
        let apart = |cpu: usize| Some((0, cpu as u64 % 4));
        assert_eq!(ordered(&cpus, apart), [0, 1, 2, 3, 4, 5, 6, 7]);
        // siblings side by side (cpu 2k and 2k + 1)
        let adjacent = |cpu: usize| Some((0, cpu as u64 / 2));
        assert_eq!(ordered(&cpus, adjacent), [0, 2, 4, 6, 1, 3, 5, 7]);
        // two packages numbered alternately, no SMT: the first package's cores first
        let packages = |cpu: usize| Some((cpu as u64 % 2, cpu as u64 / 2));
        assert_eq!(ordered(&cpus, packages), [0, 2, 4, 6, 1, 3, 5, 7]);
        // no topology: by number
        assert_eq!(ordered(&[3, 5, 9], |_| None), [3, 5, 9]);
        // a mask with holes
        assert_eq!(ordered(&[1, 2, 5, 6], adjacent), [1, 2, 5, 6]);
    }

    #[test]
    fn cpus_listed() {
        assert_eq!(listed(&[0, 2, 1, 3]), "0, 2, 1, 3");
        let many: Vec<usize> = (0..20).collect();
        assert_eq!(listed(&many), "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, ... (20 in all)");
    }

    #[test]
    fn a_pool_is_pinned_whole_or_not_at_all() {
        let Ok(whole) = affinity::allowed() else { return };
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let pins = |cpus: Vec<usize>| PoolPins {
            cpus,
            whole: whole.clone(),
            barrier: Barrier::new(2),
            failed: Mutex::new(None),
        };
        // a CPU past any mask: the other worker, pinned, is set back to the whole mask
        let failing = pins(vec![whole[0], usize::MAX]);
        let masks = pool.broadcast(|w| {
            failing.pin(w.index());
            affinity::allowed().unwrap()
        });
        assert_eq!(masks, [whole.clone(), whole.clone()]);
        assert!(lock(&failing.failed).as_deref().is_some_and(|why| why.starts_with("CPU 18446744073709551615: ")));
        if whole.len() >= 2 {
            let pinned = pins(whole[..2].to_vec());
            let masks = pool.broadcast(|w| {
                pinned.pin(w.index());
                affinity::allowed().unwrap()
            });
            assert_eq!(masks, [vec![whole[0]], vec![whole[1]]]);
            assert!(lock(&pinned.failed).is_none());
        }
    }

    #[test]
    fn after_a_failure_no_row_is_pinned() {
        use fibtree::Hooks;
        let mut subject = Subject::new(200, &fibtree::Options::default()).unwrap();
        let mut pinning = Pinning { cpus: vec![usize::MAX], failed: None, too_many: Vec::new() };
        let pins = pinning.arm(&mut subject, 1);
        assert!(pins.is_some());
        subject.measure(1, 1, Hooks::default(), |_, _| {}).unwrap();
        assert_eq!(pinning.settle(&mut subject, pins), None);
        assert!(pinning.failed().is_some_and(|why| why.starts_with("a worker could not be pinned (CPU ")));
        assert!(pinning.arm(&mut subject, 1).is_none());
        // more threads than CPUs: not armed, and said once
        let mut pinning = Pinning { cpus: vec![0], failed: None, too_many: Vec::new() };
        assert!(pinning.arm(&mut subject, 2).is_none() && pinning.arm(&mut subject, 2).is_none());
        assert_eq!(pinning.too_many(), [2]);
    }

    #[test]
    fn this_machine_lists_its_cpus_once_each() {
        let pinning = Pinning::new();
        let mut cpus = pinning.cpus().to_vec();
        println!("CPUs in order: {cpus:?}, failed: {:?}", pinning.failed());
        cpus.sort_unstable();
        cpus.dedup();
        assert_eq!(cpus.len(), pinning.cpus().len());
        assert_eq!(pinning.failed().is_some(), pinning.cpus().is_empty());
    }
}
