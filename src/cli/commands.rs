//! What each command computes and prints.

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use num_bigint::BigUint;
use serde_json::json;

use fibtree::error::human_bytes;
use fibtree::exact::Engine;
use fibtree::report::{LAST18, P998244353};
use fibtree::verify::{Checked, Claim, Malformed, check_claims, parse_claims};
use fibtree::{Error, Hooks, Options, Report, brute};

use super::output::{Output, Progress, Signals};
use super::{CountArgs, DistArgs, OutputArg, RunArgs, TableArgs, VerifyArgs};

/// What a computing command runs with: its thread pool, the signal flags, the progress bar and the
/// output, opened before any work so that a bad `--output` fails at once.
pub(super) struct Session {
    pool: rayon::ThreadPool,
    threads: usize,
    signals: Signals,
    progress: Progress,
    pub(super) out: Output,
    start: Instant,
}

impl Session {
    pub(super) fn new(run: &RunArgs, show_progress: bool) -> anyhow::Result<Session> {
        let out = Output::open(run.output.output.as_deref())?;
        let threads = run.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().context("starting the thread pool")?;
        let signals = Signals::install()?;
        Ok(Session { pool, threads, signals, progress: Progress::new(show_progress), out, start: Instant::now() })
    }

    /// Runs `work` in the pool with the session's hooks; an interruption becomes a [`Stopped`]
    /// error carrying the signal's exit status (the unfinished output file is removed when the
    /// session is dropped).
    pub(super) fn compute<T: Send>(
        &mut self,
        work: impl FnOnce(Hooks, &mut Output) -> anyhow::Result<T> + Send,
    ) -> anyhow::Result<T> {
        let progress = &self.progress;
        let update = |stage: &str, done: u64, total: u64| progress.update(stage, done, total);
        let hooks = Hooks { cancel: Some(&self.signals.cancel), progress: Some(&update) };
        let out = &mut self.out;
        let result = self.pool.install(|| work(hooks, out));
        self.progress.finish();
        match result {
            Err(e) if matches!(e.downcast_ref::<Error>(), Some(Error::Interrupted)) => {
                Err(self.signals.stopped().into())
            }
            other => other,
        }
    }

    fn seconds(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }
}

/// Prints the loud message for each projection that disagrees; true when all agree.
fn all_agree(report: &Report) -> bool {
    for p in report.projections.iter().filter(|p| !p.agrees()) {
        eprintln!(
            "error: CROSS-CHECK FAILED for c({}, {}) mod {}: the exact value gives {}, the modular engine gives {}",
            report.n, report.g, p.modulus, p.residue, p.independent
        );
    }
    report.ok()
}

