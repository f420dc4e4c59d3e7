//! The adapter against a real engine and a bridge end of the link, on virtual time: a whole
//! upgrade and `tools/call` with the link's frames byte for byte, per-connection
//! back-pressure, closes from either side, the linger, and a dead link.

use super::*;
use crate::engine::{CloseReason, EngineEvent};
use crate::token::AuthToken;
use crate::{Config, Engine};

const PORT: u16 = 40_000;
const BRIDGE_PORT: u16 = 41_000;

fn at(ms: u64) -> Timestamp {
    Timestamp::from_millis(ms)
}

fn token() -> AuthToken {
    AuthToken::from_entropy([0x11; 16])
}

/// The upgrade claude sends to the bridge's port, with `token`.
fn upgrade(port: u16, token: &str) -> Vec<u8> {
    format!(
        "GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
         Sec-WebSocket-Protocol: mcp\r\nX-Claude-Code-Ide-Authorization: {token}\r\n\r\n"
    )
    .into_bytes()
}

/// A masked client text frame.
fn text(json: &str) -> Vec<u8> {
    let payload = json.as_bytes();
    let mut out = vec![0x81];
    match payload.len() {
        n if n < 126 => out.push(0x80 | n as u8),
        n => {
            out.push(0x80 | 126);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
    }
    let key = [1, 2, 3, 4];
    out.extend_from_slice(&key);
    out.extend(payload.iter().enumerate().map(|(i, b)| b ^ key[i % 4]));
    out
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","version":"2.1.332"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn folders_call(id: u32) -> Vec<u8> {
    text(&format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"getWorkspaceFolders","arguments":{{}}}}}}"#
    ))
}

/// Claude's side of a session: the upgrade, the MCP handshake and one `tools/call`.
fn session() -> Vec<u8> {
    let mut bytes = upgrade(BRIDGE_PORT, token().as_str());
    bytes.extend(text(INIT));
    bytes.extend(text(INITIALIZED));
    bytes.extend(folders_call(1));
    bytes
}

fn config() -> Config {
    let mut config = Config::new(PORT);
    config.workspace_folders = vec!["/w".into()];
    config
}

fn editor_hello() -> Hello {
    Hello {
        binary_version: "0.9.0".into(),
        token: Some(token().as_str().to_owned()),
        ..Hello::default()
    }
}

fn bridge_hello() -> Hello {
    Hello {
        binary_version: "0.9.0".into(),
        port: Some(BRIDGE_PORT),
        pid: Some(7),
        ..Hello::default()
    }
}

/// The frame bytes of one link frame, for byte-exact expectations.
fn link_frame(kind: u8, conn: u32, payload: &[u8]) -> Vec<u8> {
    let mut out = vec![kind];
    out.extend_from_slice(&conn.to_be_bytes());
    out.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    out.extend_from_slice(payload);
    out
}

/// The editor side (an engine with the adapter) and the far side (a bridge end standing in for
/// the bridge and its claude clients), joined by an in-memory stream.
struct Sides {
    engine: Engine,
    attach: LinkAttach,
    bridge: Link,
    events: Vec<EngineEvent>,
    now: Timestamp,
}

impl Sides {
    fn new(link: LinkConfig, policy: PumpPolicy) -> Sides {
        let mut sides = Sides {
            engine: Engine::new(config(), token()),
            attach: LinkAttach::new(&editor_hello(), link, policy, at(0)).expect("hello"),
            bridge: Link::new(LinkRole::Bridge, link, &bridge_hello(), at(0)).expect("hello"),
            events: Vec::new(),
            now: at(0),
        };
        sides.carry_to_editor();
        sides.carry_to_bridge();
        assert_eq!(
            sides.attach.poll_event(),
            Some(AttachEvent::Hello(bridge_hello()))
        );
        assert_eq!(sides.attach.poll_event(), None);
        assert!(matches!(
            sides.bridge.poll_event(),
            Some(LinkEvent::Hello(_))
        ));
        sides
    }

    /// Drains the engine through the adapter, as a host does after every input.
    fn drain(&mut self) {
        while let Some(output) = self.engine.poll_output() {
            match self
                .attach
                .handle_output(&mut self.engine, self.now, output)
            {
                None => {}
                Some(Output::Event(event)) => self.events.push(event),
                Some(other) => panic!("an output of no link connection: {other:?}"),
            }
        }
    }

