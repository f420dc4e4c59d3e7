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
mod table;
mod writer;

pub use config::{Config, SessionPolicy};
pub use error::EngineError;
pub use machine::{Engine, SUPERSEDED_CODE, SUPERSEDED_REASON};
pub use output::{CancelReason, CloseReason, ConnId, Event, Output, SentInstead, ToolCallId};

#[cfg(test)]
mod tests;
