//! The one way errors reach JS: a thrown `Error` with a message that says what is wrong.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// The JS `Error` for `message`. Every failure of this binding goes through here: host misuse
/// reported by the engine (its `Display` text), a malformed argument, a caught panic.
pub fn throw(message: impl std::fmt::Display) -> napi::Error {
    napi::Error::from_reason(message.to_string())
}

/// Runs `f`, turning a panic into `Err` with the panic message (prefixed `idelink panicked`).
/// Unwinding into Node would abort the process; a panic is an idelink bug, so the message
/// asks for a report.
pub fn guard<T>(f: impl FnOnce() -> napi::Result<T>) -> Result<napi::Result<T>, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        format!(
            "idelink panicked (a bug, please report it): {}",
            panic_message(payload.as_ref())
        )
    })
}

fn panic_message(payload: &(dyn Any + Send)) -> &str {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s
    } else {
        "a panic without a message"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_an_error_with_its_message() {
        let caught = guard::<()>(|| panic!("invariant {} broken", 7));
        assert_eq!(
            caught.err().as_deref(),
            Some("idelink panicked (a bug, please report it): invariant 7 broken")
        );
        let caught = guard::<()>(|| std::panic::panic_any(42_u8));
        assert!(caught.is_err_and(|m| m.ends_with("a panic without a message")));
    }

    #[test]
    fn results_pass_through() {
        assert!(matches!(guard(|| Ok(3)), Ok(Ok(3))));
        let failed = guard::<()>(|| Err(throw("unknown connection conn#9")));
        assert!(matches!(failed, Ok(Err(e)) if e.reason == "unknown connection conn#9"));
    }
}
