//! A run's standard output and error, read as they come and never waited on: a program's pipes may
//! be held open by what it left running, so that their end never comes.

use std::io::Read;
use std::os::fd::AsFd;
use std::process::{ChildStderr, ChildStdout};
use std::time::{Duration, Instant};

use super::KEPT_BYTES;

/// The last [`KEPT_BYTES`] of a stream, and whether there was more.
#[derive(Debug, Default)]
pub(super) struct Tail {
    pub(super) kept: Vec<u8>,
    pub(super) cut: bool,
}

impl Tail {
    /// Adds `bytes`. Cost O(bytes) amortised: the front is dropped once past twice the kept size.
    pub(super) fn push(&mut self, bytes: &[u8]) {
        self.kept.extend_from_slice(bytes);
        if self.kept.len() > 2 * KEPT_BYTES {
            self.trim();
        }
    }

    /// The kept bytes, cut to [`KEPT_BYTES`].
    pub(super) fn trim(&mut self) {
        if self.kept.len() > KEPT_BYTES {
            self.kept.drain(..self.kept.len() - KEPT_BYTES);
            self.cut = true;
        }
    }
}

/// The first [`KEPT_BYTES`] of a stream, and whether there was more.
#[derive(Debug, Default)]
pub(super) struct Head {
    pub(super) kept: Vec<u8>,
    pub(super) cut: bool,
}

impl Head {
    /// Adds `bytes`, past the kept size only noting that there were more. Cost O(bytes).
    pub(super) fn push(&mut self, bytes: &[u8]) {
        let room = KEPT_BYTES - self.kept.len();
        self.kept.extend_from_slice(&bytes[..bytes.len().min(room)]);
        self.cut |= bytes.len() > room;
    }
}

/// The most reads [`Pipes::drain`] makes of each pipe: what a writer that never stops writes is
/// not read for ever.
const DRAIN_READS: usize = 64;

/// A run's standard output (its tail kept) and standard error (its head kept), each open until its
/// end has been read.
pub(super) struct Pipes {
    out: Option<ChildStdout>,
    err: Option<ChildStderr>,
    pub(super) tail: Tail,
    pub(super) head: Head,
}

/// The buffer of one read.
const READ_BYTES: usize = 64 << 10;

impl Pipes {
    pub(super) fn new(out: Option<ChildStdout>, err: Option<ChildStderr>) -> Pipes {
        Pipes { out, err, tail: Tail::default(), head: Head::default() }
    }

    /// Whether either pipe is still open: its end not read yet.
    pub(super) fn open(&self) -> bool {
        self.out.is_some() || self.err.is_some()
    }

    /// The descriptors of the open pipes, for [`super::super::os::ready`], in the order
    /// [`Pipes::read_ready`] takes their readiness.
    pub(super) fn descriptors(&self) -> Vec<std::os::fd::BorrowedFd<'_>> {
        self.out.iter().map(AsFd::as_fd).chain(self.err.iter().map(AsFd::as_fd)).collect()
    }

    /// Reads once from each open pipe that `ready` (one flag per descriptor of
    /// [`Pipes::descriptors`], in order) says has bytes or its end, which never blocks; a pipe at
    /// its end (or failing) is closed. Returns whether anything happened. Cost: one read a pipe.
    pub(super) fn read_ready(&mut self, ready: &[bool], buf: &mut [u8]) -> bool {
        let mut flags = ready.iter().copied();
        let out_ready = self.out.is_some() && flags.next().unwrap_or(false);
        let err_ready = self.err.is_some() && flags.next().unwrap_or(false);
        if out_ready {
            read_once(&mut self.out, buf, |bytes| self.tail.push(bytes));
        }
        if err_ready {
            read_once(&mut self.err, buf, |bytes| self.head.push(bytes));
        }
        out_ready || err_ready
    }

    /// Reads what the pipes hold now, without waiting for more, at most [`DRAIN_READS`] reads a
    /// pipe or for 20 ms; then closes them.
    pub(super) fn drain(&mut self) {
        let mut buf = vec![0; READ_BYTES];
        let until = Instant::now() + Duration::from_millis(20);
        for _ in 0..DRAIN_READS {
            if !self.open() || Instant::now() >= until {
                break;
            }
            let ready = super::super::os::ready(&self.descriptors(), Duration::ZERO);
            if !ready.contains(&true) || !self.read_ready(&ready, &mut buf) {
                break;
            }
        }
        (self.out, self.err) = (None, None);
        self.tail.trim();
    }

    /// A buffer for [`Pipes::read_ready`].
    pub(super) fn buffer() -> Vec<u8> {
        vec![0; READ_BYTES]
    }
}

/// One read of `pipe` into `keep`; the pipe closed at its end or where it cannot be read.
fn read_once(pipe: &mut Option<impl Read>, buf: &mut [u8], keep: impl FnOnce(&[u8])) {
    let Some(reader) = pipe.as_mut() else { return };
    match reader.read(buf) {
        Ok(read @ 1..) => keep(&buf[..read]),
        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
        _ => *pipe = None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_of_standard_output_and_the_head_of_standard_error() {
        let long: Vec<u8> = (0..3 * KEPT_BYTES + 5).map(|i| (i % 251) as u8).collect();
        let (mut tail, mut head) = (Tail::default(), Head::default());
        for chunk in long.chunks(70_000) {
            tail.push(chunk);
            head.push(chunk);
        }
        tail.trim();
        assert!(tail.cut && tail.kept[..] == long[long.len() - KEPT_BYTES..]);
        assert!(head.cut && head.kept[..] == long[..KEPT_BYTES]);
        let (mut tail, mut head) = (Tail::default(), Head::default());
        tail.push(b"12\n");
        head.push(b"x");
        tail.trim();
        assert_eq!((tail.kept, tail.cut, head.kept, head.cut), (b"12\n".to_vec(), false, b"x".to_vec(), false));
    }
}