    /// Moves what the bridge end queued to the adapter.
    fn carry_to_editor(&mut self) {
        let bytes = self.bridge.outbound().to_vec();
        self.bridge.handle_sent(bytes.len()).expect("wrote it");
        self.attach
            .handle_stream_bytes(&mut self.engine, self.now, &bytes);
        self.drain();
    }

    /// Moves what the adapter queued to the bridge end; returns the bytes.
    fn carry_to_bridge(&mut self) -> Vec<u8> {
        let bytes = self.attach.outbound().to_vec();
        self.attach.handle_sent(bytes.len()).expect("wrote it");
        self.bridge.handle_bytes(self.now, &bytes);
        bytes
    }

    /// Claude opens a connection at the bridge and sends `bytes`.
    fn open(&mut self, bytes: &[u8]) -> LinkConnId {
        let conn = self.bridge.open().expect("open");
        assert_eq!(self.bridge.send(conn, bytes), Ok(bytes.len()));
        conn
    }

    /// The bridge end's events since the last call.
    fn bridge_events(&mut self) -> Vec<LinkEvent> {
        std::iter::from_fn(|| self.bridge.poll_event()).collect()
    }

    /// What claude reads on `conn`: all the bridge holds for it, consumed (credit goes back).
    fn read(&mut self, conn: LinkConnId) -> Vec<u8> {
        let bytes = self.bridge.received(conn).expect("open").to_vec();
        self.bridge.consume(conn, bytes.len()).expect("held");
        bytes
    }

    fn closed(&self) -> Vec<(ConnId, CloseReason)> {
        let closed = self.events.iter().filter_map(|e| match e {
            EngineEvent::Closed { conn, reason } => Some((*conn, reason.clone())),
            _ => None,
        });
        closed.collect()
    }
}

/// What an engine fed `bytes` on a socket of its own writes back (the reference the link's
/// `Data` must carry unchanged).
fn direct(bytes: &[u8]) -> Vec<u8> {
    let mut config = config();
    config.bridge_port = BRIDGE_PORT;
    let mut engine = Engine::new(config, token());
    let conn = engine.handle_accept(at(0));
    engine.handle_bytes(at(0), conn, bytes).expect("known");
    let mut out = Vec::new();
    while let Some(output) = engine.poll_output() {
        if let Output::Transmit { conn } = output {
            let bytes = engine.outbound(conn).to_vec();
            engine.handle_sent(conn, bytes.len()).expect("held");
            out.extend(bytes);
        }
    }
    out
}

#[test]
fn an_upgrade_and_a_tools_call_cross_the_adapter_byte_for_byte() {
    let mut sides = Sides::new(LinkConfig::default(), PumpPolicy::DEFAULT);
    let claude = sides.open(&session());
    sides.carry_to_editor();
    assert_eq!(
        sides.attach.len(),
        1,
        "the bridge's connection is the engine's"
    );
    let conn = ConnId::from_u64(1);
    assert!(sides.attach.carries(conn));
    let wire = sides.carry_to_bridge();
    // Its bytes were fed whole and credited back at once (the receive buffer ran dry), then
    // the engine's answers went out as one `Data` frame: the 101, `initialize`'s result and the
    // `tools/call` answer, exactly what the engine writes on a socket of its own.
    let answers = direct(&session());
    let mut expected = link_frame(0x05, 1, &(session().len() as u32).to_be_bytes());
    expected.extend(link_frame(0x03, 1, &answers));
    assert_eq!(wire, expected);
    assert!(answers.starts_with(b"HTTP/1.1 101 Switching Protocols\r\n"));
    let folders = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"success\":true,\"folders\":[{\"name\":\"w\",\"uri\":\"file:///w\",\"path\":\"/w\"}],\"rootPath\":\"/w\"}"}]}}"#;
    assert!(
        answers.ends_with(folders),
        "{}",
        String::from_utf8_lossy(&answers)
    );
    assert_eq!(sides.bridge_events(), [LinkEvent::Readable(claude)]);
    assert_eq!(sides.read(claude), answers);
    assert!(
        matches!(sides.events[0], EngineEvent::Connected { conn: c, .. } if c == conn),
        "{:?}",
        sides.events
    );
}

#[test]
fn the_bridge_port_is_accepted_only_once_the_bridge_said_it() {
    let mut engine = Engine::new(config(), token());
    let conn = engine.handle_accept(at(0));
    engine
        .handle_bytes(at(0), conn, &upgrade(BRIDGE_PORT, token().as_str()))
        .expect("known");
    let refused = std::iter::from_fn(|| engine.poll_output())
        .any(|o| matches!(o, Output::CloseTransport { .. }));
    assert!(
        refused,
        "without the hello the bridge's port is not this engine's"
    );
}

