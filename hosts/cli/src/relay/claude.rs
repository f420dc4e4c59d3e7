//! The claude side of the relay: claude's connections, read into the page link and written with
//! what the page sends. No byte is interpreted.
//!
//! [`ClaudeConns`] owns the sockets and their buffers; it reaches the page only through
//! [`Uplink`], so it knows nothing of the page link's sockets.

use super::io_util::{ReadOutcome, flush, read_once};
use super::link::{ToPage, data_message};
use mio::net::TcpStream;
use mio::{Interest, Registry, Token};
use std::collections::BTreeMap;
use std::net::Shutdown;
use std::time::{Duration, Instant};

/// Bytes read from a socket at once; also the largest data message sent to the page.
pub const READ_CHUNK: usize = 64 * 1024;
/// Page link bytes queued above which claude sockets are no longer read (back-pressure).
const LINK_HIGH_BYTES: usize = 16 << 20;
/// Reading resumes when the page link's queue drops below this.
const LINK_LOW_BYTES: usize = 4 << 20;
/// Bytes the page may queue for one claude connection that does not read; then it is closed.
const CLAUDE_OUT_CAP_BYTES: usize = 128 << 20;
/// How long a connection the page closed may take to close its side.
const LINGER: Duration = Duration::from_secs(2);
/// Why claude is turned away when no editor page is linked.
const NO_PAGE: &str = "no editor page is linked: open the URL idelink relay printed\n";

/// Where claude's bytes go: the page link.
pub trait Uplink {
    /// Whether a page is linked (else claude is turned away with a 503).
    fn linked(&self) -> bool;
    /// Bytes queued toward the page and not yet written.
    fn queued(&self) -> usize;
    /// Sends a text message to the linked page.
    fn send(&mut self, message: &ToPage);
    /// Sends a binary message (see [`data_message`]) to the linked page.
    fn send_binary(&mut self, message: &[u8]);
}

/// One claude connection: bytes the page sent for it wait in `out`.
struct ClaudeConn {
    stream: TcpStream,
    out: Vec<u8>,
    /// Close once `out` is written (the page asked, or it is a 503 answer).
    closing: bool,
    /// Everything went and our side is shut: read and discard until claude closes (closing
    /// with its unread bytes pending would reset our last bytes away), until this instant.
    lingering_until: Option<Instant>,
    /// Reading stopped because the page link is backed up.
    paused: bool,
    /// Its id on the link; None for a connection turned away (the page never knew it).
    id: Option<u32>,
}

/// Every claude connection, keyed by its mio token (which is also its id on the link).
pub struct ClaudeConns {
    conns: BTreeMap<usize, ClaudeConn>,
    read_buf: Box<[u8]>,
    /// Reused for every data message to the page.
    scratch: Vec<u8>,
}

impl ClaudeConns {
    /// No connections yet.
    pub fn new() -> Self {
        ClaudeConns {
            conns: BTreeMap::new(),
            read_buf: vec![0; READ_CHUNK].into_boxed_slice(),
            scratch: Vec::with_capacity(READ_CHUNK + 4),
        }
    }

    /// Whether `token` is a claude connection.
    pub fn contains(&self, token: usize) -> bool {
        self.conns.contains_key(&token)
    }

    /// Takes a new claude connection under `token`: announced to the page when one is linked,
    /// else answered 503 and closed.
    pub fn accept(
        &mut self,
        registry: &Registry,
        mut stream: TcpStream,
        token: usize,
        link: &mut impl Uplink,
    ) {
        let conn = u32::try_from(token).ok().filter(|_| link.linked());
        let interest = Interest::READABLE | Interest::WRITABLE;
        if registry
            .register(&mut stream, Token(token), interest)
            .is_err()
        {
            return;
        }
        let _ = stream.set_nodelay(true);
        let mut c = ClaudeConn {
            stream,
            out: Vec::new(),
            closing: false,
            lingering_until: None,
            paused: false,
            id: conn,
        };
        match conn {
            Some(conn) => {
                tracing::debug!(conn, "claude connection accepted");
                println!("claude connected (#{conn})");
                link.send(&ToPage::Open { conn });
            }
            None => {
                c.out = format!(
                    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n\
                     Content-Length: {}\r\nConnection: close\r\n\r\n{NO_PAGE}",
                    NO_PAGE.len()
                )
                .into_bytes();
                c.closing = true;
            }
        }
        self.conns.insert(token, c);
        self.ready(registry, token, true, true, link);
    }

    /// Handles readiness of connection `token`.
    pub fn ready(
        &mut self,
        registry: &Registry,
        token: usize,
        writable: bool,
        readable: bool,
        link: &mut impl Uplink,
    ) {
        if writable {
            self.writable(registry, token, link);
        }
        if readable {
            self.readable(registry, token, link);
        }
    }

