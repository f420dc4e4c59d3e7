//! Resume on real loopback sockets and a real lock directory (issue 33 §2): a host started
//! again for the same editor and workspace takes back its port and token, so a client holding
//! the old ones is served; a live host's record, a record that is a link or readable by others,
//! an old record and a busy port all start fresh, and say why.
//!
//! Unix-only: the records planted here are written with Unix modes and links (the Windows record
//! check is the lock directory's DACL rule, tested in idelink-host's `windows::tests`).
#![cfg(unix)]
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

use idelink_core::host_rules::resume::{NotResumed, RESUME_WINDOW_MS, RecordState, ResumeRecord};
use idelink_core::lockfile::LockFile;
use idelink_mio::{Host, HostConfig, LockPlacement, ResumeOutcome};
use idelink_test_client::Client;
use std::fs;
use std::io::{self, Write};
use std::net::TcpListener;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc::{self, TryRecvError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const DEADLINE: Duration = Duration::from_secs(20);
const EDITOR: &str = "ResumeTest";
const TOKEN: &str = "0123456789abcdef0123456789abcdef";

/// A fresh lock directory (its parent 0700, ours).
fn lock_dir(name: &str) -> PathBuf {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let base =
        std::env::temp_dir().join(format!("idelink-resume-{name}-{}-{n}", std::process::id()));
    let _ = fs::remove_dir_all(&base);
    fs::create_dir(&base).unwrap();
    base.join("ide")
}

fn config(dir: &Path) -> HostConfig {
    let mut config = HostConfig::new(EDITOR, vec!["/w".into()]);
    config.lock = LockPlacement::At(dir.to_owned());
    config.resume = true;
    config
}

fn unix_now_ms() -> u64 {
    let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    u64::try_from(since.as_millis()).unwrap()
}

/// A port nobody listens on right now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A pid no process has: a child that already ended and was reaped.
fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

/// Writes a record for `port` by hand, as a host of [`EDITOR`] on `/w` would, with `mode`.
fn plant(dir: &Path, port: u16, state: RecordState, pid: u32, age_ms: u64, mode: u32) -> PathBuf {
    fs::create_dir_all(dir).unwrap();
    let record = ResumeRecord {
        port,
        state,
        at_unix_ms: unix_now_ms() - age_ms,
        lock: LockFile {
            pid,
            workspace_folders: vec!["/w".into()],
            ide_name: EDITOR.into(),
            auth_token: TOKEN.into(),
            running_in_windows: false,
        },
    };
    let path = dir.join(ResumeRecord::file_name(port));
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(&path)
        .unwrap();
    file.write_all(record.to_json().as_bytes()).unwrap();
    path
}

/// Polls `host` while a client on its own thread runs the CLI's opening with `token`.
fn session(host: &mut Host, token: &str) -> io::Result<()> {
    let (done, finished) = mpsc::channel();
    let (port, token) = (host.port(), token.to_owned());
    std::thread::spawn(move || {
        let _ = done.send(Client::connect_initialized(port, &token).map(drop));
    });
    let until = Instant::now() + DEADLINE;
    let mut batch = Vec::new();
    loop {
        host.poll(Some(Duration::from_millis(5)), &mut batch)
            .unwrap();
        batch.clear();
        match finished.try_recv() {
            Ok(result) => return result,
            Err(TryRecvError::Empty) if Instant::now() < until => {}
            Err(e) => panic!("no session within {DEADLINE:?}: {e}"),
        }
    }
}

fn fresh_because(host: &Host, why: NotResumed) {
    assert_eq!(
        *host.resume(),
        ResumeOutcome::Fresh(why),
        "{}",
        host.resume()
    );
    assert_ne!(
        host.auth_token().as_str(),
        TOKEN,
        "a fresh start mints a token"
    );
}

#[test]
fn a_host_started_again_takes_back_its_port_and_token_and_a_client_holding_them_is_served() {
    let dir = lock_dir("again");
    let mut first = Host::start(config(&dir)).unwrap();
    assert_eq!(*first.resume(), ResumeOutcome::Fresh(NotResumed::NoRecord));
    let (port, token) = (first.port(), first.auth_token().as_str().to_owned());
    session(&mut first, &token).unwrap();
    let record = dir.join(ResumeRecord::file_name(port));
    let mode = fs::metadata(&record).unwrap().permissions();
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&mode) & 0o777,
        0o600
    );
    drop(first);
    let stopped = ResumeRecord::parse(&fs::read_to_string(&record).unwrap()).unwrap();
    assert_eq!(stopped.state, RecordState::Stopped);

    let mut second = Host::start(config(&dir)).unwrap();
    assert_eq!(*second.resume(), ResumeOutcome::Resumed { port });
    assert_eq!(second.port(), port);
    assert_eq!(second.auth_token().as_str(), token);
    session(&mut second, &token).unwrap();
    assert!(
        session(&mut second, TOKEN).is_err(),
        "another token is still refused"
    );
}