pub fn count(args: CountArgs) -> anyhow::Result<ExitCode> {
    assert!(!args.test_panic, "a panic asked for by --test-panic");
    if args.mod_only {
        return count_mod_only(args);
    }
    let mut session = Session::new(&args.run, !args.quiet && !args.json)?;
    let engine: Engine = args.run.engine.into();
    let limit = args.run.memory_limit();
    let options = Options {
        moduli: args.moduli.clone(),
        memory_limit: Some(limit),
        engine,
        perturb: args.test_perturb,
        ..Options::default()
    };
    let targets = [(args.n, args.g)];
    let (report, double_check) = session.compute(|hooks, _| {
        let options = Options { hooks, ..options };
        let say_estimate = |estimate| say_estimate(args.verbose, estimate, limit);
        let report = match &args.checkpoint {
            Some(path) => {
                let spec = fibtree::checkpoint::Spec {
                    path: path.clone(),
                    every: std::time::Duration::from_secs(args.checkpoint_every),
                    fresh: args.fresh,
                    keep: args.keep_checkpoint,
                };
                let report = fibtree::checkpoint::count_report(args.n, args.g, &options, &spec, |m| eprintln!("{m}"))?;
                say_estimate(report.memory_estimate_bytes);
                report
            }
            None => {
                let counting = fibtree::Counting::new(&targets, &options)?;
                say_estimate(counting.memory_estimate_bytes());
                let mut report = None;
                counting.for_each(|_, r| {
                    report = Some(r);
                    Ok(())
                })?;
                report.expect("the one target is reported")
            }
        };
        let double_check = if args.double_check {
            // an independent route: the other exact engine, over a plan made afresh
            let other = if engine == Engine::Blocked { Engine::Reference } else { Engine::Blocked };
            let plan = fibtree::plan::Plan::new_until(&targets, limit, hooks.cancel)?;
            let again = fibtree::exact::count_with_engine(other, &plan, &targets, hooks)?.remove(0);
            Some(again == report.value)
        } else {
            None
        };
        Ok((report, double_check))
    })?;
    let seconds = session.seconds();
    let value = report.value.to_str_radix(10);
    let out = &mut session.out;
    if args.json {
        let mut object = count_json(&report, &value, session.threads, seconds);
        object["double_check"] = json!(double_check);
        writeln!(out, "{object}")?;
    } else if args.quiet {
        writeln!(out, "{value}")?;
    } else {
        write_count_human(out, &report, &value)?;
        if let Some(agree) = double_check {
            let word = if agree { "agrees" } else { "DISAGREES" };
            writeln!(out, "double check    the other exact engine {word}")?;
        }
    }
    session.out.finish()?;
    if double_check == Some(false) {
        eprintln!("error: DOUBLE CHECK FAILED for c({}, {}): the two exact engines disagree", args.n, args.g);
        return Ok(ExitCode::from(1));
    }
    Ok(if all_agree(&report) { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// `count --verbose`: the run's memory estimate on stderr.
fn say_estimate(verbose: bool, estimate: u64, limit: u64) {
    if verbose {
        eprintln!("memory estimate {} (limit {})", human_bytes(estimate), human_bytes(limit));
    }
}

/// `count --mod-only`: the residues by the modular engine alone, in the same three forms as `count`.
fn count_mod_only(args: CountArgs) -> anyhow::Result<ExitCode> {
    let mut session = Session::new(&args.run, !args.quiet && !args.json)?;
    let limit = args.run.memory_limit();
    let report = session.compute(|hooks, _| {
        let options = Options { moduli: args.moduli.clone(), memory_limit: Some(limit), hooks, ..Options::default() };
        let report = fibtree::count_mod_report(args.n, args.g, &options)?;
        say_estimate(args.verbose, report.memory_estimate_bytes, limit);
        Ok(report)
    })?;
    let seconds = session.seconds();
    let (n, g) = (report.n, report.g);
    let out = &mut session.out;
    if args.json {
        let residue = |m: u64| report.residues.iter().find(|r| r.0 == m).map(|r| r.1.to_string());
        let object = json!({
            "n": n,
            "g": g,
            "mod_only": true,
            "residues": report.residues.iter().map(|&(modulus, residue)| json!({
                "modulus": modulus.to_string(),
                "residue": residue.to_string(),
            })).collect::<Vec<_>>(),
            "last18": residue(LAST18),
            "mod_998244353": residue(P998244353),
            "threads": session.threads,
            "seconds": seconds,
            "memory_estimate_bytes": report.memory_estimate_bytes,
        });
        writeln!(out, "{object}")?;
    } else if args.quiet {
        for (_, residue) in &report.residues {
            writeln!(out, "{residue}")?;
        }
    } else {
        writeln!(out, "{}; residues only, the exact value was not computed", title(n, g))?;
        for (modulus, residue) in &report.residues {
            writeln!(out, "c({n}, {g}) mod {modulus} = {residue}")?;
        }
    }
    session.out.finish()?;
    Ok(ExitCode::SUCCESS)
}

/// The first line of `count`'s human output: what c(n, g) counts.
fn title(n: u64, g: u64) -> String {
    if g == 0 {
        format!("c({n}, 0) = f({n}): the winning first moves of T({n})")
    } else {
        format!("c({n}, {g}): the first moves of T({n}) that leave Grundy value {g}")
    }
}

fn verdict(agrees: bool) -> &'static str {
    if agrees { "agrees with the modular engine" } else { "DISAGREES with the modular engine" }
}

fn write_count_human(out: &mut impl Write, report: &Report, value: &str) -> std::io::Result<()> {
    writeln!(out, "{}", title(report.n, report.g))?;
    writeln!(out, "digits          {}", value.len())?;
    for p in &report.projections {
        let label = match p.modulus {
            LAST18 => "last 18 digits".to_string(),
            m => format!("mod {m}"),
        };
        let residue = if p.modulus == LAST18 { format!("{:018}", p.residue) } else { p.residue.to_string() };
        writeln!(out, "{label:<15} {residue:<20} {}", verdict(p.agrees()))?;
    }
    writeln!(out, "value           {value}")
}

fn count_json(report: &Report, value: &str, threads: usize, seconds: f64) -> serde_json::Value {
    let residue = |m: u64| report.projection(m).map(|p| p.residue.to_string());
    json!({
        "n": report.n,
        "g": report.g,
        "value": value,
        "digits": value.len(),
        "last18": residue(LAST18),
        "mod_998244353": residue(P998244353),
        "projections": report.projections.iter().map(|p| json!({
            "modulus": p.modulus.to_string(),
            "residue": p.residue.to_string(),
            "independent": p.independent.to_string(),
            "agrees": p.agrees(),
        })).collect::<Vec<_>>(),
        "ok": report.ok(),
        "threads": threads,
        "seconds": seconds,
        "memory_estimate_bytes": report.memory_estimate_bytes,
    })
}

pub fn verify(args: VerifyArgs) -> anyhow::Result<ExitCode> {
    match &args.claims {
        Some(path) => verify_claims(path, &args),
        None => verify_one(&args),
    }
}

fn verify_one(args: &VerifyArgs) -> anyhow::Result<ExitCode> {
    let (n, answer) = (args.n.expect("clap requires N"), args.answer.expect("clap requires --answer"));
    let modulus = match (args.modulus, args.last_digits) {
        (Some(m), _) => m,
        (None, Some(d)) => 10u128.pow(d),
        (None, None) => return Err(Error::invalid("--mod", "expected --mod M or --last-digits D").into()),
    };
    if answer >= modulus {
        let what = format!("expected a residue below the modulus {modulus}, got {answer}");
        return Err(Error::invalid("--answer", what).into());
    }
    let claim = Claim { line: 0, n, g: args.g, modulus, answer };
    let mut session = Session::new(&args.run, !args.json)?;
    let (engine, memory_limit) = (args.run.engine.into(), Some(args.run.memory_limit()));
    let checked = session
        .compute(|hooks, _| {
            Ok(check_claims(&[claim], &Options { hooks, engine, memory_limit, ..Options::default() })?)
        })?
        .remove(0);
    if !checked.engines_agree() {
        return Err(cross_check_failed(&checked).into());
    }
    let word = if checked.ok() { "OK" } else { "MISMATCH" };
    let true_digits = args.last_digits.map(|d| format!("{:0width$}", checked.expected, width = d as usize));
    let out = &mut session.out;
    if args.json {
        let line = json!({
            "n": n, "g": args.g, "modulus": modulus.to_string(), "answer": answer.to_string(),
            "expected": checked.expected.to_string(), "verdict": word,
            "last_digits": args.last_digits, "true_last_digits": true_digits,
            "independent": checked.independent.map(|r| r.to_string()),
        });
        writeln!(out, "{line}")?;
    } else {
        writeln!(out, "{word}: c({n}, {}) mod {modulus}: claimed {answer}, true {}", args.g, checked.expected)?;
        if let (Some(d), Some(digits)) = (args.last_digits, &true_digits) {
            let noun = if d == 1 { "digit" } else { "digits" };
            writeln!(out, "the true last {d} {noun}: {digits}")?;
        }
    }
    session.out.finish()?;
    Ok(if checked.ok() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn cross_check_failed(c: &Checked) -> Error {
    Error::CrossCheck {
        what: format!("c({}, {}) mod {}", c.claim.n, c.claim.g, c.claim.modulus),
        exact: c.expected.to_string(),
        modular: c.independent.map_or("-".into(), |r| r.to_string()),
    }
}

fn verify_claims(path: &std::path::Path, args: &VerifyArgs) -> anyhow::Result<ExitCode> {
    let text = if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf)
            .context("reading the claims from standard input")?;
        buf
    } else {
        std::fs::read(path).map_err(|e| Error::invalid("--claims", format!("cannot read '{}': {e}", path.display())))?
    };
    let source = if path.as_os_str() == "-" { "standard input" } else { "the file" };
    if text.iter().all(u8::is_ascii_whitespace) {
        let what = format!("{source} is empty; expected the header '{}' and claims", fibtree::verify::CLAIMS_HEADER);
        return Err(Error::invalid("--claims", what).into());
    }
    let (claims, malformed) = parse_claims(&text);
    if claims.is_empty() && malformed.is_empty() {
        return Err(Error::invalid("--claims", format!("{source} has no claims, only its header")).into());
    }
    let mut session = Session::new(&args.run, !args.json)?;
    let checked = if claims.is_empty() {
        Vec::new()
    } else {
        let (engine, memory_limit) = (args.run.engine.into(), Some(args.run.memory_limit()));
        session.compute(|hooks, _| {
            match check_claims(&claims, &Options { hooks, engine, memory_limit, ..Options::default() }) {
                // A claim too large for memory: the file is what asks for it.
                Err(Error::OutOfMemory { estimate, limit, .. }) => {
                    Err(Error::OutOfMemory { arg: "--claims", estimate, limit }.into())
                }
                other => Ok(other?),
            }
        })?
    };
    if let Some(bad) = checked.iter().find(|c| !c.engines_agree()) {
        return Err(cross_check_failed(bad).into());
    }
    let ok = checked.iter().filter(|c| c.ok()).count();
    let mismatch = checked.len() - ok;
    write_claims(&mut session.out, args.json, &checked, &malformed, ok, mismatch)?;
    session.out.finish()?;
    Ok(ExitCode::from(if !malformed.is_empty() { 2 } else { u8::from(mismatch > 0) }))
}

fn write_claims(
    out: &mut Output,
    json: bool,
    checked: &[Checked],
    malformed: &[Malformed],
    ok: usize,
    mismatch: usize,
) -> anyhow::Result<()> {
    let verdict = |c: &Checked| if c.ok() { "OK" } else { "MISMATCH" };
    if json {
        let object = json!({
            "verdicts": checked.iter().map(|c| json!({
                "line": c.claim.line, "n": c.claim.n, "g": c.claim.g, "modulus": c.claim.modulus.to_string(),
                "answer": c.claim.answer.to_string(), "expected": c.expected.to_string(), "verdict": verdict(c),
            })).collect::<Vec<_>>(),
            "malformed": malformed.iter().map(|m| json!({"line": m.line, "error": m.error})).collect::<Vec<_>>(),
            "counts": {"ok": ok, "mismatch": mismatch, "malformed": malformed.len()},
        });
        writeln!(out, "{object}")?;
        return Ok(());
    }
    // every line in file order, claims and malformed lines together
    let mut lines: Vec<(usize, String)> = checked
        .iter()
        .map(|c| {
            let Claim { line, n, g, modulus, answer } = &c.claim;
            (
                *line,
                format!(
                    "line {line}: c({n}, {g}) mod {modulus}: claimed {answer}, true {}: {}",
                    c.expected,
                    verdict(c)
                ),
            )
        })
        .chain(malformed.iter().map(|m| (m.line, format!("line {}: malformed: {}", m.line, m.error))))
        .collect();
    lines.sort_by_key(|l| l.0);
    for (_, line) in lines {
        writeln!(out, "{line}")?;
    }
    writeln!(out, "{ok} OK, {mismatch} MISMATCH, {} malformed", malformed.len())?;
    Ok(())
}

pub fn dist(args: DistArgs) -> anyhow::Result<ExitCode> {
    let svg = args.svg.as_deref().map(super::draw::open_svg).transpose()?;
    let mut session = Session::new(&args.run, !args.json)?;
    let n = args.n;
    let limit = args.run.memory_limit();
    let entries: Vec<(u64, BigUint)> = session.compute(|hooks, _| {
        Ok(match args.modulus {
            None => fibtree::dist::exact(n, args.run.engine.into(), hooks, limit)?,
            Some(m) => fibtree::dist::modular(n, m, hooks, limit)?.into_iter().map(|(g, r)| (g, r.into())).collect(),
        })
    })?;
    let sum: BigUint = entries.iter().map(|e| &e.1).sum();
    let moves = fibtree::tree_size(n).max(BigUint::from(1u32)) - 1u32; // |T(0)| = 0 has no moves either
    let (sum, moves) = match args.modulus {
        Some(m) => (sum % m, moves % m),
        None => (sum, moves),
    };
    let sum_ok = sum == moves;
    let out = &mut session.out;
    if args.json {
        let object = json!({
            "n": n,
            "modulus": args.modulus.map(|m| m.to_string()),
            "entries": entries.iter().map(|(g, c)| json!({"g": g, "count": c.to_string()})).collect::<Vec<_>>(),
            "support": entries.len(),
            "sum": sum.to_string(),
            "moves": moves.to_string(),
            "sum_ok": sum_ok,
        });
        writeln!(out, "{object}")?;
    } else {
        writeln!(out, "{}", if args.modulus.is_some() { "g,residue" } else { "g,count" })?;
        for (g, c) in &entries {
            writeln!(out, "{g},{c}")?;
        }
    }
    session.out.finish()?;
    if let Some(svg) = svg {
        super::draw::dist_svg(svg, n, &entries, args.modulus)?;
    }
    let what = match args.modulus {
        Some(m) => format!("sum over g of c({n}, g) mod {m} = {sum}; the moves of T({n}) mod {m} = {moves}"),
        None if sum_ok => {
            format!("sum over g of c({n}, g) = the number of moves of T({n}) ({} digits)", digits(&moves))
        }
        None => format!("sum over g of c({n}, g) = {sum}, but T({n}) has {moves} moves"),
    };
    if sum_ok {
        if !args.json {
            eprintln!("{} g with c({n}, g) > 0; {what}: OK", entries.len());
        }
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("error: SUM CHECK FAILED: {what}");
        Ok(ExitCode::from(1))
    }
}

/// The number of decimal digits of `v` (1 for 0).
fn digits(v: &BigUint) -> usize {
    v.to_str_radix(10).len()
}

pub fn table(args: TableArgs) -> anyhow::Result<ExitCode> {
    if args.from > args.to {
        let what = format!("expected FROM <= TO, got {} > {}", args.from, args.to);
        return Err(Error::invalid("FROM", what).into());
    }
    fibtree::game::check_n(args.to)
        .map_err(|_| Error::invalid("TO", format!("at most {}, got {}", fibtree::game::MAX_N, args.to)))?;
    // Before the target list: 16 bytes a row, and more than that in the plan.
    let (rows, limit) = (args.to - args.from + 1, args.run.memory_limit());
    if rows.saturating_mul(64) > limit {
        return Err(Error::OutOfMemory { arg: "TO", estimate: rows.saturating_mul(64), limit }.into());
    }
    let mut session = Session::new(&args.run, !args.json)?;
    let targets: Vec<(u64, u64)> = (args.from..=args.to).map(|k| (k, 0)).collect();
    let json = args.json;
    let engine = args.run.engine.into();
    let all_ok = session.compute(|hooks, out| {
        let options = Options { hooks, engine, memory_limit: Some(args.run.memory_limit()), ..Options::default() };
        // Planned and checked against memory before anything is written.
        let counting = fibtree::Counting::new(&targets, &options)?;
        if json {
            write!(out, "{{\"from\":{},\"to\":{},\"rows\":[", args.from, args.to)?;
        } else {
            writeln!(out, "k,digits,last18,mod_998244353,value")?;
        }
        let mut all_ok = true;
        counting.for_each(|i, report| {
            all_ok &= all_agree(&report);
            let value = report.value.to_str_radix(10);
            let residue = |m: u64| report.projection(m).map_or(0, |p| p.residue);
            let (last18, p) = (residue(LAST18), residue(P998244353));
            if json {
                let row = json!({"k": report.n, "digits": value.len(), "last18": last18.to_string(),
                    "mod_998244353": p.to_string(), "value": value, "ok": report.ok()});
                write!(out, "{}{row}", if i == 0 { "" } else { "," })?;
            } else {
                writeln!(out, "{},{},{last18},{p},{value}", report.n, value.len())?;
            }
            Ok(())
        })?;
        if json {
            writeln!(out, "],\"ok\":{all_ok}}}")?;
        }
        Ok(all_ok)
    })?;
    session.out.finish()?;
    Ok(if all_ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

pub fn grundy(k: u64, json: bool, output: OutputArg) -> anyhow::Result<ExitCode> {
    let value = fibtree::grundy(k)?.map_or(-1, |g| g as i128);
    let mut out = Output::open(output.output.as_deref())?;
    if json {
        writeln!(out, "{}", json!({ "k": k, "grundy": value }))?;
    } else {
        writeln!(out, "{value}")?;
    }
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}

pub fn brute(k: u64, g: Option<u64>, output: OutputArg) -> anyhow::Result<ExitCode> {
    let too_large =
        || Error::invalid("K", format!("at most {} for the explicit-tree oracle, got {k}", brute::MAX_EXPLICIT_K));
    let k32 = u32::try_from(k).map_err(|_| too_large())?;
    let explicit = brute::explicit_tree_counts(k32)?;
    let first = (k32 <= brute::MAX_FIRST_PRINCIPLES_K).then(|| brute::first_principles_counts(k32)).transpose()?;
    let mut out = Output::open(output.output.as_deref())?;
    writeln!(out, "g,explicit_tree,first_principles")?;
    let rows = match g {
        Some(g) => vec![g],
        None => (0..explicit.len().max(first.as_ref().map_or(0, Vec::len)) as u64).collect(),
    };
    for g in rows {
        let at = |v: &Vec<u64>| v.get(g as usize).copied().unwrap_or(0);
        let fp = first.as_ref().map_or(String::new(), |f| at(f).to_string());
        writeln!(out, "{g},{},{fp}", at(&explicit))?;
    }
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}

pub fn self_test(seed: Option<u64>) -> anyhow::Result<ExitCode> {
    let seed = seed.unwrap_or_else(fibtree::rng::clock_seed);
    let signals = Signals::install()?;
    let hooks = Hooks { cancel: Some(&signals.cancel), progress: None };
    println!("seed {seed:#x}");
    let ok = fibtree::selftest::run(seed, hooks, |rung| {
        let word = if rung.ok { "OK  " } else { "FAIL" };
        println!("{word} {:<40} {:>6.2} s  {}", rung.name, rung.seconds, rung.detail);
    });
    match ok {
        Ok(true) => Ok(ExitCode::SUCCESS),
        Ok(false) => {
            eprintln!("error: a rung of the ladder FAILED (seed {seed:#x})");
            Ok(ExitCode::from(1))
        }
        Err(Error::Interrupted) => Err(signals.stopped().into()),
        Err(e) => Err(e.into()),
    }
}
