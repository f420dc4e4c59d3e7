//! Per-frame snapshots: the editor's whole visible state handed in at once, for editors that
//! redraw every frame (a game editor, an immediate-mode UI) rather than raise events.
//!
//! A [`Snapshot`] borrows everything it names: the documents with their language and flags, the
//! active document with its selection and selected text, the diagnostics per file and the
//! workspace folders. [`Engine::handle_snapshot`](crate::Engine::handle_snapshot) compares it
//! with the previous one, in place, and applies the difference as the [`EditorEvent`]s below,
//! in this order, so its effect on the wire is exactly theirs (byte for byte):
//!
//! 1. folders that differ (as a list, in order): `WorkspaceFoldersChanged` with the new list;
//! 2. every previous document whose path is gone, in the previous order: `DocumentClosed`;
//! 3. every document that is new or whose language or flags differ, in the snapshot's order:
//!    `DocumentOpened` with its language and flags (new documents join the tab order at its
//!    end, so the tab order is the order documents first appeared);
//! 4. the active document: when it differs from the previous one (path, selected text or
//!    range) or its document was closed in step 2, `SelectionChanged`; when there is none
//!    now and there was one, `NoDocumentActive`;
//! 5. diagnostics: every previous file whose list is gone or now empty, in the previous order,
//!    `DiagnosticsChanged` with an empty list; then every file whose non-empty list differs,
//!    in the snapshot's order, `DiagnosticsChanged` with the new list.
//!
//! An unchanged snapshot leads to no event, so no push; a moved caret to one `SelectionChanged`,
//! so one (debounced) push; changed folders to one `WorkspaceFoldersChanged`, and
//! [`SnapshotChanges::workspace_folders`] tells the host to rewrite the lock file
//! ([`rewritten_for_snapshot`](crate::host_rules::lock_life::rewritten_for_snapshot) gives
//! the new body).
//!
//! Cost: an unchanged snapshot is compared in place and allocates nothing (the previous one is
//! kept in storage reused from frame to frame); documents and files are matched by position
//! first, so a frame that changes nothing, or changes entries in place, costs one pass over the
//! strings it names. A list whose entries moved is matched by search (quadratic in its length,
//! paid only on that frame).
//!
//! Paths are compared as the editor spells them, and each should be listed once. Feeding
//! events as well works (they change the engine's
//! state), but the next snapshot is compared with the previous snapshot, not with that state.
//!
//! [`EditorSnapshot`] is the owned JSON form the bindings and the transcript vectors use.

mod json;
mod tracker;

pub use json::{EditorSnapshot, SnapshotActive, SnapshotDocument};
pub use tracker::{SnapshotChanges, SnapshotTracker};

use crate::ide::{Diagnostic, DiagnosticCode, EditorEvent, JsonCode, Range, Severity};

/// The editor's visible state at one moment, borrowed from the editor. See the module docs for
/// what a difference from the previous snapshot does.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Snapshot<'a> {
    /// The open documents, in tab order.
    pub documents: &'a [DocumentView<'a>],
    /// The active document and its selection; `None` when no document is active.
    pub active: Option<ActiveView<'a>>,
    /// The diagnostics of each file that has some (a file left out, or with an empty list, has
    /// none).
    pub diagnostics: &'a [FileDiagnosticsView<'a>],
    /// The workspace folders, absolute paths.
    pub workspace_folders: &'a [&'a str],
}

/// One open document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DocumentView<'a> {
    /// Its path.
    pub path: &'a str,
    /// The editor's language id (`cpp`, `rust`, ...), when known.
    pub language_id: Option<&'a str>,
    /// Whether it has unsaved changes.
    pub is_dirty: bool,
    /// Whether it has never been saved to disk.
    pub is_untitled: bool,
}

/// The active document with its selection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ActiveView<'a> {
    /// The document's path.
    pub path: &'a str,
    /// The selected text (empty for a bare caret).
    pub text: &'a str,
    /// The selection; `start == end` for a bare caret.
    pub selection: Range,
}

/// The diagnostics of one file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FileDiagnosticsView<'a> {
    /// The file's path.
    pub path: &'a str,
    /// Its complete list.
    pub diagnostics: &'a [DiagnosticView<'a>],
}

/// One diagnostic, borrowed (the owned form is [`Diagnostic`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DiagnosticView<'a> {
    /// The human-readable message.
    pub message: &'a str,
    /// How bad it is.
    pub severity: Severity,
    /// Where it applies.
    pub range: Range,
    /// The tool that produced it, when known.
    pub source: Option<&'a str>,
    /// The diagnostic's code, when it has one.
    pub code: Option<DiagnosticCodeView<'a>>,
}

/// A diagnostic's code as the source gave it, borrowed (the owned form is
/// [`crate::ide::DiagnosticCode`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiagnosticCodeView<'a> {
    /// A textual code (`E0308`).
    Text(&'a str),
    /// A numeric code (`2322`).
    Number(i64),
    /// Any other JSON value, passed through as its text (only the JSON forms produce it).
    Json(&'a JsonCode),
}

impl<'a> DiagnosticView<'a> {
    /// The view of an owned diagnostic.
    pub fn of(diagnostic: &'a Diagnostic) -> Self {
        DiagnosticView {
            message: &diagnostic.message,
            severity: diagnostic.severity,
            range: diagnostic.range,
            source: diagnostic.source.as_deref(),
            code: diagnostic.code.as_ref().map(DiagnosticCodeView::of),
        }
    }

    /// The owned diagnostic.
    pub fn to_diagnostic(&self) -> Diagnostic {
        Diagnostic {
            message: self.message.to_owned(),
            severity: self.severity,
            range: self.range,
            source: self.source.map(str::to_owned),
            code: self.code.map(DiagnosticCodeView::to_code),
        }
    }

    /// Whether `owned` is this diagnostic (compared in place, without allocating).
    pub fn matches(&self, owned: &Diagnostic) -> bool {
        self.message == owned.message
            && self.severity == owned.severity
            && self.range == owned.range
            && self.source == owned.source.as_deref()
            && match (self.code, &owned.code) {
                (None, None) => true,
                (Some(code), Some(value)) => code.matches(value),
                _ => false,
            }
    }
}

impl<'a> DiagnosticCodeView<'a> {
    /// The view of an owned code.
    pub fn of(code: &'a DiagnosticCode) -> Self {
        match code {
            DiagnosticCode::Text(text) => DiagnosticCodeView::Text(text),
            DiagnosticCode::Number(n) => DiagnosticCodeView::Number(*n),
            DiagnosticCode::Json(raw) => DiagnosticCodeView::Json(raw),
        }
    }

    /// The owned code.
    pub fn to_code(self) -> DiagnosticCode {
        match self {
            DiagnosticCodeView::Text(text) => DiagnosticCode::Text(text.to_owned()),
            DiagnosticCodeView::Number(n) => DiagnosticCode::Number(n),
            DiagnosticCodeView::Json(raw) => DiagnosticCode::Json(raw.clone()),
        }
    }

    fn matches(self, owned: &DiagnosticCode) -> bool {
        self == DiagnosticCodeView::of(owned)
    }
}

/// The event that opens (or updates) `doc`.
fn opened(doc: &DocumentView<'_>) -> EditorEvent {
    EditorEvent::DocumentOpened {
        path: doc.path.to_owned(),
        language_id: doc.language_id.map(str::to_owned),
        is_dirty: doc.is_dirty,
        is_untitled: doc.is_untitled,
    }
}

#[cfg(test)]
mod tests;
