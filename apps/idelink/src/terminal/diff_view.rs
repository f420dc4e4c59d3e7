//! A proposed edit as a unified diff for the terminal, coloured when the terminal wants it.
//!
//! Every line of it is model text, so it goes through [`inert`]: hidden characters are shown
//! as escapes and the hunk that holds them gets a warning line; lines longer than
//! [`WRAP_CHARS`] are wrapped, each continuation marked `↪`. A proposal too large to diff
//! quickly (over [`Limits`], or past the diff deadline) is shown as a summary instead: sizes,
//! line counts, where the sides differ and how many lines changed (one pass, [`changes`]),
//! and the first and last differing lines. A summary is not the whole change ([`View::whole`]):
//! the review asks more than `a` to accept it.

mod changes;

use super::inert::{self, Findings, Highlight};
use anstyle::{AnsiColor, Style};
use changes::Changes;
use similar::{Algorithm, ChangeTag, TextDiff};
use std::fmt::Write;
use std::time::{Duration, Instant};

const RED: Style = AnsiColor::Red.on_default();
const GREEN: Style = AnsiColor::Green.on_default();
const CYAN: Style = AnsiColor::Cyan.on_default();
const BOLD: Style = Style::new().bold();
const YELLOW: Style = AnsiColor::Yellow.on_default();

/// Shown characters per row; longer lines continue on rows marked `↪`.
pub const WRAP_CHARS: usize = 200;
/// Lines of a side shown in a summary's first differing region.
const SUMMARY_LINES: usize = 3;

/// When a diff is not worth computing or printing.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest side diffed, in bytes.
    pub max_bytes: usize,
    /// Largest side diffed, in lines.
    pub max_lines: usize,
    /// Longest diff printed, in rows.
    pub max_rows: usize,
    /// How long the diff may take to compute.
    pub deadline: Duration,
}

impl Limits {
    /// A review a person can read, computed in well under a second on a slow machine.
    pub const DEFAULT: Limits = Limits {
        max_bytes: 2 * 1024 * 1024,
        max_lines: 20_000,
        max_rows: 10_000,
        deadline: Duration::from_millis(500),
    };
}

/// What the review shows of a proposal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View {
    /// The diff or the summary, inert.
    pub text: String,
    /// Every changed line is in `text` (a diff); false for a summary, whose accept must be
    /// confirmed as accepting lines the user has not seen.
    pub whole: bool,
}

/// Renders the change from `old` (None: the file does not exist yet) to `new` of `label` as a
/// unified diff with three lines of context, or as a summary past `limits`.
pub fn render(label: &str, old: Option<&str>, new: &str, colour: bool, limits: &Limits) -> View {
    let paint = Paint { colour };
    let mut out = String::new();
    let label = inert::line(label, WRAP_CHARS);
    let from = if old.is_some() {
        format!("a/{label}")
    } else {
        "/dev/null".to_owned()
    };
    let _ = writeln!(out, "{}--- {from}{}", paint.code(BOLD), paint.reset());
    let _ = writeln!(out, "{}+++ b/{label}{}", paint.code(BOLD), paint.reset());
    let old_text = old.unwrap_or("");
    if old_text == new {
        let _ = writeln!(out, "(no changes)");
        return View {
            text: out,
            whole: true,
        };
    }
    let too_large = [old_text, new]
        .iter()
        .any(|side| side.len() > limits.max_bytes || side.lines().count() > limits.max_lines);
    let body = if too_large {
        Err(format!(
            "too large to diff here (a side over {} lines or {} bytes)",
            limits.max_lines, limits.max_bytes
        ))
    } else {
        hunks(old_text, new, paint, limits)
    };
    let whole = body.is_ok();
    match body {
        Ok(body) => out.push_str(&body),
        Err(reason) => out.push_str(&summary(&reason, old, new, paint)),
    }
    View { text: out, whole }
}

/// Colour codes (rendered by `anstyle`), or nothing.
#[derive(Clone, Copy)]
struct Paint {
    colour: bool,
}

