//! Turning the editor's [`ToolOutcome`] for a [`ToolRequest`] into the exact `tools/call`
//! result the CLI expects (docs/protocol.md §4), and answering for an editor that never replied.
//! Each tool's pairing of request and outcome is its module's ([`super::tools`]); a `failed`
//! outcome answers every request alike.

use std::fmt;

use super::answer::Answer;
use super::catalog::ToolName;
use super::path::PathStyle;
use super::request::{ToolOutcome, ToolRequest};
use super::result::ToolResult;

/// The host reported an outcome that cannot answer the request (a `diffSaved` for an
/// `openFile`, say): a host bug, not a peer fault.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct OutcomeMismatch {
    /// The tool of the request being answered.
    pub tool: ToolName,
    /// The JSON tag of the outcome reported ([`ToolOutcome::name`]).
    pub outcome: &'static str,
}

impl fmt::Display for OutcomeMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "outcome {} does not answer tool {}",
            self.outcome,
            self.tool.as_str()
        )
    }
}

impl std::error::Error for OutcomeMismatch {}

/// The `tools/call` result for `request` answered by `outcome`, the editor's paths
/// normalized with `style` (the [`EditorState`](super::EditorState)'s):
/// - `openFile` + `fileOpened`: text `Opened file: <path>`; with `makeFrontmost: false`
///   JSON `{"success":true,"filePath","languageId","lineCount"}` (`languageId` `plaintext`
///   and `lineCount` `null` when unknown).
/// - `openDiff` + `diffSaved`: `FILE_SAVED` then the final text (two items).
/// - `openDiff` + `diffRejected`: `DIFF_REJECTED` then the tab name (two items).
/// - `saveDocument` + `documentSaved`: JSON `{"success":true,"filePath","saved":true,
///   "message":"Document saved successfully"}`.
/// - `executeCode` + `codeExecuted`: one text item per output (none for no output).
/// - a pulled read ([`super::ReadSources`]) + its outcome (`diagnostics`, `selection` /
///   `noSelection`, `openEditors`, `workspaceFolders`, `documentDirty` / `documentNotOpen`):
///   the answer the engine gives from its state for the same editor state, byte for byte.
/// - any request + `failed`: an error result holding the message.
///
/// # Errors
/// [`OutcomeMismatch`] for any other pairing (a `selection` for a `getDiagnostics`, say).
pub fn format_outcome(
    request: &ToolRequest,
    outcome: &ToolOutcome,
    style: PathStyle,
) -> Result<ToolResult, OutcomeMismatch> {
    Ok(match answer_outcome(request, outcome, style)? {
        Answered::Read(answer) => answer.to_tool_result(),
        Answered::Tool(result) => result,
    })
}

/// The answer [`format_outcome`] formats, a pulled read's left unwritten.
pub(crate) enum Answered<'a> {
    /// A pulled read's answer, borrowed from the request and the outcome.
    Read(Answer<'a>),
    /// Any other answer, and a failure of any request.
    Tool(ToolResult),
}

/// [`format_outcome`], a pulled read's answer borrowed from `request` and `outcome` and left
/// unwritten (the engine writes it straight into the reply).
///
/// # Errors
/// [`OutcomeMismatch`] when `outcome` does not answer `request`.
pub(crate) fn answer_outcome<'a>(
    request: &'a ToolRequest,
    outcome: &'a ToolOutcome,
    style: PathStyle,
) -> Result<Answered<'a>, OutcomeMismatch> {
    if let ToolOutcome::Failed { message } = outcome {
        return Ok(Answered::Tool(ToolResult::error(message.as_str())));
    }
    let tool = request.tool();
    (tool.entry().answer)(request, outcome, style).ok_or(OutcomeMismatch {
        tool,
        outcome: outcome.name(),
    })
}

