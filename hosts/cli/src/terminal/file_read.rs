//! Reading a file a peer named: only a regular file, opened without blocking, capped in size.
//!
//! A path from claude (or a model steering it) may name a FIFO (opening it for reading blocks
//! until a writer comes), `/dev/zero` (never ends), a terminal or a folder. The serve loop must
//! not stall on any of them, so the file is opened with `O_NONBLOCK | O_NOCTTY` (POSIX `open`:
//! a FIFO opened `O_RDONLY | O_NONBLOCK` returns at once), its type is checked on the opened
//! handle (no race between check and use), and at most [`MAX_FILE_BYTES`] are read.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The largest file read: the default WebSocket message cap, so any proposal claude can send
/// can also be compared with the file it replaces.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// The file's bytes; `Ok(None)` when there is no such file. The error says what is wrong.
pub fn read_regular(path: &Path, max_bytes: u64) -> Result<Option<Vec<u8>>, String> {
    let shown = path.display();
    let file = match open_nonblocking(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot open {shown}: {e}")),
    };
    let metadata = file
        .metadata()
        .map_err(|e| format!("cannot read {shown}: {e}"))?;
    if !metadata.is_file() {
        return Err(format!(
            "cannot read {shown}: it is {}, not a regular file",
            kind(&metadata)
        ));
    }
    if metadata.len() > max_bytes {
        return Err(too_large(path, max_bytes));
    }
    let mut bytes = Vec::new();
    file.take(max_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {shown}: {e}"))?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large(path, max_bytes));
    }
    Ok(Some(bytes))
}

fn too_large(path: &Path, max_bytes: u64) -> String {
    format!(
        "cannot read {}: it is larger than {max_bytes} bytes",
        path.display()
    )
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    let fd = rustix::fs::open(path, flags, Mode::empty())?;
    Ok(File::from(fd))
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

/// What a file that is not a regular file is, in words.
fn kind(metadata: &std::fs::Metadata) -> &'static str {
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
        let dir = std::env::temp_dir().join(format!("idelink-read-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_regular_file_is_read_and_a_missing_one_is_none() {
        let dir = temp("regular");
        let file = dir.join("a.txt");
        std::fs::write(&file, "abc").unwrap();
        assert_eq!(read_regular(&file, 10), Ok(Some(b"abc".to_vec())));
        assert_eq!(read_regular(&dir.join("none"), 10), Ok(None));
        let large = read_regular(&file, 2).unwrap_err();
        assert!(large.ends_with("it is larger than 2 bytes"), "{large}");
    }

    #[test]
    fn a_folder_is_refused() {
        let dir = temp("folder");
        let refused = read_regular(&dir, 10).unwrap_err();
        assert!(
            refused.ends_with("it is a folder, not a regular file"),
            "{refused}"
        );
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
        let refused = read_regular(&fifo, 10).unwrap_err();
        assert!(
            refused.ends_with("it is a FIFO, not a regular file"),
            "{refused}"
        );
        let zero = read_regular(Path::new("/dev/zero"), 10).unwrap_err();
        assert!(
            zero.ends_with("it is a device, not a regular file"),
            "{zero}"
        );
    }
}
