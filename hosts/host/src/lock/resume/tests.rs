//! A record another user owns is never read, whatever it says; a running host's record is
//! written again by a due heartbeat and by a lock rewrite.
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

use super::*;
use std::fs;
use std::os::unix::fs::PermissionsExt;

/// A fresh lock directory, open, under a 0700 config directory of ours.
fn open_dir(name: &str) -> LockDir {
    let base = std::env::temp_dir().join(format!("idelink-resume-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&base);
    fs::create_dir(&base).unwrap();
    fs::set_permissions(&base, fs::Permissions::from_mode(0o700)).unwrap();
    LockDir::open(&base.join("ide")).unwrap()
}

/// The lock of a host of ResumeTest on `/w`, run by this process.
fn lock() -> LockFile {
    LockFile {
        pid: std::process::id(),
        workspace_folders: vec!["/w".into()],
        ide_name: "ResumeTest".into(),
        auth_token: "0123456789abcdef0123456789abcdef".into(),
        running_in_windows: false,
    }
}

#[test]
fn a_record_of_another_user_is_refused_and_left_alone() {
    let me = rustix::process::geteuid().as_raw();
    let dir = open_dir("owner");
    let mut keeper = RecordKeeper::start(&dir, 5999, &lock()).unwrap();
    keeper.stop(&dir);
    let folders = ["/w".to_owned()];
    let ours = find_in(&dir, "ResumeTest", &folders, me).unwrap();
    assert_eq!((ours.port, ours.state), (5999, RecordState::Stopped));

    let other = me + 1;
    let refused = find_in(&dir, "ResumeTest", &folders, other).unwrap_err();
    assert_eq!(
        refused,
        NotResumed::RecordOwnedByOther {
            owner: me,
            me: other
        }
    );
    assert!(dir.exists(&ResumeRecord::file_name(5999)).unwrap());
}

#[test]
fn a_due_heartbeat_and_a_lock_rewrite_write_the_record_again() {
    let dir = open_dir("beat");
    let lock = lock();
    let read = || {
        let text = dir.read_private("5998.resume", rustix::process::geteuid().as_raw());
        ResumeRecord::parse(&text.unwrap().unwrap()).unwrap()
    };
    let mut keeper = RecordKeeper::start(&dir, 5998, &lock).unwrap();
    let started = read().at_unix_ms;
    keeper.refresh(&dir).unwrap();
    assert_eq!(read().at_unix_ms, started, "not due yet: not written");
    // The record as a heartbeat long ago left it.
    keeper.record.at_unix_ms = 1;
    write_atomically(&dir, "5998.resume", &keeper.record.to_json()).unwrap();
    keeper.refresh(&dir).unwrap();
    let beat = read();
    assert!(
        beat.at_unix_ms >= started,
        "a due heartbeat writes the time now: {beat:?}"
    );
    assert_eq!(beat.state, RecordState::Running);

    let moved = LockFile {
        workspace_folders: vec!["/v".into()],
        ..lock
    };
    keeper.relock(&dir, &moved).unwrap();
    assert_eq!(read().lock.workspace_folders, ["/v"]);
}
