//! # idelink-tokio
//!
//! The [`idelink_core`] engine driven on a tokio runtime, for Rust editors that already run
//! one. Same shape as `idelink-mio`, on the same host layer ([`idelink_host`]: the
//! [`HostConfig`] with its port choice, lock placement and headless opt-in, the token, the
//! bind, and the lock-file system calls, which follow core's
//! [`host_rules`](idelink_core::host_rules)):
//!
//! - [`Host::start`] binds 127.0.0.1, mints the token from OS entropy, writes the lock file
//!   and spawns the engine as a task on the current runtime; it returns the [`Host`] (a handle
//!   the editor's tasks share) and the [`Events`] receiver.
//! - Editor events go in with [`Host::handle_editor_event`]; a change of workspace folders
//!   rewrites the lock file (core decides when).
//! - A tool call arrives as [`HostEvent::ToolCall`] carrying a [`ToolReply`]: a oneshot the
//!   editor answers once, from any task, now or later. Dropping it unanswered leaves the call
//!   to the engine's deadline (`Config::tool_deadline_ms`). [`Host::handle_tool_outcome`]
//!   answers by id instead. A read tool the engine configuration pulls from the editor
//!   (`HostConfig::engine.reads`, [`ReadSource::Editor`](idelink_core::ReadSource)) arrives
//!   the same way (`ToolRequest::GetDiagnostics { path }`, ...) and is answered with its
//!   typed outcome (`ToolOutcome::Diagnostics { files }`, ...) through the same oneshot; the
//!   `buffer_editor` example answers every read from its buffer store.
//! - The [`Events`] queue holds every tool call and session event until the editor takes it;
//!   connections that close before they authenticate (any local process can connect and hang
//!   up) are folded into one [`HostEvent::HandshakesClosed`] with a count, so a flood of them
//!   holds one place in the queue, not one per socket.
//! - [`Host::shutdown`] closes every client (code 1001), gives them the grace period to finish
//!   and removes the lock file. Dropping every handle without it stops the task too; the lock
//!   is removed when the task ends (or when the runtime drops it).
//!
//! Sockets are pumped by core's [`PumpPolicy`](idelink_core::host_rules::PumpPolicy): a
//! client whose answers are not read stops being read at the pause mark (bytes handed to its
//! writer and not yet written) and is read again below the resume mark; past the pause mark
//! further answers stay in the engine, whose `max_outbound_bytes` cap closes a client that
//! never reads; a connection the engine closed has `linger_ms` to flush; the lock is checked
//! every `lock_check_interval_ms` and restored when deleted.
//!
//! ```no_run
//! use idelink_tokio::{Host, HostConfig, HostEvent};
//! use idelink_core::ToolOutcome;
//! use std::time::Duration;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let (host, mut events) = Host::start(HostConfig::new("My Editor", vec!["/home/me/p".into()]))?;
//! while let Some(event) = events.recv().await {
//!     match event {
//!         HostEvent::ToolCall { request, reply, .. } => {
//!             // show the diff or open the file, then:
//!             let _ = request;
//!             reply.send(ToolOutcome::DiffRejected);
//!         }
//!         HostEvent::Engine(event) => println!("{event:?}"),
//!         HostEvent::HandshakesClosed { count, .. } => println!("{count} refused"),
//!     }
//! }
//! host.shutdown(Duration::from_secs(1)).await;
//! # Ok(()) }
//! ```

mod conn;
mod events;
mod host;
mod ledger;
mod link;
mod server;

pub use events::Events;
pub use host::{Host, HostEvent, ToolReply};
pub use idelink_host::{HostConfig, HostError, LockPlacement, PortChoice, ResumeOutcome};
pub use ledger::LedgerError;
pub use link::LinkEvents;
