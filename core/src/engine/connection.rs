//! One transport connection as the engine sees it: upgrade, then WebSocket + MCP session.
//! It takes each client message off the WebSocket and hands its text to the [`Client`]
//! (rpc → mcp → the [`Service`]'s tools), then frames the replies.

use super::client::{Client, Step};
use super::config::Config;
use super::outbound::Outbound;
use super::output::{CloseReason, ConnId};
use super::service::{Effect, Service};
use super::writer::Writer;
use crate::http::{self, Upgrade, UpgradePolicy};
use crate::time::Timestamp;
use crate::ws::{Finished, MAX_HEADER, Message, ServerSocket, WsConfig};

/// A connection's unsent bytes and the stage it is in. Owned by the engine's connection table.
pub(crate) struct Connection {
    stage: Stage,
    /// Bytes waiting for the host to write them; taken from the front by `handle_sent`.
    out: Outbound,
    /// A `Transmit` was emitted for the current non-empty run of `out`.
    transmit_signalled: bool,
    /// `out` passed the outbound cap while replies were queued: input waits until the host
    /// writes the buffer back under it.
    held: bool,
}

/// Where a connection is in its life.
enum Stage {
    /// Accepted; collecting the HTTP upgrade request.
    Handshake(Handshake),
    /// Upgraded: WebSocket frames carrying one MCP session.
    Open(Box<Open>),
    /// `CloseTransport` was emitted; only unsent bytes remain until the host reports the
    /// transport closed.
    Closing,
}

/// The upgrade request as it arrives.
struct Handshake {
    head: Vec<u8>,
    /// How far `head` was searched for the blank line that ends the request head.
    scanned: usize,
    deadline: Timestamp,
}

/// An upgraded connection.
struct Open {
    ws: ServerSocket,
    client: Client,
    /// Why the engine started closing this connection, reported once the close completes.
    close_cause: Option<CloseReason>,
}

/// What one chunk of handshake bytes led to.
pub(crate) enum HandshakeStep {
    /// The request head is not complete yet.
    Pending,
    /// Upgraded: the 101 answer is in `out`, and bytes behind the head went to the socket.
    Accepted { user_agent: Option<String> },
    /// Refused: the complete error response is in `out`.
    Rejected(CloseReason),
}

impl Connection {
    pub(crate) fn new(handshake_deadline: Timestamp) -> Self {
        Connection {
            stage: Stage::Handshake(Handshake {
                head: Vec::new(),
                scanned: 0,
                deadline: handshake_deadline,
            }),
            out: Outbound::default(),
            transmit_signalled: false,
            held: false,
        }
    }

    /// Feeds upgrade bytes. Parses only once the blank line that ends a head has arrived (or
    /// the cap is passed), so a client trickling bytes costs a scan, not a parse, per chunk.
    /// A valid upgrade is answered 503 instead of 101 when `session_slot_free` is false.
    pub(crate) fn feed_handshake(
        &mut self,
        now: Timestamp,
        bytes: &[u8],
        policy: &UpgradePolicy<'_>,
        ws_config: &WsConfig,
        session_slot_free: bool,
    ) -> HandshakeStep {
        let Stage::Handshake(hs) = &mut self.stage else {
            return HandshakeStep::Pending;
        };
        hs.head.extend_from_slice(bytes);
        let from = hs.scanned.saturating_sub(3);
        let complete = hs.head[from..].windows(4).any(|w| w == b"\r\n\r\n");
        hs.scanned = hs.head.len();
        if !complete && hs.head.len() <= policy.max_head_bytes {
            return HandshakeStep::Pending;
        }
        match http::parse_upgrade(&hs.head, policy) {
            Upgrade::Partial => HandshakeStep::Pending,
            Upgrade::Rejected(rejection) => {
                http::write_rejection(&rejection, self.out.buf_mut());
                HandshakeStep::Rejected(CloseReason::UpgradeRejected {
                    status: rejection.status().as_u16(),
                    detail: rejection.to_string(),
                })
            }
            Upgrade::Accepted(_) if !session_slot_free => {
                http::write_rejection(&http::Rejection::TooManyConnections, self.out.buf_mut());
                HandshakeStep::Rejected(CloseReason::TooManyConnections)
            }
            Upgrade::Accepted(accepted) => {
                http::write_accept(&accepted, self.out.buf_mut());
                // This protocol is text only: binary messages are refused with 1003.
                let ws_config = WsConfig {
                    accept_binary: false,
                    ..ws_config.clone()
                };
                let mut ws = ServerSocket::new(ws_config, now);
                ws.receive(&hs.head[accepted.head_len..]);
                self.stage = Stage::Open(Box::new(Open {
                    ws,
                    client: Client::new(now),
                    close_cause: None,
                }));
                HandshakeStep::Accepted {
                    user_agent: accepted.user_agent,
                }
            }
        }
    }

