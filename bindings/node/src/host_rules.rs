//! Core's host rules ([`idelink_core::host_rules`]) for the Node host (`lib/lock.js`,
//! `lib/host.js`): lock names, the stale rule, the directory rules, the lock's upkeep and the
//! pump policy. The JS side performs the system calls and asks these what to do.

use crate::convert::from_js_json;
use crate::error::{guard, throw};
use crate::lockfile::LockFileJs;
use idelink_core::EditorEvent;
use idelink_core::host_rules::PumpPolicy;
use idelink_core::host_rules::lock_dir::{self, ConfigDir, DirFacts, DirKind, DirVerdict};
use idelink_core::host_rules::lock_life::{self, LockOnDisk, LockUpkeep};
use idelink_core::lockfile::LockFile;
use napi::Env;
use napi::bindgen_prelude::Unknown;
use napi_derive::napi;

/// `"<port>.lock"`.
#[napi]
pub fn lock_file_name(port: u16) -> String {
    LockFile::file_name(port)
}

/// The port a lock file name stands for, or `null` for any other name.
#[napi]
pub fn lock_port_from_file_name(name: String) -> Option<u16> {
    LockFile::port_from_file_name(&name)
}

/// The pid whose death makes `fileName` (holding `body`) one of our stale locks, or `null`
/// when the file is not ours to judge.
#[napi]
pub fn stale_lock_owner(file_name: String, body: String, our_ide_name: String) -> Option<u32> {
    lock_life::stale_lock_owner(&file_name, &body, &our_ide_name)
}

/// The temporary name a lock is written to before it is renamed into place.
#[napi]
pub fn lock_temp_file_name(file_name: String, pid: u32, attempt: u32) -> String {
    lock_life::temp_file_name(&file_name, pid, u64::from(attempt))
}

/// `"keep"` or `"restore"`, for whether a periodic check found the lock `present`.
#[napi]
pub fn lock_upkeep(present: bool) -> &'static str {
    let found = if present {
        LockOnDisk::Present
    } else {
        LockOnDisk::Missing
    };
    match LockUpkeep::after_check(found) {
        LockUpkeep::Keep => "keep",
        LockUpkeep::Restore => "restore",
    }
}

/// The lock fields to write after the editor event `event` (its JSON form), or `null` when it
/// does not change them.
#[napi]
pub fn lock_rewritten_for(
    env: Env,
    lock: LockFileJs,
    event: Unknown,
) -> napi::Result<Option<LockFileJs>> {
    let event: EditorEvent = from_js_json(&env, event)?;
    guard(|| {
        let next = lock_life::rewritten_for(&LockFile::from(lock), &event);
        Ok(next.map(LockFileJs::from))
    })
    .unwrap_or_else(|why| Err(throw(why)))
}

/// The lock directory's path components (`[CLAUDE_CONFIG_DIR, "ide"]` or
/// `[home, ".claude", "ide"]`), or throws when neither is known.
#[napi]
pub fn lock_dir_components(
    claude_config_dir: Option<String>,
    home: Option<String>,
) -> napi::Result<Vec<String>> {
    let dir = ConfigDir::locate(claude_config_dir.as_deref(), home.as_deref()).map_err(throw)?;
    let mut parts: Vec<String> = dir.components().into_iter().map(str::to_owned).collect();
    parts.push(lock_dir::LOCK_SUBDIR.to_owned());
    Ok(parts)
}

/// What the host learnt about a directory: `kind` is `"directory"`, `"symlink"` or `"other"`.
#[napi(object)]
pub struct DirFactsJs {
    /// `"directory"`, `"symlink"` or `"other"`.
    pub kind: String,
    /// The owner's uid.
    pub owner: u32,
    /// The permission bits.
    pub mode: u32,
}

fn facts(js: &DirFactsJs) -> napi::Result<DirFacts> {
    let kind = match js.kind.as_str() {
        "directory" => DirKind::Directory,
        "symlink" => DirKind::Symlink,
        "other" => DirKind::Other,
        other => {
            return Err(throw(format_args!(
                "kind must be \"directory\", \"symlink\" or \"other\", got {other:?}"
            )));
        }
    };
    Ok(DirFacts {
        kind,
        owner: js.owner,
        mode: js.mode & 0o7777,
    })
}

fn verdict(verdict: DirVerdict) -> Option<u32> {
    match verdict {
        DirVerdict::Use => None,
        DirVerdict::Tighten(mode) => Some(mode),
    }
}

/// Throws (saying how to fix it) unless the config directory `dir` may hold `ide/` for user
/// `me`; returns `null` (it is never changed).
#[napi]
pub fn judge_config_dir(dir: String, facts_js: DirFactsJs, me: u32) -> napi::Result<Option<u32>> {
    let judged = lock_dir::judge_config_dir(&dir, facts(&facts_js)?, me).map_err(throw)?;
    Ok(verdict(judged))
}

/// Throws (saying how to fix it) unless `dir` may be the lock directory of user `me`; returns
/// the mode to set it to when it is looser than 0700, else `null`.
#[napi]
pub fn judge_lock_dir(dir: String, facts_js: DirFactsJs, me: u32) -> napi::Result<Option<u32>> {
    let judged = lock_dir::judge_lock_dir(&dir, facts(&facts_js)?, me).map_err(throw)?;
    Ok(verdict(judged))
}

/// The socket pump policy, in JS numbers.
#[napi(object)]
pub struct PumpPolicyJs {
    /// Stop reading a socket with this many unsent answer bytes.
    pub pause_reads_at_bytes: f64,
    /// Read it again below this many.
    pub resume_reads_below_bytes: f64,
    /// How long a closed connection may take to flush, in ms.
    pub linger_ms: f64,
    /// How often the lock file is checked, in ms.
    pub lock_check_interval_ms: f64,
}

/// The pump policy every host uses; `pauseReadsAtBytes` (optional) moves the pause mark, and
/// the resume mark with it (half).
#[napi]
pub fn pump_policy(pause_reads_at_bytes: Option<f64>) -> napi::Result<PumpPolicyJs> {
    let policy = policy(pause_reads_at_bytes)?;
    Ok(PumpPolicyJs {
        pause_reads_at_bytes: policy.pause_reads_at_bytes as f64,
        resume_reads_below_bytes: policy.resume_reads_below_bytes as f64,
        linger_ms: policy.linger_ms as f64,
        lock_check_interval_ms: policy.lock_check_interval_ms as f64,
    })
}

/// The default pump policy, or one pausing at `pauseReadsAtBytes` (resuming below half).
pub fn policy(pause_reads_at_bytes: Option<f64>) -> napi::Result<PumpPolicy> {
    Ok(match pause_reads_at_bytes {
        None => PumpPolicy::DEFAULT,
        Some(n) => {
            let n = crate::convert::whole_number(n, "pauseReadsAtBytes")?;
            PumpPolicy::pausing_at(usize::try_from(n).map_err(throw)?)
        }
    })
}
