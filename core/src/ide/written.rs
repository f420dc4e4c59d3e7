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
//!
//! Releases before 2.1.329 differ (docs/compatibility.md; [`WriteRules`]): they put no mark
//! back (their code is `newContent:B[1].text`, 2.1.328), and the file keeps the final newline
//! it had (a file they create gets none).
//!
//! Every release:
//! - takes a text equal to the old file as "User denied via IDE" (the bundled code:
//!   `if(te.length===0){… E({behavior:"deny",message:"User denied via IDE"})`, where `te` is
//!   the list of changes from the old text to the answered one).

use super::request::{ToolOutcome, ToolRequest};

/// U+FEFF, the byte-order mark, as the CLI tests for it (`charCodeAt(0)===65279`).
const BOM: char = '\u{feff}';

/// How a CLI release writes an accepted diff: the rules [`written_text`] applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteRules {
    /// It puts a byte-order mark the answer lost back (2.1.329 on).
    pub restores_bom: bool,
    /// It writes the final newline as answered (2.1.329 on); before, the file keeps the final
    /// newline it had, and a file it creates has none.
    pub final_newline_as_answered: bool,
}

/// The first release with today's [`WriteRules`]: both rules appear in its bundle (2.1.328's
/// accept is `newContent:B[1].text`, 2.1.329's `P.charCodeAt(0)===65279?$Gt(D,N[1].text):…`),
/// and the drift alarm's create test sees the final newline kept from it on.
const CURRENT_RULES_SINCE: [u32; 3] = [2, 1, 329];

impl WriteRules {
    /// The rules of 2.1.329 and later, and of a client whose version is not a release number.
    pub const CURRENT: WriteRules = WriteRules {
        restores_bom: true,
        final_newline_as_answered: true,
    };

    /// The rules of the releases before 2.1.329.
    pub const BEFORE_2_1_329: WriteRules = WriteRules {
        restores_bom: false,
        final_newline_as_answered: false,
    };

    /// The rules of the CLI release `version` (`clientInfo.version`, `2.1.316`); anything that
    /// is not three dot-separated numbers gets [`WriteRules::CURRENT`].
    pub fn for_version(version: &str) -> WriteRules {
        let mut parts = version.split('.').map(|part| part.parse::<u32>().ok());
        let (Some(Some(a)), Some(Some(b)), Some(Some(c)), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return WriteRules::CURRENT;
        };
        if [a, b, c] < CURRENT_RULES_SINCE {
            WriteRules::BEFORE_2_1_329
        } else {
            WriteRules::CURRENT
        }
    }
}

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
        // Byte loops, not `str::matches`: the substring searcher would cost the wasm module
        // more than its size budget leaves.
        let bytes = original.as_bytes();
        let breaks = bytes.iter().filter(|&&b| b == b'\n').count();
        let crlf = bytes.windows(2).filter(|pair| pair == b"\r\n").count();
        let lf = breaks - crlf;
        if crlf > 0 && crlf >= lf {
            LineEnding::CrLf
        } else {
            LineEnding::Lf
        }
    }
}

/// The exact text the CLI writes to the file for an accept of `proposal` answered with
/// `final_text`, `original` being the file's text on disk (the diff's left side, as the
/// editor read it; empty for a file that does not exist, which is how the CLI reads it).
/// Without `original` (the editor did not read it) the text is the answered text as it is.
///
/// `rules` are the CLI release's ([`WriteRules::for_version`]).
pub fn written_text(
    original: Option<&str>,
    proposal: &str,
    final_text: &str,
    rules: WriteRules,
) -> String {
    let Some(original) = original else {
        return final_text.to_owned();
    };
    let mut accepted = if rules.restores_bom {
        accepted_text(original, proposal, final_text)
    } else {
        final_text.to_owned()
    };
    if !rules.final_newline_as_answered {
        let kept = without_final_newline(&accepted).len();
        accepted.truncate(kept);
        if original.ends_with('\n') {
            accepted.push('\n');
        }
    }
    match LineEnding::of(original) {
        LineEnding::Lf => accepted,
        LineEnding::CrLf => with_line_breaks(&accepted, "\r\n"),
    }
}

/// `text` with every line break (`\n` or `\r\n`) written as `line_break`.
fn with_line_breaks(text: &str, line_break: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let bytes = text.as_bytes();
    let mut start = 0;
    for (at, &byte) in bytes.iter().enumerate() {
        if byte == b'\n' {
            let end = if at > start && bytes[at - 1] == b'\r' {
                at - 1
            } else {
                at
            };
            // `\r` and `\n` are ASCII: both ends are character boundaries.
            out.push_str(text.get(start..end).unwrap_or_default());
            out.push_str(line_break);
            start = at + 1;
        }
    }
    out.push_str(text.get(start..).unwrap_or_default());
    out
}

/// `text` without one final line break (`\n` or `\r\n`).
fn without_final_newline(text: &str) -> &str {
    text.strip_suffix('\n')
        .map_or(text, |rest| rest.strip_suffix('\r').unwrap_or(rest))
}

/// The text the CLI takes as accepted (before it writes it with the file's line endings):
/// `final_text`, the mark put back as the module docs say.
fn accepted_text(original: &str, proposal: &str, final_text: &str) -> String {
    if proposal.starts_with(BOM)
        && original.starts_with(BOM)
        && !final_text.is_empty()
        && !final_text.starts_with(BOM)
    {
        let mut text = String::with_capacity(BOM.len_utf8() + final_text.len());
        text.push(BOM);
        text.push_str(final_text);
        text
    } else {
        final_text.to_owned()
    }
}

