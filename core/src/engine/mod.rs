//! The engine: connections, routing, timers. Wires `http` → `ws` → `rpc` → `mcp` → `ide`.

mod answers;
mod calls;
mod config;
mod connection;
mod error;
mod machine;
mod notify;
mod output;

pub use config::{Config, SessionPolicy};
pub use error::EngineError;
pub use machine::{Engine, SUPERSEDED_CODE, SUPERSEDED_REASON};
pub use output::{CancelReason, CloseReason, ConnId, Event, Output, ToolCallId};

#[cfg(test)]
mod tests;
