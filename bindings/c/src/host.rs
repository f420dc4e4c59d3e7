//! The host level: `idelink_host_*`, for editors that want no socket code. Wraps
//! `idelink_mio::Host` (loopback listener, auth token, lock file) and queues its events for
//! `idelink_host_next_event`.
//!
//! **Threads:** an `IdelinkHost` is not thread-safe: it may be created on one thread and used
//! on another (a dedicated I/O thread, say), but calls on one host must never overlap. An
//! `IdelinkWaker` is thread-safe: any thread may wake the host's blocked `idelink_host_poll`.

use crate::args::{form, owned_string, place, text};
use crate::guard::{CallResult, Guarded, guard, invalid, misuse, with_handle};
use crate::host_config;
use crate::host_link::LinkState;
use crate::snapshot::{IdelinkSnapshot, IdelinkSnapshotChanges};
use crate::status::{IdelinkStatus, fail};
use idelink_core::forms;
use idelink_core::link::AttachEvent;
use idelink_core::{EditorEvent, EngineEvent, ToolCallId, ToolOutcome};
use idelink_mio::{Host, HostError, ResumeOutcome, Waker};
use std::collections::VecDeque;
use std::ffi::c_char;
use std::sync::Arc;
use std::time::Duration;

/// A running host (opaque). Created by `idelink_host_start`, freed by `idelink_host_free`.
///
/// **Threads:** not thread-safe. It may move between threads (a dedicated I/O thread), but
/// calls on one host must never overlap; only its `IdelinkWaker` may be used concurrently.
pub struct IdelinkHost(Guarded<HostState>);

pub(crate) struct HostState {
    pub(crate) host: Host,
    /// Events served by `poll` and not yet taken by `idelink_host_next_event`.
    queue: VecDeque<Queued>,
    scratch: Vec<EngineEvent>,
    /// An attached remote link's name and news (`host_link.rs`).
    pub(crate) link: LinkState,
}

/// A queued event: the engine's, or an attached link's (after the engine's of the same poll).
enum Queued {
    Engine(EngineEvent),
    Link(AttachEvent),
}

impl HostState {
    fn park(&mut self) {
        self.queue
            .extend(self.scratch.drain(..).map(Queued::Engine));
        self.queue
            .extend(self.link.take().into_iter().map(Queued::Link));
    }
}

/// Wakes a host's blocked `idelink_host_poll` from any thread (opaque).
///
/// **Threads:** thread-safe: `idelink_waker_wake` may be called from any thread at any time.
pub struct IdelinkWaker(Arc<Waker>);

fn host_error(error: HostError) -> (IdelinkStatus, String) {
    match error {
        HostError::HeadlessNotEnabled => (
            IdelinkStatus::IdelinkErrorHeadless,
            "not serving: this is a headless or automated run; add \"serveWhenHeadless\":true \
             to config_json to open the socket and write the lock anyway"
                .to_owned(),
        ),
        other => (IdelinkStatus::IdelinkErrorIo, other.to_string()),
    }
}

/// Runs `body` on the host behind `host`.
///
/// # Safety
/// `host` is NULL or a live handle from `idelink_host_start` not in use on another thread.
pub(crate) unsafe fn on(
    host: *mut IdelinkHost,
    body: impl FnOnce(&mut HostState) -> CallResult,
) -> IdelinkStatus {
    // SAFETY: the caller's obligation, stated on every exported function.
    match unsafe { place(host, "host") } {
        Ok(handle) => with_handle(&mut handle.0, body),
        Err((status, message)) => fail(status, message),
    }
}

