//! The engine: the connection table and its lifecycle, the public run-loop API and timers.
//! Serving messages is `dispatch`; what the engine sends unprompted is `push`.

use super::answers::SelectionAnswers;
use super::calls::PendingCalls;
use super::config::Config;
use super::connection::{Connection, HandshakeStep, Stage};
use super::error::EngineError;
use super::notify::Notifier;
use super::output::{CancelReason, CloseReason, ConnId, Event, Output, ToolCallId};
use crate::http::UpgradePolicy;
use crate::ide::{
    self, AtMentioned, EditorEvent, EditorState, StateChange, StateLimits, ToolOutcome,
};
use crate::time::Timestamp;
use crate::token::AuthToken;
use crate::ws::close_code;
use std::collections::{BTreeMap, VecDeque};

mod dispatch;
mod push;

/// The reason text the CLI reads as "a newer session took over: do not reconnect"
/// (PROTOCOL.md §2), sent with close code 4001.
pub const SUPERSEDED_REASON: &str = "Another Claude Code session connected to this IDE";

/// Close code sent with [`SUPERSEDED_REASON`].
pub const SUPERSEDED_CODE: u16 = 4001;

/// The IDE side of the Claude Code IDE protocol for one endpoint (one port, one lock file,
/// one workspace), serving any number of client connections. See the crate docs for the run
/// loop.
pub struct Engine {
    config: Config,
    token: AuthToken,
    tools_json: String,
    state: EditorState,
    /// The selection tools' answers for the current `state`.
    answers: SelectionAnswers,
    conns: BTreeMap<ConnId, Connection>,
    last_conn: u64,
    calls: PendingCalls,
    notifier: Notifier,
    outputs: VecDeque<Output>,
    /// Reused for every JSON message the engine writes.
    scratch: Vec<u8>,
    /// Reused for the connection ids a timer or a broadcast walks through.
    conn_ids: Vec<ConnId>,
    now: Timestamp,
}

impl Engine {
    /// An engine for `config`, admitting clients that present `token`.
    pub fn new(config: Config, token: AuthToken) -> Self {
        let limits = StateLimits {
            max_documents: config.max_documents,
            max_diagnostics: config.max_diagnostics,
        };
        let state = EditorState::new(config.path_style, config.workspace_folders.clone())
            .with_limits(limits);
        Engine {
            tools_json: ide::tools_json(config.execute_code),
            config,
            token,
            state,
            answers: SelectionAnswers::default(),
            conns: BTreeMap::new(),
            last_conn: 0,
            calls: PendingCalls::default(),
            notifier: Notifier::default(),
            outputs: VecDeque::new(),
            scratch: Vec::new(),
            conn_ids: Vec::new(),
            now: Timestamp::ZERO,
        }
    }

    /// The configuration in force.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The editor state the read tools are answered from.
    pub fn editor_state(&self) -> &EditorState {
        &self.state
    }

    /// The host accepted a transport connection. Returns its id; feed its bytes with
    /// [`handle_bytes`](Self::handle_bytes). Connections in the HTTP handshake have their own
    /// budget (`max_handshakes`): over it, the oldest handshake is answered 503 and its
    /// transport closed, so idle sockets can never keep an authenticated client out.
    pub fn handle_accept(&mut self, now: Timestamp) -> ConnId {
        self.advance(now);
        let budget = self.config.max_handshakes.max(1);
        let mut handshakes = self.conns.values().filter(|c| c.is_handshake()).count();
        while handshakes >= budget {
            let Some(oldest) = self
                .conns
                .iter()
                .find(|(_, c)| c.is_handshake())
                .map(|(id, _)| *id)
            else {
                break;
            };
            if let Some(c) = self.conns.get_mut(&oldest) {
                crate::http::write_rejection(
                    &crate::http::Rejection::TooManyConnections,
                    &mut c.out,
                );
            }
            self.finish(oldest, CloseReason::HandshakeEvicted);
            handshakes -= 1;
        }
        self.last_conn += 1;
        let id = ConnId(self.last_conn);
        let conn = Connection::new(self.now.add_millis(self.config.handshake_timeout_ms));
        self.conns.insert(id, conn);
        id
    }

    /// Bytes the host read from `conn`. Errors only for an unknown connection (host misuse);
    /// bytes for a connection that is closing are dropped.
    pub fn handle_bytes(
        &mut self,
        now: Timestamp,
        conn: ConnId,
        bytes: &[u8],
    ) -> Result<(), EngineError> {
        let now = self.advance(now);
        let policy = UpgradePolicy {
            port: self.config.port,
            auth_token: Some(&self.token),
            max_head_bytes: self.config.max_head_bytes,
        };
        let sessions = self.conns.values().filter(|c| c.is_session()).count();
        let slot_free = sessions < self.config.max_connections;
        let c = self
            .conns
            .get_mut(&conn)
            .ok_or(EngineError::UnknownConnection(conn))?;
        match &mut c.stage {
            Stage::Handshake(_) => {
                match c.feed_handshake(now, bytes, &policy, &self.config.ws, slot_free) {
                    HandshakeStep::Pending => {}
                    HandshakeStep::Rejected(reason) => self.finish(conn, reason),
                    HandshakeStep::Accepted { user_agent } => {
                        self.signal(conn);
                        self.outputs
                            .push_back(Output::Event(Event::Connected { conn, user_agent }));
                        self.pump(now, conn);
                    }
                }
            }
            Stage::Open(open) => {
                open.ws.receive(bytes);
                self.pump(now, conn);
            }
            Stage::Closing => {}
        }
        self.settle(conn);
        Ok(())
    }

