//! The CPU time of the calling thread, for the task graph a run records.

/// Seconds of CPU time the calling thread has used so far (`CLOCK_THREAD_CPUTIME_ID`, read through
/// `rustix`), so that more threads than cores do not inflate a task's time; on a platform without
/// it, wall time since the first call in the process instead. Only differences matter.
///
/// Cost: one `clock_gettime` (a vDSO call or a system call), no memory.
#[cfg(unix)]
pub(crate) fn thread_cpu_seconds() -> f64 {
    let now = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    now.tv_sec as f64 + now.tv_nsec as f64 * 1e-9
}

/// See the unix version: wall time on this platform.
#[cfg(not(unix))]
pub(crate) fn thread_cpu_seconds() -> f64 {
    wall_seconds()
}

/// Seconds since the first call in the process. Cost O(1).
#[cfg(not(unix))]
fn wall_seconds() -> f64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed().as_secs_f64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_time_grows_with_work_not_with_sleep() {
        let start = thread_cpu_seconds();
        let mut x = 1u64;
        for i in 0..20_000_000u64 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
        }
        let busy = thread_cpu_seconds() - start;
        assert!(busy > 0.0, "{busy}");
        std::thread::sleep(std::time::Duration::from_millis(200));
        let slept = thread_cpu_seconds() - start - busy;
        assert!(slept < 0.1, "sleeping used {slept} s of CPU time");
        assert_ne!(x, 0);
    }
}
