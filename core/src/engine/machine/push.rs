//! What the engine sends on its own: answers to pending calls, `selection_changed`,
//! `at_mentioned`, readiness, and the events that report them to the host.

use crate::engine::calls::PendingCall;
use crate::engine::connection::{Connection, Stage};
use crate::engine::output::{CancelReason, CloseReason, ConnId, Event, Output, ToolCallId};
use crate::ide::{self, AtMentioned, SelectionChanged};
use crate::rpc;

use super::Engine;

impl Engine {
    /// A client became ready: it gets the current selection and the mentions that waited.
    pub(super) fn became_ready(&mut self, conn: ConnId) {
        self.send_selection(Some(conn));
        for mention in self.notifier.take_mentions() {
            if self.write_notification(AtMentioned::METHOD, &mention) {
                self.push_scratch(conn);
            }
        }
        if let Some(Stage::Open(open)) = self.conns.get(&conn).map(|c| &c.stage)
            && let Some(client) = open.client.clone()
        {
            let client_pid = open.client_pid;
            self.event(Event::SessionReady {
                conn,
                client,
                client_pid,
            });
        }
        self.signal(conn);
    }

    /// Sends `selection_changed` for the current state to one client, or to every ready one.
    pub(super) fn send_selection(&mut self, to: Option<ConnId>) {
        let Some(params) = self.state.selection_notification() else {
            return;
        };
        self.scratch.clear();
        let written = rpc::write_notification(&mut self.scratch, SelectionChanged::METHOD, &params);
        if written.is_err() {
            return;
        }
        match to {
            Some(conn) => {
                self.push_scratch(conn);
                self.settle(conn);
            }
            None => {
                self.broadcast();
            }
        }
    }

    /// Writes a notification into `scratch`. False (and `scratch` empty) when `params` cannot
    /// be serialized, which the IDE layer's plain-data payloads rule out.
    pub(super) fn write_notification(
        &mut self,
        method: &str,
        params: &impl serde::Serialize,
    ) -> bool {
        self.scratch.clear();
        rpc::write_notification(&mut self.scratch, method, params).is_ok()
    }

    /// Sends `scratch` to every ready client; returns how many.
    pub(super) fn broadcast(&mut self) -> usize {
        let mut ready = self.take_conn_ids(Connection::is_ready);
        for &conn in &ready {
            self.push_scratch(conn);
            self.settle(conn);
        }
        let sent = ready.len();
        ready.clear();
        self.conn_ids = ready;
        sent
    }

    /// The ids of the connections that pass `keep`, in the reused list (hand it back to
    /// `conn_ids` when done, so steady traffic does not allocate).
    pub(super) fn take_conn_ids(&mut self, keep: impl Fn(&Connection) -> bool) -> Vec<ConnId> {
        let mut ids = std::mem::take(&mut self.conn_ids);
        ids.clear();
        ids.extend(
            self.conns
                .iter()
                .filter(|(_, c)| keep(c))
                .map(|(id, _)| *id),
        );
        ids
    }

    /// Answers a pending call on its client's connection.
    pub(super) fn answer(&mut self, call: &PendingCall, result: &ide::ToolResult) {
        self.scratch.clear();
        rpc::write_result(&mut self.scratch, call.rpc_id.as_borrowed(), result);
        self.push_scratch(call.conn);
        self.settle(call.conn);
    }

    /// Queues `scratch`, a message the engine sends on its own, on `conn`; a connection whose
    /// outbound buffer is already over the cap is closed instead (its client does not read).
    fn push_scratch(&mut self, conn: ConnId) {
        let Some(c) = self.conns.get_mut(&conn) else {
            return;
        };
        if c.out.len() > self.config.max_outbound_bytes {
            self.finish(conn, CloseReason::OutboundOverflow);
        } else {
            c.send_json(&self.scratch);
        }
    }

    /// Cancels every pending call of `conn` (it is going away), telling the editor.
    pub(super) fn cancel_calls_of(&mut self, conn: ConnId, reason: CancelReason) {
        for id in self.calls.of_conn(conn) {
            self.calls.remove(id);
            self.cancelled(id, reason);
        }
    }

    pub(super) fn cancelled(&mut self, id: ToolCallId, reason: CancelReason) {
        self.event(Event::ToolCallCancelled { id, reason });
    }

    pub(super) fn event(&mut self, event: Event) {
        self.outputs.push_back(Output::Event(event));
    }
}
