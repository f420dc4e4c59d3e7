//! Session identity with the real CLI: it answers the engine's `roots/list` with its project
//! folder as a `file://` URI (docs/protocol.md, "Sessions and routing"), the session list
//! pairs that folder with the pid of its `ide_connected`, and a selection routed by roots
//! reaches the session whose folder holds the file.

use crate::idelink::Serve;
use crate::{PROMPT, assert_first_line_selected};
use idelink_real_claude::claude;
use idelink_real_claude::scene::{self, Scene};
use serde_json::{Value, json};

fn sessions_changed_with_folders(message: &Value) -> bool {
    message["method"] == "idelink/event"
        && message["params"]["event"] == "sessionsChanged"
        && message["params"]["sessions"][0]["folders"].is_array()
}

#[test]
fn the_cli_answers_roots_list_with_its_folder_and_a_selection_routed_by_roots_reaches_it() {
    let Some(claude) = claude::locate(
        "the_cli_answers_roots_list_with_its_folder_and_a_selection_routed_by_roots_reaches_it",
    ) else {
        return;
    };
    let mut scene = Scene::new("roots", claude, Box::new(Serve));
    let port = scene.serve_sidecar_with(&["--routing", "roots"]);
    let workspace = scene::text(&scene.workspace);
    scene.start_claude(port);
    scene.wait_connected();
    let pid = scene.claude_pid();
    let changed = scene
        .ide()
        .wait_message("a session list with folders", sessions_changed_with_folders);
    let session = &changed["params"]["sessions"][0];
    assert_eq!(
        session["folders"],
        json!([workspace]),
        "roots/list: the CLI should answer its project folder: {changed}"
    );
    assert_eq!(
        session["pid"], pid,
        "the session's pid is ide_connected's: {changed}"
    );
    scene
        .ide()
        .send(&json!({"jsonrpc": "2.0", "id": "list", "method": "idelink/sessions"}));
    let listed = scene
        .ide()
        .wait_message("the idelink/sessions answer", |m| m["id"] == "list");
    assert_eq!(listed["result"], changed["params"]["sessions"], "{listed}");

    let path = scene::text(&scene.file);
    scene.send_synced(&scene::select_on_first_line(
        &path,
        "hello from the workspace",
    ));
    scene.terminal().submit(PROMPT);
    assert_first_line_selected(&scene, "the selection routed by roots");
    scene.assert_stayed_on_loopback();
}
