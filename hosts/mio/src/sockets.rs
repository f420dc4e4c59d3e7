//! A table of accepted TCP sockets pumped by one mio [`Poll`](mio::Poll): non-blocking reads,
//! writes that stop at a full send buffer, read pauses for peers that do not read their
//! answers, and a bounded linger for sockets being closed. [`Host`](crate::Host) is built on
//! it; any other loop over mio sockets (a relay, a proxy) can be too.
//!
//! The table owns the sockets and their pump state, never the bytes to send: the caller keeps
//! them (an engine's outbound queue, a `Vec`) and hands the table a slice to write. Every
//! decision is [`PumpPolicy`]'s; the table performs the system calls. Sockets are keyed by the
//! mio [`Token`] they are registered with, chosen by the caller.
//!
//! # The loop
//!
//! ```no_run
//! use idelink_core::host_rules::PumpPolicy;
//! use idelink_core::Timestamp;
//! use idelink_mio::sockets::{Read, SocketTable, Write};
//! use mio::{Events, Poll, Token};
//!
//! # fn main() -> std::io::Result<()> {
//! # let (mut poll, mut events) = (Poll::new()?, Events::with_capacity(64));
//! # let now = || Timestamp::ZERO;
//! let mut table = SocketTable::new(PumpPolicy::DEFAULT);
//! let mut buf = vec![0; PumpPolicy::DEFAULT.read_chunk_bytes];
//! let mut out: Vec<u8> = Vec::new(); // what the caller has to send on Token(1)
//! // After accepting: table.insert(poll.registry(), Token(1), stream)?;
//! loop {
//!     // 1. Wait no longer than the next linger deadline (and the caller's own timers).
//!     poll.poll(&mut events, None)?;
//!     for event in events.iter() {
//!         let token = event.token();
//!         // 2. Record readiness: a writable socket may be written again.
//!         let ready = table.handle_event(event);
//!         // 3. Write what is queued, then (4) read until the socket would block or pauses.
//!         if ready.writable {
//!             if let Write::Sent(n) = table.write(token, &out) {
//!                 out.drain(..n);
//!             }
//!         }
//!         while ready.readable {
//!             match table.read(token, &mut buf, out.len()) {
//!                 Read::Data(n) => out.extend_from_slice(&buf[..n]), // echo
//!                 Read::WouldBlock | Read::Paused => break,
//!                 Read::Gone => {
//!                     table.remove(poll.registry(), token);
//!                     break;
//!                 }
//!             }
//!         }
//!         // 5. After a write: a closing socket whose bytes all went is finished; a paused one
//!         //    whose queue fell below the resume mark is read again.
//!         if table.is_closing(token) && out.is_empty() {
//!             table.remove(poll.registry(), token);
//!         } else if table.resume(token, out.len()) {
//!             // read it again, as in step 4
//!         }
//!     }
//!     // 6. Drop the sockets whose linger ran out.
//!     for token in table.expired(now()) {
//!         table.remove(poll.registry(), token);
//!     }
//! }
//! # }
//! ```
//!
//! # Contracts
//!
//! - mio is edge-triggered: after a readable event, [`read`](SocketTable::read) until it returns
//!   [`Read::WouldBlock`], [`Read::Paused`] or [`Read::Gone`]; after a writable event (reported by
//!   [`handle_event`](SocketTable::handle_event)), write again.
//! - A paused socket is not read until [`resume`](SocketTable::resume) says so; the caller asks
//!   after every write that shrank the queue the pause was measured on.
//! - After [`close`](SocketTable::close), reads discard input (the caller is done with the
//!   peer), and the socket is the caller's to [`remove`](SocketTable::remove) once its bytes
//!   are written or [`expired`](SocketTable::expired) lists it.
//! - A call about a token the table does not hold does nothing (`WouldBlock`, `Sent(0)`,
//!   `false`): removal is idempotent, and a late readiness event is harmless.

use idelink_core::Timestamp;
use idelink_core::host_rules::PumpPolicy;
use mio::event::Event;
use mio::net::TcpStream;
use mio::{Interest, Registry, Token};
use std::collections::BTreeMap;
use std::io::{self, Read as _, Write as _};
use std::net::Shutdown;