    /// The unsent bytes, oldest first.
    pub(crate) fn outbound(&self) -> &[u8] {
        self.out.unsent()
    }

    /// True when more than `cap` bytes wait to be written.
    pub(crate) fn is_over(&self, cap: usize) -> bool {
        self.out.len() > cap
    }

    /// Answers a connection still in the handshake 503 (RFC 9110 §15.6.4): a newer handshake
    /// takes its place in the budget.
    pub(crate) fn reject_busy(&mut self) {
        http::write_rejection(&http::Rejection::TooManyConnections, self.out.buf_mut());
    }

    /// Buffers bytes read from an upgraded connection for its WebSocket; false (bytes dropped)
    /// when it is not upgraded or already ended.
    pub(crate) fn receive(&mut self, bytes: &[u8]) -> bool {
        let Stage::Open(open) = &mut self.stage else {
            return false;
        };
        open.ws.receive(bytes);
        true
    }

    /// True when the connection is in the handshake and its deadline has passed at `now`.
    pub(crate) fn handshake_expired(&self, now: Timestamp) -> bool {
        matches!(&self.stage, Stage::Handshake(hs) if hs.deadline <= now)
    }

    /// Runs the WebSocket's timers (keepalive, close handshake) at `now` on an upgraded
    /// connection; true once, when its client becomes ready for notifications then.
    pub(crate) fn handle_timeout(&mut self, now: Timestamp) -> bool {
        let Stage::Open(open) = &mut self.stage else {
            return false;
        };
        open.ws.handle_timeout(now, self.out.buf_mut());
        open.client.roots_mut().timeout(now);
        open.client.become_ready(now)
    }

    /// Starts closing an upgraded connection with `code` and `reason` (RFC 6455 §7.1.2);
    /// `Closed` will report `ClosedByHost` unless the engine was already closing it for
    /// another cause. False when it is not upgraded or already ended.
    pub(crate) fn close_by_host(&mut self, now: Timestamp, code: u16, reason: &str) -> bool {
        let Stage::Open(open) = &mut self.stage else {
            return false;
        };
        open.close_cause.get_or_insert(CloseReason::ClosedByHost);
        open.ws.close(now, code, reason, self.out.buf_mut());
        true
    }

    /// Starts closing an upgraded connection with `code` and `reason` because another client
    /// took the session: `Closed` will report `Superseded`. Nothing for other stages.
    pub(crate) fn supersede(&mut self, now: Timestamp, code: u16, reason: &str) {
        if let Stage::Open(open) = &mut self.stage {
            open.close_cause = Some(CloseReason::Superseded);
            open.ws.close(now, code, reason, self.out.buf_mut());
        }
    }

    /// The client of an upgraded connection.
    pub(crate) fn client(&self) -> Option<&Client> {
        match &self.stage {
            Stage::Open(open) => Some(&open.client),
            _ => None,
        }
    }

    /// The client of an upgraded connection, to change.
    pub(crate) fn client_mut(&mut self) -> Option<&mut Client> {
        match &mut self.stage {
            Stage::Open(open) => Some(&mut open.client),
            _ => None,
        }
    }

    /// Ends the connection: it only keeps its unsent bytes, or none when `discard_unsent`.
    pub(crate) fn end(&mut self, discard_unsent: bool) {
        self.stage = Stage::Closing;
        if discard_unsent {
            self.out.release();
        }
    }

    /// True once the connection was ended.
    pub(crate) fn is_closing(&self) -> bool {
        matches!(self.stage, Stage::Closing)
    }

    /// Serves the next complete message buffered on this connection: decodes it (ws → rpc →
    /// mcp), writes its replies (to `writer`, then as text frames to `out`) and returns what
    /// follows for the engine. `None` when no complete message is buffered or the connection
    /// is not open.
    pub(crate) fn serve_next(
        &mut self,
        now: Timestamp,
        conn: ConnId,
        config: &Config,
        tools_json: &str,
        service: &mut Service,
        writer: &mut Writer,
    ) -> Option<Effect> {
        let Stage::Open(open) = &mut self.stage else {
            return None;
        };
        writer.clear();
        let effect = match open.ws.poll_message(now, self.out.buf_mut())? {
            Message::Text(text) => {
                let step = Step::new(now, conn, config, tools_json);
                open.client.serve(&step, text, service, writer)
            }
            Message::Binary(_) => Effect::None,
        };
        self.send_written(writer);
        Some(effect)
    }

