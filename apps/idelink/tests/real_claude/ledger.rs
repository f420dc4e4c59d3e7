//! The turn ledger against the real CLI (docs/protocol.md, "A turn's signals"), through
//! `idelink serve`'s `t`, `t N` and `u`: in `--permission-mode acceptEdits` the CLI writes
//! every edit itself, and the ledger still lists exactly the files the model edited and
//! created, with their hunks, and the one it changed with Bash's `sed -i` as "seen on disk"
//! (serve's file watcher); undoing one file restores it, and the model's next `Read` of it
//! gets the restored text. In the default mode an edit accepted through `openDiff` (`a` at
//! serve's review) makes the turn "reviewed". Both run `--diff ask`: the review terminal is
//! where the ledger's commands are.

use super::idelink::Serve;
use super::{PROMPT, prompt_until_open_diff};
use idelink_real_claude::fake_api::{FINAL_TEXT, end_turn, step};
use idelink_real_claude::scene::{CREATED, EDITED, FILE_NAME, NEW_FILE_NAME, ORIGINAL, Scene};
use idelink_real_claude::{claude, wait};
use serde_json::{Value, json};
use std::path::Path;

/// The second file the model edits, and its text before and after.
const NOTES: &str = "notes.txt";
const NOTES_BEFORE: &str = "one\ntwo\nthree\n";
const NOTES_AFTER: &str = "one\nTWO\nthree\n";
/// The model's words at the end of the first prompt, then of the second.
const FIRST_DONE: &str = "idelink ledger: the edits are made";
const SECOND_DONE: &str = "idelink ledger: the file is read again";
/// The `tool_use` id of the first prompt's `Read` of greeting.txt (block 0 of [`session`]).
const FIRST_READ_ID: &str = "toolu_idelink_step_0";
/// The `tool_use` id of the second prompt's `Read` (block 7 of [`session`]).
const REREAD_ID: &str = "toolu_idelink_step_7";
/// The file the model changes with Bash's `sed -i` (the CLI's acceptEdits mode runs `sed`
/// without asking: the CLI's bundled code, `["mkdir","touch","rm","rmdir","mv","cp","sed"]`),
/// and its text before and after.
const SEDDED: &str = "sed.txt";
const SED_BEFORE: &str = "x = 1\ny = 2\n";
const SED_AFTER: &str = "x = 1\ny = 3\n";

/// The model's session: prompt one reads and edits greeting.txt and notes.txt, creates
/// created.txt and runs `sed -i` on sed.txt; prompt two reads greeting.txt again.
fn session(workspace: &Path) -> Vec<Value> {
    let path = |name: &str| workspace.join(name).display().to_string();
    let edit = |file: &str, old: &str, new: &str| json!({"file_path": path(file), "old_string": old, "new_string": new});
    vec![
        step(0, "Read", json!({"file_path": path(FILE_NAME)})),
        step(1, "Edit", edit(FILE_NAME, "hello", "goodbye")),
        step(2, "Read", json!({"file_path": path(NOTES)})),
        step(3, "Edit", edit(NOTES, "two", "TWO")),
        step(
            4,
            "Write",
            json!({"file_path": path(NEW_FILE_NAME), "content": CREATED}),
        ),
        step(
            5,
            "Bash",
            json!({"command": format!("sed -i 's/y = 2/y = 3/' {}", path(SEDDED)),
                   "description": "Change y in sed.txt"}),
        ),
        end_turn(FIRST_DONE),
        step(7, "Read", json!({"file_path": path(FILE_NAME)})),
        end_turn(SECOND_DONE),
    ]
}

/// Types `line` into serve's terminal and waits for a line after it containing `needle`;
/// returns that line without its `[  1.9s] ` time.
fn type_and_wait(scene: &mut Scene, line: &str, needle: &str) -> String {
    let from = scene.ide().lines().len();
    scene.ide().type_line(line);
    let shown = scene.ide().wait_line(from, needle).1;
    match shown.split_once("] ") {
        Some((time, rest)) if time.starts_with('[') => rest.to_owned(),
        _ => shown,
    }
}

/// Waits for `t N`'s output to hold every line of `expected`, in order.
fn wait_shown(scene: &mut Scene, command: &str, expected: &[&str]) {
    let from = scene.ide().lines().len();
    scene.ide().type_line(command);
    let mut at = from;
    for line in expected {
        let (index, _) = scene.ide().wait_line(at, line);
        at = index + 1;
    }
}

/// The text of the `tool_result` with `id` in the model's latest request holding one.
fn tool_result(scene: &Scene, id: &str) -> String {
    wait::until(&format!("a model request with the result of {id}"), || {
        scene.api.turns().iter().rev().find_map(|turn| {
            turn["messages"]
                .as_array()?
                .iter()
                .filter_map(|m| m["content"].as_array())
                .flatten()
                .find(|block| block["type"] == "tool_result" && block["tool_use_id"] == id)
                .map(|block| super::all_text(&block["content"]))
        })
    })
}