#[test]
fn a_connection_without_credit_pauses_alone() {
    // 1 KiB of credit each way; the adapter stops feeding a connection at 2 KiB unsent.
    let link = LinkConfig {
        window_bytes: 1024,
        ..LinkConfig::default()
    };
    let mut sides = Sides::new(link, PumpPolicy::pausing_at(2048));
    let mut handshake = upgrade(BRIDGE_PORT, token().as_str());
    handshake.extend(text(INIT));
    handshake.extend(text(INITIALIZED));
    let stuck = sides.open(&handshake);
    let live = sides.open(&handshake);
    sides.carry_to_editor();
    sides.carry_to_bridge();
    sides.read(live);
    // The stuck claude pipelines calls and never reads: its answers fill its credit, then the
    // engine's unsent bytes reach the pause mark, then its own calls stop being credited.
    let mut sent = 0;
    for id in 1..200 {
        let call = folders_call(id);
        if sides.bridge.writable(stuck).expect("open") < call.len() {
            break;
        }
        assert_eq!(sides.bridge.send(stuck, &call), Ok(call.len()));
        sent += 1;
        sides.carry_to_editor();
        sides.carry_to_bridge();
    }
    assert!(
        sent > 10 && sent < 199,
        "{sent} calls before the credit ran out"
    );
    assert!(sides.bridge.writable(stuck).expect("open") < folders_call(1).len());
    let unsent = sides.engine.outbound(ConnId::from_u64(1)).len();
    assert!(unsent >= 2048, "the engine holds {unsent} bytes for it");
    // The other connection is served as if nothing happened.
    assert_eq!(sides.bridge.writable(live), Ok(1024));
    let call = folders_call(1);
    assert_eq!(sides.bridge.send(live, &call), Ok(call.len()));
    sides.carry_to_editor();
    sides.carry_to_bridge();
    let answer = sides.read(live);
    assert!(answer.ends_with(br#"\"rootPath\":\"/w\"}"}]}}"#));
    // The stuck claude reads at last: every answer comes, in order, and its calls flow again.
    let mut read = Vec::new();
    for _ in 0..1000 {
        read.extend(sides.read(stuck));
        sides.carry_to_editor();
        sides.carry_to_bridge();
        if sides.engine.outbound(ConnId::from_u64(1)).is_empty()
            && sides.bridge.received(stuck).expect("open").is_empty()
        {
            break;
        }
    }
    let text = String::from_utf8_lossy(&read);
    let ids: Vec<usize> = (1..=sent)
        .map(|id| {
            text.find(&format!(r#""id":{id},"#))
                .unwrap_or_else(|| panic!("answer {id} missing"))
        })
        .collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "answers in order");
    assert_eq!(
        sides.bridge.writable(stuck),
        Ok(1024),
        "all its credit is back"
    );
}

#[test]
fn claude_closing_at_the_bridge_closes_the_engine_connection() {
    let mut sides = Sides::new(LinkConfig::default(), PumpPolicy::DEFAULT);
    let claude = sides.open(&session());
    sides.carry_to_editor();
    sides.carry_to_bridge();
    sides.read(claude);
    sides.bridge.close(claude).expect("open");
    sides.carry_to_editor();
    assert_eq!(
        sides.closed(),
        [(ConnId::from_u64(1), CloseReason::TransportClosed)]
    );
    assert!(sides.attach.is_empty());
    // Nothing goes back for a connection the bridge closed.
    assert_eq!(sides.carry_to_bridge(), b"");
}

#[test]
fn the_engine_closing_sends_its_last_bytes_then_a_close() {
    let mut sides = Sides::new(LinkConfig::default(), PumpPolicy::DEFAULT);
    let claude = sides.open(&upgrade(BRIDGE_PORT, "wrong-token"));
    sides.carry_to_editor();
    assert!(sides.attach.is_empty(), "the engine closed it");
    let wire = sides.carry_to_bridge();
    let refusal = direct(&upgrade(BRIDGE_PORT, "wrong-token"));
    assert!(refusal.starts_with(b"HTTP/1.1 401 "));
    let bad = upgrade(BRIDGE_PORT, "wrong-token");
    let mut expected = link_frame(0x05, 1, &(bad.len() as u32).to_be_bytes());
    expected.extend(link_frame(0x03, 1, &refusal));
    expected.extend(link_frame(0x04, 1, &[]));
    assert_eq!(wire, expected, "its credit, the 401, then the close");
    assert_eq!(
        sides.bridge_events(),
        [LinkEvent::Readable(claude), LinkEvent::Closed(claude)]
    );
    assert_eq!(sides.bridge.received(claude), Ok(&refusal[..]));
}

#[test]
fn a_closing_connection_that_cannot_flush_is_dropped_after_the_linger() {
    let link = LinkConfig {
        window_bytes: 16,
        ..LinkConfig::default()
    };
    let mut sides = Sides::new(link, PumpPolicy::DEFAULT);
    let bad = upgrade(BRIDGE_PORT, "wrong-token");
    let claude = sides.bridge.open().expect("open");
    let mut at_once = 0;
    while at_once < bad.len() {
        let n = sides.bridge.send(claude, &bad[at_once..]).expect("open");
        at_once += n;
        sides.carry_to_editor();
        sides.carry_to_bridge();
        if n == 0 {
            break;
        }
        // Claude never reads the 401: the adapter's credit for it is 16 bytes.
    }
    assert_eq!(sides.attach.len(), 1, "closing, its 401 waiting for credit");
    let due = sides.attach.poll_timeout().expect("alive");
    assert_eq!(due, at(PumpPolicy::DEFAULT.linger_ms));
    sides.now = due;
    sides.attach.handle_timeout(&mut sides.engine, due);
    sides.drain();
    assert!(sides.attach.is_empty());
    sides.carry_to_bridge();
    assert!(sides.bridge_events().contains(&LinkEvent::Closed(claude)));
}

#[test]
fn a_dead_link_closes_every_engine_connection() {
    let mut sides = Sides::new(LinkConfig::default(), PumpPolicy::DEFAULT);
    let first = sides.open(&session());
    sides.open(&session());
    sides.carry_to_editor();
    sides.carry_to_bridge();
    sides.read(first);
    assert_eq!(sides.attach.len(), 2);
    sides.attach.handle_stream_end(&mut sides.engine, sides.now);
    sides.drain();
    assert_eq!(
        sides.closed(),
        [
            (ConnId::from_u64(1), CloseReason::TransportClosed),
            (ConnId::from_u64(2), CloseReason::TransportClosed),
        ]
    );
    assert!(sides.attach.is_empty());
    assert_eq!(
        sides.attach.poll_event(),
        Some(AttachEvent::Dead(LinkFault::Eof))
    );
    assert_eq!(sides.attach.poll_timeout(), None);
}

#[test]
fn a_silent_link_is_pinged_then_dies_closing_its_connections() {
    let mut sides = Sides::new(LinkConfig::default(), PumpPolicy::DEFAULT);
    sides.open(&session());
    sides.carry_to_editor();
    sides.carry_to_bridge();
    let ping_due = sides.attach.poll_timeout().expect("alive");
    assert_eq!(ping_due, at(15_000));
    sides.attach.handle_timeout(&mut sides.engine, ping_due);
    let ping = sides.attach.outbound().to_vec();
    assert_eq!(ping, link_frame(0x06, 0, &1u64.to_be_bytes()));
    let dead_at = sides.attach.poll_timeout().expect("alive");
    assert_eq!(dead_at, at(25_000));
    sides.now = dead_at;
    sides.attach.handle_timeout(&mut sides.engine, dead_at);
    sides.drain();
    assert_eq!(sides.closed().len(), 1);
    assert_eq!(
        sides.attach.poll_event(),
        Some(AttachEvent::Dead(LinkFault::KeepaliveTimeout))
    );
}

#[test]
fn a_shutdown_tells_the_bridge_and_closes_in_the_engine() {
    let mut sides = Sides::new(LinkConfig::default(), PumpPolicy::DEFAULT);
    sides.open(&session());
    sides.carry_to_editor();
    sides.carry_to_bridge();
    sides.attach.shutdown(&mut sides.engine, sides.now);
    sides.drain();
    assert_eq!(sides.closed().len(), 1);
    assert_eq!(sides.carry_to_bridge(), link_frame(0x08, 0, b"shut down"));
    assert!(
        sides
            .bridge_events()
            .contains(&LinkEvent::Dead(LinkFault::PeerShutdown))
    );
}
