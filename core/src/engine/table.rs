//! The connection table and the output queue: which connections exist, the `Transmit` /
//! `CloseTransport` bookkeeping, and the events the host drains in causal order.

use super::connection::Connection;
use super::output::{CancelReason, CloseReason, ConnId, EngineEvent, Output, ToolCallId};
use super::writer::Writer;
use crate::time::Timestamp;
use std::collections::VecDeque;

/// The connections, numbered from 1 in accept order, and what the host must do next.
#[derive(Default)]
pub(crate) struct Connections {
    /// Sorted by id: ids only grow, so an accept appends and lookups are binary searches. A
    /// vector rather than a map: the table is small (bounded by `maxConnections`) and the wasm
    /// module carries no second set of map routines for it.
    conns: Vec<(ConnId, Connection)>,
    last_id: u64,
    outputs: VecDeque<Output>,
    /// Reused for the connection ids a timer or a broadcast walks through.
    ids: Vec<ConnId>,
}

impl Connections {
    /// Adds a connection in the handshake, due to finish it by `deadline`.
    pub(crate) fn accept(&mut self, deadline: Timestamp) -> ConnId {
        self.last_id += 1;
        let id = ConnId(self.last_id);
        self.conns.push((id, Connection::new(deadline)));
        id
    }

    pub(crate) fn get(&self, conn: ConnId) -> Option<&Connection> {
        let at = self.find(conn).ok()?;
        Some(&self.conns[at].1)
    }

    pub(crate) fn get_mut(&mut self, conn: ConnId) -> Option<&mut Connection> {
        let at = self.find(conn).ok()?;
        Some(&mut self.conns[at].1)
    }

    /// Forgets `conn` (its transport is gone).
    pub(crate) fn remove(&mut self, conn: ConnId) {
        if let Ok(at) = self.find(conn) {
            self.conns.remove(at);
        }
    }

    fn find(&self, conn: ConnId) -> Result<usize, usize> {
        self.conns.binary_search_by_key(&conn, |(id, _)| *id)
    }

    /// How many connections are in the HTTP handshake.
    pub(crate) fn handshakes(&self) -> usize {
        self.conns.iter().filter(|(_, c)| c.is_handshake()).count()
    }

    /// The connection longest in the HTTP handshake.
    pub(crate) fn oldest_handshake(&self) -> Option<ConnId> {
        self.conns
            .iter()
            .find(|(_, c)| c.is_handshake())
            .map(|(id, _)| *id)
    }

    /// How many sessions (upgraded connections not yet told to close) hold a slot.
    pub(crate) fn sessions(&self) -> usize {
        self.conns.iter().filter(|(_, c)| c.is_session()).count()
    }

    /// Every connection, in id order.
    pub(crate) fn iter(&self) -> impl DoubleEndedIterator<Item = (ConnId, &Connection)> {
        self.conns.iter().map(|(id, c)| (*id, c))
    }

    /// Every connection's id, in order.
    pub(crate) fn all_ids(&self) -> Vec<ConnId> {
        self.conns.iter().map(|(id, _)| *id).collect()
    }

    /// The ids of the connections that pass `keep`, in the reused list (hand it back with
    /// [`give_back`](Self::give_back), so steady traffic does not allocate).
    pub(crate) fn take_ids(&mut self, keep: impl Fn(ConnId, &Connection) -> bool) -> Vec<ConnId> {
        let mut ids = std::mem::take(&mut self.ids);
        ids.clear();
        ids.extend(
            self.conns
                .iter()
                .filter(|(id, c)| keep(*id, c))
                .map(|(id, _)| *id),
        );
        ids
    }

    /// Returns a list from [`take_ids`](Self::take_ids).
    pub(crate) fn give_back(&mut self, mut ids: Vec<ConnId>) {
        ids.clear();
        self.ids = ids;
    }

    /// The earliest deadline of any connection (`ready_delay_ms` as for
    /// [`Connection::next_deadline`]).
    pub(crate) fn next_deadline(&self, ready_delay_ms: u64) -> Option<Timestamp> {
        self.conns
            .iter()
            .filter_map(|(_, c)| c.next_deadline(ready_delay_ms))
            .min()
    }

    /// Emits `Transmit` when `conn` has unsignalled bytes.
    pub(crate) fn signal(&mut self, conn: ConnId) {
        if let Some(c) = self.get_mut(conn)
            && c.take_transmit_signal()
        {
            self.outputs.push_back(Output::Transmit { conn });
        }
    }

    /// Queues the messages `writer` holds on `conn`. False, with nothing queued, when its
    /// outbound buffer is already over `cap`.
    pub(crate) fn push_written(&mut self, conn: ConnId, writer: &mut Writer, cap: usize) -> bool {
        let Some(c) = self.get_mut(conn) else {
            return true;
        };
        if c.is_over(cap) {
            return false;
        }
        c.send_written(writer);
        true
    }

    /// [`Connections::push_written`] for one of several connections that get the same
    /// messages: they are copied, and `writer` keeps them.
    pub(crate) fn push_copies(&mut self, conn: ConnId, writer: &Writer, cap: usize) -> bool {
        let Some(c) = self.get_mut(conn) else {
            return true;
        };
        if c.is_over(cap) {
            return false;
        }
        c.send_copies(writer);
        true
    }

    /// True when `conn` exists and was not ended yet.
    pub(crate) fn is_live(&self, conn: ConnId) -> bool {
        self.get(conn).is_some_and(|c| !c.is_closing())
    }

    /// Ends a live `conn`: it keeps only its unsent bytes (none after an overflow), the editor
    /// hears that its calls `cancelled` are cancelled, the host is asked to close the transport
    /// unless it is already gone, and `Closed` is reported.
    pub(crate) fn end(
        &mut self,
        conn: ConnId,
        reason: CloseReason,
        close_transport: bool,
        cancelled: &[ToolCallId],
    ) {
        self.signal(conn);
        let Some(c) = self.get_mut(conn) else {
            return;
        };
        c.end(reason == CloseReason::OutboundOverflow);
        for &id in cancelled {
            self.cancelled(id, CancelReason::ClientGone);
        }
        if close_transport {
            self.outputs.push_back(Output::CloseTransport { conn });
        }
        self.event(EngineEvent::Closed { conn, reason });
    }

    pub(crate) fn cancelled(&mut self, id: ToolCallId, reason: CancelReason) {
        self.event(EngineEvent::ToolCallCancelled { id, reason });
    }

    pub(crate) fn event(&mut self, event: EngineEvent) {
        self.outputs.push_back(Output::Event(event));
    }

    /// The next output, in causal order.
    pub(crate) fn poll_output(&mut self) -> Option<Output> {
        self.outputs.pop_front()
    }
}
