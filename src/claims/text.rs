//! A claims file as text, read a line at a time: its encoding (UTF-8, with or without a byte-order
//! mark, or UTF-16 with one) and its lines, whichever line ends it was written with. Memory: a
//! buffer of [`CHUNK`] bytes and the line being read, at most [`MAX_LINE`] + 1 bytes, whatever the
//! size of the file.

use std::io::Read;

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

/// The encoding, from the byte-order mark.
#[derive(Clone, Copy, Debug)]
enum Encoding {
    Utf8,
    Utf16 { big: bool },
}

impl Encoding {
    fn name(self) -> &'static str {
        match self {
            Encoding::Utf8 => "UTF-8",
            Encoding::Utf16 { big: false } => "UTF-16 little-endian",
            Encoding::Utf16 { big: true } => "UTF-16 big-endian",
        }
    }
}

/// The lines of a text read from `R`, as UTF-8 (not checked here: each line is, where it is read):
/// a UTF-8 byte-order mark is dropped, and a text that starts with a UTF-16 byte-order mark (FF FE,
/// little endian; FE FF, big endian) is decoded from UTF-16. `\n`, `\r\n` or a lone `\r` ends a line,
/// and the last line need not be ended (an ended last line is not followed by an empty one).
pub(super) struct Lines<R> {
    reader: R,
    buf: Box<[u8]>,
    /// The bytes of `buf` not yet taken: `buf[at..end]`.
    at: usize,
    end: usize,
    eof: bool,
    encoding: Option<Encoding>,
    /// The last line ended with `\r`: a `\n` right after it belongs to that end.
    after_cr: bool,
    /// Every byte read so far is ASCII whitespace (a byte-order mark is not).
    blank: bool,
}

impl<R: Read> Lines<R> {
    pub(super) fn new(reader: R) -> Lines<R> {
        let buf = vec![0; CHUNK].into_boxed_slice();
        Lines { reader, buf, at: 0, end: 0, eof: false, encoding: None, after_cr: false, blank: true }
    }

    /// Whether every byte read so far is ASCII whitespace (spaces, tabs, line ends), with no
    /// byte-order mark.
    pub(super) fn blank(&self) -> bool {
        self.blank
    }

    /// The source.
    pub(super) fn get_ref(&self) -> &R {
        &self.reader
    }

    /// The source; what was read from it but not yet taken is lost.
    pub(super) fn into_inner(self) -> R {
        self.reader
    }

