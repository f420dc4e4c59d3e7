//! What every host does around binding its port, whatever runs its sockets (`idelink-mio`,
//! `idelink-tokio`): refuse a headless run that did not opt in, mint the token, bind loopback,
//! then give the engine its port and folders and place the lock file.
//!
//! Call order: [`token_for`], then [`bind_loopback`], then [`engine_and_lock`] with the port
//! it bound.

use crate::HostError;
use crate::config::{HostConfig, LockPlacement, PortChoice};
use crate::lock::{LockFileGuard, default_lock_dir};
use idelink_core::AuthToken;
use idelink_core::lockfile::LockFile;
use std::io;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};

/// The token for a host set up by `config`, from OS entropy. A headless run that did not opt
/// in is refused here, before any socket or lock exists (the "no sockets in automation" rule).
pub fn token_for(config: &HostConfig) -> Result<AuthToken, HostError> {
    if config.headless && !config.serve_when_headless {
        return Err(HostError::HeadlessNotEnabled);
    }
    let mut entropy = [0u8; 16];
    getrandom::fill(&mut entropy).map_err(|e| HostError::Entropy(e.to_string()))?;
    Ok(AuthToken::from_entropy(entropy))
}

/// A non-blocking listener on 127.0.0.1 (never another address: the CLI dials the IPv4
/// loopback literal, and nothing off this machine may reach the port) at the first port of
/// `choice` that binds; a runtime adopts it (`mio::net::TcpListener::from_std`,
/// `tokio::net::TcpListener::from_std`). The error names the ports tried and the last OS error.
pub fn bind_loopback(choice: PortChoice) -> Result<TcpListener, HostError> {
    let (first, last) = match choice {
        PortChoice::Ephemeral => (0, 0),
        PortChoice::Fixed(port) => (port, port),
        PortChoice::Range(first, last) => (first, last),
    };
    let mut last_error = io::Error::new(io::ErrorKind::InvalidInput, "empty port range");
    for port in first..=last {
        match TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port))) {
            Ok(listener) => {
                listener.set_nonblocking(true).map_err(HostError::Io)?;
                return Ok(listener);
            }
            Err(e) => last_error = e,
        }
    }
    Err(HostError::Bind {
        ports: if first == last {
            first.to_string()
        } else {
            format!("{first}-{last}")
        },
        source: last_error,
    })
}

/// The engine's configuration (`config.engine` with the bound `port` and the workspace
/// folders) and the lock file announcing `port` with `token`, placed as `config.lock` says
/// (`None` for [`LockPlacement::None`]). The guard removes the lock when dropped.
pub fn engine_and_lock(
    config: &HostConfig,
    port: u16,
    token: &AuthToken,
) -> Result<(idelink_core::Config, Option<LockFileGuard>), HostError> {
    let mut engine = config.engine.clone();
    engine.port = port;
    engine.workspace_folders = config.workspace_folders.clone();
    let dir = match &config.lock {
        LockPlacement::None => return Ok((engine, None)),
        LockPlacement::At(dir) => dir.clone(),
        LockPlacement::Default => default_lock_dir()?,
    };
    let contents = LockFile {
        pid: config.pid,
        workspace_folders: config.workspace_folders.clone(),
        ide_name: config.ide_name.clone(),
        auth_token: token.as_str().to_owned(),
        running_in_windows: config.running_in_windows,
    };
    let lock = LockFileGuard::create(&dir, port, contents)?;
    Ok((engine, Some(lock)))
}
