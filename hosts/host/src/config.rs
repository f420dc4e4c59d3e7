//! How a host (`idelink_mio::Host`, `idelink_tokio::Host`, one of your own) is set up.

use idelink_core::host_rules::PumpPolicy;
use std::path::PathBuf;

/// Which port to listen on (always on 127.0.0.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortChoice {
    /// Whatever the OS hands out (the default: never collides).
    Ephemeral,
    /// Exactly this port.
    Fixed(u16),
    /// The first free port in this inclusive range.
    Range(u16, u16),
}

/// Where the lock file goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LockPlacement {
    /// `$CLAUDE_CONFIG_DIR/ide`, else `~/.claude/ide` (where the CLI looks).
    Default,
    /// This directory (tests, or a private `CLAUDE_CONFIG_DIR` the host exports itself).
    At(PathBuf),
    /// No lock file: the client is told the port and token some other way.
    None,
}

/// Everything a host needs to start (`idelink_mio::Host::start`, `idelink_tokio::Host::start`).
/// `HostConfig::new` fills in the defaults.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// Shown by the CLI as "Connected to <ide_name> extension"; also tells our stale locks apart.
    pub ide_name: String,
    /// The workspace folders (absolute paths, forward slashes) the CLI matches its cwd against.
    pub workspace_folders: Vec<String>,
    /// The pid written to the lock: it must stay alive while the server runs (the CLI deletes
    /// locks of dead pids). Default: this process.
    pub pid: u32,
    /// Default: an ephemeral port.
    pub port: PortChoice,
    /// Default: where the CLI looks.
    pub lock: LockPlacement,
    /// For a Windows editor serving a CLI inside WSL.
    pub running_in_windows: bool,
    /// The embedding editor is running headless or automated (tests, batch builds). Such a run
    /// opens no socket and writes no lock unless `serve_when_headless` is set too: a test run
    /// must never show up as an IDE the user's `claude` connects to.
    pub headless: bool,
    /// Opt in to serving in a headless run.
    pub serve_when_headless: bool,
    /// How sockets are pumped: read pauses for a client that does not read its answers, the
    /// linger of a closing connection, the lock check period. Default [`PumpPolicy::DEFAULT`]
    /// (pause at 8 MiB unsent, resume below 4 MiB).
    pub pump: PumpPolicy,
    /// Opt in to resume (default off): keep a record of this session beside the lock, and at
    /// start take back the port and token of this editor's last session on the same workspace
    /// folders when it stopped or crashed at most `RESUME_WINDOW_MS` (25 s, core's
    /// `host_rules::resume`) ago and its port is free, so a claude still redialling it (the CLI
    /// redials the same URL and token for about 15 s and never re-reads the lock) rejoins
    /// without `/ide`. Otherwise the host starts fresh; `setup::ResumeOutcome` says which and
    /// why. Needs a lock directory (nothing is resumed with [`LockPlacement::None`]).
    pub resume: bool,
    /// The engine's configuration; its `port` and `workspace_folders` are set by the host.
    /// Its `path_style` defaults to this OS's: Windows paths (`C:\\a`) on Windows.
    pub engine: idelink_core::Config,
}

impl HostConfig {
    /// Defaults for an editor called `ide_name` serving `workspace_folders`.
    pub fn new(ide_name: impl Into<String>, workspace_folders: Vec<String>) -> Self {
        HostConfig {
            ide_name: ide_name.into(),
            workspace_folders,
            pid: std::process::id(),
            port: PortChoice::Ephemeral,
            lock: LockPlacement::Default,
            running_in_windows: false,
            headless: false,
            serve_when_headless: false,
            resume: false,
            pump: PumpPolicy::DEFAULT,
            engine: idelink_core::Config {
                path_style: if cfg!(windows) {
                    idelink_core::ide::PathStyle::Windows
                } else {
                    idelink_core::ide::PathStyle::Posix
                },
                ..idelink_core::Config::new(0)
            },
        }
    }
}
