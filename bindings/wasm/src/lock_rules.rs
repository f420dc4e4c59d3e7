//! Core's lock-file rules for a JS host that keeps a lock file on disk: the npm package
//! `idelink` runs its Node host on this module when no native addon fits the platform, so
//! these are the same functions, with the same answers and messages, as the Node binding's
//! (`bindings/node/src/lockfile.rs`, `host_rules.rs`). The host performs the system calls.

use crate::convert::host_error;
use crate::json;
use idelink_core::forms::LockFields;
use idelink_core::host_rules::lock_dir::{self, ConfigDir, DirFacts, DirKind, DirVerdict};
use idelink_core::host_rules::lock_life::{self, LockOnDisk, LockUpkeep};
use idelink_core::lockfile::LockFile;
use idelink_core::{EditorEvent, EditorSnapshot};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const LOCK_FILE_FIELDS: &str = r#"
/** The fields of `<port>.lock` (the CLI's discovery file). */
export interface LockFile {
  pid: number;
  workspaceFolders: string[];
  ideName: string;
  authToken: string;
  runningInWindows?: boolean;
}
"#;

/// The fields of a lock file as JS passes them in (`LockFile`).
fn lock_fields(value: JsValue) -> Result<LockFile, JsError> {
    Ok(json::read::<LockFields>(&value)?.0)
}

/// `lock` as JS gets it back (`Required<LockFile>`).
fn fields_object(lock: LockFile) -> JsValue {
    json::write(&LockFields(lock))
}

/// The JSON text of `<port>.lock` for these fields (`transport: "ws"` added by core).
#[wasm_bindgen(js_name = lockFileJson)]
pub fn lock_file_json(
    #[wasm_bindgen(unchecked_param_type = "LockFile")] fields: JsValue,
) -> Result<String, JsError> {
    Ok(lock_fields(fields)?.to_json())
}

/// Reads a lock file body (ours or another IDE's), or throws saying what is wrong with it.
#[wasm_bindgen(js_name = parseLockFile, unchecked_return_type = "Required<LockFile>")]
pub fn parse_lock_file(text: &str) -> Result<JsValue, JsError> {
    let lock =
        LockFile::parse(text).map_err(|e| host_error(format_args!("invalid lock file: {e}")))?;
    Ok(fields_object(lock))
}

/// Core's `MAX_LOCK_BYTES`: the largest file in the lock folder a host reads as a lock (a
/// body is a few hundred bytes; anything larger is not a lock).
#[wasm_bindgen(js_name = maxLockBytes)]
pub fn max_lock_bytes() -> u32 {
    const { assert!(idelink_core::lockfile::MAX_LOCK_BYTES <= u32::MAX as u64) };
    idelink_core::lockfile::MAX_LOCK_BYTES as u32
}

/// The temporary name a lock is written to before it is renamed into place.
#[wasm_bindgen(js_name = lockTempFileName)]
pub fn lock_temp_file_name(file_name: &str, pid: u32, attempt: u32) -> String {
    lock_life::temp_file_name(file_name, pid, u64::from(attempt))
}

/// `"keep"` or `"restore"`, for whether a periodic check found the lock `present`.
#[wasm_bindgen(js_name = lockUpkeep)]
pub fn lock_upkeep(present: bool) -> String {
    let found = if present {
        LockOnDisk::Present
    } else {
        LockOnDisk::Missing
    };
    match LockUpkeep::after_check(found) {
        LockUpkeep::Keep => "keep".to_owned(),
        LockUpkeep::Restore => "restore".to_owned(),
    }
}

