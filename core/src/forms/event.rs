//! The `EditorEvent` form, tagged by `type`; a variant's unknown fields are ignored.

use super::FormError;
use super::config::context_policy;
use super::read::{Obj, Val, Variant, u32, u64};
use super::values::{diagnostic, range};
use crate::engine::{ConnId, SessionChoice};
use crate::ide::EditorEvent;

/// The variants by their `type`, each read from its object.
const VARIANTS: &[Variant<EditorEvent>] = &[
    ("documentOpened", |o| {
        Ok(EditorEvent::DocumentOpened {
            path: path(o)?,
            language_id: o.opt_string("languageId")?,
            is_dirty: o.flag("isDirty")?,
            is_untitled: o.flag("isUntitled")?,
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
            is_dirty: o.bool("isDirty")?,
        })
    }),
    ("documentSaved", |o| {
        Ok(EditorEvent::DocumentSaved { path: path(o)? })
    }),
    ("selectionChanged", |o| {
        Ok(EditorEvent::SelectionChanged {
            path: path(o)?,
            text: o.string("text")?,
            selection: o.req("selection", range)?,
        })
    }),
    ("diagnosticsChanged", |o| {
        Ok(EditorEvent::DiagnosticsChanged {
            path: path(o)?,
            diagnostics: o.req("diagnostics", |v| v.list(diagnostic))?,
        })
    }),
    ("proposalDiagnosticsChanged", |o| {
        Ok(EditorEvent::ProposalDiagnosticsChanged {
            call: o.req("call", u64)?,
            diagnostics: o.req("diagnostics", |v| v.list(diagnostic))?,
        })
    }),
    ("workspaceFoldersChanged", |o| {
        Ok(EditorEvent::WorkspaceFoldersChanged {
            folders: o.strings("folders")?,
        })
    }),
    ("mention", |o| {
        Ok(EditorEvent::Mention {
            path: path(o)?,
            line_start: o.opt_u32("lineStart")?,
            line_end: o.opt_u32("lineEnd")?,
        })
    }),
    ("policyChanged", |o| {
        Ok(EditorEvent::PolicyChanged {
            policy: o.req("policy", context_policy)?,
        })
    }),
    ("sharingPaused", |o| {
        Ok(EditorEvent::SharingPaused {
            paused: o.bool("paused")?,
        })
    }),
];

fn path(o: &Obj<'_>) -> Result<String, FormError> {
    o.string("path")
}

/// An `EditorEvent` in its JSON form.
pub(super) fn editor_event(v: Val<'_>) -> Result<EditorEvent, FormError> {
    v.object()?.variant("type", VARIANTS)
}

/// The variants of a `SessionChoice` by their `by`.
const CHOICES: &[Variant<SessionChoice>] = &[
    ("conn", |o| {
        Ok(SessionChoice::Conn {
            conn: ConnId::from_u64(o.req("conn", u64)?),
        })
    }),
    ("pid", |o| {
        Ok(SessionChoice::Pid {
            pid: o.req("pid", u32)?,
        })
    }),
];

/// A `SessionChoice` in its JSON form (`{"by": "conn", "conn": 1}`, `{"by": "pid", "pid":
/// 4242}`); unknown fields are ignored.
pub(super) fn session_choice(v: Val<'_>) -> Result<SessionChoice, FormError> {
    v.object()?.variant("by", CHOICES)
}
