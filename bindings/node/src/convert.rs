//! JS values to engine types and back. Each conversion checks its input and says what a
//! caller should pass instead; none interprets the protocol.

use crate::error::throw;
use idelink_core::{ConnId, Timestamp, ToolCallId};
use napi::bindgen_prelude::{Function, JsObjectValue, Object, Unknown};
use napi::{Env, ValueType};
use serde::de::DeserializeOwned;

/// The largest integer a JS number holds exactly (`Number.MAX_SAFE_INTEGER`).
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// A host timestamp: a finite, non-negative number of milliseconds; fractions are dropped
/// (`performance.now()` can be passed as is).
pub fn timestamp(now: f64) -> napi::Result<Timestamp> {
    if now.is_finite() && now >= 0.0 {
        // In range by the check above; `as` saturates at u64::MAX for absurd values.
        Ok(Timestamp::from_millis(now as u64))
    } else {
        Err(throw(format_args!(
            "now must be a finite, non-negative number of milliseconds from a monotonic clock \
             (performance.now()), got {now}"
        )))
    }
}

/// A non-negative integer that a JS number holds exactly, or an error naming `what`.
pub fn whole_number(value: f64, what: &str) -> napi::Result<u64> {
    if value.fract() == 0.0 && (0.0..=MAX_SAFE_INTEGER).contains(&value) {
        Ok(value as u64)
    } else {
        Err(throw(format_args!(
            "{what} must be a non-negative integer, got {value}"
        )))
    }
}

/// A connection id as returned by `handleAccept` (whether it is known is the engine's call).
pub fn conn_id(conn: f64) -> napi::Result<ConnId> {
    whole_number(conn, "conn (an id from handleAccept)").map(ConnId::from_u64)
}

/// A tool call id as found in a `toolCall` event.
pub fn tool_call_id(id: f64) -> napi::Result<ToolCallId> {
    whole_number(id, "id (the id of a toolCall event)").map(ToolCallId::from_u64)
}

/// A byte count for `handleSent`.
pub fn byte_count(n: f64) -> napi::Result<usize> {
    let n = whole_number(n, "n (the number of bytes written)")?;
    usize::try_from(n).map_err(|_| throw(format_args!("n is too large: {n} bytes")))
}

/// An id as a JS number (ids count from 1 and stay far below 2^53).
pub fn id_number(id: u64) -> f64 {
    id as f64
}

/// Parses a JS value into `T` through its JSON form: `JSON.stringify` (so `undefined`
/// members are left out and numbers keep their JSON spelling), then core's serde
/// deserializer, whose error names the offending field. `what` names the argument.
pub fn from_js_json<T: DeserializeOwned>(env: &Env, value: Unknown, what: &str) -> napi::Result<T> {
    let text = json_text(env, value, what)?;
    serde_json::from_str(&text).map_err(|e| throw(format_args!("invalid {what}: {e}")))
}

/// `JSON.stringify(value)` for an object, or an error naming `what`.
pub fn json_text(env: &Env, value: Unknown, what: &str) -> napi::Result<String> {
    if value.get_type()? != ValueType::Object {
        return Err(throw(format_args!(
            "{what} must be an object in its JSON form, got a {}",
            type_name(value.get_type()?)
        )));
    }
    let json = env.get_global()?.get_named_property::<Object>("JSON")?;
    let stringify = json.get_named_property::<Function<Unknown, Option<String>>>("stringify")?;
    stringify
        .call(value)?
        .ok_or_else(|| throw(format_args!("{what} has no JSON form")))
}

fn type_name(kind: ValueType) -> &'static str {
    match kind {
        ValueType::Undefined => "undefined",
        ValueType::Null => "null",
        ValueType::Boolean => "boolean",
        ValueType::Number => "number",
        ValueType::String => "string",
        ValueType::Symbol => "symbol",
        ValueType::Function => "function",
        ValueType::BigInt => "bigint",
        _ => "value of another kind",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_finite_non_negative_milliseconds() {
        assert_eq!(timestamp(12.9).map(Timestamp::as_millis).ok(), Some(12));
        assert_eq!(timestamp(0.0).map(Timestamp::as_millis).ok(), Some(0));
        for bad in [-1.0, f64::NAN, f64::INFINITY] {
            let err = timestamp(bad).err().map(|e| e.reason);
            assert!(err.is_some_and(|m| m.starts_with("now must be")), "{bad}");
        }
    }

    #[test]
    fn ids_and_counts_are_whole_numbers() {
        assert_eq!(conn_id(3.0).ok(), Some(ConnId::from_u64(3)));
        assert_eq!(tool_call_id(1.0).ok(), Some(ToolCallId::from_u64(1)));
        assert_eq!(byte_count(0.0).ok(), Some(0));
        for bad in [1.5, -1.0, f64::NAN, 1e300] {
            let err = conn_id(bad).err().map(|e| e.reason);
            assert!(
                err.is_some_and(|m| m.starts_with("conn (an id from handleAccept) must be")),
                "{bad}"
            );
        }
    }
}