/// The outcome the engine reports for `request` when the editor has not answered after
/// `waited_ms`: `openDiff` is rejected (never accepted unseen), anything else fails with
/// "the editor did not answer within N ms". (The engine answers a pulled read that missed its
/// deadline with a JSON-RPC error instead, see [`ToolRequest::is_read`].)
pub fn deadline_outcome(request: &ToolRequest, waited_ms: u64) -> ToolOutcome {
    match request {
        ToolRequest::OpenDiff { .. } => ToolOutcome::DiffRejected,
        _ => ToolOutcome::Failed {
            message: format!("the editor did not answer within {waited_ms} ms"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open_file(make_frontmost: bool) -> ToolRequest {
        ToolRequest::OpenFile {
            path: "C:/w/a.rs".into(),
            preview: false,
            start_text: None,
            end_text: None,
            select_to_end_of_line: false,
            make_frontmost,
        }
    }

    fn open_diff() -> ToolRequest {
        ToolRequest::OpenDiff {
            old_file_path: "/w/a.rs".into(),
            new_file_path: "/w/a.rs".into(),
            new_file_contents: "new\n".into(),
            tab_name: "✻ [Claude Code] a.rs (1a2b3c) ⧉".into(),
            dirty: false,
        }
    }

    fn save() -> ToolRequest {
        ToolRequest::SaveDocument {
            path: "/w/a.rs".into(),
        }
    }

    fn execute() -> ToolRequest {
        ToolRequest::ExecuteCode { code: "1".into() }
    }

    fn wire(request: &ToolRequest, outcome: &ToolOutcome) -> String {
        serde_json::to_string(&format_outcome(request, outcome, PathStyle::Posix).unwrap()).unwrap()
    }

    fn opened(language_id: Option<&str>, line_count: Option<u32>) -> ToolOutcome {
        ToolOutcome::FileOpened {
            language_id: language_id.map(String::from),
            line_count,
        }
    }

    #[test]
    fn open_file_answers_text_or_background_json() {
        assert_eq!(
            wire(&open_file(true), &opened(Some("rust"), Some(3))),
            r#"{"content":[{"type":"text","text":"Opened file: C:/w/a.rs"}]}"#
        );
        assert_eq!(
            wire(&open_file(false), &opened(Some("rust"), Some(3))),
            r#"{"content":[{"type":"text","text":"{\"success\":true,\"filePath\":\"C:/w/a.rs\",\"languageId\":\"rust\",\"lineCount\":3}"}]}"#
        );
        assert_eq!(
            wire(&open_file(false), &opened(None, None)),
            r#"{"content":[{"type":"text","text":"{\"success\":true,\"filePath\":\"C:/w/a.rs\",\"languageId\":\"plaintext\",\"lineCount\":null}"}]}"#
        );
    }

    #[test]
    fn accepted_diff_carries_the_final_text() {
        let saved = ToolOutcome::DiffSaved {
            final_text: "new\nplus mine\n".into(),
            original_text: None,
        };
        assert_eq!(
            wire(&open_diff(), &saved),
            r#"{"content":[{"type":"text","text":"FILE_SAVED"},{"type":"text","text":"new\nplus mine\n"}]}"#
        );
    }

    #[test]
    fn rejected_diff_carries_the_tab_name_never_tab_closed() {
        let json = wire(&open_diff(), &ToolOutcome::DiffRejected);
        assert_eq!(
            json,
            r#"{"content":[{"type":"text","text":"DIFF_REJECTED"},{"type":"text","text":"✻ [Claude Code] a.rs (1a2b3c) ⧉"}]}"#
        );
        assert!(!json.contains("TAB_CLOSED"));
    }

    #[test]
    fn saved_document_and_executed_code() {
        assert_eq!(
            wire(&save(), &ToolOutcome::DocumentSaved),
            r#"{"content":[{"type":"text","text":"{\"success\":true,\"filePath\":\"/w/a.rs\",\"saved\":true,\"message\":\"Document saved successfully\"}"}]}"#
        );
        let outputs = ToolOutcome::CodeExecuted {
            outputs: vec!["1".into(), "two".into()],
        };
        assert_eq!(
            wire(&execute(), &outputs),
            r#"{"content":[{"type":"text","text":"1"},{"type":"text","text":"two"}]}"#
        );
        let silent = ToolOutcome::CodeExecuted { outputs: vec![] };
        assert_eq!(wire(&execute(), &silent), r#"{"content":[]}"#);
    }

    #[test]
    fn failure_answers_any_request_with_an_error() {
        let failed = ToolOutcome::Failed {
            message: "no such file".into(),
        };
        for request in [open_file(true), open_diff(), save(), execute()] {
            assert_eq!(
                wire(&request, &failed),
                r#"{"content":[{"type":"text","text":"no such file"}],"isError":true}"#
            );
        }
    }

    #[test]
    fn mismatched_outcomes_are_host_errors() {
        let cases = [
            (open_file(true), ToolOutcome::DiffRejected, "diffRejected"),
            (open_diff(), opened(None, None), "fileOpened"),
            (open_diff(), ToolOutcome::DocumentSaved, "documentSaved"),
            (
                save(),
                ToolOutcome::DiffSaved {
                    final_text: String::new(),
                    original_text: None,
                },
                "diffSaved",
            ),
            (execute(), ToolOutcome::DocumentSaved, "documentSaved"),
            (
                save(),
                ToolOutcome::CodeExecuted { outputs: vec![] },
                "codeExecuted",
            ),
        ];
        for (request, outcome, name) in cases {
            let err = format_outcome(&request, &outcome, PathStyle::Posix).unwrap_err();
            assert_eq!(
                err,
                OutcomeMismatch {
                    tool: request.tool(),
                    outcome: name
                }
            );
        }
        let err = format_outcome(
            &open_file(false),
            &ToolOutcome::DiffRejected,
            PathStyle::Posix,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "outcome diffRejected does not answer tool openFile"
        );
    }

    #[test]
    fn silent_editor_rejects_diffs_and_fails_the_rest() {
        assert_eq!(
            deadline_outcome(&open_diff(), 30_000),
            ToolOutcome::DiffRejected
        );
        for request in [open_file(true), save(), execute()] {
            let outcome = deadline_outcome(&request, 30_000);
            assert_eq!(
                outcome,
                ToolOutcome::Failed {
                    message: "the editor did not answer within 30000 ms".into()
                }
            );
            assert_eq!(
                wire(&request, &outcome),
                r#"{"content":[{"type":"text","text":"the editor did not answer within 30000 ms"}],"isError":true}"#
            );
        }
    }
}
