//! Unsaved buffers and the file on disk (docs/protocol.md, "Unsaved buffers and the file on
//! disk"), with `idelink serve --stdio` as the sidecar and the test as the editor: an `openDiff`
//! of a document with unsaved changes says `dirty`; a refusal leaves the decision to the CLI's
//! terminal prompt; an accept ends with the file holding exactly the `fileReplaced` text (the
//! CLI's byte-order mark and line-ending rules); saving first makes the CLI tell the model the
//! file changed; an accept of the file's own text is not sent as the denial the CLI would read
//! it as.

use crate::PROMPT;
use crate::idelink::Serve;
use idelink_real_claude::scene::{self, FILE_NAME, ORIGINAL, Scene};
use idelink_real_claude::{claude, fake_api, wait};
use serde_json::{Value, json};

/// What the CLI's terminal asks when it decides an edit itself.
const TERMINAL_PROMPT: &str = "Do you want to make this edit to";

/// Writes `original` to the workspace file, starts the sidecar, tells it the file is open
/// with unsaved changes when `dirty`, starts the CLI, types the prompt and returns the
/// `tool/call` of its `openDiff`.
fn open_diff_call(scene: &mut Scene, original: &str, dirty: bool) -> Value {
    std::fs::write(&scene.file, original).unwrap_or_else(|e| panic!("{e}"));
    let port = scene.serve_sidecar();
    let path = scene::text(&scene.file);
    scene.ide().send(
        &json!({"jsonrpc": "2.0", "method": "editor/event", "params": {
        "type": "documentOpened", "path": path, "isDirty": dirty}}),
    );
    scene.start_claude(port);
    scene.wait_connected();
    scene.ide().wait_message("sessionReady", |m| {
        m["method"] == "idelink/event" && m["params"]["event"] == "sessionReady"
    });
    scene.terminal().submit(PROMPT);
    let call = scene.ide().wait_message("a tool/call openDiff", |m| {
        m["method"] == "tool/call" && m["params"]["request"]["tool"] == "openDiff"
    });
    assert_eq!(
        call["params"]["request"]["dirty"].as_bool(),
        dirty.then_some(true),
        "the openDiff request should say dirty exactly when the editor's document is: {call}"
    );
    call
}

/// Answers the `tool/call` `call` with `outcome`.
fn answer(scene: &mut Scene, call: &Value, outcome: Value) {
    scene
        .ide()
        .send(&json!({"jsonrpc": "2.0", "id": call["id"], "result": outcome}));
}

/// Waits for the CLI to fall back to its own prompt for the edit, its debug log naming
/// `reason`; the file stays as it was throughout, and nothing is read as a denial.
fn wait_terminal_prompt(scene: &Scene, original: &str, reason: &str) {
    // Every release logs the error result as `MCP server "ide" <reason>`; 2.1.332 also logs
    // `IDE diff view failed: <reason>` (2.1.112 does not).
    let failed = format!("MCP server \"ide\" {reason}");
    wait::until(
        &format!("claude's own prompt ({TERMINAL_PROMPT:?}) and {failed:?} in its log"),
        || {
            let now = std::fs::read_to_string(&scene.file).unwrap_or_default();
            assert_eq!(now, original, "the CLI wrote the file");
            let screen = scene.terminal().screen();
            assert!(
                !screen.contains(scene.claude.expect.rejected_update),
                "the CLI took the answer as a denial: {screen}"
            );
            (screen.contains(TERMINAL_PROMPT) && scene.debug_log().contains(&failed)).then_some(())
        },
    );
}

/// Asserts the sidecar reported no `fileReplaced` event (`why`: the case).
fn assert_no_file_replaced(scene: &mut Scene, why: &str) {
    let replaced = scene
        .ide()
        .lines()
        .into_iter()
        .find(|line| line.contains("fileReplaced"));
    assert_eq!(replaced, None, "{why}: no fileReplaced");
}

/// The editor refuses the diff of a dirty document: idelink answers an error result with the
/// reason, the CLI logs it and asks in its own terminal, and the file is not touched.
#[test]
fn a_refused_diff_of_a_dirty_document_leaves_the_decision_to_the_terminal() {
    let Some(claude) =
        claude::locate("a_refused_diff_of_a_dirty_document_leaves_the_decision_to_the_terminal")
    else {
        return;
    };
    let mut scene = Scene::new("refused", claude, Box::new(Serve));
    let call = open_diff_call(&mut scene, ORIGINAL, true);
    let reason = format!("{FILE_NAME} has unsaved changes in the editor: save or revert them");
    answer(
        &mut scene,
        &call,
        json!({"outcome": "diffRefused", "reason": reason}),
    );
    wait_terminal_prompt(&scene, ORIGINAL, &reason);
    scene.assert_stayed_on_loopback();
}

