//! Engine scenarios on virtual time: host misuse, limits, timers, byte-boundary independence.
//! Whole-session byte-exact transcripts live in `tests/vectors/`.

use super::*;
use crate::ide::{EditorEvent, ToolOutcome, ToolRequest};
use crate::time::Timestamp;
use crate::token::AuthToken;

mod sessions;
mod unsaved;

const PORT: u16 = 40_000;

fn token() -> AuthToken {
    AuthToken::from_entropy([0x11; 16])
}

fn at(ms: u64) -> Timestamp {
    Timestamp::from_millis(ms)
}

fn upgrade() -> Vec<u8> {
    format!(
        "GET / HTTP/1.1\r\nHost: 127.0.0.1:{PORT}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
         Sec-WebSocket-Protocol: mcp\r\nX-Claude-Code-Ide-Authorization: {}\r\n\r\n",
        token().as_str()
    )
    .into_bytes()
}

/// A masked client frame.
fn frame(opcode: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = vec![0x80 | opcode];
    match payload.len() {
        n if n < 126 => out.push(0x80 | n as u8),
        n if n <= 0xffff => {
            out.push(0x80 | 126);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            out.push(0x80 | 127);
            out.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    let key = [1, 2, 3, 4];
    out.extend_from_slice(&key);
    out.extend(payload.iter().enumerate().map(|(i, b)| b ^ key[i % 4]));
    out
}

fn text(json: &str) -> Vec<u8> {
    frame(0x1, json.as_bytes())
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","version":"2.1.332"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn call(id: u32, tool: &str, args: &str) -> Vec<u8> {
    text(&format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{args}}}}}"#
    ))
}

