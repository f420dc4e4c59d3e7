//! The CLI's own edges: its inbound message limit (an accepted 17 MiB proposal) and the
//! diagnostics of a proposal (docs/protocol.md, "The CLI's inbound limit" and "Diagnostics of
//! a proposal").

use crate::idelink::Serve;
use idelink_real_claude::fake_api::FINAL_TEXT;
use idelink_real_claude::scene::{self, NEW_FILE_NAME, Scene};
use idelink_real_claude::{claude, wait};
use serde_json::{Value, json};

/// The proposal: 17 MiB of lines, over the CLI's 16 MiB.
fn big_text() -> String {
    let line = "a line of the 17 MiB file the model proposes, for the drift alarm\n";
    line.repeat((17 << 20) / line.len() + 1)
}

/// Starts the sidecar with `args` and the CLI, types the [`NEW_FILE_NAME`] prompt; returns the
/// `openDiff` `tool/call`.
fn until_open_diff(scene: &mut Scene, args: &[&str]) -> Value {
    prompt_until_open_diff(scene, args, &format!("Please create {NEW_FILE_NAME}"))
}

/// Starts the sidecar with `args` and the CLI, waits for the session, types `prompt`; returns
/// the `openDiff` `tool/call`.
fn prompt_until_open_diff(scene: &mut Scene, args: &[&str], prompt: &str) -> Value {
    let port = scene.serve_sidecar_with(args);
    scene.start_claude(port);
    scene.wait_connected();
    scene
        .ide()
        .wait_message("sessionReady", |m| is_event(m, "sessionReady"));
    scene.terminal().submit(prompt);
    scene.ide().wait_message("a tool/call openDiff", |m| {
        m["method"] == "tool/call" && m["params"]["request"]["tool"] == "openDiff"
    })
}

/// A scene whose model writes the 17 MiB [`big_text`], with the sidecar started with `args`,
/// its editor accepting the `openDiff` with `edit` of the proposal as the final text; `None`
/// when `test` is skipped. Returns the scene and the proposal.
fn accepted_big_proposal(
    test: &str,
    name: &'static str,
    args: &[&str],
    edit: impl FnOnce(&str) -> String,
) -> Option<(Scene, String)> {
    let claude = claude::locate(test)?;
    let text = big_text();
    let mut scene = Scene::creating_text(name, claude, Box::new(Serve), text.clone());
    let call = until_open_diff(&mut scene, args);
    scene.ide().send(&json!({"jsonrpc": "2.0", "id": call["id"],
        "result": {"outcome": "diffSaved", "finalText": edit(&text)}}));
    Some((scene, text))
}

fn is_event(message: &Value, event: &str) -> bool {
    message["method"] == "idelink/event" && message["params"]["event"] == event
}

fn events(scene: &mut Scene, event: &str) -> Vec<Value> {
    scene
        .ide()
        .lines()
        .iter()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|m| is_event(m, event))
        .collect()
}

/// Waits for the CLI's permission prompt for the Write, which stays on screen when the IDE's
/// diff fails: `Do you want to create created.txt?` (2.1.112: `Do you want to make this edit to
/// created.txt?`).
fn wait_terminal_prompt(scene: &Scene) {
    wait::until("the CLI's own prompt for the Write on screen", || {
        let screen = scene.terminal().screen();
        (screen.contains("Do you want to") && screen.contains(&format!("{NEW_FILE_NAME}?")))
            .then_some(())
    });
}

