//! `fibtree shard`: the residues of c(N, G) modulo one shard's share of the primes, as a
//! self-describing JSON file that `combine` reads.

use std::io::Write;
use std::process::ExitCode;

use fibtree::{Options, crt};
use serde::{Deserialize, Serialize};

use super::args::ShardArgs;
use super::session::{Outcome, OutputForm, Session};

/// The version of the shard file's format.
pub(super) const FORMAT: u32 = 1;

/// A shard file (fields in alphabetical order, as the JSON lists them). The numbers are strings, so
/// that any JSON reader keeps every digit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ShardFile {
    /// FNV-1a (64 bits, hex) of the file's JSON with this field empty: catches damage, not forgery.
    pub(super) checksum: String,
    pub(super) format: u32,
    #[serde(serialize_with = "super::json::int", deserialize_with = "super::json::read_int")]
    pub(super) g: u64,
    pub(super) n: u64,
    pub(super) primes: Vec<String>,
    pub(super) program: String,
    pub(super) residues: Vec<String>,
    /// The seconds the shard took, to the millisecond.
    pub(super) seconds: f64,
    /// I/S.
    pub(super) shard: String,
}

impl ShardFile {
    /// The checksum of the file's content (everything but the checksum). Cost O(file size).
    pub(super) fn content_checksum(&self) -> String {
        let blank = ShardFile { checksum: String::new(), ..self.clone() };
        let text = serde_json::to_string(&blank).expect("a shard file serialises");
        format!("{:016x}", fibtree_util::fnv1a(text.as_bytes()))
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

pub(super) fn shard(args: ShardArgs) -> anyhow::Result<ExitCode> {
    let (index, count) = args.shard;
    let mut session = Session::new(args.output.output.as_deref(), args.threads.threads, false)?;
    let limit = args.memory.limit(args.threads.threads);
    let (primes, residues) = session.compute(|hooks, _| {
        let primes = crt::shard_primes(args.target.n, index, count)?;
        let residues = crt::residues(
            args.target.n,
            args.target.g,
            &primes,
            &Options { hooks, memory_limit: Some(limit), ..Options::default() },
        )?;
        Ok((primes, residues))
    })?;
    let mut file = ShardFile {
        checksum: String::new(),
        format: FORMAT,
        g: args.target.g,
        n: args.target.n,
        primes: primes.iter().map(u64::to_string).collect(),
        program: format!("fibtree {}", env!("CARGO_PKG_VERSION")),
        residues: residues.iter().map(u64::to_string).collect(),
        // to the millisecond: a short decimal reads back exactly, so the checksum holds after a reader
        seconds: (session.seconds() * 1e3).round() / 1e3,
        shard: format!("{index}/{count}"),
    };
    file.checksum = file.content_checksum();
    session.emit(&file, OutputForm::Json)?;
    Ok(ExitCode::SUCCESS)
}
