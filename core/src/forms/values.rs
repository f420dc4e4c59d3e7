//! The value types the input forms share: positions and ranges, diagnostics (a diagnostic's
//! `code` is any JSON value, passed through as serde_json would read it), a file's
//! diagnostics, a tab.

use serde_json::{Map, Number, Value};

use super::FormError;
use super::read::{MAX_DEPTH, Val, u32};
use crate::ide::{Diagnostic, FileDiagnostics, OpenTab, Position, Range, Severity};

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
        code: o.opt("code", any)?,
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

/// Any JSON value as serde_json reads it into a [`Value`]: numbers as its parser reads them,
/// a name given twice in an object with its last value, no deeper than serde_json would read
/// from the value's place.
pub(super) fn any(v: Val<'_>) -> Result<Value, FormError> {
    v.nests_at_most(MAX_DEPTH)?;
    value(v)
}

fn value(v: Val<'_>) -> Result<Value, FormError> {
    Ok(match v.raw().as_bytes().first() {
        Some(b'n') => Value::Null,
        Some(b't' | b'f') => Value::Bool(v.boolean()?),
        Some(b'"') => Value::String(v.string()?),
        Some(b'[') => Value::Array(v.list(value)?),
        Some(b'{') => {
            let mut members = Map::new();
            v.object()?.each_member(&mut |name, item| {
                members.insert(name.to_owned(), value(item)?);
                Ok(())
            })?;
            Value::Object(members)
        }
        _ => Value::Number(number(v.raw()).ok_or_else(|| v.mistyped("a JSON number"))?),
    })
}

/// The number `raw` (a JSON number the reader accepted) as serde_json's parser reads it: an
/// integer that fits a `u64`, or an `i64` when negative, as that integer (`-0` is `-0.0`);
/// any other number as serde_json's `f64` (`crate::json::serde_f64`), so that it is written
/// back byte for byte as serde_json would. `None` when serde_json refuses it as out of range.
fn number(raw: &str) -> Option<Number> {
    let (positive, digits) = match raw.strip_prefix('-') {
        Some(digits) => (false, digits),
        None => (true, raw),
    };
    if let Ok(significand) = digits.parse::<u64>() {
        if positive {
            return Some(significand.into());
        }
        // serde_json's rule: the negated significand as an `i64` when it is negative.
        let negated = (significand as i64).wrapping_neg();
        if negated < 0 {
            return Some(negated.into());
        }
    }
    crate::json::serde_f64(raw).and_then(Number::from_f64)
}
