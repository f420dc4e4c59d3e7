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
//! - Host misuse (an unknown connection, a malformed event, a tool call answered twice)
//!   throws a JS `Error` whose message says what was wrong; the engine is then unchanged.
//!
//! ## Two modules
//!
//! The browser module (no cargo features; `pkg/web`, `pkg/bundler`) has what a page needs:
//! the `Engine` and `languageId`. A page behind `idelink relay` keeps no files and starts no
//! processes (the relay writes the lock file and owns the sockets), and the module's size is
//! its download. The Node module (feature `node`, the default; `pkg/nodejs`) adds core's host
//! rules for a JS host that does: the npm package `idelink` runs its Node host on it when no
//! native addon fits the platform, so it has the addon's whole function set. What it adds:
//! `terminalEnv` (`terminal_env.rs`), the lock names, the stale rule and `PumpPolicy`
//! (`host_rules.rs`), the lock file's rules (`lock_rules.rs`), the resume record's
//! (`resume.rs`), the `claude` CLI's discovery rules (`discovery.rs`) and an engine's remote
//! link (`link.rs`; the browser module's engine has an empty slot, `link_slot.rs`). A new
//! export for Node hosts goes behind the feature the same way: `#[cfg(feature = "node")]` on
//! its `mod` and `pub use` here.

mod convert;
#[cfg(feature = "node")]
mod discovery;
mod engine;
mod helpers;
#[cfg(feature = "node")]
mod host_rules;
mod json;
#[cfg(feature = "node")]
mod link;
mod link_slot;
#[cfg(feature = "node")]
mod lock_rules;
#[cfg(feature = "node")]
mod resume;
#[cfg(feature = "node")]
mod terminal_env;
mod types;

#[cfg(feature = "node")]
pub use discovery::{discover, folder_contains};
pub use engine::Engine;
pub use helpers::language_id;
#[cfg(feature = "node")]
pub use host_rules::{PumpPolicyJs, lock_file_name, lock_port_from_file_name, stale_lock_owner};
#[cfg(feature = "node")]
pub use lock_rules::{
    judge_config_dir, judge_lock_dir, lock_dir_components, lock_file_json, lock_rewritten_for,
    lock_temp_file_name, lock_upkeep, max_lock_bytes, parse_lock_file,
};
#[cfg(feature = "node")]
pub use resume::{
    judge_resume_file, may_resume, resume_heartbeat_due, resume_leftover, resume_record_file_name,
    resume_record_for, resume_record_json, resume_record_port,
};
#[cfg(feature = "node")]
pub use terminal_env::terminal_env;

/// The module's allocator: talc, growing the module's memory as it needs (std's dlmalloc does
/// the same in 3.9 KB more). The module is single-threaded (no `atomics` target feature), which
/// talc's unsynchronized cell requires; a threaded build keeps std's allocator.
#[cfg(all(not(target_feature = "atomics"), target_family = "wasm"))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
