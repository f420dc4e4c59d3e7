//! The `ToolOutcome` form, tagged by `outcome`; a variant's unknown fields are ignored.

use super::FormError;
use super::read::{Val, Variant};
use super::values::{file_diagnostics, open_tab, range};
use crate::ide::ToolOutcome;

/// The variants by their `outcome`, each read from its object.
const VARIANTS: &[Variant<ToolOutcome>] = &[
    ("fileOpened", |o| {
        Ok(ToolOutcome::FileOpened {
            language_id: o.opt_string("languageId")?,
            line_count: o.opt_u32("lineCount")?,
        })
    }),
    ("diffSaved", |o| {
        Ok(ToolOutcome::DiffSaved {
            final_text: o.string("finalText")?,
            original_text: o.opt_string("originalText")?,
        })
    }),
    ("diffRejected", |_| Ok(ToolOutcome::DiffRejected)),
    ("diffRefused", |o| {
        Ok(ToolOutcome::DiffRefused {
            reason: o.string("reason")?,
        })
    }),
    ("documentSaved", |_| Ok(ToolOutcome::DocumentSaved)),
    ("codeExecuted", |o| {
        Ok(ToolOutcome::CodeExecuted {
            outputs: o.strings("outputs")?,
        })
    }),
    ("failed", |o| {
        Ok(ToolOutcome::Failed {
            message: o.string("message")?,
        })
    }),
    ("diagnostics", |o| {
        Ok(ToolOutcome::Diagnostics {
            files: o.req("files", |v| v.list(file_diagnostics))?,
        })
    }),
    ("selection", |o| {
        Ok(ToolOutcome::Selection {
            path: o.string("path")?,
            text: o.string("text")?,
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
            folders: o.strings("folders")?,
        })
    }),
    ("documentDirty", |o| {
        Ok(ToolOutcome::DocumentDirty {
            is_dirty: o.bool("isDirty")?,
            is_untitled: o.flag("isUntitled")?,
        })
    }),
    ("documentNotOpen", |_| Ok(ToolOutcome::DocumentNotOpen)),
];

/// A `ToolOutcome` in its JSON form.
pub(super) fn tool_outcome(v: Val<'_>) -> Result<ToolOutcome, FormError> {
    v.object()?.variant("outcome", VARIANTS)
}
