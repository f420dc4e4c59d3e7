//! The IDE under test for the tokio host's real-CLI run: the `buffer_editor` example.

use idelink_real_claude::ide::IdeSide;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The name the example serves as (what `/status` shows).
pub const IDE_NAME: &str = "tokio buffer_editor";

/// The `buffer_editor` example, next to this test's executable (`cargo test` builds examples).
pub struct BufferEditor {
    program: PathBuf,
}

impl BufferEditor {
    /// Finds the example's executable; panics with the command that builds it when missing.
    pub fn locate() -> BufferEditor {
        let test = std::env::current_exe().expect("the test's own path");
        let profile = test
            .parent()
            .and_then(Path::parent)
            .expect("the test runs from <target>/<profile>/deps");
        let program = profile
            .join("examples")
            .join(format!("buffer_editor{}", std::env::consts::EXE_SUFFIX));
        assert!(
            program.is_file(),
            "{} is missing: run `cargo test -p idelink-tokio` (it builds the examples) or \
             `cargo build -p idelink-tokio --example buffer_editor`",
            program.display()
        );
        BufferEditor { program }
    }
}

impl IdeSide for BufferEditor {
    fn name(&self) -> &str {
        IDE_NAME
    }

    /// `buffer_editor <args> --name <IDE_NAME> --lock-dir <lock_dir> <workspace>` (`args` is
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
