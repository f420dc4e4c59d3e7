//! The turn ledger: every file claude changed in a prompt's turn, hunk by hunk, whether its
//! edits were reviewed in a diff or auto-accepted (docs/protocol.md, "A turn's signals").
//!
//! A turn starts at a client's `closeAllDiffTabs` and ends at its next one or when it
//! disconnects. Before each edit the CLI calls `getDiagnostics {uri}` and waits for the
//! answer: the engine asks the host for the file's content first ([`FileContent`], the
//! baseline), then answers. The edit has ended at the next `getDiagnostics {}`, the next
//! pre-edit call, or the turn's end: the engine asks for the content again. A host's file
//! watcher reports changes no call announced (a Bash `sed`) as "seen on disk".
//!
//! Everything here is a value the engine updates ([`Ledger`]); it does no I/O. An undo
//! ([`UndoTarget`]) is planned as [`FileWrite`]s the host carries out as compare-and-write.

mod book;
mod content;
mod diff;
mod turn;
mod undo;

pub use book::{Ledger, LedgerLimits, TurnChange};
pub use content::{FileContent, sha1_hex};
pub use diff::{Hunk, MAX_DIFF_EDITS, hunks, lines, undo_hunk};
pub use turn::{ChangedBy, FileChange, Turn, TurnId};
pub use undo::{FileWrite, UndoRefused, UndoTarget};

#[cfg(test)]
mod tests;