    /// Makes at least `want` bytes (at most [`CHUNK`]) ready in `buf[at..end]`, fewer only at the
    /// end of the source. Cost: the reads.
    fn ready(&mut self, want: usize) -> Result<()> {
        while self.end - self.at < want && !self.eof {
            if self.at > 0 {
                self.buf.copy_within(self.at..self.end, 0);
                (self.end, self.at) = (self.end - self.at, 0);
            }
            match self.reader.read(&mut self.buf[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(read) => self.end += read,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }

    /// The encoding, read from the byte-order mark on the first call (and the mark skipped).
    fn encoding(&mut self) -> Result<Encoding> {
        if let Some(encoding) = self.encoding {
            return Ok(encoding);
        }
        self.ready(3)?;
        let (encoding, mark) = match &self.buf[self.at..self.end] {
            [0xFF, 0xFE, ..] => (Encoding::Utf16 { big: false }, 2),
            [0xFE, 0xFF, ..] => (Encoding::Utf16 { big: true }, 2),
            [0xEF, 0xBB, 0xBF, ..] => (Encoding::Utf8, 3),
            _ => (Encoding::Utf8, 0),
        };
        self.at += mark;
        self.blank &= mark == 0;
        self.encoding = Some(encoding);
        Ok(encoding)
    }

    /// Reads the next line into `line` (cleared first). Cost O(the line's bytes).
    ///
    /// # Errors
    /// [`Error::Io`] for a read that fails; [`Error::InvalidArgument`] naming [`Param::Claims`] for
    /// a UTF-16 text that is not valid UTF-16 (an odd number of bytes, or an unpaired surrogate).
    pub(super) fn next_line(&mut self, line: &mut Vec<u8>) -> Result<Got> {
        line.clear();
        match self.encoding()? {
            Encoding::Utf8 => self.utf8_line(Some(line)),
            utf16 => self.utf16_line(Some(line), utf16),
        }
    }

    /// Reads the rest of a line that was [`Got::TooLong`], keeping none of it; `cancelled` is asked
    /// once a chunk.
    ///
    /// # Errors
    /// As [`Lines::next_line`]; [`Error::Interrupted`] once `cancelled` says so.
    pub(super) fn skip_line(&mut self, cancelled: impl Fn() -> bool) -> Result<()> {
        let encoding = self.encoding()?;
        loop {
            if cancelled() {
                return Err(Error::Interrupted);
            }
            let got = match encoding {
                Encoding::Utf8 => self.utf8_line(None)?,
                utf16 => self.utf16_line(None, utf16)?,
            };
            if got != Got::TooLong {
                return Ok(());
            }
        }
    }

    /// The next line of a UTF-8 text into `line` (`None`: the rest of a line, dropped, a chunk at a
    /// time: [`Got::TooLong`] while it goes on).
    fn utf8_line(&mut self, mut line: Option<&mut Vec<u8>>) -> Result<Got> {
        let mut any = false;
        loop {
            self.ready(1)?;
            if self.at == self.end {
                return Ok(if any || line.is_none() { Got::Line } else { Got::End });
            }
            if std::mem::take(&mut self.after_cr) && self.buf[self.at] == b'\n' {
                self.at += 1;
                continue;
            }
            any = true;
            let rest = &self.buf[self.at..self.end];
            let stop = rest.iter().position(|&b| b == b'\n' || b == b'\r');
            let piece = stop.unwrap_or(rest.len());
            let Some(line) = line.as_deref_mut() else {
                // skipping: this chunk's part of the line, then its end if it is here
                let taken = piece + usize::from(stop.is_some());
                self.blank &= rest[..taken].iter().all(u8::is_ascii_whitespace);
                self.after_cr = stop.is_some_and(|i| rest[i] == b'\r');
                self.at += taken;
                return Ok(if stop.is_some() { Got::Line } else { Got::TooLong });
            };
            let room = MAX_LINE + 1 - line.len();
            if piece >= room {
                line.extend_from_slice(&rest[..room]);
                self.blank &= rest[..room].iter().all(u8::is_ascii_whitespace);
                self.at += room;
                return Ok(Got::TooLong);
            }
            line.extend_from_slice(&rest[..piece]);
            self.blank &= rest[..piece].iter().all(u8::is_ascii_whitespace);
            self.at += piece;
            if let Some(i) = stop {
                self.after_cr = rest[i] == b'\r';
                self.at += 1;
                return Ok(Got::Line);
            }
        }
    }

    /// The next character of a UTF-16 text, `None` at its end.
    fn char16(&mut self, encoding: Encoding) -> Result<Option<char>> {
        let Encoding::Utf16 { big } = encoding else { unreachable!("a UTF-16 text") };
        let name = encoding.name();
        self.ready(4)?;
        let rest = &self.buf[self.at..self.end];
        if rest.len() < 4 && rest.len() % 2 == 1 {
            // fewer than 4 bytes only at the end
            let why = format!("a {name} file (by its byte-order mark) of an odd number of bytes");
            return Err(Error::invalid(Param::Claims, why));
        }
        let unit = |i: usize| {
            let pair = [rest[i], rest[i + 1]];
            if big { u16::from_be_bytes(pair) } else { u16::from_le_bytes(pair) }
        };
        let Some(first) = (!rest.is_empty()).then(|| unit(0)) else { return Ok(None) };
        // a high surrogate takes the low one after it; alone it is unpaired
        let pair = (0xD800..0xDC00).contains(&first) && rest.len() >= 4 && (0xDC00..0xE000).contains(&unit(2));
        let units = if pair { vec![first, unit(2)] } else { vec![first] };
        self.at += 2 * units.len();
        match char::decode_utf16(units).next().expect("one unit at least") {
            Ok(c) => Ok(Some(c)),
            Err(e) => Err(Error::invalid(
                Param::Claims,
                format!("a {name} file (by its byte-order mark) that is not valid {name}: {e}"),
            )),
        }
    }

    /// The next line of a UTF-16 text, as [`Lines::utf8_line`] reads one of UTF-8.
    fn utf16_line(&mut self, mut line: Option<&mut Vec<u8>>, encoding: Encoding) -> Result<Got> {
        let mut any = false;
        let mut skipped = 0usize;
        while let Some(c) = self.char16(encoding)? {
            if std::mem::take(&mut self.after_cr) && c == '\n' {
                continue;
            }
            any = true;
            if c == '\n' || c == '\r' {
                self.after_cr = c == '\r';
                return Ok(Got::Line);
            }
            let mut bytes = [0; 4];
            let bytes = c.encode_utf8(&mut bytes).as_bytes();
            match line.as_deref_mut() {
                Some(line) if line.len() + bytes.len() > MAX_LINE => {
                    // the first MAX_LINE + 1 bytes; the rest of this character is dropped with the line
                    line.extend_from_slice(&bytes[..MAX_LINE + 1 - line.len()]);
                    return Ok(Got::TooLong);
                }
                Some(line) => line.extend_from_slice(bytes),
                None => {
                    skipped += 1;
                    if skipped == CHUNK {
                        return Ok(Got::TooLong);
                    }
                }
            }
        }
        Ok(if any || line.is_none() { Got::Line } else { Got::End })
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
        assert!(error(b"\xff\xfen\0,").contains("UTF-16 little-endian file (by its byte-order mark) of an odd"));
        assert!(error(b"\xfe\xff\xd8\x00\0n").contains("not valid UTF-16 big-endian: unpaired surrogate found: d800"));
        assert!(error(b"\xfe\xff\xdc\x00").contains("unpaired surrogate found: dc00"));
        assert!(error(b"\xfe\xff\xd8\x00").contains("unpaired surrogate found: d800"));
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