fn session_bytes() -> Vec<u8> {
    let mut bytes = upgrade();
    bytes.extend(text(INIT));
    bytes.extend(text(INITIALIZED));
    bytes.extend(text(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#));
    bytes.extend(frame(0x9, b"ping"));
    bytes.extend(call(2, "getOpenEditors", "{}"));
    bytes.extend(call(
        3,
        "openDiff",
        r#"{"old_file_path":"/w/a","new_file_path":"/w/a","new_file_contents":"x","tab_name":"t"}"#,
    ));
    bytes
}

/// Everything the engine produced, with the bytes of each connection concatenated.
#[derive(Debug, Default, PartialEq)]
struct Drained {
    bytes: std::collections::BTreeMap<ConnId, Vec<u8>>,
    closes: Vec<ConnId>,
    events: Vec<EngineEvent>,
}

fn drain(engine: &mut Engine, into: &mut Drained) {
    while let Some(output) = engine.poll_output() {
        match output {
            Output::Transmit { conn } => {
                let bytes = engine.outbound(conn).to_vec();
                engine.handle_sent(conn, bytes.len()).unwrap();
                into.bytes.entry(conn).or_default().extend(bytes);
            }
            Output::CloseTransport { conn } => into.closes.push(conn),
            Output::Event(event) => into.events.push(event),
        }
    }
}

fn engine_with(config: impl FnOnce(&mut Config)) -> Engine {
    let mut c = Config::new(PORT);
    config(&mut c);
    Engine::new(c, token())
}

/// An engine with one initialized client; returns its id and the outputs so far.
fn connected(config: impl FnOnce(&mut Config)) -> (Engine, ConnId, Drained) {
    let mut engine = engine_with(config);
    let mut drained = Drained::default();
    let conn = initialized_client(&mut engine, &mut drained);
    (engine, conn, drained)
}

/// One more client through the upgrade and the MCP handshake; its outputs go to `drained`.
fn initialized_client(engine: &mut Engine, drained: &mut Drained) -> ConnId {
    let conn = engine.handle_accept(at(0));
    let mut bytes = upgrade();
    bytes.extend(text(INIT));
    bytes.extend(text(INITIALIZED));
    engine.handle_bytes(at(0), conn, &bytes).unwrap();
    drain(engine, drained);
    conn
}

/// `openDiff` arguments for `/w/a` in tab `tab` (a request of 9 + `contents.len()` bytes).
fn diff_args(tab: &str, contents: &str) -> String {
    format!(
        r#"{{"old_file_path":"/w/a","new_file_path":"/w/a","new_file_contents":"{contents}","tab_name":"{tab}"}}"#
    )
}

/// How many tool requests went to the editor.
fn tool_calls(drained: &Drained) -> usize {
    drained
        .events
        .iter()
        .filter(|e| matches!(e, EngineEvent::ToolCall { .. }))
        .count()
}

fn tool_call_id(drained: &Drained) -> ToolCallId {
    drained
        .events
        .iter()
        .find_map(|e| match e {
            EngineEvent::ToolCall { id, .. } => Some(*id),
            _ => None,
        })
        .expect("a tool call")
}

#[test]
fn output_is_independent_of_how_the_input_is_split() {
    let bytes = session_bytes();
    let whole = {
        let mut engine = engine_with(|_| {});
        let conn = engine.handle_accept(at(0));
        engine.handle_bytes(at(0), conn, &bytes).unwrap();
        let mut drained = Drained::default();
        drain(&mut engine, &mut drained);
        drained
    };
    assert!(
        whole
            .events
            .iter()
            .any(|e| matches!(e, EngineEvent::ToolCall { .. }))
    );
    for split in 1..bytes.len() {
        let mut engine = engine_with(|_| {});
        let conn = engine.handle_accept(at(0));
        let mut drained = Drained::default();
        for part in [&bytes[..split], &bytes[split..]] {
            engine.handle_bytes(at(0), conn, part).unwrap();
            drain(&mut engine, &mut drained);
        }
        assert_eq!(drained, whole, "split at byte {split}");
    }
    let mut engine = engine_with(|_| {});
    let conn = engine.handle_accept(at(0));
    let mut drained = Drained::default();
    for byte in &bytes {
        engine
            .handle_bytes(at(0), conn, std::slice::from_ref(byte))
            .unwrap();
        drain(&mut engine, &mut drained);
    }
    assert_eq!(drained, whole, "one byte at a time");
}

#[test]
fn host_misuse_errs_and_leaves_the_engine_unchanged() {
    let (mut engine, conn, _) = connected(|_| {});
    let ghost = ConnId::from_u64(99);
    assert_eq!(
        engine.handle_bytes(at(1), ghost, b"x"),
        Err(EngineError::UnknownConnection(ghost))
    );
    assert_eq!(
        engine.handle_closed(at(1), ghost),
        Err(EngineError::UnknownConnection(ghost))
    );
    assert_eq!(
        engine.close(at(1), ghost),
        Err(EngineError::UnknownConnection(ghost))
    );
    assert!(matches!(
        engine.handle_sent(conn, 1),
        Err(EngineError::SentMoreThanBuffered {
            sent: 1,
            buffered: 0,
            ..
        })
    ));

    let args =
        r#"{"old_file_path":"/w/a","new_file_path":"/w/a","new_file_contents":"x","tab_name":"t"}"#;
    engine
        .handle_bytes(at(2), conn, &call(5, "openDiff", args))
        .unwrap();
    let mut drained = Drained::default();
    drain(&mut engine, &mut drained);
    let id = tool_call_id(&drained);

    let mismatch = ToolOutcome::FileOpened {
        language_id: None,
        line_count: None,
    };
    let err = engine
        .handle_tool_outcome(at(3), id, &mismatch)
        .unwrap_err();
    assert!(matches!(err, EngineError::OutcomeMismatch(..)), "{err}");
    assert_eq!(
        err.to_string(),
        format!("{id}: outcome fileOpened does not answer tool openDiff")
    );
    assert!(
        engine.poll_output().is_none(),
        "a failed call changes nothing"
    );

    let saved = ToolOutcome::DiffSaved {
        final_text: "y".into(),
        original_text: None,
    };
    engine.handle_tool_outcome(at(4), id, &saved).unwrap();
    let mut answered = Drained::default();
    drain(&mut engine, &mut answered);
    let reply = String::from_utf8_lossy(&answered.bytes[&conn]).into_owned();
    assert!(reply.contains(r#""id":5,"result":{"content":[{"type":"text","text":"FILE_SAVED"},{"type":"text","text":"y"}]}"#), "{reply}");
    assert_eq!(
        engine.handle_tool_outcome(at(5), id, &saved),
        Err(EngineError::UnknownToolCall(id)),
        "an answered call cannot be answered again"
    );
}

#[test]
fn handshakes_over_their_budget_evict_the_oldest_with_503() {
    let mut engine = engine_with(|c| c.max_handshakes = 1);
    let first = engine.handle_accept(at(0));
    let second = engine.handle_accept(at(0));
    let mut drained = Drained::default();
    drain(&mut engine, &mut drained);
    assert!(!drained.bytes.contains_key(&second));
    let refused = String::from_utf8_lossy(&drained.bytes[&first]).into_owned();
    assert!(
        refused.starts_with("HTTP/1.1 503 Service Unavailable\r\n"),
        "{refused}"
    );
    assert_eq!(drained.closes, [first]);
    assert!(drained.events.contains(&EngineEvent::Closed {
        conn: first,
        reason: CloseReason::HandshakeEvicted
    }));
}

/// The JSON-RPC messages in a server byte stream (after the 101 answer, if there is one):
/// unfragmented text frames, unmasked.
fn replies(mut bytes: &[u8]) -> Vec<String> {
    if bytes.starts_with(b"HTTP/") {
        let end = bytes.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        bytes = &bytes[end + 4..];
    }
    let mut out = Vec::new();
    while bytes.len() >= 2 {
        let (len, header) = match bytes[1] {
            126 => (u16::from_be_bytes([bytes[2], bytes[3]]) as usize, 4),
            127 => (
                u64::from_be_bytes(bytes[2..10].try_into().unwrap()) as usize,
                10,
            ),
            n => (n as usize, 2),
        };
        if bytes[0] == 0x81 {
            out.push(String::from_utf8_lossy(&bytes[header..header + len]).into_owned());
        }
        bytes = &bytes[header + len..];
    }
    out
}

fn pings(ids: std::ops::Range<u32>) -> Vec<u8> {
    ids.flat_map(|id| text(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#)))
        .collect()
}

#[test]
fn replies_past_the_outbound_cap_hold_the_input_until_written() {
    let (mut engine, conn, _) = connected(|c| c.max_outbound_bytes = 1024);
    // 500 pipelined requests in one read, and a host that does not write for now.
    engine.handle_bytes(at(1), conn, &pings(0..500)).unwrap();
    let reply = r#"{"jsonrpc":"2.0","id":0,"result":{}}"#.len() + 2;
    assert!(
        engine.outbound(conn).len() <= 1024 + reply + 2,
        "{} bytes queued",
        engine.outbound(conn).len()
    );
    let mut events = Vec::new();
    while let Some(output) = engine.poll_output() {
        if let Output::Event(e) = output {
            events.push(e);
        }
    }
    assert!(events.is_empty(), "{events:?}");
    // The host writes; each write serves more of the waiting input, in order.
    let mut sent = Vec::new();
    for _ in 0..1_000 {
        let bytes = engine.outbound(conn).to_vec();
        if bytes.is_empty() {
            break;
        }
        engine.handle_sent(conn, bytes.len()).unwrap();
        assert!(engine.outbound(conn).len() <= 1024 + reply + 2);
        sent.extend(bytes);
    }
    let answered = replies(&sent);
    assert_eq!(answered.len(), 500);
    for (id, reply) in answered.iter().enumerate() {
        assert_eq!(
            *reply,
            format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#)
        );
    }
    let mut drained = Drained::default();
    drain(&mut engine, &mut drained);
    assert!(
        drained.closes.is_empty() && drained.events.is_empty(),
        "{drained:?}"
    );
}

#[test]
fn held_input_past_one_message_closes_a_client_that_does_not_read() {
    let (mut engine, conn, _) = connected(|c| {
        c.max_outbound_bytes = 1024;
        c.ws.max_message_bytes = 4096;
    });
    engine.handle_bytes(at(1), conn, &pings(0..100)).unwrap();
    let mut drained = Drained::default();
    let mut outputs = Vec::new();
    while let Some(output) = engine.poll_output() {
        outputs.push(output);
    }
    assert!(!outputs.iter().any(|o| matches!(o, Output::Event(_))));
    engine.handle_bytes(at(2), conn, &pings(100..200)).unwrap();
    while let Some(output) = engine.poll_output() {
        match output {
            Output::Event(e) => drained.events.push(e),
            Output::CloseTransport { conn } => drained.closes.push(conn),
            Output::Transmit { .. } => {}
        }
    }
    assert_eq!(drained.closes, [conn]);
    assert!(drained.events.contains(&EngineEvent::Closed {
        conn,
        reason: CloseReason::OutboundOverflow
    }));
    assert!(engine.outbound(conn).is_empty(), "the backlog is dropped");
}

#[test]
fn a_push_to_a_client_over_the_cap_closes_it() {
    let (mut engine, conn, _) = connected(|c| {
        c.max_outbound_bytes = 1024;
        c.ready_delay_ms = 0;
        c.startup_window_ms = 0;
    });
    engine.handle_timeout(at(1));
    engine.handle_bytes(at(1), conn, &pings(0..100)).unwrap();
    engine.handle_editor_event(
        at(2),
        &EditorEvent::Mention {
            path: "/w/a".into(),
            line_start: None,
            line_end: None,
        },
    );
    let mut events = Vec::new();
    while let Some(output) = engine.poll_output() {
        if let Output::Event(e) = output {
            events.push(e);
        }
    }
    assert!(events.contains(&EngineEvent::Closed {
        conn,
        reason: CloseReason::OutboundOverflow
    }));
}

#[test]
fn pending_tool_calls_are_capped_per_connection() {
    let (mut engine, conn, _) = connected(|c| c.max_pending_calls = 2);
    let diff = |tab: &str| diff_args(tab, "x");
    let mut bytes = call(1, "openDiff", &diff("a"));
    bytes.extend(call(2, "openDiff", &diff("b")));
    bytes.extend(call(3, "openDiff", &diff("c")));
    // Replacing a pending tab does not add a call.
    bytes.extend(call(4, "openDiff", &diff("b")));
    engine.handle_bytes(at(1), conn, &bytes).unwrap();
    let mut drained = Drained::default();
    drain(&mut engine, &mut drained);
    assert_eq!(tool_calls(&drained), 3);
    let answered = replies(&drained.bytes[&conn]);
    assert_eq!(
        answered,
        [
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"too many pending tool calls on this connection (2): wait for an answer or cancel one"}}"#,
            r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"DIFF_REJECTED"},{"type":"text","text":"b"}]}}"#,
        ]
    );
}

