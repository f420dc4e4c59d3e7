//! The page port's state machine, sans IO: every browser connection from its request head to
//! the one authenticated page link (a WebSocket, RFC 6455 framing by `idelink_core::ws`), on
//! the relay's one clock, [`Timestamp`]. No socket, no clock, no terminal: bytes and time come
//! in, bytes, socket actions ([`PageOutput`]) and what the relay must do ([`PageEvent`]) come
//! out. [`super::page`] is the pump that moves them between the sockets and this machine.
//!
//! # The pump's contract (the engine's run loop, `idelink_core`'s `lib.rs`, in small)
//!
//! - Inputs, each with `now` where time matters: [`PageLink::handle_accept`],
//!   [`PageLink::handle_bytes`], [`PageLink::handle_sent`] (a prefix of
//!   [`PageLink::outbound`] was written), [`PageLink::handle_closed`] (the socket is gone: call
//!   it once per connection the pump closed on its own), [`PageLink::handle_timeout`] at
//!   [`PageLink::poll_timeout`], [`PageLink::handle_downstream`] (claude's unread bytes).
//! - After every input, drain [`PageLink::poll_output`] until `None`; [`PageLink::take_events`]
//!   gives the relay's share.
//! - Back-pressure is the pump policy's, measured on [`PageLink::unsent`]: the link counts
//!   claude's unread answers and the data the relay has not handed to claude yet as its own.
//!
//! The machine reads the page's files ([`Assets`]) and the workspace ([`Session`]) to answer
//! requests, and draws entropy for tokens from the function it is given; it stays in the
//! command because those are the relay's alone (no binding serves pages or forwards claude).

use super::assets::Assets;
use super::hello::{POLICY, REPLACED, ROTATED};
use super::link::{ToPage, split_data};
use super::page_http::{self, Answer};
use super::session::{Asked, Session};
use idelink_core::host_rules::HandshakeBudget;
use idelink_core::http::write_accept;
use idelink_core::ws::{Message, ServerSocket, WsConfig};
use idelink_core::{AuthToken, Timestamp};
use std::collections::{BTreeMap, VecDeque};
use std::io;

mod output;

pub use output::{PageConnId, PageEvent, PageOutput};

/// Time for a browser to send its request head (taking the answer is the pump's linger). A
/// browser sends it as soon as it connects; 3 s also covers a socket it opened ahead of use
/// (Chromium's preconnect opens one anew if this one was closed).
pub const HEAD_DEADLINE_MS: u64 = 3_000;
/// Browser connections that do not hold the link, at once: requests for the page's files, link
/// sockets awaiting their hello and answers lingering. One more evicts the oldest (core's
/// [`HandshakeBudget`]), so idle sockets from any local process only evict one another and
/// never use up the relay's descriptors. A page load opens about six at once; 32 leave room
/// for several tabs loading together.
pub const MAX_PENDING_PAGE_CONNS: usize = 32;
/// Time for a page to send its hello once its link socket is up.
pub const HELLO_DEADLINE_MS: u64 = 10_000;
/// Largest message from the page: it sends claude's answers in chunks of at most 1 MiB.
const MAX_LINK_MESSAGE_BYTES: usize = 8 << 20;

/// 16 bytes of entropy for a token, or why there are none.
pub type Entropy = fn() -> io::Result<[u8; 16]>;

/// One browser connection: its unsent bytes and where it is.
struct PageConn {
    out: Vec<u8>,
    stage: Stage,
}

/// Where a browser connection is.
enum Stage {
    /// Reading the request head until `deadline`.
    Head { head: Vec<u8>, deadline: Timestamp },
    /// Answered and closing: its input is discarded; `write_shut` once our end of stream was
    /// asked for.
    Answered { write_shut: bool },
    /// Upgraded: awaiting the hello until `hello_by` (then Some), or linked or closing (None).
    Socket {
        ws: Box<ServerSocket>,
        hello_by: Option<Timestamp>,
    },
}

/// The page port's side of the relay (see the [module docs](self)).
pub struct PageLink {
    conns: BTreeMap<PageConnId, PageConn>,
    /// The connection that holds the link, if any.
    link: Option<PageConnId>,
    port: u16,
    /// The origins whose pages may open the link: the relay's own page's first.
    origins: Vec<String>,
    session: Session,
    assets: Assets,
    entropy: Entropy,
    outputs: VecDeque<PageOutput>,
    events: Vec<PageEvent>,
    /// Bytes the page sent for claude that claude has not read yet
    /// ([`PageLink::handle_downstream`]).
    downstream: usize,
}

