//! Reading a file whose path someone else chose, by the regular-file rules every native reader
//! shares (lock files, files claude names, files a relay page asks for, the claude CLI's own
//! config).
//!
//! A path from a peer, a model or another local user may name a FIFO (opening it for reading
//! blocks until a writer comes), `/dev/zero` (never ends), a terminal or a folder. So the file
//! is opened without blocking (POSIX `open`: a FIFO opened `O_RDONLY | O_NONBLOCK` returns at
//! once, where a plain open waits for a writer forever; `O_NOCTTY`: a terminal never becomes
//! ours), its type is checked on the opened handle (no race between check and use), and at most
//! `max_bytes` are read.

use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::path::Path;

/// The bytes of the regular file at `path`, at most `max_bytes` of them. The error says what
/// is wrong, in words a person can act on: no such file (the OS error, kind `NotFound`), `it is
/// a FIFO, not a regular file` (kind `InvalidInput`; also a folder, a device, a socket), `it is
/// larger than N bytes` (kind `FileTooLarge`), or the OS error of the open or read.
pub fn read_regular_file(path: &Path, max_bytes: u64) -> io::Result<Vec<u8>> {
    let file = open_nonblocking(path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("it is {}, not a regular file", kind(&metadata)),
        ));
    }
    let too_large = || {
        io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("it is larger than {max_bytes} bytes"),
        )
    };
    if metadata.len() > max_bytes {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    // A file that grows while it is read still stops one byte past the cap.
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large());
    }
    Ok(bytes)
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    Ok(File::from(rustix::fs::open(path, flags, Mode::empty())?))
}

/// Windows: opening never blocks (a named pipe with no free instance fails at once); a folder
/// opens only with `FILE_FLAG_BACKUP_SEMANTICS` (CreateFileW), so its type can be told.
#[cfg(windows)]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    use std::os::windows::fs::OpenOptionsExt;
    use windows_sys::Win32::Storage::FileSystem::FILE_FLAG_BACKUP_SEMANTICS;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(FILE_FLAG_BACKUP_SEMANTICS)
        .open(path)
}

/// Elsewhere (no FIFOs to wait on in the std API's reach): a plain open, the type still checked
/// on the opened handle.
#[cfg(not(any(unix, windows)))]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    File::open(path)
}

/// What a file that is not a regular file is, in words.
fn kind(metadata: &Metadata) -> &'static str {
    let file_type = metadata.file_type();
    if file_type.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO";
        }
        if file_type.is_char_device() || file_type.is_block_device() {
            return "a device";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    "a special file"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("idelink-regular-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_regular_file_is_read_up_to_its_cap_and_a_missing_one_is_not_found() {
        let dir = temp("regular");
        let file = dir.join("a.txt");
        std::fs::write(&file, "abc").unwrap();
        assert_eq!(read_regular_file(&file, 3).unwrap(), b"abc");
        let missing = read_regular_file(&dir.join("none"), 10).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        let large = read_regular_file(&file, 2).unwrap_err();
        assert_eq!(large.kind(), io::ErrorKind::FileTooLarge);
        assert_eq!(large.to_string(), "it is larger than 2 bytes");
    }

    #[test]
    fn a_folder_is_refused() {
        let dir = temp("folder");
        let refused = read_regular_file(&dir, 10).unwrap_err();
        assert_eq!(refused.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(refused.to_string(), "it is a folder, not a regular file");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_and_a_device_are_refused_without_blocking() {
        let dir = temp("fifo");
        let fifo = dir.join("pipe");
        // mkfifo(1) (POSIX), as rustix has no mkfifoat on every Unix.
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let refused = read_regular_file(&fifo, 10).unwrap_err();
        assert_eq!(refused.to_string(), "it is a FIFO, not a regular file");
        let zero = read_regular_file(Path::new("/dev/zero"), 10).unwrap_err();
        assert_eq!(zero.to_string(), "it is a device, not a regular file");
    }
}
