//! # idelink-wasm
//!
//! The [`idelink_core`] engine for JavaScript, built with wasm-bindgen for browsers
//! (`--target web`) and Node (`--target nodejs`). It only converts types: every protocol rule
//! lives in the core crate, and the page (or the Node program) owns the transport, the clock
//! and the token.
//!
//! The JS surface mirrors the Node (napi) binding:
//!
//! ```js
//! const engine = new Engine({ port: 40000, workspaceFolders: ["/w"] }, token);
//! const conn = engine.handleAccept(now);
//! engine.handleBytes(now, conn, bytes);           // Uint8Array
//! for (let out; (out = engine.pollOutput()) !== null; ) {
//!   if (out.kind === "transmit") {
//!     const bytes = engine.outbound(out.conn);    // Uint8Array (a copy)
//!     socket.send(bytes);
//!     engine.handleSent(out.conn, bytes.length);
//!   }
//! }
//! const deadline = engine.pollTimeout();          // number | undefined
//! ```
//!
//! ## Conversions
//!
//! - Times are JS numbers of milliseconds on a monotonic clock (`performance.now()`); a
//!   fractional part is dropped. Ids and byte counts are non-negative integer numbers.
//! - Bytes are `Uint8Array` (copied across the boundary in both directions).
//! - Structured values (the config, editor events, tool outcomes, outputs) are plain objects in
//!   the JSON forms the core crate documents, the same the transcript vectors, the Node binding
//!   and the stdio sidecar use (`null` for an absent option). They cross as JSON text
//!   (`JSON.stringify` / `JSON.parse`) read and written by core's codec
//!   ([`idelink_core::forms`], no serde): the rules and the error messages are core's.
//! - Core's host rules a JS host needs (lock names, the stale rule, the pump policy) are
//!   exported too: `lockFileName`, `lockPortFromFileName`, `staleLockOwner`, `PumpPolicy`, and
//!   the lock file's own rules for a host that keeps one on disk (the npm package `idelink`
//!   runs on this module when no native addon fits): `lock_rules.rs`, and the resume record's
//!   rules for such a host: `resume.rs`; and the `claude` CLI's discovery rules (which lock it
//!   connects to, whether it looks at all): `discovery.rs`; and for such a host an engine's
//!   remote link (an `idelink bridge`'s stream, core's `LinkAttach`): `link.rs`.
//! - Host misuse (an unknown connection, a malformed event, a tool call answered twice)
//!   throws a JS `Error` whose message says what was wrong; the engine is then unchanged.

mod convert;
mod discovery;
mod engine;
mod helpers;
mod host_rules;
mod json;
mod link;
mod lock_rules;
mod resume;
mod types;

pub use discovery::{discover, folder_contains};
pub use engine::Engine;
pub use helpers::{language_id, terminal_env};
pub use host_rules::{PumpPolicyJs, lock_file_name, lock_port_from_file_name, stale_lock_owner};
pub use lock_rules::{
    judge_config_dir, judge_lock_dir, lock_dir_components, lock_file_json, lock_rewritten_for,
    lock_temp_file_name, lock_upkeep, max_lock_bytes, parse_lock_file,
};
pub use resume::{
    judge_resume_file, may_resume, resume_heartbeat_due, resume_leftover, resume_record_file_name,
    resume_record_for, resume_record_json, resume_record_port,
};
