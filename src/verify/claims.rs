//! `fibtree verify --claims`: a file of claims, read a line at a time. The first pass gathers what
//! the claims ask (each distinct (n, g) and the moduli of its claims); the engines answer that; then
//! each later pass reads the file again and writes each line's verdict as it goes. Memory: what is
//! asked and its answers, not the lines (a regular file is read again from its start; standard
//! input or a FIFO is held as it was read, within the memory limit). A signal stops every pass
//! within a line, and leaves no output.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, Write};
use std::os::fd::AsFd;
use std::path::Path;
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use fibtree::claims::{Answers, Asked, CLAIMS_HEADER, Checked, Claim, ClaimsReader, Line, MAX_LINE, answer};
use fibtree::{Error, Hooks, Limit, Options, Param};
use serde::Serialize;

use super::super::args::VerifyArgs;
use super::super::input::{Stoppable, is_cancelled, open};
use super::super::messages::{escaped, one_line};
use super::super::output::{Output, distinct};
use super::super::session::Session;
use super::words::{self, ClaimedParity, hint, shown};
use super::{route, word};
use crate::error::refused;
use crate::terms::flag;

/// The counts of a claims file's verdicts (fields in alphabetical order, as the JSON lists them).
#[derive(Serialize, Default)]
struct Counts {
    malformed: usize,
    mismatch: usize,
    ok: usize,
}

#[derive(Serialize)]
struct MalformedOut {
    error: String,
    line: usize,
}

#[derive(Serialize)]
struct ClaimVerdict {
    answer: String,
    checked_by: Vec<&'static str>,
    expected: String,
    #[serde(serialize_with = "super::super::json::int")]
    g: u64,
    independent: Option<String>,
    independent_modulus: Option<String>,
    judged_by: &'static str,
    line: usize,
    meant_modulus: Option<String>,
    modulus: Option<String>,
    n: u64,
    parity: Option<ClaimedParity>,
    verdict: &'static str,
    /// The route in words (not in the JSON).
    #[serde(skip)]
    route: String,
}

/// A line's verdict, as every pass after the first sees it.
enum Verdict {
    Claim(Box<ClaimVerdict>),
    /// A malformed line, or a claim whose own run does not fit, with its reason.
    Malformed(MalformedOut),
}

impl Verdict {
    /// The line for people, its numbers whole with `whole` (`--show-value`).
    fn human(&self, whole: bool) -> String {
        match self {
            Verdict::Claim(c) => {
                let ClaimVerdict { line, n, g, verdict, route, .. } = &**c;
                let (answer, expected) = (shown(&c.answer, whole), shown(&c.expected, whole));
                let modulus = c.modulus.as_ref().map_or(String::new(), |m| format!(" mod {m}"));
                let mut text = format!(
                    "line {line}: c({n}, {g}){modulus}: claimed {answer}, true {expected}: {verdict} ({route})"
                );
                if let Some(parity) = c.parity.as_ref().filter(|p| !p.agrees) {
                    text.push_str("; ");
                    text.push_str(&parity.why);
                }
                if let Some(meant) = &c.meant_modulus {
                    text.push_str("; ");
                    text.push_str(&hint(meant.parse().expect("a modulus we wrote"), true));
                }
                // numbers read as digits, and words of ours: nothing to escape
                text
            }
            Verdict::Malformed(m) => escaped(&format!("line {}: malformed: {}", m.line, m.error)),
        }
    }

    fn count(&self, counts: &mut Counts) {
        match self {
            Verdict::Claim(c) if c.verdict == "OK" => counts.ok += 1,
            Verdict::Claim(_) => counts.mismatch += 1,
            Verdict::Malformed(_) => counts.malformed += 1,
        }
    }
}

/// The most distinct moduli a claims file's hints try ([`words::meant`]): the first asked.
const HINT_MODULI: usize = 1000;

