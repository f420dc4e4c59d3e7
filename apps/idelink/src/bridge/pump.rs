//! Carries a link's connections between its byte stream (stdin/stdout, a child's pipes) and
//! loopback TCP sockets: the bridge accepts claude's sockets, the editor side dials its own
//! engine's listener for each connection the bridge opened. Every rule is core's
//! ([`idelink_core::link`]); this is the system calls.
//!
//! The stream is read and written by a thread each (a pipe cannot be polled portably); the
//! sockets by one mio loop. A socket is read only while its connection has credit, and written
//! from what the link received for it, so a claude that does not read pauses its own
//! connection only.

use idelink_core::Timestamp;
use idelink_core::link::{Hello, Link, LinkConfig, LinkConnId, LinkEvent, LinkFault, LinkRole};
use mio::net::{TcpListener, TcpStream};
use mio::{Events, Interest, Poll, Token, Waker};
use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

const LISTENER: Token = Token(0);
const WAKER: Token = Token(1);
const FIRST_SOCKET: usize = 2;

/// Bytes read from a socket or the stream at a time: one link data frame.
const READ_CHUNK_BYTES: usize = idelink_core::link::MAX_DATA_FRAME_BYTES;

/// What the stream's reader thread hands the loop.
enum Incoming {
    Bytes(Vec<u8>),
    End,
}

/// Where the loop's connections come from.
pub enum Sockets {
    /// The bridge: claude dials this listener; each client becomes a new connection.
    Accept(TcpListener),
    /// The editor side: each connection the bridge opens is a socket dialled to this address
    /// (the engine's own loopback listener).
    Dial(SocketAddr),
}

struct Socket {
    stream: TcpStream,
    conn: LinkConnId,
    /// The link said the peer closed it: close the socket once what it sent is written.
    peer_closed: bool,
}

/// One link end and its sockets.
pub struct LinkPump {
    poll: Poll,
    waker: Arc<Waker>,
    link: Link,
    sockets: Sockets,
    by_token: HashMap<Token, Socket>,
    tokens: HashMap<LinkConnId, Token>,
    next_token: usize,
    incoming: Receiver<Incoming>,
    outgoing: Option<Sender<Vec<u8>>>,
    writer: Option<JoinHandle<()>>,
    origin: Instant,
}

impl LinkPump {
    /// A link end speaking `hello` first, over `input`/`output`, its connections on `sockets`.
    pub fn new(
        role: LinkRole,
        hello: &Hello,
        input: impl Read + Send + 'static,
        output: impl Write + Send + 'static,
        mut sockets: Sockets,
    ) -> io::Result<LinkPump> {
        let poll = Poll::new()?;
        let waker = Arc::new(Waker::new(poll.registry(), WAKER)?);
        if let Sockets::Accept(listener) = &mut sockets {
            poll.registry()
                .register(listener, LISTENER, Interest::READABLE)?;
        }
        let origin = Instant::now();
        let link = Link::new(role, LinkConfig::default(), hello, Timestamp::ZERO)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        let (in_tx, incoming) = channel();
        spawn_reader(input, in_tx, waker.clone())?;
        let (outgoing, out_rx) = channel();
        let writer = spawn_writer(output, out_rx)?;
        Ok(LinkPump {
            poll,
            waker,
            link,
            sockets,
            by_token: HashMap::new(),
            tokens: HashMap::new(),
            next_token: FIRST_SOCKET,
            incoming,
            outgoing: Some(outgoing),
            writer: Some(writer),
            origin,
        })
    }

    /// Wakes [`LinkPump::run`] (a signal handler calls it, then `stop` says so).
    pub fn waker(&self) -> Arc<Waker> {
        self.waker.clone()
    }

