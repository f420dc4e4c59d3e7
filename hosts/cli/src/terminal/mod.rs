//! `idelink serve` with no editor attached: the files on disk are the documents and claude's
//! proposed edits are reviewed in this terminal.
//!
//! The loop ([`run`]) polls the host, prints one status line per event, answers `openFile` and
//! `saveDocument` from the file system ([`WorkspaceEditor`]), and queues `openDiff` proposals
//! for review one at a time. Nothing here writes a workspace file: after an accept, claude
//! writes the file itself (docs/protocol.md §4).

mod diff_view;
mod input;
mod review;
mod run;
mod status;
mod workspace_editor;

pub use run::{TerminalOptions, run};