#[test]
fn pending_tool_calls_are_held_to_a_byte_budget_per_connection_and_in_total() {
    let (mut engine, a, _) = connected(|c| {
        c.max_pending_proposal_bytes = 100;
        c.max_total_pending_proposal_bytes = 150;
    });
    let b = initialized_client(&mut engine, &mut Drained::default());
    // A request's bytes: "/w/a" twice, the contents, the one-letter tab name.
    let diff = |tab: &str, contents: usize| diff_args(tab, &"x".repeat(contents));
    let mut on_a = call(1, "openDiff", &diff("a", 50)); // 59 bytes
    on_a.extend(call(2, "openDiff", &diff("b", 40))); // 59 + 49 > 100
    on_a.extend(call(3, "openDiff", &diff("a", 80))); // replaces call 1: 89
    engine.handle_bytes(at(1), a, &on_a).unwrap();
    let mut on_b = call(1, "openDiff", &diff("a", 50)); // 59 on b, 148 in all
    on_b.extend(call(2, "openDiff", &diff("c", 0))); // 68 on b, but 157 in all > 150
    engine.handle_bytes(at(1), b, &on_b).unwrap();
    let mut drained = Drained::default();
    drain(&mut engine, &mut drained);
    assert_eq!(
        tool_calls(&drained),
        3,
        "the refused requests never reach the editor"
    );
    assert_eq!(
        replies(&drained.bytes[&a]),
        [
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"this request's 49 bytes would bring the tool calls pending on this connection to 108 bytes, over its budget of 100 bytes: wait for an answer or cancel one"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"DIFF_REJECTED"},{"type":"text","text":"a"}]}}"#,
        ]
    );
    assert_eq!(
        replies(&drained.bytes[&b]),
        [
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"this request's 9 bytes would bring the tool calls pending on all connections to 157 bytes, over the editor's budget of 150 bytes: wait for an answer or cancel one"}}"#,
        ]
    );
    // An answer frees its bytes: the refused request now fits.
    let first_on_b = drained
        .events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::ToolCall { id, conn, .. } if *conn == b => Some(*id),
            _ => None,
        })
        .next()
        .unwrap();
    engine
        .handle_tool_outcome(at(2), first_on_b, &ToolOutcome::DiffRejected)
        .unwrap();
    engine
        .handle_bytes(at(2), b, &call(3, "openDiff", &diff("c", 0)))
        .unwrap();
    let mut after = Drained::default();
    drain(&mut engine, &mut after);
    assert!(
        after
            .events
            .iter()
            .any(|e| matches!(e, EngineEvent::ToolCall { conn, .. } if *conn == b)),
        "{after:?}"
    );
}

