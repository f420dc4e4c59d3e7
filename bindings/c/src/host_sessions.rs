//! The session list at the host level (core's routing, `engine/sessions.rs`): the same calls
//! as the engine level's `idelink_engine_sessions` / `idelink_engine_choose_session`, on a
//! running `IdelinkHost`, for an editor whose folder has more than one claude session.

use crate::args::{form, owned_string, place};
use crate::guard::misuse;
use crate::host::{IdelinkHost, on};
use crate::status::IdelinkStatus;
use idelink_core::SessionChoice;
use idelink_core::forms;
use std::ffi::c_char;

/// The session list: every ready session, oldest first, as JSON text
/// (`[{"conn":1,"pid":4242,"folders":["/w"],"connectedAt":0,"chosen":false}]`; `folders` is
/// `null` until the client answered `roots/list`). With `"engine":{"sessionList":true}` (or a
/// routing rule) in the config, each change also comes as a `sessionsChanged` event.
///
/// **Ownership:** `*sessions_json` is library-owned: free it with `idelink_string_free`.
///
/// # Safety
/// `host` is a live handle not in use on another thread; `sessions_json` points to writable
/// storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_host_sessions(
    host: *mut IdelinkHost,
    sessions_json: *mut *mut c_char,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(host, |s| {
            let out = place(sessions_json, "sessions_json")?;
            *out = owned_string(forms::write(&s.host.sessions()));
            Ok(())
        })
    }
}

/// Chooses the session mentions go to (and, with `"routing":"chosen"` in the engine
/// configuration, every push): `choice_json` is `{"by":"conn","conn":1}` or
/// `{"by":"pid","pid":4242}` (a pid may be chosen before its CLI connects); NULL chooses none.
/// Mentions that waited for a choice are sent at once. `IDELINK_ERROR_MISUSE` for a connection
/// that is not a session (nothing changes).
///
/// # Safety
/// `host` is a live handle not in use on another thread; `choice_json` is NULL or
/// NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_host_choose_session(
    host: *mut IdelinkHost,
    choice_json: *const c_char,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(host, |s| {
            let choice: Option<SessionChoice> = if choice_json.is_null() {
                None
            } else {
                Some(form(choice_json, "choice_json")?)
            };
            s.host.choose_session(choice).map_err(misuse)
        })
    }
}
