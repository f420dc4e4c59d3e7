//! What the engine sends on its own: results of calls the editor finished, `selection_changed`,
//! `at_mentioned`, readiness, and the events that report them to the host.

use crate::engine::calls::PendingCall;
use crate::engine::connection::Connection;
use crate::engine::output::{CancelReason, CloseReason, ConnId, EngineEvent};
use crate::engine::sessions::{self, Routing};
use crate::engine::writer::Reply;
use crate::ide::AtMentioned;
use crate::policy::gate::SharedSelection;
use crate::time::Timestamp;

use super::Engine;

impl Engine {
    /// A client became ready: it gets the current selection, and the mentions that waited
    /// are held for it ([`StartupPushes`](crate::engine::push_schedule::StartupPushes)), or
    /// sent now when the start-up window is off.
    pub(super) fn became_ready(&mut self, conn: ConnId) {
        self.send_selection(Some(conn));
        let chosen = self.chosen();
        let (routing, workspace) = (self.config.routing, &self.config.workspace_folders);
        let folders = self
            .conns
            .get(conn)
            .and_then(Connection::client)
            .and_then(|client| client.roots().folders());
        // Only the mentions the rule sends this client; the others wait for theirs.
        let mentions = self.pushes.take_mentions(|mention| {
            let file = Some(mention.file_path.as_str());
            sessions::routes(routing, chosen, file, true, workspace, conn, folders)
        });
        let window_ms = self.config.startup_window_ms;
        if window_ms == 0 {
            self.send_mentions(conn, &mentions);
        } else if let Some(client) = self.conns.get_mut(conn).and_then(Connection::client_mut) {
            client
                .startup_mut()
                .became_ready(self.now, window_ms, mentions);
        }
        if let Some(session) = self.conns.get(conn).and_then(Connection::client)
            && let Some(client) = session.info().cloned()
        {
            let client_pid = session.pid();
            self.conns.event(EngineEvent::SessionReady {
                conn,
                client,
                client_pid,
            });
            self.session_list_changed();
        }
        self.conns.signal(conn);
    }

    /// Sends what the start-up schedule of `conn` has due at `now`: the selection again
    /// (unless `selection_sent`: it goes to every ready client now), the mentions held for it.
    pub(super) fn startup_due(&mut self, now: Timestamp, conn: ConnId, selection_sent: bool) {
        let ready_delay_ms = self.config.ready_delay_ms;
        let Some(client) = self.conns.get_mut(conn).and_then(Connection::client_mut) else {
            return;
        };
        let due = client.startup_mut().poll(now, ready_delay_ms);
        if due.selection && !selection_sent {
            if self.selection_routes_to(conn) {
                self.send_selection(Some(conn));
            } else {
                self.send_last_selection(conn);
            }
        }
        self.send_mentions(conn, &due.mentions);
    }

    /// `conn` made a `tools/call`: its start-up is over, and the mentions held for it go now.
    pub(super) fn tool_called(&mut self, conn: ConnId) {
        let Some(client) = self.conns.get_mut(conn).and_then(Connection::client_mut) else {
            return;
        };
        let mentions = client.startup_mut().tool_called();
        self.send_mentions(conn, &mentions);
    }

    /// Sends `mention` to the ready clients the routing rule picks, or, with none, keeps it
    /// until `expires` for the next one the rule picks.
    pub(super) fn push_mention(&mut self, expires: Timestamp, mention: AtMentioned) {
        self.writer.clear();
        if !self.service.gate_mut().lets_mention(&mention) {
            // Withheld by the context policy (counted): never queued either.
        } else if !self.writer.at_mentioned(&mention) {
            // Over the client's limit: it never fits, so it is not queued either.
            self.report_too_large(None);
        } else if self.route(Some(&mention.file_path), true) == 0 {
            self.pushes
                .queue_mention(expires, mention, self.config.max_queued_mentions);
        }
    }

    /// Sends `mentions` to `conn`, oldest first; one over the client's limit is dropped and
    /// reported.
    pub(super) fn send_mentions(&mut self, conn: ConnId, mentions: &[AtMentioned]) {
        for mention in mentions {
            // The policy may have changed while it waited (paused, say).
            if !self.service.gate_mut().lets_mention(mention) {
                continue;
            }
            self.writer.clear();
            if self.writer.at_mentioned(mention) {
                self.push_written(conn);
            }
            self.report_too_large(Some(conn));
        }
        if !mentions.is_empty() {
            self.settle(conn);
        }
    }