    /// Reads `token` until it would block, forwarding to the page; pauses while the link is
    /// backed up; on end of stream tells the page.
    fn readable(&mut self, registry: &Registry, token: usize, link: &mut impl Uplink) {
        loop {
            let Some(c) = self.conns.get_mut(&token) else {
                return;
            };
            if c.id.is_some() && link.queued() > LINK_HIGH_BYTES {
                c.paused = true;
                return;
            }
            let forward = c.id.filter(|_| c.lingering_until.is_none());
            match (read_once(&mut c.stream, &mut self.read_buf), forward) {
                (ReadOutcome::Data(_), None) => {}
                (ReadOutcome::Data(n), Some(conn)) => {
                    data_message(conn, &self.read_buf[..n], &mut self.scratch);
                    link.send_binary(&self.scratch);
                }
                (ReadOutcome::WouldBlock, _) => return,
                (ReadOutcome::Gone, _) => {
                    self.gone(registry, token, link);
                    return;
                }
            }
        }
    }

    /// Writes what the page queued for `token`; closes it when asked and all went.
    fn writable(&mut self, registry: &Registry, token: usize, link: &mut impl Uplink) {
        let Some(c) = self.conns.get_mut(&token) else {
            return;
        };
        match flush(&mut c.stream, &mut c.out) {
            Ok(true) if c.closing && c.lingering_until.is_none() => {
                c.lingering_until = Some(Instant::now() + LINGER);
                if c.stream.shutdown(Shutdown::Write).is_err() {
                    self.remove(registry, token);
                }
            }
            Ok(_) => {}
            Err(_) => self.gone(registry, token, link),
        }
    }

    /// Bytes from the page for claude connection `conn` (dropped when it is already gone:
    /// the page learns that from the `closed` message on its way).
    pub fn write(&mut self, registry: &Registry, conn: u32, bytes: &[u8], link: &mut impl Uplink) {
        let token = conn as usize;
        let Some(c) = self.conns.get_mut(&token).filter(|c| c.id.is_some()) else {
            return;
        };
        if c.closing {
            return;
        }
        if c.out.len() + bytes.len() > CLAUDE_OUT_CAP_BYTES {
            tracing::warn!(conn, "claude does not read its answers: closing it");
            self.gone(registry, token, link);
            return;
        }
        c.out.extend_from_slice(bytes);
        self.writable(registry, token, link);
    }

    /// The page asked to close claude connection `conn` once its bytes are written.
    pub fn close(&mut self, registry: &Registry, conn: u32, link: &mut impl Uplink) {
        let token = conn as usize;
        if let Some(c) = self.conns.get_mut(&token).filter(|c| c.id.is_some()) {
            c.closing = true;
            self.writable(registry, token, link);
        }
    }

    /// Resumes reading the connections paused while the link was backed up, once it drained.
    pub fn resume(&mut self, registry: &Registry, link: &mut impl Uplink) {
        if link.queued() >= LINK_LOW_BYTES {
            return;
        }
        let paused: Vec<usize> = self
            .conns
            .iter()
            .filter(|(_, c)| c.paused)
            .map(|(t, _)| *t)
            .collect();
        for token in paused {
            if let Some(c) = self.conns.get_mut(&token) {
                c.paused = false;
            }
            self.readable(registry, token, link);
        }
    }

    /// Drops the connections whose linger ran out.
    pub fn timers(&mut self, registry: &Registry) {
        let now = Instant::now();
        let expired: Vec<usize> = self
            .conns
            .iter()
            .filter(|(_, c)| c.lingering_until.is_some_and(|until| now >= until))
            .map(|(t, _)| *t)
            .collect();
        for token in expired {
            self.remove(registry, token);
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

    /// Connection `token` ended on claude's side (or failed): forgotten, and the page told.
    fn gone(&mut self, registry: &Registry, token: usize, link: &mut impl Uplink) {
        let told = self
            .conns
            .get(&token)
            .filter(|c| c.lingering_until.is_none())
            .and_then(|c| c.id);
        self.remove(registry, token);
        if let Some(conn) = told {
            link.send(&ToPage::Closed { conn });
        }
    }

    /// Forgets connection `token` and closes its socket.
    fn remove(&mut self, registry: &Registry, token: usize) {
        if let Some(mut c) = self.conns.remove(&token) {
            let _ = registry.deregister(&mut c.stream);
            let _ = c.stream.shutdown(Shutdown::Both);
            if c.id.is_some() {
                println!("claude disconnected (#{token})");
            }
        }
    }
}
