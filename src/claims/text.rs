//! A claims file as text: its encoding (UTF-8, with or without a byte-order mark, or UTF-16 with
//! one) and its lines, whichever line ends it was written with.

use std::borrow::Cow;

/// The bytes of `file` as UTF-8 (not checked here: each line is, where it is read): a UTF-8
/// byte-order mark is dropped, and a file that starts with a UTF-16 byte-order mark (FF FE, little
/// endian; FE FF, big endian) is decoded from UTF-16. Cost O(bytes).
///
/// # Errors
/// For a UTF-16 file that is not valid UTF-16 (an odd number of bytes, or an unpaired surrogate),
/// what is wrong, naming the encoding.
pub(super) fn decoded(file: &[u8]) -> Result<Cow<'_, [u8]>, String> {
    let (units, name): (fn([u8; 2]) -> u16, &str) = match file {
        [0xFF, 0xFE, ..] => (u16::from_le_bytes, "UTF-16 little-endian"),
        [0xFE, 0xFF, ..] => (u16::from_be_bytes, "UTF-16 big-endian"),
        _ => return Ok(Cow::Borrowed(file.strip_prefix(b"\xef\xbb\xbf").unwrap_or(file))),
    };
    let body = &file[2..];
    if !body.len().is_multiple_of(2) {
        return Err(format!("a {name} file (by its byte-order mark) of an odd number of bytes"));
    }
    let units = body.chunks_exact(2).map(|pair| units([pair[0], pair[1]]));
    let text: String = char::decode_utf16(units)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("a {name} file (by its byte-order mark) that is not valid {name}: {e}"))?;
    Ok(Cow::Owned(text.into_bytes()))
}

/// The lines of `text`, each without its end: `\n`, `\r\n` or a lone `\r` ends a line, and the
/// last line need not be ended (an ended last line is not followed by an empty one). Line `i` of
/// the file is the `i`-th item. Cost O(bytes).
pub(super) fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = rest.iter().position(|&b| b == b'\n' || b == b'\r').unwrap_or(rest.len());
        let line = &rest[..end];
        let skip = match &rest[end..] {
            [b'\r', b'\n', ..] => 2,
            [] => 0,
            _ => 1,
        };
        rest = &rest[end + skip..];
        Some(line)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_end() {
        fn split(t: &[u8]) -> Vec<&[u8]> {
            lines(t).collect()
        }
        assert_eq!(split(b"a\nb\r\nc\rd"), [&b"a"[..], b"b", b"c", b"d"]);
        assert_eq!(split(b"a\r\rb\n\n"), [&b"a"[..], b"", b"b", b""]);
        assert_eq!(split(b"a\n"), [b"a"]);
        assert_eq!(split(b"\n"), [b""]);
        assert!(split(b"").is_empty());
    }

    #[test]
    fn encodings_by_their_byte_order_marks() {
        assert_eq!(decoded(b"\xef\xbb\xbfn,g").unwrap(), &b"n,g"[..]);
        assert_eq!(decoded(b"n,g").unwrap(), &b"n,g"[..]);
        assert_eq!(decoded(b"\xff\xfen\0,\0\xe9\0").unwrap(), "n,é".as_bytes());
        assert_eq!(decoded(b"\xfe\xff\0n\0,\0g").unwrap(), &b"n,g"[..]);
        assert!(decoded(b"\xff\xfen\0,").unwrap_err().contains("UTF-16 little-endian"));
        assert!(decoded(b"\xfe\xff\xd8\x00\0n").unwrap_err().contains("not valid UTF-16 big-endian"));
    }
}
