//! The server side of `scripts/soak`: a [`Host`] with an editor loop that answers every tool
//! request and moves the selection five times a second (so every ready client gets
//! `selection_changed` pushes), for a bounded time.
//!
//! ```sh
//! cargo run --release -p idelink-mio --example soak_server -- --seconds 90
//! ```
//!
//! The first line on stdout is `listening on 127.0.0.1:<port> token <token>`. It writes no
//! lock file (the load generator is told the port and token), serves up to 256 connections,
//! and exits by itself after `--seconds` (default 120).

use idelink_core::{EditorEvent, EngineEvent, ToolOutcome, ToolRequest};
use idelink_mio::{Host, HostConfig, LockPlacement};
use std::io::Write;
use std::time::{Duration, Instant};

const FILE: &str = "/soak/src/main.rs";

fn main() {
    let seconds = match std::env::args().skip(1).collect::<Vec<_>>().as_slice() {
        [] => 120,
        [flag, n] if flag == "--seconds" => match n.parse() {
            Ok(n) => n,
            Err(_) => exit_usage(&format!("--seconds takes a whole number, not {n:?}")),
        },
        _ => exit_usage("unexpected arguments"),
    };
    if let Err(e) = run(Duration::from_secs(seconds)) {
        eprintln!("soak_server: {e}");
        std::process::exit(1);
    }
}

fn exit_usage(message: &str) -> ! {
    eprintln!("soak_server: {message}\nusage: soak_server [--seconds N]");
    std::process::exit(2);
}

fn selection(line: u32) -> Result<EditorEvent, serde_json::Error> {
    let value = serde_json::json!({"type": "selectionChanged", "path": FILE, "text": "fn main() {}",
        "selection": {"start": {"line": line, "character": 0},
                      "end": {"line": line, "character": 12}}});
    serde_json::from_value(value)
}

fn run(limit: Duration) -> Result<(), Box<dyn std::error::Error>> {
    let mut config = HostConfig::new("idelink-soak", vec!["/soak".to_owned()]);
    config.lock = LockPlacement::None;
    config.engine.max_connections = 256;
    let mut host = Host::start(config)?;
    println!(
        "listening on 127.0.0.1:{} token {}",
        host.port(),
        host.auth_token().as_str()
    );
    std::io::stdout().flush()?;
    let opened = serde_json::json!({"type": "documentOpened", "path": FILE, "languageId": "rust"});
    host.handle_editor_event(&serde_json::from_value(opened)?)?;
    let start = Instant::now();
    let mut next_move = start;
    let mut line = 0;
    let mut events = Vec::new();
    while start.elapsed() < limit {
        host.poll(Some(Duration::from_millis(20)), &mut events)?;
        for event in events.drain(..) {
            if let EngineEvent::ToolCall { id, request, .. } = event {
                let outcome = match request {
                    ToolRequest::OpenFile { .. } => ToolOutcome::FileOpened {
                        language_id: Some("rust".to_owned()),
                        line_count: Some(100),
                    },
                    ToolRequest::OpenDiff { .. } => ToolOutcome::DiffRejected,
                    _ => ToolOutcome::Failed {
                        message: "not in the soak editor".to_owned(),
                    },
                };
                host.handle_tool_outcome(id, &outcome)?;
            }
        }
        if Instant::now() >= next_move {
            next_move += Duration::from_millis(200);
            line = (line + 1) % 100;
            host.handle_editor_event(&selection(line)?)?;
        }
    }
    host.shutdown(Duration::from_secs(2), &mut events);
    Ok(())
}
