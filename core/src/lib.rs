//! idelink-core: the sans-IO engine for the IDE side of the Claude Code IDE protocol.
//!
//! (The manual — run loop, time model, error policy, security model, limits — is written
//! here as the engine takes shape.)

pub mod mcp;
pub mod rpc;
pub mod time;

pub use time::Timestamp;
