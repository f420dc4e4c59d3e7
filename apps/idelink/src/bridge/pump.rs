//! The bridge's pump: carries a link's connections between its byte stream (stdin/stdout) and
//! the loopback TCP sockets claude opens on the bridge's listener. Every rule is core's
//! ([`idelink_core::link`]); this is the system calls. (The editor side attaches its end to
//! its engine directly: [`idelink_mio::Host::attach_link`].)
//!
//! One mio loop pumps the stream ([`LinkStream`]: on Unix the pipes are its sources; on
//! Windows a thread each reads and writes them) and the sockets. A socket is read only while
//! its connection has credit, and written from what the link received for it, so a claude that
//! does not read pauses its own connection only.

use idelink_core::Timestamp;
use idelink_core::link::{Hello, Link, LinkConfig, LinkConnId, LinkEvent, LinkFault, LinkRole};
use idelink_mio::{LinkPipes, LinkStream};
use mio::net::{TcpListener, TcpStream};
use mio::{Events, Interest, Poll, Token, Waker};
use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::Shutdown;
use std::sync::Arc;
use std::time::{Duration, Instant};

const LISTENER: Token = Token(0);
const WAKER: Token = Token(1);
const STREAM_IN: Token = Token(2);
const STREAM_OUT: Token = Token(3);
const FIRST_SOCKET: usize = 4;

/// Bytes read from a socket or the stream at a time: one link data frame.
const READ_CHUNK_BYTES: usize = idelink_core::link::MAX_DATA_FRAME_BYTES;

/// How long the link's last bytes (the fault that says why it ends) may take to be written once
/// it is dead. 1 s: a few bytes on a pipe the peer reads, or nothing to wait for.
const LAST_WORDS_MS: u64 = 1_000;

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
    /// Claude dials this listener; each client becomes a new connection.
    listener: TcpListener,
    by_token: HashMap<Token, Socket>,
    tokens: HashMap<LinkConnId, Token>,
    next_token: usize,
    stream: LinkStream,
    /// The stream's write failed: it is broken, nothing more goes out.
    broken: bool,
    origin: Instant,
    /// One read buffer for the stream and every socket (zeroing 64 KiB on each read would
    /// cost a round trip some microseconds).
    read_buf: Box<[u8]>,
}

impl LinkPump {
    /// The bridge's link end speaking `hello` first, over `pipes` (its stdin and stdout), its
    /// connections accepted on `listener`.
    pub fn new(hello: &Hello, pipes: LinkPipes, mut listener: TcpListener) -> io::Result<LinkPump> {
        let poll = Poll::new()?;
        let waker = Arc::new(Waker::new(poll.registry(), WAKER)?);
        poll.registry()
            .register(&mut listener, LISTENER, Interest::READABLE)?;
        let origin = Instant::now();
        let link = Link::new(
            LinkRole::Bridge,
            LinkConfig::default(),
            hello,
            Timestamp::ZERO,
        )
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        let (stream, _) = pipes.register(poll.registry(), (STREAM_IN, STREAM_OUT), &waker)?;
        Ok(LinkPump {
            poll,
            waker,
            link,
            listener,
            by_token: HashMap::new(),
            tokens: HashMap::new(),
            next_token: FIRST_SOCKET,
            stream,
            broken: false,
            origin,
            read_buf: vec![0; READ_CHUNK_BYTES].into_boxed_slice(),
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
                    // The stream's reader thread wakes the loop on Windows.
                    WAKER | STREAM_IN => self.read_stream(),
                    STREAM_OUT => self.flush_link(),
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
        self.last_words(&mut events);
        ended
    }

    /// Writes what the dead link still has to say (the fault that tells the peer why), for
    /// at most [`LAST_WORDS_MS`].
    fn last_words(&mut self, events: &mut Events) {
        let until = Instant::now() + Duration::from_millis(LAST_WORDS_MS);
        loop {
            self.flush_link();
            let left = until.saturating_duration_since(Instant::now());
            if self.broken || self.link.outbound().is_empty() || left.is_zero() {
                return;
            }
            if self.poll.poll(events, Some(left)).is_err() {
                return;
            }
        }
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

    /// Writes what the link has for the stream, as much as the pipe takes now.
    fn flush_link(&mut self) {
        while !self.broken && !self.link.outbound().is_empty() {
            match self.stream.write(self.link.outbound()) {
                Ok(n) => {
                    let _ = self.link.handle_sent(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                // The stream broke: the link is dead (its reader sees the end too).
                Err(_) => {
                    self.broken = true;
                    self.link.handle_eof();
                }
            }
        }
    }

    /// Reads the stream until it would block or ends.
    fn read_stream(&mut self) {
        loop {
            match self.stream.read(&mut self.read_buf) {
                Ok(n) if n > 0 => {
                    let now = self.now();
                    self.link.handle_bytes(now, &self.read_buf[..n]);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                _ => return self.link.handle_eof(),
            }
        }
    }

    fn accept(&mut self) {
        loop {
            let stream = match self.listener.accept() {
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
            let buf = &mut self.read_buf[..credit.min(READ_CHUNK_BYTES)];
            match socket.stream.read(buf) {
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
