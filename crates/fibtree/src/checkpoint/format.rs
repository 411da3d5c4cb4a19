//! The checkpoint file's format, written and read as a stream: no copy of the file is held in
//! memory beside the state it holds, so that a save or a resumption takes no more than the run's
//! own layers (which the memory guard counts).
//!
//! Little-endian 64-bit words after an 8-byte magic: the version, n, g, the engine, the moduli's
//! count, the moduli, their residues; the cut and the half; the state of the half running (the
//! bottom-up half's first in the top-down half, then the paths to the direct moves in the words
//! format); and a 64-bit FNV-1a checksum of everything before it. A state is k0, the chunks' lanes,
//! the two non-zero sets (base, length, words each), the passes' count, then each pass's chunks and
//! then each pass's carries, a layer at a time (length, words).

use std::io::{Read, Write};

use fibtree_core::{Position, Unread};
use fibtree_util::Fnv1a;

/// The first bytes of a checkpoint file.
pub(super) const MAGIC: &[u8; 8] = b"FIBTCKPT";
/// The version of the format: 5 since the exact lanes hold 56 bits (they held 48 before).
const VERSION: u64 = 5;
/// The first version, and the last one whose states held lanes of 48 bits (2: a bottom-up state
/// alone; 3: before the top-down half left out the states of count zero; 4). Such a file is
/// refused, in one line: its lanes are not this fibtree's.
const LANES48_VERSIONS: std::ops::RangeInclusive<u64> = 2..=4;

/// What a checkpoint says of the run that made it.
#[derive(Debug, PartialEq)]
pub(crate) struct Saved {
    pub(crate) n: u64,
    pub(crate) g: u64,
    pub(crate) moduli: Vec<u64>,
    pub(crate) independent: Vec<u64>,
    pub(crate) position: Position<'static>,
}

/// Words written to `W`, their checksum kept as they go.
struct Out<W: Write> {
    w: W,
    sum: Fnv1a,
}

impl<W: Write> Out<W> {
    fn bytes(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.sum.update(bytes);
        self.w.write_all(bytes)
    }

    fn put(&mut self, word: u64) -> std::io::Result<()> {
        self.bytes(&word.to_le_bytes())
    }
}

/// Writes the file of the run `(n, g)` with its moduli, their residues, and where the engine
/// stands, to `w` (which the caller buffers). Cost O(the state's words); no memory.
///
/// # Errors
/// Any error of `w`.
pub(super) fn encode_into(
    w: impl Write,
    (n, g): (u64, u64),
    moduli: &[u64],
    independent: &[u64],
    point: &Position,
) -> std::io::Result<()> {
    let mut out = Out { w, sum: Fnv1a::default() };
    out.bytes(MAGIC)?;
    for word in [VERSION, n, g, 1 /* the blocked engine */, moduli.len() as u64] {
        out.put(word)?;
    }
    moduli.iter().chain(independent).try_for_each(|&word| out.put(word))?;
    point.write(&mut |word| out.put(word))?;
    let sum = out.sum.finish();
    out.w.write_all(&sum.to_le_bytes())
}

/// The file of [`encode_into`] as bytes.
#[cfg(test)]
pub(super) fn encode(target: (u64, u64), moduli: &[u64], independent: &[u64], point: &Position) -> Vec<u8> {
    let mut bytes = Vec::new();
    encode_into(&mut bytes, target, moduli, independent, point).expect("a Vec takes every write");
    bytes
}

/// Words read from `R`, with the bytes left before the checksum: a length is never more than what
/// is left, so that a forged one allocates nothing past the file.
struct In<R: Read> {
    r: R,
    left: u64,
}

impl<R: Read> In<R> {
    fn get(&mut self) -> Option<u64> {
        self.left = self.left.checked_sub(8)?;
        let mut word = [0u8; 8];
        self.r.read_exact(&mut word).ok()?;
        Some(u64::from_le_bytes(word))
    }
}

/// Why a file is refused: damaged, with what.
fn damaged(what: &str) -> String {
    format!("is damaged ({what}); use --fresh to start over")
}

