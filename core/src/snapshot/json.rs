//! The owned JSON form of a snapshot, for the bindings and the transcript vectors:
//!
//! ```json
//! {"documents":[{"path":"/w/a.rs","languageId":"rust","isDirty":false,"isUntitled":false}],
//!  "active":{"path":"/w/a.rs","text":"fn","selection":{"start":{"line":0,"character":0},"end":{"line":0,"character":2}}},
//!  "diagnostics":[{"path":"/w/a.rs","diagnostics":[{"message":"unused","severity":"Warning","range":{"start":{"line":1,"character":4},"end":{"line":1,"character":5}}}]}],
//!  "workspaceFolders":["/w"]}
//! ```
//!
//! Every field may be left out on input (no documents, none active, no diagnostics, no
//! folders); a document's `languageId`, `isDirty` and `isUntitled` as in `documentOpened`.

use serde::{Deserialize, Serialize};

use super::{ActiveView, DiagnosticView, DocumentView, FileDiagnosticsView, Snapshot};
use crate::ide::{self, Range};

/// The editor's whole visible state at once, in its JSON form (owning its strings); each call
/// compares it with the previous one and applies only the difference.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct EditorSnapshot {
    /// The open documents, in tab order.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional, as = "Option<_>"))]
    pub documents: Vec<SnapshotDocument>,
    /// The active document and its selection; absent or `null` when none is active.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub active: Option<SnapshotActive>,
    /// The diagnostics of each file that has some.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional, as = "Option<_>"))]
    pub diagnostics: Vec<ide::FileDiagnostics>,
    /// The workspace folders, absolute paths.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional, as = "Option<_>"))]
    pub workspace_folders: Vec<String>,
}

/// One open document of an [`EditorSnapshot`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SnapshotDocument {
    /// Its path.
    pub path: String,
    /// The editor's language id, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub language_id: Option<String>,
    /// Whether it has unsaved changes.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub is_dirty: bool,
    /// Whether it has never been saved to disk.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub is_untitled: bool,
}

/// The active document of an [`EditorSnapshot`] and its selection.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SnapshotActive {
    /// The document's path.
    pub path: String,
    /// The selected text (empty for a bare caret).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub text: String,
    /// The selection (a caret at 0:0 when left out).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub selection: Range,
}

impl EditorSnapshot {
    /// Calls `f` with the borrowed [`Snapshot`] of this one (building the views allocates:
    /// an editor that calls every frame keeps its own views, as the C binding does).
    pub fn with_view<R>(&self, f: impl FnOnce(&Snapshot<'_>) -> R) -> R {
        let documents: Vec<DocumentView<'_>> = self
            .documents
            .iter()
            .map(|d| DocumentView {
                path: &d.path,
                language_id: d.language_id.as_deref(),
                is_dirty: d.is_dirty,
                is_untitled: d.is_untitled,
            })
            .collect();
        let views: Vec<Vec<DiagnosticView<'_>>> = self
            .diagnostics
            .iter()
            .map(|f| f.diagnostics.iter().map(DiagnosticView::of).collect())
            .collect();
        let diagnostics: Vec<FileDiagnosticsView<'_>> = self
            .diagnostics
            .iter()
            .zip(&views)
            .map(|(file, views)| FileDiagnosticsView {
                path: &file.path,
                diagnostics: views,
            })
            .collect();
        let folders: Vec<&str> = self.workspace_folders.iter().map(String::as_str).collect();
        f(&Snapshot {
            documents: &documents,
            active: self.active.as_ref().map(|a| ActiveView {
                path: &a.path,
                text: &a.text,
                selection: a.selection,
            }),
            diagnostics: &diagnostics,
            workspace_folders: &folders,
        })
    }
}
