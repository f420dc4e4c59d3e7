//! The bridge's mark beside its lock: `<port>.bridge` holding its pid, so `idelink doctor` can
//! tell a dead bridge's lock from any other stale lock (a lock's body has no field for it, and
//! a dead pid has no command line left to read). The CLI reads only `*.lock` names in that
//! folder (the CLI's bundled code: `readdir(o)).filter((k)=>k.name.endsWith(".lock"))`), so it
//! never sees the mark. Removed with the lock; a killed bridge leaves both, and the next bridge removes a mark whose
//! lock it swept.

use std::io;
use std::path::{Path, PathBuf};

/// The mark's file name for `port`.
pub fn marker_path(lock_dir: &Path, port: u16) -> PathBuf {
    lock_dir.join(format!("{port}.bridge"))
}

/// Whether the mark for `lock` (a `<port>.lock` path) names `pid`.
pub fn marks(lock: &Path, pid: u32) -> bool {
    std::fs::read_to_string(lock.with_extension("bridge"))
        .is_ok_and(|text| text.trim().parse::<u32>() == Ok(pid))
}

/// The mark, removed when dropped.
pub struct BridgeMarker {
    path: PathBuf,
}

impl BridgeMarker {
    /// Writes `<lock_dir>/<port>.bridge` with this process's pid (the folder is the lock's,
    /// already private to its user).
    /// Marks whose lock is gone (a killed bridge's, its lock swept since) are removed first.
    pub fn create(lock_dir: &Path, port: u16) -> io::Result<BridgeMarker> {
        for entry in std::fs::read_dir(lock_dir)?.flatten() {
            let orphan = entry.path();
            let is_mark = orphan.extension().is_some_and(|e| e == "bridge");
            if is_mark && !orphan.with_extension("lock").exists() {
                let _ = std::fs::remove_file(&orphan);
            }
        }
        let path = marker_path(lock_dir, port);
        std::fs::write(&path, format!("{}\n", std::process::id()))?;
        Ok(BridgeMarker { path })
    }
}

impl Drop for BridgeMarker {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}
