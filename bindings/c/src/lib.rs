//! # idelink C ABI
//!
//! `libidelink` for C and C++ editors; `include/idelink.h` is generated from this crate by
//! cbindgen (`tests/header.rs` fails when the committed header is stale). Two levels:
//!
//! - **Host level** (`idelink_host_*`): wraps `idelink-mio`. The editor starts a host with a
//!   JSON configuration, calls `idelink_host_poll(host, 0)` once per frame, takes events with
//!   `idelink_host_next_event`, sends editor events and tool outcomes. No socket code.
//! - **Engine level** (`idelink_engine_*`): wraps `idelink-core`'s sans-IO `Engine` for
//!   editors with their own event loop and sockets: accept, bytes in, bytes sent, closed,
//!   outbound, poll output, poll timeout, editor events, tool outcomes.
//!
//! Beside them, pure helpers: the terminal environment, language ids, and the `claude` CLI's
//! discovery rules (`idelink_discover`: which lock claude started in a folder connects to, and
//! `idelink_folder_contains`).
//!
//! Both levels take a per-frame snapshot (`idelink_*_snapshot` with an `IdelinkSnapshot`):
//! the editor's whole visible state in C structs pointing into its own memory; only the
//! difference from the previous frame reaches claude, and an unchanged frame allocates nothing.
//!
//! ## Conventions
//! - Every function returns an `IdelinkStatus` (`IDELINK_OK` = 0, failures negative) except
//!   the `_free` functions and `idelink_last_error_message`, which gives the calling thread's
//!   last failure as text.
//! - Events, editor events and outcomes cross as JSON text in the engine's serde forms.
//!   Strings passed in are only read during the call; strings handed out are library-owned
//!   and freed with `idelink_string_free`. Bytes cross as pointer + length; outbound bytes are
//!   borrowed from the engine until its next call.
//! - A Rust panic never unwinds into C: it becomes `IDELINK_ERROR_PANIC` and poisons the
//!   handle (later calls return `IDELINK_ERROR_POISONED`; only `_free` is accepted).
//! - Handles are not thread-safe (use one from one thread at a time); a waker is.

mod args;
mod discovery;
mod engine;
mod guard;
mod helpers;
mod host;
mod host_config;
mod host_ledger;
mod host_link;
mod host_sessions;
mod ledger;
mod snapshot;
mod status;

pub use args::idelink_string_free;
pub use discovery::{IdelinkPathStyle, idelink_discover, idelink_folder_contains};
pub use engine::idelink_engine_handle_snapshot;
pub use engine::{
    IdelinkEngine, IdelinkOutput, IdelinkOutputKind, idelink_engine_close, idelink_engine_free,
    idelink_engine_handle_accept, idelink_engine_handle_bytes, idelink_engine_handle_closed,
    idelink_engine_handle_editor_event, idelink_engine_handle_sent, idelink_engine_handle_timeout,
    idelink_engine_handle_tool_outcome, idelink_engine_new, idelink_engine_outbound,
    idelink_engine_poll_output, idelink_engine_poll_timeout, idelink_engine_shutdown,
};
pub use helpers::{idelink_language_id, idelink_terminal_env};
pub use host::idelink_host_handle_snapshot;
pub use host::{
    IdelinkHost, IdelinkWaker, idelink_host_free, idelink_host_handle_editor_event,
    idelink_host_handle_tool_outcome, idelink_host_next_event, idelink_host_poll,
    idelink_host_port, idelink_host_resume_note, idelink_host_resumed, idelink_host_shutdown,
    idelink_host_start, idelink_host_waker, idelink_waker_free, idelink_waker_wake,
};
pub use host_ledger::{
    idelink_host_handle_file_seen, idelink_host_handle_ledger_read,
    idelink_host_handle_ledger_written, idelink_host_ledger, idelink_host_ledger_undo,
};
pub use host_link::idelink_host_attach_link;
pub use host_sessions::{idelink_host_choose_session, idelink_host_sessions};
pub use ledger::{
    idelink_engine_handle_file_seen, idelink_engine_handle_ledger_read,
    idelink_engine_handle_ledger_written, idelink_engine_ledger, idelink_engine_ledger_undo,
};
pub use snapshot::{
    IdelinkActiveDocument, IdelinkDiagnostic, IdelinkDocument, IdelinkFileDiagnostics,
    IdelinkPosition, IdelinkRange, IdelinkSeverity, IdelinkSnapshot, IdelinkSnapshotChanges,
};
pub use status::{IdelinkStatus, idelink_last_error_message};
