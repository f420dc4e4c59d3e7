//! The lock file's life, as decisions on what the host found on disk (docs/protocol.md §1):
//! which files in the lock directory are locks, which of them are ours and stale, what the
//! temporary file is called, when a lock is restored and when it is rewritten.
//!
//! The host reads the directory, reads files, asks `kill(pid, 0)` whether a pid is alive,
//! creates, renames and deletes; these functions decide.

use crate::ide::EditorEvent;
use crate::lockfile::LockFile;
use crate::snapshot::Snapshot;

/// The pid whose death makes `file_name` (with contents `body`) one of our stale locks, or
/// `None` when the file is not ours to judge: not a lock name (temporary files included), not a
/// lock body, or another IDE's (`ideName` differs from `our_ide_name`).
///
/// The host removes the file only when this is `Some(pid)` and `pid` is not alive; a lock whose
/// owner may be alive is never deleted (idelink-core's "Security" docs).
pub fn stale_lock_owner(file_name: &str, body: &str, our_ide_name: &str) -> Option<u32> {
    LockFile::port_from_file_name(file_name)?;
    let lock = LockFile::parse(body).ok()?;
    (lock.ide_name == our_ide_name).then_some(lock.pid)
}

/// The temporary file a lock is first written to (created with `O_EXCL`, mode 0600, then
/// renamed over `file_name`): hidden, unique per process and attempt, and never a lock name.
pub fn temp_file_name(file_name: &str, pid: u32, attempt: u64) -> String {
    format!(".{file_name}.{pid}.{attempt}.tmp")
}

/// What the host found at its lock's path on a periodic check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockOnDisk {
    /// Something is there.
    Present,
    /// Nothing is there (the CLI deleted a lock it thought stale, or a user cleaned the folder).
    Missing,
}

/// What to do with the lock after a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockUpkeep {
    /// Leave it.
    Keep,
    /// Write it again (the same body, the same atomic way as at start).
    Restore,
}

impl LockUpkeep {
    /// The upkeep for what a check found: a missing lock is restored while the server runs.
    pub fn after_check(found: LockOnDisk) -> LockUpkeep {
        match found {
            LockOnDisk::Present => LockUpkeep::Keep,
            LockOnDisk::Missing => LockUpkeep::Restore,
        }
    }
}

/// The lock body to write after an editor event, or `None` when the event does not change it.
/// Only a change of workspace folders does (the CLI matches its cwd against them).
pub fn rewritten_for(lock: &LockFile, event: &EditorEvent) -> Option<LockFile> {
    match event {
        EditorEvent::WorkspaceFoldersChanged { folders } if *folders != lock.workspace_folders => {
            Some(LockFile {
                workspace_folders: folders.clone(),
                ..lock.clone()
            })
        }
        _ => None,
    }
}

/// The lock body to write after a snapshot, or `None` when its workspace folders are the
/// lock's already (compared in place: nothing is allocated then).
pub fn rewritten_for_snapshot(lock: &LockFile, snapshot: &Snapshot<'_>) -> Option<LockFile> {
    let folders = snapshot.workspace_folders;
    if lock.workspace_folders.iter().eq(folders.iter().copied()) {
        return None;
    }
    Some(LockFile {
        workspace_folders: folders.iter().map(|&f| f.to_owned()).collect(),
        ..lock.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(pid: u32, ide_name: &str) -> String {
        LockFile {
            pid,
            workspace_folders: vec!["/w".into()],
            ide_name: ide_name.into(),
            auth_token: "t".into(),
            running_in_windows: false,
        }
        .to_json()
    }

    #[test]
    fn only_our_lock_bodies_under_lock_names_are_judged() {
        assert_eq!(
            stale_lock_owner("1.lock", &body(9, "ours"), "ours"),
            Some(9)
        );
        assert_eq!(stale_lock_owner("1.lock", &body(9, "theirs"), "ours"), None);
        assert_eq!(stale_lock_owner("1.lock", "not json", "ours"), None);
        let tmp = temp_file_name("1.lock", 3, 0);
        assert_eq!(tmp, ".1.lock.3.0.tmp");
        for name in [tmp.as_str(), "01.lock", "x.lock", "1.lock.tmp"] {
            assert_eq!(
                stale_lock_owner(name, &body(9, "ours"), "ours"),
                None,
                "{name}"
            );
        }
    }

    #[test]
    fn a_missing_lock_is_restored() {
        assert_eq!(
            LockUpkeep::after_check(LockOnDisk::Present),
            LockUpkeep::Keep
        );
        assert_eq!(
            LockUpkeep::after_check(LockOnDisk::Missing),
            LockUpkeep::Restore
        );
    }

    #[test]
    fn only_a_change_of_folders_rewrites_the_lock() {
        let lock = LockFile::parse(&body(9, "ours")).expect("our own body parses");
        let same = EditorEvent::WorkspaceFoldersChanged {
            folders: vec!["/w".into()],
        };
        assert_eq!(rewritten_for(&lock, &same), None);
        let other = EditorEvent::WorkspaceFoldersChanged {
            folders: vec!["/w".into(), "/v".into()],
        };
        let next = rewritten_for(&lock, &other).expect("folders changed");
        assert_eq!(next.workspace_folders, ["/w", "/v"]);
        assert_eq!((next.pid, next.auth_token.as_str()), (9, "t"));
    }

    #[test]
    fn a_lock_rewritten_for_windows_folders_names_them_with_forward_slashes() {
        let lock = LockFile::parse(&body(9, "ours")).expect("our own body parses");
        let event = EditorEvent::WorkspaceFoldersChanged {
            folders: vec![r"C:\game".into()],
        };
        let by_event = rewritten_for(&lock, &event).expect("folders changed");
        let snapshot = Snapshot {
            workspace_folders: &[r"c:\game"],
            ..Snapshot::default()
        };
        let by_snapshot = rewritten_for_snapshot(&lock, &snapshot).expect("folders changed");
        for next in [by_event, by_snapshot] {
            let written = LockFile::parse(&next.to_json()).expect("our own body parses");
            assert_eq!(written.workspace_folders, ["C:/game"]);
        }
    }

    #[test]
    fn only_a_snapshot_with_other_folders_rewrites_the_lock() {
        let lock = LockFile::parse(&body(9, "ours")).expect("our own body parses");
        let same = Snapshot {
            workspace_folders: &["/w"],
            ..Snapshot::default()
        };
        assert_eq!(rewritten_for_snapshot(&lock, &same), None);
        let other = Snapshot {
            workspace_folders: &["/w", "/v"],
            ..Snapshot::default()
        };
        let next = rewritten_for_snapshot(&lock, &other).expect("folders changed");
        assert_eq!(next.workspace_folders, ["/w", "/v"]);
        assert_eq!(next.pid, 9);
    }
}
