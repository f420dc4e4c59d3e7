//! Tool requests handed to the editor and not yet answered, and the diff tabs among them.

use super::output::{ConnId, ToolCallId};
use crate::ide::ToolRequest;
use crate::rpc::OwnedRequestId;
use crate::time::Timestamp;

/// An `openDiff` proposal's length and SHA-1: enough to tell whether the final text of an
/// accept is the proposal unchanged (the engine does not keep the proposal itself, which the
/// editor holds). SHA-1 is the hash core already carries (RFC 6455's accept key); telling an
/// accidental edit apart needs no more.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fingerprint {
    len: usize,
    sha1: [u8; 20],
}

impl Fingerprint {
    /// The fingerprint of `text`.
    pub(crate) fn of(text: &str) -> Self {
        Fingerprint {
            len: text.len(),
            sha1: crate::sha1::digest(&[text.as_bytes()]),
        }
    }

    /// True when `text` is the text this was taken of.
    pub(crate) fn matches(&self, text: &str) -> bool {
        text.len() == self.len && *self == Fingerprint::of(text)
    }
}

/// One request the editor owes an answer for.
pub(crate) struct PendingCall {
    /// The client that asked; the answer goes there.
    pub(crate) conn: ConnId,
    /// The JSON-RPC id to answer with.
    pub(crate) rpc_id: OwnedRequestId,
    pub(crate) request: ToolRequest,
    /// The request's [`ToolRequest::text_bytes`] as the editor got it (the engine keeps
    /// `request` without a diff's contents; the editor holds them until it answers).
    pub(crate) bytes: usize,
    /// An `openDiff`'s proposal, fingerprinted (`None` for any other request).
    pub(crate) proposal: Option<Fingerprint>,
    pub(crate) started: Timestamp,
    /// When the engine answers for a silent editor.
    pub(crate) deadline: Option<Timestamp>,
    /// For an `openDiff`: the editor saved its file while the diff was pending (a
    /// `documentSaved`, `documentDirtyChanged` to clean, or a dirty document opened again
    /// clean, as a snapshot does). The file is then not the text
    /// the CLI made the proposal from, and what the CLI does with an accept depends on what
    /// was saved (docs/protocol.md, "Save first"): no `fileReplaced` follows the accept.
    pub(crate) saved_while_pending: bool,
}

/// The table of pending calls, ordered by id (so iteration, and every output that follows
/// from it, is deterministic). A handful of entries at a time: a vector sorted by id (ids only
/// grow, so an insert appends), which keeps the wasm module smaller than a map would.
#[derive(Default)]
pub(crate) struct PendingCalls {
    calls: Vec<(ToolCallId, PendingCall)>,
    last_id: u64,
}

impl PendingCalls {
    /// Adds a call and returns its fresh id.
    pub(crate) fn insert(&mut self, call: PendingCall) -> ToolCallId {
        self.last_id += 1;
        let id = ToolCallId(self.last_id);
        self.calls.push((id, call));
        id
    }

    pub(crate) fn get(&self, id: ToolCallId) -> Option<&PendingCall> {
        let at = self.find(id).ok()?;
        Some(&self.calls[at].1)
    }

    pub(crate) fn remove(&mut self, id: ToolCallId) -> Option<PendingCall> {
        let at = self.find(id).ok()?;
        Some(self.calls.remove(at).1)
    }

    fn find(&self, id: ToolCallId) -> Result<usize, usize> {
        self.calls
            .binary_search_by_key(&id, |(call_id, _)| *call_id)
    }

    /// The pending `openDiff` of `conn` with this tab name. Tab names are unique per proposal
    /// and per client; another client's diff with the same name is not this client's to close.
    pub(crate) fn diff_tab(&self, conn: ConnId, tab_name: &str) -> Option<ToolCallId> {
        self.ids_where(|call| {
            call.conn == conn
                && matches!(&call.request, ToolRequest::OpenDiff { tab_name: t, .. } if t == tab_name)
        })
        .next()
    }

    /// Marks every pending `openDiff` of the file `path` (normalized) as saved while pending.
    pub(crate) fn saved_under_diffs(&mut self, path: &str) {
        for (_, call) in &mut self.calls {
            if matches!(&call.request, ToolRequest::OpenDiff { old_file_path, .. } if old_file_path == path)
            {
                call.saved_while_pending = true;
            }
        }
    }

    /// Every pending `openDiff` of `conn`, oldest first.
    pub(crate) fn diffs_of(&self, conn: ConnId) -> Vec<ToolCallId> {
        self.ids_where(|call| {
            call.conn == conn && matches!(call.request, ToolRequest::OpenDiff { .. })
        })
        .collect()
    }

    /// Every pending call of `conn`, oldest first.
    pub(crate) fn of_conn(&self, conn: ConnId) -> Vec<ToolCallId> {
        self.ids_where(|call| call.conn == conn).collect()
    }

    /// Removes every pending call of `conn`; returns their ids, oldest first.
    pub(crate) fn take_of_conn(&mut self, conn: ConnId) -> Vec<ToolCallId> {
        let ids = self.of_conn(conn);
        self.calls.retain(|(_, call)| call.conn != conn);
        ids
    }

    /// Bytes the pending calls of `conn` carry ([`PendingCall::bytes`]).
    pub(crate) fn bytes_of_conn(&self, conn: ConnId) -> usize {
        self.calls
            .iter()
            .filter(|(_, call)| call.conn == conn)
            .map(|(_, call)| call.bytes)
            .sum()
    }

    /// Bytes every pending call carries.
    pub(crate) fn bytes(&self) -> usize {
        self.calls.iter().map(|(_, call)| call.bytes).sum()
    }

    /// The pending call `conn` made with this JSON-RPC id (for `notifications/cancelled`).
    pub(crate) fn by_rpc_id(&self, conn: ConnId, rpc_id: &str) -> Option<ToolCallId> {
        self.ids_where(|call| {
            call.conn == conn && call.rpc_id.as_borrowed().as_raw().get() == rpc_id
        })
        .next()
    }

    /// Calls whose deadline has come, oldest first.
    pub(crate) fn expired(&self, now: Timestamp) -> Vec<ToolCallId> {
        self.ids_where(|call| call.deadline.is_some_and(|d| d <= now))
            .collect()
    }

    pub(crate) fn next_deadline(&self) -> Option<Timestamp> {
        self.calls
            .iter()
            .filter_map(|(_, call)| call.deadline)
            .min()
    }

    fn ids_where<'s>(
        &'s self,
        keep: impl Fn(&PendingCall) -> bool + 's,
    ) -> impl Iterator<Item = ToolCallId> + 's {
        self.calls
            .iter()
            .filter(move |(_, call)| keep(call))
            .map(|(id, _)| *id)
    }
}
