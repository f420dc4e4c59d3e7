//! Editor events: what the host tells the engine about the editor, and the value types they
//! carry (positions, ranges, diagnostics).
//!
//! The JSON forms below are what the bindings and the stdio sidecar exchange; every variant
//! is tagged by `"type"` and its fields are camelCase. Lines and characters are 0-based.
//!
//! ```json
//! {"type":"documentOpened","path":"/w/a.rs","languageId":"rust","isDirty":false,"isUntitled":false}
//! {"type":"documentClosed","path":"/w/a.rs"}
//! {"type":"documentActivated","path":"/w/a.rs"}
//! {"type":"noDocumentActive"}
//! {"type":"documentDirtyChanged","path":"/w/a.rs","isDirty":true}
//! {"type":"documentSaved","path":"/w/a.rs"}
//! {"type":"selectionChanged","path":"/w/a.rs","text":"fn","selection":{"start":{"line":0,"character":0},"end":{"line":0,"character":2}}}
//! {"type":"diagnosticsChanged","path":"/w/a.rs","diagnostics":[{"message":"unused","severity":"Warning","range":{"start":{"line":1,"character":4},"end":{"line":1,"character":5}},"source":"rustc","code":"E0001"}]}
//! {"type":"workspaceFoldersChanged","folders":["/w"]}
//! {"type":"mention","path":"/w/a.rs","lineStart":3,"lineEnd":5}
//! {"type":"policyChanged","policy":{"deny":["secrets/"],"mode":"selectionOnly"}}
//! {"type":"sharingPaused","paused":true}
//! {"type":"proposalDiagnosticsChanged","call":3,"diagnostics":[{"message":"unused","severity":"Warning","range":{"start":{"line":1,"character":4},"end":{"line":1,"character":5}}}]}
//! ```
//!
//! On input `languageId`, `isDirty`, `isUntitled`, `lineStart`, `lineEnd`, and a
//! diagnostic's `source` and `code` may be left out (`isDirty`/`isUntitled` default to
//! `false`); on output absent options are left out.

use serde::{Deserialize, Serialize};

use super::DiagnosticCode;
use crate::policy::ContextPolicy;

