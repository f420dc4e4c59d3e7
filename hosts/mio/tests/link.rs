//! A remote link attached to the mio host over real pipes: the test plays the bridge (a core
//! bridge end on its own thread, writing one pipe and reading the other), the host serves the
//! connection it opens with its engine, then the bridge's stream ends and the host closes the
//! connection and reports the link's end.
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

use idelink_core::link::{AttachEvent, Hello, Link, LinkConfig, LinkEvent, LinkFault, LinkRole};
use idelink_core::{EngineEvent, Timestamp};
use idelink_mio::{Host, HostConfig, LinkPipes, LockPlacement};
use idelink_test_client::{client_frame, upgrade_request};
use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const DEADLINE: Duration = Duration::from_secs(10);
/// The port the bridge says it listens on (claude's `Host` names it).
const BRIDGE_PORT: u16 = 41_234;

/// The bridge's side: says hello, opens one connection with `request`, and returns what the
/// host answered on it once it holds `until`; then ends its stream.
fn bridge(
    mut from_host: impl Read + Send + 'static,
    mut to_host: impl Write + Send + 'static,
    request: Vec<u8>,
    until: &'static [u8],
) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
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
        let conn = link.open().unwrap();
        assert_eq!(link.send(conn, &request).unwrap(), request.len());
        to_host.write_all(link.outbound()).unwrap();
        link.handle_sent(link.outbound().len()).unwrap();
        let mut buf = vec![0u8; 65536];
        loop {
            let held = link.received(conn).unwrap();
            if held.windows(until.len()).any(|w| w == until) {
                // Dropping `to_host` ends the host's input: the link's end.
                return held.to_vec();
            }
            let n = from_host.read(&mut buf).unwrap();
            assert!(n > 0, "the host ended the link first");
            link.handle_bytes(Timestamp::ZERO, &buf[..n]);
            while let Some(event) = link.poll_event() {
                assert!(!matches!(event, LinkEvent::Dead(_)), "{event:?}");
            }
        }
    })
}

#[test]
fn a_link_over_pipes_is_served_by_the_host_engine_and_its_end_closes_the_connection() {
    let work = std::env::temp_dir().join("idelink-link-work");
    let mut config = HostConfig::new("Link Test", vec![work.display().to_string()]);
    config.lock = LockPlacement::None;
    let mut host = Host::start(config).unwrap();
    let token = host.auth_token().as_str().to_owned();
    let (host_in, bridge_out) = std::io::pipe().unwrap();
    let (bridge_in, host_out) = std::io::pipe().unwrap();
    let mut request = upgrade_request(BRIDGE_PORT, Some(&token), "").into_bytes();
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","version":"2.1.332"}}}"#;
    let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"getWorkspaceFolders","arguments":{}}}"#;
    request.extend(client_frame(0x81, init.as_bytes()));
    request.extend(client_frame(
        0x81,
        br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    ));
    request.extend(client_frame(0x81, call.as_bytes()));
    let far = bridge(bridge_in, bridge_out, request, br#"\"rootPath\""#);
    let heard = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&heard);
    let hello = Hello {
        token: Some(token),
        ..Hello::default()
    };
    host.attach_link(
        &hello,
        LinkPipes::new(host_in, host_out),
        Box::new(move |event| log.lock().unwrap().push(event.clone())),
    )
    .unwrap();
    let mut events = Vec::new();
    let start = Instant::now();
    while !heard
        .lock()
        .unwrap()
        .iter()
        .any(|e| matches!(e, AttachEvent::Dead(_)))
    {
        assert!(
            start.elapsed() < DEADLINE,
            "no end of link; events {events:?}"
        );
        host.poll(Some(Duration::from_millis(50)), &mut events)
            .unwrap();
    }
    let answer = String::from_utf8_lossy(&far.join().unwrap()).into_owned();
    assert!(answer.starts_with("HTTP/1.1 101 "), "{answer}");
    assert!(
        answer.contains(r#"{"jsonrpc":"2.0","id":1,"result""#),
        "{answer}"
    );
    assert!(answer.contains("idelink-link-work"), "{answer}");
    let heard = heard.lock().unwrap();
    assert!(
        matches!(&heard[0], AttachEvent::Hello(h) if h.port == Some(BRIDGE_PORT)),
        "{heard:?}"
    );
    assert_eq!(heard[1], AttachEvent::Dead(LinkFault::Eof));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, EngineEvent::Connected { .. })),
        "{events:?}"
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, EngineEvent::Closed { .. })),
        "the link's end closed the connection: {events:?}"
    );
}