fn no_close_since_start(scene: &mut Scene) {
    let closed = events(scene, "closed");
    assert!(
        closed.is_empty(),
        "the session must stay up: {}",
        closed
            .iter()
            .map(|c| c["params"].to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    assert_eq!(
        events(scene, "connected").len(),
        1,
        "one connection, never re-made"
    );
}

fn the_too_large_event(scene: &mut Scene) -> Value {
    scene.ide().wait_message("the messageTooLarge event", |m| {
        is_event(m, "messageTooLarge")
    })["params"]
        .clone()
}

/// Without idelink's limit (lifted past the answer, as before `max_client_message_bytes`):
/// `FILE_SAVED` with the 17 MiB text reaches the CLI. From 2.1.295 the CLI closes the
/// connection without a close code (1000 in 2.1.295), reconnects at once, and drops the IDE's answer: the user's
/// accept is lost and the terminal asks again. Older releases read it and write the file
/// (2.1.112 runs on Node's `ws` package, whose cap is 100 MiB).
#[test]
fn an_answer_over_16_mib_closes_the_clis_connection() {
    let Some((mut scene, text)) = accepted_big_proposal(
        "an_answer_over_16_mib_closes_the_clis_connection",
        "over-16-mib",
        &["--max-client-message-bytes=104857600"],
        str::to_owned,
    ) else {
        return;
    };
    if !scene.claude.expect.closes_over_16_mib {
        let expected = scene.claude.expect.created_file(&text);
        scene.wait_file_at(&scene.workspace.join(NEW_FILE_NAME), &expected);
        scene.wait_screen(FINAL_TEXT);
        no_close_since_start(&mut scene);
        return;
    }
    let closed = scene
        .ide()
        .wait_message("the session's end", |m| is_event(m, "closed"));
    // `ws.close()` with no code: no status in the close frame (2.1.316, 2.1.332), 1000 from
    // 2.1.295's runtime.
    let reason = &closed["params"]["reason"];
    assert!(
        reason["kind"] == "peerClosed"
            && (reason["code"].is_null() || reason["code"] == 1000)
            && reason["reason"] == "",
        "the CLI closes with no code (or 1000) and no reason: {reason}"
    );
    wait::until("the CLI to log why it closed", || {
        scene
            .debug_log()
            .contains(
                "MCP server sent a WebSocket message over 16 MiB. Claude Code did not read it \
                 and closed the connection.",
            )
            .then_some(())
    });
    wait::until("the CLI to reconnect by itself", || {
        (events(&mut scene, "sessionReady").len() == 2).then_some(())
    });
    assert!(
        scene
            .debug_log()
            .contains("IDE diff view failed: Connection closed")
    );
    wait_terminal_prompt(&scene);
    assert!(
        !scene.workspace.join(NEW_FILE_NAME).exists(),
        "the accept in the IDE was lost: nothing written"
    );
    scene.assert_stayed_on_loopback();
}

/// With the default limit, the same accept (the proposal unchanged) is answered `TAB_CLOSED`,
/// which the CLI reads as that accept: it writes the 17 MiB file and the turn ends, on the same
/// connection.
#[test]
fn an_accepted_17_mib_proposal_is_written_and_the_session_stays_up() {
    let Some((mut scene, text)) = accepted_big_proposal(
        "an_accepted_17_mib_proposal_is_written_and_the_session_stays_up",
        "accept-17-mib",
        &[],
        str::to_owned,
    ) else {
        return;
    };
    let too_large = the_too_large_event(&mut scene);
    assert_eq!(too_large["message"], "openDiff");
    assert_eq!(too_large["sent"], "tabClosed");
    assert!(too_large["bytes"].as_u64() > Some(16 << 20), "{too_large}");
    let expected = scene.claude.expect.created_file(&text);
    scene.wait_file_at(&scene.workspace.join(NEW_FILE_NAME), &expected);
    scene.wait_screen(FINAL_TEXT);
    no_close_since_start(&mut scene);
    scene.assert_stayed_on_loopback();
}

/// With the default limit, an accept whose final text the user edited (17 MiB, not the
/// proposal) cannot reach the CLI: idelink answers an error result saying why, the CLI logs
/// it as the IDE diff's failure and keeps its own prompt on screen for the user, on the same
/// connection.
#[test]
fn an_edited_17_mib_accept_is_a_clear_error_and_the_session_stays_up() {
    let Some((mut scene, _)) = accepted_big_proposal(
        "an_edited_17_mib_accept_is_a_clear_error_and_the_session_stays_up",
        "edited-17-mib",
        &[],
        |text| format!("{text}a line the user added in the IDE's diff\n"),
    ) else {
        return;
    };
    let too_large = the_too_large_event(&mut scene);
    assert_eq!(too_large["message"], "openDiff");
    assert_eq!(too_large["sent"], "error");
    // `Tool 'openDiff' failed after 7s: idelink: this answer is …` (2.1.332 also logs `IDE diff
    // view failed: …`, 2.1.112 `[ERROR] MCP server "ide" idelink: …`).
    wait::until(
        "the CLI to log the failed openDiff with idelink's reason",
        || {
            scene
                .debug_log()
                .lines()
                .find(|l| {
                    l.contains("Tool 'openDiff' failed") && l.contains("over the client's limit")
                })
                .map(str::to_owned)
        },
    );
    wait_terminal_prompt(&scene);
    no_close_since_start(&mut scene);
    assert!(!scene.workspace.join(NEW_FILE_NAME).exists());
    scene.assert_stayed_on_loopback();
}

/// The diagnostics the editor reports for the proposal of an `openDiff` (keyed by its call)
/// reach the model: the CLI asks `getDiagnostics {}` after writing the accepted edit, takes the
/// `_claude_fs_right:` entry over the file's own, and attaches what is new to the next model
/// request.
#[test]
fn the_model_receives_the_diagnostics_of_the_proposal() {
    let Some(claude) = claude::locate("the_model_receives_the_diagnostics_of_the_proposal") else {
        return;
    };
    let mut scene = Scene::new("proposal-diagnostics", claude, Box::new(Serve));
    let call = prompt_until_open_diff(
        &mut scene,
        &[],
        "Please change hello to goodbye in greeting.txt",
    );
    let message = "idelink drift alarm: the proposal does not type-check";
    scene.ide().send(&json!({"jsonrpc": "2.0", "method": "editor/event", "params": {
        "type": "proposalDiagnosticsChanged", "call": call["id"], "diagnostics": [{
            "message": message, "severity": "Error", "source": "idelink",
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 7}}}]}}));
    scene.ide().send(&json!({"jsonrpc": "2.0", "id": call["id"],
        "result": {"outcome": "diffSaved", "finalText": scene::EDITED}}));
    scene.wait_file(scene::EDITED);
    let turn = wait::until("a model request carrying the proposal's diagnostic", || {
        scene
            .api
            .turns()
            .into_iter()
            .map(|turn| crate::all_text(&turn))
            .find(|text| text.contains(message))
    });
    assert!(
        turn.contains(scene::FILE_NAME),
        "the diagnostic is reported for the edited file: {}",
        crate::excerpt(&turn, message)
    );
    scene.wait_screen(FINAL_TEXT);
    scene.assert_stayed_on_loopback();
}
