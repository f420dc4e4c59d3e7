//! The JSON forms every face hands in and gets back, read and written without serde: the one
//! codec of the napi, wasm and C bindings, on the one JSON reader (`crate::json`).
//!
//! In: [`Config`], [`EditorEvent`], [`EditorSnapshot`], [`ToolOutcome`], for the JS faces'
//! host helpers [`LockFields`] and [`Inherited`], discovery's [`ClaudeStart`], the ledger's [`FileContent`] and [`UndoTarget`], and the JS numbers they pass ([`timestamp`],
//! [`conn_id`], [`tool_call_id`], [`byte_count`], [`whole_number`]). Out: [`Output`], [`EngineEvent`],
//! [`SnapshotChanges`], the [`Ledger`]'s turns, an attached link's [`AttachEvent`], [`FileContent`], [`LockFields`], [`Variables`] and [`Verdict`]. The rules are exactly those of
//! core's serde forms (the property tests hold this codec to serde_json on random values and
//! on broken ones):
//!
//! - a config refuses unknown fields (in `ws`, `rpc`, `serverInfo` and `reads` too) and
//!   defaults the rest; events and outcomes are tagged by `type` / `outcome` and ignore the
//!   fields they do not know, as the snapshot and the value types do;
//! - integers are digits only and in range (`1.0`, `-0`, `1e3` are refused); `null` is an
//!   absent option and nothing else; a known field given twice is refused;
//! - strings are decoded (RFC 8259 §7), a lone surrogate escape refused where serde decodes;
//!   the text nests no deeper than serde_json's 127 levels.
//!
//! One difference, on purpose: serde also reads a struct from an array of its fields in
//! order (`[40000]` as a config); no declaration of the forms allows that, and this codec
//! refuses it.
//!
//! Output is byte for byte what `serde_json::to_string` writes for the serde form. Every
//! refusal is a [`FormError`] whose message names the argument and the field path:
//! `config: ws.maxMessageBytes must be an integer from 0 to 18446744073709551615, got 1.5`.
//!
//! A field is added to a form on one line: its serde attribute on the type, and its line in
//! the form's table (`config.rs`, a variant's reader in `event.rs` or `outcome.rs`, its
//! writer in `output.rs`); the readers and writers build and take apart whole values, so the
//! compiler names the line a new field still lacks.

use std::fmt;

mod config;
mod discovery;
mod event;
mod host;
mod ledger;
mod link;
mod number;
mod outcome;
mod output;
mod read;
mod snapshot;
mod values;
mod write;

pub use host::{Inherited, LockFields, Variables};
pub use number::{Shown, byte_count, conn_id, timestamp, tool_call_id, whole_number};

use crate::discovery::{ClaudeStart, Verdict};
use crate::engine::{EngineEvent, Output, SessionChoice, SessionInfo};
use crate::ledger::{FileContent, Ledger, UndoTarget};
use crate::link::AttachEvent;
use crate::{Config, EditorEvent, EditorSnapshot, SnapshotChanges, ToolOutcome};
use read::{Path, Val};

/// Why a value handed in is not its form: the message names the argument and the field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormError(String);

impl fmt::Display for FormError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FormError {}

impl FormError {
    /// The error for an argument that has no JSON text at all (JS `undefined`, a function,
    /// a symbol: what `JSON.stringify` turns into nothing, or a value it throws on).
    pub fn no_json<T: InputForm>() -> FormError {
        Self::no_json_named(T::ARGUMENT)
    }

    /// [`FormError::no_json`] for the argument named `argument` (one copy for every form).
    fn no_json_named(argument: &str) -> FormError {
        FormError(format!(
            "{argument} must be a plain object, got a value with no JSON form"
        ))
    }
}

mod sealed {
    /// How a form is read; only this module's forms have it.
    pub trait Read: Sized {
        /// Whether serde reads the form through its buffer of decoded strings (a tagged
        /// enum), which refuses a lone surrogate escape in any string of the text.
        const TAGGED: bool;

        /// The form from its value.
        fn read(value: super::Val<'_>) -> Result<Self, super::FormError>;
    }
}

/// A form a face hands in.
pub trait InputForm: sealed::Read {
    /// The argument's name in error messages (`config`, `event`, `outcome`, `snapshot`).
    const ARGUMENT: &'static str;
}

/// A form a face gets back.
pub trait OutputForm {
    /// Appends the JSON text of `self` to `out`.
    fn write_json(&self, out: &mut Vec<u8>);
}

/// Reads `json`, the JSON text of form `T`. Never inlined: a face calls it for one form from
/// several places, and one copy of each form's reader is enough (the wasm module's size).
#[inline(never)]
pub fn read<T: InputForm>(json: &str) -> Result<T, FormError> {
    T::read(root_of(json, T::ARGUMENT, T::TAGGED)?)
}

/// [`read`]'s checks of the whole text, one copy for every form: `json` is one JSON value
/// and, for a `tagged` form, nests no deeper than serde reads and escapes no lone surrogate.
fn root_of<'a>(json: &'a str, argument: &'static str, tagged: bool) -> Result<Val<'a>, FormError> {
    let root = Path::Root(argument);
    let value = read::root(json, &root, tagged)?;
    if tagged {
        read::every_string_decodes(json, &root)?;
    }
    Ok(value)
}

/// The JSON text of `value`. Never inlined, as [`read`].
#[inline(never)]
pub fn write<T: OutputForm + ?Sized>(value: &T) -> String {
    let mut out = Vec::new();
    value.write_json(&mut out);
    text_of(out)
}

/// [`write`]'s bytes as text, one copy for every form.
fn text_of(out: Vec<u8>) -> String {
    // Only whole strings and ASCII structure were written.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

macro_rules! input_forms {
    ($($form:ty => $argument:literal, $tagged:literal, $read:path;)*) => {$(
        impl sealed::Read for $form {
            const TAGGED: bool = $tagged;
            fn read(value: Val<'_>) -> Result<Self, FormError> {
                $read(value)
            }
        }
        impl InputForm for $form {
            const ARGUMENT: &'static str = $argument;
        }
    )*};
}

input_forms! {
    Config => "config", false, config::config;
    EditorEvent => "event", true, event::editor_event;
    EditorSnapshot => "snapshot", false, snapshot::editor_snapshot;
    ToolOutcome => "outcome", true, outcome::tool_outcome;
    LockFields => "lock file fields", false, host::lock_fields;
    Inherited => "inherited", false, host::inherited;
    ClaudeStart => "start", false, discovery::claude_start;
    SessionChoice => "choice", true, event::session_choice;
    FileContent => "content", true, ledger::file_content;
    UndoTarget => "target", true, ledger::undo_target;
}

macro_rules! output_forms {
    ($($form:ty => $write:path;)*) => {$(
        impl OutputForm for $form {
            fn write_json(&self, out: &mut Vec<u8>) {
                $write(out, self)
            }
        }
    )*};
}

output_forms! {
    Output => output::output;
    EngineEvent => output::event;
    SnapshotChanges => output::snapshot_changes;
    LockFields => host::write_lock_fields;
    Variables => host::write_variables;
    Verdict => discovery::verdict;
    Vec<SessionInfo> => output::session_list;
    SessionChoice => output::session_choice;
    FileContent => output::file_content;
    Ledger => ledger::ledger;
    AttachEvent => link::attach_event;
}

#[cfg(test)]
mod tests;
