//! The cost of one small tools/call round trip through the Rust API of `idelink-core`: the
//! same loop as `bench/c_roundtrip.cpp` (bytes of a masked `tools/call getWorkspaceFolders` in,
//! every output drained), without the C ABI. Not a test: it prints numbers.
//!
//!   cargo run --release -p idelink-c --example rust_roundtrip [ROUNDS]
#![expect(
    clippy::unwrap_used,
    reason = "a benchmark: a failure must stop it loudly"
)]

use idelink_core::{AuthToken, Config, ConnId, Engine, Output, Timestamp};
use idelink_test_client::{client_frame, upgrade_request};
use std::time::Instant;

const TOKEN: &str = "00112233445566778899aabbccddeeff";

fn drain(engine: &mut Engine) -> usize {
    let mut sent = 0;
    while let Some(output) = engine.poll_output() {
        if let Output::Transmit { conn } = output {
            let len = engine.outbound(conn).len();
            engine.handle_sent(conn, len).unwrap();
            sent += len;
        }
    }
    sent
}

fn main() {
    let config = Config::from_json(r#"{"port":40000,"readyDelayMs":0,"workspaceFolders":["/p"]}"#);
    let mut engine = Engine::new(config.unwrap(), AuthToken::parse(TOKEN).unwrap());
    let at = Timestamp::from_millis;
    let conn: ConnId = engine.handle_accept(at(0));
    let mut opening = upgrade_request(40000, Some(TOKEN), "").into_bytes();
    for message in [
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","version":"bench"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    ] {
        opening.extend(client_frame(0x81, message.as_bytes()));
    }
    engine.handle_bytes(at(0), conn, &opening).unwrap();
    drain(&mut engine);
    engine.handle_timeout(at(1));
    drain(&mut engine);

    let call = client_frame(
        0x81,
        br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"getWorkspaceFolders","arguments":{}}}"#,
    );
    let warmup = 10_000_u32;
    let rounds: u32 = std::env::args()
        .nth(1)
        .map_or(200_000, |n| n.parse().unwrap());
    let mut sent = 0;
    for _ in 0..warmup {
        engine.handle_bytes(at(2), conn, &call).unwrap();
        sent += drain(&mut engine);
    }
    let start = Instant::now();
    for _ in 0..rounds {
        engine.handle_bytes(at(2), conn, &call).unwrap();
        sent += drain(&mut engine);
    }
    let ns = start.elapsed().as_nanos() as f64 / f64::from(rounds);
    println!(
        "Rust API: {ns:.0} ns per tools/call round trip ({rounds} rounds, {} bytes answered each)",
        sent / (warmup + rounds) as usize
    );
}
