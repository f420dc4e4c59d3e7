//! The session list and the choice through the tokio host, over real sockets: a client that
//! answers `roots/list` is listed with its folder, and a mention goes to the chosen session.
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

mod common;

use common::{TempDir, blocking, config, wait_for};
use idelink_core::{ConnId, EditorEvent, EngineError, EngineEvent, Routing, SessionChoice};
use idelink_test_client::Client;
use idelink_tokio::{Host, HostEvent};
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_host_lists_a_session_with_its_folder_and_sends_mentions_to_the_chosen_one() {
    let dir = TempDir::new("tokio-sessions");
    let mut config = config(&dir);
    config.engine.routing = Routing::Chosen;
    config.engine.startup_window_ms = 0;
    let (host, mut events) = Host::start(config).unwrap();
    let (port, token) = (host.port(), host.auth_token().as_str().to_owned());
    let mut client = blocking(move || {
        let mut client = Client::connect(port, &token).unwrap();
        let id = client
            .send_request(
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": {"roots": {}},
                       "clientInfo": {"name": "claude-code", "version": "2.1.332"}}),
            )
            .unwrap();
        client.response(id).unwrap();
        client
            .notify("notifications/initialized", json!({}))
            .unwrap();
        let asked: Value = client.next_json().unwrap();
        assert_eq!(
            asked,
            json!({"jsonrpc": "2.0", "id": 1, "method": "roots/list"})
        );
        client
            .send_text(r#"{"jsonrpc":"2.0","id":1,"result":{"roots":[{"uri":"file:///p/one"}]}}"#)
            .unwrap();
        client
    })
    .await;
    wait_for(&mut events, "the session listed", |e| {
        matches!(e, HostEvent::Engine(EngineEvent::SessionsChanged { sessions })
            if sessions.first().is_some_and(|s| s.folders.is_some()))
    })
    .await;
    let sessions = host.sessions().await.unwrap();
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0].folders, Some(vec!["/p/one".to_owned()]));
    let conn = sessions[0].conn;
    assert_eq!(
        host.choose_session(Some(SessionChoice::Conn {
            conn: ConnId::from_u64(42)
        }))
        .await,
        Err(EngineError::UnknownConnection(ConnId::from_u64(42)))
    );
    host.choose_session(Some(SessionChoice::Conn { conn }))
        .await
        .unwrap();
    assert!(host.sessions().await.unwrap()[0].chosen);
    host.handle_editor_event(EditorEvent::Mention {
        path: "/p/one/a.rs".into(),
        line_start: Some(1),
        line_end: Some(2),
    })
    .await
    .unwrap();
    let mention = blocking(move || client.notification("at_mentioned").unwrap()).await;
    assert_eq!(
        mention["params"],
        json!({"filePath": "/p/one/a.rs", "lineStart": 1, "lineEnd": 2})
    );
    host.shutdown(std::time::Duration::from_secs(1)).await;
}
