//! Pins the heap allocations of steady-state traffic: a counting allocator bounds the
//! allocations per request.
//!
//! A session is driven to steady state (upgraded, initialized, ready, a document active with a
//! selection, every buffer warmed up), then the allocations of the current thread are counted
//! over many repetitions of:
//! - one `tools/call getCurrentSelection` round trip: the request's bytes in, every output
//!   drained, the answer's bytes taken out with `handle_sent`;
//! - one `selection_changed` notification: the debounce timer fires, the notification's bytes
//!   go out to the ready client and are drained.
//!
//! The figures are printed (`cargo test --test allocations -- --nocapture`) and asserted
//! against a bound; the benchmark report quotes them.
#![expect(
    clippy::unwrap_used,
    reason = "a test harness: a broken setup must fail the test loudly"
)]

use allocation_counter::measure;
use idelink_core::{
    AuthToken, Config, ConnId, EditorEvent, Engine, EngineEvent, Output, Timestamp,
};

/// Repetitions measured; the figure is the mean, so a stray allocation shows as a fraction.
const ROUNDS: u64 = 1000;

const PORT: u16 = 40000;
const TOKEN: &str = "00112233445566778899aabbccddeeff";

/// A client text frame, masked as RFC 6455 §5.3 requires of a client.
fn client_frame(text: &str) -> Vec<u8> {
    idelink_test_client::client_frame(0x81, text.as_bytes())
}

fn upgrade_request() -> Vec<u8> {
    format!(
        "GET / HTTP/1.1\r\nHost: 127.0.0.1:{PORT}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
         Sec-WebSocket-Protocol: mcp\r\nX-Claude-Code-Ide-Authorization: {TOKEN}\r\n\
         User-Agent: claude-code/2.1.332 (external, cli)\r\n\r\n"
    )
    .into_bytes()
}

fn selection_call(id: u64) -> Vec<u8> {
    client_frame(&format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"getCurrentSelection","arguments":{{}},"_meta":{{"progressToken":{id},"claudecode/toolUseId":"toolu_01ABCDEFGHIJKLMNOPQRSTUV"}}}}}}"#
    ))
}

fn selection_event(line: u32) -> EditorEvent {
    serde_json::from_value(serde_json::json!({
        "type": "selectionChanged",
        "path": "/home/u/proj/src/main.rs",
        "text": "fn main() {\n    println!(\"hello\");\n}",
        "selection": {
            "start": {"line": line, "character": 0},
            "end": {"line": line + 2, "character": 1}
        }
    }))
    .unwrap()
}

/// The engine's outputs after one input: bytes sent per connection, and what else came out.
#[derive(Default)]
struct Drained {
    sent: usize,
    answered: usize,
    other: usize,
}

/// Drains every output as a host does: all outbound bytes "written" at once.
fn drain(engine: &mut Engine) -> Drained {
    let mut drained = Drained::default();
    while let Some(output) = engine.poll_output() {
        match output {
            Output::Transmit { conn } => {
                let n = engine.outbound(conn).len();
                drained.sent += n;
                engine.handle_sent(conn, n).unwrap();
            }
            Output::Event(EngineEvent::ToolServed { .. }) => drained.answered += 1,
            _ => drained.other += 1,
        }
    }
    drained
}

/// An engine with one ready client and an active document with a selection; the time is
/// returned with it.
fn steady_session() -> (Engine, ConnId, Timestamp) {
    let mut config = Config::new(PORT);
    config.ready_delay_ms = 0;
    // The notification rounds span minutes of virtual time with a silent client: no
    // keepalive, which would (rightly) time the client out.
    config.ws.keepalive_interval_ms = 0;
    let mut engine = Engine::new(config, AuthToken::parse(TOKEN).unwrap());
    let now = Timestamp::from_millis(0);
    let conn = engine.handle_accept(now);
    let mut hello = upgrade_request();
    hello.extend(client_frame(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","version":"2.1.332"}}}"#,
    ));
    hello.extend(client_frame(
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    ));
    engine.handle_bytes(now, conn, &hello).unwrap();
    drain(&mut engine);
    engine.handle_timeout(now);
    drain(&mut engine);
    engine.handle_editor_event(now, &selection_event(2));
    engine.handle_timeout(Timestamp::from_millis(1000));
    assert!(drain(&mut engine).sent > 0, "the client is not ready");
    (engine, conn, Timestamp::from_millis(1000))
}

#[test]
fn steady_state_traffic_allocates_at_most_the_bound() {
    let (mut engine, conn, mut now) = steady_session();

    // Round trips. The frames are built before counting; twice the rounds warm the buffers.
    let calls: Vec<Vec<u8>> = (1..=3 * ROUNDS).map(selection_call).collect();
    let (warm, counted) = calls.split_at(2 * ROUNDS as usize);
    for frame in warm {
        engine.handle_bytes(now, conn, frame).unwrap();
        let drained = drain(&mut engine);
        assert_eq!((drained.answered, drained.other), (1, 0));
        assert!(drained.sent > 200, "no answer: {} bytes", drained.sent);
    }
    let mut answered = 0;
    let round_trips = measure(|| {
        for frame in counted {
            engine.handle_bytes(now, conn, frame).unwrap();
            answered += drain(&mut engine).answered;
        }
    });
    assert_eq!(answered as u64, ROUNDS);

    // Notifications: the editor events are built before counting; applying one to the state
    // (which keeps its text and path) is not part of the notification.
    let events: Vec<EditorEvent> = (0..3 * ROUNDS as u32).map(selection_event).collect();
    let debounce = engine.config().selection_debounce_ms;
    let notify = |engine: &mut Engine, event: &EditorEvent, now: &mut Timestamp| {
        engine.handle_editor_event(*now, event);
        *now = now.add_millis(debounce);
        measure(|| {
            engine.handle_timeout(*now);
            assert!(drain(engine).sent > 100, "no notification");
        })
    };
    let (warm, counted) = events.split_at(2 * ROUNDS as usize);
    for event in warm {
        notify(&mut engine, event, &mut now);
    }
    let notifications: u64 = counted
        .iter()
        .map(|event| notify(&mut engine, event, &mut now).count_total)
        .sum();

    let per_call = round_trips.count_total as f64 / ROUNDS as f64;
    let per_notification = notifications as f64 / ROUNDS as f64;
    println!(
        "allocations per getCurrentSelection round trip: {per_call:.2} \
         ({} bytes); per selection_changed notification: {per_notification:.2}",
        round_trips.bytes_total / ROUNDS
    );
    // A steady-state round trip allocates nothing (the goal was at most 2). The last one went
    // with serde_json: its skipper grew a fresh stack of open brackets per message, where the
    // envelope reader keeps its stack as bits on the stack.
    assert_eq!(
        round_trips.count_total, 0,
        "a round trip allocates {per_call:.2} times; it allocated nothing"
    );
    assert_eq!(
        notifications, 0,
        "a notification allocates {per_notification:.2} times; it allocated nothing"
    );
}
