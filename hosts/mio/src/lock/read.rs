//! Reading a lock file someone else may have written, by the regular-file rules every native
//! reader shares: the file is opened without blocking (POSIX `open`: a FIFO opened
//! `O_RDONLY | O_NONBLOCK` returns at once, where a plain open waits for a writer forever), its
//! type is checked on the opened handle (no race between check and use), and at most
//! [`MAX_LOCK_BYTES`] are read (`/dev/zero` named `x.lock` ends too).

use super::MAX_LOCK_BYTES;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The text of the lock file at `path`. The error says what is wrong: no such file (the OS
/// error, kind `NotFound`), not a regular file, larger than [`MAX_LOCK_BYTES`], not UTF-8.
pub fn read_lock_file(path: &Path) -> io::Result<String> {
    let file = open_nonblocking(path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file (a lock is one)",
        ));
    }
    let too_large = || {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("larger than {MAX_LOCK_BYTES} bytes (a lock is a few hundred)"),
        )
    };
    if metadata.len() > MAX_LOCK_BYTES {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    file.take(MAX_LOCK_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_LOCK_BYTES {
        return Err(too_large());
    }
    String::from_utf8(bytes)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    Ok(File::from(rustix::fs::open(path, flags, Mode::empty())?))
}

/// Elsewhere (Windows): opening a file never waits for a writer (a named pipe with no free
/// instance fails at once), and the type is still checked on the opened handle.
#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    File::open(path)
}
