//! Core's resume rules ([`idelink_core::host_rules::resume`]) for a JS host that keeps a
//! resume record on disk (the npm package `idelink`'s `lib/resume.js` on this module), through
//! their text forms (`resume::text`): the same functions as the Node binding's. JS reads the
//! directory, the files' facts and the clock, asks whether pids are alive, and passes record
//! bodies as text.

use idelink_core::host_rules::resume::{ResumeRecord, text};
use wasm_bindgen::prelude::*;

/// A JS number of milliseconds as core's; negative and fractional parts dropped, as the Node
/// binding's (`as` saturates: NaN and negatives become 0, anything past `u64::MAX` that).
fn millis(ms: f64) -> u64 {
    ms as u64
}

/// `"<port>.resume"`.
#[wasm_bindgen(js_name = resumeRecordFileName)]
pub fn resume_record_file_name(port: u16) -> String {
    ResumeRecord::file_name(port)
}

/// The port a record's file name stands for, or `undefined` for any other name.
#[wasm_bindgen(js_name = resumeRecordPort)]
pub fn resume_record_port(name: &str) -> Option<u16> {
    ResumeRecord::port_from_file_name(name)
}

/// The record body for `port`, running or stopped, written at `atMs` (ms since the Unix
/// epoch), around the lock body `lockJson` (what `lockFileJson` wrote). Throws for a bad body.
#[wasm_bindgen(js_name = resumeRecordJson)]
pub fn resume_record_json(
    port: u16,
    running: bool,
    #[wasm_bindgen(js_name = atMs)] at_ms: f64,
    #[wasm_bindgen(js_name = lockJson)] lock_json: &str,
) -> Result<String, JsError> {
    text::record_json(port, running, millis(at_ms), lock_json)
        .ok_or_else(|| JsError::new("lockJson is not a lock file body"))
}

/// True when `body` is a record of the editor `ideName` serving `workspaceFolders`.
#[wasm_bindgen(js_name = resumeRecordFor)]
pub fn resume_record_for(
    body: &str,
    #[wasm_bindgen(js_name = ideName)] ide_name: &str,
    #[wasm_bindgen(js_name = workspaceFolders)] workspace_folders: Vec<String>,
) -> bool {
    text::record_is_for(body, ide_name, &workspace_folders)
}

/// `undefined` when a record file of `kind` (`"regular"`, `"symlink"`, `"other"`), owned by
/// `owner` with permission bits `mode`, may be read by user `me`; else why not.
#[wasm_bindgen(js_name = judgeResumeFile)]
pub fn judge_resume_file(kind: &str, owner: u32, mode: u32, me: u32) -> Option<String> {
    text::file_refusal(kind, owner, mode, me)
}

/// `undefined` when the record `body` may be resumed at `nowMs` (its pid alive or not, the
/// lock at its port `"missing"`, `"oursStale"` or `"other"`); else why not.
#[wasm_bindgen(js_name = mayResume)]
pub fn may_resume(
    body: &str,
    #[wasm_bindgen(js_name = nowMs)] now_ms: f64,
    #[wasm_bindgen(js_name = ownerAlive)] owner_alive: bool,
    #[wasm_bindgen(js_name = lockAtPort)] lock_at_port: &str,
) -> Option<String> {
    text::refusal(body, millis(now_ms), owner_alive, lock_at_port)
}

/// True when a starting host of `ideName` serving `workspaceFolders` removes the record
/// `body` it does not resume; false for anything that is not a record.
#[wasm_bindgen(js_name = resumeLeftover)]
pub fn resume_leftover(
    body: &str,
    #[wasm_bindgen(js_name = ideName)] ide_name: &str,
    #[wasm_bindgen(js_name = workspaceFolders)] workspace_folders: Vec<String>,
    #[wasm_bindgen(js_name = nowMs)] now_ms: f64,
    #[wasm_bindgen(js_name = ownerAlive)] owner_alive: bool,
) -> bool {
    text::leftover_removed(
        body,
        ide_name,
        &workspace_folders,
        millis(now_ms),
        owner_alive,
    )
}

/// True when a running host whose record was written at `writtenMs` writes it again.
#[wasm_bindgen(js_name = resumeHeartbeatDue)]
pub fn resume_heartbeat_due(
    #[wasm_bindgen(js_name = writtenMs)] written_ms: f64,
    #[wasm_bindgen(js_name = nowMs)] now_ms: f64,
) -> bool {
    text::heartbeat_is_due(millis(written_ms), millis(now_ms))
}
