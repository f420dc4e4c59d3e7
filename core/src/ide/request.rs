//! The typed requests the editor must carry out and the outcomes it reports back
//! (docs/protocol.md §4), in their JSON forms.
//!
//! Requests, tagged by `"tool"`, camelCase fields, absent options left out:
//!
//! ```json
//! {"tool":"openFile","path":"/w/a.rs","preview":false,"startText":"fn main","endText":"}","selectToEndOfLine":false,"makeFrontmost":true}
//! {"tool":"openDiff","oldFilePath":"/w/a.rs","newFilePath":"/w/a.rs","newFileContents":"fn main() {}\n","tabName":"✻ [Claude Code] a.rs (1a2b3c) ⧉"}
//! {"tool":"openDiff","oldFilePath":"/w/a.rs","newFilePath":"/w/a.rs","newFileContents":"fn main() {}\n","tabName":"✻ [Claude Code] a.rs (1a2b3c) ⧉","dirty":true}
//! {"tool":"saveDocument","path":"/w/a.rs"}
//! {"tool":"executeCode","code":"print(1)"}
//! ```
//!
//! A read tool the [`Config`](crate::Config) pulls from the editor
//! ([`ReadSources`](super::ReadSources)) becomes a request too, its arguments parsed:
//!
//! ```json
//! {"tool":"getDiagnostics","path":"/w/a.rs"}
//! {"tool":"getDiagnostics"}
//! {"tool":"getCurrentSelection"}
//! {"tool":"getLatestSelection"}
//! {"tool":"getOpenEditors"}
//! {"tool":"getWorkspaceFolders"}
//! {"tool":"checkDocumentDirty","path":"/w/a.rs"}
//! ```
//!
//! On input `preview`, `selectToEndOfLine` (both default `false`), `makeFrontmost`
//! (default `true`) and `dirty` (default `false`; left out on output when false) may be left
//! out; so may a `diffSaved`'s `originalText`. Outcomes, tagged by `"outcome"`:
//!
//! ```json
//! {"outcome":"fileOpened","languageId":"rust","lineCount":12}
//! {"outcome":"diffSaved","finalText":"fn main() {}\n"}
//! {"outcome":"diffSaved","finalText":"fn main() {}\n","originalText":"fn main() {\n}\n"}
//! {"outcome":"diffRejected"}
//! {"outcome":"diffRefused","reason":"a.rs has unsaved changes: save or revert them first"}
//! {"outcome":"documentSaved"}
//! {"outcome":"codeExecuted","outputs":["1"]}
//! {"outcome":"failed","message":"permission denied"}
//! ```
//!
//! and for the pulled reads (paths in the editor's own spelling; the engine normalizes them):
//!
//! ```json
//! {"outcome":"diagnostics","files":[{"path":"/w/a.rs","diagnostics":[{"message":"unused","severity":"Warning","range":{"start":{"line":1,"character":4},"end":{"line":1,"character":5}}}]}]}
//! {"outcome":"selection","path":"/w/a.rs","text":"fn","selection":{"start":{"line":0,"character":0},"end":{"line":0,"character":2}}}
//! {"outcome":"noSelection"}
//! {"outcome":"openEditors","tabs":[{"path":"/w/a.rs","languageId":"rust","isDirty":true,"isActive":true}]}
//! {"outcome":"workspaceFolders","folders":["/w"]}
//! {"outcome":"documentDirty","isDirty":true,"isUntitled":false}
//! {"outcome":"documentNotOpen"}
//! ```
//!
//! On input a tab's `languageId`, `isDirty`, `isUntitled` and `isActive` may be left out
//! (the flags default to `false`).

use serde::{Deserialize, Serialize};

