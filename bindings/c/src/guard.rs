//! Where a panic stops: every exported function runs its body through [`guard`] or
//! [`with_handle`], so unwinding never crosses into C (which would abort the editor).

use crate::status::{IdelinkStatus, fail};
use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// The result of a call body: `Err` carries the status and the message for the caller.
pub(crate) type CallResult = Result<(), (IdelinkStatus, String)>;

/// A handle's state with a poison flag: a panic while the state was borrowed may have left
/// it half-updated, so the handle refuses every later call.
pub(crate) struct Guarded<T> {
    state: T,
    poisoned: bool,
}

impl<T> Guarded<T> {
    pub(crate) fn new(state: T) -> Self {
        Guarded {
            state,
            poisoned: false,
        }
    }
}

/// Runs `body`, turning its error or a panic into a status and this thread's last error.
pub(crate) fn guard(body: impl FnOnce() -> CallResult) -> IdelinkStatus {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => IdelinkStatus::IdelinkOk,
        Ok(Err((status, message))) => fail(status, message),
        Err(payload) => fail(IdelinkStatus::IdelinkErrorPanic, panicked(payload.as_ref())),
    }
}

/// Runs `body` on the handle's state; a panic poisons the handle, and a poisoned handle
/// refuses the call with `IDELINK_ERROR_POISONED`.
pub(crate) fn with_handle<T>(
    handle: &mut Guarded<T>,
    body: impl FnOnce(&mut T) -> CallResult,
) -> IdelinkStatus {
    if handle.poisoned {
        return fail(
            IdelinkStatus::IdelinkErrorPoisoned,
            "this handle panicked in an earlier call and is unusable; free it and create a new one",
        );
    }
    let status = guard(|| body(&mut handle.state));
    if status == IdelinkStatus::IdelinkErrorPanic {
        handle.poisoned = true;
    }
    status
}

/// An `IDELINK_ERROR_INVALID_ARGUMENT` error.
pub(crate) fn invalid(message: impl std::fmt::Display) -> (IdelinkStatus, String) {
    (
        IdelinkStatus::IdelinkErrorInvalidArgument,
        message.to_string(),
    )
}

/// An `IDELINK_ERROR_MISUSE` error.
pub(crate) fn misuse(message: impl std::fmt::Display) -> (IdelinkStatus, String) {
    (IdelinkStatus::IdelinkErrorMisuse, message.to_string())
}

fn panicked(payload: &(dyn Any + Send)) -> String {
    let what = if let Some(s) = payload.downcast_ref::<&str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.as_str()
    } else {
        "a panic without a message"
    };
    format!("idelink panicked (a bug, please report it): {what}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    fn last() -> String {
        // SAFETY: this thread's message, read before any other failing call.
        unsafe { CStr::from_ptr(crate::status::idelink_last_error_message()) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn a_panic_becomes_a_status_and_poisons_the_handle() {
        let mut handle = Guarded::new(1_u32);
        let status = with_handle(&mut handle, |n| {
            *n += 1;
            panic!("invariant {n} broken")
        });
        assert_eq!(status, IdelinkStatus::IdelinkErrorPanic);
        assert_eq!(
            last(),
            "idelink panicked (a bug, please report it): invariant 2 broken"
        );
        let again = with_handle(&mut handle, |_| Ok(()));
        assert_eq!(again, IdelinkStatus::IdelinkErrorPoisoned);
        assert!(last().starts_with("this handle panicked"));
    }

    #[test]
    fn errors_keep_the_handle_usable() {
        let mut handle = Guarded::new(());
        let status = with_handle(&mut handle, |()| Err(misuse("unknown connection conn#9")));
        assert_eq!(status, IdelinkStatus::IdelinkErrorMisuse);
        assert_eq!(last(), "unknown connection conn#9");
        assert_eq!(
            with_handle(&mut handle, |()| Ok(())),
            IdelinkStatus::IdelinkOk
        );
        let status = guard(|| std::panic::panic_any(42_u8));
        assert_eq!(status, IdelinkStatus::IdelinkErrorPanic);
        assert!(last().ends_with("a panic without a message"));
    }
}
