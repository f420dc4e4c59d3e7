//! The engine: the connection table and its lifecycle, the public run-loop API, timers, and
//! what serving a message leads to. Connections serve their own messages (`connection`), tool
//! calls are served from the `Service`; what the engine sends unprompted is `push`.

use super::calls::PendingCall;
use super::config::{Config, SessionPolicy};
use super::connection::{Connection, HandshakeStep};
use super::error::EngineError;
use super::output::{CancelReason, CloseReason, ConnId, EngineEvent, Output, ToolCallId};
use super::push_schedule::PushSchedule;
use super::service::{Effect, Service};
use super::sessions::SessionChoice;
use super::table::Connections;
use super::writer::{Reply, Writer};
use crate::host_rules::HandshakeBudget;
use crate::http::UpgradePolicy;
use crate::ide::{
    self, EditorEvent, EditorState, StateChange, StateLimits, ToolOutcome, ToolRequest,
};
use crate::path_map::PathMap;
use crate::policy::ContextPolicy;
use crate::policy::gate::Gate;
use crate::rpc::RpcError;
use crate::snapshot::SnapshotTracker;
use crate::time::Timestamp;
use crate::token::AuthToken;
use crate::ws::close_code;

mod ledger;
mod ledger_paths;
mod push;
mod route;
mod snapshot;

/// The reason text the CLI reads as "a newer session took over: do not reconnect"
/// (docs/protocol.md §2), sent with close code 4001.
pub const SUPERSEDED_REASON: &str = "Another Claude Code session connected to this IDE";

/// Close code sent with [`SUPERSEDED_REASON`].
pub const SUPERSEDED_CODE: u16 = 4001;

/// The answer to a read pulled from the editor that missed `tool_deadline_ms`: a JSON-RPC
/// error, neither an error result nor the engine's state. Measured with the CLI 2.1.332
/// (docs/protocol.md §4): for either kind of error its own `getDiagnostics` call fails and it
/// takes no diagnostics baseline, but it logs an error result as an IDE error; an answer from
/// the state (empty for an editor that pulls) becomes a baseline that later reports the
/// file's old diagnostics to the model as caused by its edit.
fn read_deadline_error(waited_ms: u64) -> RpcError {
    RpcError::new(
        RpcError::EDITOR_TIMEOUT,
        format!("the editor did not answer within {waited_ms} ms"),
    )
}

/// True when `outcome` accepts `call`'s `openDiff` proposal with its text unchanged: the
/// CLI's `TAB_CLOSED` (it then writes the proposal, its bundled code:
/// `if(Ht(N))return T(),{oldContent:D,newContent:P,saved:!1}`), a far smaller answer than
/// `FILE_SAVED` with the whole text, for the same file.
fn accepts_proposal_unchanged(call: &PendingCall, outcome: &ToolOutcome) -> bool {
    match (&call.proposal, outcome) {
        (Some(proposal), ToolOutcome::DiffSaved { final_text, .. }) => proposal.matches(final_text),
        _ => false,
    }
}

/// The IDE side of the Claude Code IDE protocol for one endpoint (one port, one lock file,
/// one workspace), serving any number of client connections. See the crate docs for the run
/// loop.
///
/// Its methods, by kind (quinn-proto's order):
/// - getters: [`config`](Self::config), [`editor_state`](Self::editor_state),
///   [`outbound`](Self::outbound), [`sessions`](Self::sessions),
///   [`session_choice`](Self::session_choice);
/// - inputs, each taking `now`: [`handle_accept`](Self::handle_accept),
///   [`handle_bytes`](Self::handle_bytes), [`handle_sent`](Self::handle_sent),
///   [`handle_closed`](Self::handle_closed), [`handle_editor_event`](Self::handle_editor_event),
///   [`handle_snapshot`](Self::handle_snapshot),
///   [`handle_tool_outcome`](Self::handle_tool_outcome),
///   [`handle_timeout`](Self::handle_timeout);
/// - commands: [`close`](Self::close), [`shutdown`](Self::shutdown),
///   [`choose_session`](Self::choose_session);
/// - outputs: [`poll_output`](Self::poll_output), then [`poll_timeout`](Self::poll_timeout).
///
/// The poll order: after every input or command, call `poll_output` until it returns `None`
/// (performing each output: a `Transmit` is written with `outbound` and reported with
/// `handle_sent`, which may queue more outputs: keep polling), then `poll_timeout` for the
/// next deadline, and call `handle_timeout` when it comes.
pub struct Engine {
    config: Config,
    token: AuthToken,
    tools_json: String,
    /// The editor state, its rendered selection and the calls pending with the editor.
    service: Service,
    /// The connections and the outputs for the host.
    conns: Connections,
    pushes: PushSchedule,
    /// The previous snapshot, for [`handle_snapshot`](Self::handle_snapshot).
    snapshots: SnapshotTracker,
    /// Writes every JSON-RPC message the engine sends.
    writer: Writer,
    /// The session the host chose ([`choose_session`](Self::choose_session)).
    choice: Option<SessionChoice>,
    /// The last `selection_changed` broadcast was the "no file" of a selection the context
    /// policy withheld: the next withheld one sends nothing more.
    withheld_blank: bool,
    /// [`Config::path_map`], parsed: the engine's edges map through it when it is active.
    paths: PathMap,
    now: Timestamp,
    /// The turn ledger and the reads and writes the host owes it.
    ledger: ledger::LedgerIo,
}

