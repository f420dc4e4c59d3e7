//! The live check of one server, as the CLI opens a session: WebSocket upgrade with the lock's
//! token (RFC 6455 §4.1), MCP `initialize`, `notifications/initialized`, `tools/list`, close
//! (§5.5.1). A small blocking client on loopback with a deadline on every read.

use serde_json::{Value, json};
use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// How long any one step may take before the server counts as unresponsive.
const STEP_DEADLINE: Duration = Duration::from_secs(3);
/// The largest server frame the probe reads (a `tools/list` answer is a few KiB).
const MAX_FRAME: usize = 1 << 20;

/// What the live check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeResult {
    /// `serverInfo.name` from `initialize`.
    pub server: String,
    /// The MCP protocol version the server chose.
    pub protocol: String,
    /// How many tools `tools/list` listed.
    pub tools: usize,
    /// From connect to the `tools/list` answer, in milliseconds.
    pub latency_ms: u128,
}

/// Runs the check against `127.0.0.1:port` with `token`; the error says which step failed.
pub fn probe(port: u16, token: &str) -> Result<ProbeResult, String> {
    let started = Instant::now();
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let stream = TcpStream::connect_timeout(&addr, STEP_DEADLINE)
        .map_err(|e| format!("cannot connect to 127.0.0.1:{port}: {e}"))?;
    let mut conn = Conn::new(stream).map_err(|e| format!("socket setup: {e}"))?;
    conn.upgrade(port, token)?;
    let init = conn.call(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "idelink-doctor", "version": env!("CARGO_PKG_VERSION")}}),
    )?;
    let result = init
        .get("result")
        .ok_or_else(|| format!("initialize failed: {}", init.get("error").unwrap_or(&init)))?;
    let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("?").to_owned();
    let server = text(result.pointer("/serverInfo/name"));
    let protocol = text(result.get("protocolVersion"));
    conn.send_json(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
    let list = conn.call(2, "tools/list", json!({}))?;
    let tools = list
        .pointer("/result/tools")
        .and_then(Value::as_array)
        .ok_or_else(|| "tools/list did not return a tool list".to_owned())?
        .len();
    let latency_ms = started.elapsed().as_millis();
    // Status 1000, normal closure; the answer is not waited for.
    conn.send_frame(0x88, &1000u16.to_be_bytes())
        .map_err(|e| format!("close: {e}"))?;
    Ok(ProbeResult {
        server,
        protocol,
        tools,
        latency_ms,
    })
}

struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    fn new(stream: TcpStream) -> io::Result<Conn> {
        stream.set_read_timeout(Some(STEP_DEADLINE))?;
        stream.set_write_timeout(Some(STEP_DEADLINE))?;
        Ok(Conn {
            stream,
            buf: Vec::new(),
        })
    }

    fn upgrade(&mut self, port: u16, token: &str) -> Result<(), String> {
        let request = format!(
            "GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: Upgrade\r\n\
             Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\
             Sec-WebSocket-Key: aWRlbGluay1kb2N0b3IhIQ==\r\nSec-WebSocket-Protocol: mcp\r\n\
             X-Claude-Code-Ide-Authorization: {token}\r\n\r\n"
        );
        self.stream
            .write_all(request.as_bytes())
            .map_err(|e| format!("upgrade request: {e}"))?;
        let end = loop {
            if let Some(i) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
            if self.buf.len() > 16 * 1024 {
                return Err("upgrade answer head is too long".into());
            }
            self.read_more()
                .map_err(|e| format!("upgrade answer: {e}"))?;
        };
        let head = String::from_utf8_lossy(&self.buf[..end]).into_owned();
        self.buf.drain(..end);
        let status = head.lines().next().unwrap_or("").to_owned();
        if !status.starts_with("HTTP/1.1 101") {
            return Err(format!(
                "the server refused the upgrade ({status}): the token in the lock does not \
                 match the server, or another program owns the port"
            ));
        }
        Ok(())
    }

    fn call(&mut self, id: u64, method: &str, params: Value) -> Result<Value, String> {
        self.send_json(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        loop {
            let text = self.next_text().map_err(|e| format!("{method}: {e}"))?;
            let message: Value =
                serde_json::from_str(&text).map_err(|e| format!("{method}: not JSON: {e}"))?;
            if message.get("id").and_then(Value::as_u64) == Some(id) {
                return Ok(message);
            }
        }
    }

    fn send_json(&mut self, message: &Value) -> Result<(), String> {
        self.send_frame(0x81, message.to_string().as_bytes())
            .map_err(|e| format!("send: {e}"))
    }

    /// A masked frame (RFC 6455 §5.3: a client masks every frame, with an unpredictable key).
    fn send_frame(&mut self, first: u8, payload: &[u8]) -> io::Result<()> {
        let mut mask = [0u8; 4];
        getrandom::fill(&mut mask).map_err(|e| io::Error::other(e.to_string()))?;
        let mut frame = vec![first];
        match payload.len() {
            n @ 0..=125 => frame.push(0x80 | n as u8),
            n @ 126..=0xffff => {
                frame.push(0x80 | 126);
                frame.extend_from_slice(&(n as u16).to_be_bytes());
            }
            n => {
                frame.push(0x80 | 127);
                frame.extend_from_slice(&(n as u64).to_be_bytes());
            }
        }
        frame.extend_from_slice(&mask);
        frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        self.stream.write_all(&frame)
    }

    /// The next text message; pings are answered, other control frames skipped; a close or a
    /// fragmented message is an error (the server sends neither during the probe).
    fn next_text(&mut self) -> io::Result<String> {
        loop {
            let (first, payload) = self.next_frame()?;
            match first {
                0x81 => {
                    return String::from_utf8(payload)
                        .map_err(|_| io::Error::other("text frame is not UTF-8"));
                }
                0x89 => self.send_frame(0x8a, &payload)?,
                0x8a => {}
                0x88 => return Err(io::Error::other("the server closed the connection")),
                other => return Err(io::Error::other(format!("unexpected frame 0x{other:02x}"))),
            }
        }
    }

    fn next_frame(&mut self) -> io::Result<(u8, Vec<u8>)> {
        self.fill(2)?;
        let (first, second) = (self.buf[0], self.buf[1]);
        if second & 0x80 != 0 {
            return Err(io::Error::other(
                "the server masked a frame (RFC 6455 §5.1)",
            ));
        }
        let (len, start) = match second & 0x7f {
            126 => {
                self.fill(4)?;
                (
                    usize::from(u16::from_be_bytes([self.buf[2], self.buf[3]])),
                    4,
                )
            }
            127 => {
                self.fill(10)?;
                let mut n = [0; 8];
                n.copy_from_slice(&self.buf[2..10]);
                (
                    usize::try_from(u64::from_be_bytes(n)).unwrap_or(usize::MAX),
                    10,
                )
            }
            n => (usize::from(n), 2),
        };
        if len > MAX_FRAME {
            return Err(io::Error::other("the server sent an oversized frame"));
        }
        self.fill(start + len)?;
        let payload = self.buf[start..start + len].to_vec();
        self.buf.drain(..start + len);
        Ok((first, payload))
    }

    fn fill(&mut self, n: usize) -> io::Result<()> {
        while self.buf.len() < n {
            self.read_more()?;
        }
        Ok(())
    }

    fn read_more(&mut self) -> io::Result<()> {
        let mut chunk = [0u8; 4096];
        let got = self.stream.read(&mut chunk)?;
        if got == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the server closed the connection",
            ));
        }
        self.buf.extend_from_slice(&chunk[..got]);
        Ok(())
    }
}
