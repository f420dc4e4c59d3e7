//! One end of a link, its state machine: one per stdin/stdout stream between the editor side
//! and a bridge.

use std::collections::VecDeque;
use std::fmt;

use super::error::{LinkError, LinkFault, SHUTDOWN_REASON};
use super::frame::{self, FrameKind, HEADER_BYTES, Header, MAX_DATA_FRAME_BYTES, MAX_FAULT_BYTES};
use super::hello::Hello;
use super::ids::IdMap;
use crate::time::Timestamp;

/// Which end of the link this is. Only the bridge opens connections (it owns the listener
/// claude dials); the editor side hands each one to its engine as an accepted socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkRole {
    /// The side with the engine.
    Editor,
    /// The far side, next to claude.
    Bridge,
}

/// A connection carried by a link: the bridge's numbering, new for every client it accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LinkConnId(u32);

impl LinkConnId {
    /// The id on the wire (never 0).
    pub const fn get(self) -> u32 {
        self.0
    }
}

impl fmt::Display for LinkConnId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "link#{}", self.0)
    }
}

/// A link's limits and periods. [`LinkConfig::default`] is what idelink's own ends use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkConfig {
    /// Bytes of one connection a sender may have in flight before the receiver hands them on
    /// (its credit). Default 4 MiB: enough to keep a local pipe or an SSH channel busy for a
    /// 16 MiB answer, and what a receiver buffers at most per connection when its own socket
    /// does not take them (a claude that does not read pauses its connection, not the link).
    pub window_bytes: u32,
    /// A link silent this long gets a ping. Default 15 s.
    pub keepalive_interval_ms: u64,
    /// A ping unanswered this long (nothing at all received) ends the link. Default 10 s: a far
    /// machine that went away without closing its stream (a dropped SSH session) is noticed
    /// within 25 s.
    pub keepalive_timeout_ms: u64,
    /// Connections open at once. Default 256: the engine admits 16 sessions and 8 handshakes;
    /// the rest is for clients the engine is refusing while their close travels.
    pub max_connections: usize,
}

impl Default for LinkConfig {
    fn default() -> Self {
        LinkConfig {
            window_bytes: 4 << 20,
            keepalive_interval_ms: 15_000,
            keepalive_timeout_ms: 10_000,
            max_connections: 256,
        }
    }
}

/// What happened on a link, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LinkEvent {
    /// The peer said who it is (its first frame). Nothing else is reported before it.
    Hello(Hello),
    /// The bridge accepted a client (editor side only): accept it into the engine.
    Opened(LinkConnId),
    /// The connection's received bytes went from none to some: read them with
    /// [`Link::received`], and [`Link::consume`] what was handed on.
    Readable(LinkConnId),
    /// [`Link::send`] last took less than offered or spent the connection's credit, and credit
    /// came back.
    Writable(LinkConnId),
    /// The peer closed the connection: hand on what [`Link::received`] still holds, then close
    /// its socket and call [`Link::close`] (which sends nothing back). Also reported for every
    /// connection of a link that died, whose ids are then gone at once.
    Closed(LinkConnId),
    /// The link is dead (every connection was reported `Closed` just before). Flush
    /// [`Link::outbound`] (it may hold the `Fault` that tells the peer why) and end the stream.
    Dead(LinkFault),
}

struct Conn {
    /// Received bytes not yet consumed, from `recv_start`.
    recv: Vec<u8>,
    recv_start: usize,
    /// How many more bytes the peer may send us before we credit more.
    peer_allowance: u32,
    /// Consumed bytes not yet credited to the peer.
    uncredited: u32,
    /// How many more bytes we may send.
    credit: u32,
    /// `send` took less than offered: report `Writable` when credit comes.
    blocked: bool,
    /// The peer closed it: what was received is still readable until the host closes it too.
    peer_closed: bool,
}

