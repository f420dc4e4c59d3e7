//! Serving one client message: JSON-RPC → MCP → the IDE tools, and what follows from it
//! (tool requests for the editor, diff bookkeeping, cancellations, single-session takeover).

use crate::engine::calls::{PendingCall, PendingCalls};
use crate::engine::config::SessionPolicy;
use crate::engine::connection::Stage;
use crate::engine::output::{CancelReason, CloseReason, ConnId, Event, ToolCallId};
use crate::ide::{self, ToolOutcome, ToolPlan, ToolRequest};
use crate::mcp::Dispatch;
use crate::rpc::{self, RpcError};
use crate::time::Timestamp;
use crate::ws::Message;

use super::{Engine, SUPERSEDED_CODE, SUPERSEDED_REASON};

impl Engine {
    /// Decodes and serves the complete messages buffered on `conn`, one at a time, until none
    /// is left or the replies queued pass the outbound cap: then the rest waits (`held`) until
    /// `handle_sent` brings the buffer back under it.
    pub(super) fn pump(&mut self, now: Timestamp, conn: ConnId) {
        loop {
            if let Some(c) = self.conns.get_mut(&conn)
                && c.out.len() > self.config.max_outbound_bytes
            {
                c.held = true;
                break;
            }
            let mut deferred = Vec::new();
            let Some(more) = self.serve_one(now, conn, &mut deferred) else {
                break;
            };
            if let Some(c) = self.conns.get_mut(&conn) {
                for json in deferred {
                    c.send_json(&json);
                }
                if !self.scratch.is_empty() {
                    c.send_json(&self.scratch);
                }
            }
            self.signal(conn);
            if let Some(effect) = more {
                self.apply(now, conn, effect);
            }
        }
    }

    /// Serves the next buffered message of `conn`: its reply is left in `scratch`, replies
    /// owed to other pending requests of the same client in `deferred`. Returns `None` when
    /// no complete message is buffered, else what is left to do once the message is released.
    fn serve_one(
        &mut self,
        now: Timestamp,
        conn: ConnId,
        deferred: &mut Vec<Vec<u8>>,
    ) -> Option<Option<Effect>> {
        self.scratch.clear();
        let c = self.conns.get_mut(&conn)?;
        let Stage::Open(open) = &mut c.stage else {
            return None;
        };
        let Message::Text(text) = open.ws.poll_message(now, &mut c.out)? else {
            return Some(None);
        };
        let message = match rpc::parse(text, &self.config.rpc) {
            Ok(message) => message,
            Err(invalid) => {
                if invalid.reply {
                    rpc::write_error(&mut self.scratch, invalid.id, &invalid.error);
                }
                return Some(None);
            }
        };
        let dispatch = open.mcp.handle(
            message,
            &self.config.server_info,
            &self.tools_json,
            &mut self.scratch,
        );
        Some(match dispatch {
            Dispatch::Initialize(client) => {
                open.client = Some(client);
                Some(Effect::Initialized)
            }
            Dispatch::Initialized => {
                open.ready_at = Some(now.add_millis(self.config.ready_delay_ms));
                None
            }
            Dispatch::Notification { method, params } => {
                if method == "ide_connected" {
                    open.client_pid = params.and_then(ide_connected_pid);
                }
                None
            }
            Dispatch::Cancelled { request_id, .. } => self
                .calls
                .by_rpc_id(conn, request_id.as_raw().get())
                .map(Effect::CancelledByClient),
            Dispatch::ToolCall(call) => {
                let tool = ide::ToolName::parse(&call.name);
                // The selection tools are answered from a rendering of the current state.
                if let Some(tool) = tool
                    && let Some(json) = self.answers.get(tool, &self.state)
                {
                    rpc::write_result_with(&mut self.scratch, call.id, |out| {
                        out.extend_from_slice(json);
                        Ok::<(), std::convert::Infallible>(())
                    });
                    return Some(Some(Effect::Answered(tool)));
                }
                let plan = ide::plan_tool_call(
                    &call.name,
                    call.arguments,
                    &self.state,
                    self.config.execute_code,
                );
                match plan {
                    ToolPlan::Answer(result) => {
                        rpc::write_result(&mut self.scratch, call.id, &result);
                        tool.map(Effect::Answered)
                    }
                    ToolPlan::UnknownTool => {
                        let message = format!("unknown tool: {}", call.name);
                        let error = RpcError::new(RpcError::INVALID_PARAMS, message);
                        rpc::write_error(&mut self.scratch, Some(call.id), &error);
                        None
                    }
                    ToolPlan::InvalidArguments(message) => {
                        let error = RpcError::new(RpcError::INVALID_PARAMS, message);
                        rpc::write_error(&mut self.scratch, Some(call.id), &error);
                        None
                    }
                    ToolPlan::CloseTab { tab_name } => {
                        let closed: Vec<ToolCallId> =
                            self.calls.diff_tab(conn, &tab_name).into_iter().collect();
                        reject_diffs(&mut self.calls, &closed, deferred);
                        rpc::write_result(
                            &mut self.scratch,
                            call.id,
                            &ide::ToolResult::text("TAB_CLOSED"),
                        );
                        Some(Effect::DiffsClosed(closed, ide::ToolName::CloseTab))
                    }
                    ToolPlan::CloseAllDiffTabs => {
                        let closed = self.calls.diffs_of(conn);
                        reject_diffs(&mut self.calls, &closed, deferred);
                        let text = format!("CLOSED_{}_DIFF_TABS", closed.len());
                        rpc::write_result(&mut self.scratch, call.id, &ide::ToolResult::text(text));
                        Some(Effect::DiffsClosed(closed, ide::ToolName::CloseAllDiffTabs))
                    }
                    ToolPlan::Request(request) => {
                        let replaced = match &request {
                            ToolRequest::OpenDiff { tab_name, .. } => {
                                self.calls.diff_tab(conn, tab_name)
                            }
                            _ => None,
                        };
                        let pending = self.calls.of_conn(conn).len();
                        if replaced.is_none() && pending >= self.config.max_pending_calls {
                            let message = format!(
                                "too many pending tool calls on this connection ({pending}): \
                                 wait for an answer or cancel one"
                            );
                            let error = RpcError::new(RpcError::SERVER_BUSY, message);
                            rpc::write_error(&mut self.scratch, Some(call.id), &error);
                            return Some(None);
                        }
                        if let Some(old) = replaced {
                            reject_diffs(&mut self.calls, &[old], deferred);
                        }
                        let deadline = match request {
                            ToolRequest::OpenDiff { .. } => self.config.diff_deadline_ms,
                            _ => self.config.tool_deadline_ms,
                        };
                        let id = self.calls.insert(PendingCall {
                            conn,
                            rpc_id: call.id.to_owned(),
                            request: request.for_answering(),
                            started: now,
                            deadline: deadline.map(|ms| now.add_millis(ms)),
                        });
                        Some(Effect::Requested {
                            id,
                            request,
                            replaced,
                        })
                    }
                }
            }
            _ => None,
        })
    }

