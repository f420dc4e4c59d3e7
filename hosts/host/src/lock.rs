//! The lock file's life on disk: where it goes, how it is written so the token is never
//! readable by others, rewritten, restored when deleted, and removed. Every decision is core's
//! ([`idelink_core::host_rules`]); this module performs the system calls.
//!
//! Rules (docs/protocol.md §1; idelink-core's "Security" docs):
//! - directory `$CLAUDE_CONFIG_DIR/ide`, else `~/.claude/ide`. The config directory must be the
//!   user's and not writable by group or others; `ide/` is created 0700, refused when it is a
//!   symbolic link or another user's, tightened to 0700 when looser. On Unix both are opened
//!   once and every later operation is relative to the open `ide/` (`openat`, `renameat`,
//!   `unlinkat` with `O_NOFOLLOW`), so another user cannot swap `ide/` between check and use;
//! - written to a temporary name created 0600 with `O_EXCL`, then renamed into place, so the
//!   token never sits in a file with looser permissions, and readers never see half a file;
//! - at start, stale locks that are ours (our `ideName`, dead pid) are swept; a lock whose pid
//!   is alive is never deleted;
//! - restored when someone deletes it (the directory is opened and checked again first);
//!   removed when the guard drops;
//! - with resume on, a record (`<port>.resume`: the lock body, the port, running or stopped, the
//!   time) is written beside it the same owner-only way, refreshed by a heartbeat, and marked
//!   stopped when the guard drops, so a host started again soon can listen on the same port
//!   with the same token ([`find_resumable`]; core's `host_rules::resume`).

use idelink_core::host_rules::lock_dir::{ConfigDir, DirRefusal, LOCK_SUBDIR};
use idelink_core::host_rules::lock_life::{self, LockOnDisk, LockUpkeep};
use idelink_core::lockfile::LockFile;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

#[cfg(unix)]
#[path = "lock/dir_unix.rs"]
mod dir;
#[cfg(not(unix))]
#[path = "lock/dir_std.rs"]
mod dir;

mod read;
mod resume;

use dir::LockDir;
pub use read::read_lock_file;
use resume::RecordKeeper;
pub use resume::find_resumable;

pub use idelink_core::lockfile::MAX_LOCK_BYTES;

/// What went wrong with the lock file or its directory; the message says how to fix it.
#[derive(Debug)]
#[non_exhaustive]
pub enum LockError {
    /// A directory may not hold the lock (core's rule; its message says how to fix it).
    Refused(DirRefusal),
    /// A file system operation failed.
    Io {
        /// What was being done.
        action: &'static str,
        /// On which path.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
}

impl fmt::Display for LockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockError::Refused(refusal) => write!(f, "{refusal}"),
            LockError::Io {
                action,
                path,
                source,
            } => write!(f, "cannot {action} {}: {source}", path.display()),
        }
    }
}

impl std::error::Error for LockError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LockError::Io { source, .. } => Some(source),
            LockError::Refused(refusal) => Some(refusal),
        }
    }
}

impl From<DirRefusal> for LockError {
    fn from(refusal: DirRefusal) -> Self {
        LockError::Refused(refusal)
    }
}

fn io_error<'p, E: Into<io::Error>>(
    action: &'static str,
    path: &'p Path,
) -> impl FnOnce(E) -> LockError + 'p {
    move |source| LockError::Io {
        action,
        path: path.to_owned(),
        source: source.into(),
    }
}

/// The directory the CLI searches: `$CLAUDE_CONFIG_DIR/ide` when set, else `<home>/.claude/ide`.
/// Home is the CLI's, Node's `os.homedir()`: `%USERPROFILE%` on Windows (never `$HOME`), else
/// `$HOME` (`%USERPROFILE%` when `HOME` is not set).
pub fn default_lock_dir() -> Result<PathBuf, LockError> {
    let var = |name| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned());
    #[cfg(windows)]
    let home = var("USERPROFILE");
    #[cfg(not(windows))]
    let home = var("HOME").or_else(|| var("USERPROFILE"));
    let config = ConfigDir::locate(var("CLAUDE_CONFIG_DIR").as_deref(), home.as_deref())?;
    let mut dir: PathBuf = config.components().into_iter().collect();
    dir.push(LOCK_SUBDIR);
    Ok(dir)
}

/// True when a process with this pid exists (for another user too: never delete a lock
/// whose owner may be alive).
pub fn pid_is_alive(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Some(pid) = i32::try_from(pid)
            .ok()
            .and_then(rustix::process::Pid::from_raw)
        else {
            return false;
        };
        match rustix::process::test_kill_process(pid) {
            Ok(()) => true,
            Err(e) => e != rustix::io::Errno::SRCH,
        }
    }
    #[cfg(windows)]
    {
        crate::windows::pid_is_alive(pid)
    }
    #[cfg(not(any(unix, windows)))]
    {
        let _ = pid;
        true
    }
}