#[test]
fn queued_mentions_are_capped_oldest_dropped() {
    let mut engine = engine_with(|c| {
        c.max_queued_mentions = 2;
        c.ready_delay_ms = 0;
        c.startup_window_ms = 0;
    });
    for line in 1..=3 {
        engine.handle_editor_event(
            at(0),
            &EditorEvent::Mention {
                path: "/w/a".into(),
                line_start: Some(line),
                line_end: None,
            },
        );
    }
    let conn = engine.handle_accept(at(0));
    let mut bytes = upgrade();
    bytes.extend(text(INIT));
    bytes.extend(text(INITIALIZED));
    engine.handle_bytes(at(0), conn, &bytes).unwrap();
    engine.handle_timeout(at(0));
    let mut drained = Drained::default();
    drain(&mut engine, &mut drained);
    let mentions: Vec<String> = replies(&drained.bytes[&conn])
        .into_iter()
        .filter(|m| m.contains("at_mentioned"))
        .collect();
    assert_eq!(
        mentions,
        [
            r#"{"jsonrpc":"2.0","method":"at_mentioned","params":{"filePath":"/w/a","lineStart":2}}"#,
            r#"{"jsonrpc":"2.0","method":"at_mentioned","params":{"filePath":"/w/a","lineStart":3}}"#,
        ]
    );
}

