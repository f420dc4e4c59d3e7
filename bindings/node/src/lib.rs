//! # idelink-node
//!
//! The Node-API binding of [`idelink_core`]: the sans-IO [`Engine`](idelink_core::Engine)
//! the lock-file JSON model and core's host rules (lock names, stale rule, directory rules,
//! pump policy: [`host_rules`]), for the npm package `idelink` (this folder). It converts
//! types and holds no protocol logic. The JS `Engine` class (`lib/engine.js`) wraps the
//! `engine_*` functions here around a handle ([`registry`] says why), each engine with at
//! most one remote link beside it ([`link`]); `lib/host.js` adds the sockets, timers, lock
//! file and the link's stream.
//!
//! Conversions, in one place each:
//! - time: a JS number of milliseconds from a monotonic clock (`performance.now()`);
//!   fractions are dropped ([`convert::timestamp`]);
//! - ids: JS numbers ([`convert::conn_id`], [`convert::tool_call_id`]);
//! - bytes: a `Uint8Array`/`Buffer` in; out, a copy into a `Buffer` the JS side allocates
//!   (from Node's pool for small answers, which is cheaper than a native allocation);
//! - structured values in (config, editor events, outcomes, snapshots): the JS value is turned
//!   into JSON text with `JSON.stringify` and read by core's codec, `idelink_core::forms`
//!   ([`convert::from_js_json`]), whose messages the WebAssembly engine throws too;
//! - structured values out (outputs): core's codec writes the JSON text that JS parses; lock
//!   bodies and pump policies are plain objects.
//!
//! Errors: host misuse (an `EngineError`, a bad argument) throws a JS `Error` carrying the
//! engine's message, through [`error::throw`]. A Rust panic never crosses into Node: every
//! engine call runs under [`error::guard`], which turns a panic into a thrown `Error`; an
//! engine that panicked refuses every later call (its state may be inconsistent).

pub mod convert;
pub mod discovery;
pub mod engine;
pub mod error;
pub mod helpers;
pub mod host_rules;
pub mod ledger;
pub mod link;
pub mod lockfile;
pub mod registry;
pub mod resume;
pub mod snapshot;