/// The verdict on a claim, `earlier` the moduli asked before it (for the hint of a wrong whole
/// value).
fn claim_verdict(c: &Checked, earlier: &[u128]) -> ClaimVerdict {
    let Claim { line, n, g, modulus, ref answer } = c.claim;
    ClaimVerdict {
        answer: answer.to_string(),
        checked_by: words::checked_by(c),
        expected: c.expected.to_string(),
        g,
        independent: c.independent.map(|r| r.to_string()),
        independent_modulus: words::independent_modulus(c),
        judged_by: c.judged.name(),
        line,
        meant_modulus: words::meant(c, earlier).map(|m| m.to_string()),
        modulus: modulus.map(|m| m.to_string()),
        n,
        parity: ClaimedParity::of(n, g, modulus, answer),
        verdict: word(c),
        route: words::how_judged(c),
    }
}

/// Where the claims come from.
enum Source {
    /// A regular file, read again from where it started (`start`: standard input may be a file read
    /// in part before) for each pass; its size and time of change when it was opened, which must
    /// stay.
    File { file: File, start: u64, seen: Option<(u64, std::time::SystemTime)> },
    /// Standard input, a FIFO or a device, still to be read: it is held as the first pass reads it.
    Unread(Box<dyn Read>),
    /// What the first pass read of such a source.
    Held(Vec<u8>),
}

/// The claims file and its name, with its path (`'claims.csv'`, `standard input`).
struct Input {
    source: Source,
    name: String,
    cancel: Arc<AtomicBool>,
}

/// The metadata that says a regular file has not changed.
fn seen(file: &File) -> Option<(u64, std::time::SystemTime)> {
    file.metadata().ok().and_then(|m| Some((m.len(), m.modified().ok()?)))
}

/// A source held in memory as it is read, within `ceiling` bytes (past it, or where the memory
/// cannot be had, the read fails with [`TooLargeToHold`]); what it holds is shared with its reader's owner.
struct Holding<R> {
    inner: R,
    held: Rc<RefCell<Vec<u8>>>,
    ceiling: u64,
}

/// What a read past the ceiling of a [`Holding`] fails with.
#[derive(Debug, thiserror::Error)]
#[error("too large to hold in memory")]
struct TooLargeToHold;

impl<R: Read> Read for Holding<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let read = self.inner.read(buf)?;
        let mut held = self.held.borrow_mut();
        if (held.len() + read) as u64 > self.ceiling || held.try_reserve(read).is_err() {
            return Err(std::io::Error::other(TooLargeToHold));
        }
        held.extend_from_slice(&buf[..read]);
        Ok(read)
    }
}

impl Input {
    /// Opens `path` (`-`: standard input).
    ///
    /// # Errors
    /// A usage error naming `--claims` for a file that cannot be opened.
    fn open(path: &Path, cancel: Arc<AtomicBool>) -> crate::error::Result<Input> {
        if path.as_os_str() == "-" {
            let name = "standard input".to_string();
            // a regular file on standard input is read again as any file is
            let file = std::io::stdin().as_fd().try_clone_to_owned().map(File::from);
            if let Ok(mut file) = file
                && file.metadata().is_ok_and(|m| m.is_file())
                && let Ok(start) = file.stream_position()
            {
                let source = Source::File { seen: seen(&file), start, file };
                return Ok(Input { source, name, cancel });
            }
            let stdin = Stoppable::new(std::io::stdin().lock(), cancel.clone(), true);
            return Ok(Input { source: Source::Unread(Box::new(stdin)), name, cancel });
        }
        let name = format!("'{}'", path.display());
        let (file, may_wait) = open(path).map_err(|e| refused("--claims", format!("cannot read {name}: {e}")))?;
        let source = match file.metadata().is_ok_and(|m| m.is_file()) {
            true => Source::File { seen: seen(&file), start: 0, file },
            // a folder too: its first read fails, naming it
            false => Source::Unread(Box::new(Stoppable::new(file, cancel.clone(), may_wait))),
        };
        Ok(Input { source, name, cancel })
    }