impl Engine {
    /// An engine for `config`, admitting clients that present `token`.
    pub fn new(config: Config, token: AuthToken) -> Self {
        let limits = StateLimits {
            max_documents: config.max_documents,
            max_diagnostics: config.max_diagnostics,
        };
        let paths = PathMap::parse_or_refuse(&config.path_map);
        let folders = if paths.is_active() {
            paths.folders(&config.workspace_folders)
        } else {
            config.workspace_folders.clone()
        };
        let state = EditorState::new(config.path_style, folders).with_limits(limits);
        let gate = Gate::new(
            paths.policy_to_remote(&config.policy),
            state.workspace_folders(),
            config.path_style,
        );
        let ledger_limits = crate::ledger::LedgerLimits {
            max_bytes: config.max_ledger_bytes,
            max_file_bytes: config.max_ledger_file_bytes,
        };
        Engine {
            tools_json: ide::tools_json(config.execute_code),
            snapshots: SnapshotTracker::new(&config.workspace_folders),
            writer: Writer::new(config.max_client_message_bytes),
            config,
            token,
            service: Service::new(state, gate),
            conns: Connections::default(),
            pushes: PushSchedule::default(),
            choice: None,
            withheld_blank: false,
            paths,
            now: Timestamp::ZERO,
            ledger: ledger::LedgerIo::new(ledger_limits),
        }
    }

    /// The configuration in force.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The editor state the read tools are answered from.
    pub fn editor_state(&self) -> &EditorState {
        self.service.state()
    }

    /// The unsent bytes of `conn` (empty for an unknown connection). Write a prefix, then
    /// report its length with [`handle_sent`](Self::handle_sent).
    pub fn outbound(&self, conn: ConnId) -> &[u8] {
        self.conns.get(conn).map_or(&[], Connection::outbound)
    }