/// What one [`SocketTable::read`] gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub enum Read {
    /// This many bytes (at least one) are at the start of the buffer.
    Data(usize),
    /// Nothing more until the next readable event.
    WouldBlock,
    /// Not read: the caller holds too many unsent bytes for this peer (it does not read its
    /// answers). Reading resumes when [`SocketTable::resume`] says so.
    Paused,
    /// End of stream or a socket error: the peer is gone. Remove the socket.
    Gone,
}

/// What one [`SocketTable::write`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub enum Write {
    /// This many bytes from the start of the slice went to the kernel (fewer than offered when
    /// the send buffer filled: the next writable event continues).
    Sent(usize),
    /// A socket error: the peer is gone. Remove the socket.
    Gone,
}

/// Readiness of one socket, from [`SocketTable::handle_event`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Readiness {
    /// Read it (this includes the peer's end of stream and socket errors, which a read reports).
    pub readable: bool,
    /// Its send buffer has room again: write what is queued.
    pub writable: bool,
}

/// One socket and its pump state.
struct Slot {
    stream: TcpStream,
    /// The send buffer is full: no write until a writable event.
    write_blocked: bool,
    /// Reading stopped because the peer does not read its answers.
    reads_paused: bool,
    /// The caller closed it at this time: flush, then remove, by the linger deadline.
    closing_since: Option<Timestamp>,
}

/// The sockets of one mio loop and their pump state (see the [module docs](self)).
pub struct SocketTable {
    slots: BTreeMap<Token, Slot>,
    policy: PumpPolicy,
}

impl SocketTable {
    /// An empty table that pumps by `policy`.
    pub fn new(policy: PumpPolicy) -> SocketTable {
        SocketTable {
            slots: BTreeMap::new(),
            policy,
        }
    }

    /// The policy the table pumps by.
    pub fn policy(&self) -> &PumpPolicy {
        &self.policy
    }

    /// How many sockets the table holds.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True when the table holds no socket.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// True when the table holds `token`.
    pub fn contains(&self, token: Token) -> bool {
        self.slots.contains_key(&token)
    }

    /// True when `token` was [`close`](Self::close)d and is flushing its last bytes.
    pub fn is_closing(&self, token: Token) -> bool {
        self.slots
            .get(&token)
            .is_some_and(|s| s.closing_since.is_some())
    }

    /// True when reading `token` is paused (back-pressure).
    pub fn is_paused(&self, token: Token) -> bool {
        self.slots.get(&token).is_some_and(|s| s.reads_paused)
    }

    /// True when `token`'s send buffer is full (a write would send nothing).
    pub fn is_write_blocked(&self, token: Token) -> bool {
        self.slots.get(&token).is_some_and(|s| s.write_blocked)
    }

    /// The tokens whose reads are paused, in token order (a caller whose pause is measured on
    /// a shared queue resumes them together).
    pub fn paused(&self) -> Vec<Token> {
        let paused = self.slots.iter().filter(|(_, s)| s.reads_paused);
        paused.map(|(token, _)| *token).collect()
    }

    /// When the earliest linger runs out, if any socket is closing: wake the loop then.
    pub fn next_deadline(&self) -> Option<Timestamp> {
        let closing = self.slots.values().filter_map(|s| s.closing_since);
        closing.map(|t| self.policy.linger_deadline(t)).min()
    }

    /// The closing sockets whose linger ran out at `now`: remove them.
    pub fn expired(&self, now: Timestamp) -> Vec<Token> {
        let expired = self.slots.iter().filter(|(_, s)| {
            s.closing_since
                .is_some_and(|t| self.policy.linger_expired(t, now))
        });
        expired.map(|(token, _)| *token).collect()
    }

    /// Takes an accepted socket: sets `TCP_NODELAY` (answers are small; latency matters more
    /// than packet count) and registers it for reading and writing under `token`. On an error
    /// the socket is dropped (closed) and the table is unchanged.
    ///
    /// # Panics
    ///
    /// When the table already holds `token` (a caller bug: tokens are the caller's ids).
    pub fn insert(
        &mut self,
        registry: &Registry,
        token: Token,
        mut stream: TcpStream,
    ) -> io::Result<()> {
        assert!(!self.contains(token), "token {token:?} is already in use");
        // Best effort: a socket without it still works, only slower.
        let _ = stream.set_nodelay(true);
        registry.register(&mut stream, token, Interest::READABLE | Interest::WRITABLE)?;
        let slot = Slot {
            stream,
            write_blocked: false,
            reads_paused: false,
            closing_since: None,
        };
        self.slots.insert(token, slot);
        Ok(())
    }