    /// What serving a message leads to beyond its reply.
    fn apply(&mut self, now: Timestamp, conn: ConnId, effect: Effect) {
        match effect {
            Effect::Initialized => {
                if self.config.session_policy == SessionPolicy::Single {
                    self.supersede_all_but(now, conn);
                }
            }
            Effect::Answered(tool) => self.event(Event::ToolAnswered { conn, tool }),
            Effect::DiffsClosed(closed, tool) => {
                for id in closed {
                    self.cancelled(id, CancelReason::ClosedByClient);
                }
                self.event(Event::ToolAnswered { conn, tool });
            }
            Effect::CancelledByClient(id) => {
                self.calls.remove(id);
                self.cancelled(id, CancelReason::CancelledByClient);
            }
            Effect::Requested {
                id,
                request,
                replaced,
            } => {
                if let Some(old) = replaced {
                    self.cancelled(old, CancelReason::Replaced);
                }
                self.event(Event::ToolCall { id, conn, request });
            }
        }
    }

    /// Single-session policy: every other open client is closed with 4001.
    fn supersede_all_but(&mut self, now: Timestamp, keep: ConnId) {
        let others: Vec<ConnId> = self
            .conns
            .iter()
            .filter(|(id, c)| **id != keep && matches!(c.stage, Stage::Open(_)))
            .map(|(id, _)| *id)
            .collect();
        for conn in others {
            if let Some(c) = self.conns.get_mut(&conn)
                && let Stage::Open(open) = &mut c.stage
            {
                open.close_cause = Some(CloseReason::Superseded);
                open.ws
                    .close(now, SUPERSEDED_CODE, SUPERSEDED_REASON, &mut c.out);
            }
            self.cancel_calls_of(conn, CancelReason::ClientGone);
            self.settle(conn);
        }
    }
}

/// What serving one message leads to once the message's borrow of the receive buffer ends.
enum Effect {
    Initialized,
    Answered(ide::ToolName),
    DiffsClosed(Vec<ToolCallId>, ide::ToolName),
    CancelledByClient(ToolCallId),
    Requested {
        id: ToolCallId,
        request: ToolRequest,
        replaced: Option<ToolCallId>,
    },
}

/// Removes these pending diffs and writes their `DIFF_REJECTED` answers into `deferred`
/// (PROTOCOL.md §4: a diff closed by the client is rejected; never `TAB_CLOSED`, which the
/// CLI reads as "accepted unchanged").
fn reject_diffs(calls: &mut PendingCalls, ids: &[ToolCallId], deferred: &mut Vec<Vec<u8>>) {
    for id in ids {
        if let Some(call) = calls.remove(*id)
            && let Ok(result) = ide::format_outcome(&call.request, &ToolOutcome::DiffRejected)
        {
            let mut json = Vec::new();
            rpc::write_result(&mut json, call.rpc_id.as_borrowed(), &result);
            deferred.push(json);
        }
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
