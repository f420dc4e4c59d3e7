//! The lock file body, built and read by core (`idelink_core::lockfile::LockFile`), so the JS
//! layer never spells its fields itself.

use crate::error::{guard, throw};
use idelink_core::lockfile::LockFile;
use napi_derive::napi;

/// The fields of a lock file, as JS passes them in and gets them back.
#[napi(object)]
pub struct LockFileJs {
    /// A process that stays alive while the server runs (the CLI deletes locks of dead pids).
    pub pid: u32,
    /// Absolute paths the CLI matches its working directory against.
    pub workspace_folders: Vec<String>,
    /// Shown by the CLI as `Connected to <ideName> extension`.
    pub ide_name: String,
    /// The token clients must present.
    pub auth_token: String,
    /// Only for a Windows editor serving a CLI inside WSL.
    pub running_in_windows: Option<bool>,
}

impl From<LockFileJs> for LockFile {
    fn from(lock: LockFileJs) -> LockFile {
        LockFile {
            pid: lock.pid,
            workspace_folders: lock.workspace_folders,
            ide_name: lock.ide_name,
            auth_token: lock.auth_token,
            running_in_windows: lock.running_in_windows.unwrap_or(false),
        }
    }
}

impl From<LockFile> for LockFileJs {
    fn from(lock: LockFile) -> LockFileJs {
        LockFileJs {
            pid: lock.pid,
            workspace_folders: lock.workspace_folders,
            ide_name: lock.ide_name,
            auth_token: lock.auth_token,
            running_in_windows: Some(lock.running_in_windows),
        }
    }
}

/// Core's `MAX_LOCK_BYTES`: the largest file in the lock folder a host reads as a lock (a
/// body is a few hundred bytes; anything larger is not a lock).
#[napi]
pub fn max_lock_bytes() -> u32 {
    const { assert!(idelink_core::lockfile::MAX_LOCK_BYTES <= u32::MAX as u64) };
    idelink_core::lockfile::MAX_LOCK_BYTES as u32
}

/// The JSON text of `<port>.lock` for these fields (`transport: "ws"` added by core).
#[napi]
pub fn lock_file_json(lock: LockFileJs) -> napi::Result<String> {
    guard(|| Ok(LockFile::from(lock).to_json())).unwrap_or_else(|why| Err(throw(why)))
}

/// Reads a lock file body (ours or another IDE's), or throws saying what is wrong with it.
#[napi]
pub fn parse_lock_file(text: String) -> napi::Result<LockFileJs> {
    guard(|| {
        let lock =
            LockFile::parse(&text).map_err(|e| throw(format_args!("invalid lock file: {e}")))?;
        Ok(LockFileJs::from(lock))
    })
    .unwrap_or_else(|why| Err(throw(why)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_is_cores_and_reads_back() -> napi::Result<()> {
        let fields = || LockFileJs {
            pid: 42,
            workspace_folders: vec!["/w".into()],
            ide_name: "Nova".into(),
            auth_token: "00112233445566778899aabbccddeeff".into(),
            running_in_windows: None,
        };
        let text = lock_file_json(fields())?;
        assert_eq!(
            text,
            r#"{"pid":42,"workspaceFolders":["/w"],"ideName":"Nova","transport":"ws","authToken":"00112233445566778899aabbccddeeff"}"#
        );
        let back = parse_lock_file(text)?;
        assert_eq!((back.pid, back.running_in_windows), (42, Some(false)));
        let err = parse_lock_file("{}".into()).err().map(|e| e.reason);
        assert!(err.is_some_and(|m| m.starts_with("invalid lock file: ")));
        Ok(())
    }
}
