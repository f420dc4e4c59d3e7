//! The host's pump: accepting, reading into the engine, writing what it queued, and the end
//! of a connection (the peer's, or the engine's after a lingering flush). The socket system
//! calls and the back-pressure state are the [`SocketTable`](crate::sockets::SocketTable)'s;
//! this file maps engine connections onto it.

use crate::sockets::{Read, Write};
use idelink_core::ConnId;
use mio::Token;
use std::io;

use super::Host;

/// The mio token of an engine connection (the engine's ids start at 1; 0 is the listener and
/// `usize::MAX` the waker).
pub(super) fn token(conn: ConnId) -> Token {
    Token(conn.as_u64() as usize)
}

impl Host {
    pub(super) fn accept(&mut self) {
        loop {
            match self.listener.accept() {
                Ok((stream, _)) => {
                    let conn = self.engine.handle_accept(self.now());
                    let inserted = self
                        .sockets
                        .insert(self.poll.registry(), token(conn), stream);
                    if inserted.is_err() {
                        let _ = self.engine.handle_closed(self.now(), conn);
                    }
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

    /// Reads until the socket would block or pauses (mio is edge-triggered), feeding the
    /// engine.
    pub(super) fn read(&mut self, conn: ConnId) {
        loop {
            let unsent = self.engine.outbound(conn).len();
            match self.sockets.read(token(conn), &mut self.read_buf, unsent) {
                Read::Data(n) => {
                    let now = self.now();
                    let _ = self.engine.handle_bytes(now, conn, &self.read_buf[..n]);
                    self.drain();
                }
                Read::WouldBlock | Read::Paused => return,
                Read::Gone => return self.forget(conn),
            }
        }
    }

    /// Writes what the socket takes of the connection's outbound bytes; then finishes a closing
    /// connection whose bytes all went, or resumes reading a paused one.
    pub(super) fn flush(&mut self, conn: ConnId) {
        let token = token(conn);
        loop {
            let pending = self.engine.outbound(conn);
            if pending.is_empty() || self.sockets.is_write_blocked(token) {
                break;
            }
            match self.sockets.write(token, pending) {
                Write::Sent(0) => break,
                Write::Sent(n) => {
                    let _ = self.engine.handle_sent(conn, n);
                }
                Write::Gone => return self.forget(conn),
            }
        }
        let unsent = self.engine.outbound(conn).len();
        if unsent == 0 && self.sockets.is_closing(token) {
            return self.forget(conn);
        }
        if self.sockets.resume(token, unsent) {
            self.read(conn);
        }
    }

    /// The engine closed `conn`: its input is discarded, its last bytes flushed within the
    /// linger.
    pub(super) fn close(&mut self, conn: ConnId) {
        let now = self.now();
        self.sockets.close(token(conn), now);
        self.flush(conn);
    }

    /// Closes the socket (peer gone, or closed and flushed) and tells the engine.
    pub(super) fn forget(&mut self, conn: ConnId) {
        if self.sockets.remove(self.poll.registry(), token(conn)) {
            let _ = self.engine.handle_closed(self.now(), conn);
            self.drain();
        }
    }

    /// Drops the closing connections whose linger ran out.
    pub(super) fn reap_lingering(&mut self) {
        for token in self.sockets.expired(self.now()) {
            self.forget(ConnId::from_u64(token.0 as u64));
        }
    }
}
