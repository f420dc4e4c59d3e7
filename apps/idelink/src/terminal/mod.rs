//! `idelink serve` with no editor attached: the files on disk are the documents and claude's
//! proposed edits are reviewed in this terminal.
//!
//! The loop ([`run`](run::run)) polls the host, prints one status line per event (closes
//! before authentication in aggregate, [`handshake_closes`]), answers `openFile` and
//! `saveDocument` from the file system
//! ([`WorkspaceEditor`](workspace_editor::WorkspaceEditor)), and queues `openDiff` proposals
//! for review one at a time. Everything a peer or the model sent is made inert before it is
//! printed ([`inert`]), and nothing the review does blocks the loop ([`reviewer`]). A proposal
//! too large to show as a diff is summarized, and accepting a summary takes more than `a`
//! ([`review`]). A line that is a command ([`commands`], listed by `?`) works at any time, a
//! diff under review or not. Nothing here writes a workspace file: after an accept, claude
//! writes the file itself (docs/protocol.md §4).

mod commands;
mod diff_view;
mod editor_command;
mod file_read;
mod handshake_closes;
pub(crate) mod inert;
mod input;
pub(crate) mod ledger_files;
mod prepare;
mod review;
mod reviewer;
mod run;
mod screen;
mod status;
mod turns;
mod watch;
mod workspace_editor;

pub use run::{TerminalOptions, run};
pub use workspace_editor::DiffPolicy;
