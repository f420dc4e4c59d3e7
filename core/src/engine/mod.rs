//! The engine: connections, routing, timers. Wires `http` → `ws` → `rpc` → `mcp` → `ide`.

mod calls;
mod client;
mod config;
mod connection;
mod error;
mod machine;
mod outbound;
mod output;
mod proposals;
mod push_schedule;
mod selection_cache;
mod service;
mod sessions;
mod table;
mod writer;

pub use config::{Config, SessionPolicy};
pub use error::EngineError;
pub use machine::{Engine, SUPERSEDED_CODE, SUPERSEDED_REASON};
#[expect(
    deprecated,
    reason = "the 0.1.0 name, re-exported for code written against it"
)]
pub use output::Event;
pub use output::{CancelReason, CloseReason, ConnId, EngineEvent, Output, SentInstead, ToolCallId};
pub use sessions::{MAX_SESSION_ROOTS, Routing, SessionChoice, SessionInfo};

#[cfg(test)]
mod tests;