impl Conn {
    fn new(window: u32) -> Conn {
        Conn {
            recv: Vec::new(),
            recv_start: 0,
            peer_allowance: window,
            uncredited: 0,
            credit: window,
            blocked: false,
            peer_closed: false,
        }
    }

    fn unread(&self) -> &[u8] {
        &self.recv[self.recv_start..]
    }
}

/// One end of a link, sans-IO: bytes from the stream go into [`Link::handle_bytes`], bytes for
/// it come out of [`Link::outbound`]; connections are opened, fed and closed by id; what
/// happened comes out of [`Link::poll_event`]. Drain `poll_event` after every input, then sleep
/// until the next input or [`Link::poll_timeout`].
///
/// The host reads the link's stream whenever it can: a connection's back-pressure is its
/// credit, so the stream itself never needs to pause, and a receiver holds at most
/// [`LinkConfig::window_bytes`] per connection.
pub struct Link {
    role: LinkRole,
    config: LinkConfig,
    peer: Option<Hello>,
    /// A frame cut short at the end of the last input.
    partial: Vec<u8>,
    out: Vec<u8>,
    /// Bytes ever queued in / written from `out`, to tell whether a pong is still unsent.
    queued_total: u64,
    sent_total: u64,
    pong_queued_until: u64,
    conns: IdMap<u32, Conn>,
    last_opened: u32,
    events: VecDeque<LinkEvent>,
    dead: Option<LinkFault>,
    last_received: Timestamp,
    ping_sent_at: Option<Timestamp>,
    pings: u64,
}

impl Link {
    /// A link end that starts by sending `hello`. `Err` when the hello is too large to send
    /// (see [`Hello::encode`]).
    pub fn new(
        role: LinkRole,
        config: LinkConfig,
        hello: &Hello,
        now: Timestamp,
    ) -> Result<Link, LinkError> {
        let payload = hello.encode().ok_or(LinkError::HelloTooLarge)?;
        let mut link = Link {
            role,
            config,
            peer: None,
            partial: Vec::new(),
            out: Vec::new(),
            queued_total: 0,
            sent_total: 0,
            pong_queued_until: 0,
            conns: IdMap::default(),
            last_opened: 0,
            events: VecDeque::new(),
            dead: None,
            last_received: now,
            ping_sent_at: None,
            pings: 0,
        };
        link.queue(FrameKind::Hello, 0, &payload);
        Ok(link)
    }

    /// The peer's hello, once it came.
    pub fn peer_hello(&self) -> Option<&Hello> {
        self.peer.as_ref()
    }

    /// Why the link is dead, if it is.
    pub fn dead(&self) -> Option<&LinkFault> {
        self.dead.as_ref()
    }