impl PageLink {
    /// The page side of a relay whose HTTP listener is on `port`, its link speaking `session`,
    /// open to pages from its own origin and `allowed_origins`, its tokens drawn from `entropy`.
    pub fn new(
        port: u16,
        session: Session,
        assets: Assets,
        allowed_origins: Vec<String>,
        entropy: Entropy,
    ) -> Self {
        let mut origins = vec![format!("http://127.0.0.1:{port}")];
        origins.extend(allowed_origins);
        PageLink {
            conns: BTreeMap::new(),
            link: None,
            port,
            origins,
            session,
            assets,
            entropy,
            outputs: VecDeque::new(),
            events: Vec::new(),
            downstream: 0,
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

    /// The connection that holds the link, if any.
    pub fn link(&self) -> Option<PageConnId> {
        self.link
    }

    /// `conn`'s bytes not written yet (empty for an unknown connection).
    pub fn outbound(&self, conn: PageConnId) -> &[u8] {
        self.conns.get(&conn).map_or(&[], |c| &c.out)
    }

    /// What counts as `conn`'s unsent bytes for the pump policy: its own queue, and for the
    /// link also what claude has not read of the page's answers, including the data the relay
    /// has not taken yet (one read may bring many messages).
    pub fn unsent(&self, conn: PageConnId) -> usize {
        let own = self.outbound(conn).len();
        if self.link != Some(conn) {
            return own;
        }
        let pending: usize = self
            .events
            .iter()
            .map(|event| match event {
                PageEvent::Data { bytes, .. } => bytes.len(),
                _ => 0,
            })
            .sum();
        own + self.downstream + pending
    }

    /// The next socket action, oldest first.
    #[must_use]
    pub fn poll_output(&mut self) -> Option<PageOutput> {
        self.outputs.pop_front()
    }

    /// What the relay must do, since the last call.
    pub fn take_events(&mut self) -> Vec<PageEvent> {
        std::mem::take(&mut self.events)
    }

    /// A browser connection was accepted at `now`; the oldest connections that do not hold the
    /// link go first when they are at their budget ([`MAX_PENDING_PAGE_CONNS`]).
    pub fn handle_accept(&mut self, now: Timestamp, conn: PageConnId) {
        let budget = HandshakeBudget::new(MAX_PENDING_PAGE_CONNS);
        for _ in 0..budget.evictions_to_admit(self.pending()) {
            self.evict_oldest_pending();
        }
        let stage = Stage::Head {
            head: Vec::new(),
            deadline: now.add_millis(HEAD_DEADLINE_MS),
        };
        let out = Vec::new();
        self.conns.insert(conn, PageConn { out, stage });
    }

    /// How many browser connections do not hold the link.
    fn pending(&self) -> usize {
        self.conns.len() - usize::from(self.link.is_some())
    }

    /// Drops the oldest browser connection that does not hold the link, at once and without a
    /// last byte; false when there is none. (Also how the relay frees a descriptor when none is
    /// left.)
    pub fn evict_oldest_pending(&mut self) -> bool {
        let oldest = self.conns.keys().copied().find(|c| Some(*c) != self.link);
        if let Some(conn) = oldest {
            tracing::debug!(
                conn = conn.0,
                "browser connection evicted: too many pending"
            );
            self.forget(conn, false);
        }
        oldest.is_some()
    }

    /// Bytes read from `conn` at `now`: a request head answered once complete, a link socket's
    /// messages handled; an answered connection's input is discarded.
    pub fn handle_bytes(&mut self, now: Timestamp, conn: PageConnId, bytes: &[u8]) {
        let Some(c) = self.conns.get_mut(&conn) else {
            return;
        };
        match &mut c.stage {
            Stage::Head { head, .. } => {
                head.extend_from_slice(bytes);
                self.answer_head(now, conn);
            }
            Stage::Answered { .. } => {}
            Stage::Socket { ws, .. } => {
                ws.receive(bytes);
                self.messages(now, conn);
            }
        }
    }

    /// The pump wrote the first `n` bytes of [`PageLink::outbound`] for `conn`.
    pub fn handle_sent(&mut self, conn: PageConnId, n: usize) {
        let Some(c) = self.conns.get_mut(&conn) else {
            return;
        };
        c.out.drain(..n.min(c.out.len()));
        if let Stage::Answered { write_shut } = &mut c.stage
            && c.out.is_empty()
            && !*write_shut
        {
            *write_shut = true;
            self.outputs.push_back(PageOutput::ShutdownWrite { conn });
        }
    }

    /// `conn`'s socket is gone (its end of stream, an error, or its linger ran out): forgotten;
    /// when it held the link, the page is unlinked.
    pub fn handle_closed(&mut self, conn: PageConnId) {
        self.conns.remove(&conn);
        if self.link == Some(conn) {
            self.link = None;
            self.events.push(PageEvent::Unlinked);
        }
    }

    /// Claude's unread answers are now `bytes`: counted as the link's own unsent bytes.
    pub fn handle_downstream(&mut self, bytes: usize) {
        self.downstream = bytes;
    }

    /// The earliest deadline of a browser connection: a head's, a hello's, a WebSocket timer.
    pub fn poll_timeout(&self) -> Option<Timestamp> {
        let deadlines = self.conns.values().filter_map(|c| match &c.stage {
            Stage::Head { deadline, .. } => Some(*deadline),
            Stage::Answered { .. } => None,
            Stage::Socket { ws, hello_by } => ws.poll_timeout().into_iter().chain(*hello_by).min(),
        });
        deadlines.min()
    }

    /// Runs the deadlines due at `now`: a head not complete is dropped, a socket without its
    /// hello is closed with 1008, and the WebSocket timers (keepalive, close handshake) run.
    pub fn handle_timeout(&mut self, now: Timestamp) {
        let conns: Vec<PageConnId> = self.conns.keys().copied().collect();
        for conn in conns {
            let Some(c) = self.conns.get_mut(&conn) else {
                continue;
            };
            match &mut c.stage {
                Stage::Head { deadline, .. } => {
                    if now >= *deadline {
                        self.forget(conn, false);
                    }
                }
                Stage::Answered { .. } => {}
                Stage::Socket { ws, hello_by } => {
                    if hello_by.is_some_and(|at| now >= at) {
                        *hello_by = None;
                        ws.close(now, POLICY, "no hello in time", &mut c.out);
                    }
                    if ws.poll_timeout().is_some_and(|at| at <= now) {
                        ws.handle_timeout(now, &mut c.out);
                    }
                    self.transmit(conn);
                }
            }
        }
    }

    /// The user asked for a new link URL at `now`: a fresh secret, the linked page (if any)
    /// unlinked.
    pub fn rotate(&mut self, now: Timestamp, secret: AuthToken) {
        self.session.rotate(secret);
        self.close_link(now, ROTATED, "the link secret was rotated");
    }

    /// Closes the link (if any) at `now` with a close frame, written best effort, and drops it.
    pub fn close_link(&mut self, now: Timestamp, code: u16, reason: &str) {
        let Some(conn) = self.link else { return };
        if let Some(c) = self.conns.get_mut(&conn)
            && let Stage::Socket { ws, .. } = &mut c.stage
        {
            ws.close(now, code, reason, &mut c.out);
        }
        self.forget(conn, true);
    }

    /// Tells the linked page about a problem of the relay's (an error answering no request).
    pub fn report(&mut self, message: &str) {
        self.send_text(&ToPage::Error { id: None, message }.to_json());
    }

    /// Sends a text message to the linked page (nothing when none is linked).
    pub fn send_text(&mut self, text: &str) {
        self.send(|ws, out| ws.send_text(text.as_bytes(), out));
    }

    /// Sends a binary message to the linked page (nothing when none is linked).
    pub fn send_binary(&mut self, message: &[u8]) {
        self.send(|ws, out| ws.send_binary(message, out));
    }

    /// Frames one message onto the link's queue with `frame`.
    fn send(&mut self, frame: impl FnOnce(&mut ServerSocket, &mut Vec<u8>) -> bool) {
        let Some(conn) = self.link else { return };
        if let Some(c) = self.conns.get_mut(&conn)
            && let Stage::Socket { ws, .. } = &mut c.stage
        {
            frame(ws, &mut c.out);
        }
        self.transmit(conn);
    }

    /// Decides on the request head received so far.
    fn answer_head(&mut self, now: Timestamp, conn: PageConnId) {
        let Some(c) = self.conns.get_mut(&conn) else {
            return;
        };
        let Stage::Head { head, .. } = &c.stage else {
            return;
        };
        match page_http::answer(head, self.port, &self.origins, &self.assets) {
            Answer::Partial => {}
            Answer::Close(bytes) => {
                c.out = bytes;
                c.stage = Stage::Answered { write_shut: false };
                self.outputs
                    .push_back(PageOutput::Linger { conn, since: now });
                self.transmit(conn);
            }
            Answer::Link(accepted) => {
                write_accept(&accepted, &mut c.out);
                let config = WsConfig {
                    accept_binary: true,
                    max_message_bytes: MAX_LINK_MESSAGE_BYTES,
                    ..WsConfig::default()
                };
                let mut ws = ServerSocket::new(config, now);
                ws.receive(&head[accepted.head_len..]);
                c.stage = Stage::Socket {
                    ws: Box::new(ws),
                    hello_by: Some(now.add_millis(HELLO_DEADLINE_MS)),
                };
                self.messages(now, conn);
            }
        }
    }

    /// Handles every complete message a link socket has buffered: the hello of a socket that
    /// has not linked yet, the requests and data of the linked one; a closing socket's messages
    /// are read, for its close handshake, and dropped.
    fn messages(&mut self, now: Timestamp, conn: PageConnId) {
        loop {
            let Some(c) = self.conns.get_mut(&conn) else {
                return;
            };
            let Stage::Socket { ws, hello_by } = &mut c.stage else {
                return;
            };
            let awaiting_hello = hello_by.is_some();
            let (text, binary) = match ws.poll_message(now, &mut c.out) {
                Some(Message::Text(text)) => (Some(text.to_owned()), None),
                Some(Message::Binary(bytes)) => (None, Some(bytes.to_vec())),
                None => break,
            };
            if awaiting_hello {
                self.hello(now, conn, text.as_deref());
            } else if self.link == Some(conn) {
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
        self.transmit(conn);
    }

    /// The first message on a link socket: links the page, or closes the socket saying why.
    fn hello(&mut self, now: Timestamp, conn: PageConnId, text: Option<&str>) {
        let verdict = self.session.hello(text, self.entropy);
        let Some(c) = self.conns.get_mut(&conn) else {
            return;
        };
        let Stage::Socket { ws, hello_by } = &mut c.stage else {
            return;
        };
        *hello_by = None;
        let linked = match verdict {
            Ok(linked) => linked,
            Err(refusal) => {
                ws.close(now, refusal.code, refusal.reason, &mut c.out);
                self.events.push(PageEvent::Refused {
                    reason: refusal.reason,
                });
                return;
            }
        };
        if self.link.is_some() {
            self.events.push(PageEvent::Replaced);
            self.close_link(now, REPLACED, "this tab reloaded, the link moved to it");
        }
        self.link = Some(conn);
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

    /// `conn`'s queue changed: a socket whose WebSocket finished is dropped (its last bytes
    /// written once), else its bytes are to be written.
    fn transmit(&mut self, conn: PageConnId) {
        let Some(c) = self.conns.get(&conn) else {
            return;
        };
        if let Stage::Socket { ws, .. } = &c.stage
            && ws.finished().is_some()
        {
            self.forget(conn, true);
        } else if !c.out.is_empty() {
            self.outputs.push_back(PageOutput::Transmit { conn });
        }
    }

    /// Forgets `conn` and has the pump close its socket, after its unsent bytes when
    /// `flush_last`; when it held the link, the page is unlinked.
    fn forget(&mut self, conn: PageConnId, flush_last: bool) {
        let Some(c) = self.conns.get_mut(&conn) else {
            return;
        };
        let last = if flush_last {
            std::mem::take(&mut c.out)
        } else {
            Vec::new()
        };
        self.outputs.push_back(PageOutput::Drop { conn, last });
        self.handle_closed(conn);
    }
}

#[cfg(test)]
mod tests;
