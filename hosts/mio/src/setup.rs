//! What every host does around binding its port, whatever runs its sockets (this crate's
//! [`Host`](crate::Host), `idelink-tokio`): refuse a headless run that did not opt in, mint the
//! token, then give the engine its port and folders and place the lock file.
//!
//! Call order: [`token_for`] before binding, [`engine_and_lock`] once the port is known.

use crate::HostError;
use crate::config::{HostConfig, LockPlacement};
use crate::lock::{LockFileGuard, default_lock_dir};
use idelink_core::AuthToken;
use idelink_core::lockfile::LockFile;

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
