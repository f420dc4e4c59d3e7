//! Helpers shared by the fuzz targets: client frame encoding, a decoder for what the server
//! sends, and the fixed endpoint every target serves.

use idelink_core::AuthToken;
use serde::Deserialize;
use serde_json::value::RawValue;

/// The port every target's engine and upgrade policy are configured with.
pub const PORT: u16 = 40000;

/// The token every target's clients present (the one in `tests/vectors`).
pub const TOKEN: &str = "00112233445566778899aabbccddeeff";

/// [`TOKEN`] as an [`AuthToken`].
pub fn token() -> AuthToken {
    AuthToken::from_entropy([
        0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee,
        0xff,
    ])
}

/// A valid upgrade request for [`PORT`] carrying [`TOKEN`], with `extra` header lines
/// (each ending in CRLF) before the blank line.
pub fn upgrade_request(extra: &str) -> Vec<u8> {
    format!(
        "GET / HTTP/1.1\r\nHost: 127.0.0.1:{PORT}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
         Sec-WebSocket-Protocol: mcp\r\nX-Claude-Code-Ide-Authorization: {TOKEN}\r\n{extra}\r\n"
    )
    .into_bytes()
}

/// A client frame: `first` is the first header byte (FIN, RSV, opcode), the payload is masked
/// with `mask` and its length written in the shortest form.
pub fn client_frame(first: u8, mask: [u8; 4], payload: &[u8]) -> Vec<u8> {
    let mut out = vec![first];
    match payload.len() {
        n if n < 126 => out.push(0x80 | n as u8),
        n if n <= usize::from(u16::MAX) => {
            out.push(0x80 | 126);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            out.push(0x80 | 127);
            out.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    out.extend_from_slice(&mask);
    out.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    out
}

/// One frame the server sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerFrame {
    /// The opcode (low four bits of the first byte).
    pub opcode: u8,
    /// The payload.
    pub payload: Vec<u8>,
}

/// Decodes a server's byte stream: the HTTP response head, then unmasked frames. Every rule a
/// server frame must follow (RFC 6455 §5.1, §5.2) is asserted: a violation is a bug.
#[derive(Debug, Default)]
pub struct ServerStream {
    buf: Vec<u8>,
    head_done: bool,
    /// The status code of the response head, once complete.
    pub status: Option<u16>,
}

impl ServerStream {
    /// Feeds bytes the server wrote; returns the frames completed by them.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<ServerFrame> {
        self.buf.extend_from_slice(bytes);
        let mut frames = Vec::new();
        if !self.head_done {
            let Some(end) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") else {
                return frames;
            };
            let head = String::from_utf8(self.buf[..end].to_vec()).expect("response head is UTF-8");
            assert!(head.starts_with("HTTP/1.1 "), "bad status line: {head:?}");
            self.status = head[9..12].parse().ok();
            assert!(self.status.is_some(), "bad status: {head:?}");
            if self.status != Some(101) {
                let length = head
                    .lines()
                    .find_map(|l| l.strip_prefix("Content-Length: "))
                    .and_then(|n| n.parse::<usize>().ok())
                    .expect("an error response carries Content-Length");
                assert!(
                    self.buf.len() <= end + 4 + length,
                    "bytes after an error response"
                );
            }
            self.buf.drain(..end + 4);
            self.head_done = true;
        }
        if self.status != Some(101) {
            return frames;
        }
        while let Some((frame, used)) = parse_server_frame(&self.buf) {
            self.buf.drain(..used);
            frames.push(frame);
        }
        frames
    }
}

/// One complete server frame at the start of `buf` and its length, asserting the rules.
fn parse_server_frame(buf: &[u8]) -> Option<(ServerFrame, usize)> {
    let (&first, &second) = (buf.first()?, buf.get(1)?);
    assert_eq!(first & 0x80, 0x80, "server frames are never fragmented");
    assert_eq!(first & 0x70, 0, "server frames set no RSV bit");
    assert_eq!(
        second & 0x80,
        0,
        "RFC 6455 §5.1: server frames are not masked"
    );
    let (len, at) = match second & 0x7F {
        126 => {
            let len = usize::from(u16::from_be_bytes([*buf.get(2)?, *buf.get(3)?]));
            assert!(len >= 126, "RFC 6455 §5.2: minimal length encoding");
            (len, 4)
        }
        127 => {
            let bytes: [u8; 8] = buf.get(2..10)?.try_into().ok()?;
            let len = u64::from_be_bytes(bytes);
            assert!(
                len > u64::from(u16::MAX),
                "RFC 6455 §5.2: minimal length encoding"
            );
            (usize::try_from(len).ok()?, 10)
        }
        n => (usize::from(n), 2),
    };
    let payload = buf.get(at..at + len)?.to_vec();
    let opcode = first & 0x0F;
    assert!(
        matches!(opcode, 0x1 | 0x8 | 0x9 | 0xA),
        "server opcode {opcode:#x}"
    );
    if opcode >= 0x8 {
        assert!(payload.len() <= 125, "RFC 6455 §5.5: control payload ≤ 125");
    }
    Some((ServerFrame { opcode, payload }, at + len))
}

/// The envelope of a JSON-RPC message the server wrote, read without converting any value
/// (ids and parameters stay raw, so any valid JSON number passes).
#[derive(Debug, Deserialize)]
pub struct Envelope<'a> {
    /// Must be "2.0".
    pub jsonrpc: &'a str,
    /// The id, raw; None when absent or null.
    #[serde(borrow, default)]
    pub id: Option<&'a RawValue>,
    /// The method of a notification.
    #[serde(borrow, default)]
    pub method: Option<&'a str>,
}

/// Parses `bytes` as one JSON-RPC 2.0 message the server wrote; panics (a bug) otherwise.
pub fn server_message(bytes: &[u8]) -> Envelope<'_> {
    let envelope: Envelope = serde_json::from_slice(bytes).unwrap_or_else(|e| {
        panic!(
            "not a JSON-RPC object ({e}): {}",
            String::from_utf8_lossy(bytes)
        )
    });
    assert_eq!(envelope.jsonrpc, "2.0");
    envelope
}
