//! The remote link's two ends: `idelink bridge` (the far side, next to claude: its own
//! loopback listener and lock) and the editor side of `idelink serve --remote`, which starts a
//! bridge through any command that gives it a byte stream (`ssh dev idelink bridge`,
//! `docker exec -i box idelink bridge`). The framing and its rules are core's
//! ([`idelink_core::link`]); the engine on the editor side checks the token, the upgrade and
//! everything after, exactly as for a local socket.

mod cksum;
#[cfg_attr(
    windows,
    allow(
        dead_code,
        reason = "`exec` serves `sh -c` alone: `cmd /C` runs the command as written"
    )
)]
mod command;
mod far;
mod marker;
mod near;
mod probe;
mod pump;
mod shell;
mod wait;
mod wsl;

pub use far::{BridgeArgs, run};
pub use marker::marks as marks_bridge;
pub use near::{Bridge, RemoteLink, spawn_bridge, start_remote};
pub use shell::spawn_through_shell;
pub use wait::{DEFAULT_DEADLINE_SECS, MAX_DEADLINE_SECS, Patience};
pub use wsl::{with_wsl_maps, wsl_command};

/// This build's version, said in every hello (so each side can tell the other is another
/// build and say so).
const BINARY_VERSION: &str = env!("CARGO_PKG_VERSION");