#[test]
fn an_accept_edits_turn_is_listed_file_by_file_and_an_undone_file_is_read_back_restored() {
    let Some(claude) = claude::locate(
        "an_accept_edits_turn_is_listed_file_by_file_and_an_undone_file_is_read_back_restored",
    ) else {
        return;
    };
    let mut scene = Scene::scripted("ledger-accept-edits", claude, Box::new(Serve), session);
    scene.permission_mode = "acceptEdits";
    let notes = scene.workspace.join(NOTES);
    let created = scene.workspace.join(NEW_FILE_NAME);
    let sedded = scene.workspace.join(SEDDED);
    std::fs::write(&notes, NOTES_BEFORE).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(&sedded, SED_BEFORE).unwrap_or_else(|e| panic!("{e}"));
    // `--diff ask` (serve's review terminal, where `t` and `u` are): no openDiff comes in
    // this mode; one would wait for an answer and the turn would not end.
    let port = scene.serve_terminal("ask");
    scene.start_claude(port);
    scene.wait_connected();
    scene.terminal().submit(PROMPT);
    scene.wait_screen(FIRST_DONE);
    scene.wait_file(EDITED);
    scene.wait_file_at(&notes, NOTES_AFTER);
    scene.wait_file_at(&created, CREATED);
    scene.wait_file_at(&sedded, SED_AFTER);

    // The watcher reports sed.txt once its debounce is over: `t` until it lists it.
    let expected = format!(
        "turn 1 (current, auto): 4 files · {FILE_NAME} +1 -1 · {NOTES} +1 -1 · \
         {NEW_FILE_NAME} +2 -0 (created) · {SEDDED} +1 -1 (seen on disk)"
    );
    let listed = wait::until(&format!("serve's t to list {expected:?}"), || {
        let listed = type_and_wait(&mut scene, "t", "turn 1 (");
        (listed.trim() == expected).then_some(listed)
    });
    assert_eq!(
        listed.trim(),
        expected,
        "t lists exactly the turn's four files"
    );
    wait_shown(
        &mut scene,
        "t 1",
        &[
            &format!("--- {FILE_NAME} +1 -1"),
            "hunk 1 @@ -1,1 +1,1 @@",
            "  -hello from the workspace",
            "  +goodbye from the workspace",
            &format!("--- {NOTES} +1 -1"),
            "hunk 1 @@ -2,1 +2,1 @@",
            "  -two",
            "  +TWO",
            &format!("--- {NEW_FILE_NAME} +2 -0 (created)"),
            "  +a file the model created",
            "  +its last line",
            &format!("--- {SEDDED} +1 -1 (seen on disk)"),
            "  -y = 2",
            "  +y = 3",
        ],
    );

    type_and_wait(
        &mut scene,
        &format!("u 1 {FILE_NAME}"),
        &format!("undo turn 1's change of {FILE_NAME}? type yes to confirm"),
    );
    type_and_wait(&mut scene, "yes", "undone:");
    scene.wait_file(ORIGINAL);
    assert_eq!(
        std::fs::read_to_string(&notes).ok().as_deref(),
        Some(NOTES_AFTER),
        "undoing greeting.txt must leave notes.txt as the model left it"
    );

    scene.terminal().submit("Please read greeting.txt again");
    scene.wait_screen(SECOND_DONE);
    // 2.1.332 reads the file again; 2.1.286 answers "Wasted call — file unchanged since your
    // last Read. Refer to that earlier tool_result instead." and 2.1.112 "File unchanged since
    // last read. The content from the earlier Read tool_result in this conversation is still
    // current" when the text is the one its last Read returned (block 0's, before the edit):
    // the model is pointed at that result, the restored text.
    let reread = tool_result(&scene, REREAD_ID);
    let reread = if reread.to_lowercase().contains("unchanged since") {
        tool_result(&scene, FIRST_READ_ID)
    } else {
        reread
    };
    assert!(
        reread.contains("hello from the workspace") && !reread.contains("goodbye"),
        "the model's Read after the undo should show the restored text, got {reread:?}"
    );
    scene.assert_stayed_on_loopback();
}

#[test]
fn an_edit_accepted_through_open_diff_makes_the_turn_reviewed() {
    let Some(claude) = claude::locate("an_edit_accepted_through_open_diff_makes_the_turn_reviewed")
    else {
        return;
    };
    let mut scene = Scene::new("ledger-reviewed", claude, Box::new(Serve));
    let port = scene.serve_terminal("ask");
    scene.start_claude(port);
    scene.wait_connected();
    prompt_until_open_diff(&mut scene);
    scene.ide().wait_line(0, "+++ b/greeting.txt");
    scene.ide().type_line("a");
    scene.wait_file(EDITED);
    scene.wait_screen(FINAL_TEXT);
    let listed = type_and_wait(&mut scene, "t", "turn 1 (");
    assert_eq!(
        listed.trim(),
        format!("turn 1 (current, reviewed): 1 files · {FILE_NAME} +1 -1"),
        "an openDiff the host accepted makes the turn reviewed"
    );
}
