//! A claims file read a line at a time ([`ClaimsReader`]): its header, then each line a claim or a
//! malformed line with its reason, in memory that does not grow with the file. The fields of a line
//! are read by the parser of BurntSushi's `csv` (`csv-core`): separated by commas, each may be
//! quoted (`"10000"`, a `""` in it a quote). A claim is one line: the lines are cut first
//! ([`super::lines`]), so that a quote left open cannot carry a record across the rest of the
//! file, and a line that leaves one open is malformed.

use std::io::Read;

use csv_core::ReadRecordResult;

use super::lines::{Got, Lines};
use super::{CLAIMS_HEADER, Claim, MAX_LINE, Malformed};
use crate::error::{Error, Param, Result};
use fibtree_core::Hooks;
use fibtree_util::{NotWhole, parse_modulus, parse_whole};
use num_bigint::BigUint;

/// The columns of a claims file, in the order of [`CLAIMS_HEADER`].
const COLUMNS: [&str; 4] = ["n", "g", "modulus", "answer"];

/// A line of a claims file after its header, as [`ClaimsReader`] gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// A claim.
    Claim(Claim),
    /// A line that is not a claim, with its reason.
    Malformed(Malformed),
    /// A line longer than [`MAX_LINE`] bytes, where the reader stops at one
    /// ([`ClaimsReader::stop_at_long_lines`]): its number. The reader ends after it.
    TooLong(usize),
}

/// A claims file read a line at a time, in the format [`super::parse_claims`] reads: each item is
/// the next line after the header that is neither blank nor a comment. The memory is a buffer and
/// one line, whatever the size of the file.
///
/// ```
/// use fibtree::claims::{ClaimsReader, Line};
/// let file = &b"n,g,modulus,answer\n10,0,7,3\n10,0\n"[..];
/// let lines: Vec<Line> = ClaimsReader::new(file).collect::<Result<_, _>>()?;
/// assert!(matches!(&lines[0], Line::Claim(c) if (c.line, c.n, c.modulus) == (2, 10, Some(7)) && c.answer == 3u32.into()));
/// assert!(matches!(&lines[1], Line::Malformed(m) if m.line == 3));
/// # Ok::<(), fibtree::Error>(())
/// ```
pub struct ClaimsReader<'a, R> {
    lines: Lines<R>,
    hooks: Hooks<'a>,
    stop_long: bool,
    order: Option<[usize; 4]>,
    /// The number of the last line read.
    line: usize,
    text: Vec<u8>,
    fields: Fields,
    done: bool,
}

/// The fields of a line, as CSV reads them: the parser, and where it writes a line's fields.
struct Fields {
    parser: csv_core::Reader,
    out: Vec<u8>,
    ends: Vec<usize>,
}

impl Fields {
    fn new() -> Fields {
        Fields { parser: csv_core::Reader::new(), out: Vec::new(), ends: Vec::new() }
    }

    /// The fields of `line` (one line, without its end), each trimmed: a quoted one unquoted.
    /// Cost O(the line's bytes).
    ///
    /// # Errors
    /// What is wrong, for a line whose last quoted field does not close on it: a claim is one
    /// line, and the parser would end the field at the line's end and read a claim from it.
    fn of(&mut self, line: &str) -> std::result::Result<Vec<&str>, String> {
        if let Some(field) = open_quote(line.as_bytes()) {
            return Err(format!("field {field} opens a quote that does not close on its line"));
        }
        self.parser.reset();
        // a field is never longer than the line, and there are at most one more than its bytes
        self.out.resize(line.len() + 1, 0);
        self.ends.resize(line.len() + 2, 0);
        let (mut input, mut written, mut ended) = (line.as_bytes(), 0, 0);
        loop {
            // an empty input is the end of the data: the line's record ends there
            let (got, read, out, ends) =
                self.parser.read_record(input, &mut self.out[written..], &mut self.ends[ended..]);
            (input, written, ended) = (&input[read..], written + out, ended + ends);
            match got {
                ReadRecordResult::InputEmpty => {}
                ReadRecordResult::OutputFull => self.out.resize(2 * self.out.len(), 0),
                ReadRecordResult::OutputEndsFull => self.ends.resize(2 * self.ends.len(), 0),
                ReadRecordResult::Record | ReadRecordResult::End => break,
            }
        }
        let mut start = 0;
        let mut fields = Vec::with_capacity(ended);
        for &end in &self.ends[..ended] {
            // unquoting drops only ASCII quotes from text, which stays text
            fields.push(std::str::from_utf8(&self.out[start..end]).unwrap_or("").trim());
            start = end;
        }
        Ok(fields)
    }
}

