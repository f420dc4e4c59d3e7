//! What the engine sends on its own: results of calls the editor finished, `selection_changed`,
//! `at_mentioned`, readiness, and the events that report them to the host.

use crate::engine::calls::PendingCall;
use crate::engine::connection::{Connection, Stage};
use crate::engine::output::{CancelReason, CloseReason, ConnId, Event, Output, ToolCallId};
use crate::engine::writer::Reply;
use crate::ide::{self, AtMentioned, SelectionChanged};

use super::Engine;

impl Engine {
    /// A client became ready: it gets the current selection and the mentions that waited.
    pub(super) fn became_ready(&mut self, conn: ConnId) {
        self.send_selection(Some(conn));
        for mention in self.pushes.take_mentions() {
            self.writer.clear();
            if self.writer.notification(AtMentioned::METHOD, &mention) {
                self.push_written(conn);
            }
        }
        if let Some(Stage::Open(open)) = self.conns.get(&conn).map(|c| &c.stage)
            && let Some(client) = open.client.info().cloned()
        {
            let client_pid = open.client.pid();
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
        let Some(params) = self.service.state().selection_notification() else {
            return;
        };
        self.writer.clear();
        if !self.writer.notification(SelectionChanged::METHOD, &params) {
            return;
        }
        match to {
            Some(conn) => {
                self.push_written(conn);
                self.settle(conn);
            }
            None => {
                self.broadcast();
            }
        }
    }

    /// Sends what `writer` holds to every ready client; returns how many.
    pub(super) fn broadcast(&mut self) -> usize {
        let mut ready = self.take_conn_ids(Connection::is_ready);
        for &conn in &ready {
            self.push_written(conn);
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

    /// Sends the result of a call the editor finished (or a deadline answered) to its client.
    pub(super) fn send_call_result(&mut self, call: &PendingCall, result: &ide::ToolResult) {
        self.writer.clear();
        self.writer
            .reply(call.rpc_id.as_borrowed(), &Reply::Tool(result));
        self.push_written(call.conn);
        self.settle(call.conn);
    }

    /// Queues what `writer` holds, messages the engine sends on its own, on `conn`; a
    /// connection whose outbound buffer is already over the cap is closed instead (its client
    /// does not read).
    fn push_written(&mut self, conn: ConnId) {
        let Some(c) = self.conns.get_mut(&conn) else {
            return;
        };
        if c.out.len() > self.config.max_outbound_bytes {
            self.finish(conn, CloseReason::OutboundOverflow);
            return;
        }
        for json in self.writer.messages() {
            c.send_json(json);
        }
    }

    /// Cancels every pending call of `conn` (it is going away), telling the editor.
    pub(super) fn cancel_calls_of(&mut self, conn: ConnId, reason: CancelReason) {
        for id in self.service.calls().of_conn(conn) {
            self.service.calls_mut().remove(id);
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
