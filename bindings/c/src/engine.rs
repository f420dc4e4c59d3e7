//! The engine level: `idelink_engine_*`, for editors with their own event loop and sockets.
//! Each function checks its arguments, makes the one `Engine` call, and converts the result;
//! the protocol is entirely `idelink-core`'s.
//!
//! **Threads:** an `IdelinkEngine` is not thread-safe. It may be created on one thread and
//! used on another, but calls on one engine must never overlap.

use crate::args::{bytes, form, owned_string, place, text};
use crate::guard::{Guarded, guard, invalid, misuse, with_handle};
use crate::snapshot::{IdelinkSnapshot, IdelinkSnapshotChanges};
use crate::status::IdelinkStatus;
use idelink_core::forms;
use idelink_core::{
    AuthToken, Config, ConnId, EditorEvent, Engine, Output, SessionChoice, Timestamp, ToolCallId,
    ToolOutcome,
};
use std::ffi::c_char;

/// An engine (opaque). Created by `idelink_engine_new`, freed by `idelink_engine_free`.
///
/// **Threads:** not thread-safe. It may move between threads, but calls on one engine must
/// never overlap; separate engines are independent.
pub struct IdelinkEngine(Guarded<Engine>);

/// What `idelink_engine_poll_output` found.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdelinkOutputKind {
    /// Nothing more to do until the next input.
    IdelinkOutputNone = 0,
    /// `conn`'s outbound buffer became non-empty: write what the socket takes of
    /// `idelink_engine_outbound` and report it with `idelink_engine_handle_sent`, until it is empty.
    IdelinkOutputTransmit = 1,
    /// Write what `conn`'s outbound buffer still holds (best effort), close the socket, then
    /// call `idelink_engine_handle_closed`.
    IdelinkOutputCloseTransport = 2,
    /// An event for the editor: `event_json` holds its JSON form (`{"event":"toolCall",…}`).
    IdelinkOutputEvent = 3,
}

/// One output of `idelink_engine_poll_output`.
#[repr(C)]
#[derive(Debug)]
pub struct IdelinkOutput {
    /// Which output this is.
    pub kind: IdelinkOutputKind,
    /// The connection of a `TRANSMIT` or `CLOSE_TRANSPORT`; 0 otherwise.
    pub conn: u64,
    /// For `EVENT`: the event's JSON text, NUL-terminated, library-owned: free it with
    /// `idelink_string_free`. NULL for every other kind.
    pub event_json: *mut c_char,
}

/// Runs `body` on the engine behind `engine`.
///
/// # Safety
/// `engine` is NULL or a live handle from `idelink_engine_new` not in use on another thread.
pub(crate) unsafe fn on(
    engine: *mut IdelinkEngine,
    body: impl FnOnce(&mut Engine) -> crate::guard::CallResult,
) -> IdelinkStatus {
    // SAFETY: the caller's obligation, stated on every exported function.
    match unsafe { place(engine, "engine") } {
        Ok(handle) => with_handle(&mut handle.0, body),
        Err((status, message)) => crate::status::fail(status, message),
    }
}

pub(crate) fn now(ms: u64) -> Timestamp {
    Timestamp::from_millis(ms)
}

/// Creates an engine. `config_json` is the engine configuration in its JSON form
/// (`{"port":40000,"workspaceFolders":["/p"],…}`, camelCase, every field optional; NULL: all
/// defaults). `auth_token` is the token clients must present (the one in the lock file: 1 to
/// 256 visible ASCII characters; mint it from OS randomness). On success `*out` receives the
/// handle.
///
/// **Ownership:** the caller owns the handle and frees it with `idelink_engine_free`. The
/// strings are only read during the call.
/// **Threads:** see `IdelinkEngine`.
///
/// # Safety
/// `config_json` is NULL or NUL-terminated; `auth_token` is NUL-terminated; `out` points to
/// writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_engine_new(
    config_json: *const c_char,
    auth_token: *const c_char,
    out: *mut *mut IdelinkEngine,
) -> IdelinkStatus {
    guard(|| {
        // SAFETY: `out` is writable storage for one pointer (caller's obligation).
        let out = unsafe { place(out, "out") }?;
        let config = if config_json.is_null() {
            Config::default()
        } else {
            // SAFETY: non-NULL and NUL-terminated (caller's obligation).
            unsafe { form::<Config>(config_json, "config_json") }?
        };
        // SAFETY: NUL-terminated (caller's obligation).
        let token = unsafe { text(auth_token, "auth_token") }?;
        let token = AuthToken::parse(token)
            .map_err(|e| invalid(format_args!("invalid auth_token: {e}")))?;
        let engine = Box::new(IdelinkEngine(Guarded::new(Engine::new(config, token))));
        *out = Box::into_raw(engine);
        Ok(())
    })
}