/// The 1-based number of the field whose quote `line` leaves open, if any, as `csv-core` reads
/// quotes: a quote opens a field only as its first byte; inside, `""` is a quote and a lone `"`
/// closes it (what follows, up to the next comma, is the field's too). Cost O(the line's bytes).
fn open_quote(line: &[u8]) -> Option<usize> {
    let (mut field, mut start, mut quoted, mut after_quote) = (1, true, false, false);
    for &b in line {
        if quoted {
            // a quote inside a quoted field: closes it, unless the next byte is a quote too
            if b == b'"' {
                quoted = false;
                after_quote = true;
            }
            continue;
        }
        if after_quote && b == b'"' {
            // `""` inside the field: a quote, and the field still open
            (quoted, after_quote) = (true, false);
            continue;
        }
        after_quote = false;
        if b == b',' {
            (field, start) = (field + 1, true);
        } else {
            quoted = start && b == b'"';
            start = false;
        }
    }
    quoted.then_some(field)
}

impl<R: Read> ClaimsReader<'static, R> {
    /// A reader of the claims file `reader` gives (buffered here: a [`std::fs::File`] may be given
    /// as it is). A line longer than [`MAX_LINE`] bytes is a malformed line, its rest skipped.
    pub fn new(reader: R) -> Self {
        let lines = Lines::new(reader);
        ClaimsReader {
            lines,
            hooks: Hooks::default(),
            stop_long: false,
            order: None,
            line: 0,
            text: Vec::new(),
            fields: Fields::new(),
            done: false,
        }
    }
}

impl<'a, R: Read> ClaimsReader<'a, R> {
    /// This reader, stopped by `hooks`' cancel flag: asked once a line (and once a chunk of a line
    /// too long), it ends the reading with [`Error::Interrupted`].
    pub fn cancel_on<'b>(self, hooks: Hooks<'b>) -> ClaimsReader<'b, R> {
        let ClaimsReader { lines, stop_long, order, line, text, fields, done, .. } = self;
        ClaimsReader { lines, hooks, stop_long, order, line, text, fields, done }
    }

    /// This reader, ending at a line longer than [`MAX_LINE`] bytes ([`Line::TooLong`]) without
    /// reading the rest of it: a source that is no claims file (`/dev/zero`, a binary file) is not
    /// read whole.
    pub fn stop_at_long_lines(self) -> Self {
        ClaimsReader { stop_long: true, ..self }
    }

    /// Whether every byte read so far is ASCII whitespace (the file is empty, where the reading
    /// ended without a header).
    pub fn blank(&self) -> bool {
        self.lines.blank()
    }

    /// The next line that is neither blank nor a comment, `None` at the end.
    fn read(&mut self) -> Result<Option<Line>> {
        let refuse = |why: String| Error::invalid(Param::Claims, why);
        loop {
            self.hooks.check()?;
            let got = self.lines.next_line(&mut self.text)?;
            if got == Got::End {
                return match self.order {
                    Some(_) => Ok(None),
                    None => Err(refuse(format!("no header: {}", expected_header()))),
                };
            }
            self.line += 1;
            let line = self.line;
            if got == Got::TooLong && self.stop_long {
                self.done = true;
                return Ok(Some(Line::TooLong(line)));
            }
            if got == Got::TooLong {
                let hooks = self.hooks;
                self.lines.skip_line(|| hooks.cancelled())?;
            }
            let s = if got == Got::TooLong {
                Err(format!("longer than {MAX_LINE} bytes"))
            } else {
                std::str::from_utf8(&self.text).map(str::trim).map_err(|_| "not text (invalid UTF-8)".to_string())
            };
            if s.as_ref().is_ok_and(|s| s.is_empty() || s.starts_with('#')) {
                continue;
            }
            let fields = s.and_then(|s| Ok((s, self.fields.of(s)?)));
            let Some(order) = &self.order else {
                self.order = Some(header(fields).map_err(|why| refuse(format!("line {line}: {why}")))?);
                continue;
            };
            return Ok(Some(match fields.and_then(|(_, fields)| parse_claim(&fields, line, order)) {
                Ok(claim) => Line::Claim(claim),
                Err(error) => Line::Malformed(Malformed { line, error }),
            }));
        }
    }
}

impl<R: Read> Iterator for ClaimsReader<'_, R> {
    /// The next line, or why the reading ended: [`Error::InvalidArgument`] naming
    /// [`Param::Claims`] for a file without its header (the first line that is not blank or a
    /// comment must be it: the meaning of the columns cannot be guessed) or a UTF-16 file that is not
    /// valid UTF-16; [`Error::Io`] for a read that failed; [`Error::Interrupted`] once cancelled.
    /// Nothing follows an error.
    type Item = Result<Line>;

    fn next(&mut self) -> Option<Result<Line>> {
        if self.done {
            return None;
        }
        let next = self.read();
        self.done |= !matches!(next, Ok(Some(_)));
        next.transpose()
    }
}

