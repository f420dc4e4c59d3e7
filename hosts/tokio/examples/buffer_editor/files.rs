//! The editor's file access for paths claude names: inside the workspace only, regular files
//! only, capped, and never on the runtime's thread.
//!
//! A tool argument is text from the model: a path may name a FIFO (opening it for reading
//! blocks until a writer comes, for writing until a reader does), `/dev/zero` (never ends), a
//! folder, or a file outside the workspace. So a file is opened with `O_NONBLOCK | O_NOCTTY`
//! (POSIX `open`: a FIFO opened `O_RDONLY | O_NONBLOCK` returns at once, `O_WRONLY |
//! O_NONBLOCK` fails with `ENXIO` when no one reads it), its type is checked on the opened
//! handle (no race between the check and the use), at most [`MAX_FILE_BYTES`] are read, and
//! the callers run all of it on tokio's blocking pool (`spawn_blocking`), so even a slow disk
//! leaves the engine task serving.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Component, Path};

/// The largest file read: the engine's default WebSocket message cap (64 MiB), so any text
/// claude can send can be compared with the file it replaces, and a larger file (or one that
/// never ends) cannot grow the editor's memory past it.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// True when `path` is absolute, has no `.` or `..` component, and lies under `workspace`: a
/// lexical rule (no file system access), so the answer does not depend on what exists.
pub fn inside(workspace: &str, path: &str) -> bool {
    let path = Path::new(path);
    path.is_absolute()
        && path
            .components()
            .all(|c| !matches!(c, Component::CurDir | Component::ParentDir))
        && path.starts_with(workspace)
        && path != Path::new(workspace)
}

/// The file's text; `Ok(None)` when there is no such file. The error says what is wrong.
pub fn read_text(path: &str) -> Result<Option<String>, String> {
    let file = match open(path, Access::Read) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot open {path:?}: {e}")),
    };
    let file = regular(file, path)?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {path:?}: {e}"))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!("{path:?} is larger than {MAX_FILE_BYTES} bytes"));
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| format!("{path:?} is not UTF-8 text"))
}

/// Writes `text` to the file at `path` (created if missing), a regular file only.
pub fn write_text(path: &str, text: &str) -> Result<(), String> {
    let file = open(path, Access::Write).map_err(|e| format!("cannot open {path:?}: {e}"))?;
    let mut file = regular(file, path)?;
    file.set_len(0)
        .and_then(|()| file.write_all(text.as_bytes()))
        .map_err(|e| format!("cannot write {path:?}: {e}"))
}

/// `file` if it is a regular file (checked on the handle) no larger than the cap.
fn regular(file: File, path: &str) -> Result<File, String> {
    let metadata = file
        .metadata()
        .map_err(|e| format!("cannot read {path:?}: {e}"))?;
    if !metadata.is_file() {
        return Err(format!("{path:?} is not a regular file"));
    }
    if metadata.len() > MAX_FILE_BYTES {
        return Err(format!("{path:?} is larger than {MAX_FILE_BYTES} bytes"));
    }
    Ok(file)
}

#[derive(Clone, Copy)]
enum Access {
    Read,
    Write,
}

#[cfg(unix)]
fn open(path: &str, access: Access) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    let (flags, mode) = match access {
        Access::Read => (flags | OFlags::RDONLY, Mode::empty()),
        Access::Write => (
            flags | OFlags::WRONLY | OFlags::CREATE,
            Mode::from_raw_mode(0o644),
        ),
    };
    Ok(File::from(rustix::fs::open(path, flags, mode)?))
}

/// Elsewhere (Windows): opening never blocks (a named pipe with no free instance fails at
/// once, a folder does not open as a file), and the type check on the handle does the rest.
#[cfg(not(unix))]
fn open(path: &str, access: Access) -> io::Result<File> {
    match access {
        Access::Read => File::open(path),
        Access::Write => std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(path),
    }
}
