//! The `fibtree` command line, run as a user runs it: one module per command or area, each checking
//! what the command prints, its exit status (0 success, 1 a failed check, 2 bad input, 101 an
//! internal error, 130/143 a signal) and that no invocation panics.
//!
//! Where new tests go: a command's output and behaviour in its module (`count`, `mod_only`,
//! `verify` (one claim), `claims` (`verify --claims`), `dist`, `table`, `moves`, `draw`, `bench`,
//! `shards` for `shard` and `combine`, `estimate`, `stress`, `tools` for `grundy` and `brute`); the
//! width and the texts of the help in `help`; output files and signals in `output`; claims files
//! and shard sets too large to hold or that never end (memory under `ulimit -v`, signals while they
//! are read or their verdicts written) in `inputs`; checkpoints in `checkpoint`; what stands at the names fibtree gives files itself (a lock file, a
//! temporary file, a kept output) in `own_names`; damaged and forged
//! shard and claims files, property-tested, in `forged`; the memory guard under `ulimit` and cgroup
//! limits in `limits`; every command under a limit on processes and threads (RLIMIT_NPROC) in
//! `process_limit`; the kernel sets
//! (`FIBTREE_ISA`) in `isa`; the files of `deploy/` in `deploy`, and on a real Slurm in `slurm`;
//! the reference programs of `compare/reference/` and `compare/compare.py` in `reference`; every usage
//! error (exit 2) of every command in `validation` (of outputs and checkpoints in
//! `validation_files`), but for those that need a running count, shard files, `FIBTREE_ISA` or
//! `FIBTREE_MACHINE`, tested with them in `checkpoint`, `shards` and `isa`. Tests of the library
//! without the binary go in `crates/fibtree/tests/lib/`.
//!
//! No test depends on the machine it runs on (tests/README.md): a figure the machine decides is read
//! from the run's own report, and the tests of such figures run under every simulated machine of
//! `common::SIMULATED` as well.

#[path = "../common/mod.rs"]
mod common;

mod bench;
mod checkpoint;
mod claims;
mod count;
mod deploy;
mod dist;
mod draw;
mod estimate;
mod forged;
mod help;
mod inputs;
mod isa;
mod limits;
mod mod_only;
mod moves;
mod output;
mod own_names;
mod process_limit;
mod reference;
mod shards;
mod slurm;
mod stress;
mod table;
mod tools;
mod validation;
mod validation_files;
mod verify;