/// Something that happened in the editor. Paths are the editor's own spelling; the state
/// normalizes them (see [`super::normalize_path`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[non_exhaustive]
pub enum EditorEvent {
    /// A document was opened in a tab, at the end of the tab order, without becoming
    /// active. For a document already open, updates its language (when given) and flags.
    DocumentOpened {
        /// The document's path.
        path: String,
        /// The editor's language id (`rust`, `typescript`, ...), when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        language_id: Option<String>,
        /// Whether it has unsaved changes.
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
        is_dirty: bool,
        /// Whether it has never been saved to disk.
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
        is_untitled: bool,
    },
    /// A document's tab was closed.
    DocumentClosed {
        /// The document's path.
        path: String,
    },
    /// A document became the active editor (opened at the end of the tab order if unknown).
    DocumentActivated {
        /// The document's path.
        path: String,
    },
    /// No document is active any more (the editor says so: its last editor closed, or focus
    /// left every document in an editor whose active document is not sticky). Its documents
    /// stay open. Claude sees "no file", exactly as when the active document closes with no
    /// other one to fall back to.
    NoDocumentActive,
    /// A document gained or lost unsaved changes.
    DocumentDirtyChanged {
        /// The document's path.
        path: String,
        /// Whether it now has unsaved changes.
        is_dirty: bool,
    },
    /// A document was saved: it is no longer dirty.
    DocumentSaved {
        /// The document's path.
        path: String,
    },
    /// The caret or selection moved in `path`, which also becomes the active editor.
    SelectionChanged {
        /// The document's path.
        path: String,
        /// The selected text (empty for a bare caret), kept exactly as given.
        text: String,
        /// The selection; `start == end` for a bare caret.
        selection: Range,
    },
    /// The diagnostics of one file were replaced (an empty list clears them).
    DiagnosticsChanged {
        /// The file's path.
        path: String,
        /// Its complete new list of diagnostics.
        diagnostics: Vec<Diagnostic>,
    },
    /// The diagnostics of the proposal of `openDiff` call `call` (the text in its diff view,
    /// as the editor's language tools see it) were replaced; an empty list clears them. The
    /// client that asked gets them in `getDiagnostics` for every file as
    /// `{"uri":"_claude_fs_right:<path>",…}` (with its file's own `file://` entry beside it),
    /// which the CLI prefers to the file's own diagnostics right after an edit
    /// (docs/protocol.md, "Diagnostics of a proposal"): while the call is pending and, once it
    /// was accepted, until the editor reports the file's own diagnostics again or the client
    /// starts its next prompt (`closeAllDiffTabs`). Ignored for a call that is not a pending
    /// `openDiff` (its diff is gone).
    ProposalDiagnosticsChanged {
        /// The `openDiff` tool call ([`ToolCallId::as_u64`](crate::ToolCallId::as_u64)).
        #[cfg_attr(feature = "ts", ts(type = "number"))]
        call: u64,
        /// The complete new list of diagnostics of its proposal.
        diagnostics: Vec<Diagnostic>,
    },
    /// The workspace folders changed (the lock file's `workspaceFolders` follows them).
    WorkspaceFoldersChanged {
        /// The new folders, absolute paths.
        folders: Vec<String>,
    },
    /// The user asked to add this file or line range to the prompt (→ `at_mentioned`).
    Mention {
        /// The file's path.
        path: String,
        /// First line of the range, 0-based.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        line_start: Option<u32>,
        /// Last line of the range, 0-based.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        line_end: Option<u32>,
    },
    /// The user's context policy changed (a setting, an ignore file edited): it replaces
    /// [`Config::policy`](crate::Config::policy), and the clients hear the current selection
    /// as the new policy lets it out.
    PolicyChanged {
        /// The policy now in force.
        policy: ContextPolicy,
    },
    /// The user paused (or resumed) sharing: [`ContextPolicy::paused`], the rest of the
    /// policy unchanged. Pausing sends "no file" at once; resuming, the current selection.
    SharingPaused {
        /// Paused.
        paused: bool,
    },
}

/// A position in a document: 0-based line and character. JSON `{"line":0,"character":0}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Position {
    /// 0-based line.
    pub line: u32,
    /// 0-based character within the line (VS Code counts UTF-16 code units).
    pub character: u32,
}

/// A range of a document. JSON `{"start":{..},"end":{..}}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Range {
    /// Where it starts.
    pub start: Position,
    /// Where it ends (equal to `start` for an empty range).
    pub end: Position,
}

/// A diagnostic's severity, serialized as its name: `"Error"`, `"Warning"`, `"Info"`,
/// `"Hint"` (the names the CLI reads).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Severity {
    /// An error.
    Error,
    /// A warning.
    Warning,
    /// Information.
    Info,
    /// A hint.
    Hint,
}

