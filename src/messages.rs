//! What goes to standard error: one line a message, whatever the input held. Control characters
//! are escaped (a newline in an argument cannot split an error, an escape sequence cannot reach the
//! terminal), an error's numbers longer than [`MAX_DIGITS`] digits are cut to their ends, and a
//! write to a closed or full standard error is not an error of its own.

use std::io::Write;

/// The longest run of digits a message shows whole; a longer one shows its first and last
/// `MAX_DIGITS / 2` digits and its length.
pub(super) const MAX_DIGITS: usize = 40;

/// `text` made fit for one line: control characters escaped as Rust writes them (`\n`, `\t`,
/// `\u{1b}`).
pub(super) fn escaped(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// The run of digits `digits` as a message shows it: whole up to [`MAX_DIGITS`] digits, longer
/// cut to its first and last `MAX_DIGITS / 2` digits and its length
/// (`12345678901234567890...12345678901234567890 (2087 digits)`). Every number a message or a
/// verdict for people shows is cut by this. Cost O(its length).
pub(super) fn cut(digits: &str) -> String {
    if let Some(magnitude) = digits.strip_prefix('-') {
        return format!("-{}", cut(magnitude));
    }
    let len = digits.len();
    if len > MAX_DIGITS && digits.is_ascii() {
        let half = MAX_DIGITS / 2;
        format!("{}...{} ({len} digits)", &digits[..half], &digits[len - half..])
    } else {
        digits.to_string()
    }
}

/// `text` made fit for one line of an error: control characters escaped ([`escaped`]) and numbers
/// longer than [`MAX_DIGITS`] cut to their ends, with their length ([`cut`]).
pub(super) fn one_line(text: &str) -> String {
    let text = escaped(text);
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(start) = rest.find(|c: char| c.is_ascii_digit()) {
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        let len = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
        out.push_str(&cut(&rest[..len]));
        rest = &rest[len..];
    }
    out.push_str(rest);
    out
}

/// Writes `line` to standard error as one line, its control characters escaped; a failed write is
/// ignored, as there is nowhere left to report it. Its numbers are as the caller gives them: one
/// that may be long is cut by the caller ([`cut`]).
pub fn say(line: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{}", escaped(line));
}

/// Whether the command was asked to be quiet (`-q`): its notes are then not said ([`note`]).
static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Makes the process quiet (`-q`): from now on [`note`] says nothing and no session draws a bar;
/// warnings and errors are still said ([`say`], [`say_error`]).
pub fn be_quiet() {
    QUIET.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Whether the process is quiet ([`be_quiet`]): no notes, and no progress bar.
pub fn quiet() -> bool {
    QUIET.load(std::sync::atomic::Ordering::Relaxed)
}

/// Says `line` as [`say`] does, unless the process is quiet ([`be_quiet`]): for what a command
/// notes beside its results (a check passed, a repeated option, a file skipped), not for warnings.
pub fn note(line: &str) {
    if !quiet() {
        say(line);
    }
}

/// Writes the error `line` to standard error as [`one_line`] makes it.
pub fn say_error(line: &str) {
    say(&one_line(line));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(one_line("path 'LLR\n' bad"), "path 'LLR\\n' bad");
        assert_eq!(one_line("\u{1b}[31mred\ttab\r"), "\\u{1b}[31mred\\ttab\\r");
        assert_eq!(one_line("café ünïcode"), "café ünïcode");
    }

    #[test]
    fn long_numbers_are_cut_to_their_ends() {
        let long: String = (0..2087).map(|i| char::from(b'0' + (i % 10) as u8)).collect();
        let line = one_line(&format!("got {long}, expected 12"));
        assert_eq!(line, "got 01234567890123456789...78901234567890123456 (2087 digits), expected 12");
        let forty = "1".repeat(MAX_DIGITS);
        assert_eq!(one_line(&forty), forty, "a number of the limit's length is shown whole");
        assert_eq!((cut(&forty), cut("17")), (forty.clone(), "17".to_string()));
        assert_eq!(cut(&long), "01234567890123456789...78901234567890123456 (2087 digits)");
        assert_eq!(cut(&format!("-{long}")), "-01234567890123456789...78901234567890123456 (2087 digits)");
    }
}
