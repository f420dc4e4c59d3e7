//! Per-frame snapshots through the mio host: other folders rewrite the lock file, the same
//! snapshot again changes nothing, and a client sees the snapshot's state.
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

use idelink_core::ide::Range;
use idelink_core::snapshot::{ActiveView, DocumentView};
use idelink_core::{Snapshot, SnapshotChanges};
use idelink_mio::{Host, HostConfig, LockPlacement};
use idelink_test_client::Client;
use serde_json::json;
use std::time::Duration;

#[test]
fn a_snapshot_with_other_folders_rewrites_the_lock_and_an_unchanged_one_changes_nothing() {
    let dir = std::env::temp_dir().join(format!("idelink-snapshot-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut config = HostConfig::new("idelink-test", vec!["/w".into()]);
    config.lock = LockPlacement::At(dir.clone());
    let mut host = Host::start(config).unwrap();
    let lock = host.lock_path().unwrap().to_owned();
    let lock_body = || std::fs::read_to_string(&lock).unwrap();
    assert!(
        lock_body().contains(r#""workspaceFolders":["/w"]"#),
        "{}",
        lock_body()
    );

    let documents = [DocumentView {
        path: "/w/main.cpp",
        language_id: Some("cpp"),
        is_dirty: true,
        is_untitled: false,
    }];
    let same_folders = Snapshot {
        documents: &documents,
        active: Some(ActiveView {
            path: "/w/main.cpp",
            text: "",
            selection: Range::default(),
        }),
        diagnostics: &[],
        workspace_folders: &["/w"],
    };
    let changes = host.handle_snapshot(&same_folders).unwrap();
    assert!(changes.documents && changes.active && !changes.workspace_folders);
    let more = Snapshot {
        workspace_folders: &["/w", "/shared"],
        ..same_folders
    };
    let changes = host.handle_snapshot(&more).unwrap();
    assert_eq!(
        changes,
        SnapshotChanges {
            workspace_folders: true,
            ..SnapshotChanges::default()
        }
    );
    assert!(
        lock_body().contains(r#""workspaceFolders":["/w","/shared"]"#),
        "{}",
        lock_body()
    );
    assert!(!host.handle_snapshot(&more).unwrap().any());

    // A client sees the state the snapshots described.
    let port = host.port();
    let token = host.auth_token().as_str().to_owned();
    let client = std::thread::spawn(move || {
        let mut client = Client::connect_initialized(port, &token).unwrap();
        client
            .call_tool("checkDocumentDirty", json!({"filePath": "/w/main.cpp"}))
            .unwrap()
    });
    let mut events = Vec::new();
    while !client.is_finished() {
        host.poll(Some(Duration::from_millis(5)), &mut events)
            .unwrap();
    }
    let answer = client.join().unwrap().to_string();
    assert!(answer.contains(r#"\"isDirty\":true"#), "{answer}");
    host.shutdown(Duration::from_millis(100), &mut events);
    let _ = std::fs::remove_dir_all(&dir);
}
