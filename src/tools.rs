//! The small commands: `grundy`, `brute`, `completions`, `man` and `help`.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use clap_mangen::Man;
use fibtree_oracles::{MAX_EXPLICIT_K, MAX_FIRST_PRINCIPLES_K, explicit_tree_counts, first_principles_counts};
use fibtree_util::AtomicFile;
use serde::Serialize;

use super::args::{self, OutputArg};
use super::session::{Outcome, OutputForm, Session};
use crate::error::refused;

/// G(K) (fields in alphabetical order, as the JSON lists them).
#[derive(Serialize)]
struct Grundy {
    #[serde(serialize_with = "super::json::signed")]
    grundy: i128,
    #[serde(serialize_with = "super::json::int")]
    k: u64,
}

impl Outcome for Grundy {
    fn human(&self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "{}", self.grundy)
    }
}

/// `fibtree grundy K`: G(K), -1 for the empty tree T(0), for any K below 2^64 (the closed form).
pub(super) fn grundy(k: u64, json: bool, output: OutputArg) -> crate::error::Result<ExitCode> {
    let grundy = fibtree::grundy(k).map_or(-1, i128::from);
    let mut session = Session::new(output.output.as_deref(), None, false)?;
    session.emit(&Grundy { grundy, k }, OutputForm::of(json, false))?;
    Ok(ExitCode::SUCCESS)
}

/// The oracles' counts: CSV rows `g,explicit_tree,first_principles` for people, or JSON (fields in
/// alphabetical order, as the JSON lists them).
#[derive(Serialize)]
struct Brute {
    k: u32,
    rows: Vec<BruteRow>,
}

/// c(K, g) by each oracle; first principles only where it runs (K <= 7).
#[derive(Serialize)]
struct BruteRow {
    explicit_tree: u64,
    first_principles: Option<u64>,
    g: u64,
}

impl Outcome for Brute {
    fn human(&self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "g,explicit_tree,first_principles")?;
        for row in &self.rows {
            let first = row.first_principles.map_or(String::new(), |f| f.to_string());
            writeln!(out, "{},{},{first}", row.g, row.explicit_tree)?;
        }
        Ok(())
    }
}

/// `fibtree brute K [--g G] [--json]`: the brute-force oracles' c(K, g), the explicit tree (K <= 30)
/// and first principles (K <= 7).
pub(super) fn brute(k: u64, g: Option<u64>, json: bool, output: OutputArg) -> crate::error::Result<ExitCode> {
    let too_large = || refused("K", format!("at most {MAX_EXPLICIT_K} for the explicit-tree oracle, got {k}"));
    let k = u32::try_from(k).map_err(|_| too_large())?;
    let explicit = explicit_tree_counts(k).map_err(|e| refused("K", e))?;
    let first =
        (k <= MAX_FIRST_PRINCIPLES_K).then(|| first_principles_counts(k)).transpose().map_err(|e| refused("K", e))?;
    let mut session = Session::new(output.output.as_deref(), None, false)?;
    let gs = match g {
        Some(g) => vec![g],
        None => (0..explicit.len().max(first.as_ref().map_or(0, Vec::len)) as u64).collect(),
    };
    let at = |v: &Vec<u64>, g: u64| v.get(g as usize).copied().unwrap_or(0);
    let rows = gs
        .into_iter()
        .map(|g| BruteRow { explicit_tree: at(&explicit, g), first_principles: first.as_ref().map(|f| at(f, g)), g })
        .collect();
    session.emit(&Brute { k, rows }, OutputForm::of(json, false))?;
    Ok(ExitCode::SUCCESS)
}

/// `fibtree completions SHELL`: the shell's completions, on standard output.
pub(super) fn completions(shell: clap_complete::Shell) -> crate::error::Result<ExitCode> {
    let mut session = Session::new(None, None, false)?;
    // made whole first: the generator cannot report a write error (it panics)
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut args::command(), "fibtree", &mut script);
    session.out().write_all(&script)?;
    session.finish()?;
    Ok(ExitCode::SUCCESS)
}

