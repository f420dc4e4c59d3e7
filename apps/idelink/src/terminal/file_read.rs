//! Reading a file a peer named, for the review: only a regular file, opened without blocking,
//! capped in size, by the rules every native reader shares
//! ([`idelink_host::regular_file`]: a FIFO, `/dev/zero`, a terminal or a folder is refused at
//! once, its type checked on the opened handle).

use idelink_host::regular_file::read_regular_file;
use std::io;
use std::path::Path;

/// The largest file read: the default WebSocket message cap, so any proposal claude can send
/// can also be compared with the file it replaces.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// The file's bytes; `Ok(None)` when there is no such file. The error says what is wrong,
/// naming the file (`cannot read PATH: it is a FIFO, not a regular file`).
pub fn read_regular(path: &Path, max_bytes: u64) -> Result<Option<Vec<u8>>, String> {
    match read_regular_file(path, max_bytes) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_is_none_and_a_refusal_names_the_file() {
        let dir = std::env::temp_dir().join(format!("idelink-read-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("a.txt");
        std::fs::write(&file, "abc").unwrap();
        assert_eq!(read_regular(&file, 10), Ok(Some(b"abc".to_vec())));
        assert_eq!(read_regular(&dir.join("none"), 10), Ok(None));
        assert_eq!(
            read_regular(&file, 2),
            Err(format!(
                "cannot read {}: it is larger than 2 bytes",
                file.display()
            ))
        );
        assert_eq!(
            read_regular(&dir, 10),
            Err(format!(
                "cannot read {}: it is a folder, not a regular file",
                dir.display()
            ))
        );
    }
}
