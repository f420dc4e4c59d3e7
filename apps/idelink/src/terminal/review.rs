//! Reviewing one proposal in the terminal: the question, the choice, and editing the proposed
//! text in `$VISUAL` / `$EDITOR`.

use super::editor_command;
use super::file_read::{MAX_FILE_BYTES, read_regular};
use std::io;
use std::path::PathBuf;
use std::process::Command;

/// The user's answer to the review prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// Accept the proposal as it is (`a`): not enough for a summary.
    Accept,
    /// Accept the proposal as it is, knowing the review showed only a summary of it
    /// ([`ACCEPT_UNSEEN`]).
    AcceptUnseen,
    /// Reject it.
    Reject,
    /// Edit the proposed text, then accept the edited text.
    Edit,
}

/// What accepts a proposal shown only as a summary: not a letter typed by habit.
pub const ACCEPT_UNSEEN: &str = "accept unseen";

/// The question asked for `label` (already made inert); `whole` is false when only a summary
/// of the change was shown.
pub fn prompt(label: &str, whole: bool) -> String {
    if whole {
        format!("Apply this change to {label}? [a]ccept / [r]eject / [e]dit: ")
    } else {
        format!(
            "Apply this change to {label}, shown only in summary? [e]dit to see it all / \
             [r]eject / \"{ACCEPT_UNSEEN}\": "
        )
    }
}

/// What an `a` on a summary gets instead of an accept.
pub fn summary_accept_refused() -> String {
    format!(
        "not accepted: the summary does not show every line this would accept; [e]dit opens \
         all of it in your editor, or type \"{ACCEPT_UNSEEN}\" to accept it as it is"
    )
}

/// Reads a choice from a typed line; None when it is not one.
pub fn parse_choice(line: &str) -> Option<Choice> {
    match line.trim().to_ascii_lowercase().as_str() {
        ACCEPT_UNSEEN => Some(Choice::AcceptUnseen),
        "a" | "accept" | "y" | "yes" => Some(Choice::Accept),
        "r" | "reject" | "n" | "no" => Some(Choice::Reject),
        "e" | "edit" => Some(Choice::Edit),
        _ => None,
    }
}

/// Opens `proposed` in `editor` (a command line split into words by
/// [`editor_command::words`], started without a shell; the file path is appended) and returns
/// the text as saved. The temporary file is private (0600 on Unix; on Windows it inherits the
/// per-user temporary folder's access list) and removed afterwards. Blocks until the editor
/// exits.
pub fn edit(proposed: &str, file_name: &str, editor: &str) -> io::Result<String> {
    let words = editor_command::words(editor).map_err(io::Error::other)?;
    let path = temp_path(file_name);
    write_private(&path, proposed)?;
    let status = Command::new(&words[0])
        .args(&words[1..])
        .arg(&path)
        .status()
        .map_err(|e| io::Error::other(format!("cannot start {}: {e}", words[0])));
    let edited = status.and_then(|status| {
        if status.success() {
            match read_regular(&path, MAX_FILE_BYTES) {
                Ok(Some(bytes)) => String::from_utf8(bytes)
                    .map_err(|_| io::Error::other("the edited text is not UTF-8")),
                Ok(None) => Err(io::Error::other("the editor removed the file")),
                Err(message) => Err(io::Error::other(message)),
            }
        } else {
            Err(io::Error::other(format!("{editor} exited with {status}")))
        }
    });
    let _ = std::fs::remove_file(&path);
    edited
}

/// A fresh temporary path ending in `file_name` with every character but `[A-Za-z0-9._-]`
/// replaced by `_` (the name comes from the peer; the editor shows it).
fn temp_path(file_name: &str) -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let name: String = file_name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    std::env::temp_dir().join(format!("idelink-{}-{n}-{name}", std::process::id()))
}

fn write_private(path: &PathBuf, text: &str) -> io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)?.write_all(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_accept_words_and_letters() {
        assert_eq!(parse_choice(" A "), Some(Choice::Accept));
        assert_eq!(parse_choice("yes"), Some(Choice::Accept));
        assert_eq!(parse_choice("r"), Some(Choice::Reject));
        assert_eq!(parse_choice("e"), Some(Choice::Edit));
        assert_eq!(parse_choice(" Accept Unseen\r"), Some(Choice::AcceptUnseen));
        assert_eq!(parse_choice("accept  unseen"), None);
        assert_eq!(parse_choice("maybe"), None);
        assert_eq!(parse_choice(""), None);
    }

    #[cfg(unix)]
    #[test]
    fn edit_returns_what_the_editor_saved() {
        // A sed script stands in for the user's editor.
        let text = edit("the proposed text\n", "x.rs", "sed -i s/proposed/edited/").unwrap();
        assert_eq!(text, "the edited text\n");
        let failed = edit("x", "x.rs", "false").unwrap_err();
        assert!(failed.to_string().contains("false exited with"), "{failed}");
        let missing = edit("x", "x.rs", "/no/such/editor -w").unwrap_err();
        assert!(
            missing
                .to_string()
                .starts_with("cannot start /no/such/editor: "),
            "{missing}"
        );
    }

    #[cfg(windows)]
    #[test]
    fn edit_returns_what_the_editor_saved() {
        // cmd's `copy` stands in for the user's editor: it writes a prepared text over the
        // proposal. The command keeps its backslashes (Windows word rules).
        let prepared =
            std::env::temp_dir().join(format!("idelink-edited-{}.txt", std::process::id()));
        std::fs::write(&prepared, "the edited text\n").unwrap();
        let editor = format!(r#"cmd /d /c copy /y "{}""#, prepared.display());
        let text = edit("the proposed text\n", "x.rs", &editor);
        let _ = std::fs::remove_file(&prepared);
        assert_eq!(text.unwrap(), "the edited text\n");
        let failed = edit("x", "x.rs", "cmd /d /c exit 3").unwrap_err();
        assert!(failed.to_string().contains("exited with"), "{failed}");
        let missing = edit("x", "x.rs", r"C:\no\such\editor.exe -w").unwrap_err();
        assert!(
            missing
                .to_string()
                .starts_with(r"cannot start C:\no\such\editor.exe: "),
            "{missing}"
        );
    }

    #[test]
    fn the_temporary_name_keeps_only_plain_characters() {
        let path = temp_path("a\x1b[2K b/../c.rs");
        let name = path.file_name().unwrap().to_str().unwrap();
        assert!(name.ends_with("-a__2K_b_.._c.rs"), "{name}");
    }
}