/// The lock fields to write after the editor event `event`, or `null` when it does not change
/// them.
#[wasm_bindgen(js_name = lockRewrittenFor, unchecked_return_type = "LockFile | null")]
pub fn lock_rewritten_for(
    #[wasm_bindgen(unchecked_param_type = "LockFile")] lock: JsValue,
    #[wasm_bindgen(unchecked_param_type = "EditorEvent")] event: JsValue,
) -> Result<JsValue, JsError> {
    let lock = lock_fields(lock)?;
    let event = json::read::<EditorEvent>(&event)?;
    match lock_life::rewritten_for(&lock, &event) {
        Some(next) => Ok(fields_object(next)),
        None => Ok(JsValue::NULL),
    }
}

/// The lock fields to write after the snapshot `snapshot` (its `EditorSnapshot` form), or
/// `null` when its folders are the lock's already.
#[wasm_bindgen(
    js_name = lockRewrittenForSnapshot,
    unchecked_return_type = "LockFile | null"
)]
pub fn lock_rewritten_for_snapshot(
    #[wasm_bindgen(unchecked_param_type = "LockFile")] lock: JsValue,
    #[wasm_bindgen(unchecked_param_type = "EditorSnapshot")] snapshot: JsValue,
) -> Result<JsValue, JsError> {
    let lock = lock_fields(lock)?;
    let snapshot = json::read::<EditorSnapshot>(&snapshot)?;
    match snapshot.with_view(|view| lock_life::rewritten_for_snapshot(&lock, view)) {
        Some(next) => Ok(fields_object(next)),
        None => Ok(JsValue::NULL),
    }
}

/// The lock directory's path components (`[CLAUDE_CONFIG_DIR, "ide"]` or
/// `[home, ".claude", "ide"]`), or throws when neither is known.
#[wasm_bindgen(js_name = lockDirComponents)]
pub fn lock_dir_components(
    claude_config_dir: Option<String>,
    home: Option<String>,
) -> Result<Vec<String>, JsError> {
    let dir =
        ConfigDir::locate(claude_config_dir.as_deref(), home.as_deref()).map_err(host_error)?;
    let mut parts: Vec<String> = dir.components().into_iter().map(str::to_owned).collect();
    parts.push(lock_dir::LOCK_SUBDIR.to_owned());
    Ok(parts)
}

/// What the host learnt about a directory: `kind` is `"directory"`, `"symlink"` or `"other"`.
fn facts(kind: &str, owner: u32, mode: u32) -> Result<DirFacts, JsError> {
    let kind = match kind {
        "directory" => DirKind::Directory,
        "symlink" => DirKind::Symlink,
        "other" => DirKind::Other,
        other => {
            return Err(host_error(format_args!(
                "kind must be \"directory\", \"symlink\" or \"other\", got `{other}`"
            )));
        }
    };
    Ok(DirFacts {
        kind,
        owner,
        mode: mode & 0o7777,
    })
}

fn verdict(verdict: DirVerdict) -> Option<u32> {
    match verdict {
        DirVerdict::Use => None,
        DirVerdict::Tighten(mode) => Some(mode),
    }
}

/// Throws (saying how to fix it) unless the config directory `dir` may hold `ide/` for user
/// `me`; returns `undefined` (it is never changed).
#[wasm_bindgen(js_name = judgeConfigDir)]
pub fn judge_config_dir(
    dir: &str,
    kind: &str,
    owner: u32,
    mode: u32,
    me: u32,
) -> Result<Option<u32>, JsError> {
    let judged = lock_dir::judge_config_dir(dir, facts(kind, owner, mode)?, me);
    Ok(verdict(judged.map_err(host_error)?))
}

/// Throws (saying how to fix it) unless `dir` may be the lock directory of user `me`; returns
/// the mode to set it to when it is looser than 0700, else `undefined`.
#[wasm_bindgen(js_name = judgeLockDir)]
pub fn judge_lock_dir(
    dir: &str,
    kind: &str,
    owner: u32,
    mode: u32,
    me: u32,
) -> Result<Option<u32>, JsError> {
    let judged = lock_dir::judge_lock_dir(dir, facts(kind, owner, mode)?, me);
    Ok(verdict(judged.map_err(host_error)?))
}
