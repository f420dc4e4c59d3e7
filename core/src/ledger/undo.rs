//! Undoing a hunk, a file or a whole turn: planned against what the ledger knows, refused
//! with the reason when claude (or anyone) changed the file since, and carried out by the
//! host as a compare-and-write: it writes only when the file still holds `expected`.

use serde::{Deserialize, Serialize};
use std::fmt;

use super::book::Ledger;
use super::content::FileContent;
use super::diff;
use super::turn::{FileChange, TurnId};

/// What to undo. JSON form, tagged by `"undo"`:
///
/// ```json
/// {"undo":"hunk","turn":3,"path":"/w/a.rs","revision":2,"hunk":0}
/// {"undo":"file","turn":3,"path":"/w/a.rs"}
/// {"undo":"turn","turn":3}
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "undo",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum UndoTarget {
    /// Hunk number `hunk` (0-based) of the file as shown at `revision`.
    Hunk {
        /// The turn.
        turn: TurnId,
        /// The file.
        path: String,
        /// The file's [`FileChange::revision`] the hunk was shown at.
        revision: u32,
        /// The hunk's index in [`FileChange::hunks`].
        hunk: u32,
    },
    /// The whole file back to its baseline (a file claude created is deleted, one it deleted
    /// is written again).
    File {
        /// The turn.
        turn: TurnId,
        /// The file.
        path: String,
    },
    /// Every file of the turn back to its baseline.
    Turn {
        /// The turn.
        turn: TurnId,
    },
}

/// One write the host carries out for an undo: only when the file still holds `expected`
/// (its text, or no file for [`FileContent::Missing`]), else it answers a conflict and
/// writes nothing (never a silent overwrite).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FileWrite {
    /// The turn whose change is undone.
    pub turn: TurnId,
    /// The file.
    pub path: String,
    /// What it must hold now.
    pub expected: FileContent,
    /// What to write; `None`: delete the file.
    pub text: Option<String>,
}

/// Why an undo was refused; its text says what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndoRefused(pub String);

impl fmt::Display for UndoRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UndoRefused {}

fn refuse<T>(reason: String) -> Result<T, UndoRefused> {
    Err(UndoRefused(reason))
}

impl Ledger {
    /// The writes that undo `target`, or why not. Nothing changes until the host reports
    /// each write done.
    pub fn plan_undo(&self, target: &UndoTarget) -> Result<Vec<FileWrite>, UndoRefused> {
        let turn_id = match target {
            UndoTarget::Hunk { turn, .. }
            | UndoTarget::File { turn, .. }
            | UndoTarget::Turn { turn } => *turn,
        };
        let Some(turn) = self.turn(turn_id) else {
            return refuse(format!(
                "{turn_id} is not in the ledger (never started, or dropped for its budget)"
            ));
        };
        let file_of = |path: &str| match turn.file(path) {
            Some(file) => Ok(file),
            None => refuse(format!("{turn_id} did not change {path}")),
        };
        match target {
            UndoTarget::Hunk {
                path,
                revision,
                hunk,
                ..
            } => {
                let file = file_of(path)?;
                self.undoable(turn_id, file)?;
                if file.revision != *revision {
                    return refuse(format!(
                        "{path} changed again since its hunks were shown (revision {revision}, \
                         now {}): look at its hunks again",
                        file.revision
                    ));
                }
                let Some(found) = file.hunks.get(*hunk as usize) else {
                    return refuse(format!(
                        "{path} has {} hunks in {turn_id}, no hunk {hunk}",
                        file.hunks.len()
                    ));
                };
                let (Some(old), Some(new)) = (file.baseline_text(), file.current_text()) else {
                    return refuse(format!("{path}: its text is not kept, undo the whole file"));
                };
                let text = diff::undo_hunk(old, new, *found);
                // The hunk was the whole change: the file is put back as it was (a created
                // file deleted again, a deleted one written again), not as an empty text.
                if text == old {
                    return Ok(vec![restore(turn_id, file)?]);
                }
                Ok(vec![write(turn_id, file, Some(text))])
            }
            UndoTarget::File { path, .. } => Ok(vec![self.file_undo(turn_id, file_of(path)?)?]),
            UndoTarget::Turn { .. } => {
                let mut writes = Vec::new();
                let mut reasons = Vec::new();
                for file in turn.files.iter().filter(|file| file.changed()) {
                    match self.file_undo(turn_id, file) {
                        Ok(w) => writes.push(w),
                        Err(UndoRefused(reason)) => reasons.push(reason),
                    }
                }
                if !reasons.is_empty() {
                    return refuse(reasons.join("; "));
                }
                if writes.is_empty() {
                    return refuse(format!("{turn_id} left every file as it was"));
                }
                Ok(writes)
            }
        }
    }

    /// The write that puts `file` back to its baseline, or why not. A file that also changed
    /// outside claude during the turn is not put back whole: that would drop the outside
    /// change with claude's, unseen; its hunks are undone one by one, each shown first.
    fn file_undo(&self, turn: TurnId, file: &FileChange) -> Result<FileWrite, UndoRefused> {
        self.undoable(turn, file)?;
        let path = &file.path;
        if file.current == file.baseline {
            return refuse(format!("{path} is already as it was before {turn}"));
        }
        if file.outside_change {
            return refuse(format!(
                "{path} also changed outside claude during {turn}: undoing the whole file \
                 would drop that change too; undo its hunks one by one (t shows them)"
            ));
        }
        restore(turn, file)
    }

    /// Refuses an undo of `file` that would overwrite a change the ledger cannot vouch for.
    fn undoable(&self, turn: TurnId, file: &FileChange) -> Result<(), UndoRefused> {
        let path = &file.path;
        if let Some(later) = self.later_change(turn, path) {
            return refuse(format!(
                "{later} changed {path} after {turn}: undo {later}'s change first"
            ));
        }
        if !file.settled {
            return refuse(format!(
                "claude is still editing {path}: wait for its edit to end"
            ));
        }
        match &file.current {
            FileContent::Text { .. } | FileContent::Missing => Ok(()),
            other => refuse(format!(
                "{path}: its content now is not kept ({}), so an undo could not check it",
                other.summary()
            )),
        }
    }
}

/// The write that puts `file` back to its baseline, or why it cannot.
fn restore(turn: TurnId, file: &FileChange) -> Result<FileWrite, UndoRefused> {
    match &file.baseline {
        FileContent::Text { text } => Ok(write(turn, file, Some(text.clone()))),
        FileContent::Missing => Ok(write(turn, file, None)),
        other => refuse(format!(
            "{}: its content before {turn} was not kept ({}), so it cannot be restored",
            file.path,
            other.summary()
        )),
    }
}

fn write(turn: TurnId, file: &FileChange, text: Option<String>) -> FileWrite {
    FileWrite {
        turn,
        path: file.path.clone(),
        expected: file.current.clone(),
        text,
    }
}