    /// The first pass: what the claims ask, gathered within `limit` (with what is held of a
    /// source that is not a regular file).
    ///
    /// # Errors
    /// Usage errors naming `--claims`: a source that cannot be read, a line longer than
    /// [`MAX_LINE`], an empty file, one without its header or with only its header;
    /// [`Error::OutOfMemory`] past `limit`; [`Error::Interrupted`] once the cancel flag is set.
    fn gather(&mut self, limit: Limit) -> crate::error::Result<Asked> {
        let cancel = self.cancel.clone();
        let hooks = Hooks::default().cancel_on(&cancel);
        match std::mem::replace(&mut self.source, Source::Held(Vec::new())) {
            Source::File { file, start, seen } => {
                let stoppable = Stoppable::new(&file, cancel.clone(), false);
                let mut reader = ClaimsReader::new(stoppable).stop_at_long_lines().cancel_on(hooks);
                let gathered = self.each_first(&mut reader, limit, || 0);
                self.source = Source::File { file, start, seen };
                gathered
            }
            Source::Unread(source) => {
                let held = Rc::new(RefCell::new(Vec::new()));
                let holding = Holding { inner: source, held: held.clone(), ceiling: limit.bytes() };
                let mut reader = ClaimsReader::new(holding).stop_at_long_lines().cancel_on(hooks);
                let gathered = self.each_first(&mut reader, limit, || held.borrow().capacity());
                drop(reader);
                self.source = Source::Held(held.take());
                gathered
            }
            Source::Held(held) => {
                let mut reader = ClaimsReader::new(&held[..]).stop_at_long_lines().cancel_on(hooks);
                let gathered = self.each_first(&mut reader, limit, || 0);
                self.source = Source::Held(held);
                gathered
            }
        }
    }

    /// [`Input::gather`] over `reader`, whose source holds `held()` bytes.
    fn each_first<R: Read>(
        &self,
        reader: &mut ClaimsReader<'_, R>,
        limit: Limit,
        held: impl Fn() -> usize,
    ) -> crate::error::Result<Asked> {
        let mut asked = Asked::default();
        let mut lines = 0;
        while let Some(line) = reader.next() {
            let need = asked.bytes().saturating_add(held() as u64);
            match line {
                Ok(Line::Claim(claim)) => asked.add(&claim),
                Ok(Line::Malformed(_)) => {}
                Ok(Line::TooLong(line)) => {
                    let name = &self.name;
                    let why = format!(
                        "line {line} of {name} is longer than {MAX_LINE} bytes, the most a claims line may hold"
                    );
                    return Err(refused("--claims", why));
                }
                Err(e) => return Err(self.reading_error(e, reader.blank(), need, limit)),
            }
            lines += 1;
            if need > limit.bytes() {
                return Err(Error::OutOfMemory { param: Param::Claims, estimate: need, limit }.into());
            }
        }
        if lines == 0 {
            return Err(refused("--claims", format!("{} has no claims, only its header", self.name)));
        }
        Ok(asked)
    }

    /// A failed read in the terms of the command line (`need`: the bytes held when it failed).
    fn reading_error(&self, e: Error, blank: bool, need: u64, limit: Limit) -> crate::error::Error {
        let name = &self.name;
        match e {
            Error::Io(io) if is_cancelled(&io) => Error::Interrupted.into(),
            Error::Io(io) if io.get_ref().is_some_and(|e| e.is::<TooLargeToHold>()) => {
                // what was held, and the doubling that did not fit
                let estimate = need.saturating_mul(2).max(limit.bytes() + 1);
                Error::OutOfMemory { param: Param::Claims, estimate, limit }.into()
            }
            Error::Io(io) => refused("--claims", format!("cannot read {name}: {io}")),
            Error::InvalidArgument { .. } if blank => {
                refused("--claims", format!("{name} is empty; expected the header '{CLAIMS_HEADER}' and claims"))
            }
            Error::InvalidArgument { expected, .. } => refused("--claims", format!("{name}: {expected}")),
            other => other.into(),
        }
    }

