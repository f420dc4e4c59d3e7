//! Adversarial clients every host must answer byte for byte the same way, given only the
//! server's port and token: refused upgrades (HTTP 401, 403, 431), WebSocket framing violations
//! (each close code and reason), malformed JSON-RPC (each error), then proof that the server
//! still serves. The mio host's own suite (hosts/mio/tests/adversarial.rs) checks the same
//! answers with the engine's events too; these functions let any other host (the tokio host,
//! a binding's server) run the cases without a copy of them. A failure panics with the case.

use crate::{Client, MASK, client_frame, upgrade_request};
use std::io;

/// The complete plain-text error response for `status` with one body line.
pub fn http_error(status: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Content-Length: {}\r\n\r\n{body}\n",
        body.len() + 1
    )
}

/// The unmasked close frame a server sends with `code` and `reason`.
pub fn server_close(code: u16, reason: &str) -> Vec<u8> {
    let mut out = vec![0x88, 2 + reason.len() as u8];
    out.extend_from_slice(&code.to_be_bytes());
    out.extend_from_slice(reason.as_bytes());
    out
}

/// Sends `request` on a new connection; returns the whole response (the server closes).
fn refused(port: u16, request: &str) -> String {
    let (_, response) = Client::open(port, request).expect("the server answers the request");
    response
}

/// Missing, wrong and doubled tokens get byte-identical 401s; any `Origin` and every
/// rebinding `Host` get 403; an oversized head gets 431.
pub fn refused_upgrades(port: u16, token: &str) {
    let unauthorized = http_error(
        "401 Unauthorized",
        "missing or wrong x-claude-code-ide-authorization token",
    );
    assert_eq!(
        refused(port, &upgrade_request(port, None, "")),
        unauthorized
    );
    let mut wrong = token.to_owned();
    let last = if wrong.ends_with('0') { "1" } else { "0" };
    wrong.replace_range(wrong.len() - 1.., last);
    assert_eq!(
        refused(port, &upgrade_request(port, Some(&wrong), "")),
        unauthorized
    );
    let twice = format!("X-Claude-Code-Ide-Authorization: {token}\r\n");
    assert_eq!(
        refused(port, &upgrade_request(port, Some(&wrong), &twice)),
        unauthorized
    );
    let origin = http_error(
        "403 Forbidden",
        "requests with an origin header are refused",
    );
    for value in ["null", "http://evil.example", "http://127.0.0.1"] {
        let request = upgrade_request(port, Some(token), &format!("Origin: {value}\r\n"));
        assert_eq!(refused(port, &request), origin, "Origin: {value}");
    }
    let rebinding = http_error(
        "403 Forbidden",
        "host must be 127.0.0.1, localhost or [::1] with this server's port",
    );
    for host in [
        format!("evil:{port}"),
        format!("127.1:{port}"),
        format!("localhost.evil.example:{port}"),
        format!("127.0.0.1:{}", port.wrapping_add(1)),
        "127.0.0.1".to_owned(),
    ] {
        let request = upgrade_request(port, Some(token), "")
            .replace(&format!("Host: 127.0.0.1:{port}"), &format!("Host: {host}"));
        assert_eq!(refused(port, &request), rebinding, "Host: {host}");
    }
    let filler = format!("X-Filler: {}\r\n", "a".repeat(17 * 1024));
    assert_eq!(
        refused(port, &upgrade_request(port, Some(token), &filler)),
        http_error(
            "431 Request Header Fields Too Large",
            "request head too large"
        )
    );
}

/// Upgrades, sends `bytes`, and checks the server answers with exactly this close frame and
/// then closes the connection.
fn fails_with(port: u16, token: &str, bytes: &[u8], code: u16, reason: &str) {
    let mut client = Client::connect(port, token).expect("upgraded");
    client.send_raw(bytes).expect("sent");
    assert_eq!(
        client.read_to_end().expect("the server closes"),
        server_close(code, reason),
        "{reason}"
    );
}

