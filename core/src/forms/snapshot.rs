//! The `EditorSnapshot` form: every field may be left out, `active` may be `null`; unknown
//! fields are ignored.

use super::FormError;
use super::read::Val;
use super::values::{file_diagnostics, range};
use crate::EditorSnapshot;
use crate::snapshot::{SnapshotActive, SnapshotDocument};

/// An `EditorSnapshot` in its JSON form.
pub(super) fn editor_snapshot(v: Val<'_>) -> Result<EditorSnapshot, FormError> {
    let o = v.object()?;
    Ok(EditorSnapshot {
        documents: o.or("documents", Vec::new(), |v| v.list(document))?,
        active: o.opt("active", active)?,
        diagnostics: o.or("diagnostics", Vec::new(), |v| v.list(file_diagnostics))?,
        workspace_folders: o.or("workspaceFolders", Vec::new(), |v| v.strings())?,
    })
}

fn document(v: Val<'_>) -> Result<SnapshotDocument, FormError> {
    let o = v.object()?;
    Ok(SnapshotDocument {
        path: o.req("path", |v| v.string())?,
        language_id: o.opt("languageId", |v| v.string())?,
        is_dirty: o.or("isDirty", false, |v| v.boolean())?,
        is_untitled: o.or("isUntitled", false, |v| v.boolean())?,
    })
}

fn active(v: Val<'_>) -> Result<SnapshotActive, FormError> {
    let o = v.object()?;
    Ok(SnapshotActive {
        path: o.req("path", |v| v.string())?,
        text: o.or("text", String::new(), |v| v.string())?,
        selection: o.or("selection", Default::default(), range)?,
    })
}
