//! The lock file's life on disk: where it goes, how it is written so the token is never
//! readable by others, rewritten, restored when deleted, and removed.
//!
//! Rules (DESIGN.md "Security rules", PROTOCOL.md §1):
//! - directory `$CLAUDE_CONFIG_DIR/ide`, else `~/.claude/ide`; created 0700; refused when it
//!   is a symlink or owned by another user;
//! - written to a temporary name created 0600 with `O_EXCL`, then renamed into place, so the
//!   token never sits in a file with looser permissions, and readers never see half a file;
//! - at start, stale locks that are ours (dead pid, our `ideName`) are swept; a lock whose pid
//!   is alive is never deleted;
//! - removed when the guard drops.

use idelink_core::lockfile::LockFile;
use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// What went wrong with the lock file or its directory; the message says how to fix it.
#[derive(Debug)]
#[non_exhaustive]
pub enum LockError {
    /// Neither `CLAUDE_CONFIG_DIR` nor `HOME` is set.
    NoConfigDir,
    /// The lock directory is a symbolic link (it could point anywhere).
    DirIsSymlink(PathBuf),
    /// The lock directory exists but is not a directory.
    NotADirectory(PathBuf),
    /// The lock directory belongs to another user.
    DirOwnedByOther {
        /// The directory.
        dir: PathBuf,
        /// Its owner's uid.
        owner: u32,
    },
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
            LockError::NoConfigDir => write!(
                f,
                "cannot find the Claude config directory: set CLAUDE_CONFIG_DIR or HOME"
            ),
            LockError::DirIsSymlink(dir) => write!(
                f,
                "refusing lock directory {}: it is a symbolic link; remove it or point \
                 CLAUDE_CONFIG_DIR at a real directory",
                dir.display()
            ),
            LockError::NotADirectory(dir) => {
                write!(f, "lock directory {} is not a directory", dir.display())
            }
            LockError::DirOwnedByOther { dir, owner } => write!(
                f,
                "refusing lock directory {}: it belongs to uid {owner}, not to this user",
                dir.display()
            ),
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
            _ => None,
        }
    }
}

fn io_error<'p>(action: &'static str, path: &'p Path) -> impl FnOnce(io::Error) -> LockError + 'p {
    move |source| LockError::Io {
        action,
        path: path.to_owned(),
        source,
    }
}

/// The directory the CLI searches: `$CLAUDE_CONFIG_DIR/ide` when set, else `$HOME/.claude/ide`.
pub fn default_lock_dir() -> Result<PathBuf, LockError> {
    #[cfg(not(windows))]
    let home = std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE"));
    // The CLI's home is Node's os.homedir(), which on Windows reads %USERPROFILE%, never $HOME.
    #[cfg(windows)]
    let home = std::env::var_os("USERPROFILE");
    lock_dir_from(std::env::var_os("CLAUDE_CONFIG_DIR"), home)
}

fn lock_dir_from(
    config_dir: Option<std::ffi::OsString>,
    home: Option<std::ffi::OsString>,
) -> Result<PathBuf, LockError> {
    match (config_dir.filter(|d| !d.is_empty()), home) {
        (Some(dir), _) => Ok(PathBuf::from(dir).join("ide")),
        (None, Some(home)) => Ok(PathBuf::from(home).join(".claude").join("ide")),
        (None, None) => Err(LockError::NoConfigDir),
    }
}

/// Creates `dir` (and parents) 0700 if missing; refuses a symlink, a non-directory, or a
/// directory of another user; tightens our own directory to 0700.
pub fn prepare_dir(dir: &Path) -> Result<(), LockError> {
    match fs::symlink_metadata(dir) {
        Ok(meta) => check_dir(dir, &meta),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            #[cfg(not(windows))]
            let created = {
                let mut builder = fs::DirBuilder::new();
                builder.recursive(true);
                #[cfg(unix)]
                std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
                builder.create(dir)
            };
            #[cfg(windows)]
            let created = crate::windows::create_private_dir_all(dir);
            created.map_err(io_error("create lock directory", dir))?;
            let meta = fs::symlink_metadata(dir).map_err(io_error("inspect", dir))?;
            check_dir(dir, &meta)
        }
        Err(e) => Err(io_error("inspect", dir)(e)),
    }
}

