//! Core's resume rules ([`idelink_core::host_rules::resume`]) for the Node host
//! (`lib/resume.js`), through their text forms (`resume::text`): the record's name and body,
//! the file rule, whether a record may be resumed, which leftovers go, the heartbeat. JS reads
//! the directory, the files' facts and the clock, asks whether pids are alive, and passes record
//! bodies as text.

use crate::error::throw;
use idelink_core::host_rules::resume::{ResumeRecord, text};
use napi_derive::napi;

/// A JS number of milliseconds as core's; negative and fractional parts dropped.
fn millis(ms: f64) -> u64 {
    // `as` saturates: NaN and negatives become 0, anything past u64::MAX becomes u64::MAX.
    ms as u64
}

/// `"<port>.resume"`.
#[napi]
pub fn resume_record_file_name(port: u16) -> String {
    ResumeRecord::file_name(port)
}

/// The port a record's file name stands for, or `null` for any other name.
#[napi]
pub fn resume_record_port(name: String) -> Option<u16> {
    ResumeRecord::port_from_file_name(&name)
}

/// The record body for `port`, running or stopped, written at `atMs` (ms since the Unix
/// epoch), around the lock body `lockJson` (what `lockFileJson` wrote). Throws for a bad body.
#[napi]
pub fn resume_record_json(
    port: u16,
    running: bool,
    at_ms: f64,
    lock_json: String,
) -> napi::Result<String> {
    text::record_json(port, running, millis(at_ms), &lock_json)
        .ok_or_else(|| throw("lockJson is not a lock file body"))
}

/// True when `body` is a record of the editor `ideName` serving `workspaceFolders`.
#[napi]
pub fn resume_record_for(body: String, ide_name: String, workspace_folders: Vec<String>) -> bool {
    text::record_is_for(&body, &ide_name, &workspace_folders)
}

/// `null` when a record file of `kind` (`"regular"`, `"symlink"`, `"other"`), owned by
/// `owner` with permission bits `mode`, may be read by user `me`; else why not.
#[napi]
pub fn judge_resume_file(kind: String, owner: u32, mode: u32, me: u32) -> Option<String> {
    text::file_refusal(&kind, owner, mode, me)
}

/// `null` when the record `body` may be resumed at `nowMs` (its pid alive or not, the lock at
/// its port `"missing"`, `"oursStale"` or `"other"`); else why not.
#[napi]
pub fn may_resume(
    body: String,
    now_ms: f64,
    owner_alive: bool,
    lock_at_port: String,
) -> Option<String> {
    text::refusal(&body, millis(now_ms), owner_alive, &lock_at_port)
}

/// True when a starting host of `ideName` serving `workspaceFolders` removes the record
/// `body` it does not resume; false for anything that is not a record.
#[napi]
pub fn resume_leftover(
    body: String,
    ide_name: String,
    workspace_folders: Vec<String>,
    now_ms: f64,
    owner_alive: bool,
) -> bool {
    text::leftover_removed(
        &body,
        &ide_name,
        &workspace_folders,
        millis(now_ms),
        owner_alive,
    )
}

/// True when a running host whose record was written at `writtenMs` writes it again.
#[napi]
pub fn resume_heartbeat_due(written_ms: f64, now_ms: f64) -> bool {
    text::heartbeat_is_due(millis(written_ms), millis(now_ms))
}