#[test]
fn idle_handshakes_cannot_keep_an_authenticated_client_out() {
    let mut engine = engine_with(|c| {
        c.max_connections = 2;
        c.max_handshakes = 4;
    });
    let mut drained = Drained::default();
    // Two sessions hold their slots.
    let mut sessions = Vec::new();
    for _ in 0..2 {
        let conn = engine.handle_accept(at(0));
        let mut bytes = upgrade();
        bytes.extend(text(INIT));
        engine.handle_bytes(at(0), conn, &bytes).unwrap();
        sessions.push(conn);
    }
    drain(&mut engine, &mut drained);
    // 64 sockets that never send a byte.
    let idle: Vec<ConnId> = (0..64u64).map(|i| engine.handle_accept(at(i))).collect();
    drain(&mut engine, &mut drained);
    let evicted = &idle[..60];
    assert_eq!(drained.closes, evicted);
    for conn in evicted {
        let answer = String::from_utf8_lossy(&drained.bytes[conn]).into_owned();
        assert!(
            answer.starts_with("HTTP/1.1 503 Service Unavailable\r\n"),
            "{answer}"
        );
        assert!(drained.events.contains(&EngineEvent::Closed {
            conn: *conn,
            reason: CloseReason::HandshakeEvicted
        }));
    }
    for conn in &sessions {
        assert!(
            !drained
                .events
                .iter()
                .any(|e| matches!(e, EngineEvent::Closed { conn: c, .. } if c == conn))
        );
    }
    // A third authenticated client: no session slot is free.
    let late = engine.handle_accept(at(64));
    engine.handle_bytes(at(64), late, &upgrade()).unwrap();
    let mut refused = Drained::default();
    drain(&mut engine, &mut refused);
    let answer = String::from_utf8_lossy(&refused.bytes[&late]).into_owned();
    assert!(
        answer.starts_with("HTTP/1.1 503 Service Unavailable\r\n"),
        "{answer}"
    );
    assert!(refused.events.contains(&EngineEvent::Closed {
        conn: late,
        reason: CloseReason::TooManyConnections
    }));
    // One session leaves: the next client with the token gets its slot at once, whatever
    // the idle sockets do.
    engine.handle_closed(at(65), sessions[0]).unwrap();
    let more: Vec<ConnId> = (0..64u64)
        .map(|i| engine.handle_accept(at(65 + i)))
        .collect();
    let claude = engine.handle_accept(at(130));
    let mut bytes = upgrade();
    bytes.extend(text(INIT));
    engine.handle_bytes(at(130), claude, &bytes).unwrap();
    let mut served = Drained::default();
    drain(&mut engine, &mut served);
    let answer = String::from_utf8_lossy(&served.bytes[&claude]).into_owned();
    assert!(
        answer.starts_with("HTTP/1.1 101 Switching Protocols\r\n"),
        "{answer}"
    );
    assert!(served.events.contains(&EngineEvent::Connected {
        conn: claude,
        user_agent: None
    }));
    assert!(!served.closes.contains(&claude));
    assert!(more.iter().filter(|c| served.closes.contains(c)).count() >= 60);
}