/// Every framing violation gets its close code and reason (RFC 6455 §5.2, §5.5, §7.4.1):
/// an unmasked frame, reserved bits, unknown opcodes, fragmented or long control frames,
/// length encodings, stray continuations, binary, a tebibyte claim, invalid UTF-8, bad close
/// frames.
pub fn framing_violations(port: u16, token: &str) {
    let frame = client_frame;
    let mut not_minimal = vec![0x81, 0x80 | 126, 0x00, 0x05];
    not_minimal.extend_from_slice(&MASK);
    not_minimal.extend_from_slice(b"hello");
    let mut top_bit = vec![0x81, 0x80 | 127, 0x80, 0, 0, 0, 0, 0, 0, 0];
    top_bit.extend_from_slice(&MASK);
    let mut interleaved = frame(0x01, b"a");
    interleaved.extend(frame(0x81, b"b"));
    let mut claim = vec![0x81, 0x80 | 127];
    claim.extend_from_slice(&(1u64 << 40).to_be_bytes());
    claim.extend_from_slice(&MASK);
    claim.extend_from_slice(&[b'x'; 4096]);
    let mut split_utf8 = frame(0x01, b"ok \xE2\x82");
    split_utf8.extend(frame(0x80, b"("));
    let cases: Vec<(Vec<u8>, u16, &str)> = vec![
        (
            vec![0x81, 0x02, b'h', b'i'],
            1002,
            "client frame not masked",
        ),
        (frame(0xC1, b"x"), 1002, "reserved bits set"),
        (frame(0x83, b"x"), 1002, "unknown opcode"),
        (frame(0x09, b""), 1002, "fragmented control frame"),
        (frame(0x89, &[0; 126]), 1002, "control frame over 125 bytes"),
        (not_minimal, 1002, "length not minimally encoded"),
        (top_bit, 1002, "length top bit set"),
        (frame(0x80, b"x"), 1002, "continuation without a message"),
        (interleaved, 1002, "new message inside a fragmented one"),
        (
            frame(0x82, b"\x00\x01"),
            1003,
            "binary messages not accepted",
        ),
        (claim, 1009, "message too big"),
        (split_utf8, 1007, "invalid utf-8 in text message"),
        (
            frame(0x88, &999u16.to_be_bytes()),
            1002,
            "invalid close code",
        ),
        (frame(0x88, &[0x03]), 1002, "close payload of 1 byte"),
        (
            frame(0x88, b"\x03\xE8bad \xFF"),
            1007,
            "invalid utf-8 in close reason",
        ),
    ];
    for (bytes, code, reason) in cases {
        fails_with(port, token, &bytes, code, reason);
    }
    // A good close is echoed with its code, then the server closes.
    let mut client = Client::connect(port, token).expect("upgraded");
    client.send_raw(&frame(0x88, b"\x0F\xA0bye")).expect("sent");
    assert_eq!(
        client.read_to_end().expect("the server closes"),
        [0x88, 0x02, 0x0F, 0xA0]
    );
}

/// Malformed, too deep, duplicate-member and unknown-method messages get their exact JSON-RPC
/// errors; a broken notification gets no answer.
pub fn malformed_json(port: u16, token: &str) {
    let mut client = Client::connect_initialized(port, token).expect("initialized");
    let cases = [
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the message is not valid JSON"}}"#,
        ),
        (
            format!(
                r#"{{"jsonrpc":"2.0","id":2,"method":"ping","params":{}{}}}"#,
                "[".repeat(100_000),
                "]".repeat(100_000)
            ),
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"nesting deeper than 64 levels"}}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":3,"method":"ping","method":"tools/list"}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"duplicate member \"method\""}}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":6,"method":"no/such/method"}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":6,"error":{"code":-32601,"message":"method not found: no/such/method"}}"#,
        ),
    ];
    for (request, answer) in &cases {
        client.send_text(request).expect("sent");
        assert_eq!(
            next_text(&mut client).expect("an answer"),
            *answer,
            "{}",
            &request[..request.len().min(80)]
        );
    }
    client
        .send_text(r#"{"jsonrpc":"2.0","method":"x","params":7}"#)
        .expect("sent");
    client
        .send_text(r#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#)
        .expect("sent");
    assert_eq!(
        next_text(&mut client).expect("an answer"),
        r#"{"jsonrpc":"2.0","id":8,"result":{}}"#
    );
}

/// The next text message, as sent.
fn next_text(client: &mut Client) -> io::Result<String> {
    loop {
        if let crate::Frame::Text(text) = client.next_frame()? {
            return Ok(text);
        }
    }
}

/// The server still serves: a new client initializes and gets `ping` answered.
pub fn still_served(port: u16, token: &str) {
    let mut client = Client::connect_initialized(port, token).expect("initialized");
    let pong = client
        .call("ping", serde_json::json!({}))
        .expect("ping answered");
    assert_eq!(pong["result"], serde_json::json!({}), "{pong}");
}
