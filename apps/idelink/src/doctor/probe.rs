//! The live check of one server, as the CLI opens a session: WebSocket upgrade with the lock's
//! token (RFC 6455 §4.1), MCP `initialize`, `notifications/initialized`, `tools/list`, close
//! (§5.5.1). A small blocking client on loopback that trusts nothing it is told:
//! - the token goes only to a listener the lock's pid owns, where the OS tells ([`owner`]);
//! - the whole check has one deadline ([`PROBE_DEADLINE`]) and a budget of frames and bytes
//!   ([`MAX_PROBE_FRAMES`], [`MAX_PROBE_BYTES`]), so a server that only pings, or floods, ends it;
//! - every text the server sent is made inert before the report holds it (`<ESC>`, `<U+202E>`).

use super::owner::{self, Owner};
use crate::terminal::inert;
use serde_json::{Value, json};
use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// How long one server's whole check may take, from connect to the `tools/list` answer: a
/// healthy server answers in milliseconds, and a person waits for the report.
const PROBE_DEADLINE: Duration = Duration::from_secs(5);
/// The largest server frame the probe reads (a `tools/list` answer is a few KiB).
const MAX_FRAME_BYTES: usize = 1 << 20;
/// How many frames (pings and notifications included) the probe reads from one server: the
/// check needs two answers, and a server busy sending something else is not answering.
const MAX_PROBE_FRAMES: usize = 64;
/// How many bytes the probe reads from one server in all: a few answers of at most
/// [`MAX_FRAME_BYTES`] each.
const MAX_PROBE_BYTES: usize = 4 << 20;
/// How many characters of a server's text (its name, its refusal) the report shows.
const MAX_SHOWN_CHARS: usize = 200;

/// What the live check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeResult {
    /// `serverInfo.name` from `initialize`, inert.
    pub server: String,
    /// The MCP protocol version the server chose, inert.
    pub protocol: String,
    /// How many tools `tools/list` listed.
    pub tools: usize,
    /// From connect to the `tools/list` answer, in milliseconds.
    pub latency_ms: u128,
}

/// One server's check: who owns its listener, and what it answered (the error says which step
/// failed; its server text is inert).
#[derive(Debug)]
pub struct Probe {
    /// What the OS said about the listener's owner ([`Owner::Differs`]: the token was not sent).
    pub owner: Owner,
    /// The answers.
    pub outcome: Result<ProbeResult, String>,
}

/// Server text as the report shows it: control, bidi and invisible characters escaped, cut.
fn shown(text: &str) -> String {
    inert::line(text, MAX_SHOWN_CHARS)
}

/// Runs the check against `127.0.0.1:port`, whose lock names `pid` and `token`.
pub fn probe(port: u16, pid: u32, token: &str) -> Probe {
    let started = Instant::now();
    let deadline = started + PROBE_DEADLINE;
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let stream = match TcpStream::connect_timeout(&addr, PROBE_DEADLINE) {
        Ok(stream) => stream,
        Err(e) => {
            return Probe {
                owner: Owner::Unknown("nothing to ask: the connection failed"),
                outcome: Err(format!("cannot connect to 127.0.0.1:{port}: {e}")),
            };
        }
    };
    // Asked once connected: the listener that took this connection is among those judged (one
    // that closes before the token is sent takes this connection down with it).
    let owner = owner::listener_owner(port, pid);
    let outcome = if let Owner::Differs(_) = owner {
        Err("another program may be posing as the server".to_owned())
    } else {
        check(Conn::new(stream, deadline), port, token, started)
    };
    Probe { owner, outcome }
}

/// The session: upgrade, `initialize`, `tools/list`, close.
fn check(mut conn: Conn, port: u16, token: &str, started: Instant) -> Result<ProbeResult, String> {
    conn.upgrade(port, token)?;
    let init = conn.call(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "idelink-doctor", "version": env!("CARGO_PKG_VERSION")}}),
    )?;
    let result = init.get("result").ok_or_else(|| {
        let error = init.get("error").unwrap_or(&init).to_string();
        format!("initialize failed: {}", shown(&error))
    })?;
    let text = |v: Option<&Value>| shown(v.and_then(Value::as_str).unwrap_or("?"));
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

/// The client side of one probe, with what is left of its deadline and budget.
struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
    deadline: Instant,
    frames_read: usize,
    bytes_read: usize,
}

impl Conn {
    fn new(stream: TcpStream, deadline: Instant) -> Conn {
        Conn {
            stream,
            buf: Vec::new(),
            deadline,
            frames_read: 0,
            bytes_read: 0,
        }
    }

    /// What is left of the deadline, as an error once it has passed.
    fn remaining(&self) -> io::Result<Duration> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "no answer within {} s (the server kept the connection open without answering)",
                    PROBE_DEADLINE.as_secs()
                ),
            ));
        }
        Ok(left)
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
        let status = head.lines().next().unwrap_or("");
        if !status.starts_with("HTTP/1.1 101") {
            return Err(format!(
                "the server refused the upgrade ({}): the token in the lock does not \
                 match the server, or another program owns the port",
                shown(status)
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
        let left = self.remaining()?;
        self.stream.set_write_timeout(Some(left))?;
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
        self.frames_read += 1;
        if self.frames_read > MAX_PROBE_FRAMES {
            return Err(io::Error::other(format!(
                "the server sent more than {MAX_PROBE_FRAMES} frames without answering"
            )));
        }
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
        if len > MAX_FRAME_BYTES {
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

    /// Reads what the server sent next, within what is left of the deadline and the budget.
    fn read_more(&mut self) -> io::Result<()> {
        let mut chunk = [0u8; 4096];
        let got = loop {
            // A timed-out read (the OS may wake a little early) goes round until the deadline.
            self.stream.set_read_timeout(Some(self.remaining()?))?;
            match self.stream.read(&mut chunk) {
                Ok(got) => break got,
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        };
        if got == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the server closed the connection",
            ));
        }
        self.bytes_read += got;
        if self.bytes_read > MAX_PROBE_BYTES {
            return Err(io::Error::other(format!(
                "the server sent more than {MAX_PROBE_BYTES} bytes without answering"
            )));
        }
        self.buf.extend_from_slice(&chunk[..got]);
        Ok(())
    }
}
