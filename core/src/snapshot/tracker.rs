//! The previous snapshot, kept in reused storage, and the difference to the next one as
//! editor events (the order is the module docs').

use super::{ActiveView, DiagnosticView, DocumentView, FileDiagnosticsView, Snapshot, opened};
use crate::ide::{Diagnostic, EditorEvent, Range};
use serde::{Deserialize, Serialize};

/// What a snapshot changed, by kind. All `false`: nothing changed and no event was applied.
/// JSON form: `{"documents":false,"active":true,"diagnostics":false,"workspaceFolders":false}`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[must_use]
pub struct SnapshotChanges {
    /// Documents were opened, closed or changed language or flags (a tab list only reordered
    /// changes nothing: tabs keep the order documents first appeared in).
    pub documents: bool,
    /// The active document or its selection changed (a `selection_changed` push follows).
    pub active: bool,
    /// Some file's diagnostics changed.
    pub diagnostics: bool,
    /// The workspace folders changed: the host rewrites the lock file.
    pub workspace_folders: bool,
}

impl SnapshotChanges {
    /// Whether anything changed.
    pub fn any(&self) -> bool {
        self.documents || self.active || self.diagnostics || self.workspace_folders
    }
}

/// The previous snapshot, owned, in storage reused from call to call: strings and lists are
/// overwritten in place, so an unchanged snapshot costs no allocation and a changed one only
/// what grew.
#[derive(Clone, Debug, Default)]
pub struct SnapshotTracker {
    documents: Vec<StoredDocument>,
    /// How many of `documents` are in use (the rest is storage kept for reuse).
    document_count: usize,
    active: StoredActive,
    has_active: bool,
    files: Vec<StoredFile>,
    file_count: usize,
    folders: Vec<String>,
}

#[derive(Clone, Debug, Default)]
struct StoredDocument {
    path: String,
    language_id: Option<String>,
    is_dirty: bool,
    is_untitled: bool,
}

#[derive(Clone, Debug, Default)]
struct StoredActive {
    path: String,
    text: String,
    selection: Range,
}

#[derive(Clone, Debug, Default)]
struct StoredFile {
    path: String,
    diagnostics: Vec<Diagnostic>,
}

impl StoredDocument {
    fn matches(&self, doc: &DocumentView<'_>) -> bool {
        self.path == doc.path
            && self.language_id.as_deref() == doc.language_id
            && self.is_dirty == doc.is_dirty
            && self.is_untitled == doc.is_untitled
    }

    fn store(&mut self, doc: &DocumentView<'_>) {
        overwrite(&mut self.path, doc.path);
        match (&mut self.language_id, doc.language_id) {
            (Some(kept), Some(language)) => overwrite(kept, language),
            (kept, language) => *kept = language.map(str::to_owned),
        }
        self.is_dirty = doc.is_dirty;
        self.is_untitled = doc.is_untitled;
    }
}

impl StoredActive {
    fn matches(&self, active: &ActiveView<'_>) -> bool {
        self.path == active.path && self.text == active.text && self.selection == active.selection
    }
}

impl StoredFile {
    fn matches(&self, diagnostics: &[DiagnosticView<'_>]) -> bool {
        self.diagnostics.len() == diagnostics.len()
            && diagnostics
                .iter()
                .zip(&self.diagnostics)
                .all(|(view, owned)| view.matches(owned))
    }
}

impl SnapshotTracker {
    /// A tracker whose previous snapshot is empty but for `workspace_folders` (the folders the
    /// engine started with, so a first snapshot naming them changes nothing).
    pub fn new(workspace_folders: &[String]) -> Self {
        SnapshotTracker {
            folders: workspace_folders.to_vec(),
            ..SnapshotTracker::default()
        }
    }

    /// Compares `next` with the previous snapshot, hands `apply` the events that turn one into
    /// the other (in the order of the module docs), and keeps `next` as the previous one.
    pub fn update(
        &mut self,
        next: &Snapshot<'_>,
        mut apply: impl FnMut(EditorEvent),
    ) -> SnapshotChanges {
        let mut changes = SnapshotChanges::default();
        if !self
            .folders
            .iter()
            .eq(next.workspace_folders.iter().copied())
        {
            let folders: Vec<String> = next.workspace_folders.iter().map(|&f| f.into()).collect();
            apply(EditorEvent::WorkspaceFoldersChanged {
                folders: folders.clone(),
            });
            self.folders = folders;
            changes.workspace_folders = true;
        }
        let mut active_closed = false;
        if !self.documents_match(next.documents) {
            (changes.documents, active_closed) = self.apply_documents(next.documents, &mut apply);
        }
        changes.active = self.apply_active(next.active, active_closed, &mut apply);
        if !self.files_match(next.diagnostics) {
            changes.diagnostics = self.apply_diagnostics(next.diagnostics, &mut apply);
        }
        changes
    }

    fn documents(&self) -> &[StoredDocument] {
        &self.documents[..self.document_count]
    }

