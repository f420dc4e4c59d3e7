//! Status codes and the thread-local last error message.

use std::cell::RefCell;
use std::ffi::{CString, c_char};

/// What every `idelink_*` call returns. `IDELINK_OK` is 0; every failure is negative and
/// leaves a message for [`idelink_last_error_message`] on the calling thread.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdelinkStatus {
    /// The call did what it says.
    IdelinkOk = 0,
    /// A pointer was NULL, a string was not UTF-8, or a JSON argument did not parse (the
    /// message names the field). Nothing changed.
    IdelinkErrorInvalidArgument = -1,
    /// The call does not fit the handle's state: an unknown connection, a tool call already
    /// answered, more bytes reported sent than were pending. Nothing changed.
    IdelinkErrorMisuse = -2,
    /// The operating system refused (binding the port, the lock file, the poller).
    IdelinkErrorIo = -3,
    /// `idelink_host_start` in a headless or automated run without `serveWhenHeadless`: no
    /// socket was opened and no lock written. Not a fault: the editor simply does not serve.
    IdelinkErrorHeadless = -4,
    /// idelink panicked (a bug; the message asks for a report). The handle is poisoned.
    IdelinkErrorPanic = -5,
    /// The handle panicked in an earlier call; only its `_free` function may be called.
    IdelinkErrorPoisoned = -6,
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Records `message` as this thread's last error and returns `status`.
pub(crate) fn fail(status: IdelinkStatus, message: impl std::fmt::Display) -> IdelinkStatus {
    let text = message.to_string().replace('\0', "\\0");
    let text = CString::new(text).unwrap_or_default();
    LAST_ERROR.with(|last| *last.borrow_mut() = text);
    status
}

/// The message of the last failed `idelink_*` call on the calling thread, as NUL-terminated
/// UTF-8; `""` when no call on this thread has failed yet.
///
/// **Ownership:** the library owns the text; do not free it.
/// **Lifetime:** valid until the next failing `idelink_*` call on the same thread.
/// **Threads:** each thread has its own last error; callable from any thread.
#[unsafe(no_mangle)]
pub extern "C" fn idelink_last_error_message() -> *const c_char {
    LAST_ERROR.with(|last| last.borrow().as_ptr())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    fn last() -> String {
        // SAFETY: the pointer is this thread's NUL-terminated message, alive until the next
        // failing call, and none happens while it is read.
        unsafe { CStr::from_ptr(idelink_last_error_message()) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn the_last_error_is_per_thread_and_survives_nul_bytes() {
        assert_eq!(last(), "");
        let status = fail(IdelinkStatus::IdelinkErrorMisuse, "bad\0thing");
        assert_eq!(status, IdelinkStatus::IdelinkErrorMisuse);
        assert_eq!(last(), "bad\\0thing");
        let other = std::thread::spawn(last).join().ok();
        assert_eq!(other.as_deref(), Some(""));
    }
}
