//! frame_editor --ledger (the C++ example) against the real-socket test client, through the
//! host-level calls: an accept-edits turn as the CLI makes it (closeAllDiffTabs, the pre-edit
//! `getDiagnostics {uri}` answered only once the editor gave the ledger its baseline, the edit,
//! `getDiagnostics {}`) listed by `idelink_host_ledger`; a file undone by
//! `idelink_host_ledger_undo` through the editor's compare-and-write; a second undo refused
//! with the engine's reason; then two sessions listed by `idelink_host_sessions` and a mention
//! sent to the one chosen with `idelink_host_choose_session`, by pid and then by connection.
//!
//! ctest runs it: `frame_editor_ledger <path to frame_editor>`; exits non-zero on a failure.
#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test driver: anything unexpected must fail it loudly"
)]

mod editor_process;

use editor_process::EditorProcess;
use idelink_test_client::Client;
use serde_json::json;
use std::path::PathBuf;

const ORIGINAL: &str = "hello from the workspace\nsecond line\n";
const EDITED: &str = "hello from claude\nsecond line\n";
/// The pid the second session announces (`ide_connected`): the engine takes it as given.
const OTHER_PID: u32 = 4_000_001;

fn main() {
    let program = PathBuf::from(
        std::env::args()
            .nth(1)
            .expect("usage: frame_editor_ledger <frame_editor>"),
    );
    let root = std::env::temp_dir().join(format!("idelink-c-ledger-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let (workspace, locks) = (root.join("work"), root.join("locks"));
    std::fs::create_dir_all(&workspace).unwrap();
    let workspace = workspace.canonicalize().unwrap();
    let ws = wire(workspace.to_str().unwrap());
    let file = format!("{ws}/greeting.txt");
    std::fs::write(&file, ORIGINAL).unwrap();

    let serving = editor_process::serve(&program, &["--ledger"], &locks, &ws);
    let (port, token) = (serving.port, serving.token().to_owned());
    let (lock_path, mut editor) = (serving.lock_path, serving.editor);
    let mut first = Client::connect_initialized(port, &token).unwrap();
    editor.wait_line(0, "session ready: claude-code test");

    // A turn in accept-edits mode: the editor answers the ledger's reads from disk.
    let before = editor.lines().len();
    first.call_tool("closeAllDiffTabs", json!({})).unwrap();
    let pre_edit = first
        .call_tool("getDiagnostics", json!({"uri": format!("file://{file}")}))
        .unwrap();
    assert!(pre_edit.get("result").is_some(), "{pre_edit}");
    std::fs::write(&file, EDITED).unwrap();
    first.call_tool("getDiagnostics", json!({})).unwrap();
    editor.wait_line(before, "turn 1: greeting.txt revision");
    editor.type_line("turns");
    editor.wait_line(before, "turn 1 (current): greeting.txt +1 -1 auto;");

    // Undo the file: written back by the editor's compare-and-write.
    let before = editor.lines().len();
    editor.type_line("undo 1 greeting.txt");
    editor.wait_line(before, "undo wrote greeting.txt");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), ORIGINAL);
    // Again: refused with the engine's reason, nothing written.
    editor.type_line("undo 1 greeting.txt");
    editor.wait_line(
        before,
        &format!("undo refused: {file} is already as it was before turn 1"),
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), ORIGINAL);

    // Two sessions; the mention goes to the one chosen.
    let mut second = session(port, &token, OTHER_PID);
    editor.wait_line(before, &format!("pid {OTHER_PID}"));
    let before = editor.lines().len();
    editor.type_line("sessions");
    editor.wait_line(
        before,
        &format!("session conn#1 pid {}", std::process::id()),
    );
    editor.wait_line(before, &format!("session conn#2 pid {OTHER_PID}"));
    editor.type_line("open greeting.txt");
    editor.type_line(&format!("choose pid {OTHER_PID}"));
    editor.wait_line(before, &format!("chose pid {OTHER_PID}"));
    editor.type_line("sessions");
    editor.wait_line(before, &format!("session conn#2 pid {OTHER_PID} (chosen)"));
    editor.type_line("mention 0 0");
    editor.wait_line(before, "mentioned greeting.txt:0-0");
    let mentioned = second.notification("at_mentioned").unwrap();
    assert_eq!(mentioned["params"]["lineStart"], 0, "{mentioned}");
    editor.type_line("choose conn 1");
    editor.wait_line(before, "chose conn 1");
    editor.type_line("mention 1 1");
    // The first session's first mention is this one: the one before went to the other only.
    let mentioned = first.notification("at_mentioned").unwrap();
    assert_eq!(mentioned["params"]["lineStart"], 1, "{mentioned}");
    editor.type_line("choose conn 9");
    editor.wait_line(before, "cannot choose conn 9:");

    quit(editor);
    assert!(
        !lock_path.exists(),
        "frame_editor left {}",
        lock_path.display()
    );
    let _ = std::fs::remove_dir_all(&root);
    println!(
        "frame_editor_ledger: a turn listed, a file undone on disk, a second undo refused with its \
         reason, two sessions listed, mentions sent to the chosen one by pid and by connection"
    );
}

/// A session that announces `pid`, as the CLI does after `initialize`.
fn session(port: u16, token: &str, pid: u32) -> Client {
    let mut client = Client::connect(port, token).unwrap();
    let init = client
        .call(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "claude-code", "version": "test"}}),
        )
        .unwrap();
    assert!(init.get("result").is_some(), "{init}");
    client
        .notify("notifications/initialized", json!({}))
        .unwrap();
    client.notify("ide_connected", json!({"pid": pid})).unwrap();
    client
}

fn quit(mut editor: EditorProcess) {
    editor.type_line("quit");
    assert!(editor.wait_exit(), "frame_editor should exit 0 on quit");
}

/// A path as idelink spells it on the wire (forward slashes; docs/protocol.md §6).
fn wire(path: &str) -> String {
    path.replace('\\', "/")
}
