//! The session list and the choice through the mio host, over real sockets: two clients that
//! answer `roots/list`, the list with their folders, and a mention that goes to the chosen one
//! alone.
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

mod common;

use common::{Client, Served, TempDir, config};
use idelink_core::{ConnId, EditorEvent, EngineEvent, Routing, SessionChoice};

/// A client through `initialize` (declaring `roots`) and `initialized`, answering the
/// `roots/list` that follows with `folder`.
fn rooted(served: &Served, folder: &str) -> Client {
    let mut client = Client::upgraded(served);
    client.send_text(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"claude-code","version":"2.1.332"}}}"#,
    );
    client.read_text();
    client.send_text(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    assert_eq!(
        client.read_text(),
        r#"{"jsonrpc":"2.0","id":1,"method":"roots/list"}"#
    );
    client.send_text(&format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"roots":[{{"uri":"file://{folder}"}}]}}}}"#
    ));
    client
}

#[test]
fn the_host_lists_sessions_with_their_folders_and_a_mention_goes_to_the_chosen_one() {
    let dir = TempDir::new("mio-sessions");
    let mut config = config(&dir);
    config.engine.routing = Routing::Chosen;
    config.engine.startup_window_ms = 0;
    let served = Served::start(config);
    let mut one = rooted(&served, "/a");
    let mut two = rooted(&served, "/b");
    served.wait_for("both sessions listed", |e| {
        matches!(e, EngineEvent::SessionsChanged { sessions } if sessions.len() == 2
            && sessions.iter().all(|s| s.folders.is_some()))
    });
    let listed = served.sessions();
    let folders: Vec<_> = listed.iter().map(|s| s.folders.clone().unwrap()).collect();
    assert_eq!(folders, [vec!["/a".to_owned()], vec!["/b".to_owned()]]);
    assert_eq!(
        served.choose(Some(SessionChoice::Conn {
            conn: ConnId::from_u64(99)
        })),
        Err(idelink_core::EngineError::UnknownConnection(
            ConnId::from_u64(99)
        ))
    );
    let chosen = listed[1].conn;
    served
        .choose(Some(SessionChoice::Conn { conn: chosen }))
        .unwrap();
    assert!(
        served
            .sessions()
            .iter()
            .any(|s| s.conn == chosen && s.chosen)
    );
    served.editor(EditorEvent::Mention {
        path: "/a/x.rs".into(),
        line_start: None,
        line_end: None,
    });
    assert_eq!(
        two.read_text(),
        r#"{"jsonrpc":"2.0","method":"at_mentioned","params":{"filePath":"/a/x.rs"}}"#
    );
    // The other client's next message is the answer to its ping: no mention came before it.
    assert_eq!(
        one.call(r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#),
        r#"{"jsonrpc":"2.0","id":5,"result":{}}"#
    );
    served.stop();
}
