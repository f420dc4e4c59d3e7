//! The client's side of the wire: the upgrade request, masked client frames, the JSON-RPC
//! messages the benchmarks send, and a reader for what servers send back.

use std::io::{self, Read};

/// The path of the document the benchmark editors have open.
pub const FILE_PATH: &str = "/home/u/proj/src/main.rs";

/// The selected text the benchmark editors report.
pub const SELECTED_TEXT: &str = "fn main() {\n    println!(\"hello\");\n}";

/// The upgrade request the CLI sends, with `token` in `x-claude-code-ide-authorization`.
pub fn upgrade_request(port: u16, token: &str) -> Vec<u8> {
    format!(
        "GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
         Sec-WebSocket-Protocol: mcp\r\nX-Claude-Code-Ide-Authorization: {token}\r\n\
         User-Agent: claude-code/2.1.332 (external, cli)\r\n\r\n"
    )
    .into_bytes()
}

/// Appends one masked, final client text frame carrying `payload`.
pub fn push_client_frame(payload: &[u8], out: &mut Vec<u8>) {
    idelink_test_client::push_client_frame(0x81, payload, out);
}

/// `payload` as one masked client text frame.
pub fn client_frame(payload: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 14);
    push_client_frame(payload.as_bytes(), &mut out);
    out
}

/// The CLI's `initialize` request (id 0).
pub fn initialize() -> &'static str {
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{},"elicitation":{}},"clientInfo":{"name":"claude-code","version":"2.1.332"}}}"#
}

/// The CLI's `notifications/initialized`.
pub fn initialized() -> &'static str {
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
}

/// A `tools/call getCurrentSelection` as the CLI shapes a tool call.
pub fn selection_call(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"getCurrentSelection","arguments":{{}},"_meta":{{"progressToken":{id},"claudecode/toolUseId":"toolu_01ABCDEFGHIJKLMNOPQRSTUV"}}}}}}"#
    )
}

/// A `tools/call openDiff` whose `new_file_contents` is about `bytes` bytes of source text
/// (lines of code, so the JSON carries `\n` escapes as a real file does).
pub fn open_diff_call(id: u64, bytes: usize) -> String {
    const LINE: &str = r#"    let value = compute(\"input\", 42); // a line of code\n"#;
    let lines = bytes.div_ceil(LINE.len() - 3);
    let mut json = String::with_capacity(lines * LINE.len() + 400);
    json.push_str(&format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"openDiff","arguments":{{"old_file_path":"{FILE_PATH}","new_file_path":"{FILE_PATH}","tab_name":"✻ [Claude Code] main.rs ({id}) ⧉","new_file_contents":""#
    ));
    for _ in 0..lines {
        json.push_str(LINE);
    }
    json.push_str(r#""},"_meta":{"progressToken":1}}}"#);
    json
}

/// A `tools/call checkDocumentDirty` whose `filePath` is about `bytes` long (no such document
/// is open, so the answer carries the path back: JSON text inside a JSON string).
pub fn dirty_call(id: u64, bytes: usize) -> String {
    const SEGMENT: &str = "generated_module/";
    let mut path = String::with_capacity(bytes + 64);
    path.push_str("/home/u/proj/");
    while path.len() + SEGMENT.len() < bytes {
        path.push_str(SEGMENT);
    }
    path.push_str("lib.rs");
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"checkDocumentDirty","arguments":{{"filePath":"{path}"}}}}}}"#
    )
}

/// Whether a frame payload is the answer to a call rather than a notification the server
/// pushed: idelink writes `jsonrpc` first, serde_json's `Value` writes keys sorted (`id`).
pub fn is_response(payload: &[u8]) -> bool {
    payload.starts_with(br#"{"jsonrpc":"2.0","id""#) || payload.starts_with(br#"{"id""#)
}

/// What a server sent: a frame's opcode and the range of its payload in the reader's buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    /// The frame's opcode (1 text, 8 close, 9 ping, …).
    pub opcode: u8,
    start: usize,
    end: usize,
}

impl Frame {
    /// Payload bytes.
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// Whether the payload is empty.
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }
}