/// One diagnostic, serialized in the shape `getDiagnostics` answers with:
/// `{"message","severity","range","source"?,"code"?}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Diagnostic {
    /// The human-readable message.
    pub message: String,
    /// How bad it is.
    pub severity: Severity,
    /// Where it applies.
    pub range: Range,
    /// The tool that produced it (`rustc`, `eslint`, ...); left out when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The diagnostic's code, a string or a number as the source gave it (passed through);
    /// left out when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(type = "string | number"))]
    pub code: Option<DiagnosticCode>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(json: &str) -> EditorEvent {
        let event: EditorEvent = serde_json::from_str(json).unwrap();
        assert_eq!(serde_json::to_string(&event).unwrap(), json);
        event
    }

    fn at(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    #[test]
    fn every_event_round_trips_through_its_documented_json() {
        assert_eq!(
            round_trip(
                r#"{"type":"documentOpened","path":"/w/a.rs","languageId":"rust","isDirty":false,"isUntitled":false}"#
            ),
            EditorEvent::DocumentOpened {
                path: "/w/a.rs".into(),
                language_id: Some("rust".into()),
                is_dirty: false,
                is_untitled: false,
            }
        );
        round_trip(r#"{"type":"documentClosed","path":"/w/a.rs"}"#);
        round_trip(r#"{"type":"documentActivated","path":"/w/a.rs"}"#);
        round_trip(r#"{"type":"documentDirtyChanged","path":"/w/a.rs","isDirty":true}"#);
        assert_eq!(
            round_trip(r#"{"type":"noDocumentActive"}"#),
            EditorEvent::NoDocumentActive
        );
        round_trip(r#"{"type":"documentSaved","path":"/w/a.rs"}"#);
        assert_eq!(
            round_trip(
                r#"{"type":"selectionChanged","path":"/w/a.rs","text":"fn","selection":{"start":{"line":0,"character":0},"end":{"line":0,"character":2}}}"#
            ),
            EditorEvent::SelectionChanged {
                path: "/w/a.rs".into(),
                text: "fn".into(),
                selection: Range {
                    start: at(0, 0),
                    end: at(0, 2)
                },
            }
        );
        assert_eq!(
            round_trip(
                r#"{"type":"diagnosticsChanged","path":"/w/a.rs","diagnostics":[{"message":"unused","severity":"Warning","range":{"start":{"line":1,"character":4},"end":{"line":1,"character":5}},"source":"rustc","code":"E0001"}]}"#
            ),
            EditorEvent::DiagnosticsChanged {
                path: "/w/a.rs".into(),
                diagnostics: vec![Diagnostic {
                    message: "unused".into(),
                    severity: Severity::Warning,
                    range: Range {
                        start: at(1, 4),
                        end: at(1, 5)
                    },
                    source: Some("rustc".into()),
                    code: Some("E0001".into()),
                }],
            }
        );
        round_trip(r#"{"type":"workspaceFoldersChanged","folders":["/w","/v"]}"#);
        round_trip(r#"{"type":"mention","path":"/w/a.rs","lineStart":3,"lineEnd":5}"#);
        assert_eq!(
            round_trip(
                r#"{"type":"proposalDiagnosticsChanged","call":3,"diagnostics":[{"message":"unused","severity":"Warning","range":{"start":{"line":1,"character":4},"end":{"line":1,"character":5}}}]}"#
            ),
            EditorEvent::ProposalDiagnosticsChanged {
                call: 3,
                diagnostics: vec![Diagnostic {
                    message: "unused".into(),
                    severity: Severity::Warning,
                    range: Range {
                        start: at(1, 4),
                        end: at(1, 5)
                    },
                    source: None,
                    code: None,
                }],
            }
        );
    }

    #[test]
    fn optional_fields_default_on_input_and_are_left_out_on_output() {
        let opened: EditorEvent =
            serde_json::from_str(r#"{"type":"documentOpened","path":"/w/a.rs"}"#).unwrap();
        assert_eq!(
            serde_json::to_string(&opened).unwrap(),
            r#"{"type":"documentOpened","path":"/w/a.rs","isDirty":false,"isUntitled":false}"#
        );
        round_trip(r#"{"type":"mention","path":"/w/a.rs"}"#);
        let diag = r#"{"message":"m","severity":"Hint","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"code":42}"#;
        let parsed: Diagnostic = serde_json::from_str(diag).unwrap();
        assert_eq!(parsed.code, Some(42.into()));
        assert_eq!(serde_json::to_string(&parsed).unwrap(), diag);
    }

    #[test]
    fn malformed_events_are_refused() {
        for json in [
            r#"{"type":"documentExploded","path":"/w"}"#,
            r#"{"path":"/w"}"#,
            r#"{"type":"documentClosed"}"#,
            r#"{"type":"documentDirtyChanged","path":"/w"}"#,
            r#"{"type":"selectionChanged","path":"/w","text":"","selection":{"start":{"line":-1,"character":0},"end":{"line":0,"character":0}}}"#,
            r#"{"type":"diagnosticsChanged","path":"/w","diagnostics":[{"message":"m","severity":"Fatal","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}}}]}"#,
        ] {
            assert!(serde_json::from_str::<EditorEvent>(json).is_err(), "{json}");
        }
    }
}
