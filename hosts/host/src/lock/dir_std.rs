//! The lock directory by path (platforms without `*at` calls: Windows). The directory is
//! refused when it is a symbolic link or not a directory. Ownership and modes are not Unix
//! notions there: on Windows the directory and every temporary lock file are created with a
//! DACL that grants only the current user (the counterpart of 0700 / 0600), and an existing
//! directory with a looser DACL is tightened (`crate::windows`).

use super::{LockError, MAX_LOCK_BYTES, io_error};
use idelink_core::host_rules::lock_dir::{self, DirFacts, DirKind};
use idelink_core::host_rules::resume::{self, FileFacts, FileKind, NotResumed};
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// The lock directory, by path.
pub(super) struct LockDir {
    path: PathBuf,
}

impl LockDir {
    /// Creates (when missing) and checks the lock directory `path`.
    pub(super) fn open(path: &Path) -> Result<LockDir, LockError> {
        #[cfg(windows)]
        let created = crate::windows::create_private_dir_all(path);
        #[cfg(not(windows))]
        let created = fs::create_dir_all(path);
        created.map_err(io_error("create lock directory", path))?;
        let meta = fs::symlink_metadata(path).map_err(io_error("inspect", path))?;
        let kind = if meta.file_type().is_symlink() {
            DirKind::Symlink
        } else if meta.is_dir() {
            DirKind::Directory
        } else {
            DirKind::Other
        };
        let facts = DirFacts {
            kind,
            owner: 0,
            mode: 0o700,
        };
        lock_dir::judge_lock_dir(&path.to_string_lossy(), facts, 0)?;
        #[cfg(windows)]
        restrict_to_owner(path)?;
        Ok(LockDir {
            path: path.to_owned(),
        })
    }

    /// The directory's path.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `contents` to `temp` (created new), then renames it over `name`. `Ok(false)` when
    /// `temp` already exists.
    pub(super) fn write_via(
        &self,
        temp: &str,
        name: &str,
        contents: &str,
    ) -> Result<bool, LockError> {
        let temp = self.path.join(temp);
        #[cfg(windows)]
        let created = crate::windows::create_private_file(&temp);
        #[cfg(not(windows))]
        let created = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp);
        let mut file = match created {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Ok(false),
            Err(e) => return Err(io_error("create", &temp)(e)),
        };
        let written = file
            .write_all(contents.as_bytes())
            .and_then(|()| file.sync_all());
        drop(file);
        let target = self.path.join(name);
        if let Err(e) = written.and_then(|()| fs::rename(&temp, &target)) {
            let _ = fs::remove_file(&temp);
            return Err(io_error("write", &target)(e));
        }
        Ok(true)
    }

    /// True when something is at `name`.
    pub(super) fn exists(&self, name: &str) -> Result<bool, LockError> {
        let path = self.path.join(name);
        match fs::symlink_metadata(&path) {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(io_error("inspect", &path)(e)),
        }
    }

    /// The UTF-8 names in the directory.
    pub(super) fn names(&self) -> Vec<String> {
        let Ok(entries) = fs::read_dir(&self.path) else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter_map(|e| e.file_name().to_str().map(str::to_owned))
            .collect()
    }

    /// The contents of the regular file `name` when it is small UTF-8 text.
    pub(super) fn read_small(&self, name: &str) -> Option<String> {
        let path = self.path.join(name);
        let meta = fs::symlink_metadata(&path).ok()?;
        if !meta.is_file() || meta.len() > MAX_LOCK_BYTES {
            return None;
        }
        let mut text = String::new();
        fs::File::open(&path)
            .ok()?
            .take(MAX_LOCK_BYTES)
            .read_to_string(&mut text)
            .ok()?;
        Some(text)
    }

    /// The text of the private file `name` (a resume record) when core's file rule lets the
    /// current user read it ([`resume::judge_record_file`]): not a link, a regular file, and on
    /// Windows a DACL that grants the current user alone (the lock directory's check). `Ok(None)`
    /// when it is gone, unreadable, too large or not UTF-8 (not a record).
    pub(super) fn read_private(&self, name: &str, me: u32) -> Result<Option<String>, NotResumed> {
        let path = self.path.join(name);
        let Ok(meta) = fs::symlink_metadata(&path) else {
            return Ok(None);
        };
        let kind = if meta.file_type().is_symlink() {
            FileKind::Symlink
        } else if meta.is_file() {
            FileKind::Regular
        } else {
            FileKind::Other
        };
        let facts = FileFacts {
            kind,
            owner: me,
            mode: private_mode(&path),
        };
        resume::judge_record_file(facts, me)?;
        Ok(self.read_small(name))
    }

    /// Removes the file `name`; true when it was there.
    pub(super) fn remove(&self, name: &str) -> bool {
        fs::remove_file(self.path.join(name)).is_ok()
    }
}

/// Tightens `dir`'s DACL to the current user alone when it grants anyone else.
#[cfg(windows)]
fn restrict_to_owner(dir: &Path) -> Result<(), LockError> {
    let me = crate::windows::current_user_sid().map_err(io_error("identify the user for", dir))?;
    let acl = crate::windows::dacl(dir).map_err(io_error("read the ACL of", dir))?;
    if !acl.is_owner_only(&me) {
        crate::windows::restrict_to_owner(dir).map_err(io_error("restrict permissions of", dir))?;
    }
    Ok(())
}

/// The mode core judges a file by where there are no Unix modes: 0600 when the file's DACL
/// grants the current user alone (Windows), 0666 when it grants more or cannot be read.
#[cfg(windows)]
fn private_mode(path: &Path) -> u32 {
    let owner_only = crate::windows::current_user_sid()
        .and_then(|me| Ok(crate::windows::dacl(path)?.is_owner_only(&me)))
        .unwrap_or(false);
    if owner_only { 0o600 } else { 0o666 }
}

/// The mode core judges a file by on a platform with neither Unix modes nor Windows ACLs:
/// nothing can be checked, so the file counts as private (its directory was judged).
#[cfg(not(windows))]
fn private_mode(_path: &Path) -> u32 {
    0o600
}
