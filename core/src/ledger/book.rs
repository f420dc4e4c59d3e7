//! The ledger: every client's turns, oldest first, within a memory budget. Sans-IO: the
//! engine feeds it what the CLI signals and what the host reads, and drains the
//! [`TurnChange`]s it reports.

use std::collections::VecDeque;

use serde::Serialize;

use super::content::{FileContent, sha1_hex};
use super::turn::{ChangedBy, FileChange, MAX_SEEN_EDITING, SeenVersion, Turn, TurnId};
use crate::engine::ConnId;
use crate::time::Timestamp;

/// The ledger's limits (from [`Config`](crate::Config)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LedgerLimits {
    /// The most bytes of file text all turns hold together (baselines and current texts).
    /// Past it the oldest ended turns are dropped (reported); a change the open turns alone
    /// cannot hold is kept as a summary.
    pub max_bytes: usize,
    /// The most bytes of one file's text kept; a bigger file is kept as its size and digest.
    pub max_file_bytes: usize,
}

/// How the ledger grew or shrank, in order. JSON form tagged by `"change"`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(
    tag = "change",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum TurnChange {
    /// A client's prompt started a turn.
    Started {
        /// The turn.
        turn: TurnId,
        /// Its client.
        conn: ConnId,
    },
    /// A file joined the turn (its baseline is taken).
    FileAdded {
        /// The turn.
        turn: TurnId,
        /// The file.
        path: String,
        /// Claude's announced edit, or a change seen on disk.
        changed_by: ChangedBy,
    },
    /// A file's current content, and so its hunks, changed.
    FileChanged {
        /// The turn.
        turn: TurnId,
        /// The file.
        path: String,
        /// Its new revision.
        revision: u32,
        /// Its hunks now.
        hunks: u32,
        /// Lines added across them.
        added: u32,
        /// Lines removed across them.
        removed: u32,
    },
    /// The turn ended (its client's next prompt, or its client left).
    Closed {
        /// The turn.
        turn: TurnId,
    },
    /// Claude announced an edit of a file the ledger does not keep: outside every path
    /// mapping, outside the workspace folders, or one the host would not read there
    /// ([`FileContent::Outside`]). Its call was answered as without the ledger.
    LeftOut {
        /// The turn.
        turn: TurnId,
        /// The file as claude named it (or as the ledger spells it, when the host refused
        /// it): a report, never a path to act on.
        path: String,
        /// Why, for a person.
        reason: String,
    },
    /// These turns were dropped to stay within `max_ledger_bytes`, oldest first.
    Dropped {
        /// The turns.
        turns: Vec<TurnId>,
    },
}

/// Every client's turns, oldest first.
#[derive(Debug)]
pub struct Ledger {
    turns: VecDeque<Turn>,
    last_id: u64,
    limits: LedgerLimits,
    changes: Vec<TurnChange>,
}

impl Ledger {
    /// An empty ledger.
    pub fn new(limits: LedgerLimits) -> Self {
        Ledger {
            turns: VecDeque::new(),
            last_id: 0,
            limits,
            changes: Vec::new(),
        }
    }

    /// The turns held, oldest first.
    pub fn turns(&self) -> impl Iterator<Item = &Turn> {
        self.turns.iter()
    }

    /// Turn `id`, if held.
    pub fn turn(&self, id: TurnId) -> Option<&Turn> {
        self.turns.iter().find(|turn| turn.id == id)
    }

    /// The open turn of `conn`, if any.
    pub fn open_turn(&self, conn: ConnId) -> Option<TurnId> {
        self.turns
            .iter()
            .rev()
            .find(|turn| turn.conn == conn && !turn.closed)
            .map(|turn| turn.id)
    }

    /// The bytes of file text held.
    pub fn held_bytes(&self) -> usize {
        self.turns.iter().map(Turn::held_bytes).sum()
    }

    /// The changes since the last call, in order.
    pub fn take_changes(&mut self) -> Vec<TurnChange> {
        std::mem::take(&mut self.changes)
    }

    /// `conn`'s prompt started (`closeAllDiffTabs`): its open turn ends, a new one starts.
    pub fn start_turn(&mut self, now: Timestamp, conn: ConnId) -> TurnId {
        self.close_turn_of(conn);
        self.last_id += 1;
        let id = TurnId(self.last_id);
        self.turns.push_back(Turn {
            id,
            conn,
            started_ms: now.as_millis(),
            closed: false,
            files: Vec::new(),
            reviewed_next: Vec::new(),
            expected: Vec::new(),
            seen_editing: Vec::new(),
        });
        self.changes.push(TurnChange::Started { turn: id, conn });
        id
    }

    /// `conn`'s open turn ends (it disconnected, or its next prompt starts).
    pub fn close_turn_of(&mut self, conn: ConnId) {
        if let Some(turn) = self.open_turn(conn).and_then(|id| self.turn_mut(id)) {
            turn.closed = true;
            let id = turn.id;
            self.changes.push(TurnChange::Closed { turn: id });
        }
    }