/// Starts a host: binds 127.0.0.1, mints the auth token from OS entropy and writes the lock
/// file the `claude` CLI discovers. `config_json`:
/// `{"ideName":"My Editor","workspaceFolders":["/home/me/project"]}` plus, optionally,
/// `"lock":"default"|"none"|{"dir":"/path"}`, `"port":0|40000|[40000,40100]`,
/// `"headless":true` (an automated run: then nothing is opened and the call returns
/// `IDELINK_ERROR_HEADLESS` unless `"serveWhenHeadless":true`), `"runningInWindows"`, `"pid"`,
/// `"pauseReadsAtBytes"`, `"resume":true` (take back the port and token of this editor's
/// session on these folders that stopped or crashed within 25 s, so a claude still
/// reconnecting rejoins: see `idelink_host_resumed`), `"engine":{…}` (the engine
/// configuration's JSON form). On success `*out` receives the handle.
///
/// **Ownership:** the caller owns the handle and frees it with `idelink_host_free` (which
/// removes the lock file). The string is only read during the call.
/// **Threads:** see `IdelinkHost`.
///
/// # Safety
/// `config_json` is NUL-terminated; `out` points to writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_host_start(
    config_json: *const c_char,
    out: *mut *mut IdelinkHost,
) -> IdelinkStatus {
    guard(|| {
        // SAFETY: writable storage for one pointer (caller's obligation).
        let out = unsafe { place(out, "out") }?;
        // SAFETY: NUL-terminated (caller's obligation).
        let config = unsafe { text(config_json, "config_json") }?;
        let config = host_config::parse(config)
            .map_err(|e| invalid(format_args!("invalid config_json: {e}")))?;
        let link = LinkState::new(config.ide_name.clone());
        let host = Host::start(config).map_err(host_error)?;
        let state = HostState {
            host,
            queue: VecDeque::new(),
            scratch: Vec::new(),
            link,
        };
        *out = Box::into_raw(Box::new(IdelinkHost(Guarded::new(state))));
        Ok(())
    })
}

/// Stops the host at once: closes its sockets and removes its lock file (call
/// `idelink_host_shutdown` first for a graceful close). NULL is ignored. Also the one call a
/// poisoned host accepts.
///
/// **Ownership:** takes back the handle; it must not be used afterwards. Wakers stay valid
/// (waking a freed host does nothing).
///
/// # Safety
/// `host` is NULL or a handle from `idelink_host_start` not freed yet and not in use on
/// another thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_host_free(host: *mut IdelinkHost) {
    if !host.is_null() {
        // A panic in a destructor is caught: nothing unwinds into C. Unwind-safe to assert:
        // the host is being dropped, so no state it holds is observed afterwards.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            // SAFETY: a handle from `Box::into_raw` in `idelink_host_start`, freed once
            // (caller's obligation).
            drop(unsafe { Box::from_raw(host) })
        }));
    }
}

/// `*port` receives the port the host listens on (127.0.0.1).
///
/// # Safety
/// `host` is a live handle not in use on another thread; `port` points to a writable
/// `uint16_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_host_port(
    host: *mut IdelinkHost,
    port: *mut u16,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(host, |s| {
            *place(port, "port")? = s.host.port();
            Ok(())
        })
    }
}

/// `*resumed` receives true when the host took back the last session's port and token
/// (`"resume":true` in its configuration, and a session of this editor on these folders that
/// stopped or crashed within 25 s, its port free), false when it started fresh. The message
/// saying which, and why not, is `idelink_host_resume_note`'s.
///
/// # Safety
/// `host` is a live handle not in use on another thread; `resumed` points to a writable `bool`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_host_resumed(
    host: *mut IdelinkHost,
    resumed: *mut bool,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(host, |s| {
            *place(resumed, "resumed")? = matches!(s.host.resume(), ResumeOutcome::Resumed { .. });
            Ok(())
        })
    }
}

/// `*note` receives how the host came to its port and token, in words for a log ("resumed the
/// last session on port 40123 …", "started a new session (port 40123 is in use)", "resume is
/// off"). It holds no token and nothing a peer sent.
///
/// **Ownership:** the text is library-owned: free it with `idelink_string_free`.
///
/// # Safety
/// `host` is a live handle not in use on another thread; `note` points to writable storage
/// for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_host_resume_note(
    host: *mut IdelinkHost,
    note: *mut *mut c_char,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(host, |s| {
            *place(note, "note")? = owned_string(s.host.resume().to_string());
            Ok(())
        })
    }
}