/// The editor diffs a dirty document against its buffer and the user accepts: the answered
/// text (no byte-order mark, `\n` line ends, no final newline, a line only the buffer had)
/// replaces the whole file, which the CLI writes with its `\r\n` line ends, and from 2.1.329
/// its mark (before, with the file's final newline instead): the file then holds exactly the
/// `fileReplaced` event's text. Also: the CLI's proposal has the mark and `\n` line ends.
#[test]
fn an_accepted_diff_of_a_dirty_document_leaves_the_file_as_file_replaced_said() {
    let Some(claude) = claude::locate(
        "an_accepted_diff_of_a_dirty_document_leaves_the_file_as_file_replaced_said",
    ) else {
        return;
    };
    let mut scene = Scene::new("replaced", claude, Box::new(Serve));
    let original = "\u{feff}hello from the workspace\r\nsecond line\r\n";
    let call = open_diff_call(&mut scene, original, true);
    assert_eq!(
        call["params"]["request"]["newFileContents"],
        "\u{feff}goodbye from the workspace\nsecond line\n",
        "the CLI proposes the file as it read it: the mark kept, line ends made \\n"
    );
    let accepted = "goodbye from the workspace\nsecond line\na line only the buffer had";
    answer(
        &mut scene,
        &call,
        json!({"outcome": "diffSaved", "finalText": accepted, "originalText": original}),
    );
    let replaced = scene.ide().wait_message("the fileReplaced event", |m| {
        m["method"] == "idelink/event" && m["params"]["event"] == "fileReplaced"
    });
    assert_eq!(replaced["params"]["id"], call["id"]);
    assert_eq!(replaced["params"]["path"], scene::text(&scene.file));
    let text = replaced["params"]["text"].as_str().unwrap_or_default();
    // Before 2.1.329 the CLI puts no mark back and keeps the file's final newline
    // (docs/compatibility.md): idelink reports each release's bytes.
    let expected = if scene.claude.expect.writes_accept_as_answered {
        "\u{feff}goodbye from the workspace\r\nsecond line\r\na line only the buffer had"
    } else {
        "goodbye from the workspace\r\nsecond line\r\na line only the buffer had\r\n"
    };
    assert_eq!(
        text, expected,
        "fileReplaced for claude {}",
        scene.claude.version
    );
    scene.wait_file(text);
    scene.assert_stayed_on_loopback();
}

/// An accept whose text is the file's own (the user undid the change in the diff) would be
/// read by the CLI as "User denied via IDE": idelink answers it as a refusal instead, the CLI
/// asks in its terminal, and no `fileReplaced` is reported.
#[test]
fn an_accept_of_the_files_own_text_is_not_sent_as_a_denial() {
    let Some(claude) = claude::locate("an_accept_of_the_files_own_text_is_not_sent_as_a_denial")
    else {
        return;
    };
    let mut scene = Scene::new("no-change", claude, Box::new(Serve));
    let call = open_diff_call(&mut scene, ORIGINAL, false);
    answer(
        &mut scene,
        &call,
        json!({"outcome": "diffSaved", "finalText": ORIGINAL, "originalText": ORIGINAL}),
    );
    wait_terminal_prompt(&scene, ORIGINAL, idelink_core::ide::NO_CHANGE_REASON);
    assert_no_file_replaced(&mut scene, "no change");
    scene.assert_stayed_on_loopback();
}

/// The editor saves the dirty document, then accepts: the file is no longer the text the CLI
/// made the proposal from, so the CLI does not write it and tells the model so in the edit's
/// tool result (the model reads the file again); the saved text stays, and idelink reports no
/// `fileReplaced` (the editor saved while the diff was pending).
#[test]
fn saving_a_dirty_document_first_makes_the_cli_tell_the_model_the_file_changed() {
    let Some(claude) = claude::locate(
        "saving_a_dirty_document_first_makes_the_cli_tell_the_model_the_file_changed",
    ) else {
        return;
    };
    let mut scene = Scene::new("save-first", claude, Box::new(Serve));
    let call = open_diff_call(&mut scene, ORIGINAL, true);
    let saved = "hello from the editor's unsaved buffer\nsecond line\n";
    std::fs::write(&scene.file, saved).unwrap_or_else(|e| panic!("{e}"));
    let path = scene::text(&scene.file);
    scene.ide().send(
        &json!({"jsonrpc": "2.0", "method": "editor/event", "params": {
        "type": "documentSaved", "path": path}}),
    );
    let proposed = call["params"]["request"]["newFileContents"].clone();
    answer(
        &mut scene,
        &call,
        json!({"outcome": "diffSaved", "finalText": proposed, "originalText": ORIGINAL}),
    );
    let result = wait::until("the edit's tool result in a model request", || {
        scene.api.turns().into_iter().find_map(|turn| {
            turn["messages"].as_array()?.iter().find_map(|m| {
                m["content"]
                    .as_array()?
                    .iter()
                    .find(|b| b["type"] == "tool_result" && b["tool_use_id"] == fake_api::EDIT_ID)
                    .cloned()
            })
        })
    });
    assert_eq!(result["is_error"], true, "{result}");
    let told = crate::all_text(&result["content"]);
    assert!(
        told.contains("File content has changed since it was last read"),
        "the model should be told the file changed: {result}"
    );
    assert_eq!(
        std::fs::read_to_string(&scene.file).unwrap_or_default(),
        saved
    );
    assert_no_file_replaced(&mut scene, "the file was saved under the diff");
    scene.assert_stayed_on_loopback();
}
