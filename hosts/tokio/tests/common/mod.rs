//! Shared by the tokio host's real-socket tests: a temporary directory, a test configuration,
//! and a deadline on every wait for an event (no sleeps).
#![allow(
    dead_code,
    reason = "shared by several test crates; each one uses a subset of the helpers"
)]

use idelink_tokio::{Events, HostConfig, HostEvent, LockPlacement};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// How long any single wait may take before the test fails: a deadline for a hung server,
/// not a timing assertion.
pub const DEADLINE: Duration = Duration::from_secs(10);

/// A fresh directory under the system temp dir, removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    /// A new empty directory whose name contains `name`.
    pub fn new(name: &str) -> TempDir {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("idelink-tokio-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A default test configuration: workspace `<dir>/w`, lock in `<dir>/ide`.
pub fn config(dir: &TempDir) -> HostConfig {
    let workspace = dir.path().join("w");
    std::fs::create_dir_all(&workspace).unwrap();
    let mut config = HostConfig::new(
        "idelink-test",
        vec![workspace.to_string_lossy().into_owned()],
    );
    config.lock = LockPlacement::At(dir.path().join("ide"));
    config
}

/// Skips events until one matches `wanted`, which it returns; fails the test at the deadline.
pub async fn wait_for(
    events: &mut Events,
    what: &str,
    wanted: impl Fn(&HostEvent) -> bool,
) -> HostEvent {
    loop {
        let event = tokio::time::timeout(DEADLINE, events.recv())
            .await
            .unwrap_or_else(|_| panic!("no {what} by the deadline"))
            .unwrap_or_else(|| panic!("the host stopped before {what}"));
        if wanted(&event) {
            return event;
        }
    }
}

/// Runs blocking client code (the test client is blocking) off the runtime's workers.
pub async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    match tokio::task::spawn_blocking(f).await {
        Ok(value) => value,
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    }
}
