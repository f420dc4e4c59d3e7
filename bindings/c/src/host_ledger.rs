//! The turn ledger at the host level (docs/protocol.md, "A turn's signals"): the same calls as
//! the engine level's (`ledger.rs`), on a running `IdelinkHost`. With `"engine":{"ledger":true}`
//! in the host's configuration, `idelink_host_next_event` hands the editor `ledgerRead` events
//! (answer each with `idelink_host_handle_ledger_read`: the file's content from its buffer when
//! it is open, else from disk) and, after an undo, `ledgerWrite` events (carry each out as a
//! compare-and-write, then `idelink_host_handle_ledger_written`); `turnChanged` events report
//! the ledger growing. What the calls lead to is written at once; events come with the next
//! `idelink_host_poll`.

use crate::args::{form, owned_string, place, text};
use crate::guard::misuse;
use crate::host::{IdelinkHost, on};
use crate::status::IdelinkStatus;
use idelink_core::forms;
use idelink_core::ledger::{FileContent, UndoTarget};
use std::ffi::c_char;

/// The turn ledger (`"engine":{"ledger":true}` in the config): every turn held, oldest first,
/// as JSON text, in `idelink_engine_ledger`'s form (`[{"id":1,"conn":1,"startedMs":0,
/// "closed":false,"files":[{"path":"/w/a","changedBy":"claude","reviewed":false,"baseline":…,
/// "current":…,"revision":1,"settled":true,"outsideChange":false,"hunks":[…]}]}]`).
///
/// **Ownership:** `*ledger_json` is library-owned: free it with `idelink_string_free`.
///
/// # Safety
/// `host` is a live handle not in use on another thread; `ledger_json` points to writable
/// storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_host_ledger(
    host: *mut IdelinkHost,
    ledger_json: *mut *mut c_char,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(host, |s| {
            let out = place(ledger_json, "ledger_json")?;
            *out = owned_string(forms::write(s.host.engine().ledger()));
            Ok(())
        })
    }
}

/// The editor's answer to a `ledgerRead` event (`{"event":"ledgerRead","read":1,"path":"…"}`):
/// what the file holds now, from the editor's buffer when it is open there, else from disk
/// (`{"kind":"text","text":"…"}`, `{"kind":"binary","bytes":2048,"digest":"…"}`,
/// `{"kind":"missing"}`, `{"kind":"unread","reason":"…"}`). The claude call waiting for it is
/// answered at once. `IDELINK_ERROR_MISUSE` for an unknown read (never asked, answered, or past
/// `ledgerReadDeadlineMs`: the engine answered claude without it).
///
/// # Safety
/// `host` is a live handle not in use on another thread; `content_json` is NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_host_handle_ledger_read(
    host: *mut IdelinkHost,
    read: u64,
    content_json: *const c_char,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(host, |s| {
            let content: FileContent = form(content_json, "content_json")?;
            s.host.handle_ledger_read(read, &content).map_err(misuse)
        })
    }
}

/// The editor carried out a `ledgerWrite` event's compare-and-write (`{"event":"ledgerWrite",
/// "write":1,"file":{"turn":1,"path":"…","expected":…,"text":"…"|null}}`: it writes `text`, or
/// deletes the file for `null`, only while the file holds `expected`; else it writes
/// nothing): `now_holds_json` is what the file holds afterwards, in
/// `idelink_host_handle_ledger_read`'s form. `IDELINK_ERROR_MISUSE` for an unknown write.
///
/// # Safety
/// `host` is a live handle not in use on another thread; `now_holds_json` is NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_host_handle_ledger_written(
    host: *mut IdelinkHost,
    write: u64,
    now_holds_json: *const c_char,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(host, |s| {
            let holds: FileContent = form(now_holds_json, "now_holds_json")?;
            s.host.handle_ledger_written(write, &holds).map_err(misuse)
        })
    }
}

/// The editor's file watcher saw `path` change with no claude call announcing it (a Bash
/// `sed`): `content_json` now, `previous_json` before (the editor's buffer or its last read),
/// both in `idelink_host_handle_ledger_read`'s form. Kept as "seen on disk".
///
/// # Safety
/// `host` is a live handle not in use on another thread; the three strings are
/// NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_host_handle_file_seen(
    host: *mut IdelinkHost,
    path: *const c_char,
    content_json: *const c_char,
    previous_json: *const c_char,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(host, |s| {
            let path = text(path, "path")?;
            let content: FileContent = form(content_json, "content_json")?;
            let previous: FileContent = form(previous_json, "previous_json")?;
            s.host.handle_file_seen(path, &content, &previous);
            Ok(())
        })
    }
}

/// Undoes a hunk, a file or a turn: `target_json` is
/// `{"undo":"hunk","turn":1,"path":"/w/a","revision":2,"hunk":0}`,
/// `{"undo":"file","turn":1,"path":"/w/a"}` or `{"undo":"turn","turn":1}`. The writes come
/// as `ledgerWrite` events with the next `idelink_host_poll`. `IDELINK_ERROR_MISUSE` when it is
/// refused (a later turn or a newer revision changed the file, an unknown turn, its text not
/// kept): `idelink_last_error_message` gives the reason; nothing is written.
///
/// # Safety
/// `host` is a live handle not in use on another thread; `target_json` is NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idelink_host_ledger_undo(
    host: *mut IdelinkHost,
    target_json: *const c_char,
) -> IdelinkStatus {
    // SAFETY: the caller's obligations, stated above.
    unsafe {
        on(host, |s| {
            let target: UndoTarget = form(target_json, "target_json")?;
            s.host.ledger_undo(&target).map_err(misuse)
        })
    }
}