/// `fibtree man [-o DIR]`: without a folder, one manual page (roff) on standard output that
/// documents every command and its options; with one, a page per command and the main page,
/// which refers to them, each written atomically.
pub(super) fn man(folder: Option<&Path>) -> crate::error::Result<ExitCode> {
    let mut cmd = args::command();
    // names the commands' pages and synopses as `fibtree-count` and `fibtree count`
    cmd.build();
    let Some(folder) = folder.filter(|f| f.as_os_str() != "-") else {
        let mut session = Session::new(None, None, false)?;
        session.out().write_all(&one_page(&cmd)?)?;
        session.finish()?;
        return Ok(ExitCode::SUCCESS);
    };
    if folder.exists() && !folder.is_dir() {
        return Err(refused("--output", format!("'{}' is not a folder; expected a folder", folder.display())));
    }
    if !folder.exists() {
        std::fs::create_dir_all(folder)
            .map_err(|e| refused("--output", format!("cannot create the folder '{}': {e}", folder.display())))?;
    }
    let source = format!("fibtree {}", env!("CARGO_PKG_VERSION"));
    // the main page says the environment in a section of its own, not as clap's "EXTRA"
    let main = cmd.clone().after_help(None::<&str>);
    let pages = cmd.get_subcommands().filter(|c| !c.is_hide_set()).chain([&main]);
    for command in pages {
        let is_main = command.get_name() == main.get_name();
        // the examples and the exit statuses in sections of their own, not as clap's "EXTRA"
        let page = Man::new(command.clone().after_long_help(None::<&str>)).source(&source);
        let sections = match is_main {
            true => environment_section() + &exit_status_section(),
            false => examples_section(command.get_name()) + &exit_status_section(),
        };
        let path = folder.join(page.get_filename());
        // the pages' names are fibtree's: what else stands there (a link, a FIFO) is refused
        let mut file = AtomicFile::create_own(&path)
            .map_err(|e| refused("--output", format!("cannot write in the folder '{}': {e}", folder.display())))?;
        page.render(&mut file)
            .and_then(|()| file.write_all(sections.as_bytes()))
            .and_then(|()| file.commit())
            .map_err(|e| crate::error::Error::from(e).context(format!("writing the manual page {}", path.display())))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The whole manual in one page: fibtree's own sections, then a COMMANDS section with a
/// subsection per command (its synopsis, description and options), the environment variables, and
/// no reference to any other page. `cmd` is built.
fn one_page(cmd: &clap::Command) -> std::io::Result<Vec<u8>> {
    let man = Man::new(cmd.clone());
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    man.render_options_section(&mut page)?;
    writeln!(page, ".SH COMMANDS")?;
    for sub in cmd.get_subcommands().filter(|c| !c.is_hide_set()) {
        let name = sub.get_bin_name().unwrap_or_else(|| sub.get_name());
        writeln!(page, ".SS \"{}\"", name.replace('-', "\\-"))?;
        let man = Man::new(sub.clone().after_long_help(None::<&str>));
        let sections: [RenderSection; 3] =
            [Man::render_synopsis_section, Man::render_description_section, Man::render_options_section];
        for render in sections {
            let mut section = Vec::new();
            render(&man, &mut section)?;
            page.extend_from_slice(body(&String::from_utf8_lossy(&section)).as_bytes());
        }
        page.extend_from_slice(body(&examples_section(sub.get_name())).as_bytes());
    }
    page.extend_from_slice(environment_section().as_bytes());
    page.extend_from_slice(exit_status_section().as_bytes());
    man.render_version_section(&mut page)?;
    Ok(strip_repeated_preambles(&page))
}

/// `text` as roff shows it literally: its backslashes and hyphens escaped.
fn roff(text: &str) -> String {
    text.replace('\\', "\\e").replace('-', "\\-")
}

/// The manual's ENVIRONMENT section (roff): what `--help` lists after its options.
fn environment_section() -> String {
    let mut section = String::from(".SH ENVIRONMENT\n");
    for variable in super::args::ENVIRONMENT_VARIABLES {
        section.push_str(&format!(".TP\n\\fB{}\\fR\n{}\n", variable.name, roff(variable.text)));
    }
    section
}

/// The manual's EXIT STATUS section (roff), on the main page and every command's: what `--help`
/// lists after its options.
fn exit_status_section() -> String {
    let mut section = String::from(".SH \"EXIT STATUS\"\n");
    for status in super::args::EXIT_STATUSES {
        section.push_str(&format!(".TP\n\\fB{}\\fR\n{}\n", status.name, roff(status.text)));
    }
    section
}

/// The manual's EXAMPLES section of the command `name` (roff), from the examples its `--help`
/// lists: each command line in bold, what it does under it. Empty for a command without examples.
fn examples_section(name: &str) -> String {
    let examples = super::args::examples_of(name);
    if examples.is_empty() {
        return String::new();
    }
    let mut section = String::from(".SH EXAMPLES\n");
    for e in examples {
        section.push_str(&format!(".TP\n\\fB{}\\fR\n{}\n", roff(e.line), roff(e.what)));
    }
    section
}

/// One of clap_mangen's renderers of a section.
type RenderSection = fn(&Man, &mut dyn Write) -> std::io::Result<()>;

/// A rendered section without roff's preamble and its heading: its `.SH` lines become `.PP`, a
/// paragraph of the command's subsection.
fn body(section: &str) -> String {
    let mut out = String::new();
    for line in section.lines().filter(|l| !is_preamble(l)) {
        out.push_str(if line.starts_with(".SH") { ".PP" } else { line });
        out.push('\n');
    }
    out
}

/// Whether `line` is one of the two lines of roff's preamble (the apostrophe string `Aq`), which
/// clap_mangen writes before every section it renders.
fn is_preamble(line: &str) -> bool {
    line.starts_with(".ie \\n(.g .ds Aq") || line.starts_with(".el .ds Aq")
}

/// `page` with roff's preamble kept once, at its start.
fn strip_repeated_preambles(page: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(page);
    let mut lines = text.lines();
    let mut out: Vec<&str> = lines.by_ref().take(2).collect();
    out.extend(lines.filter(|l| !is_preamble(l)));
    (out.join("\n") + "\n").into_bytes()
}

/// `fibtree help [COMMAND]`: the help of fibtree or of COMMAND, on standard output, as `--help`
/// prints it.
pub(super) fn help(command: Option<&str>) -> crate::error::Result<ExitCode> {
    let cmd = args::command();
    if let Some(name) = command
        && cmd.find_subcommand(name).is_none()
    {
        let names: Vec<&str> = cmd.get_subcommands().map(|c| c.get_name()).collect();
        return Err(refused("COMMAND", format!("expected one of {}, got '{name}'", names.join(", "))));
    }
    let words = ["fibtree"].into_iter().chain(command).chain(["--help"]);
    // --help always stops the parse, with the help as its "error"
    if let Err(e) = args::parse(words) {
        crate::args::print_help(&e)?;
    }
    Ok(ExitCode::SUCCESS)
}