use super::catalog::ToolName;
use super::event::{Diagnostic, Range};

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
    /// `tab_name` and wait for the user. Answer with [`ToolOutcome::DiffSaved`],
    /// [`ToolOutcome::DiffRejected`] (also when the user closes the tab) or
    /// [`ToolOutcome::DiffRefused`]. Never write the file: the CLI writes it after the answer
    /// (then the engine emits [`Event::FileReplaced`](crate::Event::FileReplaced)).
    ///
    /// The CLI computed `new_file_contents` from the file **on disk** (docs/protocol.md,
    /// "Unsaved buffers"); when the editor's document has unsaved changes, `dirty` says so
    /// and the editor chooses: diff against its buffer (the accepted text replaces the whole
    /// file) or refuse ([`ToolOutcome::DiffRefused`]).
    OpenDiff {
        /// The file as it is (it may not exist yet).
        old_file_path: String,
        /// The file the new contents are for (the same path in practice).
        new_file_path: String,
        /// The proposed contents (may be empty).
        new_file_contents: String,
        /// The diff tab's name, unique per proposal.
        tab_name: String,
        /// `old_file_path` is open in the editor with unsaved changes (the editor's own
        /// [`EditorEvent`](super::EditorEvent)s said so when the call came): its buffer is
        /// not the text the proposal was made from.
        #[serde(default, skip_serializing_if = "is_false")]
        #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
        dirty: bool,
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
    /// `getDiagnostics`, pulled: the diagnostics of `path`, or of every file that has some
    /// when `path` is absent. Answer with [`ToolOutcome::Diagnostics`]. `path` is the
    /// `uri` argument's path as the CLI writes it (`file://` + the raw path: not
    /// percent-decoded), normalized.
    GetDiagnostics {
        /// The one file asked about; absent for every file.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        path: Option<String>,
    },
    /// `getCurrentSelection`, pulled: the active editor's selection. Answer with
    /// [`ToolOutcome::Selection`] (an empty selection at the caret when nothing is selected)
    /// or [`ToolOutcome::NoSelection`] when no editor is active.
    GetCurrentSelection,
    /// `getLatestSelection`, pulled: the last selection the user made, even in an editor
    /// closed since. Answer with [`ToolOutcome::Selection`] or [`ToolOutcome::NoSelection`].
    GetLatestSelection,
    /// `getOpenEditors`, pulled: the open tabs in tab order. Answer with
    /// [`ToolOutcome::OpenEditors`].
    GetOpenEditors,
    /// `getWorkspaceFolders`, pulled. Answer with [`ToolOutcome::WorkspaceFolders`].
    GetWorkspaceFolders,
    /// `checkDocumentDirty`, pulled: whether the open document `path` has unsaved changes.
    /// Answer with [`ToolOutcome::DocumentDirty`] or [`ToolOutcome::DocumentNotOpen`].
    CheckDocumentDirty {
        /// The document asked about.
        path: String,
    },
}

