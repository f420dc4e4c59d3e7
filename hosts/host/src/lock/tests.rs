//! The lock file on a real file system: modes, sweep, restore, and every directory refusal
//! (issue 12 §8: the config directory's owner and mode, a swapped `ide/`).
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

use super::*;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::sync::atomic::AtomicU32;

/// A fresh config directory (0700, ours) under the temp dir; the lock goes in its `ide/`.
fn config_dir(name: &str) -> PathBuf {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("idelink-lock-{name}-{}-{n}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir(&dir).unwrap();
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).unwrap();
    dir
}

fn lock(pid: u32, ide_name: &str) -> LockFile {
    LockFile {
        pid,
        workspace_folders: vec!["/w".into()],
        ide_name: ide_name.into(),
        auth_token: "0123456789abcdef0123456789abcdef".into(),
        running_in_windows: false,
    }
}

fn mode(path: &Path) -> u32 {
    fs::symlink_metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn the_default_dir_is_under_the_config_dir() {
    let dir = default_lock_dir().unwrap();
    assert_eq!(dir.file_name().unwrap(), "ide");
}

#[test]
fn lock_is_written_0600_in_a_0700_dir_and_removed_on_drop() {
    let dir = config_dir("modes").join("ide");
    let guard = LockFileGuard::create(&dir, 5555, lock(std::process::id(), "t")).unwrap();
    let path = guard.path().to_owned();
    assert_eq!(path, dir.join("5555.lock"));
    assert_eq!((mode(&path), mode(&dir)), (0o600, 0o700));
    let parsed = LockFile::parse(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(parsed, *guard.lock());
    let leftovers: Vec<_> = fs::read_dir(&dir).unwrap().flatten().collect();
    assert_eq!(leftovers.len(), 1, "no temporary file left behind");
    drop(guard);
    assert!(!path.exists());
}

#[test]
fn a_loose_lock_dir_is_tightened() {
    let dir = config_dir("loose").join("ide");
    fs::create_dir(&dir).unwrap();
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
    let _guard = LockFileGuard::create(&dir, 5560, lock(std::process::id(), "t")).unwrap();
    assert_eq!(mode(&dir), 0o700);
}

#[test]
fn a_deleted_lock_is_restored_and_a_rewrite_replaces_it() {
    let config = config_dir("restore");
    let dir = config.join("ide");
    let mut guard = LockFileGuard::create(&dir, 5556, lock(std::process::id(), "t")).unwrap();
    assert!(!guard.restore_if_missing().unwrap());
    fs::remove_file(guard.path()).unwrap();
    assert!(guard.restore_if_missing().unwrap());
    let mut next = lock(std::process::id(), "t");
    next.workspace_folders.push("/second".into());
    guard.rewrite(next.clone()).unwrap();
    let on_disk = LockFile::parse(&fs::read_to_string(guard.path()).unwrap()).unwrap();
    assert_eq!(on_disk, next);
    // The whole directory removed: opened, checked and written again.
    fs::remove_dir_all(&dir).unwrap();
    assert!(guard.restore_if_missing().unwrap());
    assert_eq!(mode(&dir), 0o700);
    assert!(guard.path().exists());
}

#[test]
fn sweep_removes_only_our_dead_locks() {
    let dir = config_dir("sweep").join("ide");
    let opened = LockDir::open(&dir).unwrap();
    let dead = u32::try_from(i32::MAX).unwrap();
    assert!(!pid_is_alive(dead));
    let write = |port: u16, lock: LockFile| {
        write_atomically(&opened, &LockFile::file_name(port), &lock.to_json()).unwrap()
    };
    write(1, lock(dead, "ours"));
    write(2, lock(dead, "someone else"));
    write(3, lock(std::process::id(), "ours"));
    write(4, lock(1, "ours")); // pid 1 is alive (init), whoever owns it
    fs::write(dir.join("5.lock"), "not json").unwrap();
    fs::write(dir.join("06.lock"), lock(dead, "ours").to_json()).unwrap();
    let removed = sweep_stale(&opened, "ours");
    assert_eq!(removed, vec!["1.lock".to_owned()]);
    for kept in ["2.lock", "3.lock", "4.lock", "5.lock", "06.lock"] {
        assert!(dir.join(kept).exists(), "{kept} must stay");
    }
}

#[test]
fn a_symlinked_or_non_directory_lock_dir_is_refused() {
    let base = config_dir("symlink");
    fs::create_dir_all(base.join("real")).unwrap();
    std::os::unix::fs::symlink(base.join("real"), base.join("link")).unwrap();
    let err = LockFileGuard::create(&base.join("link"), 1, lock(1, "t")).unwrap_err();
    assert!(
        matches!(err, LockError::Refused(DirRefusal::Symlink { .. })),
        "{err}"
    );
    assert!(err.to_string().contains("symbolic link"));
    assert_eq!(fs::read_dir(base.join("real")).unwrap().count(), 0);
    fs::write(base.join("file"), "").unwrap();
    let err = LockFileGuard::create(&base.join("file"), 1, lock(1, "t")).unwrap_err();
    assert!(
        matches!(err, LockError::Refused(DirRefusal::NotADirectory { .. })),
        "{err}"
    );
}

#[test]
fn a_sticky_config_dir_like_tmp_is_accepted() {
    let config = config_dir("sticky");
    fs::set_permissions(&config, fs::Permissions::from_mode(0o1777)).unwrap();
    LockFileGuard::create(&config.join("ide"), 5561, lock(1, "t")).unwrap();
}

#[test]
fn a_config_dir_of_another_user_is_refused() {
    // As root, a directory given to nobody; otherwise ours, opened on behalf of another user.
    let config = config_dir("foreign");
    let me = rustix::process::geteuid().as_raw();
    let as_user = if me == 0 {
        std::os::unix::fs::chown(&config, Some(65534), Some(65534)).unwrap();
        me
    } else {
        me + 1
    };
    let err = LockDir::open_as(&config.join("idelink-ide"), as_user)
        .err()
        .unwrap();
    assert!(
        matches!(err, LockError::Refused(DirRefusal::OwnedByOther { .. })),
        "{err}"
    );
    assert!(err.to_string().contains("not to this user"), "{err}");
    assert!(!config.join("idelink-ide").exists());
}

#[test]
fn a_lock_is_read_only_when_it_is_a_small_regular_file() {
    let dir = config_dir("read");
    let good = dir.join("1.lock");
    fs::write(&good, lock(1, "x").to_json()).unwrap();
    assert!(read_lock_file(&good).unwrap().contains("\"pid\":1"));
    let fifo = dir.join("x.lock");
    // mkfifo(1) (POSIX), as rustix has no mkfifoat on every Unix.
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    // A plain open of a FIFO waits for a writer; this one must answer at once.
    let refused = read_lock_file(&fifo).unwrap_err();
    assert!(
        refused.to_string().contains("not a regular file"),
        "{refused}"
    );
    let big = dir.join("2.lock");
    fs::write(
        &big,
        vec![b' '; usize::try_from(MAX_LOCK_BYTES).unwrap() + 1],
    )
    .unwrap();
    assert!(
        read_lock_file(&big)
            .unwrap_err()
            .to_string()
            .contains("larger than")
    );
    let device = read_lock_file(Path::new("/dev/zero")).unwrap_err();
    assert!(
        device.to_string().contains("not a regular file"),
        "{device}"
    );
    fs::remove_dir_all(&dir).unwrap();
}
