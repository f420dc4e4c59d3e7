//! Resuming a host after a restart (docs/protocol.md §1, "Reconnects and resume"): when a host
//! that stopped (cleanly, or by a crash) starts again soon for the same editor and workspace, it
//! may listen on its old port with its old token, so the `claude` that was connected to it
//! reconnects on its own.
//!
//! Why the port and the token: when the IDE's socket closes, the CLI redials the same URL with
//! the same token and never reads the lock directory again (the CLI's bundled code: the
//! `"transport closed/disconnected, attempting automatic reconnection"` loop, `Rfe=5` attempts,
//! delays from `O3n(attempt)` = `Dl({attempt, baseMs: 1000, capMs: 30000})`, doubling with a
//! symmetric 25 % jitter). A host back on another port or with another token strands it until
//! the user types `/ide`.
//!
//! What a host keeps, beside its lock, is a [`ResumeRecord`]: the lock body plus the port, the
//! state (running or stopped) and a wall-clock time, written owner-only like the lock (the token
//! is in it). The host reads the directory, the files' facts and bodies, asks whether pids are
//! alive and whether the port binds; these functions decide:
//! - [`judge_record_file`]: may this file be read as a record at all (a regular file of this
//!   user that nobody else can read);
//! - [`may_resume`]: may this record be resumed now;
//! - [`leftover`]: what happens to a record a starting host does not resume;
//! - [`heartbeat_due`]: when a running host writes its record's time again.

use std::fmt;

use crate::ide::{PathStyle, normalize_path};
use crate::json;
use crate::lockfile::LockFile;

/// The CLI's reconnect delays after a failed attempt, in milliseconds, before jitter: attempt
/// `n` waits `1000 · 2^(n-1)` (the CLI's bundled code: `Rfe=5,r=1000,n=30000` and `Dl` with
/// `factor:2`). The first attempt follows the close at once; five attempts, four waits.
pub const CLI_RECONNECT_DELAYS_MS: [u64; 4] = [1_000, 2_000, 4_000, 8_000];

/// The CLI's jitter on each delay, in percent either way (`Dl`'s default
/// `{kind:"symmetric",ratio:0.25}`).
pub const CLI_RECONNECT_JITTER_PERCENT: u64 = 25;

/// The longest time after the close at which the CLI still dials, in milliseconds: the sum of
/// [`CLI_RECONNECT_DELAYS_MS`] with every delay at its longest jitter (15 s · 1.25 = 18.75 s).
/// After its fifth failed attempt the CLI logs "Max reconnection attempts (5) reached, giving
/// up" and waits for `/ide`.
pub const CLI_RECONNECT_SPAN_MS: u64 = {
    let mut sum = 0;
    let mut at = 0;
    while at < CLI_RECONNECT_DELAYS_MS.len() {
        sum += CLI_RECONNECT_DELAYS_MS[at];
        at += 1;
    }
    sum * (100 + CLI_RECONNECT_JITTER_PERCENT) / 100
};

/// How often a running host writes its record's time again, in milliseconds. A crashed host
/// cannot say when it stopped; its record's time is then its last heartbeat, at most this long
/// before the crash. Every 5 s keeps the writes rare (one small file, renamed into place).
pub const RESUME_HEARTBEAT_MS: u64 = 5_000;

/// How long after a record's time a host may still resume it, in milliseconds. A claude that
/// lost its IDE dials for [`CLI_RECONNECT_SPAN_MS`] after the close, and a crashed host's time
/// may be up to [`RESUME_HEARTBEAT_MS`] older than its crash: 18.75 s + 5 s, rounded up to 25 s.
/// Later, no claude is dialling the old port any more, so a host starts fresh.
pub const RESUME_WINDOW_MS: u64 = 25_000;

const _: () = assert!(RESUME_WINDOW_MS >= CLI_RECONNECT_SPAN_MS + RESUME_HEARTBEAT_MS);

/// A record's file name ends so: `<port>.resume`, beside `<port>.lock` (the CLI reads only
/// names ending in `.lock`).
const RECORD_SUFFIX: &str = ".resume";

/// Whether the host that wrote a record was serving or had stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordState {
    /// Written at start and by each heartbeat: the host serves, unless its pid is dead (then it
    /// crashed).
    Running,
    /// Written by a clean stop, after its last socket closed and before its lock was removed.
    Stopped,
}

