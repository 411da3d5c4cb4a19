//! `fibtree self-test`: the verification ladder, every engine against the simpler one before it,
//! each rung printed as it finishes.

mod ladder;

use std::io::Write;
use std::process::ExitCode;

use fibtree::Hooks;

use crate::session::Session;

pub(super) fn self_test(seed: Option<u64>) -> crate::error::Result<ExitCode> {
    let seed = seed.unwrap_or_else(fibtree_util::fresh_seed);
    let mut session = Session::new(None, None, false)?;
    writeln!(session.out(), "seed {seed:#x}")?;
    writeln!(session.out(), "kernel {}", crate::machine::kernel_line())?;
    let cancel = session.cancel_flag();
    // in the session's pool, on the threads it could start, as every command computes
    let all = session.compute(|_, out| {
        let mut unwritten = None;
        let all = ladder::run(seed, Hooks::default().cancel_on(&cancel), |rung| {
            let word = if rung.ok { "OK  " } else { "FAIL" };
            let written = writeln!(out, "{word} {:<40} {:>6.2} s  {}", rung.name, rung.seconds, rung.detail);
            if let Err(e) = written.and_then(|()| out.flush()) {
                unwritten.get_or_insert(e);
            }
        })?;
        match unwritten {
            Some(e) => Err(e.into()),
            None => Ok(all),
        }
    })?;
    session.finish()?;
    if all {
        Ok(ExitCode::SUCCESS)
    } else {
        crate::messages::say(&format!("error: a rung of the ladder FAILED (seed {seed:#x})"));
        Ok(ExitCode::from(1))
    }
}
