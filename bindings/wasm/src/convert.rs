//! Number conversions between JS and the core types, and the one error helper (structured
//! values: `input.rs`, `output.rs`).

use crate::js::describe;
use idelink_core::Timestamp;
use std::fmt::Display;
use wasm_bindgen::prelude::*;

/// The largest integer a JS number holds exactly (`Number.MAX_SAFE_INTEGER`).
pub(crate) const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// The one way this binding reports host misuse: a JS `Error` with `what` went wrong.
pub(crate) fn host_error(what: impl Display) -> JsError {
    JsError::new(&what.to_string())
}

/// A `now` argument: milliseconds on the host's monotonic clock, fraction dropped.
pub(crate) fn timestamp(now: f64) -> Result<Timestamp, JsError> {
    let millis = whole_number(now.floor()).ok_or_else(|| {
        host_error(format_args!(
            "now must be a non-negative finite number of milliseconds (performance.now()), got {}",
            js_number(now)
        ))
    })?;
    Ok(Timestamp::from_millis(millis))
}

/// An id or a count: a non-negative integer number; `what` names it in errors.
pub(crate) fn integer(what: &str, n: f64) -> Result<u64, JsError> {
    whole_number(n).ok_or_else(|| {
        host_error(format_args!(
            "{what} must be a non-negative integer number, got {}",
            js_number(n)
        ))
    })
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
/// add some 18 KB to the module for two error messages.
fn js_number(n: f64) -> String {
    describe(&JsValue::from_f64(n))
}

fn whole_number(n: f64) -> Option<u64> {
    let exact = n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n <= MAX_SAFE_INTEGER;
    exact.then_some(n as u64)
}
