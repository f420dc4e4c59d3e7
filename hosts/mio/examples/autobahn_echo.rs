//! A test-only WebSocket echo server for the Autobahn|Testsuite server cases.
//!
//! ```sh
//! cargo run --release -p idelink-mio --example autobahn_echo -- --port 0
//! ```
//!
//! It is built on the same pieces as the real server — `idelink_core::http::parse_upgrade`
//! and `idelink_core::ws::ServerSocket` over mio — but speaks no MCP and checks no token
//! (`auth_token: None`: the conformance runner cannot send our header), so it is an example,
//! never reachable from the `idelink` command. Every text and binary message is echoed back
//! (`WsConfig::accept_binary`, 64 MiB message cap). `--port 0` picks a free port; the first
//! line on stdout is always `listening on 127.0.0.1:<port>`.

use idelink_core::Timestamp;
use idelink_core::http::{
    Credential, DEFAULT_MAX_HEAD_BYTES, OriginRule, Upgrade, UpgradePolicy, parse_upgrade,
    write_accept, write_rejection,
};
use idelink_core::ws::{Message, ServerSocket, WsConfig};
use mio::net::{TcpListener, TcpStream};
use mio::{Events, Interest, Poll, Token};
use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, Shutdown, SocketAddr};
use std::time::{Duration, Instant};

const LISTENER: Token = Token(0);
/// Time from accept to a complete upgrade request.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a finished connection may take to flush, and to send its EOF after ours.
const LINGER: Duration = Duration::from_secs(2);

/// Where a connection is in its life.
enum Phase {
    /// Collecting the upgrade request.
    Handshake { head: Vec<u8>, since: Instant },
    /// Upgraded: frames in, echoes out.
    Open(Box<ServerSocket>),
    /// Done: flush `out`, send our FIN, discard input until the peer's FIN or the linger ends.
    Closing { since: Instant },
}

struct Conn {
    stream: TcpStream,
    phase: Phase,
    out: Vec<u8>,
    /// Bytes of `out` already written.
    sent: usize,
    write_shut: bool,
}

struct Server {
    poll: Poll,
    listener: TcpListener,
    port: u16,
    conns: BTreeMap<usize, Conn>,
    next_token: usize,
    origin: Instant,
    config: WsConfig,
    read_buf: Vec<u8>,
    /// A copy of the message being echoed (it is borrowed from the socket it is sent on).
    echo: Vec<u8>,
}

fn main() {
    let port = match parse_port(std::env::args().skip(1)) {
        Ok(port) => port,
        Err(message) => {
            eprintln!(
                "autobahn_echo: {message}\nusage: autobahn_echo --port PORT (0: any free port)"
            );
            std::process::exit(2);
        }
    };
    if let Err(e) = run(port) {
        eprintln!("autobahn_echo: {e}");
        std::process::exit(1);
    }
}

fn parse_port(mut args: impl Iterator<Item = String>) -> Result<u16, String> {
    match (args.next().as_deref(), args.next(), args.next()) {
        (Some("--port"), Some(port), None) => port
            .parse()
            .map_err(|_| format!("--port takes a number from 0 to 65535, not {port:?}")),
        _ => Err("expected exactly --port PORT".to_owned()),
    }
}

fn run(port: u16) -> io::Result<()> {
    let mut listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))?;
    let port = listener.local_addr()?.port();
    let poll = Poll::new()?;
    poll.registry()
        .register(&mut listener, LISTENER, Interest::READABLE)?;
    println!("listening on 127.0.0.1:{port}");
    io::stdout().flush()?;
    let mut server = Server {
        poll,
        listener,
        port,
        conns: BTreeMap::new(),
        next_token: 1,
        origin: Instant::now(),
        config: WsConfig {
            accept_binary: true,
            max_message_bytes: 64 << 20,
            ..WsConfig::default()
        },
        read_buf: vec![0; 256 * 1024],
        echo: Vec::new(),
    };
    let mut events = Events::with_capacity(256);
    loop {
        let wait = server.next_wakeup();
        match server.poll.poll(&mut events, wait) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
        for event in events.iter() {
            match event.token() {
                LISTENER => server.accept(),
                Token(token) => {
                    if event.is_writable() {
                        server.flush(token);
                    }
                    if event.is_readable() || event.is_read_closed() || event.is_error() {
                        server.read(token);
                    }
                }
            }
        }
        server.handle_timers();
    }
}

impl Server {
    fn now(&self) -> Timestamp {
        let ms = u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(u64::MAX);
        Timestamp::from_millis(ms)
    }

    /// The earliest moment a timer needs attention.
    fn next_wakeup(&self) -> Option<Duration> {
        let now = self.now().as_millis();
        self.conns
            .values()
            .filter_map(|c| match &c.phase {
                Phase::Handshake { since, .. } => {
                    Some(HANDSHAKE_TIMEOUT.saturating_sub(since.elapsed()))
                }
                Phase::Open(ws) => ws
                    .poll_timeout()
                    .map(|at| Duration::from_millis(at.as_millis().saturating_sub(now))),
                Phase::Closing { since } => Some(LINGER.saturating_sub(since.elapsed())),
            })
            .min()
    }