    /// The host's transport for `conn` is gone: end of stream, a socket error, or the close
    /// the engine asked for. The engine forgets the connection; when it had not asked for the
    /// close, its pending requests are cancelled and `Closed` is reported.
    pub fn handle_closed(&mut self, now: Timestamp, conn: ConnId) -> Result<(), EngineError> {
        self.advance(now);
        let c = self
            .conns
            .get(&conn)
            .ok_or(EngineError::UnknownConnection(conn))?;
        if !matches!(c.stage, Stage::Closing) {
            self.end(conn, CloseReason::TransportClosed, false);
        }
        self.conns.remove(&conn);
        Ok(())
    }

    /// The host wants `conn` closed: an open client gets close code 1001 (going away) and a
    /// moment to answer it; anything else is closed at once.
    pub fn close(&mut self, now: Timestamp, conn: ConnId) -> Result<(), EngineError> {
        let now = self.advance(now);
        let c = self
            .conns
            .get_mut(&conn)
            .ok_or(EngineError::UnknownConnection(conn))?;
        match &mut c.stage {
            Stage::Open(open) => {
                open.close_cause.get_or_insert(CloseReason::ClosedByHost);
                open.ws.close(
                    now,
                    close_code::GOING_AWAY,
                    "the IDE is closing",
                    &mut c.out,
                );
                self.cancel_calls_of(conn, CancelReason::ClientGone);
                self.settle(conn);
            }
            Stage::Handshake(_) => self.finish(conn, CloseReason::ClosedByHost),
            Stage::Closing => {}
        }
        Ok(())
    }

    /// Closes every connection, as [`close`](Self::close) does (the editor is shutting down).
    pub fn shutdown(&mut self, now: Timestamp) {
        let ids: Vec<ConnId> = self.conns.keys().copied().collect();
        for id in ids {
            // Every id was just read from the table.
            let _ = self.close(now, id);
        }
    }

    /// The unsent bytes of `conn` (empty for an unknown connection). Write a prefix, then
    /// report its length with [`handle_sent`](Self::handle_sent).
    pub fn outbound(&self, conn: ConnId) -> &[u8] {
        self.conns.get(&conn).map_or(&[], |c| c.out.as_slice())
    }

    /// The host wrote the first `n` bytes of [`outbound`](Self::outbound). When the buffer is
    /// empty afterwards, the next byte queued emits a fresh `Transmit`.
    pub fn handle_sent(&mut self, conn: ConnId, n: usize) -> Result<(), EngineError> {
        let c = self
            .conns
            .get_mut(&conn)
            .ok_or(EngineError::UnknownConnection(conn))?;
        if n > c.out.len() {
            return Err(EngineError::SentMoreThanBuffered {
                conn,
                sent: n,
                buffered: c.out.len(),
            });
        }
        c.out.drain(..n);
        if c.out.is_empty() {
            c.transmit_signalled = false;
            if matches!(c.stage, Stage::Closing) {
                c.out = Vec::new();
            }
        }
        if c.held && c.out.len() <= self.config.max_outbound_bytes {
            // Back under the cap: serve the input that waited.
            c.held = false;
            let now = self.now;
            self.pump(now, conn);
            self.settle(conn);
        }
        Ok(())
    }

    /// An editor event: documents, selection, diagnostics, folders, a mention. Selection and
    /// active-document changes are sent to ready clients as `selection_changed` after the
    /// debounce; a mention goes to ready clients now, or waits for one.
    pub fn handle_editor_event(&mut self, now: Timestamp, event: &EditorEvent) {
        let now = self.advance(now);
        self.answers.invalidate();
        match self.state.apply(event) {
            StateChange::None | StateChange::FoldersChanged => {}
            StateChange::SelectionOrActiveChanged => {
                self.notifier
                    .selection_changed(now, self.config.selection_debounce_ms);
            }
            StateChange::Mention(mention) => {
                let written = self.write_notification(AtMentioned::METHOD, &mention);
                if !written || self.broadcast() == 0 {
                    let expires = now.add_millis(self.config.mention_ttl_ms);
                    self.notifier
                        .queue_mention(expires, mention, self.config.max_queued_mentions);
                }
            }
        }
    }

