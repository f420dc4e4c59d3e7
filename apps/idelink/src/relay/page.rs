//! The browser side of the relay: HTTP requests for the demo files, and the one authenticated
//! page link (a WebSocket, RFC 6455 framing by `idelink_core::ws`).
//!
//! [`PageLink`] owns every browser connection and who holds the link ([`super::hello`]); what
//! the relay must do about it (write the lock, forward bytes to claude) comes out as
//! [`PageEvent`]s. claude's side reaches the page through [`Uplink`].

use super::assets::Assets;
use super::claude::Uplink;
use super::hello::{POLICY, REPLACED, ROTATED};
use super::link::{ToPage, split_data};
use super::page_http::{self, Answer};
use super::session::{Asked, Session};
use idelink_core::host_rules::{HandshakeBudget, PumpPolicy};
use idelink_core::http::write_accept;
use idelink_core::ws::{Message, ServerSocket, WsConfig};
use idelink_core::{AuthToken, Timestamp};
use idelink_mio::sockets::{Read, SocketTable, Write};
use mio::event::Event;
use mio::net::TcpStream;
use mio::{Registry, Token};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Time for a browser to send its request head (taking the answer is the pump's linger). A
/// browser sends it as soon as it connects; 3 s also covers a socket it opened ahead of use
/// (Chromium's preconnect opens one anew if this one was closed).
const HEAD_DEADLINE: Duration = Duration::from_secs(3);
/// Browser connections that do not hold the link, at once: requests for the page's files, link
/// sockets awaiting their hello and answers lingering. One more evicts the oldest (core's
/// [`HandshakeBudget`]), so idle sockets from any local process only evict one another and
/// never use up the relay's descriptors. A page load opens about six at once; 32 leave room
/// for several tabs loading together.
const MAX_PENDING_PAGE_CONNS: usize = 32;
/// Time for a page to send its hello once its link socket is up.
const HELLO_DEADLINE: Duration = Duration::from_secs(10);
/// Largest message from the page: it sends claude's answers in chunks of at most 1 MiB.
const MAX_LINK_MESSAGE_BYTES: usize = 8 << 20;

/// What the page told the relay to do.
#[derive(Debug)]
pub enum PageEvent {
    /// A page linked: claude may now find the editor (write the lock with the token it holds).
    Linked {
        /// The claude token the page checks.
        auth_token: AuthToken,
        /// The token is new: close every claude connection made under the previous one.
        fresh: bool,
    },
    /// The linked page went (closed, lost, replaced or unlinked by a rotation): remove the lock,
    /// close every claude connection.
    Unlinked,
    /// Bytes for claude connection `conn`.
    Data {
        /// The connection id.
        conn: u32,
        /// Its bytes.
        bytes: Vec<u8>,
    },
    /// Close claude connection `conn` once what was sent before is written.
    Close {
        /// The connection id.
        conn: u32,
    },
}

/// What the relay keeps of one browser connection (the socket is in the table).
struct PageConn {
    inbuf: Vec<u8>,
    out: Vec<u8>,
    /// The answer went out and our side is shut: wait for the peer's end of stream, so that
    /// closing with its unread bytes pending does not reset the answer away.
    write_shut: bool,
    stage: Stage,
}

/// Where a browser connection is.
enum Stage {
    /// Reading the request head until the deadline.
    Head { deadline: Instant },
    /// Answered and closing: flush, shut our side, read until the peer closes, all within
    /// the pump's linger.
    Answered,
    /// Upgraded: awaiting the hello until `hello_by` (then Some), or linked or closing (None).
    Socket {
        ws: Box<ServerSocket>,
        hello_by: Option<Instant>,
    },
}

/// The page's side of the relay.
pub struct PageLink {
    registry: Registry,
    /// The sockets, pumped by core's policy (reads pause while a page does not take its
    /// bytes; answered connections linger).
    table: SocketTable,
    conns: BTreeMap<usize, PageConn>,
    /// The connection that holds the link, if any.
    link: Option<usize>,
    port: u16,
    /// The origins whose pages may open the link: the relay's own page's first.
    origins: Vec<String>,
    session: Session,
    assets: Assets,
    clock: Instant,
    read_buf: Box<[u8]>,
    events: Vec<PageEvent>,
    /// Bytes the page sent for claude that claude has not read yet (the relay loop keeps it
    /// current, [`PageLink::set_downstream`]): the link counts them as its own unsent bytes, so
    /// the page is not read while claude does not read its answers.
    downstream: usize,
}

impl PageLink {
    /// The page side of a relay whose HTTP listener is on `port`, pumping by `policy`, its link
    /// speaking `session` and open to pages from its own origin and `allowed_origins`.
    pub fn new(
        policy: PumpPolicy,
        registry: Registry,
        port: u16,
        session: Session,
        assets: Assets,
        allowed_origins: Vec<String>,
    ) -> Self {
        let mut origins = vec![format!("http://127.0.0.1:{port}")];
        origins.extend(allowed_origins);
        PageLink {
            registry,
            table: SocketTable::new(policy),
            conns: BTreeMap::new(),
            link: None,
            port,
            origins,
            session,
            assets,
            clock: Instant::now(),
            read_buf: vec![0; policy.read_chunk_bytes].into_boxed_slice(),
            events: Vec::new(),
            downstream: 0,
        }
    }

    /// Claude's unread answers changed to `bytes`: reading the link pauses at the pump policy's
    /// mark and resumes below its resume mark, as for any connection whose answers back up.
    pub fn set_downstream(&mut self, bytes: usize) {
        self.downstream = bytes;
        if let Some(token) = self.link
            && self.table.resume(Token(token), self.unsent(token))
        {
            self.read(token);
        }
    }

    /// What counts as `token`'s unsent bytes for the pump policy: its own queue, and for the
    /// link also what claude has not read of the page's answers, including the data the loop
    /// has not handed to claude yet (one readiness event may bring many messages).
    fn unsent(&self, token: usize) -> usize {
        let own = self.conns.get(&token).map_or(0, |conn| conn.out.len());
        if self.link == Some(token) {
            let pending: usize = self
                .events
                .iter()
                .map(|event| match event {
                    PageEvent::Data { bytes, .. } => bytes.len(),
                    _ => 0,
                })
                .sum();
            own + self.downstream + pending
        } else {
            own
        }
    }

    /// The URL that opens the editor page, the secret in the fragment (which a browser never
    /// sends over HTTP; the page sends it as its first message on the link).
    pub fn url(&self) -> String {
        format!(
            "{}/#secret={}",
            self.origins[0],
            self.session.secret().as_str()
        )
    }

    /// The URLs that open a page of an allowed origin (a dev server): the secret, and the link
    /// address the page must connect to, in the fragment (`link`, read by the link client).
    pub fn allowed_urls(&self) -> Vec<String> {
        let secret = self.session.secret().as_str();
        let port = self.port;
        self.origins[1..]
            .iter()
            .map(|origin| format!("{origin}/#secret={secret}&link=ws://127.0.0.1:{port}/link"))
            .collect()
    }

    /// Tells the linked page about a problem of the relay's (an error answering no request).
    pub fn report(&mut self, message: &str) {
        self.send(&ToPage::Error { id: None, message });
    }

    /// What happened since the last call.
    pub fn take_events(&mut self) -> Vec<PageEvent> {
        std::mem::take(&mut self.events)
    }

    /// Takes a new browser connection under `token`, first closing the oldest connections that
    /// do not hold the link if they are at their budget ([`MAX_PENDING_PAGE_CONNS`]).
    pub fn accept(&mut self, stream: TcpStream, token: usize) {
        let budget = HandshakeBudget::new(MAX_PENDING_PAGE_CONNS);
        for _ in 0..budget.evictions_to_admit(self.pending()) {
            self.evict_oldest_pending();
        }
        if self
            .table
            .insert(&self.registry, Token(token), stream)
            .is_err()
        {
            return;
        }
        let conn = PageConn {
            inbuf: Vec::new(),
            out: Vec::new(),
            write_shut: false,
            stage: Stage::Head {
                deadline: Instant::now() + HEAD_DEADLINE,
            },
        };
        self.conns.insert(token, conn);
        self.read(token);
    }

    /// How many browser connections do not hold the link.
    fn pending(&self) -> usize {
        self.conns.len() - usize::from(self.link.is_some())
    }

    /// Closes the oldest browser connection that does not hold the link, at once; false when
    /// there is none. (Also how the relay frees a descriptor when none is left.)
    pub fn evict_oldest_pending(&mut self) -> bool {
        let oldest = self.conns.keys().copied().find(|t| Some(*t) != self.link);
        if let Some(token) = oldest {
            tracing::debug!(token, "browser connection evicted: too many pending");
            self.drop_conn(token);
        }
        oldest.is_some()
    }

    /// Whether `token` is a browser connection.
    pub fn contains(&self, token: usize) -> bool {
        self.conns.contains_key(&token)
    }

    /// Handles a readiness event of browser connection `token`.
    pub fn ready(&mut self, event: &Event) {
        let token = event.token().0;
        let ready = self.table.handle_event(event);
        if ready.writable {
            self.flush_conn(token);
        }
        if ready.readable {
            self.read(token);
        }
    }

    /// Reads `token` until it would block (or pauses), then writes what it has queued.
    fn read(&mut self, token: usize) {
        loop {
            let unsent = self.unsent(token);
            let Some(conn) = self.conns.get_mut(&token) else {
                return;
            };
            match self.table.read(Token(token), &mut self.read_buf, unsent) {
                Read::Data(n) => {
                    let bytes = &self.read_buf[..n];
                    match &mut conn.stage {
                        Stage::Head { .. } => {
                            conn.inbuf.extend_from_slice(bytes);
                            self.answer_head(token);
                        }
                        Stage::Answered => {}
                        Stage::Socket { ws, .. } => {
                            ws.receive(bytes);
                            self.pump(token);
                        }
                    }
                }
                Read::WouldBlock | Read::Paused => break,
                Read::Gone => {
                    self.drop_conn(token);
                    return;
                }
            }
        }
        self.flush_conn(token);
    }

    /// The user asked for a new link URL: a fresh secret, the linked page (if any) unlinked.
    pub fn rotate(&mut self, secret: AuthToken) {
        self.session.rotate(secret);
        self.close_link(ROTATED, "the link secret was rotated");
    }

    /// Closes the link (if any) with a close frame, best effort, and drops it.
    pub fn close_link(&mut self, code: u16, reason: &str) {
        let now = self.now();
        if let Some(token) = self.link {
            if let Some(conn) = self.conns.get_mut(&token)
                && let Stage::Socket { ws, .. } = &mut conn.stage
            {
                ws.close(now, code, reason, &mut conn.out);
                let _ = self.table.write(Token(token), &conn.out);
            }
            self.drop_conn(token);
        }
    }

    /// The next deadline or WebSocket timer of a browser connection, from now.
    pub fn next_wakeup(&self) -> Option<Duration> {
        let instant = Instant::now();
        let now = self.now();
        let linger = self
            .table
            .next_deadline()
            .map(|at| Duration::from_millis(at.millis_since(now)));
        let conns = self.conns.values().filter_map(|conn| match &conn.stage {
            Stage::Head { deadline } => Some(deadline.saturating_duration_since(instant)),
            Stage::Answered => None,
            Stage::Socket { ws, hello_by } => {
                let ws = ws.poll_timeout().map(|at| {
                    Duration::from_millis(at.as_millis().saturating_sub(now.as_millis()))
                });
                let hello = hello_by.map(|at| at.saturating_duration_since(instant));
                ws.into_iter().chain(hello).min()
            }
        });
        conns.chain(linger).min()
    }

    /// Deadlines of browser connections, the hello deadline, the WebSocket timers and the
    /// lingers.
    pub fn timers(&mut self) {
        let now = self.now();
        for token in self.table.expired(now) {
            self.drop_conn(token.0);
        }
        let instant = Instant::now();
        let tokens: Vec<usize> = self.conns.keys().copied().collect();
        for token in tokens {
            let Some(conn) = self.conns.get_mut(&token) else {
                continue;
            };
            match &mut conn.stage {
                Stage::Head { deadline } => {
                    if instant >= *deadline {
                        self.drop_conn(token);
                    }
                }
                Stage::Answered => {}
                Stage::Socket { ws, hello_by } => {
                    if hello_by.is_some_and(|at| instant >= at) {
                        *hello_by = None;
                        ws.close(now, POLICY, "no hello in time", &mut conn.out);
                    }
                    if ws.poll_timeout().is_some_and(|at| at <= now) {
                        ws.handle_timeout(now, &mut conn.out);
                    }
                    self.flush_conn(token);
                }
            }
        }
    }

    /// Decides on the request head received so far.
    fn answer_head(&mut self, token: usize) {
        let now = self.now();
        let Some(conn) = self.conns.get_mut(&token) else {
            return;
        };
        match page_http::answer(&conn.inbuf, self.port, &self.origins, &self.assets) {
            Answer::Partial => {}
            Answer::Close(bytes) => {
                conn.out = bytes;
                conn.inbuf = Vec::new();
                conn.stage = Stage::Answered;
                self.table.close(Token(token), now);
            }
            Answer::Link(accepted) => {
                write_accept(&accepted, &mut conn.out);
                let config = WsConfig {
                    accept_binary: true,
                    max_message_bytes: MAX_LINK_MESSAGE_BYTES,
                    ..WsConfig::default()
                };
                let mut ws = ServerSocket::new(config, now);
                ws.receive(&conn.inbuf[accepted.head_len..]);
                conn.inbuf = Vec::new();
                conn.stage = Stage::Socket {
                    ws: Box::new(ws),
                    hello_by: Some(Instant::now() + HELLO_DEADLINE),
                };
                self.pump(token);
            }
        }
    }

    /// Handles every complete message a link socket has buffered: the hello of a socket that
    /// has not linked yet, the requests and data of the linked one; a closing socket's messages
    /// are read, for its close handshake, and dropped.
    fn pump(&mut self, token: usize) {
        let now = self.now();
        loop {
            let Some(conn) = self.conns.get_mut(&token) else {
                return;
            };
            let Stage::Socket { ws, hello_by } = &mut conn.stage else {
                return;
            };
            let awaiting_hello = hello_by.is_some();
            let (text, binary) = match ws.poll_message(now, &mut conn.out) {
                Some(Message::Text(text)) => (Some(text.to_owned()), None),
                Some(Message::Binary(bytes)) => (None, Some(bytes.to_vec())),
                None => return,
            };
            if awaiting_hello {
                self.hello(token, text.as_deref());
            } else if self.link == Some(token) {
                match (text, binary) {
                    (Some(text), _) => self.request(&text),
                    (None, Some(bytes)) => match split_data(&bytes) {
                        Some((conn, data)) => self.events.push(PageEvent::Data {
                            conn,
                            bytes: data.to_vec(),
                        }),
                        None => tracing::debug!("page sent a data message without a connection id"),
                    },
                    (None, None) => {}
                }
            }
        }
    }

    /// The first message on a link socket: links the page, or closes the socket saying why.
    fn hello(&mut self, token: usize, text: Option<&str>) {
        let verdict = self.session.hello(text, super::entropy);
        let now = self.now();
        let Some(conn) = self.conns.get_mut(&token) else {
            return;
        };
        let Stage::Socket { ws, hello_by } = &mut conn.stage else {
            return;
        };
        *hello_by = None;
        let linked = match verdict {
            Ok(linked) => linked,
            Err(refusal) => {
                ws.close(now, refusal.code, refusal.reason, &mut conn.out);
                println!("a page was refused the link: {}", refusal.reason);
                return;
            }
        };
        if self.link.is_some() {
            println!("the page reloaded: the link moves to it");
            self.close_link(REPLACED, "this tab reloaded, the link moved to it");
        }
        self.link = Some(token);
        self.send_text(&linked.welcome);
        self.events.push(PageEvent::Linked {
            auth_token: linked.auth_token,
            fresh: linked.fresh,
        });
    }

    /// A text request from the linked page.
    fn request(&mut self, text: &str) {
        match self.session.request(text) {
            Asked::Answer(answer) => self.send_text(&answer),
            Asked::Close { conn } => self.events.push(PageEvent::Close { conn }),
        }
    }

    fn send_text(&mut self, text: &str) {
        let Some(token) = self.link else { return };
        if let Some(conn) = self.conns.get_mut(&token)
            && let Stage::Socket { ws, .. } = &mut conn.stage
        {
            ws.send_text(text.as_bytes(), &mut conn.out);
        }
        self.flush_conn(token);
    }

    /// Writes what `token` has queued; shuts the write side of an answered connection once it
    /// is all written; drops a socket once its WebSocket finished (after one last write); reads
    /// a paused connection again once its queue drained.
    fn flush_conn(&mut self, token: usize) {
        let Some(conn) = self.conns.get_mut(&token) else {
            return;
        };
        let t = Token(token);
        match self.table.write(t, &conn.out) {
            Write::Sent(n) => {
                conn.out.drain(..n);
            }
            Write::Gone => {
                self.drop_conn(token);
                return;
            }
        }
        let done = match &conn.stage {
            Stage::Answered if conn.out.is_empty() && !conn.write_shut => {
                conn.write_shut = true;
                self.table.shutdown_write(t).is_err()
            }
            Stage::Answered | Stage::Head { .. } => false,
            Stage::Socket { ws, .. } => ws.finished().is_some(),
        };
        if done {
            self.drop_conn(token);
        } else if self.table.resume(t, self.unsent(token)) {
            self.read(token);
        }
    }

    /// Forgets browser connection `token`; when it held the link, the page is unlinked.
    fn drop_conn(&mut self, token: usize) {
        self.table.remove(&self.registry, Token(token));
        self.conns.remove(&token);
        if self.link == Some(token) {
            self.link = None;
            self.events.push(PageEvent::Unlinked);
        }
    }

    /// The clock of the WebSocket timers.
    fn now(&self) -> Timestamp {
        let millis = u64::try_from(self.clock.elapsed().as_millis()).unwrap_or(u64::MAX);
        Timestamp::from_millis(millis)
    }
}

impl Uplink for PageLink {
    fn linked(&self) -> bool {
        self.link.is_some()
    }

    fn queued(&self) -> usize {
        self.link
            .and_then(|t| self.conns.get(&t))
            .map_or(0, |conn| conn.out.len())
    }

    fn send(&mut self, message: &ToPage) {
        self.send_text(&message.to_json());
    }

    fn send_binary(&mut self, message: &[u8]) {
        let Some(token) = self.link else { return };
        if let Some(conn) = self.conns.get_mut(&token)
            && let Stage::Socket { ws, .. } = &mut conn.stage
        {
            ws.send_binary(message, &mut conn.out);
        }
        self.flush_conn(token);
    }
}
