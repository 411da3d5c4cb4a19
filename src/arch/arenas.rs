//! The allocator's arenas: under an address-space limit, one arena for every thread.

/// Keeps the C allocator to one arena for every thread (glibc's `M_ARENA_MAX`), so that each
/// worker thread does not reserve an arena of 64 MiB of address space on its first allocation: the
/// memory guard counts what the process maps, and under `ulimit -v` such reservations would take
/// the room of the run. Elsewhere (another C library, another system) it does nothing.
///
/// Cost: one call into the allocator; effective for the threads that have not allocated yet.
pub(crate) fn one_arena() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: `mallopt` only sets a tunable of the allocator, for any value, from any thread;
        // M_ARENA_MAX is one of glibc's parameters.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 1);
        }
    }
}
