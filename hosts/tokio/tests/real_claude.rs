//! The drift alarm for the tokio host: the pinned real `claude` CLI against the
//! `buffer_editor` example (a tokio editor on idelink-tokio), through the alarm's harness
//! (the `idelink-real-claude` test crate; only the process under test differs: [`buffer_editor::buffer_editor`]
//! here starts the example where the alarm starts `idelink serve`). The CLI
//! connects, `/status` names the editor, the session line carries the CLI's version and pid,
//! the CLI's diagnostics baseline is a pulled `getDiagnostics {uri}` answered from the
//! example's buffers, and the model's edit goes through `openDiff`, answered through the call's
//! oneshot: the file is edited.
//!
//! Without the CLI it skips loudly, and with `CI=true` it fails, like the alarm
//! (docs/compatibility.md). The example is built by `cargo test -p idelink-tokio`.
#![allow(
    clippy::expect_used,
    reason = "a test and the alarm's harness: anything unexpected must fail loudly"
)]

#[path = "real_claude/buffer_editor.rs"]
mod buffer_editor;

use idelink_real_claude::claude;
use idelink_real_claude::fake_api::FINAL_TEXT;
use idelink_real_claude::scene::{self, EDITED, Scene};

/// What the user types.
const PROMPT: &str = "Please change hello to goodbye in greeting.txt";

#[test]
fn a_tokio_hosted_session_connects_and_its_accepted_diff_edits_the_file() {
    let Some(claude) = claude::locate("tokio_real_claude") else {
        return;
    };
    let mut scene = Scene::new(
        "tokio-accept",
        claude,
        Box::new(buffer_editor::buffer_editor()),
    );
    let port = scene.serve_terminal("accept");
    scene.start_claude(port);
    scene.wait_connected();

    scene.check_session_line();

    scene.check_status();

    let before = scene.ide().lines().len();
    scene.terminal().submit(PROMPT);
    let (close_all, _) = scene.ide().wait_line(before, "closeAllDiffTabs");
    let (open_diff, _) = scene
        .ide()
        .wait_line(before, &format!("openDiff {}", scene::FILE_NAME));
    assert!(
        close_all < open_diff,
        "closeAllDiffTabs must come before the openDiff"
    );
    // The example pulls every read: the CLI's diagnostics baseline, taken once the diff is
    // accepted and before it writes the file (`getDiagnostics {uri}`), reached the editor as a
    // tool call and was answered from its buffers.
    let (baseline, _) = scene
        .ide()
        .wait_line(before, &format!("getDiagnostics {}", scene::FILE_NAME));
    assert!(
        open_diff < baseline,
        "the pulled getDiagnostics baseline comes after the accepted openDiff: {:#?}",
        scene.ide().lines()
    );
    scene.wait_file(EDITED);
    scene.wait_screen(FINAL_TEXT);
    scene.assert_stayed_on_loopback();
}
