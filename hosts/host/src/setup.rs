//! What every host does around binding its port, whatever runs its sockets (`idelink-mio`,
//! `idelink-tokio`): refuse a headless run that did not opt in, mint the token, bind loopback,
//! then give the engine its port and folders and place the lock file.
//!
//! Call order: [`listen`] (which is [`token_for`] then [`bind_loopback`], or, with
//! [`HostConfig::resume`] on, a resumed session's port and token), then [`engine_and_lock`]
//! with the port it bound.

use crate::HostError;
use crate::config::{HostConfig, LockPlacement, PortChoice};
use crate::lock::{LockFileGuard, default_lock_dir, find_resumable};
use idelink_core::AuthToken;
use idelink_core::host_rules::resume::NotResumed;
use idelink_core::lockfile::LockFile;
use std::fmt;
use std::io;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::PathBuf;

/// How a host with [`HostConfig::resume`] came to its port and token; hosts say so
/// (`idelink_mio::Host::resume`, `idelink_tokio::Host::resume`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResumeOutcome {
    /// Resume is off (the default), or the host keeps no lock ([`LockPlacement::None`]): a
    /// fresh port and token, as always.
    Off,
    /// The port and token of this editor's session on this workspace that stopped (or
    /// crashed) within core's `RESUME_WINDOW_MS`: the claude still redialling it reconnects.
    Resumed {
        /// The port, the same as before.
        port: u16,
    },
    /// A fresh port and token, and why the last session could not be resumed.
    Fresh(NotResumed),
}

impl fmt::Display for ResumeOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResumeOutcome::Off => write!(f, "resume is off"),
            ResumeOutcome::Resumed { port } => write!(
                f,
                "resumed the last session on port {port} with its token: a claude still \
                 reconnecting to it rejoins"
            ),
            ResumeOutcome::Fresh(why) => write!(f, "started a new session ({why})"),
        }
    }
}

/// A bound listener, its token, and how they were chosen.
#[derive(Debug)]
pub struct Listening {
    /// Non-blocking, on 127.0.0.1.
    pub listener: TcpListener,
    /// The token the lock will carry.
    pub token: AuthToken,
    /// Resumed, fresh (and why), or off.
    pub resume: ResumeOutcome,
}

/// The listener and token a host set up by `config` serves with. With [`HostConfig::resume`]
/// off: [`token_for`] then [`bind_loopback`] on `config.port`. With it on, the resume record of
/// this editor and workspace that core lets it take (`host_rules::resume::may_resume`: recent,
/// not a live host's, a private file of this user) gives the port, bound exactly, and the token;
/// when there is none, or its port does not bind, the host starts fresh as with resume off and
/// the outcome says why. A headless run that did not opt in is refused first, as always.
pub fn listen(config: &HostConfig) -> Result<Listening, HostError> {
    let fresh_token = token_for(config)?;
    let resume = match (config.resume, lock_dir(config)?) {
        (true, Some(dir)) => {
            match find_resumable(&dir, &config.ide_name, &config.workspace_folders)? {
                Ok(record) => {
                    let token = AuthToken::parse(&record.lock.auth_token);
                    match (bind_loopback(PortChoice::Fixed(record.port)), token) {
                        (Ok(listener), Ok(token)) => {
                            return Ok(Listening {
                                listener,
                                token,
                                resume: ResumeOutcome::Resumed { port: record.port },
                            });
                        }
                        (Err(_), _) => {
                            ResumeOutcome::Fresh(NotResumed::PortBusy { port: record.port })
                        }
                        (_, Err(_)) => ResumeOutcome::Fresh(NotResumed::BadToken),
                    }
                }
                Err(why) => ResumeOutcome::Fresh(why),
            }
        }
        _ => ResumeOutcome::Off,
    };
    Ok(Listening {
        listener: bind_loopback(config.port)?,
        token: fresh_token,
        resume,
    })
}

/// The lock directory `config` places the lock in, `None` for [`LockPlacement::None`].
fn lock_dir(config: &HostConfig) -> Result<Option<PathBuf>, HostError> {
    Ok(match &config.lock {
        LockPlacement::None => None,
        LockPlacement::At(dir) => Some(dir.clone()),
        LockPlacement::Default => Some(default_lock_dir()?),
    })
}

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
/// (`None` for [`LockPlacement::None`]). The guard removes the lock when dropped. With
/// [`HostConfig::resume`] on, the guard also keeps the resume record beside the lock.
pub fn engine_and_lock(
    config: &HostConfig,
    port: u16,
    token: &AuthToken,
) -> Result<(idelink_core::Config, Option<LockFileGuard>), HostError> {
    let mut engine = config.engine.clone();
    engine.port = port;
    engine.workspace_folders = config.workspace_folders.clone();
    let Some(dir) = lock_dir(config)? else {
        return Ok((engine, None));
    };
    let contents = LockFile {
        pid: config.pid,
        workspace_folders: config.workspace_folders.clone(),
        ide_name: config.ide_name.clone(),
        auth_token: token.as_str().to_owned(),
        running_in_windows: config.running_in_windows,
    };
    let lock = if config.resume {
        LockFileGuard::create_keeping_record(&dir, port, contents)?
    } else {
        LockFileGuard::create(&dir, port, contents)?
    };
    Ok((engine, Some(lock)))
}
