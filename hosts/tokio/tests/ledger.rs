//! The turn ledger through the tokio host, over a real socket and real files: a client's turn
//! (`closeAllDiffTabs`, `getDiagnostics {uri}`, the edit, `getDiagnostics {}`) is kept with
//! the baseline the editor read before the edit, and undoing the file writes it back.
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

mod common;

use common::{TempDir, blocking, config, wait_for};
use idelink_core::EngineEvent;
use idelink_core::ledger::{FileContent, TurnId, UndoTarget};
use idelink_test_client::Client;
use idelink_tokio::{Host, HostEvent};
use serde_json::json;
use std::path::Path;

/// What the editor reads for the ledger: the file's text, or no file.
fn on_disk(path: &Path) -> FileContent {
    match std::fs::read_to_string(path) {
        Ok(text) => FileContent::Text { text },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => FileContent::Missing,
        Err(e) => FileContent::Unread {
            reason: e.to_string(),
        },
    }
}

/// Waits for the next `LedgerRead` and answers it from disk.
async fn answer_read(host: &Host, events: &mut idelink_tokio::Events) -> String {
    let HostEvent::Engine(EngineEvent::LedgerRead { read, path }) =
        wait_for(events, "a ledger read", |e| {
            matches!(e, HostEvent::Engine(EngineEvent::LedgerRead { .. }))
        })
        .await
    else {
        unreachable!()
    };
    host.handle_ledger_read(read, on_disk(Path::new(&path)))
        .await
        .unwrap();
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_is_kept_with_its_baseline_and_undoing_its_file_writes_it_back() {
    let dir = TempDir::new("tokio-ledger");
    let mut config = config(&dir);
    config.engine.ledger = true;
    config.engine.ready_delay_ms = 0;
    let file = dir.path().join("w").join("a.txt");
    std::fs::write(&file, "one\ntwo\n").unwrap();
    let (host, mut events) = Host::start(config).unwrap();
    let (port, token) = (host.port(), host.auth_token().as_str().to_owned());
    let edited = file.clone();
    let claude = tokio::task::spawn_blocking(move || {
        let mut client = Client::connect_initialized(port, &token).unwrap();
        client.call_tool("closeAllDiffTabs", json!({})).unwrap();
        let path = edited.to_string_lossy().replace('\\', "/");
        let uri = match path.starts_with('/') {
            true => format!("file://{path}"),
            false => format!("file:///{path}"),
        };
        // Answered only once the editor read the baseline.
        client
            .call_tool("getDiagnostics", json!({ "uri": uri }))
            .unwrap();
        std::fs::write(&edited, "one\n2\n").unwrap();
        client.call_tool("getDiagnostics", json!({})).unwrap();
        client
    });
    let before = answer_read(&host, &mut events).await;
    assert_eq!(Path::new(&before), file);
    assert_eq!(answer_read(&host, &mut events).await, before);
    let _client = claude.await.unwrap();

    let turns = host.ledger().await.unwrap();
    assert_eq!(turns.len(), 1);
    let change = &turns[0].files[0];
    assert_eq!(
        (&change.baseline, &change.current, change.hunks.len()),
        (
            &FileContent::Text {
                text: "one\ntwo\n".into()
            },
            &FileContent::Text {
                text: "one\n2\n".into()
            },
            1
        )
    );

    let target = UndoTarget::File {
        turn: TurnId::from_u64(1),
        path: before.clone(),
    };
    host.ledger_undo(target).await.unwrap();
    let HostEvent::Engine(EngineEvent::LedgerWrite {
        write,
        file: planned,
    }) = wait_for(&mut events, "the undo's write", |e| {
        matches!(e, HostEvent::Engine(EngineEvent::LedgerWrite { .. }))
    })
    .await
    else {
        unreachable!()
    };
    // The editor's compare-and-write.
    let path = Path::new(&planned.path).to_owned();
    assert_eq!(on_disk(&path), planned.expected);
    let text = planned.text.clone().unwrap();
    blocking(move || std::fs::write(path, text).unwrap()).await;
    host.handle_ledger_written(write, on_disk(&file))
        .await
        .unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "one\ntwo\n");
    let turns = host.ledger().await.unwrap();
    assert_eq!(turns[0].files[0].current, turns[0].files[0].baseline);
    assert!(turns[0].files[0].hunks.is_empty());
    // An unknown turn is refused with its reason; an unknown read is refused.
    let refused = host
        .ledger_undo(UndoTarget::Turn {
            turn: TurnId::from_u64(7),
        })
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("turn 7"), "{refused}");
    assert!(
        host.handle_ledger_read(99, FileContent::Missing)
            .await
            .is_err()
    );
    host.shutdown(std::time::Duration::from_millis(200)).await;
}