#[test]
fn a_single_idle_socket_never_waits_behind_a_zero_budget() {
    let mut engine = engine_with(|c| c.max_handshakes = 0);
    let first = engine.handle_accept(at(0));
    let claude = engine.handle_accept(at(0));
    engine.handle_bytes(at(0), claude, &upgrade()).unwrap();
    let mut drained = Drained::default();
    drain(&mut engine, &mut drained);
    assert_eq!(drained.closes, [first]);
    let answer = String::from_utf8_lossy(&drained.bytes[&claude]).into_owned();
    assert!(answer.starts_with("HTTP/1.1 101 "), "{answer}");
}

#[test]
fn keepalive_pings_then_closes_a_silent_client() {
    let (mut engine, conn, _) = connected(|c| {
        c.ws.keepalive_interval_ms = 1_000;
        c.ws.keepalive_timeout_ms = 500;
        c.ready_delay_ms = 100;
    });
    let mut drained = Drained::default();
    while let Some(deadline) = engine.poll_timeout() {
        if deadline > at(5_000) {
            break;
        }
        engine.handle_timeout(deadline);
        drain(&mut engine, &mut drained);
        if !drained.closes.is_empty() {
            break;
        }
    }
    assert_eq!(drained.bytes[&conn], [0x89, 0x00], "an empty ping, once");
    assert_eq!(drained.closes, [conn]);
    assert!(drained.events.contains(&EngineEvent::Closed {
        conn,
        reason: CloseReason::KeepaliveTimeout
    }));
}

