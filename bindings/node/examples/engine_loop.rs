//! The engine-only half of the napi overhead measurement (`bench/overhead.mjs` runs it and the
//! same loop through the addon): one small `tools/call` in, its answer drained, in a tight loop.
//!
//! `cargo run --release -p idelink-node --example engine_loop [iterations] [runs]` warms up
//! with 20 000 iterations, times `runs` (default 5) runs of `iterations` (default 200 000) and
//! prints one line of JSON: `{"iterations":N,"nsPerIteration":X,"callsPerIteration":6}` with
//! the best run. With `runs` 0 it only warms up (for instruction counts under callgrind).

use idelink_core::{AuthToken, Config, ConnId, EditorEvent, Engine, Output, Timestamp};
use std::hint::black_box;
use std::time::Instant;

const TOKEN: &str = "00112233445566778899aabbccddeeff";
/// The message each iteration sends; `bench/overhead.mjs` sends the same bytes.
const CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"getCurrentSelection","arguments":{}}}"#;

/// A masked client text frame (the shared test client's builder).
fn client_frame(text: &str) -> Vec<u8> {
    idelink_test_client::client_frame(0x81, text.as_bytes())
}

/// Drains every output, writing all outbound bytes at once; returns the number of engine calls
/// made (each `poll_output`, and `outbound` + `handle_sent` per transmit).
fn drain(engine: &mut Engine) -> usize {
    let mut calls = 1;
    while let Some(output) = engine.poll_output() {
        calls += 1;
        if let Output::Transmit { conn } = output {
            calls += 2;
            let n = black_box(engine.outbound(conn)).len();
            engine
                .handle_sent(conn, n)
                .unwrap_or_else(|e| panic!("handle_sent: {e}"));
        }
    }
    calls
}

/// An engine with one initialized session and a selection to answer from.
fn session() -> (Engine, ConnId) {
    let config = Config::from_json(r#"{"port":40000,"readyDelayMs":0}"#)
        .unwrap_or_else(|e| panic!("config: {e}"));
    let token = AuthToken::parse(TOKEN).unwrap_or_else(|e| panic!("token: {e}"));
    let mut engine = Engine::new(config, token);
    let now = Timestamp::from_millis(1);
    let conn = engine.handle_accept(now);
    let upgrade = format!(
        "GET / HTTP/1.1\r\nHost: 127.0.0.1:40000\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
         Sec-WebSocket-Protocol: mcp\r\nX-Claude-Code-Ide-Authorization: {TOKEN}\r\n\r\n"
    );
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","version":"2.1.332"}}}"#;
    let mut bytes = upgrade.into_bytes();
    bytes.extend(client_frame(init));
    bytes.extend(client_frame(
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    ));
    engine
        .handle_bytes(now, conn, &bytes)
        .unwrap_or_else(|e| panic!("setup: {e}"));
    let selection: EditorEvent = idelink_core::forms::read(
        r#"{"type":"selectionChanged","path":"/w/a.rs","text":"fn main","selection":{"start":{"line":0,"character":0},"end":{"line":0,"character":7}}}"#,
    )
    .unwrap_or_else(|e| panic!("event: {e}"));
    engine.handle_editor_event(now, &selection);
    engine.handle_timeout(Timestamp::from_millis(1000));
    drain(&mut engine);
    (engine, conn)
}

/// Iterations run before timing (and the fixed part of an instruction count).
const WARMUP: u32 = 20_000;

fn main() {
    let mut args = std::env::args().skip(1).map(|a| {
        a.parse::<u32>()
            .unwrap_or_else(|e| panic!("arguments are counts: {e}"))
    });
    let iterations = args.next().unwrap_or(200_000);
    let runs = args.next().unwrap_or(5);
    let (mut engine, conn) = session();
    let frame = client_frame(CALL);
    let now = Timestamp::from_millis(1000);
    let mut calls = 0;
    let mut run = |count: u32| {
        let start = Instant::now();
        for _ in 0..count {
            engine
                .handle_bytes(now, conn, black_box(&frame))
                .unwrap_or_else(|e| panic!("handle_bytes: {e}"));
            calls = 1 + drain(&mut engine);
        }
        start.elapsed()
    };
    run(WARMUP);
    let best = (0..runs).map(|_| run(iterations)).min().unwrap_or_default();
    let ns = best.as_nanos() as f64 / f64::from(iterations);
    println!(
        "{{\"iterations\":{iterations},\"nsPerIteration\":{ns:.1},\"callsPerIteration\":{calls}}}"
    );
}