/// Reads an HTTP head and then frames from a stream, through one reused buffer. Frames may be
/// masked (the echo server returns the client's own frames) or not; a masked payload is not
/// unmasked, since the benchmarks only check unmasked answers.
pub struct FrameReader {
    buf: Vec<u8>,
    start: usize,
    end: usize,
}

impl Default for FrameReader {
    fn default() -> Self {
        FrameReader {
            buf: vec![0; 256 * 1024],
            start: 0,
            end: 0,
        }
    }
}

impl FrameReader {
    /// Reads until a blank line ends an HTTP head; returns the head's status line.
    pub fn read_head(&mut self, stream: &mut impl Read) -> io::Result<String> {
        loop {
            let buffered = &self.buf[self.start..self.end];
            if let Some(at) = buffered.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&buffered[..at]).into_owned();
                self.start += at + 4;
                return Ok(head.lines().next().unwrap_or_default().to_owned());
            }
            self.fill(stream, 1)?;
        }
    }

    /// Reads the next complete frame.
    pub fn read_frame(&mut self, stream: &mut impl Read) -> io::Result<Frame> {
        loop {
            if let Some((opcode, header, len)) = parse_header(&self.buf[self.start..self.end]) {
                let start = self.start + header;
                if self.end - start >= len {
                    self.start = start + len;
                    return Ok(Frame {
                        opcode,
                        start,
                        end: start + len,
                    });
                }
                self.fill(stream, start + len - self.end)?;
            } else {
                self.fill(stream, 1)?;
            }
        }
    }

    /// The payload of a frame just read (valid until the next read).
    pub fn payload(&self, frame: Frame) -> &[u8] {
        &self.buf[frame.start..frame.end]
    }

    /// Reads at least `more` bytes, making room first.
    fn fill(&mut self, stream: &mut impl Read, more: usize) -> io::Result<()> {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        let need = self.end + more;
        if need > self.buf.len() {
            self.buf.resize(need.next_power_of_two(), 0);
        }
        let target = self.end + more;
        while self.end < target {
            match stream.read(&mut self.buf[self.end..])? {
                0 => {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the server closed the connection",
                    ));
                }
                n => self.end += n,
            }
        }
        Ok(())
    }
}

/// `(opcode, header length, payload length)` of the frame at the head of `bytes`, once its
/// header is complete.
fn parse_header(bytes: &[u8]) -> Option<(u8, usize, usize)> {
    let (&first, &second) = (bytes.first()?, bytes.get(1)?);
    let masked = second & 0x80 != 0;
    let (len, at) = match second & 0x7f {
        126 => (
            u64::from(u16::from_be_bytes([*bytes.get(2)?, *bytes.get(3)?])),
            4,
        ),
        127 => (u64::from_be_bytes(bytes.get(2..10)?.try_into().ok()?), 10),
        n => (u64::from(n), 2),
    };
    let header = at + if masked { 4 } else { 0 };
    if bytes.len() < header {
        return None;
    }
    Some((first & 0x0f, header, usize::try_from(len).ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_through_the_reader_in_every_length_form() {
        let mut bytes = b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n".to_vec();
        let sizes = [0, 125, 126, 65_535, 65_536, 300_000];
        for size in sizes {
            push_client_frame(&vec![b'a'; size], &mut bytes);
        }
        let mut stream = io::Cursor::new(bytes);
        let mut reader = FrameReader::default();
        let status = reader.read_head(&mut stream).unwrap_or_default();
        assert_eq!(status, "HTTP/1.1 101 Switching Protocols");
        for size in sizes {
            let frame = reader.read_frame(&mut stream).ok();
            assert_eq!(frame.map(|f| (f.opcode, f.len())), Some((1, size)));
        }
        assert!(reader.read_frame(&mut stream).is_err());
    }

    #[test]
    fn open_diff_is_json_of_about_the_size_asked() {
        let call = open_diff_call(7, 1 << 20);
        let value: serde_json::Value = serde_json::from_str(&call).unwrap_or_default();
        let contents = value["params"]["arguments"]["new_file_contents"].as_str();
        let len = contents.map_or(0, str::len);
        assert!((1 << 20..(1 << 20) + 100).contains(&len), "{len}");
    }
}