/// Frees an engine and everything it holds. NULL is ignored. Also the one call a poisoned
/// engine accepts.
///
/// **Ownership:** takes back the handle; it must not be used afterwards. Strings the engine
/// handed out stay valid until freed with `idelink_string_free`.
///
/// # Safety
/// `engine` is NULL or a handle from `idelink_engine_new` not freed yet and not in use on
/// another thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_engine_free(engine: *mut IdelinkEngine) {
    if !engine.is_null() {
        // SAFETY: a handle from `Box::into_raw` in `idelink_engine_new`, freed once (caller's
        // obligation). A panic in a destructor is caught: nothing unwinds into C.
        let _ = std::panic::catch_unwind(|| drop(unsafe { Box::from_raw(engine) }));
    }
}

/// A transport connection was accepted at `now_ms` (the editor's monotonic clock, in
/// milliseconds). `*conn` receives its id (ids count from 1 and are never reused).
///
/// # Safety
/// `engine` is a live handle not in use on another thread; `conn` points to a writable
/// `uint64_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_engine_handle_accept(
    engine: *mut IdelinkEngine,
    now_ms: u64,
    conn: *mut u64,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(engine, |e| {
            let conn = place(conn, "conn")?;
            *conn = e.handle_accept(now(now_ms)).as_u64();
            Ok(())
        })
    }
}

/// `len` bytes arrived on `conn`. The bytes are only read during the call.
///
/// # Safety
/// `engine` is a live handle not in use on another thread; unless `len` is 0, `data` points to
/// `len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_engine_handle_bytes(
    engine: *mut IdelinkEngine,
    now_ms: u64,
    conn: u64,
    data: *const u8,
    len: usize,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(engine, |e| {
            let data = bytes(data, len)?;
            e.handle_bytes(now(now_ms), ConnId::from_u64(conn), data)
                .map_err(misuse)
        })
    }
}

/// The host wrote the first `n` bytes of `idelink_engine_outbound(conn)` to the socket.
///
/// # Safety
/// `engine` is a live handle not in use on another thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_engine_handle_sent(
    engine: *mut IdelinkEngine,
    conn: u64,
    n: usize,
) -> IdelinkStatus {
    // SAFETY: the caller's obligation, stated above.
    unsafe {
        on(engine, |e| {
            e.handle_sent(ConnId::from_u64(conn), n).map_err(misuse)
        })
    }
}

/// `conn`'s transport is gone (EOF, an error, or the close the engine asked for). Call it
/// exactly once per connection.
///
/// # Safety
/// `engine` is a live handle not in use on another thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_engine_handle_closed(
    engine: *mut IdelinkEngine,
    now_ms: u64,
    conn: u64,
) -> IdelinkStatus {
    // SAFETY: the caller's obligation, stated above.
    unsafe {
        on(engine, |e| {
            e.handle_closed(now(now_ms), ConnId::from_u64(conn))
                .map_err(misuse)
        })
    }
}

/// The editor wants `conn` closed (a WebSocket close 1000 when upgraded).
///
/// # Safety
/// `engine` is a live handle not in use on another thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_engine_close(
    engine: *mut IdelinkEngine,
    now_ms: u64,
    conn: u64,
) -> IdelinkStatus {
    // SAFETY: the caller's obligation, stated above.
    unsafe {
        on(engine, |e| {
            e.close(now(now_ms), ConnId::from_u64(conn)).map_err(misuse)
        })
    }
}

/// Closes every connection (close 1001) and refuses new ones.
///
/// # Safety
/// `engine` is a live handle not in use on another thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_engine_shutdown(
    engine: *mut IdelinkEngine,
    now_ms: u64,
) -> IdelinkStatus {
    // SAFETY: the caller's obligation, stated above.
    unsafe {
        on(engine, |e| {
            e.shutdown(now(now_ms));
            Ok(())
        })
    }
}

