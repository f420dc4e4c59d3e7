//! The lock directory as an open descriptor (Unix): every file operation is an `*at` call
//! relative to it, so nothing can be swapped under us between the check and the use.
//!
//! Opening follows core's rules ([`idelink_core::host_rules::lock_dir`]):
//! 1. the parent (the config directory: `$CLAUDE_CONFIG_DIR` or `~/.claude`) is created 0700
//!    when missing and opened with `O_DIRECTORY`; a symbolic link the user put there is
//!    followed (a dotfiles manager makes `~/.claude` one), and what is judged is the directory
//!    actually opened (`fstat`): it must be the user's (or root's) and not writable by group or
//!    others unless sticky;
//! 2. `ide/` is created 0700 with `mkdirat` and opened with `openat(O_DIRECTORY | O_NOFOLLOW)`
//!    relative to the parent's descriptor: a symbolic link is refused, never followed; it must
//!    be the user's, and is tightened to 0700 with `fchmod` when looser;
//! 3. lock files are created (`O_CREAT | O_EXCL | O_NOFOLLOW`, 0600), renamed, read, listed
//!    and removed relative to `ide/`'s descriptor.

use super::{LockError, MAX_LOCK_BYTES, io_error};
use idelink_core::host_rules::lock_dir::{self, DirFacts, DirKind, DirVerdict};
use idelink_core::host_rules::resume::{self, FileFacts, FileKind, NotResumed};
use rustix::fs::{AtFlags, CWD, FileType, Mode, OFlags, Stat};
use rustix::io::Errno;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

/// `ide/`, open.
pub(super) struct LockDir {
    fd: OwnedFd,
    path: PathBuf,
}

impl LockDir {
    /// Creates (when missing), checks and opens the lock directory `path` and its parent.
    pub(super) fn open(path: &Path) -> Result<LockDir, LockError> {
        LockDir::open_as(path, rustix::process::geteuid().as_raw())
    }

    /// [`open`](Self::open) on behalf of user `me` (a test plays another user with it).
    pub(super) fn open_as(path: &Path, me: u32) -> Result<LockDir, LockError> {
        let (parent, name) = match (path.parent(), path.file_name()) {
            (Some(parent), Some(name)) if !parent.as_os_str().is_empty() => (parent, name),
            _ => (Path::new("."), path.as_os_str()),
        };
        let parent_fd = open_parent(parent, path)?;
        let parent_stat = rustix::fs::fstat(&parent_fd).map_err(io_error("inspect", parent))?;
        lock_dir::judge_config_dir(&parent.to_string_lossy(), facts(&parent_stat), me)?;
        match rustix::fs::mkdirat(&parent_fd, name, Mode::RWXU) {
            Ok(()) | Err(Errno::EXIST) => {}
            Err(e) => return Err(io_error("create lock directory", path)(e)),
        }
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = match rustix::fs::openat(&parent_fd, name, flags, Mode::empty()) {
            Ok(fd) => fd,
            // A symbolic link (ELOOP) or not a directory (ENOTDIR): say which, by core's words.
            Err(Errno::LOOP | Errno::NOTDIR) => {
                let stat = rustix::fs::statat(&parent_fd, name, AtFlags::SYMLINK_NOFOLLOW)
                    .map_err(io_error("inspect", path))?;
                lock_dir::judge_lock_dir(&path.to_string_lossy(), facts(&stat), me)?;
                return Err(io_error("open", path)(Errno::NOTDIR));
            }
            Err(e) => return Err(io_error("open", path)(e)),
        };
        let stat = rustix::fs::fstat(&fd).map_err(io_error("inspect", path))?;
        if let DirVerdict::Tighten(mode) =
            lock_dir::judge_lock_dir(&path.to_string_lossy(), facts(&stat), me)?
        {
            rustix::fs::fchmod(&fd, Mode::from_raw_mode(raw_mode(mode)))
                .map_err(io_error("restrict permissions of", path))?;
        }
        Ok(LockDir {
            fd,
            path: path.to_owned(),
        })
    }

    /// The directory's path (for messages and the lock's path).
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `contents` to `temp` (created 0600 with `O_EXCL | O_NOFOLLOW`), then renames it
    /// over `name`. `Ok(false)` when `temp` already exists (pick another name).
    pub(super) fn write_via(
        &self,
        temp: &str,
        name: &str,
        contents: &str,
    ) -> Result<bool, LockError> {
        let temp_path = self.path.join(temp);
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let mut file = match rustix::fs::openat(&self.fd, temp, flags, Mode::RUSR | Mode::WUSR) {
            Ok(fd) => File::from(fd),
            Err(Errno::EXIST) => return Ok(false),
            Err(e) => return Err(io_error("create", &temp_path)(e)),
        };
        let written = file
            .write_all(contents.as_bytes())
            .and_then(|()| file.sync_all());
        drop(file);
        let renamed = written.and_then(|()| {
            rustix::fs::renameat(&self.fd, temp, &self.fd, name).map_err(io::Error::from)
        });
        if let Err(e) = renamed {
            let _ = rustix::fs::unlinkat(&self.fd, temp, AtFlags::empty());
            return Err(io_error("write", &self.path.join(name))(e));
        }
        Ok(true)
    }

