//! Host misuse of the engine API. Peer faults never surface here: they are answered on the wire.

use super::output::{ConnId, ToolCallId};
use crate::ide::OutcomeMismatch;
use std::fmt;

/// A call the host should not have made. The engine is unchanged by a call that returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EngineError {
    /// No connection with this id: never accepted, or already reported closed.
    UnknownConnection(ConnId),
    /// No pending tool request with this id: never handed out, already answered, or cancelled.
    UnknownToolCall(ToolCallId),
    /// The outcome does not fit the request (a saved diff for an `openFile`, say).
    OutcomeMismatch(ToolCallId, OutcomeMismatch),
    /// No pending ledger read with this number: never asked, already answered, or past its
    /// deadline.
    UnknownLedgerRead(u64),
    /// No pending ledger write with this number: never asked, or already answered.
    UnknownLedgerWrite(u64),
    /// `handle_sent` reported more bytes than were buffered.
    SentMoreThanBuffered {
        /// The connection.
        conn: ConnId,
        /// What the host reported.
        sent: usize,
        /// What was buffered.
        buffered: usize,
    },
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::UnknownConnection(conn) => write!(f, "unknown connection {conn}"),
            EngineError::UnknownToolCall(id) => {
                write!(
                    f,
                    "unknown tool call {id}: never issued, already answered, or cancelled"
                )
            }
            EngineError::OutcomeMismatch(id, mismatch) => write!(f, "{id}: {mismatch}"),
            EngineError::UnknownLedgerRead(read) => write!(
                f,
                "unknown ledger read {read}: never asked, already answered, or past its deadline"
            ),
            EngineError::UnknownLedgerWrite(write) => write!(
                f,
                "unknown ledger write {write}: never asked, or already answered"
            ),
            EngineError::SentMoreThanBuffered {
                conn,
                sent,
                buffered,
            } => write!(
                f,
                "{conn}: reported {sent} bytes sent, only {buffered} buffered"
            ),
        }
    }
}

impl std::error::Error for EngineError {}