impl RecordState {
    fn as_str(self) -> &'static str {
        match self {
            RecordState::Running => "running",
            RecordState::Stopped => "stopped",
        }
    }
}

/// What a host keeps to resume: `<port>.resume` beside the locks.
///
/// `Debug` prints the token as `<redacted>` (the lock's `Debug`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResumeRecord {
    /// The port the host listened on.
    pub port: u16,
    /// Serving or stopped.
    pub state: RecordState,
    /// When it was written, in milliseconds since the Unix epoch (wall clock: the record
    /// outlives the process, and so its monotonic clock).
    pub at_unix_ms: u64,
    /// The lock the host wrote: pid, workspace folders, editor name, token.
    pub lock: LockFile,
}

impl ResumeRecord {
    /// The record's file name for `port`: `"<port>.resume"`.
    pub fn file_name(port: u16) -> String {
        format!("{port}{RECORD_SUFFIX}")
    }

    /// The port a record's file name stands for, the inverse of [`ResumeRecord::file_name`];
    /// `None` for any other name (temporary files and locks included).
    pub fn port_from_file_name(name: &str) -> Option<u16> {
        let digits = name.strip_suffix(RECORD_SUFFIX)?;
        let port: u16 = digits.parse().ok()?;
        (port != 0 && ResumeRecord::file_name(port) == name).then_some(port)
    }

    /// The body: `{"port":…,"state":"running"|"stopped","atMs":…,` then the lock body's members
    /// ([`LockFile::to_json`]).
    pub fn to_json(&self) -> String {
        let mut out = Vec::with_capacity(192);
        out.extend_from_slice(b"{\"port\":");
        crate::json::push_u64(&mut out, self.port.into());
        out.extend_from_slice(b",\"state\":\"");
        out.extend_from_slice(self.state.as_str().as_bytes());
        out.extend_from_slice(b"\",\"atMs\":");
        crate::json::push_u64(&mut out, self.at_unix_ms);
        out.push(b',');
        let lock = self.lock.to_json();
        // The lock body is an object: its members follow ours.
        out.extend_from_slice(lock.as_bytes().get(1..).unwrap_or_default());
        String::from_utf8_lossy(&out).into_owned()
    }

    /// Reads a record body; `None` for anything [`ResumeRecord::to_json`] would not write
    /// (a record is only ever written by a host, so anything else is not resumed).
    pub fn parse(text: &str) -> Option<ResumeRecord> {
        let lock = LockFile::parse(text).ok()?;
        // The lock's reading accepted the text: its fields are read the same way.
        let object = json::unwrapped(text);
        let port = json::unsigned(&json::field(&object, "port")?)
            .and_then(|port| u16::try_from(port).ok())
            .filter(|&port| port != 0)?;
        let state = match json::text(&json::field(&object, "state")?)?.as_ref() {
            "running" => RecordState::Running,
            "stopped" => RecordState::Stopped,
            _ => return None,
        };
        let at_unix_ms = json::unsigned(&json::field(&object, "atMs")?)?;
        Some(ResumeRecord {
            port,
            state,
            at_unix_ms,
            lock,
        })
    }

    /// True when the record is for the editor `ide_name` serving `workspace_folders` (each
    /// compared as the lock writes it: Windows folders with forward slashes).
    pub fn is_for(&self, ide_name: &str, workspace_folders: &[String]) -> bool {
        let spelled = |folder: &str| normalize_path(folder, PathStyle::Posix).into_owned();
        self.lock.ide_name == ide_name
            && self.lock.workspace_folders.len() == workspace_folders.len()
            && self
                .lock
                .workspace_folders
                .iter()
                .zip(workspace_folders)
                .all(|(kept, ours)| spelled(kept) == spelled(ours))
    }
}

/// What a record file turned out to be, on the handle it was opened as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A regular file.
    Regular,
    /// A symbolic link (an `O_NOFOLLOW` open failed with `ELOOP`, or `lstat` said so).
    Symlink,
    /// Anything else (a directory, a FIFO, a device).
    Other,
}

