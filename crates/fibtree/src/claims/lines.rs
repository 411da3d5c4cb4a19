//! A claims file's lines, one at a time, in memory that does not grow with the file: the text
//! decoded by `encoding_rs_io` (UTF-8 as it is, its byte-order mark dropped; UTF-16 by its
//! byte-order mark), cut at `\n`, `\r\n` or a lone `\r`, a line longer than [`MAX_LINE`] bytes cut
//! there and its rest skipped. The fields of each line are the CSV reader's ([`super::read`]).

use std::io::{BufRead, BufReader, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use encoding_rs_io::{DecodeReaderBytes, DecodeReaderBytesBuilder};

use super::MAX_LINE;
use crate::error::{Error, Param, Result};

/// The bytes read from the source at once.
const CHUNK: usize = 64 << 10;

/// What [`Lines::next_line`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Got {
    /// A line, without its end.
    Line,
    /// A line longer than [`MAX_LINE`] bytes: its first [`MAX_LINE`] + 1 bytes; the rest is still to
    /// be read ([`Lines::skip_line`]).
    TooLong,
    /// The end of the text.
    End,
}

/// What the source's first bytes and every byte so far say: set by [`Raw`] as it reads.
#[derive(Debug, Default)]
struct Seen(AtomicU8);

impl Seen {
    /// A byte that is not ASCII whitespace (or a byte-order mark) was read.
    const NOT_BLANK: u8 = 1;
    /// The source starts with the byte-order mark of UTF-16 little-endian, or big-endian.
    const UTF16_LE: u8 = 2;
    const UTF16_BE: u8 = 4;

    fn set(&self, bits: u8) {
        self.0.fetch_or(bits, Ordering::Relaxed);
    }

    fn has(&self, bits: u8) -> bool {
        self.0.load(Ordering::Relaxed) & bits != 0
    }
}

/// The source as it is read, below the decoder: whether it is blank so far, and its byte-order mark
/// (its first two bytes, however the reads cut them).
struct Raw<R> {
    inner: R,
    seen: Arc<Seen>,
    head: Vec<u8>,
}

impl<R: Read> Read for Raw<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let read = self.inner.read(buf)?;
        let bytes = &buf[..read];
        if self.head.len() < 2 {
            let wanted = (2 - self.head.len()).min(read);
            self.head.extend_from_slice(&bytes[..wanted]);
            match self.head[..] {
                [0xFF, 0xFE] => self.seen.set(Seen::UTF16_LE),
                [0xFE, 0xFF] => self.seen.set(Seen::UTF16_BE),
                _ => {}
            }
        }
        if !bytes.iter().all(u8::is_ascii_whitespace) {
            self.seen.set(Seen::NOT_BLANK);
        }
        Ok(read)
    }
}

/// The lines of a text read from `R`, as UTF-8 (not checked here: each line is, where it is read).
/// `\n`, `\r\n` or a lone `\r` ends a line, and the last line need not be ended (an ended last line
/// is not followed by an empty one).
pub(super) struct Lines<R> {
    reader: BufReader<DecodeReaderBytes<Raw<R>, Vec<u8>>>,
    seen: Arc<Seen>,
    /// The last line ended with `\r`: a `\n` right after it belongs to that end.
    after_cr: bool,
}

impl<R: Read> Lines<R> {
    pub(super) fn new(reader: R) -> Lines<R> {
        let seen = Arc::new(Seen::default());
        let raw = Raw { inner: reader, seen: seen.clone(), head: Vec::with_capacity(2) };
        // UTF-8 passed through as it is (each line checked where it is read), its byte-order mark
        // dropped; UTF-16 by its byte-order mark, decoded (an invalid unit becomes U+FFFD)
        let decoded = DecodeReaderBytesBuilder::new().utf8_passthru(true).strip_bom(true).build(raw);
        Lines { reader: BufReader::with_capacity(CHUNK, decoded), seen, after_cr: false }
    }

    /// Whether every byte read so far is ASCII whitespace (spaces, tabs, line ends), with no
    /// byte-order mark.
    pub(super) fn blank(&self) -> bool {
        !self.seen.has(Seen::NOT_BLANK)
    }

