//! One transport connection as the engine sees it: upgrade, then WebSocket + MCP session.
//! It owns the steps down the stack for each client message (ws → rpc → mcp) and hands the
//! tool calls to the [`Service`].

use super::config::Config;
use super::output::{CloseReason, ConnId};
use super::service::{Effect, Service};
use super::writer::{Reply, Writer};
use crate::http::{self, Upgrade, UpgradePolicy};
use crate::mcp::{self, ClientInfo, Dispatch};
use crate::rpc;
use crate::time::Timestamp;
use crate::ws::{Finished, Message, ServerSocket, WsConfig};

/// A connection's unsent bytes and the stage it is in. Owned by the engine's connection table.
pub(crate) struct Connection {
    pub(crate) stage: Stage,
    /// Bytes waiting for the host to write them; drained from the front by `handle_sent`.
    pub(crate) out: Vec<u8>,
    /// A `Transmit` was emitted for the current non-empty run of `out`.
    transmit_signalled: bool,
    /// `out` passed the outbound cap while replies were queued: input waits until the host
    /// writes the buffer back under it.
    held: bool,
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
    pub(crate) client: Client,
    /// Why the engine started closing this connection, reported once the close completes.
    pub(crate) close_cause: Option<CloseReason>,
}

/// The MCP session on an open connection and what the engine learned of its client.
pub(crate) struct Client {
    mcp: mcp::Session,
    /// Set by `initialize`.
    info: Option<ClientInfo>,
    /// Set by `ide_connected`.
    pid: Option<u32>,
    /// When the client becomes ready for notifications (set by `notifications/initialized`).
    ready_at: Option<Timestamp>,
    ready: bool,
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
                    client: Client {
                        mcp: mcp::Session::new(),
                        info: None,
                        pid: None,
                        ready_at: None,
                        ready: false,
                    },
                    close_cause: None,
                }));
                HandshakeStep::Accepted {
                    user_agent: accepted.user_agent,
                }
            }
        }
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
        let effect = match open.ws.poll_message(now, &mut self.out)? {
            Message::Text(text) => {
                let step = Step {
                    now,
                    conn,
                    config,
                    tools_json,
                };
                open.client.serve(&step, text, service, writer)
            }
            Message::Binary(_) => Effect::None,
        };
        for json in writer.messages() {
            open.ws.send_text(json, &mut self.out);
        }
        Some(effect)
    }

    /// Sends one JSON-RPC message as a text frame. False when the connection cannot send
    /// (not upgraded, or closing).
    pub(crate) fn send_json(&mut self, json: &[u8]) -> bool {
        match &mut self.stage {
            Stage::Open(open) => open.ws.send_text(json, &mut self.out),
            _ => false,
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
    pub(crate) fn sent(&mut self, n: usize, cap: usize) -> Result<bool, usize> {
        if n > self.out.len() {
            return Err(self.out.len());
        }
        self.out.drain(..n);
        if self.out.is_empty() {
            self.transmit_signalled = false;
            if matches!(self.stage, Stage::Closing) {
                self.out = Vec::new();
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
        matches!(&self.stage, Stage::Open(open) if open.client.ready && !open.ws.is_closing())
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
                let ready = open.client.ready_deadline();
                [open.ws.poll_timeout(), ready].into_iter().flatten().min()
            }
            Stage::Closing => None,
        }
    }
}

/// What serving one message needs besides the session and the service.
struct Step<'a> {
    now: Timestamp,
    conn: ConnId,
    config: &'a Config,
    tools_json: &'a str,
}

impl Client {
    /// Serves one text message: JSON-RPC envelope, then the MCP session, then the tools.
    fn serve(
        &mut self,
        step: &Step<'_>,
        text: &str,
        service: &mut Service,
        writer: &mut Writer,
    ) -> Effect {
        let message = match rpc::parse(text, &step.config.rpc) {
            Ok(message) => message,
            Err(invalid) => {
                if invalid.reply {
                    match invalid.id {
                        Some(id) => writer.reply(id, &Reply::Error(invalid.error)),
                        None => writer.error_without_id(&invalid.error),
                    }
                }
                return Effect::None;
            }
        };
        match self
            .mcp
            .handle(message, &step.config.server_info, step.tools_json)
        {
            Dispatch::Reply { id, reply } => {
                let reply = match reply {
                    Ok(result) => Reply::Mcp(result),
                    Err(error) => Reply::Error(error),
                };
                writer.reply(id, &reply);
                Effect::None
            }
            Dispatch::Initialize { id, client, reply } => {
                writer.reply(id, &Reply::Mcp(reply));
                self.info = Some(client);
                Effect::Initialized
            }
            Dispatch::Initialized => {
                self.ready_at = Some(step.now.add_millis(step.config.ready_delay_ms));
                Effect::None
            }
            Dispatch::Notification { method, params } => {
                if method == "ide_connected" {
                    self.pid = params.and_then(ide_connected_pid);
                }
                Effect::None
            }
            Dispatch::Cancelled { request_id, .. } => service.cancelled(step.conn, request_id),
            Dispatch::ToolCall(call) => {
                service.tool_call(step.now, step.conn, call, step.config, writer)
            }
            Dispatch::Ignored => Effect::None,
        }
    }

    /// `clientInfo` from `initialize`, once it came.
    pub(crate) fn info(&self) -> Option<&ClientInfo> {
        self.info.as_ref()
    }

    /// The CLI's pid from `ide_connected`, once it came.
    pub(crate) fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// True once, when the readiness delay has run out at `now`: from then on the client
    /// receives notifications.
    pub(crate) fn become_ready(&mut self, now: Timestamp) -> bool {
        let due = !self.ready && self.ready_at.is_some_and(|at| at <= now);
        self.ready |= due;
        due
    }

    /// When the readiness delay runs out, while it runs.
    fn ready_deadline(&self) -> Option<Timestamp> {
        self.ready_at.filter(|_| !self.ready)
    }
}

/// The `pid` of an `ide_connected` notification (`{"pid": 1234}`), if well-formed.
fn ide_connected_pid(params: &serde_json::value::RawValue) -> Option<u32> {
    #[derive(serde::Deserialize)]
    struct IdeConnected {
        pid: u32,
    }
    serde_json::from_str::<IdeConnected>(params.get())
        .ok()
        .map(|p| p.pid)
}