/// What a claims file must start with.
fn expected_header() -> String {
    format!("expected a header naming the columns n, g, modulus and answer in any order (e.g. '{CLAIMS_HEADER}')")
}

/// The order of the columns the header line (its text and its fields) names: for each of [`COLUMNS`], the index of its
/// field.
///
/// # Errors
/// What is wrong, for a line that is not such a header.
fn header(line: std::result::Result<(&str, Vec<&str>), String>) -> std::result::Result<[usize; 4], String> {
    let (s, fields) = line.map_err(|why| format!("{why}; {}", expected_header()))?;
    let fields: Vec<String> = fields.iter().map(|f| f.to_ascii_lowercase()).collect();
    let mut order = [usize::MAX; 4];
    for (column, name) in COLUMNS.iter().enumerate() {
        let mut at = fields.iter().enumerate().filter(|(_, f)| f == name).map(|(i, _)| i);
        match (at.next(), at.next()) {
            (Some(i), None) => order[column] = i,
            _ => return Err(format!("{}, got '{s}'", expected_header())),
        }
    }
    if fields.len() == 4 { Ok(order) } else { Err(format!("{}, got '{s}'", expected_header())) }
}

/// The claim of the line `line` whose fields are `fields`, in the header's `order`.
fn parse_claim(fields: &[&str], line: usize, order: &[usize; 4]) -> std::result::Result<Claim, String> {
    if fields.len() != 4 {
        let mut names = [""; 4];
        for (column, &i) in order.iter().enumerate() {
            names[i] = COLUMNS[column];
        }
        return Err(format!("expected 4 fields ({}), found {}", names.join(","), fields.len()));
    }
    let [n, g, modulus, answer] = order.map(|i| fields[i]);
    let whole = |name: &str, t: &str| -> std::result::Result<u64, String> {
        parse_whole(t).map_err(|e| match e {
            NotWhole::NotDigits => format!("{name}: expected a whole number, got '{t}'"),
            NotWhole::TooLarge => format!("{name}: '{t}' is larger than 2^64 - 1"),
        })
    };
    let n = whole("n", n)?;
    if n > crate::MAX_N {
        return Err(format!("n: at most {}, got {n}", crate::MAX_N));
    }
    let g = if g.is_empty() { 0 } else { whole("g", g)? };
    // an empty modulus claims the whole count: digits of any length (a line holds at most MAX_LINE)
    let modulus = match modulus {
        "" => None,
        m => Some(parse_modulus(m).map_err(|e| format!("modulus: {e}"))?),
    };
    let answer: BigUint =
        parse_whole(answer).map_err(|_| format!("answer: expected a whole number, got '{answer}'"))?;
    if let Some(m) = modulus
        && answer >= BigUint::from(m)
    {
        return Err(format!("answer: {answer} is not below the modulus {m}"));
    }
    Ok(Claim { line, n, g, modulus, answer })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    /// A source that gives one byte a read, as a slow pipe may.
    struct OneByte<'a>(&'a [u8]);

    impl Read for OneByte<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let Some((&first, rest)) = self.0.split_first() else { return Ok(0) };
            if buf.is_empty() {
                return Ok(0);
            }
            buf[0] = first;
            self.0 = rest;
            Ok(1)
        }
    }

    /// Read a byte at a time, a file gives the lines it gives read whole: its byte-order mark, its
    /// line ends and its UTF-16 surrogate pairs split across reads.
    #[test]
    fn short_reads_give_the_same_lines() {
        let text = "n,g,modulus,answer\r\n10,0,7,3\rx\u{1f600},1\n\n10,,7,3\r\n# c\n10,0";
        let utf16 = |big: bool| {
            let mut bytes = if big { vec![0xFE, 0xFF] } else { vec![0xFF, 0xFE] };
            text.encode_utf16().for_each(|u| bytes.extend(if big { u.to_be_bytes() } else { u.to_le_bytes() }));
            bytes
        };
        let forms =
            [text.as_bytes().to_vec(), [&b"\xef\xbb\xbf"[..], text.as_bytes()].concat(), utf16(false), utf16(true)];
        for bytes in forms {
            let whole: Vec<Line> = ClaimsReader::new(&bytes[..]).map(Result::unwrap).collect();
            let slow: Vec<Line> = ClaimsReader::new(OneByte(&bytes)).map(Result::unwrap).collect();
            assert_eq!(whole.len(), 4, "{whole:?}");
            assert_eq!(slow, whole);
        }
    }

    /// Fields may be quoted, as CSV writers quote them (a `""` in a quoted field is a quote); a
    /// quote left open makes its line malformed, never judged.
    #[test]
    fn quoted_fields_are_read_as_csv_reads_them() {
        let text = b"\"N\",\"g\",\"modulus\",answer\n\"10\",\"\",7,\"3\"\n\"10,0\",7,3\n10,0,\"7,3\n10,0,7,\"3\"\"\"\n10,0,7,2\n";
        let lines: Vec<Line> = ClaimsReader::new(&text[..]).map(Result::unwrap).collect();
        assert!(
            matches!(&lines[0], Line::Claim(c) if (c.line, c.n, c.g, c.modulus) == (2, 10, 0, Some(7)) && c.answer == 3u32.into())
        );
        assert!(
            matches!(&lines[1], Line::Malformed(m) if m.line == 3 && m.error.contains("found 3")),
            "{:?}",
            lines[1]
        );
        assert!(
            matches!(&lines[2], Line::Malformed(m) if m.line == 4 && m.error == "field 3 opens a quote that does not close on its line"),
            "{:?}",
            lines[2]
        );
        assert!(
            matches!(&lines[3], Line::Malformed(m) if m.line == 5 && m.error.starts_with("answer:")),
            "{:?}",
            lines[3]
        );
        assert!(matches!(&lines[4], Line::Claim(c) if c.line == 6 && c.answer == 2u32.into()));
        assert_eq!(lines.len(), 5);
    }

    /// A quote that does not close on its line makes the line malformed, whatever its fields would
    /// read as: the first digits of a whole count, or the whole of one.
    #[test]
    fn a_quote_left_open_is_malformed() {
        let text = b"n,g,modulus,answer\n100,0,,\"29580893155\n1000,0,10^18,\"867114317183878825\n10,0,7,\"3\"\n\"10\"\"\",0,7,3\n";
        let lines: Vec<Line> = ClaimsReader::new(&text[..]).map(Result::unwrap).collect();
        let why = |line: &Line| match line {
            Line::Malformed(m) => (m.line, m.error.clone()),
            other => panic!("{other:?}"),
        };
        assert_eq!(why(&lines[0]), (2, "field 4 opens a quote that does not close on its line".into()));
        assert_eq!(why(&lines[1]), (3, "field 4 opens a quote that does not close on its line".into()));
        assert!(matches!(&lines[2], Line::Claim(c) if c.line == 4 && c.answer == 3u32.into()));
        assert!(why(&lines[3]).1.starts_with("n: "), "a field of a quote, closed: {:?}", lines[3]);
        for (line, open) in [
            (&b"\"a\""[..], None),
            (b"\"a\"\"\"", None),
            (b"\"a\"\"", Some(1)),
            (b"a\"b,\"c", Some(2)),
            (b"a\"b,c\"", None),
            (b"\"a\"b\",c", None),
            (b"\"a,b\",\"", Some(2)),
            (b"x,\"", Some(2)),
            (b"", None),
        ] {
            assert_eq!(open_quote(line), open, "{:?}", String::from_utf8_lossy(line));
        }
    }

    /// A reader that stops at long lines ends at the first, unread past it; one that is cancelled
    /// ends at once.
    #[test]
    fn long_lines_stop_and_cancelling_ends() {
        let mut text = b"n,g,modulus,answer\n10,0,7,3\n".to_vec();
        text.extend(std::iter::repeat_n(b'9', MAX_LINE + 1));
        text.extend(b"\n10,0,7,3\n");
        let lines: Vec<Line> = ClaimsReader::new(&text[..]).stop_at_long_lines().map(Result::unwrap).collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[1], Line::TooLong(3));
        let all: Vec<Line> = ClaimsReader::new(&text[..]).map(Result::unwrap).collect();
        assert!(matches!(&all[1], Line::Malformed(m) if m.line == 3 && m.error.contains("longer than 4096")));
        assert_eq!(all.len(), 3);
        let stop = AtomicBool::new(true);
        let mut cancelled = ClaimsReader::new(&text[..]).cancel_on(Hooks::default().cancel_on(&stop));
        assert!(matches!(cancelled.next(), Some(Err(Error::Interrupted))));
        assert!(cancelled.next().is_none());
        // the rest of a long line is skipped a chunk at a time, each asking the flag
        let endless = std::io::repeat(b'0');
        let stop = AtomicBool::new(false);
        let hooks = Hooks::default().cancel_on(&stop);
        let mut reader = ClaimsReader::new(b"n,g,modulus,answer\n".chain(endless)).cancel_on(hooks);
        let flag = &stop;
        std::thread::scope(|s| {
            s.spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(50));
                flag.store(true, std::sync::atomic::Ordering::Relaxed);
            });
            assert!(matches!(reader.next(), Some(Err(Error::Interrupted))));
        });
    }
}
