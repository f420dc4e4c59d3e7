//! idelink's server for the loopback benchmark: `idelink_mio::Host` on 127.0.0.1 with no lock
//! file, an editor with one document open and a selection in it, and an editor loop that
//! rejects every diff at once. Prints `<port> <token>`, then serves until killed.

use idelink_benches::engine_ops::selection_event;
use idelink_benches::wire::FILE_PATH;
use idelink_core::{EditorEvent, EngineEvent, ToolOutcome};
use idelink_mio::{Host, HostConfig, LockPlacement};
use std::io::{self, Write};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut config = HostConfig::new("idelink-bench", vec!["/home/u/proj".into()]);
    config.lock = LockPlacement::None;
    config.serve_when_headless = true;
    // The benchmark opens 50 clients at once, besides those finishing their handshakes.
    config.engine.max_connections = 256;
    let mut host = Host::start(config)?;
    host.handle_editor_event(&EditorEvent::DocumentOpened {
        path: FILE_PATH.into(),
        language_id: Some("rust".into()),
        is_dirty: false,
        is_untitled: false,
    })?;
    host.handle_editor_event(&selection_event(2))?;
    println!("{} {}", host.port(), host.auth_token().as_str());
    io::stdout().flush()?;
    let mut events = Vec::new();
    loop {
        host.poll(None, &mut events)?;
        for event in events.drain(..) {
            if let EngineEvent::ToolCall { id, .. } = event {
                host.handle_tool_outcome(id, &ToolOutcome::DiffRejected)?;
            }
        }
    }
}