    /// Sends the messages `writer` holds, each as a text frame, to this connection alone. A
    /// lone message with nothing else unsent is framed where it lies and its buffer taken
    /// whole, the writer given this connection's empty one: a big answer is not copied. Does
    /// nothing when the connection cannot send (not upgraded, or closing).
    pub(crate) fn send_written(&mut self, writer: &mut Writer) {
        let Stage::Open(open) = &mut self.stage else {
            return;
        };
        let ws = &open.ws;
        if self
            .out
            .swap_in(|buf| writer.take_framed(|len| ws.text_header(len), buf))
        {
            return;
        }
        self.send_copies(writer);
    }

    /// Sends the messages `writer` holds, each as a text frame, copied (the writer keeps them
    /// for other connections). Does nothing when the connection cannot send (not upgraded,
    /// or closing).
    pub(crate) fn send_copies(&mut self, writer: &Writer) {
        let Stage::Open(open) = &mut self.stage else {
            return;
        };
        for json in writer.messages() {
            // Room for the frame at once: a big message is copied once, not regrown.
            self.out.buf_mut().reserve(json.len() + MAX_HEADER);
            open.ws.send_text(json, self.out.buf_mut());
        }
    }

    /// True once for each run of unsent bytes: the host must be told to write them.
    pub(crate) fn take_transmit_signal(&mut self) -> bool {
        let signal = !self.out.is_empty() && !self.transmit_signalled;
        self.transmit_signalled |= signal;
        signal
    }

    /// The host wrote the first `n` bytes of `out` (`Err` with what is buffered when `n` is
    /// more). True when this brought a connection whose input waited back to `cap`: its input
    /// may be served again.
    pub(crate) fn sent(
        &mut self,
        n: usize,
        cap: usize,
        writer: &mut Writer,
    ) -> Result<bool, usize> {
        if n > self.out.len() {
            return Err(self.out.len());
        }
        if let Some(big) = self.out.consume(n) {
            writer.offer(big);
        }
        if self.out.is_empty() {
            self.transmit_signalled = false;
            if matches!(self.stage, Stage::Closing) {
                self.out.release();
            }
        }
        let resume = self.held && self.out.len() <= cap;
        self.held &= !resume;
        Ok(resume)
    }

    /// Stops serving input while `out` is over `cap`; true when it is.
    pub(crate) fn hold_if_over(&mut self, cap: usize) -> bool {
        self.held |= self.out.len() > cap;
        self.held
    }

    /// The input buffered while serving waits for the host to write (0 when not waiting).
    pub(crate) fn held_input(&self) -> usize {
        match &self.stage {
            Stage::Open(open) if self.held => open.ws.buffered_input(),
            _ => 0,
        }
    }

    /// True while the connection is in the HTTP handshake.
    pub(crate) fn is_handshake(&self) -> bool {
        matches!(self.stage, Stage::Handshake(_))
    }

    /// True for an upgraded connection not yet told to close: a session holding a slot.
    pub(crate) fn is_session(&self) -> bool {
        matches!(self.stage, Stage::Open(_))
    }

    /// A ready client: one that receives notifications.
    pub(crate) fn is_ready(&self) -> bool {
        matches!(&self.stage, Stage::Open(open) if open.client.is_ready() && !open.ws.is_closing())
    }

    /// The reason to report when the WebSocket says the transport must close now.
    pub(crate) fn finished_reason(&self) -> Option<CloseReason> {
        let Stage::Open(open) = &self.stage else {
            return None;
        };
        let finished = open.ws.finished()?;
        Some(match (&open.close_cause, finished) {
            (Some(cause), _) => cause.clone(),
            (None, Finished::PeerClosed { code, reason }) => CloseReason::PeerClosed {
                code: *code,
                reason: reason.clone(),
            },
            (None, Finished::Failed { code, reason }) => CloseReason::ProtocolViolation {
                code: *code,
                detail: (*reason).to_owned(),
            },
            (None, Finished::KeepaliveTimeout) => CloseReason::KeepaliveTimeout,
            (None, Finished::CloseTimeout) => CloseReason::CloseTimeout,
        })
    }

    /// The earliest instant this connection needs `handle_timeout` (`ready_delay_ms`: the
    /// engine's readiness delay, which the client's held mentions count with).
    pub(crate) fn next_deadline(&self, ready_delay_ms: u64) -> Option<Timestamp> {
        match &self.stage {
            Stage::Handshake(hs) => Some(hs.deadline),
            Stage::Open(open) => {
                let ready = open.client.ready_deadline();
                let startup = open.client.startup().next_deadline(ready_delay_ms);
                let roots = open.client.roots().deadline();
                [open.ws.poll_timeout(), ready, startup, roots]
                    .into_iter()
                    .flatten()
                    .min()
            }
            Stage::Closing => None,
        }
    }
}
