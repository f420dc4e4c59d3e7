//! Reading a lock file someone else may have written, by the regular-file rules every native
//! reader shares ([`read_regular_file`]): opened without blocking (a FIFO named `x.lock`), its
//! type checked on the opened handle, at most [`MAX_LOCK_BYTES`] read (`/dev/zero` named
//! `x.lock` ends too).

use super::MAX_LOCK_BYTES;
use crate::regular_file::read_regular_file;
use std::io;
use std::path::Path;

/// The text of the lock file at `path`. The error says what is wrong: no such file (the OS
/// error, kind `NotFound`), not a regular file, larger than [`MAX_LOCK_BYTES`], not UTF-8.
pub fn read_lock_file(path: &Path) -> io::Result<String> {
    let bytes = read_regular_file(path, MAX_LOCK_BYTES)?;
    String::from_utf8(bytes)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
}
