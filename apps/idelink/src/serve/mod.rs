//! `idelink serve`: start the host on a folder, then hand it to the terminal editor or the
//! stdio sidecar.

use crate::bridge;
use crate::signals;
use crate::terminal::{self, TerminalOptions};
use crate::workspace::{path_text, workspace_dir};
use idelink_core::SessionPolicy;
use idelink_core::link::Hello;
use idelink_core::path_map::PathMap;
use idelink_mio::{Host, HostConfig, LockPlacement, PortChoice};
use std::error::Error;

mod args;
mod policy;

pub use args::ServeArgs;
pub(crate) use policy::summary as policy_summary;

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
    // The session list (pids, folders from roots/list) is what `s` and `idelink/sessions`
    // show: kept whatever the routing rule.
    config.engine.session_list = true;
    config.engine.routing = args.routing.rule();
    // The terminal keeps the turn ledger (`t`, `u`): it reads and writes the files itself.
    // The stdio sidecar's editor answers the reads when it asked for the ledger (`--ledger`).
    config.engine.ledger = args.stdio.is_none() || args.ledger;
    for read in &args.pull {
        read.apply(&mut config.engine.reads);
    }
    let loaded = policy::load(&args, &dir)?;
    config.engine.policy = loaded.policy;
    for note in &loaded.notes {
        eprintln!("idelink: {}", crate::terminal::inert::line(note, 1000));
    }
    // The bridge first: the engine accepts its port in `Host`.
    let wsl = args.wsl.as_deref().map(bridge::wsl_command);
    let patience = bridge::Patience::secs(args.remote_timeout);
    let bridge = match (&args.remote, &args.remote_shell, &wsl) {
        (Some(command), _, _) | (None, None, Some(command)) => {
            Some(bridge::spawn_bridge(command, patience)?)
        }
        (None, Some(prefix), _) => Some(bridge::spawn_through_shell(prefix, patience)?),
        (None, None, None) => None,
    };
    let remote_command = [&args.remote, &args.remote_shell, &wsl]
        .into_iter()
        .find_map(Option::as_deref)
        .unwrap_or("");
    let maps = bridge::with_wsl_maps(remote_command, std::slice::from_ref(&folder), &args.map);
    for added in &maps[args.map.len()..] {
        eprintln!(
            "idelink: WSL mapping {added} (the drive's mount there; a --map for it replaces it)"
        );
    }
    if let Some(bridge) = &bridge {
        config.engine.path_map = maps.clone();
        config.engine.bridge_port = bridge.hello.port.unwrap_or(0);
        if !args.local_lock {
            config.lock = LockPlacement::None;
        }
    }
    let mut host = Host::start(config)?;
    let stop = signals::install(host.waker())?;
    // Reaps the bridge after the host is gone (its drop ends the link: the bridge removes its
    // lock and exits).
    let _remote = match bridge {
        Some(bridge) => Some(remote(bridge, &args, &maps, &folder, &mut host)?),
        None => None,
    };
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

/// Attaches the bridge's link to the host: its lock gets this host's token and name, and the
/// workspace as the far side spells it.
fn remote(
    bridge: bridge::Bridge,
    args: &ServeArgs,
    maps: &[String],
    folder: &str,
    host: &mut Host,
) -> Result<bridge::RemoteLink, Box<dyn Error>> {
    let folders = match maps.is_empty() {
        true => vec![folder.to_owned()],
        false => PathMap::parse(maps)?.folders(&[folder.to_owned()]),
    };
    if folders.is_empty() {
        return Err(format!(
            "the workspace {folder} is outside every --map mapping: claude would not find it"
        )
        .into());
    }
    let hello = Hello {
        token: Some(host.auth_token().as_str().to_owned()),
        ide_name: Some(args.ide_name.clone()),
        folders,
        ..Hello::default()
    };
    bridge::start_remote(bridge, hello, host)
}
