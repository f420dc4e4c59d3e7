//! The IDE under test for the C binding's real-CLI run: frame_editor, the C++ example.

use idelink_real_claude::ide::NamedProgram;
use std::path::PathBuf;

/// The name frame_editor serves as (what `/status` shows).
pub const IDE_NAME: &str = "frame_editor";

/// frame_editor at `program` (ctest passes its path to the driver).
pub fn frame_editor(program: PathBuf) -> NamedProgram {
    NamedProgram {
        program,
        name: IDE_NAME,
    }
}