    fn files(&self) -> &[StoredFile] {
        &self.files[..self.file_count]
    }

    fn documents_match(&self, next: &[DocumentView<'_>]) -> bool {
        self.document_count == next.len()
            && self.documents().iter().zip(next).all(|(s, d)| s.matches(d))
    }

    fn files_match(&self, next: &[FileDiagnosticsView<'_>]) -> bool {
        self.file_count == next.len()
            && self
                .files()
                .iter()
                .zip(next)
                .all(|(s, f)| s.path == f.path && s.matches(f.diagnostics))
    }

    /// Steps 2 and 3: closes, then opens and updates; stores `next`. Returns whether an event
    /// was applied (a list only reordered applies none) and whether the previous active
    /// document was closed.
    fn apply_documents(
        &mut self,
        next: &[DocumentView<'_>],
        apply: &mut impl FnMut(EditorEvent),
    ) -> (bool, bool) {
        let mut applied = false;
        let mut active_closed = false;
        for (i, old) in self.documents().iter().enumerate() {
            // The same position first, as below.
            let kept = next.get(i).is_some_and(|d| d.path == old.path)
                || next.iter().any(|d| d.path == old.path);
            if !kept {
                active_closed |= self.has_active && self.active.path == old.path;
                applied = true;
                apply(EditorEvent::DocumentClosed {
                    path: old.path.clone(),
                });
            }
        }
        for (i, doc) in next.iter().enumerate() {
            // The same position first: a frame usually changes one document in place.
            let previous = self.documents().get(i).filter(|s| s.path == doc.path);
            let previous =
                previous.or_else(|| self.documents().iter().rfind(|s| s.path == doc.path));
            if !previous.is_some_and(|s| s.matches(doc)) {
                applied = true;
                apply(opened(doc));
            }
        }
        if self.documents.len() < next.len() {
            self.documents
                .resize_with(next.len(), StoredDocument::default);
        }
        for (stored, doc) in self.documents.iter_mut().zip(next) {
            stored.store(doc);
        }
        self.document_count = next.len();
        (applied, active_closed)
    }

    /// Step 4; stores `next`. Returns whether an event was applied.
    fn apply_active(
        &mut self,
        next: Option<ActiveView<'_>>,
        active_closed: bool,
        apply: &mut impl FnMut(EditorEvent),
    ) -> bool {
        match next {
            None if self.has_active => {
                self.has_active = false;
                apply(EditorEvent::NoDocumentActive);
                true
            }
            None => false,
            Some(active) if self.has_active && !active_closed && self.active.matches(&active) => {
                false
            }
            Some(active) => {
                apply(EditorEvent::SelectionChanged {
                    path: active.path.to_owned(),
                    text: active.text.to_owned(),
                    selection: active.selection,
                });
                overwrite(&mut self.active.path, active.path);
                overwrite(&mut self.active.text, active.text);
                self.active.selection = active.selection;
                self.has_active = true;
                true
            }
        }
    }

    /// Step 5; stores `next`. Returns whether an event was applied.
    fn apply_diagnostics(
        &mut self,
        next: &[FileDiagnosticsView<'_>],
        apply: &mut impl FnMut(EditorEvent),
    ) -> bool {
        let mut changed = false;
        for (i, old) in self.files().iter().enumerate() {
            let now = next.get(i).filter(|f| f.path == old.path);
            let gone = now
                .or_else(|| next.iter().rfind(|f| f.path == old.path))
                .is_none_or(|f| f.diagnostics.is_empty());
            if gone && !old.diagnostics.is_empty() {
                changed = true;
                apply(EditorEvent::DiagnosticsChanged {
                    path: old.path.clone(),
                    diagnostics: Vec::new(),
                });
            }
        }
        for (i, file) in next.iter().enumerate() {
            if file.diagnostics.is_empty() {
                continue;
            }
            let previous = self.files().get(i).filter(|s| s.path == file.path);
            let previous = previous.or_else(|| self.files().iter().rfind(|s| s.path == file.path));
            if !previous.is_some_and(|s| s.matches(file.diagnostics)) {
                changed = true;
                apply(EditorEvent::DiagnosticsChanged {
                    path: file.path.to_owned(),
                    diagnostics: to_owned(file.diagnostics),
                });
            }
        }
        if self.files.len() < next.len() {
            self.files.resize_with(next.len(), StoredFile::default);
        }
        for (stored, file) in self.files.iter_mut().zip(next) {
            overwrite(&mut stored.path, file.path);
            if !stored.matches(file.diagnostics) {
                stored.diagnostics = to_owned(file.diagnostics);
            }
        }
        self.file_count = next.len();
        changed
    }
}

fn to_owned(diagnostics: &[DiagnosticView<'_>]) -> Vec<Diagnostic> {
    diagnostics
        .iter()
        .map(DiagnosticView::to_diagnostic)
        .collect()
}

/// `target = text`, reusing `target`'s allocation.
fn overwrite(target: &mut String, text: &str) {
    if target != text {
        target.clear();
        target.push_str(text);
    }
}
