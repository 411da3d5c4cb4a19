//! The operating system's calls that Rust's standard library does not wrap: a duplicate of one of the
//! process's own descriptors, for writing through `/dev/fd/N`.

use std::fs::File;

/// Why a descriptor cannot be written through.
#[derive(Debug)]
pub(crate) enum DescriptorProblem {
    /// The number is not an open descriptor of this process.
    NotOpen,
    /// The descriptor is open for reading only.
    ReadOnly,
    /// Duplicating it failed (too many open files, for example).
    Duplicate(std::io::Error),
}

/// A new descriptor (a [`File`]) for this process's open descriptor `fd`, which must be open for
/// writing; it shares the original's file offset and flags (an appending standard output keeps
/// appending).
///
/// Cost: two system calls (`fcntl`).
///
/// # Errors
/// A [`DescriptorProblem`] saying why not.
#[cfg(unix)]
pub(crate) fn duplicate_for_writing(fd: i32) -> Result<File, DescriptorProblem> {
    // SAFETY: F_GETFL reads the flags of a descriptor number and touches no memory; a number that
    // is not an open descriptor gives -1 (EBADF).
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(DescriptorProblem::NotOpen);
    }
    if flags & libc::O_ACCMODE == libc::O_RDONLY {
        return Err(DescriptorProblem::ReadOnly);
    }
    // SAFETY: `fd` was just seen open, and it is borrowed only for the duplication on the next
    // line; the process's descriptors are not closed behind its back by other threads of fibtree.
    let borrowed = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
    borrowed.try_clone_to_owned().map(File::from).map_err(DescriptorProblem::Duplicate)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_descriptor_is_duplicated_or_refused() {
        let path = std::env::temp_dir().join(format!("fibtree-descriptor-{}", std::process::id()));
        let file = File::create(&path).unwrap();
        let fd = std::os::fd::AsRawFd::as_raw_fd(&file);
        let mut copy = duplicate_for_writing(fd).unwrap();
        copy.write_all(b"through").unwrap();
        drop((copy, file));
        assert_eq!(std::fs::read(&path).unwrap(), b"through");
        let reading = File::open(&path).unwrap();
        let fd = std::os::fd::AsRawFd::as_raw_fd(&reading);
        assert!(matches!(duplicate_for_writing(fd), Err(DescriptorProblem::ReadOnly)));
        drop(reading);
        assert!(matches!(duplicate_for_writing(1 << 20), Err(DescriptorProblem::NotOpen)));
        std::fs::remove_file(&path).unwrap();
    }
}
