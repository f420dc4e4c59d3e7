//! A wasm32 module that drives a whole session through `idelink-core`, so that everything a
//! session touches is linked in. CI builds it for `wasm32-unknown-unknown` and fails when the
//! module imports anything from `env` (a libc call, a clock, a C dependency leaking in).

use idelink_core::{AuthToken, Config, EditorEvent, Engine, Output, Timestamp};

const PORT: u16 = 40_000;

/// Runs a scripted session (upgrade, initialize, tools/list, a read tool, an editor event,
/// timers) and returns the number of bytes the engine wrote.
#[expect(
    unsafe_code,
    reason = "an exported symbol is the only way to keep the engine linked"
)]
#[unsafe(no_mangle)]
pub extern "C" fn idelink_smoke_session() -> u32 {
    let token = AuthToken::from_entropy([0x5a; 16]);
    let head = format!(
        "GET / HTTP/1.1\r\nHost: 127.0.0.1:{PORT}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
         Sec-WebSocket-Protocol: mcp\r\nx-claude-code-ide-authorization: {}\r\n\r\n",
        token.as_str()
    );
    let mut engine = Engine::new(Config::new(PORT), token);
    let mut written = 0;
    let mut now = Timestamp::ZERO;
    let conn = engine.handle_accept(now);
    let mut input = head.into_bytes();
    for message in [
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","version":"2.1.332"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"getCurrentSelection","arguments":{}}}"#,
    ] {
        push_masked_text(&mut input, message.as_bytes());
    }
    if engine.handle_bytes(now, conn, &input).is_err() {
        return 0;
    }
    engine.handle_editor_event(
        now,
        &EditorEvent::DocumentActivated {
            path: "/w/main.rs".into(),
        },
    );
    while let Some(deadline) = engine.poll_timeout() {
        if deadline.as_millis() > 2_000 {
            break;
        }
        now = deadline;
        engine.handle_timeout(now);
    }
    while let Some(output) = engine.poll_output() {
        if let Output::Transmit { conn } = output {
            let n = engine.outbound(conn).len();
            written += n;
            let _ = engine.handle_sent(conn, n);
        }
    }
    u32::try_from(written).unwrap_or(u32::MAX)
}

/// A client text frame, masked with the all-zero key (legal, and leaves the payload as is).
fn push_masked_text(out: &mut Vec<u8>, payload: &[u8]) {
    out.push(0x81);
    match payload.len() {
        n @ 0..=125 => out.push(0x80 | n as u8),
        n => {
            out.push(0x80 | 126);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
    }
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(payload);
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_session_produces_output() {
        assert!(super::idelink_smoke_session() > 500);
    }
}
