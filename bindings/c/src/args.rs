//! Caller pointers to Rust values, checked: NULL, UTF-8 and JSON problems become
//! `IDELINK_ERROR_INVALID_ARGUMENT` with a message naming the argument. The remaining
//! obligations (the pointer is valid for the stated length, the handle is live and not in use
//! on another thread) are the caller's, as every function's doc comment in `idelink.h` says.

use crate::guard::invalid;
use crate::status::IdelinkStatus;
use idelink_core::forms::{self, InputForm};
use serde::de::DeserializeOwned;
use std::ffi::{CStr, CString, c_char};

type ArgResult<T> = Result<T, (IdelinkStatus, String)>;

/// A NUL-terminated UTF-8 string argument.
///
/// # Safety
/// `ptr` is NULL or points to a NUL-terminated string that stays valid and unmodified for `'a`.
pub(crate) unsafe fn text<'a>(ptr: *const c_char, what: &str) -> ArgResult<&'a str> {
    if ptr.is_null() {
        return Err(invalid(format_args!("{what} is NULL")));
    }
    // SAFETY: not NULL (checked); NUL-terminated and valid for 'a per this function's contract.
    let text = unsafe { CStr::from_ptr(ptr) };
    text.to_str()
        .map_err(|e| invalid(format_args!("{what} is not UTF-8: {e}")))
}

/// A JSON argument in one of core's forms, read by core's codec (`idelink_core::forms`): the
/// error is `invalid <what>: ` and core's message, which names the field.
///
/// # Safety
/// As for [`text`].
pub(crate) unsafe fn form<T: InputForm>(ptr: *const c_char, what: &str) -> ArgResult<T> {
    // SAFETY: forwarded: this function has the same contract as `text`.
    let text = unsafe { text(ptr, what) }?;
    forms::read(text).map_err(|e| invalid(format_args!("invalid {what}: {e}")))
}

/// A JSON argument in a form of this binding's own (`inherited_json`), read with serde; the
/// error names the field.
///
/// # Safety
/// As for [`text`].
pub(crate) unsafe fn json<T: DeserializeOwned>(ptr: *const c_char, what: &str) -> ArgResult<T> {
    // SAFETY: forwarded: this function has the same contract as `text`.
    let text = unsafe { text(ptr, what) }?;
    serde_json::from_str(text).map_err(|e| invalid(format_args!("invalid {what}: {e}")))
}

/// A byte range argument; `ptr` may be NULL when `len` is 0.
///
/// # Safety
/// Unless `len` is 0, `ptr` points to `len` readable bytes that stay unmodified for `'a`.
pub(crate) unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> ArgResult<&'a [u8]> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(invalid(format_args!("bytes is NULL with len {len}")));
    }
    // SAFETY: not NULL (checked); `len` readable bytes valid for 'a per this function's contract.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// `count` entries at `ptr` (NULL allowed when `count` is 0).
///
/// # Safety
/// Unless `count` is 0, `ptr` points to `count` valid entries that outlive `'a`.
pub(crate) unsafe fn array<'a, T>(ptr: *const T, count: usize, what: &str) -> ArgResult<&'a [T]> {
    if count == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(invalid(format_args!(
            "{what} is NULL with a count of {count}"
        )));
    }
    // SAFETY: not NULL (checked); `count` valid entries (this function's contract).
    Ok(unsafe { std::slice::from_raw_parts(ptr, count) })
}

/// The value behind a handle or an out-parameter.
///
/// # Safety
/// `ptr` is NULL or points to a live, properly aligned `T` that no one else accesses for `'a`.
pub(crate) unsafe fn place<'a, T>(ptr: *mut T, what: &str) -> ArgResult<&'a mut T> {
    // SAFETY: per this function's contract, a non-NULL `ptr` is a live, exclusive `T`.
    unsafe { ptr.as_mut() }.ok_or_else(|| invalid(format_args!("{what} is NULL")))
}

/// A library-owned copy of `text` for the caller, freed with `idelink_string_free`.
pub(crate) fn owned_string(text: String) -> *mut c_char {
    // JSON text never holds a raw NUL (it is escaped as \u0000); the fallback is
    // unreachable but keeps this total.
    CString::new(text).unwrap_or_default().into_raw()
}

/// Frees a string the library handed out (an event or output JSON text). NULL is ignored.
///
/// **Ownership:** takes back a string returned by an `idelink_*` function; the caller must
/// not use it afterwards, and must free each string exactly once.
/// **Threads:** any thread.
///
/// # Safety
/// `text` is NULL or a pointer an `idelink_*` function returned as library-owned that was not
/// freed yet.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_string_free(text: *mut c_char) {
    if !text.is_null() {
        // SAFETY: the caller passes a pointer from `owned_string` (`CString::into_raw`),
        // once, per this function's contract.
        drop(unsafe { CString::from_raw(text) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_and_malformed_arguments_name_the_argument() {
        // SAFETY: NULL and a static NUL-terminated string.
        let null = unsafe { text(std::ptr::null(), "config") };
        assert_eq!(null.err().map(|e| e.1).as_deref(), Some("config is NULL"));
        let bad = c"\xff";
        // SAFETY: a static NUL-terminated string.
        let bad = unsafe { text(bad.as_ptr(), "token") };
        assert!(bad.is_err_and(|e| e.1.starts_with("token is not UTF-8")));
        // SAFETY: a static NUL-terminated string.
        let parsed = unsafe { json::<serde_json::Value>(c"{".as_ptr(), "event") };
        assert!(parsed.is_err_and(|e| e.1.starts_with("invalid event: EOF")));
        // SAFETY: a static NUL-terminated string.
        let parsed = unsafe { form::<idelink_core::EditorEvent>(c"{".as_ptr(), "event_json") };
        assert_eq!(
            parsed.err().map(|e| e.1).as_deref(),
            Some("invalid event_json: event is not JSON")
        );
        // SAFETY: len 0 never reads the pointer.
        assert_eq!(unsafe { bytes(std::ptr::null(), 0) }.ok(), Some(&[][..]));
        let data = [1_u8, 2, 3];
        // SAFETY: three readable bytes behind a local array.
        assert_eq!(unsafe { bytes(data.as_ptr(), 3) }.ok(), Some(&data[..]));
        // SAFETY: NULL with a non-zero length is refused before any read.
        assert!(unsafe { bytes(std::ptr::null(), 1) }.is_err());
    }

    #[test]
    fn owned_strings_round_trip_through_free() {
        let ptr = owned_string("{\"a\":1}".to_owned());
        // SAFETY: just returned by `owned_string`, freed once below.
        let back = unsafe { CStr::from_ptr(ptr) }.to_str().map(str::to_owned);
        assert_eq!(back.ok().as_deref(), Some("{\"a\":1}"));
        // SAFETY: library-owned, freed exactly once.
        unsafe { idelink_string_free(ptr) };
        // SAFETY: NULL is ignored.
        unsafe { idelink_string_free(std::ptr::null_mut()) };
    }
}
