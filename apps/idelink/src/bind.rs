//! The bind file: how `idelink claude` tells the server it connects claude to which session is
//! its own. Next to the server's lock `<port>.lock` it writes `<port>.bind` holding the pid of
//! the claude it started; the server (`idelink serve`'s terminal) reads it and chooses that pid
//! (`Engine::choose_session`), so that claude gets the mentions from the moment it is ready,
//! whatever else is connected. The newest `idelink claude` wins; it removes the file when its
//! claude exits, if the file still names it. The lock folder is the user's own (0700): the file
//! says nothing secret, and no other user can write it.

use std::io;
use std::path::{Path, PathBuf};

/// The most bytes of a bind file read: a pid and a newline. A longer file is no binding.
const MAX_BIND_BYTES: u64 = 16;

/// The bind file of the lock at `lock` (`<port>.lock` → `<port>.bind`).
pub fn path_for(lock: &Path) -> PathBuf {
    lock.with_extension("bind")
}

/// A bind file this process wrote; removed on drop if it still names `pid`.
pub struct Binding {
    path: PathBuf,
    pid: u32,
}

impl Binding {
    /// Writes `pid` to the bind file of `lock` (through a temporary name, then a rename: a
    /// reader never sees half a pid).
    pub fn write(lock: &Path, pid: u32) -> io::Result<Binding> {
        let path = path_for(lock);
        let temporary = path.with_extension(format!("bind.{}", std::process::id()));
        std::fs::write(&temporary, format!("{pid}\n"))?;
        std::fs::rename(&temporary, &path)?;
        Ok(Binding { path, pid })
    }
}

impl Drop for Binding {
    fn drop(&mut self) {
        if read(&self.path) == Some(self.pid) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// The pid a bind file names, if it is there and well-formed.
fn read(path: &Path) -> Option<u32> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_BIND_BYTES + 1)
        .read_to_string(&mut text)
        .ok()?;
    if text.len() as u64 > MAX_BIND_BYTES {
        return None;
    }
    let digits = text.trim_end_matches('\n');
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Follows a server's bind file.
pub struct BindWatch {
    path: PathBuf,
    seen: Option<u32>,
}

impl BindWatch {
    /// Watches the bind file of the lock at `lock`; nothing is seen yet.
    pub fn new(lock: &Path) -> BindWatch {
        BindWatch {
            path: path_for(lock),
            seen: None,
        }
    }

    /// The pid the file names now, when it changed since the last call (`Some(None)`: the
    /// file went away or is no binding); `None` when nothing changed.
    pub fn poll(&mut self) -> Option<Option<u32>> {
        let now = read(&self.path);
        (now != self.seen).then(|| {
            self.seen = now;
            now
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("idelink-bind-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        dir
    }

    #[test]
    fn a_binding_is_seen_once_and_removed_with_its_writer_only_if_still_its_own() {
        let lock = folder("seen").join("40000.lock");
        let mut watch = BindWatch::new(&lock);
        assert_eq!(watch.poll(), None);
        let first = Binding::write(&lock, 4242).expect("write");
        assert_eq!(watch.poll(), Some(Some(4242)));
        assert_eq!(watch.poll(), None);
        let second = Binding::write(&lock, 77).expect("write");
        assert_eq!(watch.poll(), Some(Some(77)));
        drop(first);
        assert_eq!(
            watch.poll(),
            None,
            "the older writer leaves the newer binding"
        );
        drop(second);
        assert_eq!(watch.poll(), Some(None));
    }

    #[test]
    fn anything_but_a_pid_is_no_binding() {
        let lock = folder("bad").join("1.lock");
        for text in [
            "",
            "\n",
            "-1\n",
            "12a\n",
            "99999999999\n",
            "1234567890123456789\n",
        ] {
            std::fs::write(path_for(&lock), text).expect("write");
            assert_eq!(read(&path_for(&lock)), None, "{text:?}");
        }
        std::fs::write(path_for(&lock), "12\n").expect("write");
        assert_eq!(read(&path_for(&lock)), Some(12));
    }
}