impl FileKind {
    /// The kind a JS host names (`"regular"`, `"symlink"`, `"other"`), as the Node and wasm
    /// bindings pass it; `None` for any other name.
    pub fn named(name: &str) -> Option<FileKind> {
        match name {
            "regular" => Some(FileKind::Regular),
            "symlink" => Some(FileKind::Symlink),
            "other" => Some(FileKind::Other),
            _ => None,
        }
    }
}

/// What the host learnt about a record file. On Windows, where there are no uids or modes, the
/// host sets `owner` to `me` and `mode` to `0o600` only when the file's DACL grants the current
/// user alone (the check the lock directory gets), and `mode` to `0o666` otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileFacts {
    /// Its kind.
    pub kind: FileKind,
    /// The owner's uid.
    pub owner: u32,
    /// The permission bits (`st_mode & 0o7777`).
    pub mode: u32,
}

/// Why a host did not resume; the message says what happened (hosts show it when they start
/// fresh).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NotResumed {
    /// No record for this editor and workspace.
    NoRecord,
    /// The record file is a symbolic link.
    RecordIsSymlink,
    /// The record file is not a regular file.
    RecordNotAFile,
    /// The record file belongs to another user.
    RecordOwnedByOther {
        /// Its owner's uid.
        owner: u32,
        /// This user's uid.
        me: u32,
    },
    /// The record file can be read or written by group or others (or, on Windows, its DACL
    /// grants someone else): the token in it may be known.
    RecordNotPrivate {
        /// Its permission bits.
        mode: u32,
    },
    /// The record is older than [`RESUME_WINDOW_MS`]: no claude is dialling its port any more.
    Expired {
        /// How old, in milliseconds.
        age_ms: u64,
    },
    /// The record's time is later than now (the clock moved back): its age is unknown.
    FromTheFuture,
    /// The host that wrote it is still serving (its state is running and its pid is alive).
    OwnerRunning {
        /// Its pid.
        pid: u32,
    },
    /// A lock file at the record's port belongs to a live process or to another editor.
    LockHeld {
        /// The port.
        port: u16,
    },
    /// The record's token is not a token.
    BadToken,
    /// The record's port is in use.
    PortBusy {
        /// The port.
        port: u16,
    },
}

impl fmt::Display for NotResumed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotResumed::NoRecord => write!(f, "no recent session of this editor and workspace"),
            NotResumed::RecordIsSymlink => write!(f, "the resume record is a symbolic link"),
            NotResumed::RecordNotAFile => write!(f, "the resume record is not a regular file"),
            NotResumed::RecordOwnedByOther { owner, me } => write!(
                f,
                "the resume record belongs to uid {owner}, not to this user (uid {me})"
            ),
            NotResumed::RecordNotPrivate { mode } => write!(
                f,
                "the resume record is readable by others (mode {mode:04o}), so its token may \
                 be known"
            ),
            NotResumed::Expired { age_ms } => write!(
                f,
                "the last session stopped {} s ago, after claude stopped reconnecting",
                age_ms / 1_000
            ),
            NotResumed::FromTheFuture => {
                write!(
                    f,
                    "the resume record is dated in the future (the clock moved back)"
                )
            }
            NotResumed::OwnerRunning { pid } => {
                write!(f, "the session's host (pid {pid}) is still serving")
            }
            NotResumed::LockHeld { port } => {
                write!(
                    f,
                    "the lock of port {port} belongs to a live process or another editor"
                )
            }
            NotResumed::BadToken => write!(f, "the resume record's token is not a token"),
            NotResumed::PortBusy { port } => write!(f, "port {port} is in use"),
        }
    }
}

impl std::error::Error for NotResumed {}

/// May the file a host opened as a record (described by `facts`) be read as one by the user
/// `me`? It must be a regular file (never a link: it could point at anyone's file), of `me`, and
/// private (no permission bit for group or others: the token is in it).
pub fn judge_record_file(facts: FileFacts, me: u32) -> Result<(), NotResumed> {
    match facts.kind {
        FileKind::Regular => {}
        FileKind::Symlink => return Err(NotResumed::RecordIsSymlink),
        FileKind::Other => return Err(NotResumed::RecordNotAFile),
    }
    if facts.owner != me {
        return Err(NotResumed::RecordOwnedByOther {
            owner: facts.owner,
            me,
        });
    }
    if facts.mode & 0o077 != 0 {
        return Err(NotResumed::RecordNotPrivate { mode: facts.mode });
    }
    Ok(())
}