    /// Runs until the link dies or `stop` says to end it; `on_event` sees the hello and the
    /// link's end. Returns why the link ended, once what it still had to say is written.
    pub fn run(
        mut self,
        stop: &dyn Fn() -> bool,
        on_event: &mut dyn FnMut(&LinkEvent),
    ) -> io::Result<LinkFault> {
        let mut events = Events::with_capacity(256);
        let ended = loop {
            if stop() {
                self.link.shutdown();
            }
            match self.serve_link(on_event) {
                Ok(Some(fault)) => break Ok(fault),
                Ok(None) => {}
                Err(e) => break Err(e),
            }
            let now = self.now();
            let wait = self
                .link
                .poll_timeout()
                .map(|at| Duration::from_millis(at.as_millis().saturating_sub(now.as_millis())));
            match self.poll.poll(&mut events, wait) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
            for event in &events {
                match event.token() {
                    LISTENER => self.accept(),
                    WAKER => self.take_incoming(),
                    token => {
                        if event.is_writable() || event.is_write_closed() {
                            self.write_socket(token);
                        }
                        if event.is_readable() || event.is_read_closed() {
                            self.read_socket(token);
                        }
                    }
                }
            }
            let now = self.now();
            if self.link.poll_timeout().is_some_and(|at| at <= now) {
                self.link.handle_timeout(now);
            }
        };
        self.flush_link();
        // The writer ends once every queued byte (the fault that says why, too) is written.
        drop(self.outgoing.take());
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
        ended
    }

    fn now(&self) -> Timestamp {
        Timestamp::from_millis(u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(u64::MAX))
    }

    /// Performs the link's events and writes its output; `Some` once it is dead.
    fn serve_link(
        &mut self,
        on_event: &mut dyn FnMut(&LinkEvent),
    ) -> io::Result<Option<LinkFault>> {
        let mut dead = None;
        while let Some(event) = self.link.poll_event() {
            match &event {
                LinkEvent::Opened(conn) => self.dial(*conn),
                LinkEvent::Readable(conn) => {
                    if let Some(&token) = self.tokens.get(conn) {
                        self.write_socket(token);
                    }
                }
                LinkEvent::Writable(conn) => {
                    if let Some(&token) = self.tokens.get(conn) {
                        self.read_socket(token);
                    }
                }
                LinkEvent::Closed(conn) => {
                    if let Some(&token) = self.tokens.get(conn) {
                        if let Some(socket) = self.by_token.get_mut(&token) {
                            socket.peer_closed = true;
                        }
                        self.write_socket(token);
                    }
                }
                LinkEvent::Dead(fault) => dead = Some(fault.clone()),
                LinkEvent::Hello(_) => {}
                _ => {}
            }
            on_event(&event);
        }
        if dead.is_some() {
            for (_, socket) in self.by_token.drain() {
                let _ = socket.stream.shutdown(Shutdown::Both);
            }
            self.tokens.clear();
        }
        self.flush_link();
        Ok(dead)
    }

    fn flush_link(&mut self) {
        let bytes = self.link.outbound().to_vec();
        if bytes.is_empty() {
            return;
        }
        let _ = self.link.handle_sent(bytes.len());
        if let Some(outgoing) = &self.outgoing {
            // A writer gone means the stream broke: the reader sees its end too.
            let _ = outgoing.send(bytes);
        }
    }

    fn take_incoming(&mut self) {
        let now = self.now();
        while let Ok(incoming) = self.incoming.try_recv() {
            match incoming {
                Incoming::Bytes(bytes) => self.link.handle_bytes(now, &bytes),
                Incoming::End => self.link.handle_eof(),
            }
        }
    }

    fn accept(&mut self) {
        loop {
            let Sockets::Accept(listener) = &self.sockets else {
                return;
            };
            let stream = match listener.accept() {
                Ok((stream, _)) => stream,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                // A client that went away before it was accepted (ECONNABORTED) and the like.
                Err(_) => continue,
            };
            // Over the link's connection cap (or a dead link) the socket is dropped: closed.
            if let Ok(conn) = self.link.open()
                && self.add(stream, conn).is_err()
            {
                let _ = self.link.close(conn);
            }
        }
    }

