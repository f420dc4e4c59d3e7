//! The context policy against the real CLI: a denied `.env`, open and selected in the editor,
//! leaves no trace in the model's request; with `--context-mode selectionOnly`, opening and
//! focusing a file adds no context to the prompt, and a real selection still does.

use super::idelink::Serve;
use super::{PROMPT, all_text, excerpt};
use idelink_real_claude::claude;
use idelink_real_claude::scene::{self, Scene};
use serde_json::json;

/// What the denied file holds: nothing of it may reach the model.
const SECRET: &str = "API_KEY=sk-live-do-not-leak-4242";

#[test]
fn an_open_and_selected_env_file_leaves_no_trace_in_the_model_request() {
    let Some(claude) =
        claude::locate("an_open_and_selected_env_file_leaves_no_trace_in_the_model_request")
    else {
        return;
    };
    let mut scene = Scene::new("policy-env", claude, Box::new(Serve));
    let env = scene.workspace.join(".env");
    std::fs::write(&env, format!("{SECRET}\n")).unwrap_or_else(|e| panic!("write .env: {e}"));
    let port = scene.serve_sidecar();
    let path = scene::text(&env);
    let [opened, selected] = scene::select_on_first_line(&path, SECRET);
    scene.send_synced(&[opened, selected]);
    scene.start_claude(port);
    scene.wait_connected();
    scene.ide().wait_message("sessionReady", |m| {
        m["method"] == "idelink/event" && m["params"]["event"] == "sessionReady"
    });
    // The engine withheld the selection from the CLI (it says so to the editor).
    scene.ide().wait_message("contextWithheld for .env", |m| {
        m["params"]["event"] == "contextWithheld"
            && m["params"]["paths"]
                .as_array()
                .is_some_and(|p| p.contains(&json!(path)))
    });
    scene.terminal().submit(PROMPT);
    let turn = all_text(&scene.first_turn());
    // The CLI's own system prompt mentions `.env` files: the path is what must not appear.
    for trace in [SECRET, path.as_str(), "sk-live"] {
        assert!(
            !turn.contains(trace),
            "the model's request carries {trace:?} of the denied .env: {}",
            excerpt(&turn, trace)
        );
    }
    scene.assert_stayed_on_loopback();
}

#[test]
fn with_selection_only_opening_a_file_adds_no_context() {
    let Some(claude) = claude::locate("with_selection_only_opening_a_file_adds_no_context") else {
        return;
    };
    let mut scene = Scene::new("policy-selection-only", claude, Box::new(Serve));
    let port = scene.serve_sidecar_with(&["--context-mode", "selectionOnly"]);
    let path = scene::text(&scene.file);
    scene.send_synced(&[
        json!({"jsonrpc": "2.0", "method": "editor/event", "params": {
            "type": "documentOpened", "path": path}}),
        json!({"jsonrpc": "2.0", "method": "editor/event", "params": {
            "type": "documentActivated", "path": path}}),
    ]);
    scene.start_claude(port);
    scene.wait_connected();
    scene.ide().wait_message("sessionReady", |m| {
        m["method"] == "idelink/event" && m["params"]["event"] == "sessionReady"
    });
    scene
        .ide()
        .wait_message("contextWithheld for the opened file", |m| {
            m["params"]["event"] == "contextWithheld"
                && m["params"]["paths"]
                    .as_array()
                    .is_some_and(|p| p.contains(&json!(path)))
        });
    scene.terminal().submit(PROMPT);
    let turn = all_text(&scene.first_turn());
    for context in ["The user opened the file", "opened the file"] {
        assert!(
            !turn.contains(context),
            "with selectionOnly, opening a file should add no context, yet the prompt says \
             {context:?}: {}",
            excerpt(&turn, context)
        );
    }
    scene.assert_stayed_on_loopback();
}
