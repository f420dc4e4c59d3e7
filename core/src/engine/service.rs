//! What a client's tool calls are served from: the editor state, its rendered selection, and
//! the requests pending with the editor. Serving a `tools/call` writes its reply (and the
//! answers owed to diffs it closes) and returns what else follows, for the engine to report.

use super::calls::{Fingerprint, PendingCall, PendingCalls};
use super::config::Config;
use super::output::{ConnId, EngineEvent, ToolCallId};
use super::proposals::ProposalDiagnostics;
use super::selection_cache::SelectionCache;
use super::writer::{Reply, Writer};
use crate::ide::{
    self, Diagnostic, EditorEvent, EditorState, ReadSource, StateChange, ToolName, ToolOutcome,
    ToolPlan, ToolRequest, ToolResult,
};
use crate::ide::{OutcomeMismatch, PathStyle};
use crate::mcp::ToolCall;
use crate::policy::ContextPolicy;
use crate::policy::gate::{Gate, SharedSelection};
use crate::rpc::{OwnedRequestId, RequestId, RpcError};
use crate::time::Timestamp;
use serde_json::value::RawValue;

/// What serving one client message leads to beyond its reply.
pub(crate) enum Effect {
    /// Nothing more.
    None,
    /// `initialize` was answered.
    Initialized,
    /// What the session list shows of this client changed (its folders).
    SessionChanged,
    /// The engine served this tool itself.
    Served(ToolName),
    /// `close_tab` / `closeAllDiffTabs` closed these pending diffs (already answered).
    DiffsClosed(Vec<ToolCallId>, ToolName),
    /// `notifications/cancelled` named this pending call (already removed).
    CancelledByClient(ToolCallId),
    /// The ledger is on and this is the CLI's pre-edit `getDiagnostics {uri}` of `path`: no
    /// reply yet; the engine takes the file's baseline, then answers with
    /// [`Service::held_diagnostics`].
    PreEdit {
        rpc_id: OwnedRequestId,
        /// The call's arguments as they came (served again once the baseline is read).
        arguments: Option<Box<RawValue>>,
        path: String,
    },
    /// A request for the editor, replacing the pending diff of the same tab if any.
    Requested {
        id: ToolCallId,
        request: ToolRequest,
        replaced: Option<ToolCallId>,
    },
}

/// The editor state, its rendered selection, the context policy and the pending calls.
pub(crate) struct Service {
    state: EditorState,
    /// The context policy every read answer passes (and the engine's pushes, through
    /// [`gate`](Self::gate)).
    gate: Gate,
    selection: SelectionCache,
    calls: PendingCalls,
    /// The diagnostics editors reported for the proposals of `openDiff` calls.
    proposals: ProposalDiagnostics,
}

impl Service {
    pub(crate) fn new(state: EditorState, gate: Gate) -> Self {
        Service {
            state,
            gate,
            selection: SelectionCache::default(),
            calls: PendingCalls::default(),
            proposals: ProposalDiagnostics::default(),
        }
    }

    pub(crate) fn state(&self) -> &EditorState {
        &self.state
    }

    /// The context policy's gate.
    pub(crate) fn gate(&self) -> &Gate {
        &self.gate
    }

    /// The gate, to ask it (its verdicts are cached, what it withholds counted).
    pub(crate) fn gate_mut(&mut self) -> &mut Gate {
        &mut self.gate
    }

    /// The withheld report due at `now`, if any.
    pub(crate) fn take_withheld_report(&mut self, now: Timestamp) -> Option<EngineEvent> {
        self.gate.take_report(now)
    }

    /// Replaces the context policy: the rendered selection is forgotten with the old one.
    pub(crate) fn set_policy(&mut self, policy: ContextPolicy) {
        self.selection.invalidate();
        self.gate.set_policy(policy);
    }

    /// The workspace folders changed: the policy's deny globs are relative to them.
    pub(crate) fn folders_changed(&mut self) {
        self.selection.invalidate();
        self.gate.set_folders(self.state.workspace_folders());
    }