    fn accept(&mut self) {
        loop {
            match self.listener.accept() {
                Ok((mut stream, _)) => {
                    let _ = stream.set_nodelay(true);
                    let token = self.next_token;
                    self.next_token += 1;
                    let interest = Interest::READABLE | Interest::WRITABLE;
                    if self
                        .poll
                        .registry()
                        .register(&mut stream, Token(token), interest)
                        .is_ok()
                    {
                        let phase = Phase::Handshake {
                            head: Vec::new(),
                            since: Instant::now(),
                        };
                        let conn = Conn {
                            stream,
                            phase,
                            out: Vec::new(),
                            sent: 0,
                            write_shut: false,
                        };
                        self.conns.insert(token, conn);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return,
            }
        }
    }

    /// Reads until the socket would block (mio is edge-triggered), serving what arrives.
    fn read(&mut self, token: usize) {
        loop {
            let Some(conn) = self.conns.get_mut(&token) else {
                return;
            };
            match conn.stream.read(&mut self.read_buf) {
                Ok(0) => return self.peer_eof(token),
                Ok(n) => self.received(token, n),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return self.drop_conn(token),
            }
        }
    }

    /// `n` bytes of `read_buf` arrived on `token`.
    fn received(&mut self, token: usize, n: usize) {
        let now = self.now();
        let Some(conn) = self.conns.get_mut(&token) else {
            return;
        };
        let bytes = &self.read_buf[..n];
        match &mut conn.phase {
            Phase::Handshake { head, .. } => {
                head.extend_from_slice(bytes);
                let policy = UpgradePolicy {
                    bridge_port: 0,
                    port: self.port,
                    path: "/",
                    origin: OriginRule::Forbidden,
                    credential: Credential::OnSocket,
                    max_head_bytes: DEFAULT_MAX_HEAD_BYTES,
                };
                match parse_upgrade(head, &policy) {
                    Upgrade::Partial => {}
                    Upgrade::Rejected(rejection) => {
                        write_rejection(&rejection, &mut conn.out);
                        conn.phase = Phase::Closing {
                            since: Instant::now(),
                        };
                    }
                    Upgrade::Accepted(accepted) => {
                        write_accept(&accepted, &mut conn.out);
                        let mut ws = ServerSocket::new(self.config.clone(), now);
                        // The client may send its first frames right behind the request head.
                        ws.receive(&head[accepted.head_len..]);
                        conn.phase = Phase::Open(Box::new(ws));
                    }
                }
            }
            Phase::Open(ws) => ws.receive(bytes),
            Phase::Closing { .. } => {}
        }
        self.serve(token, now);
    }

    /// Echoes every complete message, then flushes; a finished socket starts closing.
    fn serve(&mut self, token: usize, now: Timestamp) {
        let Some(conn) = self.conns.get_mut(&token) else {
            return;
        };
        if let Phase::Open(ws) = &mut conn.phase {
            loop {
                let text = match ws.poll_message(now, &mut conn.out) {
                    None => break,
                    Some(Message::Text(text)) => {
                        self.echo.clear();
                        self.echo.extend_from_slice(text.as_bytes());
                        true
                    }
                    Some(Message::Binary(bytes)) => {
                        self.echo.clear();
                        self.echo.extend_from_slice(bytes);
                        false
                    }
                };
                if text {
                    ws.send_text(&self.echo, &mut conn.out);
                } else {
                    ws.send_binary(&self.echo, &mut conn.out);
                }
            }
            if ws.finished().is_some() {
                conn.phase = Phase::Closing {
                    since: Instant::now(),
                };
            }
        }
        self.flush(token);
    }

    /// Writes what the socket takes; a closing connection sends its FIN once all is written.
    fn flush(&mut self, token: usize) {
        let Some(conn) = self.conns.get_mut(&token) else {
            return;
        };
        while conn.sent < conn.out.len() {
            match conn.stream.write(&conn.out[conn.sent..]) {
                Ok(0) => break,
                Ok(n) => conn.sent += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return self.drop_conn(token),
            }
        }
        if conn.sent == conn.out.len() {
            conn.out.clear();
            conn.sent = 0;
            // RFC 6455 §7.1.1: the server closes the TCP connection first. Our FIN goes out
            // after the last byte; the socket is released when the peer's FIN arrives, so
            // unread input never turns the close into a reset that could lose our close frame.
            if matches!(conn.phase, Phase::Closing { .. }) && !conn.write_shut {
                conn.write_shut = true;
                let _ = conn.stream.shutdown(Shutdown::Write);
            }
        }
    }

    fn peer_eof(&mut self, token: usize) {
        let Some(conn) = self.conns.get_mut(&token) else {
            return;
        };
        match conn.phase {
            // Still flushing our last bytes: the socket goes when they are out or the linger ends.
            Phase::Closing { .. } if !conn.write_shut => {}
            _ => self.drop_conn(token),
        }
    }

    fn drop_conn(&mut self, token: usize) {
        if let Some(mut conn) = self.conns.remove(&token) {
            let _ = self.poll.registry().deregister(&mut conn.stream);
        }
    }

    fn handle_timers(&mut self) {
        let now = self.now();
        let tokens: Vec<usize> = self.conns.keys().copied().collect();
        for token in tokens {
            let Some(conn) = self.conns.get_mut(&token) else {
                continue;
            };
            match &mut conn.phase {
                Phase::Handshake { since, .. } if since.elapsed() >= HANDSHAKE_TIMEOUT => {
                    self.drop_conn(token);
                }
                Phase::Open(ws) if ws.poll_timeout().is_some_and(|at| at <= now) => {
                    ws.handle_timeout(now, &mut conn.out);
                    self.serve(token, now);
                }
                Phase::Closing { since } if since.elapsed() >= LINGER => self.drop_conn(token),
                _ => {}
            }
        }
    }
}
