//! A deliberately small, blocking WebSocket client that talks to an idelink server the way the
//! `claude` CLI does (upgrade with the token and the `mcp` subprotocol, masked frames, one
//! JSON-RPC message per text frame). Every read has a deadline: a test that waits for an answer
//! that never comes fails with a message instead of hanging.

pub mod adversarial;
pub mod backpressure;

use serde_json::{Value, json};
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// How long any single read may wait.
pub const READ_DEADLINE: Duration = Duration::from_secs(10);
/// How often an idle connection looks for pings and for its stop
/// ([`Client::answer_pings_until`]).
pub const IDLE_POLL: Duration = Duration::from_millis(50);

/// A frame from the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A text message.
    Text(String),
    /// A close frame: code (if any) and reason.
    Close(Option<u16>, String),
    /// A ping with its payload.
    Ping(Vec<u8>),
    /// A pong with its payload.
    Pong(Vec<u8>),
    /// Any other opcode.
    Other(u8, Vec<u8>),
}

/// The masking key of every client frame (RFC 6455 §5.7's example key).
pub const MASK: [u8; 4] = [0x37, 0xfa, 0x21, 0x3d];

/// Appends a masked client frame: `first` is the first header byte (FIN, RSV bits, opcode);
/// the length takes its shortest form. Reuses `out`'s capacity (load generators call it in a
/// loop).
pub fn push_client_frame(first: u8, payload: &[u8], out: &mut Vec<u8>) {
    out.push(first);
    let len = payload.len();
    if len < 126 {
        out.push(0x80 | len as u8);
    } else if let Ok(len) = u16::try_from(len) {
        out.push(0x80 | 126);
        out.extend_from_slice(&len.to_be_bytes());
    } else {
        out.push(0x80 | 127);
        out.extend_from_slice(&(len as u64).to_be_bytes());
    }
    out.extend_from_slice(&MASK);
    out.extend(payload.iter().enumerate().map(|(i, b)| b ^ MASK[i % 4]));
}

/// A masked client frame (see [`push_client_frame`]).
pub fn client_frame(first: u8, payload: &[u8]) -> Vec<u8> {
    let mut frame = Vec::with_capacity(payload.len() + 14);
    push_client_frame(first, payload, &mut frame);
    frame
}

/// One connection to a server.
pub struct Client {
    stream: TcpStream,
    buf: Vec<u8>,
    next_id: u64,
}

/// The upgrade request the CLI sends, with `token` (None: no token header) and extra header
/// lines (each ending in `\r\n`).
pub fn upgrade_request(port: u16, token: Option<&str>, extra: &str) -> String {
    let auth = token.map_or(String::new(), |t| {
        format!("X-Claude-Code-Ide-Authorization: {t}\r\n")
    });
    format!(
        "GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
         Sec-WebSocket-Protocol: mcp\r\n{auth}{extra}User-Agent: idelink-test-client\r\n\r\n"
    )
}

impl Client {
    /// Connects and sends nothing yet (for tests that write raw bytes). Reads and writes wait
    /// at most [`READ_DEADLINE`].
    pub fn connect_raw(port: u16) -> io::Result<Client> {
        let stream = TcpStream::connect(("127.0.0.1", port))?;
        stream.set_read_timeout(Some(READ_DEADLINE))?;
        stream.set_write_timeout(Some(READ_DEADLINE))?;
        stream.set_nodelay(true)?;
        Ok(Client {
            stream,
            buf: Vec::new(),
            next_id: 1,
        })
    }

    /// Connects and sends `request`; returns the client and the server's response head (the
    /// whole response when it is not a 101).
    pub fn open(port: u16, request: &str) -> io::Result<(Client, String)> {
        let mut client = Client::connect_raw(port)?;
        client.stream.write_all(request.as_bytes())?;
        let head = client.read_head()?;
        Ok((client, head))
    }

    /// Connects with `token` and checks for `101` with the `mcp` subprotocol.
    pub fn connect(port: u16, token: &str) -> io::Result<Client> {
        let (client, head) = Client::open(port, &upgrade_request(port, Some(token), ""))?;
        if !head.starts_with("HTTP/1.1 101") || !head.contains("Sec-WebSocket-Protocol: mcp") {
            return Err(io::Error::other(format!("upgrade refused: {head}")));
        }
        Ok(client)
    }