    /// The editor answered an `openDiff` of `path` for `conn`: the edit that follows (its
    /// baseline comes after the answer) was reviewed.
    pub fn diff_answered(&mut self, conn: ConnId, path: &str) {
        if let Some(turn) = self.open_turn(conn).and_then(|id| self.turn_mut(id)) {
            turn.reviewed_next.push(path.to_owned());
        }
    }

    /// The content of `path` just before claude edits it in turn `turn` (the pre-edit
    /// `getDiagnostics {uri}`). The turn's first baseline of a file stays its baseline; a
    /// file that changed since claude's last edit of it in this turn is marked
    /// `outside_change` and its current content updated first.
    pub fn baseline(&mut self, turn: TurnId, path: &str, content: FileContent) {
        if let FileContent::Outside { reason } = content {
            return self.left_out(turn, path, reason);
        }
        let content = self.fit(content);
        let Some(t) = self.turn_mut(turn) else {
            return;
        };
        let reviewed = match t.reviewed_next.iter().position(|p| p == path) {
            Some(at) => {
                t.reviewed_next.remove(at);
                true
            }
            None => false,
        };
        let change = if let Some(file) = t.file_mut(path) {
            file.reviewed &= reviewed;
            let outside = file.settled && file.set_current(content);
            file.outside_change |= outside;
            file.settled = false;
            outside.then(|| file_changed(turn, file))
        } else {
            let file = FileChange::new(path.to_owned(), ChangedBy::Claude, reviewed, content);
            t.files.push(file);
            Some(TurnChange::FileAdded {
                turn,
                path: path.to_owned(),
                changed_by: ChangedBy::Claude,
            })
        };
        self.changes.extend(change);
        self.enforce_budget();
    }

    /// Claude's edit of `path` in turn `turn` is not kept, for `reason`.
    pub fn left_out(&mut self, turn: TurnId, path: &str, reason: String) {
        self.changes.push(TurnChange::LeftOut {
            turn,
            path: path.to_owned(),
            reason,
        });
    }

    /// The files of turn `turn` claude is editing (baseline taken, edit not ended).
    pub fn unsettled(&self, turn: TurnId) -> Vec<String> {
        self.turn(turn).map_or_else(Vec::new, |t| {
            t.files
                .iter()
                .filter(|file| !file.settled)
                .map(|file| file.path.clone())
                .collect()
        })
    }

    /// The content of `path` once claude's edit of it in turn `turn` ended.
    pub fn settle(&mut self, turn: TurnId, path: &str, content: FileContent) {
        let content = self.fit(content);
        let written = content.version();
        let Some(t) = self.turn_mut(turn) else {
            return;
        };
        let expected = t
            .expected
            .iter()
            .position(|(p, _)| p == path)
            .map(|at| t.expected.remove(at).1);
        let seen = t
            .seen_editing
            .iter()
            .position(|(p, _)| p == path)
            .map_or_else(Vec::new, |at| t.seen_editing.remove(at).1);
        let Some(file) = t.file_mut(path) else {
            return;
        };
        file.settled = true;
        if let Some(digest) = expected {
            file.outside_change |= written.as_deref() != Some(digest.as_str());
        }
        // The watcher saw a version after the baseline that is neither the edit's result nor a
        // piece of that write in progress: two writers (claude's one write, and someone else's
        // before or after it).
        file.outside_change |= seen
            .iter()
            .any(|v| !of_claudes_write(v, &content, written.as_deref()));
        let change = file.set_current(content).then(|| file_changed(turn, file));
        self.changes.extend(change);
        self.enforce_budget();
    }

    /// The editor accepted a diff of `path` for `conn` and the CLI now writes exactly `text`
    /// ([`EngineEvent::FileReplaced`](crate::EngineEvent::FileReplaced)): when the edit ends
    /// with other content, the file also changed outside claude in between.
    pub fn accepted(&mut self, conn: ConnId, path: &str, text: &str) {
        if let Some(turn) = self.open_turn(conn).and_then(|id| self.turn_mut(id)) {
            turn.expected.retain(|(p, _)| p != path);
            turn.expected
                .push((path.to_owned(), sha1_hex(text.as_bytes())));
        }
    }

