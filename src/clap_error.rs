//! clap's usage errors as one line. An error about a value (one refused by its parser, or not among
//! the values an option takes) is written here from the error's parts, in clap's words, so that the
//! value shows as it was given, its control characters escaped and its long numbers cut
//! ([`super::messages::one_line`]); clap's own rendering drops them. Every other error is clap's
//! text folded into one line.

use clap::error::{ContextKind, ContextValue, ErrorKind};

/// The line `error: ...` that says what is wrong with the arguments, to be written by
/// [`super::say_error`] (which escapes and cuts it).
pub(super) fn line(e: &clap::Error) -> String {
    cut_quoted(&value_error(e).unwrap_or_else(|| folded(&e.render().to_string())))
}

/// `line` with each value it quotes (between single quotes) that is longer than
/// [`fibtree_util::SHOWN_CHARS`] characters cut to its first ones and its length, as a message
/// names what was typed: `'xxxx...' (300 characters)`. A run of digits is left whole here: one line
/// cuts every long number to its ends ([`super::messages::one_line`]). Cost O(its length).
fn cut_quoted(line: &str) -> String {
    let mut parts = line.split('\'');
    let mut out = parts.next().unwrap_or_default().to_string();
    for (i, part) in parts.enumerate() {
        out.push('\'');
        let chars = part.chars().count();
        let quoted = i % 2 == 0;
        if quoted && chars > fibtree_util::SHOWN_CHARS && !part.bytes().all(|b| b.is_ascii_digit()) {
            let head: String = part.chars().take(fibtree_util::SHOWN_CHARS).collect();
            out.push_str(&format!("{head}...' ({chars} characters)"));
            // the closing quote is written above
            continue;
        }
        out.push_str(part);
    }
    out.replace("characters)'", "characters)")
}

/// A string of the error's context.
fn context(e: &clap::Error, kind: ContextKind) -> Option<&str> {
    match e.get(kind)? {
        ContextValue::String(s) => Some(s),
        _ => None,
    }
}

/// The strings of the error's context, quoted and joined by `, `, with how many there are.
fn quoted_list(e: &clap::Error, kind: ContextKind, quote: bool) -> Option<(String, usize)> {
    let items: Vec<String> = match e.get(kind)? {
        ContextValue::String(s) => vec![s.clone()],
        ContextValue::Strings(s) => s.clone(),
        _ => return None,
    };
    let items: Vec<String> = items.into_iter().map(|s| if quote { format!("'{s}'") } else { s }).collect();
    (!items.is_empty()).then(|| (items.join(", "), items.len()))
}

/// An error about a value, as clap words it, its value whole: `invalid value 'V' for 'ARG'`, then
/// the parser's reason or the values the option takes (and a similar one, if clap found one).
fn value_error(e: &clap::Error) -> Option<String> {
    let (arg, value) = (context(e, ContextKind::InvalidArg)?, context(e, ContextKind::InvalidValue)?);
    match e.kind() {
        ErrorKind::ValueValidation => {
            let reason = std::error::Error::source(e).map_or(String::new(), |s| format!(": {s}"));
            Some(format!("error: invalid value '{value}' for '{arg}'{reason}"))
        }
        ErrorKind::InvalidValue if value.is_empty() => {
            Some(format!("error: a value is required for '{arg}' but none was supplied"))
        }
        ErrorKind::InvalidValue => {
            let mut text = format!("error: invalid value '{value}' for '{arg}'");
            if let Some((values, _)) = quoted_list(e, ContextKind::ValidValue, false) {
                text.push_str(&format!(" [possible values: {values}]"));
            }
            if let Some((similar, count)) = quoted_list(e, ContextKind::SuggestedValue, true) {
                let exist = if count == 1 { "a similar value exists" } else { "some similar values exist" };
                text.push_str(&format!(" tip: {exist}: {similar}"));
            }
            Some(text)
        }
        _ => None,
    }
}

/// clap's rendered error folded into one line: its message lines without the usage and the pointer
/// to `--help`.
fn folded(rendered: &str) -> String {
    let parts: Vec<&str> = rendered
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:"))
        .filter(|l| !l.is_empty() && !l.starts_with("For more information"))
        .collect();
    let line = parts.join(" ");
    if line.starts_with("error:") { line } else { "error: bad arguments (see --help)".into() }
}
