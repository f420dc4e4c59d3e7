//! The claude side of the relay: claude's connections, read into the page link and written with
//! what the page sends. No byte is interpreted.
//!
//! [`ClaudeConns`] owns the sockets and their buffers; it reaches the page only through
//! [`Uplink`], so it knows nothing of the page link's sockets.

use super::link::{ToPage, data_message};
use idelink_core::Timestamp;
use idelink_core::host_rules::{HandshakeBudget, PumpPolicy};
use idelink_mio::sockets::{Read, SocketTable, Write};
use mio::net::TcpStream;
use mio::{Registry, Token};
use std::collections::BTreeMap;

/// Bytes the page may queue for one claude connection that does not read; then it is closed.
const CLAUDE_OUT_CAP_BYTES: usize = 128 << 20;
/// claude connections no page has answered yet, at once: announced to the page and awaiting its
/// engine's first bytes (the answer to the upgrade), turned away while no page is linked, or
/// closing. One more evicts the oldest (core's [`HandshakeBudget`]: the page is told it
/// closed), so idle sockets on claude's port only evict one another and never use up the
/// relay's descriptors, linked or not. The page's engine keeps 8 handshakes
/// (`Config::max_handshakes`); 32 leave it the choice.
const MAX_UNANSWERED_CLAUDE_CONNS: usize = 32;
/// Why claude is turned away when no editor page is linked.
const NO_PAGE: &str = "no editor page is linked: open the URL idelink relay printed\n";

/// Where claude's bytes go: the page link.
pub trait Uplink {
    /// Whether a page is linked (else claude is turned away with a 503).
    fn linked(&self) -> bool;
    /// Bytes queued toward the page and not yet written.
    fn queued(&self) -> usize;
    /// Sends a text message to the linked page at `now`.
    fn send(&mut self, now: Timestamp, message: &ToPage);
    /// Sends a binary message (see [`data_message`]) to the linked page at `now`.
    fn send_binary(&mut self, now: Timestamp, message: &[u8]);
}

/// What the relay keeps of one claude connection (the socket is in the table).
struct ClaudeConn {
    /// Bytes the page sent for it, not yet written.
    out: Vec<u8>,
    /// Its id on the link; None for a connection turned away (the page never knew it).
    id: Option<u32>,
    /// Our end of stream went (after its last bytes, once it is closing).
    write_shut: bool,
    /// The page sent bytes for it (its engine answered the upgrade).
    answered: bool,
}

/// Every claude connection, keyed by its mio token (which is also its id on the link). The
/// sockets, reads, writes, pauses and lingers are `idelink_mio`'s [`SocketTable`], under core's
/// [`PumpPolicy`]: reads pause while the page link holds `pause_reads_at_bytes` unsent and
/// resume below `resume_reads_below_bytes`, as in every host. Time is the relay loop's clock,
/// handed in with every call that may close a connection or reach the page.
pub struct ClaudeConns {
    table: SocketTable,
    conns: BTreeMap<usize, ClaudeConn>,
    read_buf: Box<[u8]>,
    /// Reused for every data message to the page.
    scratch: Vec<u8>,
}

impl ClaudeConns {
    /// No connections yet.
    pub fn new(policy: PumpPolicy) -> Self {
        ClaudeConns {
            table: SocketTable::new(policy),
            conns: BTreeMap::new(),
            read_buf: vec![0; policy.read_chunk_bytes].into_boxed_slice(),
            scratch: Vec::with_capacity(policy.read_chunk_bytes + 4),
        }
    }

    /// Bytes the page sent that claude has not read yet, over every connection.
    pub fn unread(&self) -> usize {
        self.conns.values().map(|conn| conn.out.len()).sum()
    }

    /// Whether `token` is a claude connection.
    pub fn contains(&self, token: usize) -> bool {
        self.conns.contains_key(&token)
    }