fn check_dir(dir: &Path, meta: &fs::Metadata) -> Result<(), LockError> {
    if meta.file_type().is_symlink() {
        return Err(LockError::DirIsSymlink(dir.to_owned()));
    }
    if !meta.is_dir() {
        return Err(LockError::NotADirectory(dir.to_owned()));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let me = rustix::process::geteuid().as_raw();
        if meta.uid() != me {
            return Err(LockError::DirOwnedByOther {
                dir: dir.to_owned(),
                owner: meta.uid(),
            });
        }
        if meta.mode() & 0o077 != 0 {
            fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
                .map_err(io_error("restrict permissions of", dir))?;
        }
    }
    #[cfg(windows)]
    {
        // The counterpart of 0700: a DACL granting only this user, nothing inherited.
        let me =
            crate::windows::current_user_sid().map_err(io_error("identify the user for", dir))?;
        let acl = crate::windows::dacl(dir).map_err(io_error("read the ACL of", dir))?;
        if !acl.is_owner_only(&me) {
            crate::windows::restrict_to_owner(dir)
                .map_err(io_error("restrict permissions of", dir))?;
        }
    }
    Ok(())
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
}

/// Removes the locks in `dir` that are ours and stale: `ideName` equals `ide_name` and the
/// pid is dead. Returns the paths removed. Unreadable files and other IDEs' locks are left.
pub fn sweep_stale(dir: &Path, ide_name: &str) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let is_lock = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(LockFile::port_from_file_name)
            .is_some();
        if !is_lock {
            continue;
        }
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        let Ok(lock) = LockFile::parse(&text) else {
            continue;
        };
        if lock.ide_name == ide_name && !pid_is_alive(lock.pid) && fs::remove_file(&path).is_ok() {
            removed.push(path);
        }
    }
    removed
}

/// Owns `<dir>/<port>.lock` while it lives: written at creation, rewritten on demand,
/// restored when someone deletes it, removed on drop.
#[derive(Debug)]
pub struct LockFileGuard {
    path: PathBuf,
    lock: LockFile,
}

impl LockFileGuard {
    /// Prepares `dir`, sweeps our stale locks and writes the lock for `port`.
    pub fn create(dir: &Path, port: u16, lock: LockFile) -> Result<Self, LockError> {
        prepare_dir(dir)?;
        sweep_stale(dir, &lock.ide_name);
        let guard = LockFileGuard {
            path: dir.join(LockFile::file_name(port)),
            lock,
        };
        write_atomically(&guard.path, &guard.lock.to_json())?;
        Ok(guard)
    }

    /// The lock file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The contents written.
    pub fn lock(&self) -> &LockFile {
        &self.lock
    }

    /// Replaces the contents (workspace folders changed, say), atomically.
    pub fn rewrite(&mut self, lock: LockFile) -> Result<(), LockError> {
        write_atomically(&self.path, &lock.to_json())?;
        self.lock = lock;
        Ok(())
    }

    /// Writes the lock again when it is gone (the CLI deletes locks it thinks stale; a user may
    /// clean the folder). Returns true when it had to be restored.
    pub fn restore_if_missing(&mut self) -> Result<bool, LockError> {
        match fs::symlink_metadata(&self.path) {
            Ok(_) => Ok(false),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if let Some(dir) = self.path.parent() {
                    prepare_dir(dir)?;
                }
                write_atomically(&self.path, &self.lock.to_json())?;
                Ok(true)
            }
            Err(e) => Err(io_error("inspect", &self.path)(e)),
        }
    }
}

impl Drop for LockFileGuard {
    fn drop(&mut self) {
        // Best effort: the file may already be gone, and a drop cannot report.
        let _ = fs::remove_file(&self.path);
    }
}

