//! A proposed edit as a unified diff for the terminal, coloured when the terminal wants it.

use similar::{ChangeTag, TextDiff};
use std::fmt::Write;

const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const CYAN: &str = "\x1b[36m";
const BOLD: &str = "\x1b[1m";
const RESET: &str = "\x1b[0m";

/// Renders the change from `old` (None: the file does not exist yet) to `new` of `label` as a
/// unified diff with three lines of context.
pub fn render(label: &str, old: Option<&str>, new: &str, colour: bool) -> String {
    let paint = |code: &'static str| if colour { code } else { "" };
    let reset = paint(RESET);
    let mut out = String::new();
    let from = if old.is_some() {
        format!("a/{label}")
    } else {
        "/dev/null".to_owned()
    };
    let _ = writeln!(out, "{}--- {from}{reset}", paint(BOLD));
    let _ = writeln!(out, "{}+++ b/{label}{reset}", paint(BOLD));
    let old = old.unwrap_or("");
    if old == new {
        let _ = writeln!(out, "(no changes)");
        return out;
    }
    let diff = TextDiff::from_lines(old, new);
    for group in diff.grouped_ops(3) {
        let (first, last) = (&group[0], &group[group.len() - 1]);
        let old_range = first.old_range().start..last.old_range().end;
        let new_range = first.new_range().start..last.new_range().end;
        let _ = writeln!(
            out,
            "{}@@ -{} +{} @@{reset}",
            paint(CYAN),
            hunk_range(old_range),
            hunk_range(new_range)
        );
        for op in &group {
            for change in diff.iter_changes(op) {
                let (sign, code) = match change.tag() {
                    ChangeTag::Delete => ('-', paint(RED)),
                    ChangeTag::Insert => ('+', paint(GREEN)),
                    ChangeTag::Equal => (' ', ""),
                };
                let text = change.value();
                let _ = write!(out, "{code}{sign}{}", text.trim_end_matches('\n'));
                let _ = writeln!(out, "{}", if code.is_empty() { "" } else { reset });
                if change.missing_newline() {
                    let _ = writeln!(out, "\\ No newline at end of file");
                }
            }
        }
    }
    out
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
mod tests {
    use super::*;

    #[test]
    fn plain_unified_diff_of_an_edit() {
        let old = "a\nb\nc\n";
        let new = "a\nB\nc\nd\n";
        assert_eq!(
            render("src/x.rs", Some(old), new, false),
            "--- a/src/x.rs\n+++ b/src/x.rs\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d\n"
        );
    }

    #[test]
    fn a_new_file_diffs_against_dev_null() {
        assert_eq!(
            render("n.rs", None, "x\n", false),
            "--- /dev/null\n+++ b/n.rs\n@@ -0,0 +1,1 @@\n+x\n"
        );
    }

    #[test]
    fn colour_wraps_changed_lines_only() {
        let out = render("f", Some("a\n"), "b\n", true);
        assert!(out.contains("\x1b[31m-a\x1b[0m\n"), "{out:?}");
        assert!(out.contains("\x1b[32m+b\x1b[0m\n"), "{out:?}");
    }

    #[test]
    fn missing_final_newline_is_marked() {
        let out = render("f", Some("a"), "b", false);
        assert!(
            out.ends_with("-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n"),
            "{out:?}"
        );
    }
}