    /// The host's file watcher saw `path` change to `content`, with no announcement. In the
    /// newest open turn holding the file and not editing it, its current content is updated;
    /// a file no open turn holds joins the newest open turn as "seen on disk", its baseline
    /// `previous` (the editor's buffer or the last content the ledger saw). Outside any open
    /// turn it is the user's change, not the ledger's.
    pub fn seen_on_disk(&mut self, path: &str, content: FileContent, previous: FileContent) {
        if matches!(content, FileContent::Outside { .. }) {
            return;
        }
        let content = self.fit(content);
        let Some(at) = self.turns.iter().rposition(|turn| !turn.closed) else {
            return;
        };
        let holder = self
            .turns
            .iter()
            .rposition(|turn| !turn.closed && turn.file(path).is_some());
        if let Some(h) = holder {
            let turn = &mut self.turns[h];
            let id = turn.id;
            let Some(file) = turn.file_mut(path) else {
                return;
            };
            if !file.settled {
                // Claude is editing it: the version is kept for the edit's end to compare.
                let baseline = file.baseline.version();
                if let Some(digest) = content.version().filter(|v| Some(v) != baseline.as_ref()) {
                    let text_len = match &content {
                        FileContent::Text { text } => Some(text.len()),
                        _ => None,
                    };
                    let version = SeenVersion { digest, text_len };
                    seen_while_editing(&mut turn.seen_editing, path, version);
                }
                return;
            }
            if file.set_current(content) {
                file.outside_change |= file.changed_by == ChangedBy::Claude;
                let change = file_changed(id, file);
                self.changes.push(change);
            }
        } else {
            let previous = self
                .last_known(path)
                .cloned()
                .unwrap_or_else(|| self.fit(previous));
            if previous == content {
                return;
            }
            let turn = &mut self.turns[at];
            let id = turn.id;
            let mut file = FileChange::new(path.to_owned(), ChangedBy::SeenOnDisk, false, previous);
            file.settled = true;
            file.set_current(content);
            let change = file_changed(id, &file);
            turn.files.push(file);
            self.changes.push(TurnChange::FileAdded {
                turn: id,
                path: path.to_owned(),
                changed_by: ChangedBy::SeenOnDisk,
            });
            self.changes.push(change);
        }
        self.enforce_budget();
    }

    /// An undo of turn `turn`'s change of `path` was written by the host: the file now holds
    /// `content`.
    pub fn undone(&mut self, turn: TurnId, path: &str, content: FileContent) {
        let content = self.fit(content);
        if let Some(file) = self.turn_mut(turn).and_then(|t| t.file_mut(path))
            && file.set_current(content)
        {
            let change = file_changed(turn, file);
            self.changes.push(change);
        }
    }

    /// The newest turn after `turn` that changed `path`, if any.
    pub(crate) fn later_change(&self, turn: TurnId, path: &str) -> Option<TurnId> {
        self.turns
            .iter()
            .rev()
            .find(|t| t.id > turn && t.file(path).is_some())
            .map(|t| t.id)
    }

    fn last_known(&self, path: &str) -> Option<&FileContent> {
        self.turns
            .iter()
            .rev()
            .find_map(|turn| turn.file(path))
            .map(|file| &file.current)
    }

    fn turn_mut(&mut self, id: TurnId) -> Option<&mut Turn> {
        self.turns.iter_mut().find(|turn| turn.id == id)
    }

    /// `content` within the per-file limit and within what the budget can hold once every
    /// ended turn is dropped.
    fn fit(&self, content: FileContent) -> FileContent {
        let open: usize = self
            .turns
            .iter()
            .filter(|turn| !turn.closed)
            .map(Turn::held_bytes)
            .sum();
        let room = self.limits.max_bytes.saturating_sub(open);
        content.within(self.limits.max_file_bytes.min(room))
    }

    /// Drops the oldest ended turns while the ledger is over `max_bytes`.
    fn enforce_budget(&mut self) {
        let mut dropped = Vec::new();
        while self.held_bytes() > self.limits.max_bytes {
            let Some(at) = self.turns.iter().position(|turn| turn.closed) else {
                break;
            };
            if let Some(turn) = self.turns.remove(at) {
                dropped.push(turn.id);
            }
        }
        if !dropped.is_empty() {
            self.changes.push(TurnChange::Dropped { turns: dropped });
        }
    }
}

/// Keeps `version` among those seen of `path` during its edit, up to [`MAX_SEEN_EDITING`]
/// distinct ones.
fn seen_while_editing(
    seen: &mut Vec<(String, Vec<SeenVersion>)>,
    path: &str,
    version: SeenVersion,
) {
    let at = match seen.iter().position(|(p, _)| p == path) {
        Some(at) => at,
        None => {
            seen.push((path.to_owned(), Vec::new()));
            seen.len() - 1
        }
    };
    let versions = &mut seen[at].1;
    if versions.len() < MAX_SEEN_EDITING && !versions.contains(&version) {
        versions.push(version);
    }
}

/// Whether `seen` is the version claude's edit ended with (`written`, its digest `digest`), or
/// a piece of that write in progress: a write truncates the file, then fills it, perhaps in
/// pieces, so what the watcher read may be any prefix of the result, empty included.
fn of_claudes_write(seen: &SeenVersion, written: &FileContent, digest: Option<&str>) -> bool {
    if Some(seen.digest.as_str()) == digest {
        return true;
    }
    match (written, seen.text_len) {
        (FileContent::Text { text }, Some(len)) => text
            .as_bytes()
            .get(..len)
            .is_some_and(|prefix| sha1_hex(prefix) == seen.digest),
        _ => false,
    }
}

fn file_changed(turn: TurnId, file: &FileChange) -> TurnChange {
    let (added, removed) = file.added_removed();
    TurnChange::FileChanged {
        turn,
        path: file.path.clone(),
        revision: file.revision,
        hunks: file.hunks.len() as u32,
        added,
        removed,
    }
}