/// An editor event in its JSON form, e.g.
/// `{"type":"selectionChanged","path":"/p/a.cpp","text":"x","selection":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}}}`.
/// The text is only read during the call.
///
/// # Safety
/// `engine` is a live handle not in use on another thread; `event_json` is NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_engine_handle_editor_event(
    engine: *mut IdelinkEngine,
    now_ms: u64,
    event_json: *const c_char,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(engine, |e| {
            let event: EditorEvent = form(event_json, "event_json")?;
            e.handle_editor_event(now(now_ms), &event);
            Ok(())
        })
    }
}

/// The editor's whole visible state, once per frame (see `IdelinkSnapshot`): its difference
/// from the previous snapshot acts as the equivalent editor events (nothing when nothing
/// changed: no allocation, nothing sent; one push when the caret moved). `*changes` (NULL
/// allowed) receives what changed; `workspace_folders` means the editor's lock file needs its
/// folders rewritten. The snapshot is only read during the call.
///
/// # Safety
/// `engine` is a live handle not in use on another thread; `snapshot` points to a valid
/// `IdelinkSnapshot` (see its fields); `changes` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_engine_handle_snapshot(
    engine: *mut IdelinkEngine,
    now_ms: u64,
    snapshot: *const IdelinkSnapshot,
    changes: *mut IdelinkSnapshotChanges,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(engine, |e| {
            let made =
                crate::snapshot::read(snapshot, |view| e.handle_snapshot(now(now_ms), view))?;
            if let Some(out) = changes.as_mut() {
                *out = made.into();
            }
            Ok(())
        })
    }
}

/// The editor's answer to the tool call `id` (from a `toolCall` event), in the outcome's JSON
/// form: `{"outcome":"diffSaved","finalText":"…","originalText":"…"}` (`originalText`, the file's
/// text the diff was made from, optional), `{"outcome":"diffRejected"}`,
/// `{"outcome":"diffRefused","reason":"…"}`, … The text is only read during the call. An
/// accepted diff is followed by a `fileReplaced` event (`{"event":"fileReplaced","id":1,
/// "path":"…","text":"…"}`: the file's exact text once the CLI wrote it).
/// A read tool the engine configuration pulls from the editor (`"reads":{"getDiagnostics":
/// "editor"}`) arrives as a `toolCall` too (`{"tool":"getDiagnostics","path":"…"}`) and is
/// answered with its outcome (`{"outcome":"diagnostics","files":[{"path":"…","diagnostics":
/// […]}]}`); an outcome of another kind is refused with `IDELINK_ERROR_MISUSE`.
///
/// # Safety
/// `engine` is a live handle not in use on another thread; `outcome_json` is NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_engine_handle_tool_outcome(
    engine: *mut IdelinkEngine,
    now_ms: u64,
    id: u64,
    outcome_json: *const c_char,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(engine, |e| {
            let outcome: ToolOutcome = form(outcome_json, "outcome_json")?;
            e.handle_tool_outcome(now(now_ms), ToolCallId::from_u64(id), &outcome)
                .map_err(misuse)
        })
    }
}

/// The deadline from `idelink_engine_poll_timeout` came.
///
/// # Safety
/// `engine` is a live handle not in use on another thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_engine_handle_timeout(
    engine: *mut IdelinkEngine,
    now_ms: u64,
) -> IdelinkStatus {
    // SAFETY: the caller's obligation, stated above.
    unsafe {
        on(engine, |e| {
            e.handle_timeout(now(now_ms));
            Ok(())
        })
    }
}

/// The session list: every ready session, oldest first, as JSON text
/// (`[{"conn":1,"pid":4242,"folders":["/w"],"connectedAt":0,"chosen":false}]`; `folders` is
/// `null` until the client answered `roots/list`). With `sessionList` (or a routing rule) in
/// the config, each change also comes as a `sessionsChanged` event.
///
/// **Ownership:** `*sessions_json` is library-owned: free it with `idelink_string_free`.
///
/// # Safety
/// `engine` is a live handle not in use on another thread; `sessions_json` points to
/// writable storage.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_engine_sessions(
    engine: *mut IdelinkEngine,
    sessions_json: *mut *mut c_char,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(engine, |e| {
            let out = place(sessions_json, "sessions_json")?;
            *out = owned_string(forms::write(&e.sessions()));
            Ok(())
        })
    }
}

