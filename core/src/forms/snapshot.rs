//! The `EditorSnapshot` form: every field may be left out, `active` may be `null`; unknown
//! fields are ignored.

use super::FormError;
use super::read::{Val, string, strings};
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
        workspace_folders: o.or("workspaceFolders", Vec::new(), strings)?,
    })
}

fn document(v: Val<'_>) -> Result<SnapshotDocument, FormError> {
    let o = v.object()?;
    Ok(SnapshotDocument {
        path: o.string("path")?,
        language_id: o.opt_string("languageId")?,
        is_dirty: o.flag("isDirty")?,
        is_untitled: o.flag("isUntitled")?,
    })
}

fn active(v: Val<'_>) -> Result<SnapshotActive, FormError> {
    let o = v.object()?;
    Ok(SnapshotActive {
        path: o.string("path")?,
        text: o.or("text", String::new(), string)?,
        selection: o.or("selection", Default::default(), range)?,
    })
}
