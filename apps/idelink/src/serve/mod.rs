//! `idelink serve`: start the host on a folder, then hand it to the terminal editor or the
//! stdio sidecar.

use crate::signals;
use crate::terminal::{self, TerminalOptions};
use crate::workspace::{path_text, workspace_dir};
use idelink_core::SessionPolicy;
use idelink_mio::{Host, HostConfig, LockPlacement, PortChoice};
use std::error::Error;

mod args;

pub use args::ServeArgs;

/// Runs `idelink serve` until a signal (or, with `--stdio`, until stdin closes).
pub fn run(args: ServeArgs) -> Result<(), Box<dyn Error>> {
    let dir = workspace_dir(args.dir.as_deref())?;
    let folder = path_text(&dir)?;
    let mut config = HostConfig::new(args.ide_name.clone(), vec![folder.clone()]);
    config.port = args.port.map_or(PortChoice::Ephemeral, PortChoice::Fixed);
    config.lock = args
        .lock_dir
        .clone()
        .map_or(LockPlacement::Default, LockPlacement::At);
    config.resume = args.resume;
    config.engine.max_connections = args.max_connections;
    if args.single_session {
        config.engine.session_policy = SessionPolicy::Single;
    }
    if let Some(ms) = args.tool_deadline_ms {
        config.engine.tool_deadline_ms = Some(ms);
    }
    if let Some(bytes) = args.max_client_message_bytes {
        config.engine.max_client_message_bytes = bytes;
    }
    // The terminal keeps the turn ledger (`t`, `u`): it reads and writes the files itself.
    // The stdio sidecar's editor would have to answer the reads, which it does not yet.
    config.engine.ledger = args.stdio.is_none();
    for read in &args.pull {
        read.apply(&mut config.engine.reads);
    }
    let host = Host::start(config)?;
    let stop = signals::install(host.waker())?;
    match args.stdio {
        Some(framing) => crate::stdio::run(host, &stop, framing),
        None => terminal::run(
            host,
            &stop,
            &TerminalOptions {
                workspace: folder,
                ide_name: args.ide_name,
                diff: args.diff,
                trace_contents: args.trace_contents,
            },
        ),
    }
}