    /// The host accepted a transport connection. Returns its id; feed its bytes with
    /// [`handle_bytes`](Self::handle_bytes). Connections in the HTTP handshake have their own
    /// budget (`max_handshakes`): over it, the oldest handshake is answered 503 and its
    /// transport closed, so idle sockets can never keep an authenticated client out.
    pub fn handle_accept(&mut self, now: Timestamp) -> ConnId {
        self.advance(now);
        let budget = HandshakeBudget::new(self.config.max_handshakes);
        for _ in 0..budget.evictions_to_admit(self.conns.handshakes()) {
            let Some(oldest) = self.conns.oldest_handshake() else {
                break;
            };
            if let Some(c) = self.conns.get_mut(oldest) {
                c.reject_busy();
            }
            self.finish(oldest, CloseReason::HandshakeEvicted);
        }
        self.conns
            .accept(self.now.add_millis(self.config.handshake_timeout_ms))
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
            bridge_port: self.config.bridge_port,
            ..UpgradePolicy::claude(self.config.port, &self.token, self.config.max_head_bytes)
        };
        let sessions = self.conns.sessions();
        let slot_free = sessions < self.config.max_connections;
        let c = self
            .conns
            .get_mut(conn)
            .ok_or(EngineError::UnknownConnection(conn))?;
        if c.is_handshake() {
            match c.feed_handshake(now, bytes, &policy, &self.config.ws, slot_free) {
                HandshakeStep::Pending => {}
                HandshakeStep::Rejected(reason) => self.finish(conn, reason),
                HandshakeStep::Accepted { user_agent } => {
                    self.conns.signal(conn);
                    self.conns
                        .event(EngineEvent::Connected { conn, user_agent });
                    self.pump(now, conn);
                }
            }
        } else if c.receive(bytes) {
            self.pump(now, conn);
        }
        self.settle(conn);
        self.report_withheld();
        Ok(())
    }

    /// A remote link's bridge said its loopback port ([`Config::bridge_port`]): its clients'
    /// `Host` names it from now on. Called by [`crate::link::LinkAttach`] on the bridge's hello,
    /// before the bridge can open a connection.
    pub(crate) fn accept_bridge_port(&mut self, port: u16) {
        self.config.bridge_port = port;
    }

    /// The host's transport for `conn` is gone: end of stream, a socket error, or the close
    /// the engine asked for. The engine forgets the connection; when it had not asked for the
    /// close, its pending requests are cancelled and `Closed` is reported.
    pub fn handle_closed(&mut self, now: Timestamp, conn: ConnId) -> Result<(), EngineError> {
        self.advance(now);
        self.conns
            .get(conn)
            .ok_or(EngineError::UnknownConnection(conn))?;
        if self.conns.is_live(conn) {
            self.end(conn, CloseReason::TransportClosed, false);
        }
        self.conns.remove(conn);
        Ok(())
    }

    /// The host wrote the first `n` bytes of [`outbound`](Self::outbound). When the buffer is
    /// empty afterwards, the next byte queued emits a fresh `Transmit`. When it brings a
    /// connection whose input waited (over `max_outbound_bytes`) back under the cap, that input
    /// is served now: drain [`poll_output`](Self::poll_output) afterwards.
    pub fn handle_sent(&mut self, conn: ConnId, n: usize) -> Result<(), EngineError> {
        let c = self
            .conns
            .get_mut(conn)
            .ok_or(EngineError::UnknownConnection(conn))?;
        let resume = c
            .sent(n, self.config.max_outbound_bytes, &mut self.writer)
            .map_err(|buffered| EngineError::SentMoreThanBuffered {
                conn,
                sent: n,
                buffered,
            })?;
        if resume {
            // Back under the cap: serve the input that waited.
            let now = self.now;
            self.pump(now, conn);
            self.settle(conn);
            self.report_withheld();
        }
        Ok(())
    }

    /// An editor event: documents, selection, diagnostics, folders, a mention. Selection and
    /// active-document changes are sent to ready clients as `selection_changed` after the
    /// debounce; a mention goes to ready clients now, or waits for one.
    ///
    /// With a [`Config::path_map`], the event's paths become claude's first; an event naming a
    /// path outside every mapping is withheld (claude has no name for that file).
    pub fn handle_editor_event(&mut self, now: Timestamp, event: &EditorEvent) {
        if !self.paths.is_active() {
            return self.editor_event(now, event);
        }
        match self.paths.event_to_remote(event) {
            Some(mapped) => self.editor_event(now, &mapped),
            None => {
                self.advance(now);
            }
        }
    }

    /// [`handle_editor_event`](Self::handle_editor_event), in claude's paths.
    fn editor_event(&mut self, now: Timestamp, event: &EditorEvent) {
        let now = self.advance(now);
        match event {
            EditorEvent::PolicyChanged { policy } => {
                self.set_policy(now, policy.clone());
                return;
            }
            EditorEvent::SharingPaused { paused } => {
                let policy = ContextPolicy {
                    paused: *paused,
                    ..self.config.policy.clone()
                };
                self.set_policy(now, policy);
                return;
            }
            EditorEvent::ProposalDiagnosticsChanged { call, diagnostics } => {
                let max = self.config.max_diagnostics;
                let call = ToolCallId::from_u64(*call);
                self.service.proposal_diagnostics(call, diagnostics, max);
                return;
            }
            EditorEvent::DiagnosticsChanged { path, .. } => {
                let path = ide::normalize_path(path, self.config.path_style).into_owned();
                self.service.file_diagnostics_changed(&path);
            }
            _ => {}
        }
        match self.service.apply(event) {
            StateChange::None => {}
            StateChange::FoldersChanged => self.service.folders_changed(),
            StateChange::SelectionOrActiveChanged => {
                self.pushes
                    .selection_changed(now, self.config.selection_debounce_ms);
            }
            StateChange::Mention(mention) => {
                let expires = now.add_millis(self.config.mention_ttl_ms);
                self.push_mention(expires, mention);
            }
        }
        self.report_withheld();
    }

    /// Replaces the context policy ([`Config::policy`]; also
    /// [`EditorEvent::PolicyChanged`]): every ready client hears the current selection as the
    /// new policy lets it out, at once ("no file" when it withholds it).
    pub fn set_policy(&mut self, now: Timestamp, policy: ContextPolicy) {
        self.advance(now);
        self.service
            .set_policy(self.paths.policy_to_remote(&policy));
        self.config.policy = policy;
        // A start-up repeat must not send again what the new policy withholds.
        for conn in self.conns.all_ids() {
            if let Some(client) = self.conns.get_mut(conn).and_then(Connection::client_mut) {
                client.forget_routed_selection();
            }
        }
        self.send_selection(None);
        self.report_withheld();
    }

    /// The context policy in force.
    pub fn policy(&self) -> &ContextPolicy {
        &self.config.policy
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
        let mapped;
        let outcome = if self.paths.is_active() {
            mapped = self.paths.outcome_to_remote(outcome);
            &mapped
        } else {
            outcome
        };
        let style = self.config.path_style;
        // A pulled read's answer borrows the request and the outcome: it is written before
        // the call is removed.
        let (call, answered) = self
            .service
            .answered(id, outcome, style)
            .ok_or(EngineError::UnknownToolCall(id))?
            .map_err(|mismatch| EngineError::OutcomeMismatch(id, mismatch))?;
        let tool = call.request.tool();
        let reply = match &answered {
            ide::Answered::Read(answer) => Reply::Answer(tool, answer),
            ide::Answered::Tool(result) => Reply::Tool(tool, result),
        };
        self.writer.clear();
        let rpc_id = call.rpc_id.as_borrowed();
        // Whether the client is told of an accept: an error in its place tells it nothing.
        let mut accepted = matches!(outcome, ToolOutcome::DiffSaved { .. });
        if let Err(bytes) = self.writer.reply_within(rpc_id, &reply) {
            if accepts_proposal_unchanged(call, outcome) {
                self.writer.tab_closed_in_place_of(rpc_id, bytes);
            } else {
                self.writer.reply_refused(rpc_id, &reply, bytes);
                accepted = false;
            }
        }
        let conn = call.conn;
        let diff_path = match &call.request {
            ToolRequest::OpenDiff { new_file_path, .. } if accepted => Some(new_file_path.clone()),
            _ => None,
        };
        let rules = self
            .conns
            .get(call.conn)
            .and_then(|c| c.client())
            .and_then(|c| c.info())
            .map_or(ide::WriteRules::CURRENT, |info| {
                ide::WriteRules::for_version(&info.version)
            });
        // An accept answered by an error in its place is no write by the client.
        let replaced = (accepted && !call.saved_while_pending)
            .then(|| ide::file_replaced(&call.request, outcome, rules))
            .flatten();
        drop(answered);
        self.service.calls_mut().remove(id);
        self.service.call_answered(id, accepted);
        self.send_written(conn);
        self.report_too_large(Some(conn));
        if let Some(path) = diff_path {
            let text = replaced.as_ref().map(|(_, text)| text.as_str());
            self.ledger_diff_accepted(conn, &path, text);
        }
        if let Some((path, text)) = replaced {
            self.conns
                .event(EngineEvent::FileReplaced { id, path, text });
        }
        self.report_withheld();
        Ok(())
    }

    /// Timers: handshake deadlines, keepalive, close waits, readiness, the selection debounce,
    /// mention expiry and tool deadlines. Call when [`poll_timeout`](Self::poll_timeout) comes
    /// (early or repeated calls are harmless).
    pub fn handle_timeout(&mut self, now: Timestamp) {
        let now = self.advance(now);
        // A debounced selection due now goes to every ready client: a start-up repeat due at
        // the same time would only send it twice.
        let selection_due = self.pushes.selection_due(now);
        let ids = self.conns.take_ids(|_, _| true);
        for &conn in &ids {
            self.conn_timeout(now, conn, selection_due);
        }
        self.conns.give_back(ids);
        for id in self.service.calls().expired(now) {
            if let Some(call) = self.service.calls_mut().remove(id) {
                let waited = now.millis_since(call.started);
                if call.request.is_read() {
                    self.send_call_reply(&call, &Reply::Error(read_deadline_error(waited)));
                } else {
                    let outcome = ide::deadline_outcome(&call.request, waited);
                    if let Ok(result) =
                        ide::format_outcome(&call.request, &outcome, self.config.path_style)
                    {
                        let tool = call.request.tool();
                        self.send_call_reply(&call, &Reply::Tool(tool, &result));
                    }
                }
                self.conns.cancelled(id, CancelReason::DeadlineExpired);
            }
        }
        if selection_due {
            self.send_selection(None);
        }
        self.pushes.expire_mentions(now);
        self.report_withheld();
        self.ledger_timeouts(now);
    }

    /// The host wants `conn` closed: an open client gets close code 1001 (going away) and a
    /// moment to answer it; anything else is closed at once.
    pub fn close(&mut self, now: Timestamp, conn: ConnId) -> Result<(), EngineError> {
        let now = self.advance(now);
        let c = self
            .conns
            .get_mut(conn)
            .ok_or(EngineError::UnknownConnection(conn))?;
        if c.is_handshake() {
            self.finish(conn, CloseReason::ClosedByHost);
        } else if c.close_by_host(now, close_code::GOING_AWAY, "the IDE is closing") {
            self.cancel_calls_of(conn, CancelReason::ClientGone);
            self.settle(conn);
        }
        Ok(())
    }

    /// Closes every connection, as [`close`](Self::close) does (the editor is shutting down).
    pub fn shutdown(&mut self, now: Timestamp) {
        for id in self.conns.all_ids() {
            // Every id was just read from the table.
            let _ = self.close(now, id);
        }
    }

    /// The next output, in causal order; `None` when there is nothing more until the next
    /// input.
    #[must_use = "every output must be performed: poll until None after each input"]
    pub fn poll_output(&mut self) -> Option<Output> {
        match self.conns.poll_output()? {
            Output::Event(event) if self.paths.is_active() => {
                Some(Output::Event(self.paths.engine_event_to_local(event)))
            }
            output => Some(output),
        }
    }

    /// When [`handle_timeout`](Self::handle_timeout) is next due, if ever.
    #[must_use = "the host must call handle_timeout when this deadline comes"]
    pub fn poll_timeout(&self) -> Option<Timestamp> {
        self.conns
            .next_deadline(self.config.ready_delay_ms)
            .into_iter()
            .chain(self.service.calls().next_deadline())
            .chain(self.pushes.next_deadline())
            .chain(self.service.gate().next_report())
            .chain(self.ledger_deadline())
            .min()
    }

    /// Time never goes backwards inside the engine.
    fn advance(&mut self, now: Timestamp) -> Timestamp {
        self.now = self.now.max(now);
        self.now
    }

    /// `conn`'s timers at `now`; `selection_sent`: the selection goes to every ready client
    /// now anyway.
    fn conn_timeout(&mut self, now: Timestamp, conn: ConnId, selection_sent: bool) {
        let Some(c) = self.conns.get_mut(conn) else {
            return;
        };
        if c.handshake_expired(now) {
            self.finish(conn, CloseReason::HandshakeTimeout);
            return;
        }
        if c.handle_timeout(now) {
            self.became_ready(conn);
        }
        self.startup_due(now, conn, selection_sent);
        self.settle(conn);
    }

    /// After anything touched `conn`: signal new bytes, close it when its WebSocket finished or
    /// when the input it holds back (over the outbound cap) passed one message's worth.
    fn settle(&mut self, conn: ConnId) {
        self.conns.signal(conn);
        let Some(c) = self.conns.get(conn) else {
            return;
        };
        if let Some(reason) = c.finished_reason() {
            self.finish(conn, reason);
        } else if c.held_input() > self.config.ws.max_message_bytes {
            self.finish(conn, CloseReason::OutboundOverflow);
        }
    }

    /// Ends `conn`: its pending calls are cancelled, the host is asked to close the transport
    /// (after flushing what is buffered) and `Closed` is reported.
    fn finish(&mut self, conn: ConnId, reason: CloseReason) {
        self.end(conn, reason, true);
    }

    /// Ends `conn` unless it already ended: its pending calls are cancelled and the host is
    /// asked to close the transport unless it is already gone.
    fn end(&mut self, conn: ConnId, reason: CloseReason, close_transport: bool) {
        if !self.conns.is_live(conn) {
            self.conns.signal(conn);
            return;
        }
        let cancelled = self.service.calls_mut().take_of_conn(conn);
        let was_ready = self
            .conns
            .get(conn)
            .and_then(Connection::client)
            .is_some_and(|client| client.is_ready());
        self.conns.end(conn, reason, close_transport, &cancelled);
        if was_ready {
            self.session_left(conn);
        }
        let now = self.now;
        self.ledger_client_gone(now, conn);
    }

    /// Serves the complete messages buffered on `conn`, one at a time, until none is left or
    /// the replies queued pass the outbound cap: then the rest waits (`held`) until
    /// `handle_sent` brings the buffer back under it.
    fn pump(&mut self, now: Timestamp, conn: ConnId) {
        loop {
            let Some(c) = self.conns.get_mut(conn) else {
                return;
            };
            if c.hold_if_over(self.config.max_outbound_bytes) {
                return;
            }
            let served = c.serve_next(
                now,
                conn,
                &self.config,
                &self.tools_json,
                &mut self.service,
                &mut self.writer,
            );
            self.report_too_large(Some(conn));
            let Some(effect) = served else {
                return;
            };
            self.conns.signal(conn);
            self.apply(now, conn, effect);
        }
    }

    /// What serving a message leads to beyond its reply.
    fn apply(&mut self, now: Timestamp, conn: ConnId, effect: Effect) {
        match effect {
            Effect::None => {}
            // A client not ready yet is not on the list: its readiness reports it.
            Effect::SessionChanged if self.conns.get(conn).is_some_and(Connection::is_ready) => {
                self.session_list_changed();
            }
            Effect::SessionChanged => {}
            Effect::Initialized => {
                if self.config.session_policy == SessionPolicy::Single {
                    self.supersede_all_but(now, conn);
                }
            }
            Effect::Served(tool) => {
                self.tool_called(conn);
                self.conns.event(EngineEvent::ToolServed { conn, tool });
                if tool == ide::ToolName::GetDiagnostics {
                    // With the ledger on, a `{uri}` call is held (`PreEdit`): this is `{}`.
                    self.ledger_edits_ended(now, conn);
                }
            }
            Effect::DiffsClosed(closed, tool) => {
                self.tool_called(conn);
                for id in closed {
                    self.conns.cancelled(id, CancelReason::ClosedByClient);
                }
                self.conns.event(EngineEvent::ToolServed { conn, tool });
                if tool == ide::ToolName::CloseAllDiffTabs {
                    self.ledger_prompt_started(now, conn);
                }
            }
            Effect::PreEdit {
                rpc_id,
                arguments,
                path,
            } => {
                self.tool_called(conn);
                self.ledger_pre_edit(now, conn, rpc_id, arguments, path);
            }
            Effect::CancelledByClient(id) => {
                self.conns.cancelled(id, CancelReason::CancelledByClient)
            }
            Effect::Requested {
                id,
                request,
                replaced,
            } => {
                self.tool_called(conn);
                if let Some(old) = replaced {
                    self.conns.cancelled(old, CancelReason::Replaced);
                }
                // The policy judges claude's path (the one the engine's state holds).
                let context_denied = self.service.gate_mut().denies_request(&request);
                let request = if self.paths.is_active() {
                    match self.paths.request_to_local(request) {
                        Ok(local) => local,
                        Err(outside) => {
                            // The editor has no name for the file: claude is told so, the
                            // editor sees nothing.
                            let message = outside.to_string();
                            let failed = ToolOutcome::Failed { message };
                            let answered = self.handle_tool_outcome(now, id, &failed);
                            debug_assert!(answered.is_ok(), "a call just made is pending");
                            return;
                        }
                    }
                } else {
                    request
                };
                self.conns.event(EngineEvent::ToolCall {
                    id,
                    conn,
                    request,
                    context_denied,
                });
            }
        }
    }

    /// Single-session policy: every other open client is closed with 4001.
    fn supersede_all_but(&mut self, now: Timestamp, keep: ConnId) {
        let others = self.conns.take_ids(|id, c| id != keep && c.is_session());
        for &conn in &others {
            if let Some(c) = self.conns.get_mut(conn) {
                c.supersede(now, SUPERSEDED_CODE, SUPERSEDED_REASON);
            }
            self.cancel_calls_of(conn, CancelReason::ClientGone);
            self.settle(conn);
        }
        self.conns.give_back(others);
    }
}