/// Writes `contents` to a fresh temporary file created 0600 with `O_EXCL` beside `path`, then
/// renames it over `path`: the token never lands in a file anyone else can read, and a reader
/// sees the old file or the new one, never half of one.
pub fn write_atomically(path: &Path, contents: &str) -> Result<(), LockError> {
    static NONCE: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("lock");
    let (tmp, mut file) = loop {
        let nonce = NONCE.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.{}.{nonce}.tmp", std::process::id()));
        #[cfg(not(windows))]
        let created = {
            let mut options = fs::OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            options.open(&tmp)
        };
        #[cfg(windows)]
        let created = crate::windows::create_private_file(&tmp);
        match created {
            Ok(file) => break (tmp, file),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io_error("create", &tmp)(e)),
        }
    };
    let written = file
        .write_all(contents.as_bytes())
        .and_then(|()| file.sync_all());
    drop(file);
    if let Err(e) = written.and_then(|()| fs::rename(&tmp, path)) {
        let _ = fs::remove_file(&tmp);
        return Err(io_error("write", path)(e));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("idelink-lock-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    fn lock(pid: u32, ide_name: &str) -> LockFile {
        LockFile {
            pid,
            workspace_folders: vec!["/w".into()],
            ide_name: ide_name.into(),
            auth_token: "0123456789abcdef0123456789abcdef".into(),
            running_in_windows: false,
        }
    }

    #[test]
    fn lock_dir_honours_claude_config_dir() {
        let dir = lock_dir_from(Some("/cfg".into()), Some("/home/u".into())).unwrap();
        assert_eq!(dir, PathBuf::from("/cfg/ide"));
        let dir = lock_dir_from(None, Some("/home/u".into())).unwrap();
        assert_eq!(dir, PathBuf::from("/home/u/.claude/ide"));
        let dir = lock_dir_from(Some("".into()), Some("/home/u".into())).unwrap();
        assert_eq!(dir, PathBuf::from("/home/u/.claude/ide"));
        assert!(matches!(
            lock_dir_from(None, None),
            Err(LockError::NoConfigDir)
        ));
    }

    #[cfg(unix)]
    #[test]
    fn lock_is_written_0600_in_a_0700_dir_and_removed_on_drop() {
        use std::os::unix::fs::PermissionsExt;
        let dir = temp_dir("modes").join("ide");
        let guard = LockFileGuard::create(&dir, 5555, lock(std::process::id(), "t")).unwrap();
        let path = guard.path().to_owned();
        assert_eq!(path, dir.join("5555.lock"));
        let file_mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        let dir_mode = fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
        assert_eq!((file_mode, dir_mode), (0o600, 0o700));
        let parsed = LockFile::parse(&fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(parsed, *guard.lock());
        let leftovers: Vec<_> = fs::read_dir(&dir).unwrap().flatten().collect();
        assert_eq!(leftovers.len(), 1, "no temporary file left behind");
        drop(guard);
        assert!(!path.exists());
    }

    #[test]
    fn a_deleted_lock_is_restored_and_a_rewrite_replaces_it() {
        let dir = temp_dir("restore");
        let mut guard = LockFileGuard::create(&dir, 5556, lock(std::process::id(), "t")).unwrap();
        assert!(!guard.restore_if_missing().unwrap());
        fs::remove_file(guard.path()).unwrap();
        assert!(guard.restore_if_missing().unwrap());
        let mut next = lock(std::process::id(), "t");
        next.workspace_folders.push("/second".into());
        guard.rewrite(next.clone()).unwrap();
        let on_disk = LockFile::parse(&fs::read_to_string(guard.path()).unwrap()).unwrap();
        assert_eq!(on_disk, next);
    }

    #[cfg(unix)]
    #[test]
    fn sweep_removes_only_our_dead_locks() {
        let dir = temp_dir("sweep");
        prepare_dir(&dir).unwrap();
        let dead = u32::try_from(i32::MAX).unwrap();
        assert!(!pid_is_alive(dead));
        let write = |port: u16, lock: LockFile| {
            write_atomically(&dir.join(LockFile::file_name(port)), &lock.to_json()).unwrap()
        };
        write(1, lock(dead, "ours"));
        write(2, lock(dead, "someone else"));
        write(3, lock(std::process::id(), "ours"));
        write(4, lock(1, "ours")); // pid 1 is alive (init), whoever owns it
        fs::write(dir.join("5.lock"), "not json").unwrap();
        let removed = sweep_stale(&dir, "ours");
        assert_eq!(removed, vec![dir.join("1.lock")]);
        for kept in ["2.lock", "3.lock", "4.lock", "5.lock"] {
            assert!(dir.join(kept).exists(), "{kept} must stay");
        }
    }

    #[cfg(unix)]
    #[test]
    fn symlinked_or_foreign_dirs_are_refused() {
        let base = temp_dir("symlink");
        fs::create_dir_all(base.join("real")).unwrap();
        std::os::unix::fs::symlink(base.join("real"), base.join("link")).unwrap();
        let err = prepare_dir(&base.join("link")).unwrap_err();
        assert!(matches!(err, LockError::DirIsSymlink(_)), "{err}");
        assert!(err.to_string().contains("symbolic link"));
        fs::write(base.join("file"), "").unwrap();
        assert!(matches!(
            prepare_dir(&base.join("file")),
            Err(LockError::NotADirectory(_))
        ));
    }
}
