//! The turn ledger's glue (docs/protocol.md, "A turn's signals"): the CLI's calls start
//! turns and take baselines, the host's reads and writes are requested as events and
//! answered by the methods here; the ledger itself is `crate::ledger`.

use crate::engine::{ConnId, EngineError, EngineEvent};
use crate::ledger::{
    FileContent, FileWrite, Ledger, LedgerLimits, TurnId, UndoRefused, UndoTarget,
};
use crate::rpc::OwnedRequestId;
use crate::time::Timestamp;
use serde_json::value::RawValue;

use super::Engine;

/// The ledger with the reads and writes the host owes it.
pub(crate) struct LedgerIo {
    ledger: Ledger,
    reads: Vec<PendingRead>,
    writes: Vec<(u64, FileWrite)>,
    last_id: u64,
}

/// A read of a file the host owes.
struct PendingRead {
    id: u64,
    turn: TurnId,
    path: String,
    deadline: Timestamp,
    /// For a baseline: the pre-edit call held until it is taken.
    held: Option<HeldCall>,
}

/// A pre-edit `getDiagnostics {uri}` not answered yet.
struct HeldCall {
    conn: ConnId,
    rpc_id: OwnedRequestId,
    arguments: Option<Box<RawValue>>,
    /// The file's previous edit in this turn had not ended: this read ends it first.
    settle_first: bool,
}

impl LedgerIo {
    pub(crate) fn new(limits: LedgerLimits) -> Self {
        LedgerIo {
            ledger: Ledger::new(limits),
            reads: Vec::new(),
            writes: Vec::new(),
            last_id: 0,
        }
    }

    fn next_id(&mut self) -> u64 {
        self.last_id += 1;
        self.last_id
    }

    pub(crate) fn next_deadline(&self) -> Option<Timestamp> {
        self.reads.iter().map(|read| read.deadline).min()
    }
}

impl Engine {
    /// The turn ledger: every client's turns, their files and hunks.
    pub fn ledger(&self) -> &Ledger {
        &self.ledger.ledger
    }

    /// The host's answer to [`EngineEvent::LedgerRead`] `read`: what the file holds (from the
    /// editor's buffer when it is open there, else from disk). Errors for an unknown read
    /// (never asked, already answered, or past its deadline).
    pub fn handle_ledger_read(
        &mut self,
        now: Timestamp,
        read: u64,
        content: &FileContent,
    ) -> Result<(), EngineError> {
        self.advance(now);
        let at = self
            .ledger
            .reads
            .iter()
            .position(|r| r.id == read)
            .ok_or(EngineError::UnknownLedgerRead(read))?;
        let pending = self.ledger.reads.remove(at);
        self.ledger_read_done(pending, content.clone());
        Ok(())
    }

    /// The host's file watcher saw `path` change to `content` (debounced); `previous` is what
    /// the host last knew of it (the editor's buffer, or [`FileContent::Unread`]). A change
    /// no CLI call announced joins the open turn as "seen on disk".
    pub fn handle_file_seen(
        &mut self,
        now: Timestamp,
        path: &str,
        content: &FileContent,
        previous: &FileContent,
    ) {
        self.advance(now);
        // A path the ledger does not keep (outside the map or the workspace) is not its
        // change: left out, quietly (the host chose to watch it).
        let Ok(path) = self.ledger_path_of_editors(path) else {
            return;
        };
        self.ledger
            .ledger
            .seen_on_disk(&path, content.clone(), previous.clone());
        self.report_turn_changes();
    }

    /// Undoes a hunk, a file or a turn: each file to write is handed to the host as an
    /// [`EngineEvent::LedgerWrite`]; the ledger changes when the host reports the write with
    /// [`handle_ledger_written`](Self::handle_ledger_written). Refused, with the reason, when
    /// the file changed since (a newer revision, a later turn) or its text is not kept.
    pub fn ledger_undo(&mut self, now: Timestamp, target: &UndoTarget) -> Result<(), UndoRefused> {
        self.advance(now);
        let writes = self.ledger.ledger.plan_undo(target)?;
        // The folders may have changed since the file joined the ledger.
        for write in &writes {
            self.ledger_path_of_editors(&write.path)
                .map_err(UndoRefused)?;
        }
        for write in writes {
            let id = self.ledger.next_id();
            self.conns.event(EngineEvent::LedgerWrite {
                write: id,
                file: write.clone(),
            });
            self.ledger.writes.push((id, write));
        }
        Ok(())
    }

    /// The host carried out (or refused) [`EngineEvent::LedgerWrite`] `write`: `now_holds` is
    /// what the file holds after it (the written text; or, when the file no longer held the
    /// write's `expected` content, what it found, and nothing was written). Errors for an
    /// unknown write.
    pub fn handle_ledger_written(
        &mut self,
        now: Timestamp,
        write: u64,
        now_holds: &FileContent,
    ) -> Result<(), EngineError> {
        self.advance(now);
        let at = self
            .ledger
            .writes
            .iter()
            .position(|(id, _)| *id == write)
            .ok_or(EngineError::UnknownLedgerWrite(write))?;
        let (_, file) = self.ledger.writes.remove(at);
        self.ledger
            .ledger
            .undone(file.turn, &file.path, now_holds.clone());
        self.report_turn_changes();
        Ok(())
    }

    /// `conn`'s prompt started (`closeAllDiffTabs`): the edits of its turn end, a new turn
    /// starts.
    pub(super) fn ledger_prompt_started(&mut self, now: Timestamp, conn: ConnId) {
        if !self.config.ledger {
            return;
        }
        self.ledger_edits_ended(now, conn);
        self.ledger.ledger.start_turn(now, conn);
        self.report_turn_changes();
    }

