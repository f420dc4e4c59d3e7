//! A turn as a value: the files one prompt of one client changed, each with its baseline,
//! its current content and the hunks between them.

use serde::{Deserialize, Serialize};
use std::fmt;

use super::content::FileContent;
use super::diff::{self, Hunk};
use crate::engine::ConnId;

/// One turn, numbered by the ledger from 1 in start order. Never reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TurnId(pub(crate) u64);

impl TurnId {
    /// The number (for lists and bindings).
    pub fn as_u64(self) -> u64 {
        self.0
    }

    /// The id with this number, as returned earlier by [`as_u64`](Self::as_u64).
    pub fn from_u64(n: u64) -> Self {
        TurnId(n)
    }
}

impl fmt::Display for TurnId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "turn {}", self.0)
    }
}

/// Who changed a file of a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum ChangedBy {
    /// An Edit or Write of claude's: the CLI announced it (`getDiagnostics {uri}` before it).
    Claude,
    /// The host's file watcher saw the file change during the turn with no announcement (a
    /// Bash `sed`, a generator): "seen on disk".
    SeenOnDisk,
}

/// One file of a turn.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FileChange {
    /// The file (normalized).
    pub path: String,
    /// Who changed it first in this turn.
    pub changed_by: ChangedBy,
    /// Every claude edit of it in this turn went through an `openDiff` the editor answered
    /// ("reviewed"); false when any was accepted without the IDE ("auto").
    pub reviewed: bool,
    /// Before the turn's first change of it.
    pub baseline: FileContent,
    /// As last read (after the edit, an undo, or a change seen on disk).
    pub current: FileContent,
    /// Bumped each time `current` changes: an undo of a hunk names the revision it was shown
    /// at, so a hunk claude changed since is never undone blind.
    pub revision: u32,
    /// False while claude is editing it (baseline taken, its edit not ended yet).
    pub settled: bool,
    /// The file changed in a way claude did not announce: between two of its edits, or to
    /// other text than the accepted diff's.
    pub outside_change: bool,
    /// The hunks from `baseline` to `current` (none when either is not text).
    pub hunks: Vec<Hunk>,
}

impl FileChange {
    pub(crate) fn new(path: String, by: ChangedBy, reviewed: bool, baseline: FileContent) -> Self {
        FileChange {
            path,
            changed_by: by,
            reviewed,
            current: baseline.clone(),
            baseline,
            revision: 0,
            settled: false,
            outside_change: false,
            hunks: Vec::new(),
        }
    }

    /// Sets `current`; true (and a new revision, hunks recomputed) when it changed.
    pub(crate) fn set_current(&mut self, content: FileContent) -> bool {
        if content == self.current {
            return false;
        }
        self.current = content;
        self.revision += 1;
        self.hunks = match (self.baseline_text(), self.current_text()) {
            (Some(old), Some(new)) => diff::hunks(old, new),
            _ => Vec::new(),
        };
        true
    }

    /// The baseline as text: a missing file is the empty text (a creation is one hunk).
    pub(crate) fn baseline_text(&self) -> Option<&str> {
        match &self.baseline {
            FileContent::Missing => Some(""),
            other => other.text(),
        }
    }

    /// The current content as text: a missing file is the empty text (a deletion is one hunk,
    /// every line removed, so undoing that hunk writes the file again).
    pub(crate) fn current_text(&self) -> Option<&str> {
        match &self.current {
            FileContent::Missing => Some(""),
            other => other.text(),
        }
    }

    /// True when it holds other content than before the turn's first change of it.
    pub fn changed(&self) -> bool {
        self.current != self.baseline
    }

    /// Lines added and removed across the hunks.
    pub fn added_removed(&self) -> (u32, u32) {
        self.hunks.iter().fold((0, 0), |(add, del), h| {
            (add + h.new_lines, del + h.old_lines)
        })
    }

    /// The bytes of text it holds.
    pub(crate) fn held_bytes(&self) -> usize {
        self.baseline.held_bytes() + self.current.held_bytes()
    }
}

/// One prompt's turn of one client.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Turn {
    /// Its number.
    pub id: TurnId,
    /// The client whose prompt it is.
    pub conn: ConnId,
    /// When its `closeAllDiffTabs` came (the host's milliseconds, [`Timestamp::as_millis`](crate::Timestamp::as_millis)).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub started_ms: u64,
    /// Ended: the client's next prompt started, or it disconnected.
    pub closed: bool,
    /// Its files, in the order they were first changed.
    pub files: Vec<FileChange>,
    /// Paths whose `openDiff` the editor answered, waiting for their edit's baseline.
    #[serde(skip)]
    pub(crate) reviewed_next: Vec<String>,
    /// Paths of accepted diffs with the SHA-1 of the text the CLI writes, until their edit
    /// ends.
    #[serde(skip)]
    pub(crate) expected: Vec<(String, String)>,
    /// Paths claude is editing with the versions the host's watcher saw of them since their
    /// baseline (at most [`MAX_SEEN_EDITING`] each), until their edit ends.
    #[serde(skip)]
    pub(crate) seen_editing: Vec<(String, Vec<SeenVersion>)>,
}

/// A version of a file the host's watcher saw while claude was editing it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SeenVersion {
    /// Its digest ([`FileContent::version`](super::FileContent)).
    pub(crate) digest: String,
    /// Its length in bytes when it was text: a text the edit's result starts with is that
    /// write in progress.
    pub(crate) text_len: Option<usize>,
}

/// The versions of one file kept from the watcher during one edit of claude's. One Edit or
/// Write of the CLI writes the file once, but a write truncates the file and then fills it,
/// perhaps in pieces, so the watcher may read pieces of it first (each a prefix of the result);
/// any other version proves a second writer.
pub const MAX_SEEN_EDITING: usize = 4;

impl Turn {
    /// The file `path` of this turn.
    pub fn file(&self, path: &str) -> Option<&FileChange> {
        self.files.iter().find(|file| file.path == path)
    }

    pub(crate) fn file_mut(&mut self, path: &str) -> Option<&mut FileChange> {
        self.files.iter_mut().find(|file| file.path == path)
    }

    /// True when every file it changed went through a reviewed diff. A file back as it began
    /// changed nothing: the temporary file of a writer's atomic save (`greeting.txt.tmp.…`,
    /// renamed over the file a moment later) that the watcher read while it was there joins
    /// the turn as "seen on disk", then is missing again, and must not make a reviewed turn
    /// "auto".
    pub fn reviewed(&self) -> bool {
        self.files
            .iter()
            .filter(|file| file.changed())
            .all(|file| file.reviewed)
    }

    pub(crate) fn held_bytes(&self) -> usize {
        self.files.iter().map(FileChange::held_bytes).sum()
    }
}
