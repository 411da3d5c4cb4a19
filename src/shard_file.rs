//! The shard file: the residues of c(N, G) modulo one shard's share of the primes, as a
//! self-describing JSON file that `shard` writes and `combine` reads.

use std::cell::Cell;
use std::io::Write;

use serde::de::{Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use super::session::Outcome;

/// The version of the shard file's format.
pub(crate) const FORMAT: u32 = 1;

/// A shard file (fields in alphabetical order, as the JSON lists them). The numbers are strings, so
/// that any JSON reader keeps every digit; read, they are held as numbers ([`Numbers`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ShardFile {
    /// FNV-1a (64 bits, hex) of the file's JSON with this field empty: catches damage, not forgery.
    pub(crate) checksum: String,
    pub(crate) format: u32,
    #[serde(serialize_with = "crate::json::int", deserialize_with = "crate::json::read_int")]
    pub(crate) g: u64,
    pub(crate) n: u64,
    pub(crate) primes: Numbers,
    pub(crate) program: String,
    pub(crate) residues: Numbers,
    /// The seconds the shard took, to the millisecond.
    pub(crate) seconds: f64,
    /// I/S.
    pub(crate) shard: String,
}

impl ShardFile {
    /// The checksum of the file's content (everything but the checksum), of its JSON as it is
    /// written, hashed as it is made (nothing of the file's size is held). `None` where a number was
    /// not read as the decimal of a 64-bit number ([`Numbers::odd`]): its text is not known. Cost
    /// O(file size).
    pub(crate) fn content_checksum(&mut self) -> Option<String> {
        if self.primes.odd || self.residues.odd {
            return None;
        }
        let checksum = std::mem::take(&mut self.checksum);
        let mut hash = Fnv(fibtree_util::fnv1a(b""));
        let written = serde_json::to_writer(&mut hash, self);
        self.checksum = checksum;
        written.ok().map(|()| format!("{:016x}", hash.0))
    }
}

/// FNV-1a (64 bits, [`fibtree_util::fnv1a`]) of what is written, from the hash so far.
struct Fnv(u64);

impl Write for Fnv {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 = buf.iter().fold(self.0, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The primes or the residues of a shard file: written as a list of decimal strings, read into
/// numbers as the list is parsed (so that a large file is never held as text or strings), within
/// the memory a reader allows ([`with_budget`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Numbers {
    pub(crate) values: Vec<u64>,
    /// An entry was a string that is not the decimal of a 64-bit number as this program writes it
    /// (no sign, no leading zero).
    pub(crate) odd: bool,
}

impl From<Vec<u64>> for Numbers {
    fn from(values: Vec<u64>) -> Numbers {
        Numbers { values, odd: false }
    }
}

impl Serialize for Numbers {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Decimal(u64);
        impl Serialize for Decimal {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(&self.0)
            }
        }
        s.collect_seq(self.values.iter().map(|&v| Decimal(v)))
    }
}

thread_local! {
    /// The bytes the lists of numbers being read may still take, where a reader set a budget.
    static BUDGET: Cell<Option<u64>> = const { Cell::new(None) };
    /// Whether a list outgrew the budget (or the memory could not be had).
    static OVER: Cell<bool> = const { Cell::new(false) };
}

/// Runs `read` with the lists of numbers it reads ([`Numbers`]) allowed `bytes` in all; returns
/// its result, the bytes left, and whether a list outgrew them (its read then fails).
pub(crate) fn with_budget<T>(bytes: u64, read: impl FnOnce() -> T) -> (T, u64, bool) {
    BUDGET.set(Some(bytes));
    OVER.set(false);
    let result = read();
    (result, BUDGET.take().unwrap_or(0), OVER.take())
}

/// One entry of a list of numbers: the number, or `None` for a string that is not one.
struct Entry(Option<u64>);

impl<'de> Deserialize<'de> for Entry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Entry, D::Error> {
        struct Text;
        impl Visitor<'_> for Text {
            type Value = Entry;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Entry, E> {
                let number = s.parse::<u64>().ok().filter(|v| v.to_string() == s);
                Ok(Entry(number))
            }
        }
        d.deserialize_str(Text)
    }
}

impl<'de> Deserialize<'de> for Numbers {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Numbers, D::Error> {
        struct List;
        impl<'de> Visitor<'de> for List {
            type Value = Numbers;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a sequence")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Numbers, A::Error> {
                let mut numbers = Numbers::default();
                while let Some(Entry(entry)) = seq.next_element()? {
                    let values = &mut numbers.values;
                    if values.len() == values.capacity() {
                        let more = values.capacity().max(1024);
                        let cost = more as u64 * 8;
                        let budget = BUDGET.get();
                        if budget.is_some_and(|b| b < cost) || values.try_reserve_exact(more).is_err() {
                            OVER.set(true);
                            return Err(serde::de::Error::custom("too many numbers to hold in memory"));
                        }
                        BUDGET.set(budget.map(|b| b - cost));
                    }
                    match entry {
                        Some(v) => values.push(v),
                        None => numbers.odd = true,
                    }
                }
                Ok(numbers)
            }
        }
        d.deserialize_seq(List)
    }
}

impl Outcome for ShardFile {
    fn human(&self, out: &mut dyn Write) -> std::io::Result<()> {
        serde_json::to_writer(&mut *out, self)?;
        writeln!(out)
    }

    fn quiet(&self, out: &mut dyn Write) -> std::io::Result<()> {
        self.human(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shard file reads back as it was written, its checksum is FNV-1a of its JSON with the
    /// checksum empty, and a number not written as this program writes it is marked.
    #[test]
    fn shard_files_read_back_and_hash_their_text() {
        let mut file = ShardFile {
            checksum: String::new(),
            format: FORMAT,
            g: 1 << 60,
            n: 300,
            primes: vec![7, 4_611_686_018_427_387_847].into(),
            program: "fibtree".into(),
            residues: vec![0, 5].into(),
            seconds: 0.125,
            shard: "1/1".into(),
        };
        let text = serde_json::to_string(&file).unwrap();
        assert!(text.contains(r#""primes":["7","4611686018427387847"]"#), "{text}");
        let want = format!("{:016x}", fibtree_util::fnv1a(text.as_bytes()));
        file.checksum = file.content_checksum().unwrap();
        assert_eq!(file.checksum, want);
        let back: ShardFile = serde_json::from_str(&serde_json::to_string(&file).unwrap()).unwrap();
        assert_eq!(back, file);
        for odd in [r#""07""#, r#""+7""#, r#""x""#, r#""18446744073709551616""#] {
            let text = serde_json::to_string(&file).unwrap().replace(r#""7""#, odd);
            let mut back: ShardFile = serde_json::from_str(&text).unwrap();
            assert!(back.primes.odd && back.content_checksum().is_none(), "{odd}");
        }
        assert!(
            serde_json::from_str::<ShardFile>(&serde_json::to_string(&file).unwrap().replace(r#""7""#, "7")).is_err()
        );
        // within a budget, and past it
        let (read, left, over) = with_budget(1 << 20, || serde_json::from_str::<ShardFile>(&text_of(&file)));
        assert!(read.is_ok() && left < 1 << 20 && !over);
        let (read, _, over) = with_budget(100, || serde_json::from_str::<ShardFile>(&text_of(&file)));
        assert!(read.is_err() && over);
    }

    fn text_of(file: &ShardFile) -> String {
        serde_json::to_string(file).unwrap()
    }
}
