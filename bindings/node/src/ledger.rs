//! The turn ledger's entry points over an engine handle (docs/protocol.md, "A turn's
//! signals"): the ledger value, the host's answers to `ledgerRead` and `ledgerWrite`, a file
//! watcher's report, and an undo. Each converts its arguments and makes the one engine call.

use crate::convert::{from_js_json, json_text, timestamp, whole_number};
use crate::error::throw;
use crate::registry::with;
use idelink_core::ledger::{FileContent, UndoTarget};
use napi::Env;
use napi::bindgen_prelude::Unknown;
use napi_derive::napi;

/// `Engine::ledger`: the JSON text of its turns, oldest first.
#[napi]
pub fn engine_ledger(handle: f64) -> napi::Result<String> {
    with(handle, |e| Ok(json_text(e.ledger())))
}

/// `Engine::handle_ledger_read`: the content (its JSON form) the host read for `read`.
#[napi]
pub fn engine_handle_ledger_read(
    env: Env,
    handle: f64,
    now: f64,
    read: f64,
    content: Unknown,
) -> napi::Result<()> {
    let (now, read) = (timestamp(now)?, whole_number(read, "read")?);
    let content: FileContent = from_js_json(&env, content)?;
    with(handle, |e| {
        e.handle_ledger_read(now, read, &content).map_err(throw)
    })
}

/// `Engine::handle_ledger_written`: what the file holds after the host's write `write`.
#[napi]
pub fn engine_handle_ledger_written(
    env: Env,
    handle: f64,
    now: f64,
    write: f64,
    now_holds: Unknown,
) -> napi::Result<()> {
    let (now, write) = (timestamp(now)?, whole_number(write, "write")?);
    let now_holds: FileContent = from_js_json(&env, now_holds)?;
    with(handle, |e| {
        e.handle_ledger_written(now, write, &now_holds)
            .map_err(throw)
    })
}

/// `Engine::handle_file_seen`: the watcher saw `path` change from `previous` to `content`.
#[napi]
pub fn engine_handle_file_seen(
    env: Env,
    handle: f64,
    now: f64,
    path: String,
    content: Unknown,
    previous: Unknown,
) -> napi::Result<()> {
    let now = timestamp(now)?;
    let content: FileContent = from_js_json(&env, content)?;
    let previous: FileContent = from_js_json(&env, previous)?;
    with(handle, |e| {
        e.handle_file_seen(now, &path, &content, &previous);
        Ok(())
    })
}

/// `Engine::ledger_undo`: throws the refusal's reason.
#[napi]
pub fn engine_ledger_undo(env: Env, handle: f64, now: f64, target: Unknown) -> napi::Result<()> {
    let now = timestamp(now)?;
    let target: UndoTarget = from_js_json(&env, target)?;
    with(handle, |e| e.ledger_undo(now, &target).map_err(throw))
}