#[test]
fn host_close_sends_going_away_and_cancels_pending_calls() {
    let (mut engine, conn, _) = connected(|_| {});
    engine
        .handle_bytes(
            at(1),
            conn,
            &call(4, "saveDocument", r#"{"filePath":"/w/a"}"#),
        )
        .unwrap();
    let mut drained = Drained::default();
    drain(&mut engine, &mut drained);
    // Not open: answered by the engine, no request.
    assert!(
        drained
            .events
            .iter()
            .all(|e| !matches!(e, EngineEvent::ToolCall { .. }))
    );
    engine.handle_editor_event(
        at(2),
        &EditorEvent::DocumentOpened {
            path: "/w/a".into(),
            language_id: None,
            is_dirty: true,
            is_untitled: false,
        },
    );
    engine
        .handle_bytes(
            at(3),
            conn,
            &call(5, "saveDocument", r#"{"filePath":"/w/a"}"#),
        )
        .unwrap();
    let mut drained = Drained::default();
    drain(&mut engine, &mut drained);
    let id = tool_call_id(&drained);
    assert!(drained.events.iter().any(|e| matches!(
        e,
        EngineEvent::ToolCall {
            request: ToolRequest::SaveDocument { .. },
            ..
        }
    )));

    engine.close(at(4), conn).unwrap();
    let mut closing = Drained::default();
    drain(&mut engine, &mut closing);
    let mut going_away = vec![0x88, 20, 0x03, 0xe9];
    going_away.extend_from_slice(b"the IDE is closing");
    assert_eq!(closing.bytes[&conn], going_away);
    assert_eq!(
        closing.events,
        [EngineEvent::ToolCallCancelled {
            id,
            reason: CancelReason::ClientGone
        }]
    );
    engine
        .handle_bytes(at(5), conn, &frame(0x8, &[0x03, 0xe9]))
        .unwrap();
    let mut done = Drained::default();
    drain(&mut engine, &mut done);
    assert_eq!(done.closes, [conn]);
    assert_eq!(
        done.events,
        [EngineEvent::Closed {
            conn,
            reason: CloseReason::ClosedByHost
        }]
    );
    engine.handle_closed(at(6), conn).unwrap();
    assert_eq!(
        engine.handle_closed(at(7), conn),
        Err(EngineError::UnknownConnection(conn))
    );
}

#[test]
fn time_going_backwards_counts_as_the_latest_time() {
    let (mut engine, conn, _) = connected(|c| c.ready_delay_ms = 100);
    engine.handle_timeout(at(50));
    engine.handle_timeout(at(10));
    let mut drained = Drained::default();
    drain(&mut engine, &mut drained);
    assert!(drained.events.is_empty(), "not ready before 100 ms");
    engine.handle_timeout(at(100));
    drain(&mut engine, &mut drained);
    assert!(
        matches!(drained.events.as_slice(), [EngineEvent::SessionReady { conn: c, .. }] if *c == conn)
    );
}

#[test]
fn execute_code_is_a_request_only_when_enabled() {
    let (mut engine, conn, _) = connected(|c| c.execute_code = true);
    engine
        .handle_bytes(at(1), conn, &call(9, "executeCode", r#"{"code":"1+1"}"#))
        .unwrap();
    let mut drained = Drained::default();
    drain(&mut engine, &mut drained);
    assert!(drained.events.iter().any(|e| matches!(
        e,
        EngineEvent::ToolCall { request: ToolRequest::ExecuteCode { code }, .. } if code == "1+1"
    )));
}

/// The server's text frame carrying `json` (unmasked; 126 to 65 535 bytes use RFC 6455
/// §5.2's 16-bit length).
fn server_text(json: &str) -> Vec<u8> {
    let mut out = vec![0x81];
    match u16::try_from(json.len()) {
        Ok(n) if n < 126 => out.push(n as u8),
        Ok(n) => {
            out.push(126);
            out.extend_from_slice(&n.to_be_bytes());
        }
        Err(_) => unreachable!("test messages are short"),
    }
    out.extend_from_slice(json.as_bytes());
    out
}

#[test]
fn closing_the_active_document_pushes_no_file_once() {
    let (mut engine, conn, _) = connected(|c| c.ready_delay_ms = 0);
    let mut drained = Drained::default();
    engine.handle_timeout(at(0));
    drain(&mut engine, &mut drained);
    assert!(
        drained
            .events
            .iter()
            .any(|e| matches!(e, EngineEvent::SessionReady { .. })),
        "{drained:?}"
    );
    let activated = EditorEvent::DocumentActivated {
        path: "/w/a.rs".into(),
    };
    engine.handle_editor_event(at(10), &activated);
    engine.handle_timeout(at(200));
    let mut opened = Drained::default();
    drain(&mut engine, &mut opened);
    assert_eq!(
        opened.bytes[&conn],
        server_text(
            r#"{"jsonrpc":"2.0","method":"selection_changed","params":{"text":"","filePath":"/w/a.rs","fileUrl":"file:///w/a.rs","selection":{"start":{"line":0,"character":0},"end":{"line":0,"character":0},"isEmpty":true}}}"#
        )
    );
    let closed = EditorEvent::DocumentClosed {
        path: "/w/a.rs".into(),
    };
    engine.handle_editor_event(at(300), &closed);
    engine.handle_timeout(at(500));
    let mut none = Drained::default();
    drain(&mut engine, &mut none);
    assert_eq!(
        none.bytes[&conn],
        server_text(
            r#"{"jsonrpc":"2.0","method":"selection_changed","params":{"text":"","selection":{"start":{"line":0,"character":0},"end":{"line":0,"character":0},"isEmpty":true}}}"#
        ),
        "no filePath: the CLI stops attaching the closed file"
    );
    // Nothing active stays nothing: closing another document pushes nothing more, and a client
    // that becomes ready now gets no selection at all.
    engine.handle_editor_event(at(600), &closed);
    engine.handle_timeout(at(900));
    let mut quiet = Drained::default();
    drain(&mut engine, &mut quiet);
    assert!(quiet.bytes.is_empty(), "{quiet:?}");
}

#[test]
fn no_document_active_pushes_no_file_once_as_closing_the_active_document_does() {
    let (mut engine, conn, _) = connected(|c| c.ready_delay_ms = 0);
    engine.handle_timeout(at(0));
    drain(&mut engine, &mut Drained::default());
    let selected = EditorEvent::SelectionChanged {
        path: "/w/a.rs".into(),
        text: "fn".into(),
        selection: crate::ide::Range {
            start: crate::ide::Position {
                line: 1,
                character: 0,
            },
            end: crate::ide::Position {
                line: 1,
                character: 2,
            },
        },
    };
    engine.handle_editor_event(at(10), &selected);
    engine.handle_timeout(at(200));
    drain(&mut engine, &mut Drained::default());
    engine.handle_editor_event(at(300), &EditorEvent::NoDocumentActive);
    engine.handle_timeout(at(500));
    let mut none = Drained::default();
    drain(&mut engine, &mut none);
    assert_eq!(
        none.bytes[&conn],
        server_text(
            r#"{"jsonrpc":"2.0","method":"selection_changed","params":{"text":"","selection":{"start":{"line":0,"character":0},"end":{"line":0,"character":0},"isEmpty":true}}}"#
        ),
        "no filePath: the CLI stops attaching the file"
    );
    engine.handle_editor_event(at(600), &EditorEvent::NoDocumentActive);
    engine.handle_timeout(at(900));
    let mut quiet = Drained::default();
    drain(&mut engine, &mut quiet);
    assert!(quiet.bytes.is_empty(), "{quiet:?}");
}

#[test]
fn a_pulled_read_goes_to_the_editor_and_a_wrong_kind_of_answer_is_host_misuse() {
    use crate::ide::{ReadSource, ReadSources};
    let (mut engine, conn, _) = connected(|c| c.reads = ReadSources::all(ReadSource::Editor));
    engine.handle_editor_event(
        at(1),
        &EditorEvent::DocumentActivated {
            path: "/w/stale.rs".into(),
        },
    );
    engine
        .handle_bytes(at(1), conn, &call(7, "getCurrentSelection", "{}"))
        .unwrap();
    let mut asked = Drained::default();
    drain(&mut engine, &mut asked);
    assert!(asked.bytes.is_empty(), "answered from the state: {asked:?}");
    let id = tool_call_id(&asked);
    assert!(matches!(
        &asked.events[..],
        [EngineEvent::ToolCall {
            request: ToolRequest::GetCurrentSelection,
            ..
        }]
    ));
    let wrong = ToolOutcome::Diagnostics { files: vec![] };
    match engine.handle_tool_outcome(at(2), id, &wrong) {
        Err(EngineError::OutcomeMismatch(got, mismatch)) => {
            assert_eq!(got, id);
            assert_eq!(
                mismatch.to_string(),
                "outcome diagnostics does not answer tool getCurrentSelection"
            );
        }
        other => panic!("expected a mismatch, got {other:?}"),
    }
    let mut nothing = Drained::default();
    drain(&mut engine, &mut nothing);
    assert_eq!(nothing, Drained::default());
    engine
        .handle_tool_outcome(at(3), id, &ToolOutcome::NoSelection)
        .unwrap();
    let mut answered = Drained::default();
    drain(&mut engine, &mut answered);
    assert_eq!(
        replies(&answered.bytes[&conn]),
        [
            r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"{\"success\":false,\"message\":\"No active editor found\"}"}]}}"#
        ]
    );
}