/// Whether the `len` bytes of `r` (a whole file) end with the checksum of the rest: read once, a
/// block at a time. Cost O(len) time, a block of memory.
///
/// # Errors
/// Why not, in words: the file is shorter than a checksum, or a read failed.
fn checksum_holds(mut r: impl Read, len: u64) -> std::result::Result<bool, String> {
    let body = len.checked_sub(8).ok_or_else(|| damaged("truncated"))?;
    let mut sum = Fnv1a::default();
    let mut block = vec![0u8; 1 << 16];
    let mut left = body;
    while left > 0 {
        let take = left.min(block.len() as u64) as usize;
        r.read_exact(&mut block[..take]).map_err(|e| format!("cannot be read: {e}"))?;
        sum.update(&block[..take]);
        left -= take as u64;
    }
    let mut end = [0u8; 8];
    r.read_exact(&mut end).map_err(|e| format!("cannot be read: {e}"))?;
    Ok(sum.finish() == u64::from_le_bytes(end))
}

/// Whether the file `open` reads from its start begins with [`MAGIC`]: what makes a file a
/// checkpoint, damaged or not (and what `--fresh` discards). Cost: one read of 8 bytes.
///
/// # Errors
/// A read that failed, in words.
pub(super) fn is_checkpoint<R: Read>(open: impl Fn() -> std::io::Result<R>) -> std::result::Result<bool, String> {
    let mut magic = [0u8; 8];
    let mut r = open().map_err(|e| format!("cannot be read: {e}"))?;
    let mut got = 0;
    while got < 8 {
        match r.read(&mut magic[got..]) {
            Ok(0) => return Ok(false),
            Ok(k) => got += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(format!("cannot be read: {e}")),
        }
    }
    Ok(&magic == MAGIC)
}

/// Reads a checkpoint of `len` bytes, which `open` reads from its start, in three passes (its magic,
/// its checksum, its fields) so that no copy of it is held; or says in one line why it cannot be
/// used. Cost O(len) time; memory the state it holds.
///
/// # Errors
/// Why not, in words.
pub(super) fn decode_from<R: Read>(
    open: impl Fn() -> std::io::Result<R>,
    len: u64,
) -> std::result::Result<Saved, String> {
    if !is_checkpoint(&open)? {
        return Err("is not a fibtree checkpoint".into());
    }
    if !checksum_holds(open().map_err(|e| format!("cannot be read: {e}"))?, len)? {
        return Err(damaged("bad checksum"));
    }
    let mut reader = open().map_err(|e| format!("cannot be read: {e}"))?;
    let mut magic = [0u8; 8];
    reader.read_exact(&mut magic).map_err(|e| format!("cannot be read: {e}"))?;
    let mut words = In { r: reader, left: len.saturating_sub(16) };
    let saved = parse(&mut words)?;
    if words.left != 0 {
        return Err(damaged("trailing bytes"));
    }
    Ok(saved)
}

/// Reads a checkpoint held in `bytes`, or says in one line why it cannot be used.
#[cfg(test)]
pub(super) fn decode(bytes: &[u8]) -> std::result::Result<Saved, String> {
    decode_from(|| Ok(bytes), bytes.len() as u64)
}

/// The fields after the magic, up to the checksum.
fn parse<R: Read>(words: &mut In<R>) -> std::result::Result<Saved, String> {
    let mut next = || words.get().ok_or_else(|| damaged("truncated"));
    let version = next()?;
    if LANES48_VERSIONS.contains(&version) {
        return Err(format!(
            "was saved by an earlier fibtree (format version {version}), whose lanes of 48 bits this one \
             no longer reads; use --fresh to start over"
        ));
    }
    if version != VERSION {
        return Err(format!("has format version {version}; this fibtree reads version {VERSION}"));
    }
    let (n, g, engine, count) = (next()?, next()?, next()?, next()?);
    if engine != 1 || count > 64 {
        return Err(damaged("unknown engine or moduli"));
    }
    let moduli = (0..count).map(|_| next()).collect::<std::result::Result<Vec<_>, _>>()?;
    let independent = (0..count).map(|_| next()).collect::<std::result::Result<Vec<_>, _>>()?;
    let (cut, half) = (next()?, next()?);
    if half > 1 {
        return Err(damaged("unknown half"));
    }
    // a length is never more than the words left: nothing is allocated for a forged one
    let mut next = |length: bool| match length {
        true => words.get().filter(|&l| l <= words.left / 8),
        false => words.get(),
    };
    let position = Position::read(cut, half, &mut next).map_err(|why| {
        damaged(&match why {
            Unread::Short => "truncated state".to_string(),
            Unread::Half(half) => format!("a half of {half}, neither 0 nor 1"),
            Unread::Set => "a non-zero set whose window is not one".to_string(),
            // every carry a run holds is a lane's high bits, eight of them
            Unread::Carry(carry) => format!("a carry of {carry}, above 255"),
        })
    })?;
    Ok(Saved { n, g, moduli, independent, position })
}
