//! `idelink bridge`: runs where claude runs. Listens on an ephemeral port of this side's
//! loopback (said in its hello: the editor's engine accepts it in `Host`), writes this side's
//! lock once the editor's hello says what goes in it (its token, name and folders, as this side
//! spells them; this process's pid), carries every claude connection over stdin/stdout, and
//! removes the lock on every exit: the link's end, a fault, a signal.

use super::BINARY_VERSION;
use super::marker::BridgeMarker;
use super::pump::LinkPump;
use crate::signals;
use clap::Args;
use idelink_core::link::{Hello, LinkEvent, LinkFault};
use idelink_core::lockfile::LockFile;
use idelink_host::lock::{LockFileGuard, default_lock_dir};
use idelink_mio::LinkPipes;
use mio::net::TcpListener;
use std::cell::Cell;
use std::error::Error;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;

/// `idelink bridge`'s arguments.
#[derive(Debug, Args)]
pub struct BridgeArgs {
    /// Write the lock into DIR instead of `$CLAUDE_CONFIG_DIR/ide` (else `~/.claude/ide`).
    #[arg(long, value_name = "DIR")]
    pub lock_dir: Option<PathBuf>,
}

/// Runs the bridge until its link ends. Its stdout is the link: every message goes to stderr.
pub fn run(args: BridgeArgs) -> Result<(), Box<dyn Error>> {
    let dir = match args.lock_dir {
        Some(dir) => dir,
        None => default_lock_dir()?,
    };
    let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))?;
    let port = listener.local_addr()?.port();
    let hello = Hello {
        binary_version: BINARY_VERSION.to_owned(),
        port: Some(port),
        pid: Some(std::process::id()),
        ..Hello::default()
    };
    let pump = LinkPump::new(&hello, stdio()?, listener)?;
    let stop = signals::install(pump.waker())?;
    let mut lock = None;
    let mut refused = None;
    // A lock that cannot be written ends the link (the editor side hears why on stderr).
    let failed = Cell::new(false);
    let fault = pump.run(&|| stop.stop_requested() || failed.get(), &mut |event| {
        if let LinkEvent::Hello(peer) = event {
            match write_lock(&dir, port, peer) {
                Ok(guard) => {
                    eprintln!(
                        "idelink bridge: listening on 127.0.0.1:{port}, lock {}",
                        guard.path().display()
                    );
                    // Only for the doctor: a bridge without its mark still serves.
                    let mark = BridgeMarker::create(&dir, port).ok();
                    lock = Some((guard, mark));
                }
                Err(e) => {
                    refused = Some(e);
                    failed.set(true);
                }
            }
        }
    })?;
    // The guard removes the lock as it drops: before anything else can fail.
    drop(lock);
    if let Some(e) = refused {
        return Err(e);
    }
    match fault {
        LinkFault::Eof | LinkFault::Shutdown | LinkFault::PeerShutdown => Ok(()),
        other => Err(format!("the link ended: {other}").into()),
    }
}

/// The far lock: the editor's token, name and folders, this process's pid.
fn write_lock(
    dir: &std::path::Path,
    port: u16,
    peer: &Hello,
) -> Result<LockFileGuard, Box<dyn Error>> {
    if peer.binary_version != BINARY_VERSION {
        eprintln!(
            "idelink bridge: the editor side runs idelink {}, this is {BINARY_VERSION}",
            crate::terminal::inert::line(&peer.binary_version, 40)
        );
    }
    let token = peer
        .token
        .clone()
        .ok_or("the editor side's hello carries no token")?;
    let lock = LockFile {
        pid: std::process::id(),
        workspace_folders: peer.folders.clone(),
        ide_name: peer
            .ide_name
            .clone()
            .unwrap_or_else(|| "idelink".to_owned()),
        auth_token: token,
        running_in_windows: peer.running_in_windows,
    };
    Ok(LockFileGuard::create(dir, port, lock)?)
}

/// This process's stdin and stdout, the link's stream.
#[cfg(unix)]
fn stdio() -> std::io::Result<LinkPipes> {
    use std::os::fd::AsFd;
    let input = std::io::stdin().as_fd().try_clone_to_owned()?;
    let output = std::io::stdout().as_fd().try_clone_to_owned()?;
    Ok(LinkPipes::new(input, output))
}

/// This process's stdin and stdout, the link's stream.
#[cfg(windows)]
fn stdio() -> std::io::Result<LinkPipes> {
    use std::os::windows::io::AsHandle;
    let input = std::io::stdin().as_handle().try_clone_to_owned()?;
    let output = std::io::stdout().as_handle().try_clone_to_owned()?;
    Ok(LinkPipes::new(input, output))
}
