//! One load-client connection: the upgrade with the token, the MCP handshake, then calls.

use crate::servers::Server;
use crate::wire::{self, FILE_PATH, FrameReader};
use std::io::{self, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// How many distinct `getCurrentSelection` frames a client cycles through (ids 1..=64).
const CALL_RING: u64 = 64;

/// A connected, initialized client of one server.
pub struct Client {
    stream: TcpStream,
    reader: FrameReader,
    echoes: bool,
    calls: Vec<Vec<u8>>,
    next: usize,
}

impl Client {
    /// Connects, upgrades with the server's token and runs the CLI's opening exchange
    /// (`initialize`, its answer, `notifications/initialized`); then checks one
    /// `getCurrentSelection` answer for the editor's selection.
    pub fn connect(server: &Server) -> io::Result<Client> {
        let (stream, reader) = upgrade(server)?;
        let mut client = Client {
            stream,
            reader,
            echoes: server.kind().echoes(),
            calls: (1..=CALL_RING)
                .map(|id| wire::client_frame(&wire::selection_call(id)))
                .collect(),
            next: 0,
        };
        client.send(&wire::client_frame(wire::initialize()))?;
        client.recv_answer()?;
        client.send(&wire::client_frame(wire::initialized()))?;
        if client.echoes {
            client.recv_answer()?;
        }
        client.send_call()?;
        let answer = client.recv_answer()?;
        let selected = answer.contains(r#"success\":true"#) && answer.contains(FILE_PATH);
        if !client.echoes && !selected {
            return Err(io::Error::other(format!(
                "{}: unexpected getCurrentSelection answer {answer}",
                server.kind().name()
            )));
        }
        Ok(client)
    }

    /// Sends the next `getCurrentSelection` call without waiting for its answer.
    pub fn send_call(&mut self) -> io::Result<()> {
        let at = self.next;
        self.next = (at + 1) % self.calls.len();
        self.stream.write_all(&self.calls[at])
    }

    /// One call and its answer.
    pub fn round_trip(&mut self) -> io::Result<()> {
        self.send_call()?;
        self.recv_answer().map(drop)
    }

    /// Sends `frame` from a second thread while this one waits for the answer (a server that
    /// echoes must be read while it is written to), and returns the time from the first byte
    /// written to the answer's last byte read.
    pub fn big_call(&mut self, frame: &[u8]) -> io::Result<Duration> {
        let mut writer = self.stream.try_clone()?;
        let start = Instant::now();
        std::thread::scope(|scope| {
            let written = scope.spawn(move || writer.write_all(frame));
            let answered = self.recv_answer();
            let written = written
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("the writer thread panicked")));
            written.and(answered)
        })?;
        Ok(start.elapsed())
    }

    fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stream.write_all(bytes)
    }

    /// Reads frames up to the next answer (skipping notifications and pings the server
    /// pushes); returns its payload as text (the echo's masked payload, lossily).
    pub fn recv_answer(&mut self) -> io::Result<String> {
        loop {
            let frame = self.reader.read_frame(&mut self.stream)?;
            let payload = self.reader.payload(frame);
            match frame.opcode {
                _ if self.echoes => return Ok(String::new()),
                1 if wire::is_response(payload) => {
                    return Ok(String::from_utf8_lossy(payload).into_owned());
                }
                8 => {
                    return Err(io::Error::other(format!(
                        "the server closed the WebSocket: {}",
                        String::from_utf8_lossy(payload)
                    )));
                }
                _ => {}
            }
        }
    }
}

/// Connects and upgrades: the 101 answer read (for the echo, its own request back).
pub fn upgrade(server: &Server) -> io::Result<(TcpStream, FrameReader)> {
    upgrade_to(server.port(), server.token(), server.kind().echoes())
        .map_err(|e| io::Error::other(format!("{}: {e}", server.kind().name())))
}

/// Connects to `port` and upgrades with `token`; `echoes`: the server is the echo floor.
pub fn upgrade_to(port: u16, token: &str, echoes: bool) -> io::Result<(TcpStream, FrameReader)> {
    let mut stream = TcpStream::connect(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))?;
    stream.set_nodelay(true)?;
    stream.write_all(&wire::upgrade_request(port, token))?;
    let mut reader = FrameReader::default();
    let status = reader.read_head(&mut stream)?;
    let expected = if echoes {
        "GET / HTTP/1.1"
    } else {
        "HTTP/1.1 101"
    };
    if !status.starts_with(expected) {
        return Err(io::Error::other(format!("upgrade answered {status:?}")));
    }
    Ok((stream, reader))
}

/// An initialized session that stays idle: a thread answers the server's pings with pongs
/// (as the CLI's WebSocket library does) and nothing else, until the server closes.
pub struct IdleSession {
    stream: TcpStream,
}

impl IdleSession {
    /// Upgrades, sends `initialize` and `notifications/initialized`, then idles.
    pub fn open(port: u16, token: &str, echoes: bool) -> io::Result<IdleSession> {
        let (mut stream, mut reader) = upgrade_to(port, token, echoes)?;
        stream.write_all(&wire::client_frame(wire::initialize()))?;
        stream.write_all(&wire::client_frame(wire::initialized()))?;
        let mut responder = stream.try_clone()?;
        std::thread::spawn(move || {
            while let Ok(frame) = reader.read_frame(&mut responder) {
                if frame.opcode == 9 && !echoes {
                    let mut pong = Vec::new();
                    idelink_test_client::push_client_frame(0x8a, reader.payload(frame), &mut pong);
                    if responder.write_all(&pong).is_err() {
                        return;
                    }
                }
            }
        });
        Ok(IdleSession { stream })
    }
}

impl Drop for IdleSession {
    fn drop(&mut self) {
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
    }
}