    /// `conn`'s `getDiagnostics {}` after its edits, or its end: the files its turn is
    /// editing are read again.
    pub(super) fn ledger_edits_ended(&mut self, now: Timestamp, conn: ConnId) {
        if !self.config.ledger {
            return;
        }
        let Some(turn) = self.ledger.ledger.open_turn(conn) else {
            return;
        };
        for path in self.ledger.ledger.unsettled(turn) {
            if !self
                .ledger
                .reads
                .iter()
                .any(|r| r.turn == turn && r.path == path)
            {
                self.request_read(now, turn, path, None);
            }
        }
    }

    /// `conn` is gone: its last edits are read, its turn ends.
    pub(super) fn ledger_client_gone(&mut self, now: Timestamp, conn: ConnId) {
        if !self.config.ledger {
            return;
        }
        self.ledger_edits_ended(now, conn);
        self.ledger.ledger.close_turn_of(conn);
        self.report_turn_changes();
    }

    /// The CLI's pre-edit `getDiagnostics {uri}` of `path`: the baseline is read, then the
    /// call answered. The turn's other unfinished edits ended with it.
    pub(super) fn ledger_pre_edit(
        &mut self,
        now: Timestamp,
        conn: ConnId,
        rpc_id: OwnedRequestId,
        arguments: Option<Box<RawValue>>,
        path: String,
    ) {
        let turn = match self.ledger.ledger.open_turn(conn) {
            Some(turn) => turn,
            // A session whose prompt started before the engine did.
            None => self.ledger.ledger.start_turn(now, conn),
        };
        let held = HeldCall {
            conn,
            rpc_id,
            arguments,
            settle_first: false,
        };
        let kept = self.ledger_path_of_claudes(&path);
        for other in self.ledger.ledger.unsettled(turn) {
            if kept.as_ref() != Ok(&other) {
                self.request_read(now, turn, other, None);
            }
        }
        let path = match kept {
            Ok(path) => path,
            Err(reason) => {
                // Claude's call is answered as without the ledger; the file is not kept.
                self.ledger.ledger.left_out(turn, &path, reason);
                self.report_turn_changes();
                return self.answer_held(held);
            }
        };
        let settle_first = self.ledger.ledger.unsettled(turn).contains(&path);
        let held = HeldCall {
            settle_first,
            ..held
        };
        self.request_read(now, turn, path, Some(held));
        self.report_turn_changes();
    }

    /// An `openDiff` of `path` from `conn` was accepted: its edit is reviewed, and the CLI
    /// writes `text` (when known).
    pub(super) fn ledger_diff_accepted(&mut self, conn: ConnId, path: &str, text: Option<&str>) {
        if !self.config.ledger {
            return;
        }
        let Ok(path) = self.ledger_path_of_claudes(path) else {
            return;
        };
        let path = path.as_str();
        self.ledger.ledger.diff_answered(conn, path);
        if let Some(text) = text {
            self.ledger.ledger.accepted(conn, path, text);
        }
    }

    /// Reads past their deadline count as unread.
    pub(super) fn ledger_timeouts(&mut self, now: Timestamp) {
        let (due, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut self.ledger.reads)
            .into_iter()
            .partition(|read| read.deadline <= now);
        self.ledger.reads = kept;
        for read in due {
            let reason = format!(
                "the host did not answer within {} ms",
                self.config.ledger_read_deadline_ms
            );
            self.ledger_read_done(read, FileContent::Unread { reason });
        }
    }

    pub(super) fn ledger_deadline(&self) -> Option<Timestamp> {
        self.ledger.next_deadline()
    }

    fn request_read(&mut self, now: Timestamp, turn: TurnId, path: String, held: Option<HeldCall>) {
        let id = self.ledger.next_id();
        self.conns.event(EngineEvent::LedgerRead {
            read: id,
            path: path.clone(),
        });
        self.ledger.reads.push(PendingRead {
            id,
            turn,
            path,
            deadline: now.add_millis(self.config.ledger_read_deadline_ms),
            held,
        });
    }

    /// A read came back (or timed out): a baseline is taken and its held call answered, an
    /// ended edit settled.
    fn ledger_read_done(&mut self, read: PendingRead, content: FileContent) {
        let ledger = &mut self.ledger.ledger;
        match read.held {
            Some(held) => {
                if held.settle_first {
                    ledger.settle(read.turn, &read.path, content.clone());
                }
                ledger.baseline(read.turn, &read.path, content);
                self.report_turn_changes();
                self.answer_held(held);
            }
            None => {
                ledger.settle(read.turn, &read.path, content);
                self.report_turn_changes();
            }
        }
    }

    /// Answers a held pre-edit call from the state as it is now (its client still there).
    fn answer_held(&mut self, held: HeldCall) {
        if !self.conns.is_live(held.conn) {
            return;
        }
        self.writer.clear();
        let now = self.now;
        self.service.held_diagnostics(
            now,
            held.conn,
            &held.rpc_id,
            held.arguments.as_deref(),
            &self.config,
            &mut self.writer,
        );
        self.send_written(held.conn);
        self.report_too_large(Some(held.conn));
    }

    /// Reports what the ledger changed as events.
    fn report_turn_changes(&mut self) {
        for change in self.ledger.ledger.take_changes() {
            self.conns.event(EngineEvent::TurnChanged { change });
        }
    }
}
