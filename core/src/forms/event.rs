//! The `EditorEvent` form, tagged by `type`; a variant's unknown fields are ignored.

use super::FormError;
use super::read::{Obj, Val, Variant};
use super::values::{diagnostic, range};
use crate::ide::EditorEvent;

/// The variants by their `type`, each read from its object.
const VARIANTS: &[Variant<EditorEvent>] = &[
    ("documentOpened", |o| {
        Ok(EditorEvent::DocumentOpened {
            path: path(o)?,
            language_id: o.opt("languageId", |v| v.string())?,
            is_dirty: o.or("isDirty", false, |v| v.boolean())?,
            is_untitled: o.or("isUntitled", false, |v| v.boolean())?,
        })
    }),
    ("documentClosed", |o| {
        Ok(EditorEvent::DocumentClosed { path: path(o)? })
    }),
    ("documentActivated", |o| {
        Ok(EditorEvent::DocumentActivated { path: path(o)? })
    }),
    ("noDocumentActive", |_| Ok(EditorEvent::NoDocumentActive)),
    ("documentDirtyChanged", |o| {
        Ok(EditorEvent::DocumentDirtyChanged {
            path: path(o)?,
            is_dirty: o.req("isDirty", |v| v.boolean())?,
        })
    }),
    ("documentSaved", |o| {
        Ok(EditorEvent::DocumentSaved { path: path(o)? })
    }),
    ("selectionChanged", |o| {
        Ok(EditorEvent::SelectionChanged {
            path: path(o)?,
            text: o.req("text", |v| v.string())?,
            selection: o.req("selection", range)?,
        })
    }),
    ("diagnosticsChanged", |o| {
        Ok(EditorEvent::DiagnosticsChanged {
            path: path(o)?,
            diagnostics: o.req("diagnostics", |v| v.list(diagnostic))?,
        })
    }),
    ("workspaceFoldersChanged", |o| {
        Ok(EditorEvent::WorkspaceFoldersChanged {
            folders: o.req("folders", |v| v.strings())?,
        })
    }),
    ("mention", |o| {
        Ok(EditorEvent::Mention {
            path: path(o)?,
            line_start: o.opt("lineStart", |v| v.u32())?,
            line_end: o.opt("lineEnd", |v| v.u32())?,
        })
    }),
];

fn path(o: &Obj<'_>) -> Result<String, FormError> {
    o.req("path", |v| v.string())
}

/// An `EditorEvent` in its JSON form.
pub(super) fn editor_event(v: Val<'_>) -> Result<EditorEvent, FormError> {
    v.object()?.variant("type", VARIANTS)
}
