use super::*;
use std::fs;
use std::io::Write;
use std::path::PathBuf;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("idelink-win-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// Stops a test that reads ACLs back where they cannot be (Wine), saying so in a line
/// scripts/wine-test counts as a skip.
macro_rules! skip_without_acls {
    ($test:literal) => {
        if let Some(why) = acl_unverifiable() {
            println!("wine-skip: {}: {why}", $test);
            return;
        }
    };
}

fn me() -> String {
    let sid = current_user_sid().unwrap();
    assert!(sid.starts_with("S-1-"), "{sid}");
    sid
}

#[test]
fn a_private_dir_is_owner_only_from_creation() {
    skip_without_acls!("a_private_dir_is_owner_only_from_creation");
    let dir = temp_dir("dir").join("a").join("ide");
    create_private_dir_all(&dir).unwrap();
    let acl = dacl(&dir).unwrap();
    assert!(acl.is_owner_only(&me()), "{acl:?}");
    assert_eq!(acl.entries.as_ref().map(Vec::len), Some(1), "{acl:?}");
    // Its parent was created with ordinary, inherited security.
    assert!(!dacl(dir.parent().unwrap()).unwrap().protected);
    // Creating it again is not an error.
    create_private_dir_all(&dir).unwrap();
}

#[test]
fn a_private_file_is_owner_only_and_new() {
    skip_without_acls!("a_private_file_is_owner_only_and_new");
    let path = temp_dir("file").join("x.tmp");
    let mut file = create_private_file(&path).unwrap();
    file.write_all(b"secret").unwrap();
    drop(file);
    assert!(dacl(&path).unwrap().is_owner_only(&me()));
    assert_eq!(fs::read(&path).unwrap(), b"secret");
    let again = create_private_file(&path).unwrap_err();
    assert_eq!(again.kind(), io::ErrorKind::AlreadyExists);
}

#[test]
fn an_open_dir_is_restricted_to_its_owner() {
    skip_without_acls!("an_open_dir_is_restricted_to_its_owner");
    let dir = temp_dir("restrict").join("open");
    fs::create_dir(&dir).unwrap();
    assert!(!dacl(&dir).unwrap().is_owner_only(&me()));
    restrict_to_owner(&dir).unwrap();
    assert!(dacl(&dir).unwrap().is_owner_only(&me()));
}

#[test]
fn owner_only_means_one_sid_full_access_and_protected() {
    let ace = |sid: &str, mask| Ace {
        allow: true,
        sid: sid.into(),
        mask,
    };
    let only = |entries| Dacl {
        protected: true,
        entries: Some(entries),
    };
    assert!(only(vec![ace("S-1-5-21-1", FILE_ALL_ACCESS)]).is_owner_only("S-1-5-21-1"));
    assert!(!only(vec![ace("S-1-1-0", FILE_ALL_ACCESS)]).is_owner_only("S-1-5-21-1"));
    let two = vec![ace("S-1-5-21-1", FILE_ALL_ACCESS), ace("S-1-1-0", 1)];
    assert!(!only(two).is_owner_only("S-1-5-21-1"));
    assert!(!only(vec![]).is_owner_only("S-1-5-21-1"));
    let inherited = Dacl {
        protected: false,
        entries: Some(vec![ace("S-1-5-21-1", FILE_ALL_ACCESS)]),
    };
    assert!(!inherited.is_owner_only("S-1-5-21-1"));
    let null = Dacl {
        protected: true,
        entries: None,
    };
    assert!(!null.is_owner_only("S-1-5-21-1"));
}

#[test]
fn liveness_follows_the_process() {
    assert!(pid_is_alive(std::process::id()));
    // The test binary itself, asked only to list its tests, ends at once.
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .arg("--list")
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    assert!(pid_is_alive(pid) || child.try_wait().unwrap().is_some());
    assert!(child.wait().unwrap().success());
    // While our handle is open the ended process is still known: it is signalled, so dead.
    assert!(!pid_is_alive(pid));
    drop(child);
    assert!(!pid_is_alive(pid));
    // Windows never hands out pids that are not multiples of 4.
    assert!(!pid_is_alive(u32::MAX - 2));
}

/// A pid that existed and has ended: a child that lists the tests and exits, waited for.
fn dead_pid() -> u32 {
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .arg("--list")
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

fn lock(pid: u32, ide_name: &str) -> idelink_core::lockfile::LockFile {
    idelink_core::lockfile::LockFile {
        pid,
        workspace_folders: vec!["C:/w".into()],
        ide_name: ide_name.into(),
        auth_token: "0123456789abcdef0123456789abcdef".into(),
        running_in_windows: false,
    }
}

#[test]
fn the_lock_and_its_dir_are_owner_only_and_removed_on_drop() {
    skip_without_acls!("the_lock_and_its_dir_are_owner_only_and_removed_on_drop");
    use crate::lock::LockFileGuard;
    let dir = temp_dir("lock").join("ide");
    let guard = LockFileGuard::create(&dir, 5555, lock(std::process::id(), "t")).unwrap();
    let path = guard.path().to_owned();
    assert!(dacl(&path).unwrap().is_owner_only(&me()));
    assert!(dacl(&dir).unwrap().is_owner_only(&me()));
    assert_eq!(
        fs::read_dir(&dir).unwrap().count(),
        1,
        "no temporary file left"
    );
    drop(guard);
    assert!(!path.exists());
}

#[test]
fn an_existing_open_lock_dir_is_tightened() {
    skip_without_acls!("an_existing_open_lock_dir_is_tightened");
    let dir = temp_dir("tighten").join("ide");
    fs::create_dir(&dir).unwrap();
    let guard = crate::lock::LockFileGuard::create(&dir, 5556, lock(std::process::id(), "t"));
    guard.unwrap();
    assert!(dacl(&dir).unwrap().is_owner_only(&me()));
}

#[test]
fn a_rewrite_replaces_the_existing_lock() {
    // Windows' rename refuses an existing target unless asked to replace it; std's rename asks
    // (MoveFileExW with MOVEFILE_REPLACE_EXISTING, or POSIX rename semantics).
    let dir = temp_dir("replace");
    let mut guard = crate::lock::LockFileGuard::create(&dir, 7, lock(1, "first")).unwrap();
    guard.rewrite(lock(1, "second")).unwrap();
    let path = guard.path().to_owned();
    assert!(fs::read_to_string(&path).unwrap().contains("\"second\""));
    assert_eq!(
        fs::read_dir(&dir).unwrap().count(),
        1,
        "no temporary file left"
    );
    drop(guard);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sweep_removes_only_our_dead_locks() {
    use idelink_core::lockfile::LockFile;
    let dir = temp_dir("sweep");
    let dead = dead_pid();
    assert!(!pid_is_alive(dead));
    let write = |port: u16, lock: LockFile| {
        fs::write(dir.join(LockFile::file_name(port)), lock.to_json()).unwrap()
    };
    write(1, lock(dead, "ours"));
    write(2, lock(dead, "someone else"));
    write(3, lock(std::process::id(), "ours"));
    fs::write(dir.join("5.lock"), "not json").unwrap();
    // Creating a lock sweeps the folder first.
    let _guard = crate::lock::LockFileGuard::create(&dir, 9, lock(std::process::id(), "ours"));
    assert!(!dir.join("1.lock").exists(), "our dead lock must go");
    for kept in ["2.lock", "3.lock", "5.lock"] {
        assert!(dir.join(kept).exists(), "{kept} must stay");
    }
}
