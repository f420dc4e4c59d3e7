//! frame_editor (the C++ example) against the pinned real `claude` CLI, through the drift
//! alarm's harness (the `idelink-real-claude` crate; only the IDE under test differs:
//! [`frame_editor::frame_editor`] here where the alarm starts `idelink serve`).
//! Two runs: the CLI connects, `/status` shows the editor, and its diff is accepted (the file
//! is edited); then a diff is rejected (the file is left alone).
//!
//! ctest runs it: `real_claude <path to frame_editor>`. Without the CLI it skips loudly, and
//! with `CI=true` it fails, like the alarm (docs/compatibility.md).
#![allow(
    clippy::expect_used,
    reason = "a test driver: anything unexpected must fail loudly"
)]

#[path = "real_claude/frame_editor.rs"]
mod frame_editor;

use idelink_real_claude::fake_api::FINAL_TEXT;
use idelink_real_claude::scene::{EDITED, FILE_NAME, ORIGINAL, Scene};
use idelink_real_claude::{claude, wait};
use std::path::PathBuf;

/// What the user types.
const PROMPT: &str = "Please change hello to goodbye in greeting.txt";

fn main() {
    let program = std::env::args()
        .nth(1)
        .unwrap_or_else(|| panic!("usage: real_claude <path to frame_editor>"));
    let editor = frame_editor::frame_editor(PathBuf::from(program));
    let Some(claude) = claude::locate("frame_editor_real_claude") else {
        return;
    };
    accepted(claude.clone(), editor.clone());
    rejected(claude, editor);
    println!(
        "real_claude: frame_editor connected, shown by /status, one diff accepted, one rejected"
    );
}

/// Connects, checks the session line and `/status`, and accepts the diff.
fn accepted(claude: claude::Claude, editor: frame_editor::FrameEditor) {
    let mut scene = Scene::new("c-accept", claude, Box::new(editor));
    let port = scene.serve_terminal("accept");
    scene.start_claude(port);
    scene.wait_connected();
    scene.check_session_line();

    scene.check_status();

    prompt_until_open_diff(&mut scene);
    scene.wait_file(EDITED);
    scene.wait_screen(FINAL_TEXT);
    scene.assert_stayed_on_loopback();
}

/// Connects and rejects the diff: the CLI says so and leaves the file alone.
fn rejected(claude: claude::Claude, editor: frame_editor::FrameEditor) {
    let mut scene = Scene::new("c-reject", claude, Box::new(editor));
    let port = scene.serve_terminal("reject");
    scene.start_claude(port);
    scene.wait_connected();
    scene.check_session_line();

    prompt_until_open_diff(&mut scene);
    let rejected = format!("Rejected update to {FILE_NAME}");
    wait::until(&format!("claude's screen to show {rejected:?}"), || {
        scene.fail_on_ide_error();
        let now = std::fs::read_to_string(&scene.file).unwrap_or_default();
        assert_eq!(now, ORIGINAL, "the CLI wrote a file frame_editor rejected");
        scene.terminal().screen().contains(&rejected).then_some(())
    });
    scene.assert_stayed_on_loopback();
}

/// Types the prompt; waits for `closeAllDiffTabs` and then the `openDiff` on the console.
fn prompt_until_open_diff(scene: &mut Scene) {
    let before = scene.ide().lines().len();
    scene.terminal().submit(PROMPT);
    let (close_all, _) = scene.ide().wait_line(before, "closeAllDiffTabs");
    let (open_diff, _) = scene
        .ide()
        .wait_line(before, &format!("openDiff {FILE_NAME}"));
    assert!(
        close_all < open_diff,
        "closeAllDiffTabs must come before the openDiff"
    );
}
