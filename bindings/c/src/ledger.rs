//! The turn ledger at the engine level (docs/protocol.md, "A turn's signals"): the ledger as
//! JSON text, the host's answers to the `ledgerRead` and `ledgerWrite` events, a file
//! watcher's report, and an undo. Each checks its arguments and makes the one `Engine` call.

use crate::args::{form, owned_string, place, text};
use crate::engine::{IdelinkEngine, now, on};
use crate::guard::misuse;
use crate::status::IdelinkStatus;
use idelink_core::forms;
use idelink_core::ledger::{FileContent, UndoTarget};
use std::ffi::c_char;

/// The turn ledger (`"ledger":true` in the config): every turn held, oldest first, as JSON
/// text (`[{"id":1,"conn":1,"startedMs":0,"closed":false,"files":[{"path":"/w/a",
/// "changedBy":"claude","reviewed":false,"baseline":{"kind":"text","text":"…"},"current":…,
/// "revision":1,"settled":true,"outsideChange":false,"hunks":[{"oldStart":1,"oldLines":1,
/// "newStart":1,"newLines":1}]}]}]`). `turnChanged` events report each change.
///
/// **Ownership:** `*ledger_json` is library-owned: free it with `idelink_string_free`.
///
/// # Safety
/// `engine` is a live handle not in use on another thread; `ledger_json` points to writable
/// storage.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_engine_ledger(
    engine: *mut IdelinkEngine,
    ledger_json: *mut *mut c_char,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(engine, |e| {
            let out = place(ledger_json, "ledger_json")?;
            *out = owned_string(forms::write(e.ledger()));
            Ok(())
        })
    }
}

/// The host's answer to a `ledgerRead` event (`{"event":"ledgerRead","read":1,"path":"…"}`):
/// what the file holds now, from the editor's buffer when it is open there, else from disk:
/// `{"kind":"text","text":"…"}`, `{"kind":"binary","bytes":2048,"digest":"…"}`,
/// `{"kind":"missing"}`, `{"kind":"unread","reason":"…"}`; `{"kind":"outside","reason":"…"}` when
/// it will not read it (outside the workspace once links are resolved: the file is left out
/// of the ledger). The claude call waiting for it is answered then. `IDELINK_ERROR_MISUSE` for an unknown read (never asked, answered, or past
/// `ledgerReadDeadlineMs`).
///
/// # Safety
/// `engine` is a live handle not in use on another thread; `content_json` is NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_engine_handle_ledger_read(
    engine: *mut IdelinkEngine,
    now_ms: u64,
    read: u64,
    content_json: *const c_char,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(engine, |e| {
            let content: FileContent = form(content_json, "content_json")?;
            e.handle_ledger_read(now(now_ms), read, &content)
                .map_err(misuse)
        })
    }
}

/// The host carried out a `ledgerWrite` event's compare-and-write (it writes `text`, or
/// deletes the file for `null`, only while the file holds `expected`; else it writes
/// nothing): `now_holds_json` is what the file holds afterwards, in the same form as
/// `idelink_engine_handle_ledger_read`'s. `IDELINK_ERROR_MISUSE` for an unknown write.
///
/// # Safety
/// `engine` is a live handle not in use on another thread; `now_holds_json` is
/// NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_engine_handle_ledger_written(
    engine: *mut IdelinkEngine,
    now_ms: u64,
    write: u64,
    now_holds_json: *const c_char,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(engine, |e| {
            let holds: FileContent = form(now_holds_json, "now_holds_json")?;
            e.handle_ledger_written(now(now_ms), write, &holds)
                .map_err(misuse)
        })
    }
}

/// The host's file watcher saw `path` change with no claude call announcing it (a Bash
/// `sed`): `content_json` now, `previous_json` before (the editor's buffer or the last
/// snapshot), both in `idelink_engine_handle_ledger_read`'s form. Kept as "seen on disk".
///
/// # Safety
/// `engine` is a live handle not in use on another thread; the three strings are
/// NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_engine_handle_file_seen(
    engine: *mut IdelinkEngine,
    now_ms: u64,
    path: *const c_char,
    content_json: *const c_char,
    previous_json: *const c_char,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(engine, |e| {
            let path = text(path, "path")?;
            let content: FileContent = form(content_json, "content_json")?;
            let previous: FileContent = form(previous_json, "previous_json")?;
            e.handle_file_seen(now(now_ms), path, &content, &previous);
            Ok(())
        })
    }
}

/// Undoes a hunk, a file or a turn: `target_json` is
/// `{"undo":"hunk","turn":1,"path":"/w/a","revision":2,"hunk":0}`,
/// `{"undo":"file","turn":1,"path":"/w/a"}` or `{"undo":"turn","turn":1}`. The writes come
/// as `ledgerWrite` events. `IDELINK_ERROR_MISUSE` when it is refused (the file changed again
/// since, an unknown turn): `idelink_last_error_message` gives the reason; nothing is
/// written.
///
/// # Safety
/// `engine` is a live handle not in use on another thread; `target_json` is NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_engine_ledger_undo(
    engine: *mut IdelinkEngine,
    now_ms: u64,
    target_json: *const c_char,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(engine, |e| {
            let target: UndoTarget = form(target_json, "target_json")?;
            e.ledger_undo(now(now_ms), &target).map_err(misuse)
        })
    }
}