    /// Connects and runs the CLI's opening: initialize, notifications/initialized,
    /// ide_connected.
    pub fn connect_initialized(port: u16, token: &str) -> io::Result<Client> {
        let mut client = Client::connect(port, token)?;
        let init = client.call(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "claude-code", "version": "test"}}),
        )?;
        if init.get("result").is_none() {
            return Err(io::Error::other(format!("initialize failed: {init}")));
        }
        client.notify("notifications/initialized", json!({}))?;
        client.notify("ide_connected", json!({"pid": std::process::id()}))?;
        Ok(client)
    }

    /// [`connect_initialized`](Self::connect_initialized) on a thread of its own, waited for
    /// at most `within`: how long it took, or `None` when it did not finish in time (the
    /// server's loop is stalled). Panics when the session fails rather than stalls.
    pub fn initialized_within(port: u16, token: &str, within: Duration) -> Option<Duration> {
        let (done, finished) = std::sync::mpsc::channel();
        let token = token.to_owned();
        let started = std::time::Instant::now();
        std::thread::spawn(move || {
            let _ = done.send(Client::connect_initialized(port, &token).map(drop));
        });
        let result = finished.recv_timeout(within).ok()?;
        if let Err(e) = result {
            panic!("the second session failed instead of stalling: {e}");
        }
        Some(started.elapsed())
    }

    /// Sends a request and waits for the response with its id (notifications in between are
    /// dropped). Returns the whole response object.
    pub fn call(&mut self, method: &str, params: Value) -> io::Result<Value> {
        let id = self.send_request(method, params)?;
        self.response(id)
    }

    /// Sends a request without waiting; returns its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> io::Result<u64> {
        let id = self.next_id;
        self.next_id += 1;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_text(&message.to_string())?;
        Ok(id)
    }

    /// Calls tool `name`; returns the response object.
    pub fn call_tool(&mut self, name: &str, arguments: Value) -> io::Result<Value> {
        self.call("tools/call", json!({"name": name, "arguments": arguments}))
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Value) -> io::Result<()> {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        self.send_text(&message.to_string())
    }

    /// Waits for the response with `id`, dropping other messages.
    pub fn response(&mut self, id: u64) -> io::Result<Value> {
        loop {
            let message = self.next_json()?;
            if message.get("id") == Some(&json!(id)) && message.get("method").is_none() {
                return Ok(message);
            }
        }
    }

    /// Waits for the next notification named `method`, dropping other messages.
    pub fn notification(&mut self, method: &str) -> io::Result<Value> {
        loop {
            let message = self.next_json()?;
            if message.get("method") == Some(&json!(method)) && message.get("id").is_none() {
                return Ok(message);
            }
        }
    }

    /// The next text message as JSON (pings are answered, other control frames skipped).
    pub fn next_json(&mut self) -> io::Result<Value> {
        loop {
            match self.next_frame()? {
                Frame::Text(text) => {
                    return serde_json::from_str(&text).map_err(|e| {
                        io::Error::other(format!("server sent bad JSON {text}: {e}"))
                    });
                }
                Frame::Ping(payload) => self.send_frame(0xA, true, &payload)?,
                Frame::Close(code, reason) => {
                    return Err(io::Error::other(format!("closed: {code:?} {reason}")));
                }
                _ => {}
            }
        }
    }

    /// Keeps a connection a test holds open but idle alive past the server's keepalive: answers
    /// its pings until `stop` receives (or its sender is dropped), looking every
    /// [`IDLE_POLL`]. A text message or a close meanwhile is an error (the connection was
    /// meant to be idle), as is the server closing. Frames keep their order: a frame cut by a
    /// poll stays buffered for the next read.
    pub fn answer_pings_until(&mut self, stop: &std::sync::mpsc::Receiver<()>) -> io::Result<()> {
        use std::sync::mpsc::TryRecvError;
        self.stream.set_read_timeout(Some(IDLE_POLL))?;
        let result = loop {
            if !matches!(stop.try_recv(), Err(TryRecvError::Empty)) {
                break Ok(());
            }
            match self.next_frame() {
                Ok(Frame::Ping(payload)) => self.send_frame(0xA, true, &payload)?,
                Ok(Frame::Pong(_)) => {}
                Ok(other) => break Err(io::Error::other(format!("while idle: {other:?}"))),
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) => {}
                Err(e) => break Err(e),
            }
        };
        self.stream.set_read_timeout(Some(READ_DEADLINE))?;
        result
    }

    /// Sends one masked text frame.
    pub fn send_text(&mut self, text: &str) -> io::Result<()> {
        self.send_frame(0x1, true, text.as_bytes())
    }

    /// Sends one masked frame (any opcode, FIN as given).
    pub fn send_frame(&mut self, opcode: u8, fin: bool, payload: &[u8]) -> io::Result<()> {
        self.stream
            .write_all(&client_frame((u8::from(fin) << 7) | opcode, payload))
    }

    /// Writes raw bytes (for malformed input).
    pub fn send_raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stream.write_all(bytes)
    }

    /// The next frame from the server.
    pub fn next_frame(&mut self) -> io::Result<Frame> {
        let (first, payload) = self.next_raw_frame()?;
        Ok(match first & 0x0f {
            0x1 => Frame::Text(
                String::from_utf8(payload).map_err(|_| io::Error::other("text is not UTF-8"))?,
            ),
            0x8 if payload.len() >= 2 => Frame::Close(
                Some(u16::from_be_bytes([payload[0], payload[1]])),
                String::from_utf8_lossy(&payload[2..]).into_owned(),
            ),
            0x8 => Frame::Close(None, String::new()),
            0x9 => Frame::Ping(payload),
            0xA => Frame::Pong(payload),
            other => Frame::Other(other, payload),
        })
    }

    /// The next frame from the server as it came: its first header byte (FIN, RSV bits,
    /// opcode) and its payload. A masked server frame is an error (RFC 6455 §5.1).
    pub fn next_raw_frame(&mut self) -> io::Result<(u8, Vec<u8>)> {
        self.fill(2)?;
        let (b0, b1) = (self.buf[0], self.buf[1]);
        if b1 & 0x80 != 0 {
            return Err(io::Error::other("server frame is masked"));
        }
        let (len, start) = match b1 & 0x7f {
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
                let len = usize::try_from(u64::from_be_bytes(n))
                    .map_err(|_| io::Error::other("frame length overflows usize"))?;
                (len, 10)
            }
            n => (usize::from(n), 2),
        };
        self.fill(start + len)?;
        let payload: Vec<u8> = self.buf[start..start + len].to_vec();
        self.buf.drain(..start + len);
        Ok((b0, payload))
    }

    /// Reads an HTTP response head through its blank line, whatever its status, and returns
    /// exactly those bytes (what follows stays buffered).
    pub fn read_response_head(&mut self) -> io::Result<String> {
        loop {
            if let Some(end) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head: Vec<u8> = self.buf.drain(..end + 4).collect();
                return String::from_utf8(head)
                    .map_err(|_| io::Error::other("response head is not UTF-8"));
            }
            self.read_more()?;
        }
    }

    /// Writes as much of `bytes` as the server takes; false once it stops taking them (it
    /// closed or reset the connection).
    pub fn try_send(&mut self, bytes: &[u8]) -> bool {
        self.stream.write_all(bytes).is_ok()
    }

    /// The TCP stream itself, for tests that pace raw writes (a write timeout to see when the
    /// server stops reading).
    pub fn socket(&mut self) -> &mut TcpStream {
        &mut self.stream
    }

    /// Closes our side for writing (the server reads end of stream).
    pub fn shutdown_write(&self) -> io::Result<()> {
        self.stream.shutdown(std::net::Shutdown::Write)
    }

    /// Drops the connection abruptly (a reset when data is unread).
    pub fn vanish(self) {
        // Best effort: the server may have closed already.
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
    }

    /// Reads until the server closes the TCP connection; returns what arrived meanwhile.
    pub fn read_to_end(&mut self) -> io::Result<Vec<u8>> {
        let mut rest = std::mem::take(&mut self.buf);
        self.stream.read_to_end(&mut rest)?;
        Ok(rest)
    }

    fn read_head(&mut self) -> io::Result<String> {
        loop {
            if let Some(end) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&self.buf[..end + 4]).into_owned();
                if !head.starts_with("HTTP/1.1 101") {
                    // An error response: take its body too (the server closes after it).
                    let rest = self.read_to_end()?;
                    return Ok(String::from_utf8_lossy(&rest).into_owned());
                }
                self.buf.drain(..end + 4);
                return Ok(head);
            }
            self.read_more()?;
        }
    }

    fn fill(&mut self, n: usize) -> io::Result<()> {
        while self.buf.len() < n {
            self.read_more()?;
        }
        Ok(())
    }

    fn read_more(&mut self) -> io::Result<()> {
        let mut chunk = [0; 64 * 1024];
        let n = self.stream.read(&mut chunk)?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "server closed",
            ));
        }
        self.buf.extend_from_slice(&chunk[..n]);
        Ok(())
    }
}
