//! The numbers a JS face hands in: times, ids and counts, each a JS number (an `f64`), with
//! the one message per mistake that both JS faces throw. The face shows the refused number
//! itself (`shown`): JS writes it as `String(n)` does, and the wasm module then carries no
//! Rust float formatting.

use super::FormError;
use crate::{ConnId, Timestamp, ToolCallId};

/// The largest integer a JS number holds exactly (`Number.MAX_SAFE_INTEGER`).
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// How a face writes a refused number into a message.
pub type Shown = fn(f64) -> String;

/// A host timestamp: a finite, non-negative number of milliseconds from a monotonic clock;
/// the fraction is dropped (`performance.now()` can be passed as is).
pub fn timestamp(now: f64, shown: Shown) -> Result<Timestamp, FormError> {
    if now.is_finite() && now >= 0.0 {
        // In range by the check above; `as` saturates at u64::MAX for absurd values.
        Ok(Timestamp::from_millis(now as u64))
    } else {
        Err(FormError(format!(
            "now must be a finite, non-negative number of milliseconds from a monotonic clock \
             (performance.now()), got {}",
            shown(now)
        )))
    }
}

/// A non-negative integer that a JS number holds exactly; `what` names it in the message.
pub fn whole_number(n: f64, what: &str, shown: Shown) -> Result<u64, FormError> {
    if n.fract() == 0.0 && (0.0..=MAX_SAFE_INTEGER).contains(&n) {
        Ok(n as u64)
    } else {
        Err(FormError(format!(
            "{what} must be a non-negative integer, got {}",
            shown(n)
        )))
    }
}

/// A connection id as `handleAccept` returned it (whether it is known is the engine's call).
pub fn conn_id(conn: f64, shown: Shown) -> Result<ConnId, FormError> {
    whole_number(conn, "conn (an id from handleAccept)", shown).map(ConnId::from_u64)
}

/// A tool call id as a `toolCall` event carries it.
pub fn tool_call_id(id: f64, shown: Shown) -> Result<ToolCallId, FormError> {
    whole_number(id, "id (the id of a toolCall event)", shown).map(ToolCallId::from_u64)
}

/// A byte count for `handleSent`.
pub fn byte_count(n: f64, shown: Shown) -> Result<usize, FormError> {
    let n = whole_number(n, "n (the number of bytes written)", shown)?;
    usize::try_from(n).map_err(|_| FormError(format!("n is too large: {n} bytes")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(n: f64) -> String {
        format!("{n}")
    }

    #[test]
    fn timestamps_are_finite_non_negative_milliseconds() {
        assert_eq!(
            timestamp(12.9, shown).map(Timestamp::as_millis).ok(),
            Some(12)
        );
        assert_eq!(
            timestamp(0.0, shown).map(Timestamp::as_millis).ok(),
            Some(0)
        );
        for bad in [-1.0, f64::NAN, f64::INFINITY] {
            let err = timestamp(bad, shown).err().map(|e| e.to_string());
            assert!(err.is_some_and(|m| m.starts_with("now must be")), "{bad}");
        }
    }

    #[test]
    fn ids_and_counts_are_whole_numbers() {
        assert_eq!(conn_id(3.0, shown).ok(), Some(ConnId::from_u64(3)));
        assert_eq!(tool_call_id(1.0, shown).ok(), Some(ToolCallId::from_u64(1)));
        assert_eq!(byte_count(0.0, shown).ok(), Some(0));
        assert_eq!(
            conn_id(1.5, shown).err().map(|e| e.to_string()).as_deref(),
            Some("conn (an id from handleAccept) must be a non-negative integer, got 1.5")
        );
        for bad in [-1.0, f64::NAN, 1e300, 9_007_199_254_740_992.0] {
            assert!(conn_id(bad, shown).is_err(), "{bad}");
        }
    }
}
