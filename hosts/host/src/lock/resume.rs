//! The resume record's life on disk (`<port>.resume` beside the locks): found and judged at
//! start, written with the lock, refreshed by a heartbeat, marked stopped when the lock is
//! removed. Every decision is core's ([`idelink_core::host_rules::resume`]); this module reads
//! the directory, the files and the clock, and asks whether pids are alive.
//!
//! The record carries the token, so it is written as the lock is (a temporary file created
//! owner-only with `O_EXCL`, then renamed into place, in the directory opened and judged as the
//! lock's), and read only when it is a regular file of this user that nobody else may read
//! (`O_NOFOLLOW` and `fstat` on Unix, the DACL on Windows).

use super::dir::LockDir;
use super::{LockError, pid_is_alive, write_atomically};
use idelink_core::host_rules::lock_life;
use idelink_core::host_rules::resume::{
    self, Leftover, LockAtPort, NotResumed, RecordState, ResumeRecord,
};
use idelink_core::lockfile::LockFile;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch by this machine's clock (0 before 1970).
pub(super) fn unix_now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
        })
}

/// The user records must belong to: the effective uid on Unix; elsewhere the file's DACL
/// stands for ownership (`dir_std.rs`), and any number does.
fn current_user() -> u32 {
    #[cfg(unix)]
    {
        rustix::process::geteuid().as_raw()
    }
    #[cfg(not(unix))]
    {
        0
    }
}

/// The record a host of editor `ide_name` serving `workspace_folders` may resume from the lock
/// directory `dir` (created and judged as the lock's), or why there is none.
pub fn find_resumable(
    dir: &Path,
    ide_name: &str,
    workspace_folders: &[String],
) -> Result<Result<ResumeRecord, NotResumed>, LockError> {
    let dir = LockDir::open(dir)?;
    Ok(find_in(&dir, ide_name, workspace_folders, current_user()))
}

/// [`find_resumable`] in an open directory, on behalf of user `me`.
pub(super) fn find_in(
    dir: &LockDir,
    ide_name: &str,
    workspace_folders: &[String],
    me: u32,
) -> Result<ResumeRecord, NotResumed> {
    let now = unix_now_ms();
    let mut refused = None;
    let mut ours = Vec::new();
    for name in dir.names() {
        if ResumeRecord::port_from_file_name(&name).is_none() {
            continue;
        }
        let record = match dir.read_private(&name, me) {
            Ok(Some(text)) => ResumeRecord::parse(&text),
            Ok(None) => None,
            Err(why) => {
                refused.get_or_insert(why);
                None
            }
        };
        if let Some(record) = record.filter(|r| r.is_for(ide_name, workspace_folders)) {
            ours.push(record);
        }
    }
    let judged: Vec<(ResumeRecord, Result<(), NotResumed>)> = ours
        .into_iter()
        .map(|record| {
            let alive = pid_is_alive(record.lock.pid);
            let lock = lock_at(dir, record.port, ide_name);
            let verdict = resume::may_resume(&record, now, alive, lock);
            (record, verdict)
        })
        .collect();
    let resumable: Vec<ResumeRecord> = judged
        .iter()
        .filter(|(_, verdict)| verdict.is_ok())
        .map(|(record, _)| record.clone())
        .collect();
    if let Some(record) = resume::newest(&resumable) {
        return Ok(record.clone());
    }
    // Say why the newest of ours was refused; else why a record file could not be read.
    judged
        .into_iter()
        .max_by_key(|(record, _)| (record.at_unix_ms, record.port))
        .and_then(|(_, verdict)| verdict.err())
        .or(refused)
        .map_or(Err(NotResumed::NoRecord), Err)
}

/// What sits at `<port>.lock` in `dir`, as core's rules ask.
fn lock_at(dir: &LockDir, port: u16, ide_name: &str) -> LockAtPort {
    let name = LockFile::file_name(port);
    match dir.exists(&name) {
        Ok(false) => LockAtPort::Missing,
        Ok(true) => {
            let stale = dir
                .read_small(&name)
                .and_then(|body| lock_life::stale_lock_owner(&name, &body, ide_name))
                .is_some_and(|pid| !pid_is_alive(pid));
            if stale {
                LockAtPort::OursStale
            } else {
                LockAtPort::Other
            }
        }
        Err(_) => LockAtPort::Other,
    }
}

/// Deletes the records in `dir`, other than `port`'s, that core says a host of `ide_name`
/// serving `workspace_folders` is done with ([`resume::leftover`]).
fn remove_leftovers(dir: &LockDir, port: u16, ide_name: &str, workspace_folders: &[String]) {
    let now = unix_now_ms();
    for name in dir.names() {
        if ResumeRecord::port_from_file_name(&name).is_none_or(|p| p == port) {
            continue;
        }
        let Ok(Some(text)) = dir.read_private(&name, current_user()) else {
            continue;
        };
        let Some(record) = ResumeRecord::parse(&text) else {
            continue;
        };
        let alive = pid_is_alive(record.lock.pid);
        if resume::leftover(&record, ide_name, workspace_folders, now, alive) == Leftover::Remove {
            dir.remove(&name);
        }
    }
}

/// The record a running host keeps: written at start, again by each due heartbeat and each
/// lock rewrite, and as stopped when the host stops.
#[derive(Debug)]
pub(super) struct RecordKeeper {
    name: String,
    record: ResumeRecord,
}

impl RecordKeeper {
    /// Writes the running record for `port` and `lock` in `dir`, and removes the leftovers of
    /// earlier sessions of this editor and workspace.
    pub(super) fn start(dir: &LockDir, port: u16, lock: &LockFile) -> Result<Self, LockError> {
        let mut keeper = RecordKeeper {
            name: ResumeRecord::file_name(port),
            record: ResumeRecord {
                port,
                state: RecordState::Running,
                at_unix_ms: 0,
                lock: lock.clone(),
            },
        };
        keeper.write(dir, RecordState::Running)?;
        remove_leftovers(dir, port, &lock.ide_name, &lock.workspace_folders);
        Ok(keeper)
    }

    /// Writes the record with `state` and the time now.
    fn write(&mut self, dir: &LockDir, state: RecordState) -> Result<(), LockError> {
        self.record.state = state;
        self.record.at_unix_ms = unix_now_ms();
        write_atomically(dir, &self.name, &self.record.to_json())
    }

    /// Writes the record again when its heartbeat is due ([`resume::heartbeat_due`]).
    pub(super) fn refresh(&mut self, dir: &LockDir) -> Result<(), LockError> {
        if resume::heartbeat_due(self.record.at_unix_ms, unix_now_ms()) {
            self.write(dir, RecordState::Running)?;
        }
        Ok(())
    }

    /// Writes the record for a rewritten lock (new workspace folders).
    pub(super) fn relock(&mut self, dir: &LockDir, lock: &LockFile) -> Result<(), LockError> {
        self.record.lock = lock.clone();
        self.write(dir, RecordState::Running)
    }

    /// Writes the record as stopped (best effort: a stop cannot report).
    pub(super) fn stop(&mut self, dir: &LockDir) {
        let _ = self.write(dir, RecordState::Stopped);
    }
}

// Another user's record, played by judging our own file on behalf of another uid (the lock
// directory tests' way); Unix-only, as `lock/tests.rs`.
#[cfg(all(test, unix))]
mod tests;
