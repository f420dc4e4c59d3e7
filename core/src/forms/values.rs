//! The value types the input forms share: positions and ranges, diagnostics (a diagnostic's
//! `code` is any JSON value serde_json reads, an odd one kept as its text as given:
//! [`DiagnosticCode`]), a file's diagnostics, a tab.

use super::FormError;
use super::read::{MAX_DEPTH, Val, u32};
use crate::ide::{Diagnostic, DiagnosticCode, FileDiagnostics, OpenTab, Position, Range, Severity};

/// `{line, character}`, both required.
pub(super) fn position(v: Val<'_>) -> Result<Position, FormError> {
    let o = v.object()?;
    Ok(Position {
        line: o.req("line", u32)?,
        character: o.req("character", u32)?,
    })
}

/// `{start, end}`, both required.
pub(super) fn range(v: Val<'_>) -> Result<Range, FormError> {
    let o = v.object()?;
    Ok(Range {
        start: o.req("start", position)?,
        end: o.req("end", position)?,
    })
}

fn severity(v: Val<'_>) -> Result<Severity, FormError> {
    const SEVERITIES: [Severity; 4] = [
        Severity::Error,
        Severity::Warning,
        Severity::Info,
        Severity::Hint,
    ];
    Ok(SEVERITIES[v.one_of(&["Error", "Warning", "Info", "Hint"])?])
}

/// `{message, severity, range, source?, code?}`.
pub(super) fn diagnostic(v: Val<'_>) -> Result<Diagnostic, FormError> {
    let o = v.object()?;
    Ok(Diagnostic {
        message: o.string("message")?,
        severity: o.req("severity", severity)?,
        range: o.req("range", range)?,
        source: o.opt_string("source")?,
        code: o.opt("code", code)?,
    })
}

/// `{path, diagnostics}`, both required.
pub(super) fn file_diagnostics(v: Val<'_>) -> Result<FileDiagnostics, FormError> {
    let o = v.object()?;
    Ok(FileDiagnostics {
        path: o.string("path")?,
        diagnostics: o.req("diagnostics", |v| v.list(diagnostic))?,
    })
}

/// `{path, languageId?, isDirty?, isUntitled?, isActive?}`.
pub(super) fn open_tab(v: Val<'_>) -> Result<OpenTab, FormError> {
    let o = v.object()?;
    Ok(OpenTab {
        path: o.string("path")?,
        language_id: o.opt_string("languageId")?,
        is_dirty: o.flag("isDirty")?,
        is_untitled: o.flag("isUntitled")?,
        is_active: o.flag("isActive")?,
    })
}

/// A diagnostic's `code`: a string as its text, any other value (it nests no deeper than
/// serde_json would read from its place, and serde_json reads it: no infinite number, no lone
/// surrogate) as [`DiagnosticCode::checked`] keeps it, its text as given.
fn code(v: Val<'_>) -> Result<DiagnosticCode, FormError> {
    if v.raw().starts_with('"') {
        return Ok(DiagnosticCode::Text(v.string()?));
    }
    v.nests_at_most(MAX_DEPTH)?;
    match crate::json::check_value(v.raw()) {
        Ok(()) => Ok(DiagnosticCode::checked(v.raw())),
        Err(_) => Err(v.mistyped("a JSON value with no lone surrogate or infinite number")),
    }
}
