//! The turn ledger through the host (docs/protocol.md, "A turn's signals"): the engine's
//! `LedgerRead` and `LedgerWrite` events come as [`HostEvent::Engine`](crate::HostEvent), and
//! the editor answers them here, reads the ledger, reports a watcher's change, and undoes.
//! Each call runs on the engine task in order with the other inputs.

use crate::host::Host;
use idelink_core::EngineError;
use idelink_core::ledger::{FileContent, Turn, UndoRefused, UndoTarget};
use idelink_host::HostError;

/// Why a ledger answer was not taken: the engine refused it, or the host has stopped.
#[derive(Debug)]
pub enum LedgerError {
    /// The engine refused it (an unknown read or write: never asked, answered, or past the
    /// deadline).
    Engine(EngineError),
    /// The host has stopped.
    Host(HostError),
}

impl std::fmt::Display for LedgerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LedgerError::Engine(e) => e.fmt(f),
            LedgerError::Host(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for LedgerError {}

impl Host {
    /// Every turn the ledger holds, oldest first (a copy; `TurnChanged` events report each
    /// change). Empty unless the config has `ledger: true`.
    pub async fn ledger(&self) -> Result<Vec<Turn>, HostError> {
        self.on_engine(|engine, _| engine.ledger().turns().cloned().collect())
            .await
    }

    /// The editor's answer to `LedgerRead { read, .. }`: what the file holds now (from its
    /// buffer when open, else from disk). The claude call waiting for it is answered then.
    pub async fn handle_ledger_read(
        &self,
        read: u64,
        content: FileContent,
    ) -> Result<(), LedgerError> {
        self.on_engine(move |engine, now| engine.handle_ledger_read(now, read, &content))
            .await
            .map_err(LedgerError::Host)?
            .map_err(LedgerError::Engine)
    }

    /// The editor carried out `LedgerWrite { write, file }` as a compare-and-write (it wrote
    /// `file.text` only while the file held `file.expected`): `now_holds` is what it holds.
    pub async fn handle_ledger_written(
        &self,
        write: u64,
        now_holds: FileContent,
    ) -> Result<(), LedgerError> {
        self.on_engine(move |engine, now| engine.handle_ledger_written(now, write, &now_holds))
            .await
            .map_err(LedgerError::Host)?
            .map_err(LedgerError::Engine)
    }

    /// The editor's file watcher saw `path` change from `previous` to `content` with no
    /// claude call announcing it ("seen on disk").
    pub async fn handle_file_seen(
        &self,
        path: String,
        content: FileContent,
        previous: FileContent,
    ) -> Result<(), HostError> {
        self.on_engine(move |engine, now| engine.handle_file_seen(now, &path, &content, &previous))
            .await
    }

    /// Undoes a hunk, a file or a turn: the writes come as `LedgerWrite` events. `Err` with
    /// the reason when it is refused (the file changed again since) or the host has stopped.
    pub async fn ledger_undo(&self, target: UndoTarget) -> Result<(), UndoRefused> {
        self.on_engine(move |engine, now| engine.ledger_undo(now, &target))
            .await
            .map_err(|e| UndoRefused(e.to_string()))?
    }
}
