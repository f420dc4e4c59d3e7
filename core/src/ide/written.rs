//! What the CLI does with an accepted `openDiff`'s text (docs/protocol.md, "Unsaved buffers
//! and the file on disk"): the exact text it writes to the file, and the accept it reads as
//! a denial. The editor's side of both: [`Event::FileReplaced`](crate::Event::FileReplaced)
//! carries [`written_text`], and [`is_no_change`] turns an accept that changes nothing into a
//! refusal.
//!
//! The CLI (2.1.332) reads the old file with its line endings made `\n` (its `openDiff`'s
//! `new_file_contents` has `\n` for a file whose lines end `\r\n`: the real-CLI test
//! `an_accepted_diff_of_a_dirty_document_leaves_the_file_as_file_replaced_said`), keeps a
//! byte-order mark, and on `FILE_SAVED`:
//! - puts the mark back when the proposal and the old file start with one and the answered
//!   text (not empty) does not (the CLI's bundled code:
//!   `newContent:P.charCodeAt(0)===65279?IJt(D,N[1].text):N[1].text`, with
//!   `IJt(n,e){return e!==""&&n?.charCodeAt(0)===65279&&e.charCodeAt(0)!==65279?`\uFEFF${e}`:e}`);
//! - writes the file with the line endings it had: for a file whose lines end `\r\n`, every
//!   line break of the answered text is written `\r\n` (a `\r\n` already there stays one);
//!   the final newline is written exactly as answered (none added, none taken away);
//! - takes a text equal to the old file as "User denied via IDE" (the bundled code:
//!   `if(te.length===0){… E({behavior:"deny",message:"User denied via IDE"})`, where `te` is
//!   the list of changes from the old text to the answered one).

use super::request::{ToolOutcome, ToolRequest};

/// U+FEFF, the byte-order mark, as the CLI tests for it (`charCodeAt(0)===65279`).
const BOM: char = '\u{feff}';

/// The line break a file is written with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LineEnding {
    /// `\n`.
    Lf,
    /// `\r\n`.
    CrLf,
}

impl LineEnding {
    /// The line ending of `original` as the CLI keeps it: `\r\n` when at least as many lines
    /// end `\r\n` as end with a bare `\n` (checked with files whose every line ends alike;
    /// a mixed file is written with its majority's ending), `\n` otherwise and for a file with
    /// no line break.
    fn of(original: &str) -> LineEnding {
        let crlf = original.matches("\r\n").count();
        let lf = original.matches('\n').count() - crlf;
        if crlf > 0 && crlf >= lf {
            LineEnding::CrLf
        } else {
            LineEnding::Lf
        }
    }
}

/// The exact text the CLI writes to the file for an accept of `proposal` answered with
/// `final_text`, `original` being the file's text on disk (the diff's left side, as the
/// editor read it; `None` for a file that does not exist yet). Without `original` the line
/// endings and the mark are the answered text's own.
///
/// For a file created through the diff, CLIs before 2.1.329 drop the final newline
/// (docs/compatibility.md); this is the pinned CLI's rule.
pub fn written_text(original: Option<&str>, proposal: &str, final_text: &str) -> String {
    let Some(original) = original else {
        return final_text.to_owned();
    };
    let accepted = accepted_text(original, proposal, final_text);
    match LineEnding::of(original) {
        LineEnding::Lf => accepted,
        LineEnding::CrLf => {
            let mut text = String::with_capacity(accepted.len() + accepted.len() / 16);
            let mut lines = accepted.split('\n').peekable();
            while let Some(line) = lines.next() {
                if lines.peek().is_some() {
                    text.push_str(line.strip_suffix('\r').unwrap_or(line));
                    text.push_str("\r\n");
                } else {
                    text.push_str(line);
                }
            }
            text
        }
    }
}

/// The text the CLI takes as accepted (before it writes it with the file's line endings):
/// `final_text`, the mark put back as the module docs say.
fn accepted_text(original: &str, proposal: &str, final_text: &str) -> String {
    if proposal.starts_with(BOM)
        && original.starts_with(BOM)
        && !final_text.is_empty()
        && !final_text.starts_with(BOM)
    {
        format!("{BOM}{final_text}")
    } else {
        final_text.to_owned()
    }
}

/// Whether the CLI reads an accept of `proposal` answered with `final_text` as no change
/// (and so as "User denied via IDE") for a file whose text on disk is `original`: the text it
/// takes as accepted (the mark put back) equals the file as it read it (line endings made
/// `\n`). A file that does not exist (`None`) is created by any accept, even of an empty
/// text; an answer with `\r\n` for a file read as `\n` is a change to the CLI.
pub fn is_no_change(original: Option<&str>, proposal: &str, final_text: &str) -> bool {
    original.is_some_and(|original| {
        let as_read = original.replace("\r\n", "\n");
        accepted_text(&as_read, proposal, final_text) == as_read
    })
}