    /// Takes a new claude connection under `token`: announced to the page when one is linked,
    /// else answered 503 and closed. The oldest unanswered connections go first if they are at
    /// their budget ([`MAX_UNANSWERED_CLAUDE_CONNS`]).
    pub fn accept(
        &mut self,
        registry: &Registry,
        now: Timestamp,
        stream: TcpStream,
        token: usize,
        link: &mut impl Uplink,
    ) {
        let budget = HandshakeBudget::new(MAX_UNANSWERED_CLAUDE_CONNS);
        for _ in 0..budget.evictions_to_admit(self.unanswered().count()) {
            self.evict_oldest_unanswered(registry, now, link);
        }
        let id = u32::try_from(token).ok().filter(|_| link.linked());
        if self.table.insert(registry, Token(token), stream).is_err() {
            return;
        }
        let mut conn = ClaudeConn {
            out: Vec::new(),
            id,
            write_shut: false,
            answered: false,
        };
        match id {
            Some(id) => {
                tracing::debug!(conn = id, "claude connection accepted");
                println!("claude connected (#{id})");
                link.send(now, &ToPage::Open { conn: id });
            }
            None => {
                conn.out = format!(
                    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n\
                     Content-Length: {}\r\nConnection: close\r\n\r\n{NO_PAGE}",
                    NO_PAGE.len()
                )
                .into_bytes();
                self.table.close(Token(token), now);
            }
        }
        self.conns.insert(token, conn);
        self.writable(registry, now, token, link);
        self.readable(registry, now, token, link);
    }

