//! frame_editor (the C++ example) against the real-socket test client: the handshake with the
//! token from its lock file, a selection it publishes pushed to the client, an `openDiff`
//! accepted with text the user added (and the `fileReplaced` that follows), another rejected,
//! and the lock removed on exit.
//!
//! ctest runs it: `frame_editor_client <path to frame_editor>`; exits non-zero on a failure.
#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test driver: anything unexpected must fail it loudly"
)]

mod editor_process;

use idelink_test_client::Client;
use serde_json::{Value, json};
use std::path::PathBuf;

const ORIGINAL: &str = "hello from the workspace\nsecond line\n";
const PROPOSED: &str = "goodbye from the workspace\nsecond line\n";

fn main() {
    let program = PathBuf::from(
        std::env::args()
            .nth(1)
            .expect("usage: frame_editor_client <frame_editor>"),
    );
    let root = std::env::temp_dir().join(format!("idelink-c-client-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let (workspace, locks) = (root.join("work"), root.join("locks"));
    std::fs::create_dir_all(&workspace).unwrap();
    let workspace = workspace.canonicalize().unwrap();
    let ws = workspace.to_str().unwrap().to_owned();
    let file = format!("{ws}/greeting.txt");
    std::fs::write(&file, ORIGINAL).unwrap();

    let serving = editor_process::serve(
        &program,
        &["--name", "frame_editor", "--diff", "ask"],
        &locks,
        &ws,
    );
    let lock = &serving.lock;
    assert_eq!(lock["ideName"], "frame_editor", "lock file: {lock}");
    assert_eq!(lock["workspaceFolders"], json!([ws]), "lock file: {lock}");

    // Handshake: the upgrade with the lock's token, then the CLI's opening.
    let mut client = Client::connect_initialized(serving.port, serving.token()).unwrap();
    let (lock_path, mut editor) = (serving.lock_path, serving.editor);
    editor.wait_line(0, "session ready: claude-code test");

    // The editor's selection reaches the client.
    editor.type_line("open greeting.txt");
    editor.type_line("select 0 0 5");
    editor.wait_line(0, "published selection greeting.txt:0 0-5");
    loop {
        let pushed = client.notification("selection_changed").unwrap();
        if pushed["params"]["text"] == "hello" {
            assert_eq!(pushed["params"]["filePath"], file.as_str(), "{pushed}");
            break;
        }
    }

    // openDiff, accepted after the user added a line in the diff view.
    let before = editor.lines().len();
    let id = open_diff(&mut client, &file, "diff one");
    editor.wait_line(before, "openDiff greeting.txt (call#1)");
    editor.wait_line(before, "+goodbye from the workspace");
    editor.type_line("accept 1 added in the editor");
    let answer = client.response(id).unwrap();
    let kept = format!("{PROPOSED}added in the editor\n");
    assert_eq!(texts(&answer), ["FILE_SAVED", kept.as_str()], "{answer}");
    // The engine's fileReplaced: the file's text once the CLI wrote it (the accept carried the
    // file's text as the original, so it is not a no-change).
    editor.wait_line(
        before,
        &format!(
            "call#1 greeting.txt now holds the accepted text ({} bytes)",
            kept.len()
        ),
    );

    // openDiff, rejected.
    let before = editor.lines().len();
    let id = open_diff(&mut client, &file, "diff two");
    editor.wait_line(before, "openDiff greeting.txt (call#2)");
    editor.type_line("reject 2");
    let answer = client.response(id).unwrap();
    assert_eq!(texts(&answer), ["DIFF_REJECTED", "diff two"], "{answer}");

    // Closing the active document (its snapshot has none active): the client is told "no file".
    let before = editor.lines().len();
    editor.type_line("close greeting.txt");
    editor.wait_line(before, "published no active document");
    loop {
        let pushed = client.notification("selection_changed").unwrap();
        if pushed["params"].get("filePath").is_none() {
            assert_eq!(pushed["params"]["text"], "", "{pushed}");
            break;
        }
    }

    // Exit: the client is closed (1001) and the lock removed.
    editor.type_line("quit");
    assert!(editor.wait_exit(), "frame_editor should exit 0 on quit");
    assert!(
        !lock_path.exists(),
        "frame_editor left its lock file {}",
        lock_path.display()
    );
    let _ = std::fs::remove_dir_all(&root);
    println!(
        "frame_editor_client: handshake, selection push, diff accepted with edits, diff rejected, \
         no file after the active document closed, lock removed"
    );
}

fn open_diff(client: &mut Client, file: &str, tab: &str) -> u64 {
    let arguments = json!({"old_file_path": file, "new_file_path": file,
        "new_file_contents": PROPOSED, "tab_name": tab});
    client
        .send_request(
            "tools/call",
            json!({"name": "openDiff", "arguments": arguments}),
        )
        .unwrap()
}

fn texts(answer: &Value) -> Vec<&str> {
    answer["result"]["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| item["text"].as_str())
        .collect()
}
