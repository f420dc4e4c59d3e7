//! The IDE under test for the C binding's real-CLI run: frame_editor, the C++ example.

use idelink_real_claude::ide::IdeSide;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The name frame_editor serves as (what `/status` shows).
pub const IDE_NAME: &str = "frame_editor";

/// The frame_editor executable ctest passes to the driver.
#[derive(Clone)]
pub struct FrameEditor {
    program: PathBuf,
}

impl FrameEditor {
    /// frame_editor at `program`.
    pub fn new(program: PathBuf) -> FrameEditor {
        FrameEditor { program }
    }
}

impl IdeSide for FrameEditor {
    fn name(&self) -> &str {
        IDE_NAME
    }

    /// `frame_editor <args> --name frame_editor --lock-dir <lock_dir> <workspace>` (`args` is
    /// the harness's `--diff <policy>`).
    fn command(&self, args: &[&str], lock_dir: &Path, workspace: &Path) -> Command {
        let mut command = Command::new(&self.program);
        command
            .args(args)
            .args(["--name", IDE_NAME, "--lock-dir"])
            .arg(lock_dir)
            .arg(workspace);
        command
    }
}
