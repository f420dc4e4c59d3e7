//! Session identity with the real CLI: it answers the engine's `roots/list` with its project
//! folder as a `file://` URI (docs/protocol.md, "Sessions and routing"), the session list
//! pairs that folder with the pid of its `ide_connected`, and a selection routed by roots
//! reaches the session whose folder holds the file, and only that one: two CLIs in two
//! folders each see their own selection.

use crate::idelink::Serve;
use crate::{PROMPT, assert_first_line_selected};
use idelink_real_claude::scene::{self, Scene};
use idelink_real_claude::terminal::Terminal;
use idelink_real_claude::{claude, wait};
use serde_json::{Value, json};
use std::path::Path;

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

/// A second CLI, started in `cwd` in its own terminal (its own tmux socket under `dir`),
/// connecting to `port`; its debug log goes to `log`.
fn claude_in(scene: &Scene, dir: &Path, cwd: &Path, port: u16, log: &Path) -> Terminal {
    std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{e}"));
    let mut env = scene.environment_without_port();
    env.push(("CLAUDE_CODE_SSE_PORT".to_owned(), port.to_string()));
    let mut args = scene.claude.leading.clone();
    args.extend(claude::arguments(log));
    Terminal::start(dir, cwd, &env, &scene.claude.program, &args)
        .unwrap_or_else(|e| panic!("cannot start claude in tmux: {e}"))
}

fn wait_ready(terminal: &Terminal, log: &Path) {
    wait::until("the second CLI's IDE connection", || {
        let log = std::fs::read_to_string(log).unwrap_or_default();
        log.contains("MCP server \"ide\": Successfully connected (transport: ws-ide)")
            .then_some(())
    });
    wait::until("the second CLI's input prompt", || {
        terminal.screen().contains("? for shortcuts").then_some(())
    });
}

/// The model turn whose prompt is `prompt`, as text.
fn turn_of(scene: &Scene, prompt: &str) -> String {
    wait::until(&format!("the model request of {prompt:?}"), || {
        scene
            .api
            .turns()
            .iter()
            .map(crate::all_text)
            .find(|turn| turn.contains(prompt))
    })
}

#[test]
fn two_sessions_in_two_folders_each_receive_only_their_own_selection() {
    let Some(claude) =
        claude::locate("two_sessions_in_two_folders_each_receive_only_their_own_selection")
    else {
        return;
    };
    let mut scene = Scene::new("two-sessions", claude, Box::new(Serve));
    let (a, b) = (scene.workspace.join("alpha"), scene.workspace.join("beta"));
    for (dir, file, text) in [
        (&a, "one.txt", "alpha text\n"),
        (&b, "two.txt", "beta text\n"),
    ] {
        std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.join(file), text).unwrap_or_else(|e| panic!("{e}"));
    }
    // Both folders trusted, as the workspace is (claude::write_config).
    let state = claude::config_dir(&scene.root().join("home")).join(".claude.json");
    let mut config: Value =
        serde_json::from_str(&std::fs::read_to_string(&state).unwrap_or_default())
            .unwrap_or_else(|e| panic!("{e}"));
    for dir in [&a, &b] {
        config["projects"][scene::text(dir)] = json!({"hasTrustDialogAccepted": true});
    }
    std::fs::write(&state, config.to_string()).unwrap_or_else(|e| panic!("{e}"));

    let port = scene.serve_sidecar_with(&["--routing", "roots"]);
    let root = scene.root().to_owned();
    let (log_a, log_b) = (root.join("alpha-debug.log"), root.join("beta-debug.log"));
    let one = claude_in(&scene, &root.join("tmux-alpha"), &a, port, &log_a);
    let two = claude_in(&scene, &root.join("tmux-beta"), &b, port, &log_b);
    wait_ready(&one, &log_a);
    wait_ready(&two, &log_b);
    let changed = scene
        .ide()
        .wait_message("two sessions with their folders", |m| {
            sessions_changed_with_folders(m)
                && m["params"]["sessions"]
                    .as_array()
                    .is_some_and(|s| s.len() == 2 && s.iter().all(|s| s["folders"].is_array()))
        });
    for (terminal, dir) in [(&one, &a), (&two, &b)] {
        let pid = terminal.pid().unwrap_or_default();
        let session = changed["params"]["sessions"]
            .as_array()
            .and_then(|s| s.iter().find(|s| s["pid"] == pid))
            .unwrap_or_else(|| panic!("no session with pid {pid}: {changed}"));
        assert_eq!(session["folders"], json!([scene::text(dir)]), "{changed}");
    }

    let (file_a, file_b) = (
        scene::text(&a.join("one.txt")),
        scene::text(&b.join("two.txt")),
    );
    scene.send_synced(&scene::select_on_first_line(&file_a, "alpha text"));
    // The CLI's footer shows the selection it holds: the push arrived.
    wait::until("the alpha CLI to show its selection", || {
        one.screen().contains("1 line selected").then_some(())
    });
    scene.send_synced(&scene::select_on_first_line(&file_b, "beta text"));
    wait::until("the beta CLI to show its selection", || {
        two.screen().contains("1 line selected").then_some(())
    });
    one.submit("What is selected in alpha?");
    two.submit("What is selected in beta?");
    let (turn_a, turn_b) = (
        turn_of(&scene, "What is selected in alpha?"),
        turn_of(&scene, "What is selected in beta?"),
    );
    assert!(
        turn_a.contains(&format!("from {file_a}:\nalpha text")) && !turn_a.contains("two.txt"),
        "the alpha session should see its own selection only: {}",
        crate::excerpt(&turn_a, ".txt")
    );
    assert!(
        turn_b.contains(&format!("from {file_b}:\nbeta text")) && !turn_b.contains("one.txt"),
        "the beta session should see its own selection only: {}",
        crate::excerpt(&turn_b, ".txt")
    );
    scene.assert_stayed_on_loopback();
}