    /// The encoding's name where the text is UTF-16 (by its byte-order mark).
    fn utf16(&self) -> Option<&'static str> {
        match (self.seen.has(Seen::UTF16_LE), self.seen.has(Seen::UTF16_BE)) {
            (true, _) => Some("UTF-16 little-endian"),
            (_, true) => Some("UTF-16 big-endian"),
            _ => None,
        }
    }

    /// The bytes ready to be taken, at least one but at the end of the source.
    fn ready(&mut self) -> Result<&[u8]> {
        loop {
            match self.reader.fill_buf() {
                Ok(_) => return Ok(self.reader.buffer()),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Reads the next line into `line` (cleared first). Cost O(the line's bytes).
    ///
    /// # Errors
    /// [`Error::Io`] for a read that fails; [`Error::InvalidArgument`] naming [`Param::Claims`] for
    /// a UTF-16 text that is not valid UTF-16 (an odd number of bytes, or an unpaired surrogate).
    pub(super) fn next_line(&mut self, line: &mut Vec<u8>) -> Result<Got> {
        line.clear();
        let got = self.take_line(Some(line))?;
        // the decoder gives U+FFFD for what is not UTF-16; UTF-8 is checked a line at a time
        if let Some(name) = self.utf16()
            && line.windows(3).any(|w| w == "\u{FFFD}".as_bytes())
        {
            let why = format!(
                "a {name} file (by its byte-order mark) that is not valid {name} (an odd number of bytes, or an \
                 unpaired surrogate)"
            );
            return Err(Error::invalid(Param::Claims, why));
        }
        Ok(got)
    }

    /// Reads the rest of a line that was [`Got::TooLong`], keeping none of it; `cancelled` is asked
    /// once a chunk.
    ///
    /// # Errors
    /// As [`Lines::next_line`]; [`Error::Interrupted`] once `cancelled` says so.
    pub(super) fn skip_line(&mut self, cancelled: impl Fn() -> bool) -> Result<()> {
        loop {
            if cancelled() {
                return Err(Error::Interrupted);
            }
            if self.take_line(None)? != Got::TooLong {
                return Ok(());
            }
        }
    }

    /// The next line into `line` (`None`: the rest of a line, dropped, a chunk at a time:
    /// [`Got::TooLong`] while it goes on).
    fn take_line(&mut self, mut line: Option<&mut Vec<u8>>) -> Result<Got> {
        let mut any = false;
        loop {
            let after_cr = std::mem::take(&mut self.after_cr);
            let rest = self.ready()?;
            if rest.is_empty() {
                return Ok(if any || line.is_none() { Got::Line } else { Got::End });
            }
            if after_cr && rest[0] == b'\n' {
                self.reader.consume(1);
                continue;
            }
            any = true;
            let stop = rest.iter().position(|&b| b == b'\n' || b == b'\r');
            let piece = stop.unwrap_or(rest.len());
            let ends_cr = stop.is_some_and(|i| rest[i] == b'\r');
            let Some(line) = line.as_deref_mut() else {
                // skipping: this chunk's part of the line, then its end if it is here
                self.after_cr = ends_cr;
                self.reader.consume(piece + usize::from(stop.is_some()));
                return Ok(if stop.is_some() { Got::Line } else { Got::TooLong });
            };
            let room = MAX_LINE + 1 - line.len();
            if piece >= room {
                line.extend_from_slice(&rest[..room]);
                self.reader.consume(room);
                return Ok(Got::TooLong);
            }
            line.extend_from_slice(&rest[..piece]);
            if stop.is_some() {
                self.after_cr = ends_cr;
                self.reader.consume(piece + 1);
                return Ok(Got::Line);
            }
            self.reader.consume(piece);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line of `text`, as read (a line too long is cut, its rest skipped), or the error.
    fn split(text: &[u8]) -> Result<Vec<(Vec<u8>, Got)>> {
        let mut lines = Lines::new(text);
        let mut line = Vec::new();
        let mut all = Vec::new();
        loop {
            match lines.next_line(&mut line)? {
                Got::End => return Ok(all),
                Got::TooLong => {
                    lines.skip_line(|| false)?;
                    all.push((line.clone(), Got::TooLong));
                }
                Got::Line => all.push((line.clone(), Got::Line)),
            }
        }
    }

    fn texts(text: &[u8]) -> Vec<Vec<u8>> {
        split(text).unwrap().into_iter().map(|l| l.0).collect()
    }

    #[test]
    fn every_line_end() {
        assert_eq!(texts(b"a\nb\r\nc\rd"), [&b"a"[..], b"b", b"c", b"d"]);
        assert_eq!(texts(b"a\r\rb\n\n"), [&b"a"[..], b"", b"b", b""]);
        assert_eq!(texts(b"a\n"), [b"a"]);
        assert_eq!(texts(b"a\r"), [b"a"]);
        assert_eq!(texts(b"\n"), [b""]);
        assert!(texts(b"").is_empty());
    }

    #[test]
    fn encodings_by_their_byte_order_marks() {
        assert_eq!(texts(b"\xef\xbb\xbfn,g"), [b"n,g"]);
        assert_eq!(texts(b"n,g"), [b"n,g"]);
        assert_eq!(texts(b"\xff\xfen\0,\0\xe9\0"), ["n,é".as_bytes()]);
        assert_eq!(texts(b"\xfe\xff\0n\0,\0g"), [b"n,g"]);
        assert_eq!(texts(b"\xfe\xff\xd8\x3d\xde\x00\0\n\0x"), ["\u{1f600}".as_bytes(), b"x"]);
        let error = |text: &[u8]| split(text).unwrap_err().to_string();
        assert!(error(b"\xff\xfen\0,").contains("a UTF-16 little-endian file (by its byte-order mark) that is not"));
        assert!(error(b"\xfe\xff\xd8\x00\0n").contains("not valid UTF-16 big-endian"));
        assert!(error(b"\xfe\xff\xdc\x00").contains("not valid UTF-16 big-endian"));
    }

    /// A line of more than MAX_LINE bytes is cut at MAX_LINE + 1 and its rest skipped, in either
    /// encoding, even where its chunks end in the middle of it; one of MAX_LINE bytes is whole.
    #[test]
    fn long_lines_are_cut_and_skipped() {
        for len in [MAX_LINE - 1, MAX_LINE, MAX_LINE + 1, 3 * CHUNK + 7] {
            for end in ["\n", "\r\n", "\r", ""] {
                let after: &[u8] = if end.is_empty() { b"" } else { b"x\n" };
                let text = [b"h\n".to_vec(), vec![b'9'; len], end.as_bytes().to_vec(), after.to_vec()].concat();
                let kind = if len > MAX_LINE { Got::TooLong } else { Got::Line };
                let mut want = vec![(b"h".to_vec(), Got::Line), (vec![b'9'; len.min(MAX_LINE + 1)], kind)];
                if !end.is_empty() {
                    want.push((b"x".to_vec(), Got::Line));
                }
                let shape = |lines: &[(Vec<u8>, Got)]| lines.iter().map(|l| (l.0.len(), l.1)).collect::<Vec<_>>();
                let got = split(&text).unwrap();
                assert!(got == want, "{len} {end:?}: {:?}", shape(&got));
                let utf16: Vec<u8> = [0xFF, 0xFE]
                    .into_iter()
                    .chain(String::from_utf8(text.clone()).unwrap().encode_utf16().flat_map(u16::to_le_bytes))
                    .collect();
                let got = split(&utf16).unwrap();
                assert!(got == want, "UTF-16 {len} {end:?}: {:?}", shape(&got));
            }
        }
    }

    /// Whitespace alone is blank; a byte-order mark or anything else is not.
    #[test]
    fn blank_texts() {
        let blank = |text: &[u8]| {
            let mut lines = Lines::new(text);
            while lines.next_line(&mut Vec::new()).unwrap() != Got::End {}
            lines.blank()
        };
        assert!(blank(b"") && blank(b"\n\n  \n\t\n") && blank(b"\r\n"));
        assert!(!blank(b"\xef\xbb\xbf\n") && !blank(b"\n x") && !blank(b"\xff\xfe"));
    }
}