impl Paint {
    fn code(self, style: Style) -> String {
        if self.colour {
            style.render().to_string()
        } else {
            String::new()
        }
    }

    fn reset(self) -> String {
        if self.colour {
            anstyle::Reset.render().to_string()
        } else {
            String::new()
        }
    }
}

/// The hunks of the diff, or why they are not shown.
fn hunks(old: &str, new: &str, paint: Paint, limits: &Limits) -> Result<String, String> {
    let started = Instant::now();
    // Lines end at '\n' only, so a lone CR stays inside its line, shown as <CR>.
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Myers)
        .deadline(started + limits.deadline)
        .diff_slices(&old_lines, &new_lines);
    let groups = diff.grouped_ops(3);
    if started.elapsed() >= limits.deadline {
        return Err(format!(
            "the diff took longer than {} ms to compute",
            limits.deadline.as_millis()
        ));
    }
    let mut out = String::new();
    let mut rows = 0;
    for group in &groups {
        let (first, last) = (&group[0], &group[group.len() - 1]);
        let old_range = first.old_range().start..last.old_range().end;
        let new_range = first.new_range().start..last.new_range().end;
        let mut body = String::new();
        let mut findings = Findings::default();
        for op in group {
            for change in diff.iter_changes(op) {
                let (sign, code) = match change.tag() {
                    ChangeTag::Delete => ('-', paint.code(RED)),
                    ChangeTag::Insert => ('+', paint.code(GREEN)),
                    ChangeTag::Equal => (' ', String::new()),
                };
                let text = change.value();
                rows += line_rows(&mut body, &mut findings, sign, &code, paint, text);
                if !text.ends_with('\n') {
                    let _ = writeln!(body, "\\ No newline at end of file");
                    rows += 1;
                }
            }
        }
        if rows > limits.max_rows {
            return Err(format!("the diff is over {} rows long", limits.max_rows));
        }
        let _ = writeln!(
            out,
            "{}@@ -{} +{} @@{}",
            paint.code(CYAN),
            hunk_range(old_range),
            hunk_range(new_range),
            paint.reset()
        );
        if findings.any() {
            let _ = writeln!(
                out,
                "{}{}{}",
                paint.code(YELLOW),
                findings.warning(),
                paint.reset()
            );
        }
        out.push_str(&body);
    }
    Ok(out)
}

/// Writes one diff line (`text` with its line ending) as one or more rows; returns how many.
fn line_rows(
    out: &mut String,
    findings: &mut Findings,
    sign: char,
    code: &str,
    paint: Paint,
    text: &str,
) -> usize {
    let text = text.strip_suffix('\n').unwrap_or(text);
    let (rows, found) = inert::rows(text, WRAP_CHARS, Highlight::new(paint.colour));
    findings.merge(found);
    let reset = if code.is_empty() {
        String::new()
    } else {
        paint.reset()
    };
    for (i, row) in rows.iter().enumerate() {
        let marker = if i == 0 { "" } else { "↪" };
        let _ = writeln!(out, "{code}{sign}{marker}{row}{reset}");
    }
    rows.len()
}