fn default_true() -> bool {
    true
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
fn is_false(flag: &bool) -> bool {
    !*flag
}

impl ToolRequest {
    /// The tool this request carries out.
    pub fn tool(&self) -> ToolName {
        match self {
            ToolRequest::OpenFile { .. } => ToolName::OpenFile,
            ToolRequest::OpenDiff { .. } => ToolName::OpenDiff,
            ToolRequest::SaveDocument { .. } => ToolName::SaveDocument,
            ToolRequest::ExecuteCode { .. } => ToolName::ExecuteCode,
            ToolRequest::GetDiagnostics { .. } => ToolName::GetDiagnostics,
            ToolRequest::GetCurrentSelection => ToolName::GetCurrentSelection,
            ToolRequest::GetLatestSelection => ToolName::GetLatestSelection,
            ToolRequest::GetOpenEditors => ToolName::GetOpenEditors,
            ToolRequest::GetWorkspaceFolders => ToolName::GetWorkspaceFolders,
            ToolRequest::CheckDocumentDirty { .. } => ToolName::CheckDocumentDirty,
        }
    }

    /// Whether this is a read tool pulled from the editor (`getDiagnostics`, ...), rather
    /// than a write the editor carries out.
    pub fn is_read(&self) -> bool {
        self.tool().is_read()
    }

    /// Bytes of text the request carries (paths, proposed contents, selection bounds, code):
    /// what the editor holds while it works on it, counted against
    /// [`Config::max_pending_proposal_bytes`](crate::Config::max_pending_proposal_bytes).
    pub fn text_bytes(&self) -> usize {
        match self {
            ToolRequest::OpenFile {
                path,
                start_text,
                end_text,
                ..
            } => {
                path.len()
                    + start_text.as_ref().map_or(0, String::len)
                    + end_text.as_ref().map_or(0, String::len)
            }
            ToolRequest::OpenDiff {
                old_file_path,
                new_file_path,
                new_file_contents,
                tab_name,
                ..
            } => {
                old_file_path.len() + new_file_path.len() + new_file_contents.len() + tab_name.len()
            }
            ToolRequest::SaveDocument { path } | ToolRequest::CheckDocumentDirty { path } => {
                path.len()
            }
            ToolRequest::ExecuteCode { code } => code.len(),
            ToolRequest::GetDiagnostics { path } => path.as_ref().map_or(0, String::len),
            ToolRequest::GetCurrentSelection
            | ToolRequest::GetLatestSelection
            | ToolRequest::GetOpenEditors
            | ToolRequest::GetWorkspaceFolders => 0,
        }
    }

    /// A copy with everything answering the request needs ([`super::format_outcome`],
    /// [`super::deadline_outcome`], the diff's tab name, whether the proposal starts with a
    /// byte-order mark: [`super::written_text`]) but without the rest of an `openDiff`'s
    /// proposed contents, which can be megabytes the editor already has: what the engine keeps
    /// while the editor works on the request.
    pub(crate) fn for_answering(&self) -> ToolRequest {
        match self {
            ToolRequest::OpenDiff {
                old_file_path,
                new_file_path,
                new_file_contents,
                tab_name,
                dirty,
            } => ToolRequest::OpenDiff {
                old_file_path: old_file_path.clone(),
                new_file_path: new_file_path.clone(),
                new_file_contents: new_file_contents
                    .chars()
                    .next()
                    .filter(|&c| c == '\u{feff}')
                    .map(String::from)
                    .unwrap_or_default(),
                tab_name: tab_name.clone(),
                dirty: *dirty,
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
    /// `FILE_SAVED` and `final_text`, and the engine emits
    /// [`Event::FileReplaced`](crate::Event::FileReplaced)). When `original_text` is given
    /// and `final_text` is that text (as the CLI compares them, [`super::is_no_change`]), the
    /// accept changes nothing, which the CLI would read as a denial: the engine answers it
    /// as a refusal instead, so the user decides in the terminal.
    DiffSaved {
        /// The complete accepted text.
        final_text: String,
        /// The file's text on disk when the diff was shown (the diff's left side; empty for a
        /// file that does not exist, as the CLI reads it), if the editor read it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        original_text: Option<String>,
    },
    /// The user rejected the diff or closed its tab (answers `openDiff` with
    /// `DIFF_REJECTED` and the tab name; never `TAB_CLOSED`, which the CLI reads as accept).
    DiffRejected,
    /// The editor will not show this diff (a document with unsaved changes it does not want
    /// to diff against, say). Answers `openDiff` with an error result holding `reason`: the
    /// CLI logs `IDE diff view failed: <reason>` and leaves the decision to its own terminal
    /// prompt (the model does not see the reason; show it to the user in the editor).
    DiffRefused {
        /// Why, for the user (and the CLI's debug log).
        reason: String,
    },
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
    /// Diagnostics per file (answers a pulled `getDiagnostics`). For one file, the entry
    /// for that path counts (none: it has no diagnostics); for every file, the files with
    /// at least one diagnostic count, a path given twice with its last entry.
    Diagnostics {
        /// The files and their diagnostics, in any order.
        files: Vec<FileDiagnostics>,
    },
    /// The selection asked for (answers a pulled `getCurrentSelection` or
    /// `getLatestSelection`); an empty `text` for a bare caret.
    Selection {
        /// The document's path.
        path: String,
        /// The selected text, exactly as in the document.
        text: String,
        /// Where the selection is.
        selection: Range,
    },
    /// No editor is active (`getCurrentSelection`) or no selection was ever made
    /// (`getLatestSelection`).
    NoSelection,
    /// The open tabs in tab order (answers a pulled `getOpenEditors`).
    OpenEditors {
        /// One entry per tab.
        tabs: Vec<OpenTab>,
    },
    /// The workspace folders, absolute paths in the editor's order (answers a pulled
    /// `getWorkspaceFolders`).
    WorkspaceFolders {
        /// The folders.
        folders: Vec<String>,
    },
    /// The document is open (answers a pulled `checkDocumentDirty`).
    DocumentDirty {
        /// Whether it has unsaved changes.
        is_dirty: bool,
        /// Whether it has never been saved to disk.
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
        is_untitled: bool,
    },
    /// The document is not open (answers a pulled `checkDocumentDirty`).
    DocumentNotOpen,
}

/// One file's diagnostics: in a [`ToolOutcome::Diagnostics`] and in an
/// [`EditorSnapshot`](crate::EditorSnapshot).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FileDiagnostics {
    /// The file's path.
    pub path: String,
    /// Its diagnostics, in the editor's order.
    pub diagnostics: Vec<Diagnostic>,
}

/// One tab in a [`ToolOutcome::OpenEditors`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct OpenTab {
    /// The document's path.
    pub path: String,
    /// The editor's language id, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language_id: Option<String>,
    /// Whether it has unsaved changes.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub is_dirty: bool,
    /// Whether it has never been saved to disk.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub is_untitled: bool,
    /// Whether it is the active editor (at most one tab is).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub is_active: bool,
}

impl ToolOutcome {
    /// The outcome's JSON tag (`fileOpened`, `diffSaved`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            ToolOutcome::FileOpened { .. } => "fileOpened",
            ToolOutcome::DiffSaved { .. } => "diffSaved",
            ToolOutcome::DiffRejected => "diffRejected",
            ToolOutcome::DiffRefused { .. } => "diffRefused",
            ToolOutcome::DocumentSaved => "documentSaved",
            ToolOutcome::CodeExecuted { .. } => "codeExecuted",
            ToolOutcome::Failed { .. } => "failed",
            ToolOutcome::Diagnostics { .. } => "diagnostics",
            ToolOutcome::Selection { .. } => "selection",
            ToolOutcome::NoSelection => "noSelection",
            ToolOutcome::OpenEditors { .. } => "openEditors",
            ToolOutcome::WorkspaceFolders { .. } => "workspaceFolders",
            ToolOutcome::DocumentDirty { .. } => "documentDirty",
            ToolOutcome::DocumentNotOpen => "documentNotOpen",
        }
    }
}