    /// Records a readiness event of one of the table's sockets and says what to do with it.
    /// An event for a token the table does not hold is neither readable nor writable.
    pub fn handle_event(&mut self, event: &Event) -> Readiness {
        let Some(slot) = self.slots.get_mut(&event.token()) else {
            return Readiness {
                readable: false,
                writable: false,
            };
        };
        let closed = event.is_read_closed() || event.is_error();
        if event.is_writable() {
            slot.write_blocked = false;
        }
        Readiness {
            readable: event.is_readable() || closed,
            writable: event.is_writable(),
        }
    }

    /// Reads once from `token` into `buf`. `unsent` is the number of bytes the caller holds for
    /// this peer and has not written yet: at or above the policy's pause mark the socket is
    /// paused instead of read. A closing socket's input is read and discarded until it would
    /// block ([`Read::Gone`] at its end of stream once `unsent` is 0, so a peer that leaves
    /// does not cut the flush of our last bytes short).
    pub fn read(&mut self, token: Token, buf: &mut [u8], unsent: usize) -> Read {
        let Some(slot) = self.slots.get_mut(&token) else {
            return Read::WouldBlock;
        };
        if slot.closing_since.is_some() {
            return loop {
                match slot.stream.read(buf) {
                    Ok(0) if unsent == 0 => break Read::Gone,
                    Ok(0) => break Read::WouldBlock,
                    Ok(_) => {}
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break Read::WouldBlock,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => break Read::Gone,
                }
            };
        }
        if !self.policy.may_read(unsent) {
            slot.reads_paused = true;
            return Read::Paused;
        }
        loop {
            match slot.stream.read(buf) {
                Ok(0) => return Read::Gone,
                Ok(n) => return Read::Data(n),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Read::WouldBlock,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return Read::Gone,
            }
        }
    }

    /// Writes as much of `bytes` as `token`'s send buffer takes. When it fills, the socket is
    /// marked blocked and later writes send nothing until a writable event.
    pub fn write(&mut self, token: Token, bytes: &[u8]) -> Write {
        let Some(slot) = self.slots.get_mut(&token) else {
            return Write::Sent(0);
        };
        let mut sent = 0;
        while !slot.write_blocked && sent < bytes.len() {
            match slot.stream.write(&bytes[sent..]) {
                Ok(0) => return Write::Gone,
                Ok(n) => sent += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => slot.write_blocked = true,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return Write::Gone,
            }
        }
        Write::Sent(sent)
    }

    /// `token`'s unsent bytes are now `unsent`: when it is paused and the policy's resume mark
    /// is passed, un-pauses it and returns true (read it now: no readable event will come for
    /// input that arrived while it was paused).
    pub fn resume(&mut self, token: Token, unsent: usize) -> bool {
        let Some(slot) = self.slots.get_mut(&token) else {
            return false;
        };
        let resume = slot.reads_paused && self.policy.may_resume(unsent);
        if resume {
            slot.reads_paused = false;
        }
        resume
    }

    /// Starts closing `token` at `now`: its input is discarded from now on, and it stays until
    /// the caller removes it (its last bytes written) or the linger runs out. Closing twice
    /// keeps the first time.
    pub fn close(&mut self, token: Token, now: Timestamp) {
        if let Some(slot) = self.slots.get_mut(&token) {
            slot.closing_since.get_or_insert(now);
        }
    }

    /// Sends our end of stream on `token` (TCP FIN) and keeps the socket, so the peer reads every
    /// byte before it sees the end; a closing socket then waits for the peer's end of stream
    /// ([`Read::Gone`]) or its linger.
    pub fn shutdown_write(&mut self, token: Token) -> io::Result<()> {
        match self.slots.get_mut(&token) {
            Some(slot) => slot.stream.shutdown(Shutdown::Write),
            None => Ok(()),
        }
    }

    /// Closes `token`'s socket (both directions) and forgets it. Returns false when the table
    /// did not hold it.
    pub fn remove(&mut self, registry: &Registry, token: Token) -> bool {
        let Some(mut slot) = self.slots.remove(&token) else {
            return false;
        };
        // Best effort: the peer may have reset already; dropping the stream closes it anyway.
        let _ = slot.stream.shutdown(Shutdown::Both);
        let _ = registry.deregister(&mut slot.stream);
        true
    }
}

#[cfg(test)]
mod tests;