    /// True when something (anything, a link included) is at `name`.
    pub(super) fn exists(&self, name: &str) -> Result<bool, LockError> {
        match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(_) => Ok(true),
            Err(Errno::NOENT) => Ok(false),
            Err(e) => Err(io_error("inspect", &self.path.join(name))(e)),
        }
    }

    /// The UTF-8 names in the directory.
    pub(super) fn names(&self) -> Vec<String> {
        let Ok(dir) = rustix::fs::Dir::read_from(&self.fd) else {
            return Vec::new();
        };
        dir.flatten()
            .filter_map(|entry| entry.file_name().to_str().ok().map(str::to_owned))
            .collect()
    }

    /// The contents of the regular file `name` when it is small UTF-8 text; `None` otherwise
    /// (a link, a FIFO, a device, a big file, unreadable).
    pub(super) fn read_small(&self, name: &str) -> Option<String> {
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&self.fd, name, flags, Mode::empty()).ok()?;
        let stat = rustix::fs::fstat(&fd).ok()?;
        let regular = FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile;
        if !regular || u64::try_from(stat.st_size).map_or(true, |n| n > MAX_LOCK_BYTES) {
            return None;
        }
        let mut text = String::new();
        File::from(fd)
            .take(MAX_LOCK_BYTES)
            .read_to_string(&mut text)
            .ok()?;
        Some(text)
    }

    /// The text of the private file `name` (a resume record) when core's file rule lets user
    /// `me` read it ([`resume::judge_record_file`], on the opened handle: a link is refused by
    /// `O_NOFOLLOW`, never followed). `Ok(None)` when it is gone, unreadable, larger than
    /// [`MAX_LOCK_BYTES`] or not UTF-8 (not a record).
    pub(super) fn read_private(&self, name: &str, me: u32) -> Result<Option<String>, NotResumed> {
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let fd = match rustix::fs::openat(&self.fd, name, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(Errno::LOOP) => return Err(NotResumed::RecordIsSymlink),
            Err(_) => return Ok(None),
        };
        let Ok(stat) = rustix::fs::fstat(&fd) else {
            return Ok(None);
        };
        resume::judge_record_file(file_facts(&stat), me)?;
        if u64::try_from(stat.st_size).map_or(true, |n| n > MAX_LOCK_BYTES) {
            return Ok(None);
        }
        let mut text = String::new();
        let read = File::from(fd)
            .take(MAX_LOCK_BYTES)
            .read_to_string(&mut text);
        Ok(read.ok().map(|_| text))
    }

    /// Removes the file `name`; true when it was there.
    pub(super) fn remove(&self, name: &str) -> bool {
        rustix::fs::unlinkat(&self.fd, name, AtFlags::empty()).is_ok()
    }
}

/// Opens the config directory, creating it (and its parents) 0700 when missing.
fn open_parent(parent: &Path, lock_dir: &Path) -> Result<OwnedFd, LockError> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    match rustix::fs::openat(CWD, parent, flags, Mode::empty()) {
        Ok(fd) => return Ok(fd),
        Err(Errno::NOENT) => {}
        Err(e) => return Err(io_error("open", parent)(e)),
    }
    let mut builder = std::fs::DirBuilder::new();
    std::os::unix::fs::DirBuilderExt::mode(builder.recursive(true), 0o700);
    builder
        .create(parent)
        .map_err(io_error("create lock directory", lock_dir))?;
    rustix::fs::openat(CWD, parent, flags, Mode::empty()).map_err(io_error("open", parent))
}

/// A mode from core's verdict as the platform's mode type.
#[allow(
    clippy::useless_conversion,
    reason = "the platform mode type is u32 on Linux but u16 on macOS and the BSDs"
)]
fn raw_mode(mode: u32) -> rustix::fs::RawMode {
    rustix::fs::RawMode::try_from(mode).unwrap_or(0o700)
}

/// What core judges a directory by.
#[allow(
    clippy::useless_conversion,
    reason = "st_mode is u32 on Linux but u16 on macOS and the BSDs"
)]
fn facts(stat: &Stat) -> DirFacts {
    let kind = match FileType::from_raw_mode(stat.st_mode) {
        FileType::Directory => DirKind::Directory,
        FileType::Symlink => DirKind::Symlink,
        _ => DirKind::Other,
    };
    DirFacts {
        kind,
        owner: stat.st_uid,
        mode: u32::from(stat.st_mode) & 0o7777,
    }
}

/// What core judges a record file by.
#[allow(
    clippy::useless_conversion,
    reason = "st_mode is u32 on Linux but u16 on macOS and the BSDs"
)]
fn file_facts(stat: &Stat) -> FileFacts {
    let kind = match FileType::from_raw_mode(stat.st_mode) {
        FileType::RegularFile => FileKind::Regular,
        FileType::Symlink => FileKind::Symlink,
        _ => FileKind::Other,
    };
    FileFacts {
        kind,
        owner: stat.st_uid,
        mode: u32::from(stat.st_mode) & 0o7777,
    }
}
