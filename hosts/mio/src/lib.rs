//! # idelink-mio
//!
//! A loopback host for [`idelink_core`]: it binds `127.0.0.1` on an ephemeral port, mints the
//! auth token from OS entropy, writes the lock file the `claude` CLI discovers
//! (`<config>/ide/<port>.lock`, directory 0700, file 0600 written before it is renamed into
//! place), pumps sockets into the engine with partial writes and back-pressure, and removes the
//! lock when dropped.
//!
//! A native editor drives it from its own loop: [`Host::poll`] once per frame (or from a
//! thread, woken with [`Host::waker`]), [`Host::handle_editor_event`] when the selection or
//! documents change, [`Host::handle_tool_outcome`] when the user accepts or rejects a diff.
//! A read tool set to [`ReadSource::Editor`](idelink_core::ReadSource) in
//! `HostConfig::engine.reads` arrives as a tool call too (`ToolRequest::GetDiagnostics`, ...):
//! answer it with its typed outcome from the same loop, within `tool_deadline_ms`.
//!
//! Its socket loop is a public [`sockets::SocketTable`] (reads, writes with back-pressure, read
//! pauses, linger), which other mio loops over sockets can reuse. What any native host does
//! around binding its port (the token, the engine's setup, the lock file) is public too, in
//! [`setup`] and [`lock`], so a host on another runtime (`idelink-tokio`) shares it; so is the
//! one way every native reader reads a file someone else named ([`regular_file`]).
//!
//! A headless or automated run opens no socket and writes no lock unless it opts in
//! ([`HostConfig::serve_when_headless`]).

mod config;
mod error;
mod host;
pub mod lock;
pub mod regular_file;
pub mod setup;
pub mod sockets;
#[cfg(windows)]
#[allow(unsafe_code)]
pub mod windows;

pub use config::{HostConfig, LockPlacement, PortChoice};
pub use error::HostError;
pub use host::Host;
/// Wakes a blocked [`Host::poll`] from another thread (see [`Host::waker`]).
pub use mio::Waker;