/// Serves the sockets: waits at most `timeout_ms` for activity or the engine's next deadline
/// (0: do not wait, the per-frame call; negative: until something happens, for a dedicated
/// thread woken by `idelink_waker_wake`), then queues what happened for
/// `idelink_host_next_event`.
///
/// # Safety
/// `host` is a live handle not in use on another thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_host_poll(
    host: *mut IdelinkHost,
    timeout_ms: i64,
) -> IdelinkStatus {
    let timeout = u64::try_from(timeout_ms).ok().map(Duration::from_millis);
    // SAFETY: the caller's obligation, stated above.
    unsafe {
        on(host, |s| {
            let polled = s.host.poll(timeout, &mut s.scratch);
            s.park();
            polled.map_err(|e| (IdelinkStatus::IdelinkErrorIo, format!("poll failed: {e}")))
        })
    }
}

/// Takes the oldest queued event: `*event_json` receives its JSON text
/// (`{"event":"connected","conn":1,"userAgent":"…"}`, `sessionReady`, `toolCall`,
/// `toolCallCancelled`, `fileReplaced`, `toolServed`, `messageTooLarge`, `contextWithheld`, `closed`;
/// with the turn ledger on also `ledgerRead`, `ledgerWrite` and `turnChanged`: see
/// `idelink_host_ledger`; with a remote link `linkHello` and `linkEnded`: see
/// `idelink_host_attach_link`), or NULL when the queue is empty.
///
/// **Ownership:** the text is library-owned: free it with `idelink_string_free` (it outlives
/// the host).
///
/// # Safety
/// `host` is a live handle not in use on another thread; `event_json` points to writable
/// storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_host_next_event(
    host: *mut IdelinkHost,
    event_json: *mut *mut c_char,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(host, |s| {
            let out = place(event_json, "event_json")?;
            let Some(event) = s.queue.front() else {
                *out = std::ptr::null_mut();
                return Ok(());
            };
            let text = match event {
                Queued::Engine(event) => forms::write(event),
                Queued::Link(event) => forms::write(event),
            };
            s.queue.pop_front();
            *out = owned_string(text);
            Ok(())
        })
    }
}

/// An editor event in its JSON form (`{"type":"documentActivated","path":"/p/a.cpp"}`,
/// `selectionChanged`, `documentOpened`, `diagnosticsChanged`, `workspaceFoldersChanged` (also
/// rewrites the lock file), `mention`, …). The text is only read during the call; events it
/// leads to come with the next `idelink_host_poll`.
///
/// # Safety
/// `host` is a live handle not in use on another thread; `event_json` is NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_host_handle_editor_event(
    host: *mut IdelinkHost,
    event_json: *const c_char,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(host, |s| {
            let event: EditorEvent = form(event_json, "event_json")?;
            s.host.handle_editor_event(&event).map_err(host_error)
        })
    }
}

/// The editor's whole visible state, once per frame (see `IdelinkSnapshot`): its difference
/// from the previous snapshot acts as the equivalent editor events, sent at once (nothing when
/// nothing changed: no allocation, nothing sent); other workspace folders also rewrite the
/// lock file. `*changes` (NULL allowed) receives what changed. The snapshot is only read
/// during the call.
///
/// # Safety
/// `host` is a live handle not in use on another thread; `snapshot` points to a valid
/// `IdelinkSnapshot` (see its fields); `changes` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_host_handle_snapshot(
    host: *mut IdelinkHost,
    snapshot: *const IdelinkSnapshot,
    changes: *mut IdelinkSnapshotChanges,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(host, |s| {
            let made = crate::snapshot::read(snapshot, |view| s.host.handle_snapshot(view))?
                .map_err(host_error)?;
            if let Some(out) = changes.as_mut() {
                *out = made.into();
            }
            Ok(())
        })
    }
}

