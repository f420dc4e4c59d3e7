//! Per-frame snapshots through the tokio host: what changed comes back, other folders rewrite
//! the lock file, an unchanged snapshot changes nothing.
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

mod common;

use common::{TempDir, config};
use idelink_core::snapshot::{SnapshotActive, SnapshotDocument};
use idelink_core::{EditorSnapshot, SnapshotChanges};
use idelink_tokio::Host;
use serde_json::{Value, json};
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_snapshot_reports_its_changes_and_other_folders_rewrite_the_lock() {
    let dir = TempDir::new("snapshot");
    let (host, _events) = Host::start(config(&dir)).unwrap();
    let lock = host.lock_path().unwrap().to_owned();
    let folders = || {
        let body: Value = serde_json::from_str(&std::fs::read_to_string(&lock).unwrap()).unwrap();
        body["workspaceFolders"].clone()
    };
    let initial = folders();
    let mut frame = EditorSnapshot {
        documents: vec![SnapshotDocument {
            path: "/w/a.rs".into(),
            language_id: Some("rust".into()),
            is_dirty: false,
            is_untitled: false,
        }],
        active: Some(SnapshotActive {
            path: "/w/a.rs".into(),
            text: String::new(),
            selection: Default::default(),
        }),
        diagnostics: Vec::new(),
        workspace_folders: serde_json::from_value(initial.clone()).unwrap(),
    };
    let first = host.handle_snapshot(frame.clone()).await.unwrap();
    assert!(first.documents && first.active && !first.workspace_folders);
    let again = host.handle_snapshot(frame.clone()).await.unwrap();
    assert_eq!(again, SnapshotChanges::default());

    frame.workspace_folders.push("/shared".into());
    let moved = host.handle_snapshot(frame.clone()).await.unwrap();
    assert_eq!(
        moved,
        SnapshotChanges {
            workspace_folders: true,
            ..SnapshotChanges::default()
        }
    );
    let mut expected = initial.as_array().unwrap().clone();
    expected.push(json!("/shared"));
    assert_eq!(folders(), Value::Array(expected));

    host.shutdown(Duration::from_secs(1)).await;
}
