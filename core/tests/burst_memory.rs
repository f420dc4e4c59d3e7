//! Peak memory of a pipelined burst (issue: "caps hold per reply, not per read").
//!
//! A client with 50 documents open in the editor sends 5,000 `getOpenEditors` calls in one
//! write (each answer is ~5 KiB: ~25 MB if every one were queued) and reads none of them.
//! The engine checks `max_outbound_bytes` as each reply is queued and stops serving the rest of
//! the input while over it, so the heap the engine holds at its peak (outbound buffer, editor
//! state, the held input) stays under a stated bound: the input, plus the cap and one reply
//! (doubled for `Vec` growth), plus the state. Then the host writes everything and every call
//! is answered, in order.

use allocation_counter::measure;
use idelink_core::{AuthToken, Config, EditorEvent, Engine, Output, Timestamp};

const PORT: u16 = 40000;
const TOKEN: &str = "00112233445566778899aabbccddeeff";
const CALLS: usize = 5_000;
const DOCUMENTS: usize = 50;
const CAP: usize = 64 << 10;
/// Room for the editor state and the engine's own small buffers.
const STATE: usize = 256 << 10;

fn upgrade_request() -> Vec<u8> {
    format!(
        "GET / HTTP/1.1\r\nHost: 127.0.0.1:{PORT}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
         X-Claude-Code-Ide-Authorization: {TOKEN}\r\n\r\n"
    )
    .into_bytes()
}

fn frame(text: &str) -> Vec<u8> {
    idelink_test_client::client_frame(0x81, text.as_bytes())
}

fn call(id: usize) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"getOpenEditors","arguments":{{}}}}}}"#
    )
}

fn drain_without_writing(engine: &mut Engine) -> Vec<Output> {
    std::iter::from_fn(|| engine.poll_output()).collect()
}

#[test]
fn a_burst_of_pipelined_calls_stays_under_the_bound() {
    let mut config = Config::new(PORT);
    config.max_outbound_bytes = CAP;
    let token = AuthToken::parse(TOKEN).unwrap();
    let mut engine = Engine::new(config, token);
    for i in 0..DOCUMENTS {
        let path = format!("/home/user/project/src/some/deeper/module_{i:04}/file.rs");
        let event: EditorEvent = serde_json::from_value(serde_json::json!({
            "type": "documentOpened", "path": path, "languageId": "rust"
        }))
        .unwrap();
        engine.handle_editor_event(Timestamp::from_millis(0), &event);
    }
    let now = Timestamp::from_millis(0);
    let conn = engine.handle_accept(now);
    let mut hello = upgrade_request();
    hello.extend(frame(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","version":"2.1.332"}}}"#,
    ));
    engine.handle_bytes(now, conn, &hello).unwrap();
    drain_without_writing(&mut engine);
    let sent = engine.outbound(conn).len();
    engine.handle_sent(conn, sent).unwrap();

    let burst: Vec<u8> = (1..=CALLS).flat_map(|id| frame(&call(id))).collect();
    // One answer's size: serve one call and write it.
    engine.handle_bytes(now, conn, &frame(&call(0))).unwrap();
    drain_without_writing(&mut engine);
    let one_reply = engine.outbound(conn).len();
    engine.handle_sent(conn, one_reply).unwrap();
    assert!(one_reply > 4_000, "{one_reply}");

    let info = measure(|| {
        engine.handle_bytes(now, conn, &burst).unwrap();
        drain_without_writing(&mut engine);
    });
    let queued = engine.outbound(conn).len();
    let bound = burst.len() + 2 * (CAP + one_reply) + STATE;
    println!(
        "burst of {CALLS} calls ({} bytes in): peak {} bytes held, {queued} queued, bound {bound}",
        burst.len(),
        info.bytes_max
    );
    assert!(
        info.bytes_max <= bound as u64,
        "peak {} bytes over the bound of {bound}",
        info.bytes_max
    );

    // Writing everything serves every call, in order.
    let mut answered = 0usize;
    let mut stream = Vec::new();
    loop {
        let bytes = engine.outbound(conn).to_vec();
        if bytes.is_empty() {
            break;
        }
        engine.handle_sent(conn, bytes.len()).unwrap();
        stream.extend_from_slice(&bytes);
        let outputs = drain_without_writing(&mut engine);
        assert!(
            outputs
                .iter()
                .all(|o| !matches!(o, Output::CloseTransport { .. })),
            "{outputs:?}"
        );
        let needle = b"\"jsonrpc\":\"2.0\",\"id\":";
        answered += stream.windows(needle.len()).filter(|w| w == needle).count();
        stream.clear();
    }
    assert_eq!(answered, CALLS);
}
