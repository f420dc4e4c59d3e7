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
//! around binding its port (the configuration, the token, the bind, the lock file) is
//! [`idelink_host`]'s, which `idelink-tokio` shares; [`HostConfig`] and [`HostError`] are
//! re-exported here because [`Host::start`] takes and returns them.
//!
//! A headless or automated run opens no socket and writes no lock unless it opts in
//! ([`HostConfig::serve_when_headless`]).

mod host;
pub mod pipes;
pub mod sockets;

pub use host::{Host, OnLinkEvent};
pub use idelink_host::{HostConfig, HostError, LockPlacement, PortChoice, ResumeOutcome};
/// Wakes a blocked [`Host::poll`] from another thread (see [`Host::waker`]).
pub use mio::Waker;
pub use pipes::{LinkPipes, LinkStream, PipeEnd};
