//! `idelink serve --stdio`: the sidecar for editors whose extension runtime cannot open
//! sockets (Nova's JavaScriptCore, say). The editor talks JSON-RPC 2.0 to idelink on
//! stdin/stdout; idelink serves claude on the loopback socket. The method set is documented in
//! `docs/sidecar.md`.
//!
//! Stdout carries only protocol messages; logs go to stderr. When stdin closes (the editor
//! went away), idelink closes its clients, removes its lock and exits.

mod framing;
mod ledger;
mod sidecar;

pub use framing::StdioFraming;
pub use sidecar::run;