/// Removes the locks in `dir` that core judges ours and stale ([`lock_life::stale_lock_owner`]
/// with a dead owner). Returns the names removed.
fn sweep_stale(dir: &LockDir, ide_name: &str) -> Vec<String> {
    let mut removed = Vec::new();
    for name in dir.names() {
        let Some(body) = dir.read_small(&name) else {
            continue;
        };
        let stale = lock_life::stale_lock_owner(&name, &body, ide_name)
            .is_some_and(|pid| !pid_is_alive(pid));
        if stale && dir.remove(&name) {
            removed.push(name);
        }
    }
    removed
}

/// Writes `body` as `name` in `dir` through a fresh temporary file (core names it).
fn write_atomically(dir: &LockDir, name: &str, body: &str) -> Result<(), LockError> {
    static ATTEMPT: AtomicU64 = AtomicU64::new(0);
    loop {
        let attempt = ATTEMPT.fetch_add(1, Ordering::Relaxed);
        let temp = lock_life::temp_file_name(name, std::process::id(), attempt);
        if dir.write_via(&temp, name, body)? {
            return Ok(());
        }
    }
}

/// Owns `<dir>/<port>.lock` while it lives: written at creation, rewritten on demand,
/// restored when someone deletes it, removed on drop.
pub struct LockFileGuard {
    dir: LockDir,
    name: String,
    path: PathBuf,
    lock: LockFile,
    record: Option<RecordKeeper>,
}

impl fmt::Debug for LockFileGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LockFileGuard")
            .field("path", &self.path)
            .field("lock", &self.lock)
            .field("record", &self.record)
            .finish()
    }
}

impl LockFileGuard {
    /// Opens (creating it if needed) and checks `dir`, sweeps our stale locks and writes the
    /// lock for `port`.
    pub fn create(dir: &Path, port: u16, lock: LockFile) -> Result<Self, LockError> {
        LockFileGuard::create_with(dir, port, lock, false)
    }

    /// [`create`](Self::create), and keeps a resume record beside the lock (written now,
    /// refreshed by [`refresh_record`](Self::refresh_record), marked stopped on drop); the
    /// leftover records of earlier sessions of this editor and workspace are removed.
    pub fn create_keeping_record(dir: &Path, port: u16, lock: LockFile) -> Result<Self, LockError> {
        LockFileGuard::create_with(dir, port, lock, true)
    }

    fn create_with(
        dir: &Path,
        port: u16,
        lock: LockFile,
        keep_record: bool,
    ) -> Result<Self, LockError> {
        let dir = LockDir::open(dir)?;
        sweep_stale(&dir, &lock.ide_name);
        let name = LockFile::file_name(port);
        write_atomically(&dir, &name, &lock.to_json())?;
        let record = match keep_record {
            true => Some(RecordKeeper::start(&dir, port, &lock)?),
            false => None,
        };
        Ok(LockFileGuard {
            path: dir.path().join(&name),
            dir,
            name,
            lock,
            record,
        })
    }

    /// The lock file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The contents written.
    pub fn lock(&self) -> &LockFile {
        &self.lock
    }

    /// Replaces the contents (workspace folders changed, say), atomically, in the directory
    /// opened at creation.
    pub fn rewrite(&mut self, lock: LockFile) -> Result<(), LockError> {
        write_atomically(&self.dir, &self.name, &lock.to_json())?;
        if let Some(record) = self.record.as_mut() {
            record.relock(&self.dir, &lock)?;
        }
        self.lock = lock;
        Ok(())
    }

    /// Writes the resume record's time again when its heartbeat is due (core's
    /// `resume::heartbeat_due`); nothing without a record. A host calls it with every lock
    /// check: a crashed host's record then says when it was last seen serving.
    pub fn refresh_record(&mut self) -> Result<(), LockError> {
        match self.record.as_mut() {
            Some(record) => record.refresh(&self.dir),
            None => Ok(()),
        }
    }

    /// Writes the lock again when it is gone (the CLI deletes locks it thinks stale; a user may
    /// clean the folder), after opening and checking the directory again (it may have been
    /// removed too). Returns true when it had to be restored.
    pub fn restore_if_missing(&mut self) -> Result<bool, LockError> {
        let found = if self.dir.exists(&self.name)? {
            LockOnDisk::Present
        } else {
            LockOnDisk::Missing
        };
        match LockUpkeep::after_check(found) {
            LockUpkeep::Keep => Ok(false),
            LockUpkeep::Restore => {
                self.dir = LockDir::open(self.dir.path())?;
                write_atomically(&self.dir, &self.name, &self.lock.to_json())?;
                Ok(true)
            }
        }
    }
}

impl Drop for LockFileGuard {
    fn drop(&mut self) {
        // The record first: a host started again once the lock is gone finds it stopped.
        if let Some(record) = self.record.as_mut() {
            record.stop(&self.dir);
        }
        // Best effort: the file may already be gone, and a drop cannot report.
        let _ = self.dir.remove(&self.name);
    }
}

// Unix modes, owners and symbolic links; the Windows counterparts (owner-only DACLs, the sweep
// with a real liveness check) are in `windows/tests.rs`.
#[cfg(all(test, unix))]
mod tests;
