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