/// The summary shown instead of a diff: why, both sizes, where the sides differ and how
/// many lines each has that the other lacks ([`Changes`]), and the first and last differing
/// lines.
fn summary(reason: &str, old: Option<&str>, new: &str, paint: Paint) -> String {
    let (warn, reset) = (paint.code(YELLOW), paint.reset());
    let mut out = String::new();
    let _ = writeln!(out, "{warn}! not shown as a diff: {reason}{reset}");
    let now = old.map_or("no file yet".to_owned(), size);
    let _ = writeln!(out, "{warn}!   on disk:  {now}{reset}");
    let _ = writeln!(out, "{warn}!   proposed: {}{reset}", size(new));
    let old: Vec<&str> = old.unwrap_or("").split_inclusive('\n').collect();
    let new: Vec<&str> = new.split_inclusive('\n').collect();
    let Some(changes) = Changes::of(&old, &new) else {
        // `render` summarizes only texts that differ, and then some line does.
        let _ = writeln!(out, "{warn}!   no line differs{reset}");
        return out;
    };
    let _ = writeln!(
        out,
        "{warn}!   differing lines: {} in the proposal, {} on disk; {} added, {} removed{reset}",
        span(changes.first, changes.last_new),
        span(changes.first, changes.last_old),
        changes.added.count,
        changes.removed.count,
    );
    for (what, lines) in [
        ("added (proposal's line numbers)", &changes.added),
        ("removed (line numbers on disk)", &changes.removed),
    ] {
        if lines.count > 0 {
            let _ = writeln!(out, "{warn}!   {what}: {}{reset}", lines.describe());
        }
    }
    let mut body = String::new();
    let mut findings = Findings::default();
    let from = changes.first - 1;
    let _ = writeln!(
        body,
        "{warn}!   first difference at line {}:{reset}",
        changes.first
    );
    for (sign, side, code) in [('-', &old, RED), ('+', &new, GREEN)] {
        let end = side.len().min(from + SUMMARY_LINES);
        excerpt(
            &mut body,
            &mut findings,
            sign,
            &side[from..end],
            code,
            paint,
        );
    }
    if changes.last_old.max(changes.last_new) > from + SUMMARY_LINES {
        let _ = writeln!(
            body,
            "{warn}!   last difference, up to line {}:{reset}",
            changes.last_new.max(changes.first)
        );
        for (sign, side, last, code) in [
            ('-', &old, changes.last_old, RED),
            ('+', &new, changes.last_new, GREEN),
        ] {
            let start = from.max(last.saturating_sub(SUMMARY_LINES)).min(last);
            excerpt(
                &mut body,
                &mut findings,
                sign,
                &side[start..last],
                code,
                paint,
            );
        }
    }
    if findings.any() {
        let _ = writeln!(out, "{warn}{}{reset}", findings.warning());
    }
    out.push_str(&body);
    let _ = writeln!(
        out,
        "{warn}! [e]dit opens the whole proposal in your editor{reset}"
    );
    out
}

/// Lines `a` to `b` (1-based, inclusive), one line, or none when `b < a`.
fn span(a: usize, b: usize) -> String {
    match b.cmp(&a) {
        std::cmp::Ordering::Less => "none".to_owned(),
        std::cmp::Ordering::Equal => format!("line {a}"),
        std::cmp::Ordering::Greater => format!("lines {a}-{b}"),
    }
}

/// The first row of each of `lines`, signed and painted, marked when the line goes on.
fn excerpt(
    out: &mut String,
    findings: &mut Findings,
    sign: char,
    lines: &[&str],
    code: Style,
    paint: Paint,
) {
    for text in lines {
        let text = text.strip_suffix('\n').unwrap_or(text);
        // Each character shows as one or more: the first row needs no more than these.
        let head = text
            .char_indices()
            .nth(WRAP_CHARS)
            .map_or(text, |(end, _)| &text[..end]);
        let (rows, found) = inert::rows(head, WRAP_CHARS, Highlight::new(paint.colour));
        findings.merge(found);
        let more = if head.len() < text.len() || rows.len() > 1 {
            " ↪ (the line goes on)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "{}{sign}{}{more}{}",
            paint.code(code),
            rows[0],
            paint.reset()
        );
    }
}

/// `N bytes, M lines`.
fn size(text: &str) -> String {
    format!("{} bytes, {} lines", text.len(), text.lines().count())
}

/// `start,len` in the 1-based form of unified diffs (`start` is the line before an empty range).
fn hunk_range(range: std::ops::Range<usize>) -> String {
    let len = range.end - range.start;
    let start = if len == 0 {
        range.start
    } else {
        range.start + 1
    };
    format!("{start},{len}")
}

#[cfg(test)]
mod tests;