/// The file and the text [`Event::FileReplaced`](crate::Event::FileReplaced) reports for
/// `outcome` answering `request` (the engine's copy, [`ToolRequest::for_answering`]): an
/// `openDiff` accepted with a change; `None` for anything else.
pub(crate) fn file_replaced(
    request: &ToolRequest,
    outcome: &ToolOutcome,
) -> Option<(String, String)> {
    let (
        ToolRequest::OpenDiff {
            new_file_path,
            new_file_contents,
            ..
        },
        ToolOutcome::DiffSaved {
            final_text,
            original_text,
        },
    ) = (request, outcome)
    else {
        return None;
    };
    let original = original_text.as_deref();
    (!is_no_change(original, new_file_contents, final_text)).then(|| {
        (
            new_file_path.clone(),
            written_text(original, new_file_contents, final_text),
        )
    })
}

/// The reason the engine answers a no-change accept with ([`is_no_change`]); a host that
/// checks first can say the same.
pub const NO_CHANGE_REASON: &str = "the accepted text is the file's own text, which the CLI would read as \
     a denial; nothing was accepted: answer in the terminal";

#[cfg(test)]
mod tests {
    use super::*;

    const PROPOSAL_BOM: &str = "\u{feff}goodbye\nsecond\n";

    #[test]
    fn a_lf_file_gets_the_answered_text_byte_for_byte() {
        for final_text in ["goodbye\nsecond\n", "goodbye\nsecond", "", "a\r\nb\n"] {
            assert_eq!(
                written_text(Some("hello\nsecond\n"), "goodbye\nsecond\n", final_text),
                final_text
            );
        }
    }

    #[test]
    fn a_crlf_file_gets_every_line_break_as_crlf_and_its_final_newline_as_answered() {
        let original = "hello\r\nsecond\r\n";
        let proposal = "goodbye\nsecond\n";
        assert_eq!(
            written_text(Some(original), proposal, "goodbye\nsecond\nthird"),
            "goodbye\r\nsecond\r\nthird"
        );
        assert_eq!(
            written_text(Some(original), proposal, "goodbye\r\nsecond\r\nthird\r\n"),
            "goodbye\r\nsecond\r\nthird\r\n"
        );
        assert_eq!(
            written_text(Some(original), proposal, "a\n\nb\n"),
            "a\r\n\r\nb\r\n"
        );
    }

    #[test]
    fn the_mark_comes_back_when_proposal_and_file_had_it_and_the_answer_lost_it() {
        let original = "\u{feff}hello\r\nsecond\r\n";
        assert_eq!(
            written_text(Some(original), PROPOSAL_BOM, "goodbye\nsecond\nthird"),
            "\u{feff}goodbye\r\nsecond\r\nthird"
        );
        assert_eq!(
            written_text(Some(original), PROPOSAL_BOM, PROPOSAL_BOM),
            "\u{feff}goodbye\r\nsecond\r\n"
        );
        // An empty answer stays empty; a file without the mark does not get one.
        assert_eq!(written_text(Some(original), PROPOSAL_BOM, ""), "");
        assert_eq!(
            written_text(Some("hello\n"), PROPOSAL_BOM, "goodbye\n"),
            "goodbye\n"
        );
        // A proposal without the mark (the model removed it) keeps the answer as it is.
        assert_eq!(
            written_text(Some("\u{feff}hello\n"), "goodbye\n", "goodbye\n"),
            "goodbye\n"
        );
    }

    #[test]
    fn a_new_file_gets_the_answered_text() {
        assert_eq!(written_text(None, "a\n", "a\r\nb"), "a\r\nb");
    }

    #[test]
    fn a_mixed_file_is_written_with_its_majority_ending() {
        assert_eq!(LineEnding::of("a\r\nb\r\nc\n"), LineEnding::CrLf);
        assert_eq!(LineEnding::of("a\r\nb\nc\n"), LineEnding::Lf);
        assert_eq!(LineEnding::of("no break"), LineEnding::Lf);
    }

    #[test]
    fn an_accept_equal_to_the_file_as_the_cli_read_it_is_no_change() {
        let same = |original, final_text| is_no_change(Some(original), "b\n", final_text);
        assert!(same("a\nb\n", "a\nb\n"));
        assert!(same("a\r\nb\r\n", "a\nb\n"));
        assert!(same("", ""));
        assert!(!same("a\nb\n", "a\nb"));
        assert!(!same("a\r\nb\r\n", "a\r\nb\r\n"));
        // The mark the CLI puts back makes an answer without it the file's own text.
        assert!(is_no_change(Some("\u{feff}a\n"), "\u{feff}b\n", "a\n"));
        assert!(!is_no_change(Some("\u{feff}a\n"), "b\n", "a\n"));
        assert!(!is_no_change(None, "", ""));
    }
}
