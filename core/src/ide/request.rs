//! The typed requests the editor must carry out and the outcomes it reports back
//! (docs/protocol.md §4), in their JSON forms.
//!
//! Requests, tagged by `"tool"`, camelCase fields, absent options left out:
//!
//! ```json
//! {"tool":"openFile","path":"/w/a.rs","preview":false,"startText":"fn main","endText":"}","selectToEndOfLine":false,"makeFrontmost":true}
//! {"tool":"openDiff","oldFilePath":"/w/a.rs","newFilePath":"/w/a.rs","newFileContents":"fn main() {}\n","tabName":"✻ [Claude Code] a.rs (1a2b3c) ⧉"}
//! {"tool":"saveDocument","path":"/w/a.rs"}
//! {"tool":"executeCode","code":"print(1)"}
//! ```
//!
//! On input `preview`, `selectToEndOfLine` (both default `false`) and `makeFrontmost`
//! (default `true`) may be left out. Outcomes, tagged by `"outcome"`:
//!
//! ```json
//! {"outcome":"fileOpened","languageId":"rust","lineCount":12}
//! {"outcome":"diffSaved","finalText":"fn main() {}\n"}
//! {"outcome":"diffRejected"}
//! {"outcome":"documentSaved"}
//! {"outcome":"codeExecuted","outputs":["1"]}
//! {"outcome":"failed","message":"permission denied"}
//! ```

use serde::{Deserialize, Serialize};

use super::catalog::ToolName;

/// A call the editor must carry out, then report a [`ToolOutcome`] for. Paths are
/// normalized with the state's [`super::PathStyle`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "tool",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[non_exhaustive]
pub enum ToolRequest {
    /// `openFile`: open `path`, select from `start_text` to `end_text` when given. Answer
    /// with [`ToolOutcome::FileOpened`].
    OpenFile {
        /// The file to open.
        path: String,
        /// Open it as a preview tab.
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
        preview: bool,
        /// Select from the first occurrence of this text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        start_text: Option<String>,
        /// Extend the selection to the end of this text's first occurrence after
        /// `start_text`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        end_text: Option<String>,
        /// Extend the selection to the end of the line where it ends.
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
        select_to_end_of_line: bool,
        /// Make the file the active editor; when false, open it in the background.
        #[serde(default = "default_true")]
        #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
        make_frontmost: bool,
    },
    /// `openDiff`: show `new_file_contents` against `old_file_path` in a tab named
    /// `tab_name` and wait for the user. Answer with [`ToolOutcome::DiffSaved`] or
    /// [`ToolOutcome::DiffRejected`] (also when the user closes the tab). Never write the
    /// file: the CLI writes it after the answer.
    OpenDiff {
        /// The file as it is (it may not exist yet).
        old_file_path: String,
        /// The file the new contents are for (the same path in practice).
        new_file_path: String,
        /// The proposed contents (may be empty).
        new_file_contents: String,
        /// The diff tab's name, unique per proposal.
        tab_name: String,
    },
    /// `saveDocument`: save the open document `path`. Answer with
    /// [`ToolOutcome::DocumentSaved`].
    SaveDocument {
        /// The document to save.
        path: String,
    },
    /// `executeCode`: ask the user to confirm, then run `code` in the editor's kernel.
    /// Answer with [`ToolOutcome::CodeExecuted`].
    ExecuteCode {
        /// The code to run.
        code: String,
    },
}

fn default_true() -> bool {
    true
}

impl ToolRequest {
    /// The tool this request carries out.
    pub fn tool(&self) -> ToolName {
        match self {
            ToolRequest::OpenFile { .. } => ToolName::OpenFile,
            ToolRequest::OpenDiff { .. } => ToolName::OpenDiff,
            ToolRequest::SaveDocument { .. } => ToolName::SaveDocument,
            ToolRequest::ExecuteCode { .. } => ToolName::ExecuteCode,
        }
    }

    /// A copy with everything answering the request needs ([`super::format_outcome`],
    /// [`super::deadline_outcome`], the diff's tab name) but without an `openDiff`'s proposed
    /// contents, which can be megabytes the editor already has: what the engine keeps while
    /// the editor works on the request.
    pub(crate) fn for_answering(&self) -> ToolRequest {
        match self {
            ToolRequest::OpenDiff {
                old_file_path,
                new_file_path,
                tab_name,
                ..
            } => ToolRequest::OpenDiff {
                old_file_path: old_file_path.clone(),
                new_file_path: new_file_path.clone(),
                new_file_contents: String::new(),
                tab_name: tab_name.clone(),
            },
            other => other.clone(),
        }
    }
}

/// What the editor reports after carrying out a [`ToolRequest`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "outcome",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[non_exhaustive]
pub enum ToolOutcome {
    /// The file is open (answers `openFile`).
    FileOpened {
        /// Its language id, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        language_id: Option<String>,
        /// Its number of lines, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        line_count: Option<u32>,
    },
    /// The user accepted the diff, possibly after editing it (answers `openDiff` with
    /// `FILE_SAVED` and `final_text`).
    DiffSaved {
        /// The complete accepted text.
        final_text: String,
    },
    /// The user rejected the diff or closed its tab (answers `openDiff` with
    /// `DIFF_REJECTED` and the tab name; never `TAB_CLOSED`, which the CLI reads as accept).
    DiffRejected,
    /// The document was saved (answers `saveDocument`).
    DocumentSaved,
    /// The code ran (answers `executeCode`); one text item per output.
    CodeExecuted {
        /// The outputs, in order.
        outputs: Vec<String>,
    },
    /// The editor could not carry out the request (answers any request with an error).
    Failed {
        /// Why, for the user.
        message: String,
    },
}

impl ToolOutcome {
    /// The outcome's JSON tag (`fileOpened`, `diffSaved`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            ToolOutcome::FileOpened { .. } => "fileOpened",
            ToolOutcome::DiffSaved { .. } => "diffSaved",
            ToolOutcome::DiffRejected => "diffRejected",
            ToolOutcome::DocumentSaved => "documentSaved",
            ToolOutcome::CodeExecuted { .. } => "codeExecuted",
            ToolOutcome::Failed { .. } => "failed",
        }
    }
}
