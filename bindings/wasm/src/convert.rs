//! Number conversions between JS and the core types, with core's rules and messages
//! ([`idelink_core::forms`]), and the one error helper (structured values: `json.rs`).

use crate::json::describe;
use idelink_core::forms;
use idelink_core::{ConnId, Timestamp, ToolCallId};
use std::fmt::Display;
use wasm_bindgen::prelude::*;

/// The one way this binding reports host misuse: a JS `Error` with `what` went wrong.
pub(crate) fn host_error(what: impl Display) -> JsError {
    JsError::new(&what.to_string())
}

/// A `now` argument: milliseconds on the host's monotonic clock, fraction dropped.
pub(crate) fn timestamp(now: f64) -> Result<Timestamp, JsError> {
    forms::timestamp(now, js_number).map_err(host_error)
}

/// A connection id as `handleAccept` returned it.
pub(crate) fn conn_id(conn: f64) -> Result<ConnId, JsError> {
    forms::conn_id(conn, js_number).map_err(host_error)
}

/// A tool call id as a `toolCall` event carries it.
pub(crate) fn tool_call_id(id: f64) -> Result<ToolCallId, JsError> {
    forms::tool_call_id(id, js_number).map_err(host_error)
}

/// A byte count for `handleSent`.
pub(crate) fn byte_count(n: f64) -> Result<usize, JsError> {
    forms::byte_count(n, js_number).map_err(host_error)
}

/// A non-negative integer a JS number holds exactly; `what` names it in the message.
pub(crate) fn whole_number(n: f64, what: &str) -> Result<u64, JsError> {
    forms::whole_number(n, what, js_number).map_err(host_error)
}

/// A timestamp as a JS number (exact up to 2^53 ms, some 285 000 years).
pub(crate) fn millis_number(at: Timestamp) -> f64 {
    at.as_millis() as f64
}

/// An id as a JS number (ids count from 1 and never come near 2^53).
pub(crate) fn id_number(id: u64) -> f64 {
    id as f64
}

/// `n` as JS writes it (`String(n)`: `Infinity`, `1.5`): Rust's own float formatting would
/// add some 18 KB to the module for a few error messages.
fn js_number(n: f64) -> String {
    describe(&JsValue::from_f64(n))
}
