//! The diagnostics editors reported for `openDiff` proposals, kept with their calls
//! (docs/protocol.md, "Diagnostics of a proposal").
//!
//! The CLI asks for them after the call: it answers the diff, sends `close_tab`, takes its
//! baseline (`getDiagnostics {uri}`), writes the file, then asks `getDiagnostics {}` (measured
//! with 2.1.332, the drift alarm's `the_model_receives_the_diagnostics_of_the_proposal`). So a
//! proposal's diagnostics outlive an accept: they are the diagnostics of the text the CLI is
//! writing, until the editor's own for that file arrive or the client's next prompt starts.

use super::calls::PendingCalls;
use super::output::{ConnId, ToolCallId};
use crate::ide::Diagnostic;

/// One proposal's diagnostics.
struct Entry {
    call: ToolCallId,
    conn: ConnId,
    /// The file the proposal is for (normalized, as the request carries it).
    path: String,
    diagnostics: Vec<Diagnostic>,
    /// The call was answered with an accept: the proposal is the file's text now.
    accepted: bool,
}

/// Every proposal's diagnostics, oldest first.
#[derive(Default)]
pub(crate) struct ProposalDiagnostics {
    entries: Vec<Entry>,
}

impl ProposalDiagnostics {
    /// Replaces the diagnostics of call `call`, a pending `openDiff` of `conn` for `path` (an
    /// empty list forgets them). An accepted proposal of the same client and file is
    /// superseded. Past `max_diagnostics` entries in all, the oldest proposals are forgotten.
    pub(crate) fn set(
        &mut self,
        call: ToolCallId,
        conn: ConnId,
        path: &str,
        diagnostics: Vec<Diagnostic>,
        max_diagnostics: usize,
    ) {
        self.entries
            .retain(|e| e.call != call && !(e.accepted && e.conn == conn && e.path == path));
        if diagnostics.is_empty() {
            return;
        }
        self.entries.push(Entry {
            call,
            conn,
            path: path.to_owned(),
            diagnostics,
            accepted: false,
        });
        let mut total: usize = self.entries.iter().map(|e| e.diagnostics.len()).sum();
        while total > max_diagnostics && !self.entries.is_empty() {
            total -= self.entries.remove(0).diagnostics.len();
        }
    }

    /// Call `call` was answered: kept as the file's text's diagnostics when it was an accept,
    /// forgotten otherwise.
    pub(crate) fn answered(&mut self, call: ToolCallId, accepted: bool) {
        if accepted {
            for entry in self.entries.iter_mut().filter(|e| e.call == call) {
                entry.accepted = true;
            }
        } else {
            self.entries.retain(|e| e.call != call);
        }
    }

    /// The editor replaced the own diagnostics of `path`: accepted proposals for it are past.
    pub(crate) fn file_changed(&mut self, path: &str) {
        self.entries.retain(|e| !(e.accepted && e.path == path));
    }

    /// `conn` started a prompt (`closeAllDiffTabs`): its accepted proposals are past, and
    /// entries of calls no longer pending (closed, cancelled, their client gone) go too.
    pub(crate) fn prompt_started(&mut self, conn: ConnId, calls: &PendingCalls) {
        self.entries.retain(|e| {
            !(e.accepted && e.conn == conn) && (e.accepted || calls.get(e.call).is_some())
        });
    }

    /// The proposals of `conn` with diagnostics, by path (the newest one per path): those of
    /// its pending calls and its accepted ones.
    pub(crate) fn of_conn<'s>(
        &'s self,
        conn: ConnId,
        calls: &PendingCalls,
    ) -> Vec<(&'s str, &'s [Diagnostic])> {
        // Kept sorted as it is built (newest first, so an older one for a path is skipped): an
        // insertion rather than a sort keeps a sort routine out of the wasm module.
        let mut found: Vec<(&str, &[Diagnostic])> = Vec::new();
        for entry in self.entries.iter().rev() {
            let live = entry.accepted || calls.get(entry.call).is_some();
            if entry.conn != conn || !live {
                continue;
            }
            if let Err(at) = found.binary_search_by(|(path, _)| (*path).cmp(entry.path.as_str())) {
                found.insert(at, (&entry.path, &entry.diagnostics));
            }
        }
        found
    }
}
