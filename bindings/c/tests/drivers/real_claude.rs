//! frame_editor (the C++ example) against the pinned real `claude` CLI, through the drift
//! alarm's harness (`hosts/cli/tests/real_claude`, reused file by file; only the process under
//! test differs: [`idelink`] here starts frame_editor where the alarm starts `idelink serve`).
//! Two runs: the CLI connects, `/status` shows the editor, and its diff is accepted (the file
//! is edited); then a diff is rejected (the file is left alone).
//!
//! ctest runs it: `real_claude <path to frame_editor>`. Without the CLI it skips loudly, and
//! with `CI=true` it fails, like the alarm (docs/compatibility.md).
#![allow(
    clippy::expect_used,
    reason = "a test driver and the alarm's harness: anything unexpected must fail loudly"
)]

#[allow(dead_code, reason = "the alarm's harness; this driver uses part of it")]
#[path = "../../../../hosts/cli/tests/real_claude/claude.rs"]
mod claude;
#[allow(dead_code, reason = "the alarm's harness; this driver uses part of it")]
#[path = "../../../../hosts/cli/tests/real_claude/expect.rs"]
mod expect;

#[path = "../../../../hosts/cli/tests/real_claude/fake_api.rs"]
mod fake_api;
#[allow(dead_code, reason = "the alarm's harness; this driver uses part of it")]
#[path = "real_claude/idelink.rs"]
mod idelink;
#[allow(dead_code, reason = "the alarm's harness; this driver uses part of it")]
#[path = "../../../../hosts/cli/tests/real_claude/scene.rs"]
mod scene;
#[allow(dead_code, reason = "the alarm's harness; this driver uses part of it")]
#[path = "../../../../hosts/cli/tests/real_claude/terminal.rs"]
mod terminal;
#[allow(dead_code, reason = "the alarm's harness; this driver uses part of it")]
#[path = "../../../../hosts/cli/tests/real_claude/wait.rs"]
mod wait;

use fake_api::FINAL_TEXT;
use scene::{EDITED, FILE_NAME, ORIGINAL, Scene};

/// What the user types.
const PROMPT: &str = "Please change hello to goodbye in greeting.txt";

fn main() {
    let program = std::env::args()
        .nth(1)
        .unwrap_or_else(|| panic!("usage: real_claude <path to frame_editor>"));
    idelink::set_program(program.into());
    let Some(claude) = claude::locate("frame_editor_real_claude") else {
        return;
    };
    accepted(claude.clone());
    rejected(claude);
    println!(
        "real_claude: frame_editor connected, shown by /status, one diff accepted, one rejected"
    );
}

/// Connects, checks the session line and `/status`, and accepts the diff.
fn accepted(claude: claude::Claude) {
    let mut scene = Scene::new("c-accept", claude);
    let port = scene.serve_terminal("accept");
    scene.start_claude(port);
    scene.wait_connected();
    check_session_line(&mut scene);

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

    prompt_until_open_diff(&mut scene);
    scene.wait_file(EDITED);
    scene.wait_screen(FINAL_TEXT);
    scene.assert_stayed_on_loopback();
}

/// Connects and rejects the diff: the CLI says so and leaves the file alone.
fn rejected(claude: claude::Claude) {
    let mut scene = Scene::new("c-reject", claude);
    let port = scene.serve_terminal("reject");
    scene.start_claude(port);
    scene.wait_connected();
    check_session_line(&mut scene);

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

/// The editor's console shows the MCP session with the CLI's version and pid.
fn check_session_line(scene: &mut Scene) {
    let pid = scene.claude_pid();
    let version = scene.claude.version.clone();
    let (_, ready) = scene.idelink().wait_line(0, "session ready:");
    assert!(
        ready.contains(&format!("claude-code {version}"))
            && ready.contains(&format!(", pid {pid} ")),
        "the session line should name claude-code {version} and its pid {pid}: {ready}"
    );
}

/// Types the prompt; waits for `closeAllDiffTabs` and then the `openDiff` on the console.
fn prompt_until_open_diff(scene: &mut Scene) {
    let before = scene.idelink().lines().len();
    scene.terminal().submit(PROMPT);
    let (close_all, _) = scene.idelink().wait_line(before, "closeAllDiffTabs");
    let (open_diff, _) = scene
        .idelink()
        .wait_line(before, &format!("openDiff {FILE_NAME}"));
    assert!(
        close_all < open_diff,
        "closeAllDiffTabs must come before the openDiff"
    );
}
