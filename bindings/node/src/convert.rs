//! JS values to engine types and back, through core's codec ([`idelink_core::forms`]): the
//! rules and the messages are core's, the same the WebAssembly engine throws.

use crate::error::throw;
use idelink_core::forms::{self, FormError, InputForm, OutputForm};
use idelink_core::{ConnId, Timestamp, ToolCallId};
use napi::Env;
use napi::bindgen_prelude::{Function, JsObjectValue, Object, Unknown};

/// How a refused number is shown in a message (as JS writes the numbers tests pin: `1.5`).
fn shown(n: f64) -> String {
    n.to_string()
}

/// A host timestamp ([`forms::timestamp`]).
pub fn timestamp(now: f64) -> napi::Result<Timestamp> {
    forms::timestamp(now, shown).map_err(throw)
}

/// A non-negative integer that a JS number holds exactly ([`forms::whole_number`]).
pub fn whole_number(value: f64, what: &str) -> napi::Result<u64> {
    forms::whole_number(value, what, shown).map_err(throw)
}

/// A connection id as returned by `handleAccept`.
pub fn conn_id(conn: f64) -> napi::Result<ConnId> {
    forms::conn_id(conn, shown).map_err(throw)
}

/// A tool call id as found in a `toolCall` event.
pub fn tool_call_id(id: f64) -> napi::Result<ToolCallId> {
    forms::tool_call_id(id, shown).map_err(throw)
}

/// A byte count for `handleSent`.
pub fn byte_count(n: f64) -> napi::Result<usize> {
    forms::byte_count(n, shown).map_err(throw)
}

/// An id as a JS number (ids count from 1 and stay far below 2^53).
pub fn id_number(id: u64) -> f64 {
    id as f64
}

/// Reads a JS value as form `T`: `JSON.stringify` (so `undefined` members are left out and
/// numbers keep their JSON spelling), then core's reader.
pub fn from_js_json<T: InputForm>(env: &Env, value: Unknown) -> napi::Result<T> {
    let json = env.get_global()?.get_named_property::<Object>("JSON")?;
    let stringify = json.get_named_property::<Function<Unknown, Option<String>>>("stringify")?;
    let read = match stringify.call(value)? {
        Some(text) => forms::read(&text),
        None => Err(FormError::no_json::<T>()),
    };
    read.map_err(throw)
}

/// The JSON text of an output form, for `JSON.parse` on the JS side.
pub fn json_text<T: OutputForm>(value: &T) -> String {
    forms::write(value)
}
