//! `fibtree shard`: the residues of c(N, G) modulo one shard's share of the primes, as a
//! self-describing JSON file ([`ShardFile`]) that `combine` reads.

use std::process::ExitCode;

use fibtree::{Options, crt};

use crate::args::ShardArgs;
use crate::session::{OutputForm, Session};
use crate::shard_file::{FORMAT, ShardFile};

pub(super) fn shard(args: ShardArgs) -> crate::error::Result<ExitCode> {
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
        primes: primes.into(),
        program: format!("fibtree {}", env!("CARGO_PKG_VERSION")),
        residues: residues.into(),
        // to the millisecond: a short decimal reads back exactly, so the checksum holds after a reader
        seconds: (session.seconds() * 1e3).round() / 1e3,
        shard: format!("{index}/{count}"),
    };
    file.checksum = file.content_checksum().expect("numbers written as this program writes them");
    session.emit(&file, OutputForm::Json)?;
    Ok(ExitCode::SUCCESS)
}