/// The payloads of the unmasked server frames in `bytes`, in order.
fn server_payloads(mut bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut payloads = Vec::new();
    while bytes.len() >= 2 {
        let (len, header) = match bytes[1] {
            126 => (usize::from(u16::from_be_bytes([bytes[2], bytes[3]])), 4),
            127 => {
                let mut len = [0; 8];
                len.copy_from_slice(&bytes[2..10]);
                (usize::try_from(u64::from_be_bytes(len)).unwrap(), 10)
            }
            n => (usize::from(n), 2),
        };
        payloads.push(bytes[header..header + len].to_vec());
        bytes = &bytes[header + len..];
    }
    payloads
}

#[test]
fn big_answers_are_framed_in_place_and_sent_in_any_pieces() {
    let (mut engine, conn, _) = connected(|_| {});
    // Over a MiB, with escapes: its answer outgrows what an emptied buffer keeps.
    let path = format!("/w/{}", "dir \"q\" \\ é\u{1}/".repeat(100_000));
    let message = format!("Document not open: {path}");
    let inner = format!(
        r#"{{"success":false,"message":{}}}"#,
        serde_json::to_string(&message).unwrap()
    );
    let args = serde_json::json!({ "filePath": path }).to_string();
    for id in [7, 8, 9] {
        engine
            .handle_bytes(at(0), conn, &call(id, "checkDocumentDirty", &args))
            .unwrap();
        let mut sent = Vec::new();
        while let Some(output) = engine.poll_output() {
            if let Output::Transmit { conn } = output {
                // A socket that takes 100 000 bytes at a time.
                while !engine.outbound(conn).is_empty() {
                    let piece = engine.outbound(conn).len().min(100_000);
                    sent.extend_from_slice(&engine.outbound(conn)[..piece]);
                    engine.handle_sent(conn, piece).unwrap();
                }
            }
        }
        let payloads = server_payloads(&sent);
        assert_eq!(payloads.len(), 1);
        let reply: serde_json::Value = serde_json::from_slice(&payloads[0]).unwrap();
        assert_eq!(reply["id"], id);
        assert_eq!(reply["result"]["content"][0]["text"], inner.as_str());
        assert!(payloads[0].len() > 2 << 20, "{}", payloads[0].len());
    }
}

mod ledger;
mod path_map;
mod policy;
mod proposal_diagnostics;
mod startup;
mod too_large;