    /// A later pass: each line's verdict, in the file's order, to `each`.
    ///
    /// # Errors
    /// `each`'s; a usage error naming `--claims` for a file that cannot be read, or that is not
    /// what the first pass read; [`Error::Interrupted`] once the cancel flag is set.
    fn each_verdict(
        &self,
        answers: &Answers,
        mut each: impl FnMut(Verdict) -> crate::error::Result<()>,
    ) -> crate::error::Result<()> {
        let name = &self.name;
        let changed =
            || refused("--claims", format!("{name} changed while it was read; expected a file that stays as it is"));
        let cannot_read = |e: &dyn std::fmt::Display| refused("--claims", format!("cannot read {name}: {e}"));
        let source: Box<dyn Read + '_> = match &self.source {
            Source::File { file, start, .. } => {
                let mut file: &File = file;
                file.seek(std::io::SeekFrom::Start(*start)).map_err(|e| cannot_read(&e))?;
                Box::new(file)
            }
            Source::Held(held) => Box::new(&held[..]),
            Source::Unread(_) => {
                return Err(crate::error::Error::failed("the claims were not gathered before they were judged"));
            }
        };
        let cancel = self.cancel.clone();
        let hooks = Hooks::default().cancel_on(&cancel);
        // the moduli asked so far (the first HINT_MODULI), for the hints of wrong whole values
        let (mut earlier, mut asked): (Vec<u128>, BTreeSet<u128>) = Default::default();
        for line in ClaimsReader::new(source).stop_at_long_lines().cancel_on(hooks) {
            let verdict = match line {
                Ok(Line::Claim(claim)) => match answers.judge(&claim) {
                    Some(Ok(c)) => {
                        let verdict = Verdict::Claim(Box::new(claim_verdict(&c, &earlier)));
                        if let Some(m) = claim.modulus
                            && earlier.len() < HINT_MODULI
                            && asked.insert(m)
                        {
                            earlier.push(m);
                        }
                        verdict
                    }
                    // a claim whose own run does not fit is a bad line like any other, with its reason
                    Some(Err(r)) => {
                        Verdict::Malformed(MalformedOut { error: one_line(&r.error.to_string()), line: claim.line })
                    }
                    None => return Err(changed()),
                },
                // a reason quotes the line: one line, its control characters escaped and long numbers cut
                Ok(Line::Malformed(m)) => Verdict::Malformed(MalformedOut { error: one_line(&m.error), line: m.line }),
                Ok(Line::TooLong(_)) | Err(Error::InvalidArgument { .. }) => return Err(changed()),
                Err(Error::Io(e)) => return Err(cannot_read(&e)),
                Err(e) => return Err(e.into()),
            };
            each(verdict)?;
        }
        match &self.source {
            Source::File { file, seen: before, .. } if seen(file) != *before => Err(changed()),
            _ => Ok(()),
        }
    }
}

/// The output, buffered, unless its reader has gone. What is buffered is written only when it is
/// flushed ([`Sink::finish`]): where the writing stops (an error, a signal), it is dropped unwritten.
struct Sink<'a>(Option<BufWriter<&'a mut Output>>);

impl<'a> Sink<'a> {
    fn new(out: &'a mut Output) -> Sink<'a> {
        Sink(Some(BufWriter::with_capacity(1 << 16, out)))
    }

    /// Whether the reader has gone.
    fn closed(&self) -> bool {
        self.0.is_none()
    }

    /// Writes with `write` unless the reader has gone: a closed pipe stops the writing quietly
    /// (the verdicts' exit status is known before they are written, and is kept); any other error
    /// is returned.
    fn put(
        &mut self,
        write: impl FnOnce(&mut BufWriter<&'a mut Output>) -> std::io::Result<()>,
    ) -> crate::error::Result<()> {
        let Some(writer) = &mut self.0 else { return Ok(()) };
        match write(writer) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.drop_buffer();
                Ok(())
            }
            other => Ok(other?),
        }
    }

    /// Writes what is buffered.
    fn finish(&mut self) -> crate::error::Result<()> {
        self.put(|w| w.flush())
    }

    fn drop_buffer(&mut self) {
        if let Some(writer) = self.0.take() {
            let _ = writer.into_parts();
        }
    }
}

impl Drop for Sink<'_> {
    fn drop(&mut self) {
        self.drop_buffer();
    }
}

/// Every line for people, claims and malformed lines in the file's order, then the counts; their
/// numbers whole with `whole`.
fn write_text(input: &Input, answers: &Answers, out: &mut Output, whole: bool) -> crate::error::Result<Counts> {
    let mut counts = Counts::default();
    let mut sink = Sink::new(out);
    input.each_verdict(answers, |v| {
        v.count(&mut counts);
        sink.put(|w| writeln!(w, "{}", v.human(whole)))
    })?;
    let Counts { ok, mismatch, malformed } = counts;
    sink.put(|w| writeln!(w, "{ok} OK, {mismatch} MISMATCH, {malformed} malformed"))?;
    sink.finish()?;
    Ok(counts)
}

