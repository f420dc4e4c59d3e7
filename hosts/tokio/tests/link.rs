//! A remote link attached to the tokio host over a real process's stdio: the "bridge" is `sh`
//! writing a prepared bridge stream (hello, a connection with claude's upgrade, `initialize` and
//! a `tools/call`) to its stdout and copying what the host sends it into a file. The host's
//! engine serves the connection; the process's end (it is killed) is the link's end, which
//! closes the connection.
#![cfg(unix)]
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

mod common;

use common::{DEADLINE, TempDir, config, wait_for};
use idelink_core::link::{AttachEvent, Hello, Link, LinkConfig, LinkEvent, LinkFault, LinkRole};
use idelink_core::{EngineEvent, Timestamp};
use idelink_test_client::{client_frame, upgrade_request};
use idelink_tokio::{Host, HostEvent};
use std::process::Stdio;
use std::time::{Duration, Instant};

const BRIDGE_PORT: u16 = 41_235;

/// The bridge's end with claude's first bytes sent on its connection, and its stream so far.
fn bridge_end(token: &str) -> (Link, Vec<u8>) {
    let hello = Hello {
        binary_version: "test".into(),
        port: Some(BRIDGE_PORT),
        ..Hello::default()
    };
    let mut link = Link::new(
        LinkRole::Bridge,
        LinkConfig::default(),
        &hello,
        Timestamp::ZERO,
    )
    .unwrap();
    let mut claude = upgrade_request(BRIDGE_PORT, Some(token), "").into_bytes();
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","version":"2.1.332"}}}"#;
    claude.extend(client_frame(0x81, init.as_bytes()));
    let done = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    claude.extend(client_frame(0x81, done));
    let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"getWorkspaceFolders","arguments":{}}}"#;
    claude.extend(client_frame(0x81, call.as_bytes()));
    let conn = link.open().unwrap();
    assert_eq!(link.send(conn, &claude).unwrap(), claude.len());
    let stream = link.outbound().to_vec();
    (link, stream)
}

/// What the host sent the bridge on connection 1, read back by the bridge's end.
fn carried(token: &str, stream: &[u8]) -> Vec<u8> {
    let (mut link, _) = bridge_end(token);
    let conn = link.connections().next().unwrap();
    link.handle_bytes(Timestamp::ZERO, stream);
    while let Some(event) = link.poll_event() {
        assert!(!matches!(event, LinkEvent::Dead(_)), "{event:?}");
    }
    link.received(conn).unwrap().to_vec()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spawned_bridge_is_served_by_the_host_and_its_death_closes_the_connection() {
    let dir = TempDir::new("link");
    let (host, mut events) = Host::start(config(&dir)).unwrap();
    let token = host.auth_token().as_str().to_owned();
    let frames = dir.path().join("bridge-frames");
    let heard = dir.path().join("from-host");
    std::fs::write(&frames, bridge_end(&token).1).unwrap();
    let mut bridge = tokio::process::Command::new("sh")
        .args(["-c", r#"cat "$0"; exec cat > "$1""#])
        .arg(&frames)
        .arg(&heard)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let (input, output) = (bridge.stdout.take().unwrap(), bridge.stdin.take().unwrap());
    let hello = Hello {
        token: Some(token.clone()),
        ..Hello::default()
    };
    let mut link = host.attach_link(hello, input, output).await.unwrap();
    let first = tokio::time::timeout(DEADLINE, link.recv()).await.unwrap();
    assert!(
        matches!(&first, Some(AttachEvent::Hello(h)) if h.port == Some(BRIDGE_PORT)),
        "{first:?}"
    );
    wait_for(&mut events, "the bridge's client", |e| {
        matches!(e, HostEvent::Engine(EngineEvent::Connected { .. }))
    })
    .await;
    // The answer reached the far process (it copies the stream into a file as it comes).
    let answered = br#"\"rootPath\""#;
    let start = Instant::now();
    let answer = loop {
        let answer = carried(&token, &std::fs::read(&heard).unwrap_or_default());
        if answer.windows(answered.len()).any(|w| w == answered) {
            break answer;
        }
        assert!(start.elapsed() < DEADLINE, "no answer through the link");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 101 "), "{answer}");
    assert!(
        answer.contains(r#"{"jsonrpc":"2.0","id":1,"result""#),
        "{answer}"
    );
    // The bridge dies: the link ends and its connection closes in the engine.
    bridge.kill().await.unwrap();
    let end = tokio::time::timeout(DEADLINE, link.recv()).await.unwrap();
    assert_eq!(end, Some(AttachEvent::Dead(LinkFault::Eof)));
    wait_for(&mut events, "the carried connection's close", |e| {
        matches!(e, HostEvent::Engine(EngineEvent::Closed { .. }))
    })
    .await;
    assert_eq!(
        tokio::time::timeout(DEADLINE, link.recv()).await.unwrap(),
        None
    );
    host.shutdown(Duration::from_millis(100)).await;
}
