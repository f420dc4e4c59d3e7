//! One transport connection as the engine sees it: upgrade, then WebSocket + MCP session.

use super::output::CloseReason;
use crate::http::{self, Upgrade, UpgradePolicy};
use crate::mcp::{self, ClientInfo};
use crate::time::Timestamp;
use crate::ws::{Finished, ServerSocket, WsConfig};

/// A connection's unsent bytes and the stage it is in. Owned by the engine's connection table.
pub(crate) struct Connection {
    pub(crate) stage: Stage,
    /// Bytes waiting for the host to write them; drained from the front by `handle_sent`.
    pub(crate) out: Vec<u8>,
    /// A `Transmit` was emitted for the current non-empty run of `out`.
    pub(crate) transmit_signalled: bool,
    /// `out` passed the outbound cap while replies were queued: input waits until the host
    /// writes the buffer back under it.
    pub(crate) held: bool,
}

/// Where a connection is in its life.
pub(crate) enum Stage {
    /// Accepted; collecting the HTTP upgrade request.
    Handshake(Handshake),
    /// Upgraded: WebSocket frames carrying one MCP session.
    Open(Box<Open>),
    /// `CloseTransport` was emitted; only unsent bytes remain until the host reports the
    /// transport closed.
    Closing,
}

/// The upgrade request as it arrives.
pub(crate) struct Handshake {
    head: Vec<u8>,
    /// How far `head` was searched for the blank line that ends the request head.
    scanned: usize,
    pub(crate) deadline: Timestamp,
}

/// An upgraded connection.
pub(crate) struct Open {
    pub(crate) ws: ServerSocket,
    pub(crate) mcp: mcp::Session,
    /// Set by `initialize`.
    pub(crate) client: Option<ClientInfo>,
    /// Set by `ide_connected`.
    pub(crate) client_pid: Option<u32>,
    /// When the client becomes ready for notifications (set by `notifications/initialized`).
    pub(crate) ready_at: Option<Timestamp>,
    pub(crate) ready: bool,
    /// Why the engine started closing this connection, reported once the close completes.
    pub(crate) close_cause: Option<CloseReason>,
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
            out: Vec::new(),
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
                http::write_rejection(&rejection, &mut self.out);
                HandshakeStep::Rejected(CloseReason::UpgradeRejected {
                    status: rejection.status().as_u16(),
                    detail: rejection.to_string(),
                })
            }
            Upgrade::Accepted(_) if !session_slot_free => {
                http::write_rejection(&http::Rejection::TooManyConnections, &mut self.out);
                HandshakeStep::Rejected(CloseReason::TooManyConnections)
            }
            Upgrade::Accepted(accepted) => {
                http::write_accept(&accepted, &mut self.out);
                // This protocol is text only: binary messages are refused with 1003.
                let ws_config = WsConfig {
                    accept_binary: false,
                    ..ws_config.clone()
                };
                let mut ws = ServerSocket::new(ws_config, now);
                ws.receive(&hs.head[accepted.head_len..]);
                self.stage = Stage::Open(Box::new(Open {
                    ws,
                    mcp: mcp::Session::new(),
                    client: None,
                    client_pid: None,
                    ready_at: None,
                    ready: false,
                    close_cause: None,
                }));
                HandshakeStep::Accepted {
                    user_agent: accepted.user_agent,
                }
            }
        }
    }

    /// Sends one JSON-RPC message as a text frame. False when the connection cannot send
    /// (not upgraded, or closing).
    pub(crate) fn send_json(&mut self, json: &[u8]) -> bool {
        match &mut self.stage {
            Stage::Open(open) => open.ws.send_text(json, &mut self.out),
            _ => false,
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
        matches!(&self.stage, Stage::Open(open) if open.ready && !open.ws.is_closing())
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

    /// The earliest instant this connection needs `handle_timeout`.
    pub(crate) fn next_deadline(&self) -> Option<Timestamp> {
        match &self.stage {
            Stage::Handshake(hs) => Some(hs.deadline),
            Stage::Open(open) => {
                let ready = open.ready_at.filter(|_| !open.ready);
                [open.ws.poll_timeout(), ready].into_iter().flatten().min()
            }
            Stage::Closing => None,
        }
    }
}
