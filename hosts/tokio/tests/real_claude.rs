//! The drift alarm for the tokio host: the pinned real `claude` CLI against the
//! `buffer_editor` example (a tokio editor on idelink-tokio), through the alarm's harness
//! (`hosts/cli/tests/real_claude`, reused file by file; only the process under test differs:
//! [`idelink`] here starts the example where the alarm starts `idelink serve`). The CLI
//! connects, `/status` names the editor, the session line carries the CLI's version and pid,
//! and the model's edit goes through `openDiff`, answered through the call's oneshot: the file
//! is edited.
//!
//! Without the CLI it skips loudly, and with `CI=true` it fails, like the alarm
//! (docs/compatibility.md). The example is built by `cargo test -p idelink-tokio`.
#![allow(
    clippy::expect_used,
    reason = "a test and the alarm's harness: anything unexpected must fail loudly"
)]

#[allow(dead_code, reason = "the alarm's harness; this test uses part of it")]
#[path = "../../cli/tests/real_claude/claude.rs"]
mod claude;
#[allow(dead_code, reason = "the alarm's harness; this test uses part of it")]
#[path = "../../cli/tests/real_claude/expect.rs"]
mod expect;
#[allow(dead_code, reason = "the alarm's harness; this test uses part of it")]
#[path = "../../cli/tests/real_claude/fake_api.rs"]
mod fake_api;
#[allow(dead_code, reason = "the alarm's harness; this test uses part of it")]
#[path = "real_claude/idelink.rs"]
mod idelink;
#[allow(dead_code, reason = "the alarm's harness; this test uses part of it")]
#[path = "../../cli/tests/real_claude/scene.rs"]
mod scene;
#[allow(dead_code, reason = "the alarm's harness; this test uses part of it")]
#[path = "../../cli/tests/real_claude/terminal.rs"]
mod terminal;
#[allow(dead_code, reason = "the alarm's harness; this test uses part of it")]
#[path = "../../cli/tests/real_claude/wait.rs"]
mod wait;

use fake_api::FINAL_TEXT;
use scene::{EDITED, Scene};

/// What the user types.
const PROMPT: &str = "Please change hello to goodbye in greeting.txt";

#[test]
fn a_tokio_hosted_session_connects_and_its_accepted_diff_edits_the_file() {
    let Some(claude) = claude::locate("tokio_real_claude") else {
        return;
    };
    let mut scene = Scene::new("tokio-accept", claude);
    let port = scene.serve_terminal("accept");
    scene.start_claude(port);
    scene.wait_connected();

    let pid = scene.claude_pid();
    let version = scene.claude.version.clone();
    let (_, ready) = scene.idelink().wait_line(0, "session ready:");
    assert!(
        ready.contains(&format!("claude-code {version}"))
            && ready.contains(&format!(", pid {pid} ")),
        "the session line should name claude-code {version} and its pid {pid}: {ready}"
    );

    scene.terminal().submit("/status");
    let connected = format!("Connected to {} extension", idelink::IDE_NAME);
    scene.wait_screen(&connected);
    scene
        .terminal()
        .press("Escape")
        .unwrap_or_else(|e| panic!("{e}"));
    wait::until("the /status screen to close", || {
        (!scene.terminal().screen().contains(&connected)).then_some(())
    });

    let before = scene.idelink().lines().len();
    scene.terminal().submit(PROMPT);
    let (close_all, _) = scene.idelink().wait_line(before, "closeAllDiffTabs");
    let (open_diff, _) = scene
        .idelink()
        .wait_line(before, &format!("openDiff {}", scene::FILE_NAME));
    assert!(
        close_all < open_diff,
        "closeAllDiffTabs must come before the openDiff"
    );
    scene.wait_file(EDITED);
    scene.wait_screen(FINAL_TEXT);
    scene.assert_stayed_on_loopback();
}