    /// The editor's answer to tool request `id`. Errors (leaving the engine unchanged) when the
    /// id is unknown or already answered or cancelled, or when the outcome does not fit the
    /// request (`DiffSaved` for an `openFile`, say).
    pub fn handle_tool_outcome(
        &mut self,
        now: Timestamp,
        id: ToolCallId,
        outcome: &ToolOutcome,
    ) -> Result<(), EngineError> {
        self.advance(now);
        let call = self.calls.get(id).ok_or(EngineError::UnknownToolCall(id))?;
        let result = ide::format_outcome(&call.request, outcome)
            .map_err(|mismatch| EngineError::OutcomeMismatch(id, mismatch))?;
        if let Some(call) = self.calls.remove(id) {
            self.answer(&call, &result);
        }
        Ok(())
    }

    /// Timers: handshake deadlines, keepalive, close waits, readiness, the selection debounce,
    /// mention expiry and tool deadlines. Call when [`poll_timeout`](Self::poll_timeout) comes
    /// (early or repeated calls are harmless).
    pub fn handle_timeout(&mut self, now: Timestamp) {
        let now = self.advance(now);
        let mut ids = self.take_conn_ids(|_| true);
        for &conn in &ids {
            self.conn_timeout(now, conn);
        }
        ids.clear();
        self.conn_ids = ids;
        for id in self.calls.expired(now) {
            if let Some(call) = self.calls.remove(id) {
                let waited = now.millis_since(call.started);
                let outcome = ide::deadline_outcome(&call.request, waited);
                if let Ok(result) = ide::format_outcome(&call.request, &outcome) {
                    self.answer(&call, &result);
                }
                self.cancelled(id, CancelReason::DeadlineExpired);
            }
        }
        if self.notifier.selection_due(now) {
            self.send_selection(None);
        }
        self.notifier.expire_mentions(now);
    }

    /// The next output, in causal order; `None` when there is nothing more until the next
    /// input.
    pub fn poll_output(&mut self) -> Option<Output> {
        self.outputs.pop_front()
    }

    /// When [`handle_timeout`](Self::handle_timeout) is next due, if ever.
    pub fn poll_timeout(&self) -> Option<Timestamp> {
        let conns = self.conns.values().filter_map(Connection::next_deadline);
        conns
            .chain(self.calls.next_deadline())
            .chain(self.notifier.next_deadline())
            .min()
    }

    /// Time never goes backwards inside the engine.
    fn advance(&mut self, now: Timestamp) -> Timestamp {
        self.now = self.now.max(now);
        self.now
    }

    fn conn_timeout(&mut self, now: Timestamp, conn: ConnId) {
        let Some(c) = self.conns.get_mut(&conn) else {
            return;
        };
        match &mut c.stage {
            Stage::Handshake(hs) if hs.deadline <= now => {
                self.finish(conn, CloseReason::HandshakeTimeout);
                return;
            }
            Stage::Open(open) => {
                open.ws.handle_timeout(now, &mut c.out);
                if open.ready_at.is_some_and(|at| at <= now) && !open.ready {
                    open.ready = true;
                    self.became_ready(conn);
                }
            }
            _ => {}
        }
        self.settle(conn);
    }

    /// After anything touched `conn`: signal new bytes, close it when its WebSocket finished or
    /// when the input it holds back (over the outbound cap) passed one message's worth.
    fn settle(&mut self, conn: ConnId) {
        self.signal(conn);
        let Some(c) = self.conns.get(&conn) else {
            return;
        };
        let held_input = match &c.stage {
            Stage::Open(open) if c.held => open.ws.buffered_input(),
            _ => 0,
        };
        if let Some(reason) = c.finished_reason() {
            self.finish(conn, reason);
        } else if held_input > self.config.ws.max_message_bytes {
            self.finish(conn, CloseReason::OutboundOverflow);
        }
    }

    /// Emits `Transmit` when `conn` has unsignalled bytes.
    fn signal(&mut self, conn: ConnId) {
        if let Some(c) = self.conns.get_mut(&conn)
            && !c.out.is_empty()
            && !c.transmit_signalled
        {
            c.transmit_signalled = true;
            self.outputs.push_back(Output::Transmit { conn });
        }
    }

    /// Ends `conn`: its pending calls are cancelled, the host is asked to close the transport
    /// (after flushing what is buffered) and `Closed` is reported.
    fn finish(&mut self, conn: ConnId, reason: CloseReason) {
        self.end(conn, reason, true);
    }

    /// Ends `conn`, asking the host to close the transport unless it is already gone.
    fn end(&mut self, conn: ConnId, reason: CloseReason, close_transport: bool) {
        self.signal(conn);
        let Some(c) = self.conns.get_mut(&conn) else {
            return;
        };
        if matches!(c.stage, Stage::Closing) {
            return;
        }
        c.stage = Stage::Closing;
        if reason == CloseReason::OutboundOverflow {
            c.out = Vec::new();
        }
        self.cancel_calls_of(conn, CancelReason::ClientGone);
        if close_transport {
            self.outputs.push_back(Output::CloseTransport { conn });
        }
        self.event(Event::Closed { conn, reason });
    }
}
