//! A server on 127.0.0.1:0 that is not idelink, for the doctor's live check to meet: it
//! records every byte a client sends (so a test sees whether the token arrived) and answers
//! as its [`Behaviour`] says.

use serde_json::{Value, json};
use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

/// What the server does with the connection it accepts.
pub enum Behaviour {
    /// Upgrades, then answers `initialize` with this `serverInfo.name` and `tools/list` with
    /// no tools.
    Answers(&'static str),
    /// Upgrades, then sends a ping every `Duration` (none: back to back) and answers nothing.
    Pings(Duration),
    /// Reads until the client hangs up, answering nothing (the impostor of the owner check,
    /// which runs where the OS names a listener's owner).
    #[cfg_attr(
        not(any(target_os = "linux", windows)),
        expect(
            dead_code,
            reason = "the owner-check test runs on Linux and Windows only"
        )
    )]
    Records,
}

/// The running server.
pub struct FakeServer {
    /// Its port.
    pub port: u16,
    received: Receiver<Vec<u8>>,
}

impl FakeServer {
    /// Listens and serves the first connection on a thread of its own.
    pub fn start(behaviour: Behaviour) -> FakeServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the fake server");
        let port = listener.local_addr().expect("its address").port();
        let (send, received) = mpsc::channel();
        std::thread::spawn(move || {
            let Ok((stream, _)) = listener.accept() else {
                return;
            };
            let mut client = Recording {
                stream,
                seen: Vec::new(),
            };
            // Ends when the client hangs up (or breaks the protocol).
            let _ = serve(&mut client, &behaviour);
            let _ = io::copy(&mut client, &mut io::sink());
            let _ = send.send(client.seen);
        });
        FakeServer { port, received }
    }

    /// Everything the client sent, once it hung up; `None` when no client came within
    /// `limit`.
    pub fn received(&self, limit: Duration) -> Option<Vec<u8>> {
        self.received.recv_timeout(limit).ok()
    }
}

/// The accepted connection, keeping a copy of what it reads.
struct Recording {
    stream: TcpStream,
    seen: Vec<u8>,
}

impl Read for Recording {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let got = self.stream.read(buf)?;
        self.seen.extend_from_slice(&buf[..got]);
        Ok(got)
    }
}

fn serve(client: &mut Recording, behaviour: &Behaviour) -> io::Result<()> {
    if let Behaviour::Records = behaviour {
        return Ok(());
    }
    let mut byte = [0u8];
    while !client.seen.ends_with(b"\r\n\r\n") {
        client.read_exact(&mut byte)?;
    }
    client.stream.write_all(
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
          Sec-WebSocket-Accept: not-checked\r\nSec-WebSocket-Protocol: mcp\r\n\r\n",
    )?;
    match behaviour {
        Behaviour::Answers(name) => loop {
            let (opcode, payload) = client_frame(client)?;
            if opcode != 0x1 {
                continue;
            }
            let message: Value = serde_json::from_slice(&payload).map_err(io::Error::other)?;
            let result = match message["method"].as_str() {
                Some("initialize") => json!({"protocolVersion": "2025-11-25", "capabilities": {},
                    "serverInfo": {"name": name, "version": "1"}}),
                Some("tools/list") => json!({"tools": []}),
                _ => continue,
            };
            let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": result});
            client
                .stream
                .write_all(&server_frame(0x81, answer.to_string().as_bytes()))?;
        },
        Behaviour::Pings(every) => {
            let mut pinger = client.stream.try_clone()?;
            let every = *every;
            std::thread::spawn(move || {
                while pinger.write_all(&server_frame(0x89, b"ping")).is_ok() {
                    if !every.is_zero() {
                        std::thread::park_timeout(every);
                    }
                }
            });
            Ok(())
        }
        Behaviour::Records => Ok(()),
    }
}

/// One client frame (RFC 6455 §5.2; a client masks every frame), unmasked: opcode, payload.
fn client_frame(client: &mut Recording) -> io::Result<(u8, Vec<u8>)> {
    let mut head = [0u8; 2];
    client.read_exact(&mut head)?;
    let len = match head[1] & 0x7f {
        126 => {
            let mut n = [0u8; 2];
            client.read_exact(&mut n)?;
            u64::from(u16::from_be_bytes(n))
        }
        127 => {
            let mut n = [0u8; 8];
            client.read_exact(&mut n)?;
            u64::from_be_bytes(n)
        }
        n => u64::from(n),
    };
    let mut mask = [0u8; 4];
    client.read_exact(&mut mask)?;
    let mut payload = vec![0u8; usize::try_from(len).map_err(io::Error::other)?];
    client.read_exact(&mut payload)?;
    for (i, b) in payload.iter_mut().enumerate() {
        *b ^= mask[i % 4];
    }
    Ok((head[0] & 0x0f, payload))
}

/// One unmasked server frame with `first` as its first byte (FIN and opcode).
fn server_frame(first: u8, payload: &[u8]) -> Vec<u8> {
    let mut frame = vec![first];
    match payload.len() {
        n @ 0..=125 => frame.push(u8::try_from(n).expect("125 fits a byte")),
        n => {
            frame.push(126);
            frame.extend_from_slice(&u16::try_from(n).expect("a small test frame").to_be_bytes());
        }
    }
    frame.extend_from_slice(payload);
    frame
}
