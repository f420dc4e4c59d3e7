//! The IDE under test for the drift alarm: `idelink -v serve`, its debug log on stderr.

use idelink_real_claude::ide::IdeSide;
use std::path::Path;
use std::process::Command;

/// `idelink serve`, the binary this package builds.
pub struct Serve;

impl IdeSide for Serve {
    fn name(&self) -> &str {
        "idelink"
    }

    /// `idelink -v serve <args> --lock-dir <lock_dir> <workspace>`, without the caller's
    /// `RUST_LOG` (`-v` sets the log level).
    fn command(&self, args: &[&str], lock_dir: &Path, workspace: &Path) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_idelink"));
        command
            .arg("-v")
            .arg("serve")
            .args(args)
            .arg("--lock-dir")
            .arg(lock_dir)
            .arg(workspace)
            .env_remove("RUST_LOG");
        command
    }
}

/// `idelink serve --remote` on the editor's side (the network namespace of `editor_net`),
/// its bridge in the network namespace `far_netns` writing the scene's lock, where claude runs:
/// only the link joins them. The editor's own lock folder is `near_locks` (it must stay empty).
pub struct RemoteServe {
    /// `ip netns exec` name of claude's side.
    pub far_netns: String,
    /// The editor side's network namespace (`nsenter --net`).
    pub editor_net: std::path::PathBuf,
    /// Where the editor side would write a lock (it must not).
    pub near_locks: std::path::PathBuf,
}

impl IdeSide for RemoteServe {
    fn name(&self) -> &str {
        "idelink serve --remote"
    }

    /// `nsenter --net=<editor> idelink -v serve <args> --lock-dir <near> --remote
    /// 'ip netns exec <far> idelink bridge --lock-dir <lock_dir>' <workspace>`.
    fn command(&self, args: &[&str], lock_dir: &Path, workspace: &Path) -> Command {
        let idelink = env!("CARGO_BIN_EXE_idelink");
        let bridge = format!(
            "exec ip netns exec {} '{idelink}' bridge --lock-dir '{}'",
            self.far_netns,
            lock_dir.display()
        );
        let mut command = Command::new("nsenter");
        command
            .arg(format!("--net={}", self.editor_net.display()))
            .arg("--")
            .arg(idelink)
            .arg("-v")
            .arg("serve")
            .args(args)
            .arg("--lock-dir")
            .arg(&self.near_locks)
            .arg("--remote")
            .arg(bridge)
            .arg(workspace)
            .env_remove("RUST_LOG");
        command
    }
}
