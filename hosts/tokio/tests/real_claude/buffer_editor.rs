//! The IDE under test for the tokio host's real-CLI run: the `buffer_editor` example.

use idelink_real_claude::ide::NamedProgram;
use std::path::Path;

/// The name the example serves as (what `/status` shows).
pub const IDE_NAME: &str = "tokio buffer_editor";

/// The `buffer_editor` example, next to this test's executable (`cargo test` builds examples);
/// panics with the command that builds it when missing.
pub fn buffer_editor() -> NamedProgram {
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
    NamedProgram {
        program,
        name: IDE_NAME,
    }
}