    /// Sends `selection_changed` for the current state, as the context policy lets it out, to
    /// one client, or to the ready ones the routing rule picks for the active file. With no
    /// active document, a client that becomes ready gets nothing (it has no file to forget),
    /// and a change (the active document closed) is broadcast as "no file"
    /// ([`NoFileSelected`]), so the CLI stops attaching the closed file to its prompts. A
    /// selection the policy withholds is "no file" too, broadcast once until a selection goes
    /// out again (the CLI forgets the file it had).
    pub(super) fn send_selection(&mut self, to: Option<ConnId>) {
        // One client's own push (readiness, the start-up repeats) follows the rule too.
        if let Some(conn) = to
            && !self.selection_routes_to(conn)
        {
            return;
        }
        self.writer.clear();
        let written = match self.service.shared_selection() {
            SharedSelection::Selection(params) => {
                let written = self.writer.selection_changed(&params);
                if to.is_none() {
                    self.withheld_blank = false;
                }
                written
            }
            SharedSelection::NoDocument if to.is_none() => {
                self.withheld_blank = false;
                self.writer.no_file_selected()
            }
            SharedSelection::Withheld if to.is_none() && !self.withheld_blank => {
                self.withheld_blank = true;
                self.writer.no_file_selected()
            }
            SharedSelection::NoDocument | SharedSelection::Withheld => return,
        };
        if !written {
            self.report_too_large(to);
            return;
        }
        match to {
            Some(conn) => {
                self.remember_selection(&[conn]);
                self.push_written(conn);
                self.settle(conn);
            }
            None => {
                // The file matters to routing by roots alone: no copy of it otherwise.
                let active = (self.config.routing == Routing::Roots)
                    .then(|| self.service.state().active_path().map(str::to_owned))
                    .flatten();
                let ready = self.recipients(active.as_deref(), false);
                self.remember_selection(&ready);
                self.send_to(ready);
            }
        }
    }

    /// Under a routing rule other than broadcast, keeps the selection `writer` holds as the
    /// last one each of `conns` got (their start-up repeats send it: the CLI may miss the
    /// first push of its first seconds, and the editor's selection may be another session's
    /// by the time a repeat is due).
    fn remember_selection(&mut self, conns: &[ConnId]) {
        if self.config.routing == Routing::Broadcast {
            return;
        }
        let Some(message) = self.writer.messages().next() else {
            return;
        };
        for &conn in conns {
            if let Some(client) = self.conns.get_mut(conn).and_then(Connection::client_mut) {
                client.routed_selection(message);
            }
        }
    }

    /// Sends `conn` the last selection routed to it again, if any.
    fn send_last_selection(&mut self, conn: ConnId) {
        let Some(last) = self
            .conns
            .get(conn)
            .and_then(Connection::client)
            .and_then(|client| client.last_selection())
        else {
            return;
        };
        self.writer.clear();
        self.writer.again(last);
        self.push_written(conn);
        self.settle(conn);
    }

    /// Sends what `writer` holds, a push of `file` (`mention`: `at_mentioned`), to the ready
    /// clients the routing rule picks (handed over whole to a lone one); returns how many.
    pub(super) fn route(&mut self, file: Option<&str>, mention: bool) -> usize {
        let ready = self.recipients(file, mention);
        self.send_to(ready)
    }

    /// Sends what `writer` holds to `ready` (handed over whole to a lone one); returns how many.
    fn send_to(&mut self, ready: Vec<ConnId>) -> usize {
        for &conn in &ready {
            if ready.len() == 1 {
                self.push_written(conn);
            } else {
                self.push_copies(conn);
            }
            self.settle(conn);
        }
        let sent = ready.len();
        self.conns.give_back(ready);
        sent
    }

    /// Sends the answer to a call the editor finished (or a deadline answered) to its client:
    /// its result, or a JSON-RPC error.
    pub(super) fn send_call_reply(&mut self, call: &PendingCall, reply: &Reply<'_>) {
        self.writer.clear();
        self.writer.reply(call.rpc_id.as_borrowed(), reply);
        self.send_written(call.conn);
        self.report_too_large(Some(call.conn));
    }

    /// Reports what the context policy withheld, when a report is due (at most once a second).
    pub(super) fn report_withheld(&mut self) {
        if let Some(report) = self.service.take_withheld_report(self.now) {
            self.conns.event(report);
        }
    }

    /// Reports each message the writer kept from the client (`conn`, or every ready one)
    /// for being over its limit.
    pub(super) fn report_too_large(&mut self, conn: Option<ConnId>) {
        for too_large in self.writer.take_too_large() {
            self.conns.event(EngineEvent::MessageTooLarge {
                conn,
                message: too_large.message.to_owned(),
                bytes: too_large.bytes as u64,
                sent: too_large.sent,
            });
        }
    }

    /// Queues the reply `writer` holds on `conn`, the client that asked for it.
    pub(super) fn send_written(&mut self, conn: ConnId) {
        self.push_written(conn);
        self.settle(conn);
    }

    /// Queues what `writer` holds, messages the engine sends on its own, on `conn`; a
    /// connection whose outbound buffer is already over the cap is closed instead (its client
    /// does not read).
    fn push_written(&mut self, conn: ConnId) {
        let cap = self.config.max_outbound_bytes;
        if !self.conns.push_written(conn, &mut self.writer, cap) {
            self.finish(conn, CloseReason::OutboundOverflow);
        }
    }

    /// [`push_written`](Self::push_written) for one of several clients getting the same
    /// messages (copied, `writer` keeps them).
    fn push_copies(&mut self, conn: ConnId) {
        let cap = self.config.max_outbound_bytes;
        if !self.conns.push_copies(conn, &self.writer, cap) {
            self.finish(conn, CloseReason::OutboundOverflow);
        }
    }

    /// Cancels every pending call of `conn` (it is going away), telling the editor.
    pub(super) fn cancel_calls_of(&mut self, conn: ConnId, reason: CancelReason) {
        for id in self.service.calls_mut().take_of_conn(conn) {
            self.conns.cancelled(id, reason);
        }
    }
}
