//! The `ToolOutcome` form, tagged by `outcome`; a variant's unknown fields are ignored.

use super::FormError;
use super::read::{Val, Variant};
use super::values::{file_diagnostics, open_tab, range};
use crate::ide::ToolOutcome;

/// The variants by their `outcome`, each read from its object.
const VARIANTS: &[Variant<ToolOutcome>] = &[
    ("fileOpened", |o| {
        Ok(ToolOutcome::FileOpened {
            language_id: o.opt("languageId", |v| v.string())?,
            line_count: o.opt("lineCount", |v| v.u32())?,
        })
    }),
    ("diffSaved", |o| {
        Ok(ToolOutcome::DiffSaved {
            final_text: o.req("finalText", |v| v.string())?,
        })
    }),
    ("diffRejected", |_| Ok(ToolOutcome::DiffRejected)),
    ("documentSaved", |_| Ok(ToolOutcome::DocumentSaved)),
    ("codeExecuted", |o| {
        Ok(ToolOutcome::CodeExecuted {
            outputs: o.req("outputs", |v| v.strings())?,
        })
    }),
    ("failed", |o| {
        Ok(ToolOutcome::Failed {
            message: o.req("message", |v| v.string())?,
        })
    }),
    ("diagnostics", |o| {
        Ok(ToolOutcome::Diagnostics {
            files: o.req("files", |v| v.list(file_diagnostics))?,
        })
    }),
    ("selection", |o| {
        Ok(ToolOutcome::Selection {
            path: o.req("path", |v| v.string())?,
            text: o.req("text", |v| v.string())?,
            selection: o.req("selection", range)?,
        })
    }),
    ("noSelection", |_| Ok(ToolOutcome::NoSelection)),
    ("openEditors", |o| {
        Ok(ToolOutcome::OpenEditors {
            tabs: o.req("tabs", |v| v.list(open_tab))?,
        })
    }),
    ("workspaceFolders", |o| {
        Ok(ToolOutcome::WorkspaceFolders {
            folders: o.req("folders", |v| v.strings())?,
        })
    }),
    ("documentDirty", |o| {
        Ok(ToolOutcome::DocumentDirty {
            is_dirty: o.req("isDirty", |v| v.boolean())?,
            is_untitled: o.or("isUntitled", false, |v| v.boolean())?,
        })
    }),
    ("documentNotOpen", |_| Ok(ToolOutcome::DocumentNotOpen)),
];

/// A `ToolOutcome` in its JSON form.
pub(super) fn tool_outcome(v: Val<'_>) -> Result<ToolOutcome, FormError> {
    v.object()?.variant("outcome", VARIANTS)
}