    /// The ids of the open connections, in order.
    pub fn connections(&self) -> impl Iterator<Item = LinkConnId> + '_ {
        self.conns.keys().map(|&id| LinkConnId(id))
    }

    // ---- inputs ----

    /// Bytes arrived on the link's stream.
    pub fn handle_bytes(&mut self, now: Timestamp, mut bytes: &[u8]) {
        if self.dead.is_some() || bytes.is_empty() {
            return;
        }
        self.last_received = self.last_received.max(now);
        self.ping_sent_at = None;
        if !self.partial.is_empty() {
            // Complete the frame the last input cut short from the front of this one.
            loop {
                let need = match Header::parse(&self.partial) {
                    Ok(Some(header)) => HEADER_BYTES + header.len,
                    Ok(None) => HEADER_BYTES,
                    Err(fault) => return self.die(fault),
                };
                if self.partial.len() >= need {
                    break;
                }
                if bytes.is_empty() {
                    return;
                }
                let take = (need - self.partial.len()).min(bytes.len());
                self.partial.extend_from_slice(&bytes[..take]);
                bytes = &bytes[take..];
            }
            let whole = std::mem::take(&mut self.partial);
            self.frames_prefix(&whole);
            if self.dead.is_some() {
                return;
            }
        }
        let used = self.frames_prefix(bytes);
        if self.dead.is_none() {
            self.partial.extend_from_slice(&bytes[used..]);
        }
    }

    /// The link's stream ended: every connection is closed and the link is dead.
    pub fn handle_eof(&mut self) {
        if self.dead.is_none() {
            self.die(LinkFault::Eof);
        }
    }

    /// The deadline from [`Link::poll_timeout`] came: send a ping, or end a link whose ping
    /// went unanswered.
    pub fn handle_timeout(&mut self, now: Timestamp) {
        if self.dead.is_some() {
            return;
        }
        match self.ping_sent_at {
            Some(at) if now.millis_since(at) >= self.config.keepalive_timeout_ms => {
                self.die(LinkFault::KeepaliveTimeout);
            }
            None if now.millis_since(self.last_received) >= self.config.keepalive_interval_ms => {
                self.pings += 1;
                let nonce = self.pings.to_be_bytes();
                self.queue(FrameKind::Ping, 0, &nonce);
                self.ping_sent_at = Some(now);
            }
            _ => {}
        }
    }

    /// When [`Link::handle_timeout`] is due, or `None` for a dead link.
    pub fn poll_timeout(&self) -> Option<Timestamp> {
        if self.dead.is_some() {
            return None;
        }
        Some(match self.ping_sent_at {
            Some(at) => at.add_millis(self.config.keepalive_timeout_ms),
            None => self
                .last_received
                .add_millis(self.config.keepalive_interval_ms),
        })
    }

    /// Ends the link: tells the peer, closes every connection (reported as events).
    pub fn shutdown(&mut self) {
        if self.dead.is_none() {
            self.queue_fault(SHUTDOWN_REASON);
            self.die(LinkFault::Shutdown);
        }
    }

    // ---- connections ----

    /// The bridge accepted a client: a new connection, announced to the peer.
    pub fn open(&mut self) -> Result<LinkConnId, LinkError> {
        if self.role != LinkRole::Bridge {
            return Err(LinkError::NotBridge);
        }
        self.alive()?;
        if self.conns.len() >= self.config.max_connections {
            return Err(LinkError::TooManyConnections);
        }
        let id = self
            .last_opened
            .checked_add(1)
            .ok_or(LinkError::TooManyConnections)?;
        self.last_opened = id;
        self.conns.insert(id, Conn::new(self.config.window_bytes));
        self.queue(FrameKind::Open, id, &[]);
        Ok(LinkConnId(id))
    }

    /// Queues as much of `bytes` as the connection's credit allows, in `Data` frames; returns
    /// how many it took. Less than all, or the credit spent: a [`LinkEvent::Writable`] follows
    /// when credit comes.
    pub fn send(&mut self, conn: LinkConnId, bytes: &[u8]) -> Result<usize, LinkError> {
        self.alive()?;
        let state = self
            .conns
            .get_mut(&conn.0)
            .filter(|state| !state.peer_closed)
            .ok_or(LinkError::UnknownConnection(conn.0))?;
        let credit = usize::try_from(state.credit).unwrap_or(usize::MAX);
        let take = bytes.len().min(credit);
        state.credit -= u32::try_from(take).expect("take is at most the u32 credit");
        // Spent to the last byte counts as blocked too: a host that reads only as much as the
        // credit allows never offers more than it, and must hear when it may read again.
        state.blocked = take < bytes.len() || state.credit == 0;
        for chunk in bytes[..take].chunks(MAX_DATA_FRAME_BYTES) {
            self.queue(FrameKind::Data, conn.0, chunk);
        }
        Ok(take)
    }

    /// How many bytes [`Link::send`] would take now.
    pub fn writable(&self, conn: LinkConnId) -> Result<usize, LinkError> {
        let state = self
            .conns
            .get(&conn.0)
            .ok_or(LinkError::UnknownConnection(conn.0))?;
        Ok(usize::try_from(state.credit).unwrap_or(usize::MAX))
    }

    /// The connection's received bytes not yet consumed.
    pub fn received(&self, conn: LinkConnId) -> Result<&[u8], LinkError> {
        self.conns
            .get(&conn.0)
            .map(Conn::unread)
            .ok_or(LinkError::UnknownConnection(conn.0))
    }

    /// The host handed the first `n` bytes of [`Link::received`] on (wrote them to claude's
    /// socket, or gave them to the engine): they are dropped and credited back to the peer.
    pub fn consume(&mut self, conn: LinkConnId, n: usize) -> Result<(), LinkError> {
        self.alive()?;
        let window = self.config.window_bytes;
        let state = self
            .conns
            .get_mut(&conn.0)
            .ok_or(LinkError::UnknownConnection(conn.0))?;
        if n > state.unread().len() {
            return Err(LinkError::Overrun);
        }
        state.recv_start += n;
        if state.recv_start == state.recv.len() {
            state.recv.clear();
            state.recv_start = 0;
        } else if state.recv_start >= state.recv.len() / 2 {
            state.recv.drain(..state.recv_start);
            state.recv_start = 0;
        }
        if state.peer_closed {
            return Ok(());
        }
        state.uncredited += u32::try_from(n).expect("received bytes stay within the u32 window");
        // Credit in batches (a quarter window), or at once when the buffer ran dry, so a
        // stream of small frames does not answer each with a credit frame.
        if state.uncredited >= window / 4 || (state.recv.is_empty() && state.uncredited > 0) {
            let credit = std::mem::take(&mut state.uncredited);
            state.peer_allowance += credit;
            self.queue(FrameKind::Credit, conn.0, &credit.to_be_bytes());
        }
        Ok(())
    }

    /// The host is done with the connection (its socket closed): the peer is told (unless it
    /// closed it first), the id is gone. Bytes sent before go first.
    pub fn close(&mut self, conn: LinkConnId) -> Result<(), LinkError> {
        self.alive()?;
        let state = self
            .conns
            .remove(&conn.0)
            .ok_or(LinkError::UnknownConnection(conn.0))?;
        if !state.peer_closed {
            self.queue(FrameKind::Close, conn.0, &[]);
        }
        Ok(())
    }

    // ---- outputs ----

    /// The next event, in order.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<LinkEvent> {
        self.events.pop_front()
    }

    /// Bytes to write to the link's stream.
    pub fn outbound(&self) -> &[u8] {
        &self.out
    }

    /// The host wrote the first `n` bytes of [`Link::outbound`].
    pub fn handle_sent(&mut self, n: usize) -> Result<(), LinkError> {
        if n > self.out.len() {
            return Err(LinkError::Overrun);
        }
        self.out.drain(..n);
        self.sent_total += n as u64;
        Ok(())
    }

    // ---- internals ----

    fn alive(&self) -> Result<(), LinkError> {
        match self.dead {
            Some(_) => Err(LinkError::Dead),
            None => Ok(()),
        }
    }

    /// Handles the whole frames at the start of `bytes`; returns how many bytes they took.
    fn frames_prefix(&mut self, bytes: &[u8]) -> usize {
        let mut at = 0;
        while self.dead.is_none() {
            let header = match Header::parse(&bytes[at..]) {
                Ok(Some(header)) => header,
                Ok(None) => break,
                Err(fault) => {
                    self.die(fault);
                    break;
                }
            };
            let end = at + HEADER_BYTES + header.len;
            let Some(payload) = bytes.get(at + HEADER_BYTES..end) else {
                break;
            };
            if let Err(fault) = self.frame(header, payload) {
                self.die(fault);
            }
            at = end;
        }
        at
    }

    fn frame(&mut self, header: Header, payload: &[u8]) -> Result<(), LinkFault> {
        if self.peer.is_none() != (header.kind == FrameKind::Hello) {
            return Err(LinkFault::HelloOrder);
        }
        let id = header.conn;
        match header.kind {
            FrameKind::Hello => {
                let hello = Hello::parse(payload)?;
                self.peer = Some(hello.clone());
                self.events.push_back(LinkEvent::Hello(hello));
            }
            FrameKind::Open => {
                if self.role != LinkRole::Editor || id <= self.last_opened {
                    return Err(LinkFault::BadOpen(id));
                }
                if self.conns.len() >= self.config.max_connections {
                    return Err(LinkFault::TooManyConnections);
                }
                self.last_opened = id;
                self.conns.insert(id, Conn::new(self.config.window_bytes));
                self.events.push_back(LinkEvent::Opened(LinkConnId(id)));
            }
            FrameKind::Data => {
                let Some(state) = self.known(id)? else {
                    return Ok(());
                };
                let len = u32::try_from(payload.len()).expect("data frames are capped at 64 KiB");
                if len > state.peer_allowance {
                    return Err(LinkFault::CreditExceeded(id));
                }
                state.peer_allowance -= len;
                let was_empty = state.unread().is_empty();
                state.recv.extend_from_slice(payload);
                if was_empty {
                    self.events.push_back(LinkEvent::Readable(LinkConnId(id)));
                }
            }
            FrameKind::Close => {
                if let Some(state) = self.known(id)? {
                    state.peer_closed = true;
                    self.events.push_back(LinkEvent::Closed(LinkConnId(id)));
                }
            }
            FrameKind::Credit => {
                let window = self.config.window_bytes;
                let Some(state) = self.known(id)? else {
                    return Ok(());
                };
                let credit = frame::credit(payload);
                let total = state
                    .credit
                    .checked_add(credit)
                    .filter(|&total| total <= window && credit > 0)
                    .ok_or(LinkFault::CreditOverflow(id))?;
                state.credit = total;
                if std::mem::take(&mut state.blocked) {
                    self.events.push_back(LinkEvent::Writable(LinkConnId(id)));
                }
            }
            FrameKind::Ping => {
                // One pong in flight at most: a peer pinging a link we cannot write to does
                // not grow our outbound.
                if self.pong_queued_until <= self.sent_total {
                    self.queue(FrameKind::Pong, 0, payload);
                    self.pong_queued_until = self.queued_total;
                }
            }
            FrameKind::Pong => {}
            FrameKind::Fault => {
                if payload == SHUTDOWN_REASON.as_bytes() {
                    return Err(LinkFault::PeerShutdown);
                }
                let reason = String::from_utf8_lossy(payload).into_owned();
                return Err(LinkFault::PeerFault(reason));
            }
        }
        Ok(())
    }

    /// The state of connection `id`: `None` for one we closed (its frames crossed our close,
    /// and are dropped), a fault for one never opened or one the peer closed already.
    fn known(&mut self, id: u32) -> Result<Option<&mut Conn>, LinkFault> {
        match self.conns.get_mut(&id) {
            Some(state) if state.peer_closed => Err(LinkFault::UnknownConnection(id)),
            _ if id > self.last_opened => Err(LinkFault::UnknownConnection(id)),
            state => Ok(state),
        }
    }

    fn queue(&mut self, kind: FrameKind, conn: u32, payload: &[u8]) {
        let before = self.out.len();
        frame::push(&mut self.out, kind, conn, payload);
        self.queued_total += (self.out.len() - before) as u64;
    }

    fn queue_fault(&mut self, reason: &str) {
        let mut end = reason.len().min(MAX_FAULT_BYTES);
        while !reason.is_char_boundary(end) {
            end -= 1;
        }
        self.queue(FrameKind::Fault, 0, &reason.as_bytes()[..end]);
    }

    fn die(&mut self, fault: LinkFault) {
        if fault.is_peer_violation() {
            self.queue_fault(&fault.to_string());
        }
        self.partial = Vec::new();
        for id in self.conns.take_keys() {
            self.events.push_back(LinkEvent::Closed(LinkConnId(id)));
        }
        self.events.push_back(LinkEvent::Dead(fault.clone()));
        self.dead = Some(fault);
    }
}