    /// What the policy lets `selection_changed` say about the current state.
    pub(crate) fn shared_selection(&mut self) -> SharedSelection<'_> {
        self.gate.selection(&self.state)
    }

    /// Call `id`'s pending call and the editor's `outcome` answered for it, as the client
    /// may hear it: a pulled read's answer screened by the policy (with the calling client's
    /// proposals for `getDiagnostics` of every file). `None` for an unknown call.
    pub(crate) fn answered<'s>(
        &'s mut self,
        id: ToolCallId,
        outcome: &'s ToolOutcome,
        style: PathStyle,
    ) -> Option<Result<(&'s PendingCall, ide::Answered<'s>), OutcomeMismatch>> {
        let Service {
            calls,
            proposals,
            gate,
            ..
        } = self;
        let call = calls.get(id)?;
        let answered = match ide::answer_outcome(&call.request, outcome, style) {
            Ok(answered) => answered,
            Err(mismatch) => return Some(Err(mismatch)),
        };
        let tool = call.request.tool();
        let every_file = matches!(call.request, ToolRequest::GetDiagnostics { path: None });
        let answered = match answered {
            ide::Answered::Read(answer) if every_file => {
                ide::Answered::Read(answer.with_proposals(proposals.of_conn(call.conn, calls)))
            }
            other => other,
        };
        let answered = match answered {
            ide::Answered::Read(answer) => ide::Answered::Read(gate.screen(tool, answer)),
            other => other,
        };
        Some(Ok((call, answered)))
    }

    /// Applies an editor event to the state.
    pub(crate) fn apply(&mut self, event: &EditorEvent) -> StateChange {
        self.selection.invalidate();
        // A save under a pending diff: said outright, or a dirty document turning clean (a
        // snapshot re-opens a document with its new flags).
        let (EditorEvent::DocumentSaved { path }
        | EditorEvent::DocumentDirtyChanged {
            path,
            is_dirty: false,
        }
        | EditorEvent::DocumentOpened {
            path,
            is_dirty: false,
            ..
        }) = event
        else {
            return self.state.apply(event);
        };
        let path = crate::ide::normalize_path(path, self.state.path_style());
        let was_dirty = self.state.document(&path).is_some_and(|doc| doc.is_dirty);
        if was_dirty || !matches!(event, EditorEvent::DocumentOpened { .. }) {
            self.calls.saved_under_diffs(&path);
        }
        self.state.apply(event)
    }

    /// The diagnostics of the proposal of call `call` were replaced: kept when it is a pending
    /// `openDiff`, ignored otherwise (its diff is gone).
    pub(crate) fn proposal_diagnostics(
        &mut self,
        call: ToolCallId,
        diagnostics: &[Diagnostic],
        max_diagnostics: usize,
    ) {
        if let Some(pending) = self.calls.get(call)
            && let ToolRequest::OpenDiff { new_file_path, .. } = &pending.request
        {
            let (conn, path) = (pending.conn, new_file_path.clone());
            self.proposals
                .set(call, conn, &path, diagnostics.to_vec(), max_diagnostics);
        }
    }

    /// The editor answered call `call`: an accept keeps its proposal's diagnostics as those of
    /// the text the CLI writes, anything else forgets them.
    pub(crate) fn call_answered(&mut self, call: ToolCallId, accepted: bool) {
        self.proposals.answered(call, accepted);
    }

    /// The editor replaced the own diagnostics of `path` (normalized).
    pub(crate) fn file_diagnostics_changed(&mut self, path: &str) {
        self.proposals.file_changed(path);
    }

    pub(crate) fn calls(&self) -> &PendingCalls {
        &self.calls
    }

    pub(crate) fn calls_mut(&mut self) -> &mut PendingCalls {
        &mut self.calls
    }

    /// Serves `tools/call` `call` of client `conn`: its reply goes to `writer` (unless the
    /// editor must answer it), after the `DIFF_REJECTED` answers of diffs it closes.
    pub(crate) fn tool_call(
        &mut self,
        now: Timestamp,
        conn: ConnId,
        call: ToolCall<'_>,
        config: &Config,
        writer: &mut Writer,
    ) -> Effect {
        self.serve_call(now, conn, call, config, writer, config.ledger)
    }

    /// Answers a pre-edit `getDiagnostics` held for the ledger ([`Effect::PreEdit`]) from the
    /// state as it is now.
    pub(crate) fn held_diagnostics(
        &mut self,
        now: Timestamp,
        conn: ConnId,
        rpc_id: &OwnedRequestId,
        arguments: Option<&RawValue>,
        config: &Config,
        writer: &mut Writer,
    ) {
        let call = ToolCall {
            id: rpc_id.as_borrowed(),
            name: ToolName::GetDiagnostics.as_str().into(),
            arguments,
            tool_use_id: None,
        };
        self.serve_call(now, conn, call, config, writer, false);
    }

    /// [`tool_call`](Self::tool_call); `hold_pre_edit`: a `getDiagnostics {uri}` answered
    /// from the state is held for the ledger.
    fn serve_call(
        &mut self,
        now: Timestamp,
        conn: ConnId,
        call: ToolCall<'_>,
        config: &Config,
        writer: &mut Writer,
        hold_pre_edit: bool,
    ) -> Effect {
        let unknown = || {
            let message = format!("unknown tool: {}", call.name);
            Reply::Error(RpcError::new(RpcError::INVALID_PARAMS, message))
        };
        let Some(tool) = ToolName::parse(&call.name) else {
            writer.reply(call.id, &unknown());
            return Effect::None;
        };
        let source = config.reads.source(tool);
        // The selection tools are answered from a rendering of the current state.
        if source == ReadSource::State
            && let Some(json) = self.selection.get(tool, &self.state, &mut self.gate)
        {
            writer.reply(call.id, &Reply::Rendered(tool, json));
            return Effect::Served(tool);
        }
        let plan = ide::plan(
            tool,
            call.arguments,
            &self.state,
            source,
            config.execute_code,
        );
        match plan {
            ToolPlan::Reply(answer) => {
                if hold_pre_edit
                    && tool == ToolName::GetDiagnostics
                    && let Some(path) = answer.one_file_diagnostics()
                {
                    return Effect::PreEdit {
                        rpc_id: call.id.to_owned(),
                        arguments: call.arguments.map(ToOwned::to_owned),
                        path: path.to_owned(),
                    };
                }
                let answer = if answer.is_every_file_diagnostics() {
                    answer.with_proposals(self.proposals.of_conn(conn, &self.calls))
                } else {
                    answer
                };
                let answer = self.gate.screen(tool, answer);
                writer.reply(call.id, &Reply::Answer(tool, &answer));
                Effect::Served(tool)
            }
            ToolPlan::UnknownTool => {
                writer.reply(call.id, &unknown());
                Effect::None
            }
            ToolPlan::InvalidArguments(message) => {
                let error = RpcError::new(RpcError::INVALID_PARAMS, message);
                writer.reply(call.id, &Reply::Error(error));
                Effect::None
            }
            ToolPlan::CloseTab { tab_name } => {
                let closed: Vec<ToolCallId> =
                    self.calls.diff_tab(conn, &tab_name).into_iter().collect();
                self.reject_diffs(&closed, writer);
                let result = ToolResult::text("TAB_CLOSED");
                writer.reply(call.id, &Reply::Tool(tool, &result));
                Effect::DiffsClosed(closed, tool)
            }
            ToolPlan::CloseAllDiffTabs => {
                let closed = self.calls.diffs_of(conn);
                self.reject_diffs(&closed, writer);
                // The CLI's next prompt: what its last edits proposed is past.
                self.proposals.prompt_started(conn, &self.calls);
                let result = ToolResult::text(format!("CLOSED_{}_DIFF_TABS", closed.len()));
                writer.reply(call.id, &Reply::Tool(tool, &result));
                Effect::DiffsClosed(closed, tool)
            }
            ToolPlan::Request(request) => self.request(now, conn, call.id, request, config, writer),
        }
    }

    /// A request for the editor: pending until the editor answers (or a deadline does).
    fn request(
        &mut self,
        now: Timestamp,
        conn: ConnId,
        rpc_id: RequestId<'_>,
        request: ToolRequest,
        config: &Config,
        writer: &mut Writer,
    ) -> Effect {
        let replaced = match &request {
            ToolRequest::OpenDiff { tab_name, .. } => self.calls.diff_tab(conn, tab_name),
            _ => None,
        };
        let pending = self.calls.of_conn(conn).len();
        if replaced.is_none() && pending >= config.max_pending_calls {
            let message = format!(
                "too many pending tool calls on this connection ({pending}): \
                 wait for an answer or cancel one"
            );
            let error = RpcError::new(RpcError::SERVER_BUSY, message);
            writer.reply(rpc_id, &Reply::Error(error));
            return Effect::None;
        }
        let bytes = request.text_bytes();
        if let Err(message) = self.within_budgets(conn, bytes, replaced, config) {
            let error = RpcError::new(RpcError::SERVER_BUSY, message);
            writer.reply(rpc_id, &Reply::Error(error));
            return Effect::None;
        }
        if let Some(old) = replaced {
            self.reject_diffs(&[old], writer);
        }
        let deadline = match request {
            ToolRequest::OpenDiff { .. } => config.diff_deadline_ms,
            _ => config.tool_deadline_ms,
        };
        let id = self.calls.insert(PendingCall {
            conn,
            rpc_id: rpc_id.to_owned(),
            request: request.for_answering(),
            bytes,
            proposal: match &request {
                ToolRequest::OpenDiff {
                    new_file_contents, ..
                } => Some(Fingerprint::of(new_file_contents)),
                _ => None,
            },
            started: now,
            deadline: deadline.map(|ms| now.add_millis(ms)),
            saved_while_pending: false,
        });
        Effect::Requested {
            id,
            request,
            replaced,
        }
    }

    /// Whether a request of `bytes` from `conn` (replacing the pending diff `replaced`, whose
    /// bytes it frees) keeps the pending calls within both byte budgets; the error message
    /// says which one it would pass otherwise.
    fn within_budgets(
        &self,
        conn: ConnId,
        bytes: usize,
        replaced: Option<ToolCallId>,
        config: &Config,
    ) -> Result<(), String> {
        let freed = replaced
            .and_then(|id| self.calls.get(id))
            .map_or(0, |call| call.bytes);
        let after = |held: usize| held.saturating_sub(freed).saturating_add(bytes);
        let on_conn = after(self.calls.bytes_of_conn(conn));
        if on_conn > config.max_pending_proposal_bytes {
            return Err(format!(
                "this request's {bytes} bytes would bring the tool calls pending on this \
                 connection to {on_conn} bytes, over its budget of {} bytes: wait for an \
                 answer or cancel one",
                config.max_pending_proposal_bytes
            ));
        }
        let total = after(self.calls.bytes());
        if total > config.max_total_pending_proposal_bytes {
            return Err(format!(
                "this request's {bytes} bytes would bring the tool calls pending on all \
                 connections to {total} bytes, over the editor's budget of {} bytes: wait for \
                 an answer or cancel one",
                config.max_total_pending_proposal_bytes
            ));
        }
        Ok(())
    }

    /// `notifications/cancelled` from `conn` for its request `request_id`.
    pub(crate) fn cancelled(&mut self, conn: ConnId, request_id: RequestId<'_>) -> Effect {
        match self.calls.by_rpc_id(conn, request_id.as_raw().get()) {
            Some(id) => {
                self.calls.remove(id);
                Effect::CancelledByClient(id)
            }
            None => Effect::None,
        }
    }

    /// Removes these pending diffs and writes their `DIFF_REJECTED` answers (docs/protocol.md §4: a
    /// diff closed by the client is rejected; never `TAB_CLOSED`, which the CLI reads as
    /// "accepted unchanged").
    fn reject_diffs(&mut self, ids: &[ToolCallId], writer: &mut Writer) {
        let style = self.state.path_style();
        for id in ids {
            if let Some(call) = self.calls.remove(*id)
                && let Ok(result) =
                    ide::format_outcome(&call.request, &ToolOutcome::DiffRejected, style)
            {
                let tool = call.request.tool();
                writer.reply(call.rpc_id.as_borrowed(), &Reply::Tool(tool, &result));
            }
        }
    }
}