/// Chooses the session mentions go to (and, with `"routing":"chosen"`, every push):
/// `choice_json` is `{"by":"conn","conn":1}` or `{"by":"pid","pid":4242}` (a pid may be
/// chosen before its CLI connects); NULL chooses none. `IDELINK_ERROR_MISUSE` for a
/// connection that is not a session (nothing changes).
///
/// # Safety
/// `engine` is a live handle not in use on another thread; `choice_json` is NULL or
/// NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_engine_choose_session(
    engine: *mut IdelinkEngine,
    now_ms: u64,
    choice_json: *const c_char,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(engine, |e| {
            let choice: Option<SessionChoice> = if choice_json.is_null() {
                None
            } else {
                Some(form(choice_json, "choice_json")?)
            };
            e.choose_session(now(now_ms), choice).map_err(misuse)
        })
    }
}

/// The next thing to do, in causal order; call it after every input until it yields
/// `IDELINK_OUTPUT_NONE`. Fills `*out` (kind, conn, event_json).
///
/// **Ownership:** an `EVENT`'s `event_json` is library-owned: free it with
/// `idelink_string_free` (it outlives the engine).
///
/// # Safety
/// `engine` is a live handle not in use on another thread; `out` points to a writable
/// `IdelinkOutput`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_engine_poll_output(
    engine: *mut IdelinkEngine,
    out: *mut IdelinkOutput,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(engine, |e| {
            let out = place(out, "out")?;
            *out = encode(e.poll_output())?;
            Ok(())
        })
    }
}

fn encode(output: Option<Output>) -> Result<IdelinkOutput, (IdelinkStatus, String)> {
    let (kind, conn, event_json) = match output {
        None => (
            IdelinkOutputKind::IdelinkOutputNone,
            0,
            std::ptr::null_mut(),
        ),
        Some(Output::Transmit { conn }) => (
            IdelinkOutputKind::IdelinkOutputTransmit,
            conn.as_u64(),
            std::ptr::null_mut(),
        ),
        Some(Output::CloseTransport { conn }) => (
            IdelinkOutputKind::IdelinkOutputCloseTransport,
            conn.as_u64(),
            std::ptr::null_mut(),
        ),
        Some(Output::Event(event)) => {
            let text = forms::write(&event);
            (IdelinkOutputKind::IdelinkOutputEvent, 0, owned_string(text))
        }
        Some(other) => {
            return Err(misuse(format_args!(
                "an output this version of the C binding does not know: {other:?}"
            )));
        }
    };
    Ok(IdelinkOutput {
        kind,
        conn,
        event_json,
    })
}

/// When the engine next needs `idelink_engine_handle_timeout`: `*has_deadline` receives whether there
/// is a deadline, `*at_ms` the time on the editor's clock (0 when there is none).
///
/// # Safety
/// `engine` is a live handle not in use on another thread; `has_deadline` and `at_ms` point to
/// writable storage.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_engine_poll_timeout(
    engine: *mut IdelinkEngine,
    has_deadline: *mut bool,
    at_ms: *mut u64,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(engine, |e| {
            let has_deadline = place(has_deadline, "has_deadline")?;
            let at_ms = place(at_ms, "at_ms")?;
            let deadline = e.poll_timeout();
            *has_deadline = deadline.is_some();
            *at_ms = deadline.map_or(0, Timestamp::as_millis);
            Ok(())
        })
    }
}

/// The bytes waiting to be written to `conn` (empty for an unknown connection): `*data`
/// receives a pointer to them, `*len` their count.
///
/// **Ownership and lifetime:** the engine owns the bytes (no copy is made); they stay valid
/// until the next call on this engine, so write them, then call `idelink_engine_handle_sent`.
///
/// # Safety
/// `engine` is a live handle not in use on another thread; `data` and `len` point to writable
/// storage.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_engine_outbound(
    engine: *mut IdelinkEngine,
    conn: u64,
    data: *mut *const u8,
    len: *mut usize,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(engine, |e| {
            let data = place(data, "data")?;
            let len = place(len, "len")?;
            let bytes = e.outbound(ConnId::from_u64(conn));
            *data = bytes.as_ptr();
            *len = bytes.len();
            Ok(())
        })
    }
}
