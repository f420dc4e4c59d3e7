//! # idelink-host
//!
//! The runtime-free part of every idelink host: what a host does around the engine that needs
//! the operating system but no event loop. [`idelink_core`] decides the protocol (and the host
//! rules that need no system call, in `idelink_core::host_rules`); a runtime crate
//! (`idelink-mio`, `idelink-tokio`, or one of your own) only pumps sockets. This crate is the
//! part in between, written once:
//!
//! - [`HostConfig`]: how a host is set up (editor name, folders, pid, port choice, lock
//!   placement, the headless rule, the pump policy, the engine's [`idelink_core::Config`]);
//! - [`setup`]: the calls every host makes, in order, before it serves;
//! - [`lock`]: the lock file's life on disk (owner-only directory and file, written before it
//!   is renamed into place, restored when deleted, removed on drop; the Windows DACL);
//! - [`regular_file`]: the one way a native reader reads a file someone else named;
//! - [`HostError`]: why a host could not start, in words that say what to do.
//!
//! ## The host contract
//!
//! A host is a loop that owns one [`idelink_core::Engine`] and its sockets. It:
//!
//! 1. calls [`setup::listen`]: [`setup::token_for`] (refuses a headless run that did not opt
//!    in, before any socket or lock exists; mints the token from OS entropy), then
//!    [`setup::bind_loopback`] (127.0.0.1 only, the port [`PortChoice`] names), or, with
//!    [`HostConfig::resume`], the port and token of the session it resumes
//!    ([`setup::ResumeOutcome`], which the host reports); then [`setup::engine_and_lock`] with
//!    the bound port: the engine's configuration and the [`lock::LockFileGuard`] announcing it;
//! 2. pumps: each accepted socket is `Engine::handle_accept`, its bytes `handle_bytes`, its end
//!    `handle_closed`; after every input it drains `poll_output` (bytes to write, closes, events
//!    for the editor) and sleeps until `poll_timeout`, reading and writing under
//!    [`HostConfig::pump`] (`idelink_core::host_rules::PumpPolicy`: pause a socket's reads while
//!    its unsent bytes are past the policy's mark, linger on close);
//! 3. when `PumpPolicy::lock_check_due` says so, calls
//!    [`lock::LockFileGuard::restore_if_missing`] (a lock another process deleted is written
//!    again) and [`lock::LockFileGuard::refresh_record`] (the resume record's heartbeat) and,
//!    when an editor event changes the folders
//!    (`idelink_core::host_rules::lock_life::rewritten_for`), [`lock::LockFileGuard::rewrite`];
//! 4. on stop (and on every exit path: the guard's `Drop`) removes the lock.
//!
//! Nothing here blocks on a peer: files someone else named are read by [`regular_file`]'s
//! rules, and the lock directory is judged on the handle it was opened as.

mod config;
mod error;
pub mod ignore_files;
pub mod lock;
pub mod regular_file;
pub mod setup;
#[cfg(windows)]
#[allow(unsafe_code)]
pub mod windows;

pub use config::{HostConfig, LockPlacement, PortChoice};
pub use error::HostError;
pub use setup::ResumeOutcome;
