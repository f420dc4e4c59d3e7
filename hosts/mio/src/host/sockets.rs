//! The host's sockets: accepting, reading into the engine, writing what it queued, and the
//! end of a connection (the peer's, or the engine's after a lingering flush).

use crate::config::PortChoice;
use idelink_core::ConnId;
use mio::net::{TcpListener, TcpStream};
use mio::{Interest, Token};
use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, SocketAddr};
use std::time::Instant;

use super::{Host, LINGER};
use crate::HostError;

/// One accepted socket.
pub(super) struct Socket {
    pub(super) stream: TcpStream,
    /// The socket's send buffer is full: wait for a writable event.
    pub(super) write_blocked: bool,
    /// Reading stopped because the client does not read its answers (back-pressure).
    pub(super) reads_paused: bool,
    /// The engine asked to close: flush, then drop, by this instant.
    pub(super) closing_since: Option<Instant>,
}

impl Host {
    pub(super) fn accept(&mut self) {
        loop {
            match self.listener.accept() {
                Ok((mut stream, _)) => {
                    // Answers are small and latency matters more than packet count.
                    let _ = stream.set_nodelay(true);
                    let conn = self.engine.handle_accept(self.now());
                    let token = Token(conn.as_u64() as usize);
                    let registered = self.poll.registry().register(
                        &mut stream,
                        token,
                        Interest::READABLE | Interest::WRITABLE,
                    );
                    if registered.is_err() {
                        let _ = self.engine.handle_closed(self.now(), conn);
                        continue;
                    }
                    self.sockets.insert(
                        conn,
                        Socket {
                            stream,
                            write_blocked: false,
                            reads_paused: false,
                            closing_since: None,
                        },
                    );
                    self.drain();
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // Out of descriptors, or the peer reset before accept: try again on the next
                // readiness event rather than spin.
                Err(_) => return,
            }
        }
    }

    /// Reads until the socket would block (mio is edge-triggered), feeding the engine.
    pub(super) fn read(&mut self, conn: ConnId) {
        loop {
            let Some(socket) = self.sockets.get_mut(&conn) else {
                return;
            };
            if socket.closing_since.is_some() {
                // Discard: the engine is done with this connection. The socket stays until its
                // last bytes are flushed (`flush` drops it then) or the linger runs out: input
                // arriving meanwhile, or the peer's end of stream, must not cut that short.
                match socket.stream.read(&mut self.read_buf) {
                    Ok(0) if self.engine.outbound(conn).is_empty() => {
                        return self.drop_socket(conn);
                    }
                    Ok(0) => return,
                    Ok(_) => continue,
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(_) => return self.drop_socket(conn),
                }
            }
            if self.engine.outbound(conn).len() >= self.pause_reads_at_bytes {
                socket.reads_paused = true;
                return;
            }
            match socket.stream.read(&mut self.read_buf) {
                Ok(0) => return self.transport_gone(conn),
                Ok(n) => {
                    let now = self.now();
                    let _ = self.engine.handle_bytes(now, conn, &self.read_buf[..n]);
                    self.drain();
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return self.transport_gone(conn),
            }
        }
    }

    /// Writes what the socket takes of the connection's outbound bytes.
    pub(super) fn flush(&mut self, conn: ConnId) {
        let Some(socket) = self.sockets.get_mut(&conn) else {
            return;
        };
        while !socket.write_blocked {
            let pending = self.engine.outbound(conn);
            if pending.is_empty() {
                break;
            }
            match socket.stream.write(pending) {
                Ok(0) => break,
                Ok(n) => {
                    let _ = self.engine.handle_sent(conn, n);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => socket.write_blocked = true,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => {
                    let closing = socket.closing_since.is_some();
                    return if closing {
                        self.drop_socket(conn)
                    } else {
                        self.transport_gone(conn)
                    };
                }
            }
        }
        let drained = self.engine.outbound(conn).is_empty();
        if drained && socket.closing_since.is_some() {
            return self.drop_socket(conn);
        }
        let resume =
            socket.reads_paused && self.engine.outbound(conn).len() < self.pause_reads_at_bytes / 2;
        if resume {
            socket.reads_paused = false;
            self.read(conn);
        }
    }

    /// The peer went away (EOF or a socket error) before the engine closed it.
    pub(super) fn transport_gone(&mut self, conn: ConnId) {
        if let Some(mut socket) = self.sockets.remove(&conn) {
            let _ = self.poll.registry().deregister(&mut socket.stream);
        }
        let _ = self.engine.handle_closed(self.now(), conn);
        self.drain();
    }

    /// The engine closed the connection and its bytes are flushed (or the linger ran out).
    pub(super) fn drop_socket(&mut self, conn: ConnId) {
        if let Some(mut socket) = self.sockets.remove(&conn) {
            let _ = socket.stream.shutdown(std::net::Shutdown::Both);
            let _ = self.poll.registry().deregister(&mut socket.stream);
        }
        let _ = self.engine.handle_closed(self.now(), conn);
    }

    pub(super) fn reap_lingering(&mut self) {
        let expired: Vec<ConnId> = self
            .sockets
            .iter()
            .filter(|(_, s)| s.closing_since.is_some_and(|t| t.elapsed() >= LINGER))
            .map(|(id, _)| *id)
            .collect();
        for conn in expired {
            self.drop_socket(conn);
        }
    }
}

pub(super) fn bind(choice: PortChoice) -> Result<TcpListener, HostError> {
    let (first, last) = match choice {
        PortChoice::Ephemeral => (0, 0),
        PortChoice::Fixed(port) => (port, port),
        PortChoice::Range(first, last) => (first, last),
    };
    let mut last_error = io::Error::new(io::ErrorKind::InvalidInput, "empty port range");
    for port in first..=last {
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        match TcpListener::bind(addr) {
            Ok(listener) => return Ok(listener),
            Err(e) => last_error = e,
        }
    }
    Err(HostError::Bind {
        ports: if first == last {
            first.to_string()
        } else {
            format!("{first}-{last}")
        },
        source: last_error,
    })
}