    /// The bridge opened `conn`: dial the engine's listener for it (loopback: at once).
    fn dial(&mut self, conn: LinkConnId) {
        let Sockets::Dial(addr) = &self.sockets else {
            return;
        };
        let dialled = std::net::TcpStream::connect(addr).and_then(|stream| {
            stream.set_nonblocking(true)?;
            stream.set_nodelay(true)?;
            Ok(TcpStream::from_std(stream))
        });
        match dialled.and_then(|stream| self.add(stream, conn)) {
            Ok(()) => {}
            Err(_) => {
                let _ = self.link.close(conn);
            }
        }
    }

    fn add(&mut self, mut stream: TcpStream, conn: LinkConnId) -> io::Result<()> {
        let token = Token(self.next_token);
        self.next_token += 1;
        let _ = stream.set_nodelay(true);
        self.poll.registry().register(
            &mut stream,
            token,
            Interest::READABLE | Interest::WRITABLE,
        )?;
        self.by_token.insert(
            token,
            Socket {
                stream,
                conn,
                peer_closed: false,
            },
        );
        self.tokens.insert(conn, token);
        Ok(())
    }

    /// Reads the socket while its connection has credit, sending what it read.
    fn read_socket(&mut self, token: Token) {
        let mut buf = [0u8; READ_CHUNK_BYTES];
        loop {
            let Some(socket) = self.by_token.get_mut(&token) else {
                return;
            };
            if socket.peer_closed {
                return;
            }
            let credit = self.link.writable(socket.conn).unwrap_or(0);
            if credit == 0 {
                return;
            }
            let want = credit.min(buf.len());
            match socket.stream.read(&mut buf[..want]) {
                Ok(0) => return self.drop_socket(token),
                Ok(n) => {
                    let _ = self.link.send(socket.conn, &buf[..n]);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return self.drop_socket(token),
            }
        }
    }

    /// Writes what the link received for the socket; closes it once the peer closed and all
    /// is written.
    fn write_socket(&mut self, token: Token) {
        loop {
            let Some(socket) = self.by_token.get_mut(&token) else {
                return;
            };
            let held = self.link.received(socket.conn).unwrap_or(&[]);
            if held.is_empty() {
                if socket.peer_closed {
                    let _ = socket.stream.shutdown(Shutdown::Write);
                    self.drop_socket(token);
                }
                return;
            }
            match socket.stream.write(held) {
                Ok(n) => {
                    let _ = self.link.consume(socket.conn, n);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return self.drop_socket(token),
            }
        }
    }

    /// The socket ended (EOF, an error, or the peer's close written out): the link is told.
    fn drop_socket(&mut self, token: Token) {
        if let Some(mut socket) = self.by_token.remove(&token) {
            let _ = self.poll.registry().deregister(&mut socket.stream);
            self.tokens.remove(&socket.conn);
            let _ = self.link.close(socket.conn);
        }
    }
}

fn spawn_reader(
    mut input: impl Read + Send + 'static,
    tx: Sender<Incoming>,
    waker: Arc<Waker>,
) -> io::Result<JoinHandle<()>> {
    std::thread::Builder::new()
        .name("idelink-link-in".into())
        .spawn(move || {
            let mut buf = vec![0u8; READ_CHUNK_BYTES];
            loop {
                match input.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        if tx.send(Incoming::Bytes(buf[..n].to_vec())).is_err() {
                            return;
                        }
                        let _ = waker.wake();
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            let _ = tx.send(Incoming::End);
            let _ = waker.wake();
        })
}

fn spawn_writer(
    mut output: impl Write + Send + 'static,
    rx: Receiver<Vec<u8>>,
) -> io::Result<JoinHandle<()>> {
    std::thread::Builder::new()
        .name("idelink-link-out".into())
        .spawn(move || {
            while let Ok(bytes) = rx.recv() {
                if output
                    .write_all(&bytes)
                    .and_then(|()| output.flush())
                    .is_err()
                {
                    return;
                }
            }
        })
}