/// The editor's answer to the tool call `id` (the `id` of a `toolCall` event), in the
/// outcome's JSON form: `{"outcome":"diffSaved","finalText":"…","originalText":"…"}` (the text
/// the user kept, and the file's text the diff was made from, optional),
/// `{"outcome":"diffRejected"}`, `{"outcome":"diffRefused","reason":"…"}`,
/// `{"outcome":"fileOpened"}`, `{"outcome":"failed","message":"…"}`. An accepted diff is
/// followed by a `fileReplaced` event: the file's exact text once the CLI wrote it.
/// Sent at once.
/// A read tool the engine configuration pulls from the editor (`"reads":{"getDiagnostics":
/// "editor"}`) arrives as a `toolCall` too (`{"tool":"getDiagnostics","path":"…"}`) and is
/// answered with its outcome (`{"outcome":"diagnostics","files":[{"path":"…","diagnostics":
/// […]}]}`); an outcome of another kind is refused with `IDELINK_ERROR_MISUSE`. The text is only read during the call.
///
/// # Safety
/// `host` is a live handle not in use on another thread; `outcome_json` is NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_host_handle_tool_outcome(
    host: *mut IdelinkHost,
    id: u64,
    outcome_json: *const c_char,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(host, |s| {
            let outcome: ToolOutcome = form(outcome_json, "outcome_json")?;
            s.host
                .handle_tool_outcome(ToolCallId::from_u64(id), &outcome)
                .map_err(misuse)
        })
    }
}

/// Closes every client (close 1001), serves them for up to `grace_ms` to finish, and removes
/// the lock file; the resulting events (`closed`) are queued. The host serves nothing
/// afterwards; free it with `idelink_host_free`.
///
/// # Safety
/// `host` is a live handle not in use on another thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_host_shutdown(
    host: *mut IdelinkHost,
    grace_ms: u32,
) -> IdelinkStatus {
    // SAFETY: the caller's obligation, stated above.
    unsafe {
        on(host, |s| {
            s.host
                .shutdown(Duration::from_millis(grace_ms.into()), &mut s.scratch);
            s.park();
            Ok(())
        })
    }
}

/// `*waker` receives a waker for this host: `idelink_waker_wake` makes a blocked
/// `idelink_host_poll` return, from any thread.
///
/// **Ownership:** the caller owns the waker and frees it with `idelink_waker_free`; it may
/// outlive the host.
///
/// # Safety
/// `host` is a live handle not in use on another thread; `waker` points to writable storage
/// for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_host_waker(
    host: *mut IdelinkHost,
    waker: *mut *mut IdelinkWaker,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(host, |s| {
            let out = place(waker, "waker")?;
            *out = Box::into_raw(Box::new(IdelinkWaker(s.host.waker())));
            Ok(())
        })
    }
}

/// Wakes the host's blocked `idelink_host_poll` (it returns, having served what is ready).
///
/// **Threads:** any thread, concurrently with every host call.
///
/// # Safety
/// `waker` is a live waker from `idelink_host_waker`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_waker_wake(waker: *const IdelinkWaker) -> IdelinkStatus {
    guard(|| {
        // SAFETY: a live waker (caller's obligation); only shared access is taken.
        let waker = unsafe { waker.as_ref() }.ok_or_else(|| invalid("waker is NULL"))?;
        waker.0.wake().map_err(|e| {
            (
                IdelinkStatus::IdelinkErrorIo,
                format!("cannot wake the host: {e}"),
            )
        })
    })
}

/// Frees a waker. NULL is ignored.
///
/// # Safety
/// `waker` is NULL or a waker from `idelink_host_waker` not freed yet, and no other thread is
/// using it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_waker_free(waker: *mut IdelinkWaker) {
    if !waker.is_null() {
        // SAFETY: from `Box::into_raw` in `idelink_host_waker`, freed once (caller's
        // obligation). Dropping an `Arc` does not panic.
        drop(unsafe { Box::from_raw(waker) });
    }
}