#[test]
fn without_resume_no_record_is_kept_and_a_record_is_not_used() {
    let dir = lock_dir("off");
    let port = free_port();
    plant(&dir, port, RecordState::Stopped, dead_pid(), 0, 0o600);
    let mut off = config(&dir);
    off.resume = false;
    let host = Host::start(off).unwrap();
    assert_eq!(*host.resume(), ResumeOutcome::Off);
    assert_ne!(host.auth_token().as_str(), TOKEN);
    let own_record = dir.join(ResumeRecord::file_name(host.port()));
    assert!(!own_record.exists(), "resume off keeps no record");
}

#[test]
fn a_crashed_host_is_resumed_over_its_stale_lock() {
    let dir = lock_dir("crash");
    let (port, pid) = (free_port(), dead_pid());
    plant(&dir, port, RecordState::Running, pid, 1_000, 0o600);
    let lock = LockFile {
        pid,
        workspace_folders: vec!["/w".into()],
        ide_name: EDITOR.into(),
        auth_token: TOKEN.into(),
        running_in_windows: false,
    };
    fs::write(dir.join(LockFile::file_name(port)), lock.to_json()).unwrap();
    let mut host = Host::start(config(&dir)).unwrap();
    assert_eq!(*host.resume(), ResumeOutcome::Resumed { port });
    assert_eq!(host.auth_token().as_str(), TOKEN);
    let written = LockFile::parse(&fs::read_to_string(host.lock_path().unwrap()).unwrap());
    assert_eq!(written.unwrap().pid, std::process::id());
    session(&mut host, TOKEN).unwrap();
}

#[test]
fn the_record_of_a_live_running_host_is_not_taken() {
    let dir = lock_dir("live");
    let port = free_port();
    let planted = plant(
        &dir,
        port,
        RecordState::Running,
        std::process::id(),
        0,
        0o600,
    );
    let host = Host::start(config(&dir)).unwrap();
    fresh_because(
        &host,
        NotResumed::OwnerRunning {
            pid: std::process::id(),
        },
    );
    assert!(planted.exists(), "a live host's record is left alone");
}

#[test]
fn a_record_readable_by_others_or_a_symlink_is_refused() {
    let dir = lock_dir("private");
    plant(
        &dir,
        free_port(),
        RecordState::Stopped,
        dead_pid(),
        0,
        0o644,
    );
    fresh_because(
        &Host::start(config(&dir)).unwrap(),
        NotResumed::RecordNotPrivate { mode: 0o644 },
    );

    let dir = lock_dir("link");
    let elsewhere = lock_dir("link-target");
    let port = free_port();
    let target = plant(&elsewhere, port, RecordState::Stopped, dead_pid(), 0, 0o600);
    fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(&target, dir.join(ResumeRecord::file_name(port))).unwrap();
    fresh_because(
        &Host::start(config(&dir)).unwrap(),
        NotResumed::RecordIsSymlink,
    );
}

#[test]
fn a_busy_port_or_an_old_record_starts_fresh() {
    let dir = lock_dir("busy");
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    plant(&dir, port, RecordState::Stopped, dead_pid(), 0, 0o600);
    let host = Host::start(config(&dir)).unwrap();
    fresh_because(&host, NotResumed::PortBusy { port });
    assert_ne!(host.port(), port);

    let dir = lock_dir("old");
    let age_ms = RESUME_WINDOW_MS + 60_000;
    plant(
        &dir,
        free_port(),
        RecordState::Stopped,
        dead_pid(),
        age_ms,
        0o600,
    );
    let host = Host::start(config(&dir)).unwrap();
    match host.resume() {
        ResumeOutcome::Fresh(NotResumed::Expired { age_ms: seen }) => assert!(*seen >= age_ms),
        other => panic!("not expired: {other}"),
    }
}