/// What sits at the record's `<port>.lock`, as the host found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockAtPort {
    /// Nothing.
    Missing,
    /// One of our stale locks (our editor name, dead pid: the start's sweep removes it).
    OursStale,
    /// Anything else: a live process's lock, another editor's, or a file that is not a lock.
    Other,
}

impl LockAtPort {
    /// The finding a JS host names (`"missing"`, `"oursStale"`, `"other"`); `None` for any
    /// other name.
    pub fn named(name: &str) -> Option<LockAtPort> {
        match name {
            "missing" => Some(LockAtPort::Missing),
            "oursStale" => Some(LockAtPort::OursStale),
            "other" => Some(LockAtPort::Other),
            _ => None,
        }
    }
}

/// May `record` (already judged by [`judge_record_file`], and [`ResumeRecord::is_for`] this
/// editor and workspace) be resumed at `now_unix_ms`? `owner_alive` is whether its pid is alive,
/// `lock` what sits at its port's lock. A host that gets `Ok` binds exactly the record's port;
/// when that fails, it starts fresh ([`NotResumed::PortBusy`]).
///
/// The rules, in order: the record is at most [`RESUME_WINDOW_MS`] old and not from the future;
/// it was stopped, or its pid is dead (a running record of a live pid is a live host: never
/// taken over); no live process's or other editor's lock sits at its port; its token parses.
pub fn may_resume(
    record: &ResumeRecord,
    now_unix_ms: u64,
    owner_alive: bool,
    lock: LockAtPort,
) -> Result<(), NotResumed> {
    let age_ms = now_unix_ms
        .checked_sub(record.at_unix_ms)
        .ok_or(NotResumed::FromTheFuture)?;
    if age_ms > RESUME_WINDOW_MS {
        return Err(NotResumed::Expired { age_ms });
    }
    if record.state == RecordState::Running && owner_alive {
        return Err(NotResumed::OwnerRunning {
            pid: record.lock.pid,
        });
    }
    if lock == LockAtPort::Other {
        return Err(NotResumed::LockHeld { port: record.port });
    }
    crate::AuthToken::parse(&record.lock.auth_token).map_err(|_| NotResumed::BadToken)?;
    Ok(())
}

/// Of the records a starting host may resume, the one it tries: the newest (a later stop is the
/// session claude saw last).
pub fn newest(records: &[ResumeRecord]) -> Option<&ResumeRecord> {
    records.iter().max_by_key(|r| (r.at_unix_ms, r.port))
}

/// What a starting host does with a record it does not resume.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leftover {
    /// Leave it (another editor's, or a live host's).
    Keep,
    /// Delete it (ours and done with).
    Remove,
}

/// What a host of editor `ide_name` serving `workspace_folders`, starting at `now_unix_ms`, does
/// with a record it did not resume (its own new record aside). A record of a live running host
/// is never touched; nor is another editor's. Ours is removed when it is for the same workspace
/// (the new session supersedes it) or older than [`RESUME_WINDOW_MS`] (nobody can resume it).
pub fn leftover(
    record: &ResumeRecord,
    ide_name: &str,
    workspace_folders: &[String],
    now_unix_ms: u64,
    owner_alive: bool,
) -> Leftover {
    let live = record.state == RecordState::Running && owner_alive;
    if live || record.lock.ide_name != ide_name {
        return Leftover::Keep;
    }
    let expired = now_unix_ms.saturating_sub(record.at_unix_ms) > RESUME_WINDOW_MS;
    if expired || record.is_for(ide_name, workspace_folders) {
        Leftover::Remove
    } else {
        Leftover::Keep
    }
}

/// True when a running host whose record was last written at `written_unix_ms` writes it again
/// ([`RESUME_HEARTBEAT_MS`]); a clock that moved back counts as due.
pub fn heartbeat_due(written_unix_ms: u64, now_unix_ms: u64) -> bool {
    now_unix_ms
        .checked_sub(written_unix_ms)
        .is_none_or(|age| age >= RESUME_HEARTBEAT_MS)
}

pub mod text;

#[cfg(test)]
mod tests;