/// Whether the CLI reads an accept of `proposal` answered with `final_text` as no change
/// (and so as "User denied via IDE") for a file whose text on disk is `original`: the text it
/// takes as accepted (the mark put back) equals the file as it read it (line endings made
/// `\n`). Without `original` nothing is known to be equal. A file that does not exist is read
/// as empty by the CLI, so an empty accept of it is no change too; an answer with `\r\n` for
/// a file read as `\n` is a change to the CLI.
pub fn is_no_change(original: Option<&str>, proposal: &str, final_text: &str) -> bool {
    original.is_some_and(|original| {
        let as_read = with_line_breaks(original, "\n");
        accepted_text(&as_read, proposal, final_text) == as_read
    })
}

/// The file and the text [`Event::FileReplaced`](crate::Event::FileReplaced) reports for
/// `outcome` answering `request` (the engine's copy, [`ToolRequest::for_answering`]): an
/// `openDiff` accepted with a change; `None` for anything else.
pub(crate) fn file_replaced(
    request: &ToolRequest,
    outcome: &ToolOutcome,
    rules: WriteRules,
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
            written_text(original, new_file_contents, final_text, rules),
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
    const NOW: WriteRules = WriteRules::CURRENT;
    const OLD: WriteRules = WriteRules::BEFORE_2_1_329;

    #[test]
    fn a_lf_file_gets_the_answered_text_byte_for_byte() {
        for final_text in ["goodbye\nsecond\n", "goodbye\nsecond", "", "a\r\nb\n"] {
            assert_eq!(
                written_text(
                    Some("hello\nsecond\n"),
                    "goodbye\nsecond\n",
                    final_text,
                    NOW
                ),
                final_text
            );
        }
    }

    #[test]
    fn a_crlf_file_gets_every_line_break_as_crlf_and_its_final_newline_as_answered() {
        let original = "hello\r\nsecond\r\n";
        let proposal = "goodbye\nsecond\n";
        assert_eq!(
            written_text(Some(original), proposal, "goodbye\nsecond\nthird", NOW),
            "goodbye\r\nsecond\r\nthird"
        );
        assert_eq!(
            written_text(
                Some(original),
                proposal,
                "goodbye\r\nsecond\r\nthird\r\n",
                NOW
            ),
            "goodbye\r\nsecond\r\nthird\r\n"
        );
        assert_eq!(
            written_text(Some(original), proposal, "a\n\nb\n", NOW),
            "a\r\n\r\nb\r\n"
        );
    }

    #[test]
    fn the_mark_comes_back_when_proposal_and_file_had_it_and_the_answer_lost_it() {
        let original = "\u{feff}hello\r\nsecond\r\n";
        assert_eq!(
            written_text(Some(original), PROPOSAL_BOM, "goodbye\nsecond\nthird", NOW),
            "\u{feff}goodbye\r\nsecond\r\nthird"
        );
        assert_eq!(
            written_text(Some(original), PROPOSAL_BOM, PROPOSAL_BOM, NOW),
            "\u{feff}goodbye\r\nsecond\r\n"
        );
        // An empty answer stays empty; a file without the mark does not get one.
        assert_eq!(written_text(Some(original), PROPOSAL_BOM, "", NOW), "");
        assert_eq!(
            written_text(Some("hello\n"), PROPOSAL_BOM, "goodbye\n", NOW),
            "goodbye\n"
        );
        // A proposal without the mark (the model removed it) keeps the answer as it is.
        assert_eq!(
            written_text(Some("\u{feff}hello\n"), "goodbye\n", "goodbye\n", NOW),
            "goodbye\n"
        );
    }

    #[test]
    fn a_new_file_gets_the_answered_text() {
        assert_eq!(written_text(None, "a\n", "a\r\nb", NOW), "a\r\nb");
    }

    /// 2.1.316 (the drift alarm's replaced test): a `\r\n` file with a mark, answered without
    /// the mark, with `\n` and no final newline, was written without the mark and with a
    /// final `\r\n`; a file it creates loses its final newline.
    #[test]
    fn releases_before_2_1_329_put_no_mark_back_and_keep_the_files_final_newline() {
        let original = "\u{feff}hello\r\nsecond\r\n";
        assert_eq!(
            written_text(Some(original), PROPOSAL_BOM, "goodbye\nsecond\nthird", OLD),
            "goodbye\r\nsecond\r\nthird\r\n"
        );
        assert_eq!(
            written_text(Some("hello"), "goodbye\n", "goodbye\n", OLD),
            "goodbye"
        );
        assert_eq!(
            written_text(Some("hello\n"), "goodbye\n", "goodbye\r\n", OLD),
            "goodbye\n"
        );
        // A file that does not exist is read as empty: a file it creates loses its final
        // newline.
        assert_eq!(written_text(Some(""), "a\nb\n", "a\nb\n", OLD), "a\nb");
        assert_eq!(written_text(Some(""), "a\nb\n", "a\nb\n", NOW), "a\nb\n");
        // Not known: the answered text.
        assert_eq!(written_text(None, "a\nb\n", "a\nb\n", OLD), "a\nb\n");
    }

    #[test]
    fn rules_follow_the_client_version() {
        assert_eq!(WriteRules::for_version("2.1.332"), NOW);
        assert_eq!(WriteRules::for_version("2.1.329"), NOW);
        assert_eq!(WriteRules::for_version("2.2.0"), NOW);
        assert_eq!(WriteRules::for_version("2.1.328"), OLD);
        assert_eq!(WriteRules::for_version("2.1.112"), OLD);
        assert_eq!(WriteRules::for_version("1.9.999"), OLD);
        for odd in [
            "",
            "9",
            "2.1",
            "2.1.3.4",
            "2.1.x",
            "v2.1.300",
            "2.1.300-beta",
        ] {
            assert_eq!(WriteRules::for_version(odd), NOW, "{odd:?}");
        }
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