/// The JSON object of every verdict (the keys in alphabetical order: the counts, the malformed
/// lines, the verdicts), as `serde_json` writes it: a pass to count, then one for each list.
fn write_json(input: &Input, answers: &Answers, out: &mut Output) -> crate::error::Result<Counts> {
    let mut counts = Counts::default();
    input.each_verdict(answers, |v| {
        v.count(&mut counts);
        Ok(())
    })?;
    let mut sink = Sink::new(out);
    sink.put(|w| {
        w.write_all(br#"{"counts":"#)?;
        serde_json::to_writer(&mut *w, &counts)?;
        w.write_all(br#","malformed":["#)
    })?;
    for malformed in [true, false] {
        if !malformed {
            sink.put(|w| w.write_all(br#"],"verdicts":["#))?;
        }
        if sink.closed() {
            break;
        }
        let mut first = true;
        input.each_verdict(answers, |v| {
            let sep: &[u8] = if first { b"" } else { b"," };
            let written = match v {
                Verdict::Malformed(m) if malformed => sink.put(|w| {
                    w.write_all(sep)?;
                    Ok(serde_json::to_writer(&mut *w, &m)?)
                }),
                Verdict::Claim(c) if !malformed => sink.put(|w| {
                    w.write_all(sep)?;
                    Ok(serde_json::to_writer(&mut *w, &c)?)
                }),
                _ => return Ok(()),
            };
            first = false;
            written
        })?;
    }
    sink.put(|w| w.write_all(b"]}\n"))?;
    sink.finish()?;
    Ok(counts)
}

/// `verify --claims PATH`.
pub(crate) fn verify_claims(path: &Path, args: &VerifyArgs) -> crate::error::Result<ExitCode> {
    distinct(&[("--claims", Some(path)), ("--output", args.run.output.output.as_deref())])?;
    // A run too large for memory: the file is what asks for it.
    let claims_flags = |param| if param == Param::N { "--claims" } else { flag(param) };
    let mut session =
        Session::new(args.run.output.output.as_deref(), args.run.threads.threads, !args.json)?.naming(claims_flags);
    let result = judge(&mut session, path, args);
    // an interruption, wherever it came from, is the signal's; nothing is left written
    result.map_err(|e| session.error(e))
}

fn judge(session: &mut Session, path: &Path, args: &VerifyArgs) -> crate::error::Result<ExitCode> {
    let cancel = session.cancel_flag();
    let mut input = Input::open(path, cancel.clone())?;
    let asked = input.gather(args.run.memory_limit())?;
    let answers = if asked.targets() == 0 {
        Answers::default()
    } else {
        let (engine, memory_limit) = (args.run.engine, Some(args.run.memory_limit()));
        session.compute(|hooks, _| {
            Ok(answer(&asked, &Options { hooks, engine, memory_limit, ..Options::default() }, route(args))?)
        })?
    };
    drop(asked);
    if cancel.load(Ordering::Relaxed) {
        return Err(Error::Interrupted.into());
    }
    // each (n, g) the modular engine judged instead of the exact count, once
    for ((n, g), judged) in answers.instead_of_exact() {
        if let Some(note) = judged.note() {
            crate::messages::note(&format!("note: c({n}, {g}) {note}"));
        }
    }
    let counts = match args.json {
        true => write_json(&input, &answers, session.out())?,
        false => write_text(&input, &answers, session.out(), args.show_value)?,
    };
    // a signal while the verdicts were written: the file is not put in place
    if cancel.load(Ordering::Relaxed) {
        return Err(Error::Interrupted.into());
    }
    let status = ExitCode::from(if counts.malformed > 0 { 2 } else { u8::from(counts.mismatch > 0) });
    match session.finish() {
        Err(e) if !e.is_broken_pipe() => Err(e),
        _ => Ok(status),
    }
}
