//! # idelink-benches
//!
//! Benchmarks of idelink, reported as ratios against peers measured in the same run (never as
//! timed unit tests). `scripts/bench` runs them all and writes `docs/benchmarks.md`.
//!
//! - `benches/engine.rs`: the engine alone, no sockets: a `tools/call getCurrentSelection`
//!   round trip, frame decode + unmask + UTF-8 check, a 16 MiB `openDiff` ingest, a
//!   `selection_changed` fan-out to 50 clients, and `memcpy` of the same buffers as the floor.
//!   `--callgrind-round-trips N` runs only N round trips, for an instruction count.
//! - `benches/engine_allocs.rs`: heap allocations per operation of the same operations.
//! - `benches/snapshot.rs`: one 60 Hz frame of an editor with 200 open documents calling
//!   `Engine::handle_snapshot`, unchanged and with the caret moved: ns and allocations per frame.
//! - `benches/loopback.rs`: one load client against three server processes over loopback:
//!   `idelink-mio` (examples/bench_server_idelink.rs), tokio + tokio-tungstenite + serde_json
//!   `Value` (examples/bench_server_tungstenite.rs) and a raw TCP echo
//!   (examples/bench_server_echo.rs) as the transport floor.
//! - `benches/remote.rs`: `idelink serve --remote "idelink bridge"` over a local pipe against
//!   the same `serve` dialled directly: a small `tools/call` round trip and a 16 MiB answer.
//!
//! Results are printed one JSON object per line ([`measure::emit`]).

#![warn(missing_docs)]

pub mod big_out;
pub mod cli;
pub mod client;
pub mod engine_ops;
pub mod loopback;
pub mod measure;
pub mod procfs;
pub mod remote;
pub mod servers;
pub mod wire;
