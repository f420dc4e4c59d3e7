//! The lock file while a page is linked: written when a page links (with the claude token that
//! page holds), restored when deleted, removed when the page goes (and on exit, by the guard's
//! drop).

use idelink_core::host_rules::PumpPolicy;
use idelink_core::lockfile::LockFile;
use idelink_core::{AuthToken, Timestamp};
use idelink_host::lock::LockFileGuard;
use std::path::PathBuf;

/// What the lock file says, kept to write it whenever a page links.
pub struct LockSpec {
    /// The lock directory.
    pub dir: PathBuf,
    /// The name claude shows.
    pub ide_name: String,
    /// The workspace folder.
    pub workspace: String,
    /// The port claude connects to.
    pub port: u16,
}

/// The lock of the linked page, if any.
pub struct LinkLock {
    spec: LockSpec,
    guard: Option<LockFileGuard>,
    /// When the lock file was last written or checked, on the relay loop's clock.
    checked: Timestamp,
    /// How often the lock file is checked for deletion while a page is linked.
    check_every_ms: u64,
}

impl LinkLock {
    /// No lock written yet; checked as often as `policy` says.
    pub fn new(spec: LockSpec, policy: &PumpPolicy) -> Self {
        LinkLock {
            spec,
            guard: None,
            checked: Timestamp::ZERO,
            check_every_ms: policy.lock_check_interval_ms,
        }
    }

    /// Writes the lock at `now` for a linked page whose engine checks `auth_token` (replacing
    /// a lock written before in place, atomically, token and all); Err says why it could not,
    /// for the user.
    pub fn write(&mut self, now: Timestamp, auth_token: &AuthToken) -> Result<(), String> {
        let contents = LockFile {
            pid: std::process::id(),
            workspace_folders: vec![self.spec.workspace.clone()],
            ide_name: self.spec.ide_name.clone(),
            auth_token: auth_token.as_str().to_owned(),
            running_in_windows: false,
        };
        let written = match self.guard.take() {
            Some(mut guard) => guard.rewrite(contents).map(|()| guard),
            None => LockFileGuard::create(&self.spec.dir, self.spec.port, contents),
        };
        let guard = written.map_err(|e| format!("the relay could not write the lock file: {e}"))?;
        println!(
            "page linked: claude can connect (lock {})",
            guard.path().display()
        );
        self.guard = Some(guard);
        self.checked = now;
        Ok(())
    }

    /// Removes the lock, if one was written.
    pub fn remove(&mut self) {
        if self.guard.take().is_some() {
            println!("page gone: lock removed, claude connections closed");
        }
    }

    /// Restores the lock file when it was deleted (checked at the policy's interval from the
    /// last check, `now` being the time of this call).
    pub fn check(&mut self, now: Timestamp) {
        if now.millis_since(self.checked) < self.check_every_ms {
            return;
        }
        self.checked = now;
        if let Some(Err(e)) = self.guard.as_mut().map(LockFileGuard::restore_if_missing) {
            eprintln!("idelink: cannot restore the lock file: {e}");
        }
    }
}