    /// The connections no page answered yet, or closing, oldest first.
    fn unanswered(&self) -> impl Iterator<Item = usize> + '_ {
        self.conns
            .iter()
            .filter(|(token, conn)| !conn.answered || self.table.is_closing(Token(**token)))
            .map(|(token, _)| *token)
    }

    /// Closes the oldest connection no page answered yet (or closing), at once, telling the
    /// page; false when there is none. (Also how the relay frees a descriptor when none is
    /// left.)
    pub fn evict_oldest_unanswered(
        &mut self,
        registry: &Registry,
        now: Timestamp,
        link: &mut impl Uplink,
    ) -> bool {
        let Some(token) = self.unanswered().next() else {
            return false;
        };
        tracing::debug!(token, "claude connection evicted: too many unanswered");
        self.gone(registry, now, token, link);
        true
    }

    /// Handles a readiness event of one of the connections.
    pub fn ready(
        &mut self,
        registry: &Registry,
        now: Timestamp,
        event: &mio::event::Event,
        link: &mut impl Uplink,
    ) {
        let token = event.token().0;
        let ready = self.table.handle_event(event);
        if ready.writable {
            self.writable(registry, now, token, link);
        }
        if ready.readable {
            self.readable(registry, now, token, link);
        }
    }

    /// Reads `token` until it would block, forwarding to the page; pauses while the link is
    /// backed up; on end of stream tells the page. A closing connection's input is discarded.
    fn readable(
        &mut self,
        registry: &Registry,
        now: Timestamp,
        token: usize,
        link: &mut impl Uplink,
    ) {
        loop {
            let Some(conn) = self.conns.get(&token) else {
                return;
            };
            let closing = self.table.is_closing(Token(token));
            let unsent = if closing {
                conn.out.len()
            } else {
                link.queued()
            };
            match (
                self.table.read(Token(token), &mut self.read_buf, unsent),
                conn.id,
            ) {
                (Read::Data(n), Some(id)) if !closing => {
                    data_message(id, &self.read_buf[..n], &mut self.scratch);
                    link.send_binary(now, &self.scratch);
                }
                (Read::Data(_), _) => {}
                (Read::WouldBlock | Read::Paused, _) => return,
                (Read::Gone, _) => {
                    self.gone(registry, now, token, link);
                    return;
                }
            }
        }
    }

    /// Writes what the page queued for `token`; once a closing connection's bytes all went,
    /// sends our end of stream and waits (the table's linger) for claude's.
    fn writable(
        &mut self,
        registry: &Registry,
        now: Timestamp,
        token: usize,
        link: &mut impl Uplink,
    ) {
        let Some(conn) = self.conns.get_mut(&token) else {
            return;
        };
        match self.table.write(Token(token), &conn.out) {
            Write::Sent(n) => {
                conn.out.drain(..n);
            }
            Write::Gone => {
                self.gone(registry, now, token, link);
                return;
            }
        }
        if conn.out.is_empty() && !conn.write_shut && self.table.is_closing(Token(token)) {
            conn.write_shut = true;
            if self.table.shutdown_write(Token(token)).is_err() {
                self.remove(registry, token);
            }
        }
    }

    /// Bytes from the page for claude connection `conn` (dropped when it is already gone:
    /// the page learns that from the `closed` message on its way).
    pub fn write(
        &mut self,
        registry: &Registry,
        now: Timestamp,
        conn: u32,
        bytes: &[u8],
        link: &mut impl Uplink,
    ) {
        let token = conn as usize;
        let closing = self.table.is_closing(Token(token));
        let Some(c) = self.conns.get_mut(&token).filter(|c| c.id.is_some()) else {
            return;
        };
        if closing {
            return;
        }
        if c.out.len() + bytes.len() > CLAUDE_OUT_CAP_BYTES {
            tracing::warn!(conn, "claude does not read its answers: closing it");
            self.gone(registry, now, token, link);
            return;
        }
        c.answered = true;
        c.out.extend_from_slice(bytes);
        self.writable(registry, now, token, link);
    }

    /// The page asked to close claude connection `conn` once its bytes are written.
    pub fn close(
        &mut self,
        registry: &Registry,
        now: Timestamp,
        conn: u32,
        link: &mut impl Uplink,
    ) {
        let token = conn as usize;
        if self.conns.get(&token).is_some_and(|c| c.id.is_some()) {
            self.table.close(Token(token), now);
            self.writable(registry, now, token, link);
        }
    }

    /// Resumes reading the connections paused while the link was backed up, once it drained.
    pub fn resume(&mut self, registry: &Registry, now: Timestamp, link: &mut impl Uplink) {
        for token in self.table.paused() {
            if self.table.resume(token, link.queued()) {
                self.readable(registry, now, token.0, link);
            }
        }
    }

    /// When the next linger runs out, if a connection is closing.
    pub fn next_deadline(&self) -> Option<Timestamp> {
        self.table.next_deadline()
    }

    /// Drops the connections whose linger ran out at `now`.
    pub fn timers(&mut self, registry: &Registry, now: Timestamp) {
        for token in self.table.expired(now) {
            self.remove(registry, token.0);
        }
    }

    /// The page went: every connection it served is closed (its engine is gone).
    pub fn close_all(&mut self, registry: &Registry) {
        let tokens: Vec<usize> = self
            .conns
            .iter()
            .filter(|(_, c)| c.id.is_some())
            .map(|(t, _)| *t)
            .collect();
        for token in tokens {
            self.remove(registry, token);
        }
    }

    /// Connection `token` ended on claude's side (or failed): forgotten, and the page told
    /// unless it had asked to close it.
    fn gone(&mut self, registry: &Registry, now: Timestamp, token: usize, link: &mut impl Uplink) {
        let closing = self.table.is_closing(Token(token));
        let told = self
            .conns
            .get(&token)
            .and_then(|c| c.id)
            .filter(|_| !closing);
        self.remove(registry, token);
        if let Some(conn) = told {
            link.send(now, &ToPage::Closed { conn });
        }
    }

    /// Forgets connection `token` and closes its socket.
    fn remove(&mut self, registry: &Registry, token: usize) {
        self.table.remove(registry, Token(token));
        if let Some(conn) = self.conns.remove(&token)
            && conn.id.is_some()
        {
            println!("claude disconnected (#{token})");
        }
    }
}
