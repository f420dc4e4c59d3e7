//! The IDE under test for the C binding's real-CLI run: frame_editor, the C++ example (under
//! the emulator of a Windows build, wine64, when `IDELINK_EDITOR_EMULATOR` names one).

use idelink_real_claude::ide::{IdeSide, NamedProgram};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The name frame_editor serves as (what `/status` shows).
pub const IDE_NAME: &str = "frame_editor";

/// frame_editor at `program` (ctest passes its path to the driver).
#[derive(Clone, Debug)]
pub struct FrameEditor {
    named: NamedProgram,
    emulator: Option<PathBuf>,
}

/// frame_editor at `program`, run by the emulator ctest names, if any.
pub fn frame_editor(program: PathBuf) -> FrameEditor {
    FrameEditor {
        named: NamedProgram {
            program,
            name: IDE_NAME,
        },
        emulator: std::env::var_os("IDELINK_EDITOR_EMULATOR").map(PathBuf::from),
    }
}

impl IdeSide for FrameEditor {
    fn name(&self) -> &str {
        self.named.name()
    }

    fn command(&self, args: &[&str], lock_dir: &Path, workspace: &Path) -> Command {
        let direct = self.named.command(args, lock_dir, workspace);
        let Some(emulator) = &self.emulator else {
            return direct;
        };
        let mut command = Command::new(emulator);
        command.arg(direct.get_program()).args(direct.get_args());
        command
    }
}
