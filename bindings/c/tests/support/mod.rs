//! What the C ABI's Rust tests share: reading a host's queued events as C does.
#![expect(
    unsafe_code,
    clippy::undocumented_unsafe_blocks,
    reason = "calls the C ABI with live pointers to locals"
)]

use idelink::*;
use std::ffi::{CStr, c_char};
use std::ptr::null_mut;

/// Runs `host`'s loop once, waiting at most 10 ms for its sockets.
pub fn poll(host: *mut IdelinkHost) {
    assert_eq!(
        unsafe { idelink_host_poll(host, 10) },
        IdelinkStatus::IdelinkOk
    );
}

/// The next event `host` queued, as its JSON text (freed on the C side), if any.
pub fn next_queued(host: *mut IdelinkHost) -> Option<String> {
    let mut event: *mut c_char = null_mut();
    assert_eq!(
        unsafe { idelink_host_next_event(host, &mut event) },
        IdelinkStatus::IdelinkOk
    );
    if event.is_null() {
        return None;
    }
    let text = unsafe { CStr::from_ptr(event) }
        .to_string_lossy()
        .into_owned();
    unsafe { idelink_string_free(event) };
    Some(text)
}
