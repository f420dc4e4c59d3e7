//! Per-frame snapshots: `Engine::handle_snapshot` and the lock rule that goes with it, the
//! snapshot in its JSON form (`EditorSnapshot`).

use crate::convert::{from_js_json, timestamp};
use crate::error::{guard, throw};
use crate::lockfile::LockFileJs;
use crate::registry::with;
use idelink_core::host_rules::lock_life;
use idelink_core::lockfile::LockFile;
use idelink_core::{EditorSnapshot, SnapshotChanges};
use napi::Env;
use napi::bindgen_prelude::Unknown;
use napi_derive::napi;

/// `Engine::handle_snapshot`, the snapshot in its JSON form. What changed comes back as bits,
/// which `lib/engine.js` turns into the `SnapshotChanges` object: 1 documents, 2 active,
/// 4 diagnostics, 8 workspace folders.
#[napi]
pub fn engine_handle_snapshot(
    env: Env,
    handle: f64,
    now: f64,
    snapshot: Unknown,
) -> napi::Result<u32> {
    let now = timestamp(now)?;
    let snapshot: EditorSnapshot = from_js_json(&env, snapshot)?;
    with(handle, |e| {
        let changes = snapshot.with_view(|view| e.handle_snapshot(now, view));
        Ok(bits(changes))
    })
}

fn bits(changes: SnapshotChanges) -> u32 {
    u32::from(changes.documents)
        | u32::from(changes.active) << 1
        | u32::from(changes.diagnostics) << 2
        | u32::from(changes.workspace_folders) << 3
}

/// The lock fields to write after the snapshot `snapshot` (its JSON form), or `null` when its
/// folders are the lock's already.
#[napi]
pub fn lock_rewritten_for_snapshot(
    env: Env,
    lock: LockFileJs,
    snapshot: Unknown,
) -> napi::Result<Option<LockFileJs>> {
    let snapshot: EditorSnapshot = from_js_json(&env, snapshot)?;
    guard(|| {
        let lock = LockFile::from(lock);
        let next = snapshot.with_view(|view| lock_life::rewritten_for_snapshot(&lock, view));
        Ok(next.map(LockFileJs::from))
    })
    .unwrap_or_else(|why| Err(throw(why)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_change_has_its_bit() {
        let all = SnapshotChanges {
            documents: true,
            active: true,
            diagnostics: true,
            workspace_folders: true,
        };
        assert_eq!(bits(all), 15);
        let active = SnapshotChanges {
            active: true,
            ..SnapshotChanges::default()
        };
        assert_eq!(bits(active), 2);
        assert_eq!(bits(SnapshotChanges::default()), 0);
    }
}
