//! The drift alarm: the real `claude` CLI against `idelink serve`, all on loopback.
//!
//! The protocol is whatever the CLI does (docs/protocol.md); these tests fail when a CLI
//! release moves it. Each test starts `idelink serve` ([`idelink`]) on a temporary workspace,
//! the real CLI in a tmux pseudo-terminal with a private home and config folder, and a
//! scripted Anthropic API ([`fake_api`]) that makes the model read a file and edit it; the
//! harness is the `idelink-real-claude` crate (tests/real-claude). They check that the CLI
//! connects, that the MCP session runs as docs/protocol.md says, and that the edit goes
//! through the IDE's `openDiff` and ends as the IDE decided.
//!
//! The CLI is `CLAUDE_BIN` (a native binary, or a release's `cli.js`, run with node), else the
//! pinned install `scripts/install` makes. Without it the tests skip loudly; with `CI=true` they fail.
//! Where a CLI version's own words differ, [`expect`] says so. `scripts/compat` runs these
//! tests over a list of versions; docs/compatibility.md has the results.
//!
//! [`fake_api`]: idelink_real_claude::fake_api
//! [`expect`]: idelink_real_claude::expect

// Unix only: the CLI runs in a tmux pseudo-terminal, and the pinned CLI is the linux-x64 build.
#![cfg(unix)]

mod bind;
mod contract;
mod idelink;
mod idelink_claude;
mod ledger;
mod limits;
mod neovim;
mod neovim_plugin;
mod policy;
mod remote;
mod sessions;
mod slow_start;
mod unsaved;

use idelink::Serve;
use idelink_real_claude::fake_api::FINAL_TEXT;
use idelink_real_claude::scene::{
    self, CREATED, EDITED, FILE_NAME, NEW_FILE_NAME, ORIGINAL, Scene,
};
use idelink_real_claude::{claude, wait};
use serde_json::{Value, json};
use std::time::Duration;

/// What the user types.
const PROMPT: &str = "Please change hello to goodbye in greeting.txt";

/// `tools/list` was answered with a catalogue the CLI took: the model is offered the IDE's
/// diagnostics tool (the CLI learns its name only from `tools/list`) and nothing that runs
/// code (executeCode is off unless an editor opts in).
fn check_tools_listed(turn: &Value) {
    let body = turn.to_string();
    assert!(
        body.contains("mcp__ide__getDiagnostics"),
        "tools/list: the model was not offered mcp__ide__getDiagnostics, so the CLI did not \
         take idelink's tool list"
    );
    assert!(
        !body.contains("mcp__ide__executeCode"),
        "tools/list: executeCode must not be offered by default"
    );
}

/// Types the prompt and waits for `closeAllDiffTabs` (the CLI's first call at every prompt),
/// then for the `openDiff` of the scripted edit.
fn prompt_until_open_diff(scene: &mut Scene) {
    prompt_until_open_diff_of(scene, PROMPT, FILE_NAME);
}

/// [`prompt_until_open_diff`] with any prompt, for the `openDiff` of `file_name`.
fn prompt_until_open_diff_of(scene: &mut Scene, prompt: &str, file_name: &str) {
    let before = scene.ide().lines().len();
    scene.terminal().submit(prompt);
    let (close_all, _) = scene.ide().wait_line(before, "closeAllDiffTabs");
    let (open_diff, _) = scene
        .ide()
        .wait_line(before, &format!("openDiff {file_name}"));
    assert!(
        close_all < open_diff,
        "closeAllDiffTabs must come at the start of the prompt, before the openDiff"
    );
}

#[test]
fn an_accepted_ide_diff_is_written_by_claude() {
    let Some(claude) = claude::locate("an_accepted_ide_diff_is_written_by_claude") else {
        return;
    };
    let mut scene = Scene::new("accept", claude, Box::new(Serve));
    let port = scene.serve_terminal("accept");
    scene.start_claude(port);
    scene.wait_connected();
    scene.check_session_line();

    scene.check_status();

    prompt_until_open_diff(&mut scene);
    scene.wait_file(EDITED);
    scene.wait_screen(FINAL_TEXT);
    check_tools_listed(&scene.first_turn());
    scene.assert_stayed_on_loopback();
}

#[test]
fn a_file_created_through_an_accepted_ide_diff_is_written_by_claude() {
    let Some(claude) =
        claude::locate("a_file_created_through_an_accepted_ide_diff_is_written_by_claude")
    else {
        return;
    };
    let mut scene = Scene::creating("create", claude, Box::new(Serve));
    let port = scene.serve_terminal("accept");
    scene.start_claude(port);
    scene.wait_connected();
    scene.check_session_line();

    let created = scene.workspace.join(NEW_FILE_NAME);
    prompt_until_open_diff_of(
        &mut scene,
        &format!("Please create {NEW_FILE_NAME}"),
        NEW_FILE_NAME,
    );
    let expected = scene.claude.expect.created_file(CREATED);
    scene.wait_file_at(&created, &expected);
    scene.wait_screen(FINAL_TEXT);
    scene.assert_stayed_on_loopback();
}

#[test]
fn a_rejected_ide_diff_leaves_the_file_alone() {
    let Some(claude) = claude::locate("a_rejected_ide_diff_leaves_the_file_alone") else {
        return;
    };
    let mut scene = Scene::new("reject", claude, Box::new(Serve));
    let port = scene.serve_terminal("reject");
    scene.start_claude(port);
    scene.wait_connected();
    scene.check_session_line();

    prompt_until_open_diff(&mut scene);
    let rejected = format!("{} {FILE_NAME}", scene.claude.expect.rejected_update);
    wait::until(&format!("claude's screen to show {rejected:?}"), || {
        scene.fail_on_ide_error();
        let now = std::fs::read_to_string(&scene.file).unwrap_or_default();
        assert_eq!(
            now, ORIGINAL,
            "the CLI wrote the file: it took idelink's rejection for an accept"
        );
        scene.terminal().screen().contains(&rejected).then_some(())
    });
    scene.assert_stayed_on_loopback();
}

#[test]
fn an_editor_selection_reaches_claude_and_its_diff_edits_are_kept() {
    let Some(claude) =
        claude::locate("an_editor_selection_reaches_claude_and_its_diff_edits_are_kept")
    else {
        return;
    };
    let mut scene = Scene::new("sidecar", claude, Box::new(Serve));
    let port = scene.serve_sidecar();
    let path = scene::text(&scene.file);
    scene.send_synced(&scene::select_on_first_line(
        &path,
        "hello from the workspace",
    ));

    scene.start_claude(port);
    scene.wait_connected();
    let pid = scene.claude_pid();
    let ready = scene.ide().wait_message("sessionReady", |m| {
        m["method"] == "idelink/event" && m["params"]["event"] == "sessionReady"
    });
    assert_eq!(
        ready["params"]["clientPid"], pid,
        "ide_connected should carry the CLI's pid: {ready}"
    );

    scene.terminal().submit(PROMPT);
    assert_first_line_selected(&scene, "the selection pushed after connect");

    let call = scene.ide().wait_message("a tool/call openDiff", |m| {
        m["method"] == "tool/call" && m["params"]["request"]["tool"] == "openDiff"
    });
    let proposed = call["params"]["request"]["newFileContents"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert_eq!(
        proposed, EDITED,
        "openDiff should carry the whole edited file"
    );
    let kept = format!("{EDITED}a line the user added in the IDE's diff\n");
    scene.ide().send(&json!({"jsonrpc": "2.0", "id": call["id"],
        "result": {"outcome": "diffSaved", "finalText": kept}}));
    scene.wait_file(&kept);
    scene.wait_screen(FINAL_TEXT);
    check_tools_listed(&scene.first_turn());
    scene.assert_stayed_on_loopback();
}

/// Asserts that the first model turn says the user selected the first line of the workspace
/// file (`what` says where the selection came from).
pub(crate) fn assert_first_line_selected(scene: &Scene, what: &str) {
    let path = scene::text(&scene.file);
    let turn = all_text(&scene.first_turn());
    let selected = format!(
        "selected the {} from {path}:\nhello from the workspace",
        scene.claude.expect.first_line_selection
    );
    assert!(
        turn.contains(&selected),
        "{what} should reach the model's context as {selected:?}; what the first request \
         says: {}",
        excerpt(&turn, "selected the")
    );
}

/// Every string in a request body, one per line (the context the model sees, unescaped).
pub(crate) fn all_text(value: &Value) -> String {
    match value {
        Value::String(text) => format!("{text}\n"),
        Value::Array(items) => items.iter().map(all_text).collect(),
        Value::Object(fields) => fields.values().map(all_text).collect(),
        _ => String::new(),
    }
}

/// Up to 300 characters around the first `needle` in `text`.
pub(crate) fn excerpt(text: &str, needle: &str) -> String {
    let Some(at) = text.find(needle) else {
        return format!("(no {needle:?} anywhere)");
    };
    text.char_indices()
        .skip_while(|(i, _)| *i + 100 < at)
        .take(300)
        .map(|(_, c)| c)
        .collect()
}

/// "No file" when the editor says nothing is active: the selection was published as a per-frame
/// snapshot (`editor/snapshot`), then the editor sends `noDocumentActive` with the document still
/// open. As after closing it, the footer drops the selection and the next prompt carries no IDE
/// file context.
#[test]
fn nothing_active_leaves_no_file_context() {
    let Some(claude) = claude::locate("nothing_active_leaves_no_file_context") else {
        return;
    };
    let mut scene = Scene::new("nothing-active", claude, Box::new(Serve));
    let port = scene.serve_sidecar();
    let path = scene::text(&scene.file);
    let text = "hello from the workspace";
    let end = text.chars().count();
    scene.ide().send(
        &json!({"jsonrpc": "2.0", "method": "editor/snapshot", "params": {
        "documents": [{"path": path}],
        "active": {"path": path, "text": text, "selection": {
            "start": {"line": 0, "character": 0}, "end": {"line": 0, "character": end}}}}}),
    );
    scene.start_claude(port);
    scene.wait_connected();
    scene.ide().wait_message("sessionReady", |m| {
        m["method"] == "idelink/event" && m["params"]["event"] == "sessionReady"
    });
    scene.wait_screen("1 line selected");

    scene.ide().send(
        &json!({"jsonrpc": "2.0", "method": "editor/event", "params": {"type": "noDocumentActive"}}),
    );
    wait::until("the CLI's footer to drop the selection", || {
        let screen = scene.terminal().screen();
        (!screen.contains("line selected") && !screen.contains(&format!("In {FILE_NAME}")))
            .then_some(())
    });

    scene.terminal().submit(PROMPT);
    let turn = all_text(&scene.first_turn());
    let selected = format!(
        "selected the {} from {path}",
        scene.claude.expect.first_line_selection
    );
    for context in [selected.as_str(), "The user opened the file"] {
        assert!(
            !turn.contains(context),
            "with no document active, the prompt should carry no IDE file context, yet it says \
             {context:?}: {}",
            excerpt(&turn, context)
        );
    }
    scene.assert_stayed_on_loopback();
}

/// "No file": once the editor closes the document it had selected in, the CLI's footer drops
/// the selection and the next prompt carries no IDE file context (neither the selection nor
/// "the user opened the file"). idelink pushes a `selection_changed` without `filePath`.
#[test]
fn a_closed_document_leaves_no_file_context() {
    let Some(claude) = claude::locate("a_closed_document_leaves_no_file_context") else {
        return;
    };
    let mut scene = Scene::new("no-file", claude, Box::new(Serve));
    let port = scene.serve_sidecar();
    let path = scene::text(&scene.file);
    for event in scene::select_on_first_line(&path, "hello from the workspace") {
        scene.ide().send(&event);
    }
    scene.start_claude(port);
    scene.wait_connected();
    scene.ide().wait_message("sessionReady", |m| {
        m["method"] == "idelink/event" && m["params"]["event"] == "sessionReady"
    });
    // The selection reached the CLI: its footer shows it.
    scene.wait_screen("1 line selected");

    scene
        .ide()
        .send(&json!({"jsonrpc": "2.0", "method": "editor/event",
        "params": {"type": "documentClosed", "path": path}}));
    wait::until(
        "the CLI's footer to drop the closed file's selection",
        || {
            let screen = scene.terminal().screen();
            (!screen.contains("line selected") && !screen.contains(&format!("In {FILE_NAME}")))
                .then_some(())
        },
    );

    scene.terminal().submit(PROMPT);
    let turn = all_text(&scene.first_turn());
    let selected = format!(
        "selected the {} from {path}",
        scene.claude.expect.first_line_selection
    );
    for context in [selected.as_str(), "The user opened the file"] {
        assert!(
            !turn.contains(context),
            "after the document closed, the prompt should carry no IDE file context, yet it \
             says {context:?}: {}",
            excerpt(&turn, context)
        );
    }
    scene.assert_stayed_on_loopback();
}

/// Pulled reads: with `--pull=getDiagnostics`, the CLI's diagnostics baseline (taken once the
/// diff is accepted, before it writes the file) reaches the editor as a `tool/call` with the
/// file's path. Left unanswered past `--tool-deadline-ms`, idelink answers JSON-RPC error
/// -32000: the CLI takes it as a failed call and goes on with the edit, logging no IDE error
/// (an error result makes it log one: docs/protocol.md, "Pulled reads").
#[test]
fn a_pulled_read_the_editor_misses_is_a_plain_failed_call() {
    let Some(claude) = claude::locate("a_pulled_read_the_editor_misses_is_a_plain_failed_call")
    else {
        return;
    };
    let mut scene = Scene::new("pulled-miss", claude, Box::new(Serve));
    let port = scene.serve_sidecar_with(&["--pull=getDiagnostics", "--tool-deadline-ms=100"]);
    scene.start_claude(port);
    scene.wait_connected();
    scene.ide().wait_message("sessionReady", |m| {
        m["method"] == "idelink/event" && m["params"]["event"] == "sessionReady"
    });

    scene.terminal().submit(PROMPT);
    let call = scene.ide().wait_message("a tool/call openDiff", |m| {
        m["method"] == "tool/call" && m["params"]["request"]["tool"] == "openDiff"
    });
    scene.ide().send(&json!({"jsonrpc": "2.0", "id": call["id"],
        "result": {"outcome": "diffSaved", "finalText": EDITED}}));
    let path = scene::text(&scene.file);
    let pulled = scene.ide().wait_message("the pulled getDiagnostics", |m| {
        m["method"] == "tool/call" && m["params"]["request"]["tool"] == "getDiagnostics"
    });
    assert_eq!(
        pulled["params"]["request"]["path"], path,
        "the baseline asks for the edited file, its path parsed from the uri: {pulled}"
    );
    let missed = scene
        .ide()
        .wait_message("the deadline's cancellation", |m| {
            m["method"] == "idelink/event" && m["params"]["event"] == "toolCallCancelled"
        });
    assert_eq!(missed["params"]["id"], pulled["id"]);
    assert_eq!(missed["params"]["reason"], "deadlineExpired");
    scene.wait_file(EDITED);
    scene.wait_screen(FINAL_TEXT);
    scene.fail_on_ide_error();
    assert!(
        scene
            .debug_log()
            .contains("Tool 'getDiagnostics' failed after"),
        "the CLI should log the missed read as a failed call"
    );
    scene.assert_stayed_on_loopback();
}

/// Restart without stranding claude (issue 33 §2): `idelink serve --resume` stopped cleanly
/// (SIGTERM) and started again within a second comes back on the same port with the same
/// token; the CLI, which redials the same URL and token after a close (1, 2, 4, 8 s apart,
/// docs/protocol.md "Reconnects and resume") and never re-reads the lock, reconnects on its
/// own, and the next prompt's edit goes through the new host's `openDiff`. Nobody types `/ide`.
#[test]
fn a_resumed_host_is_rejoined_by_the_same_claude_without_ide() {
    let Some(claude) = claude::locate("a_resumed_host_is_rejoined_by_the_same_claude_without_ide")
    else {
        return;
    };
    rejoined_after_restart(
        Scene::new("resume", claude, Box::new(Serve)),
        Scene::restart_terminal_with,
    );
}

/// [`a_resumed_host_is_rejoined_by_the_same_claude_without_ide`] after a crash: the host is
/// killed (SIGKILL), so its lock stays behind and its record still says running; its pid is
/// dead, so the host started again takes the port and token back all the same.
#[test]
fn a_crashed_host_is_rejoined_by_the_same_claude_without_ide() {
    let Some(claude) = claude::locate("a_crashed_host_is_rejoined_by_the_same_claude_without_ide")
    else {
        return;
    };
    rejoined_after_restart(
        Scene::new("resume-crash", claude, Box::new(Serve)),
        Scene::crash_and_restart_terminal_with,
    );
}

/// Serves with `--resume`, connects claude, restarts the host with `restart` within a second,
/// and checks that the same claude rejoins and completes an accepted `openDiff`.
fn rejoined_after_restart(
    mut scene: Scene,
    restart: fn(&mut Scene, &str, &[&str]) -> (u16, Duration),
) {
    let port = scene.serve_terminal_with("accept", &["--resume"]);
    scene.start_claude(port);
    scene.wait_connected();
    scene.check_session_line();
    let pid = scene.claude_pid();

    let (again, gap) = restart(&mut scene, "accept", &["--resume"]);
    assert_eq!(
        again, port,
        "the restarted host must listen on the same port"
    );
    assert!(
        gap < Duration::from_secs(1),
        "the host took {gap:?} to come back; the test restarts within 1 s"
    );
    scene
        .ide()
        .wait_line(0, &format!("resumed the last session on port {port}"));
    let rejoined = wait::until("claude's debug log to say the IDE reconnected", || {
        let log = scene.debug_log();
        log.lines()
            .find(|l| l.contains("MCP server \"ide\"") && l.contains("reconnection successful"))
            .map(str::to_owned)
    });
    eprintln!("the host was back {gap:?} after it stopped; claude: {rejoined}");
    // Each redial that found no listener (refused), or the old host still closing (reset);
    // 2.1.160 to 2.1.286 log either as `Connection failed: [object ErrorEvent]` or
    // `Connection failed: WebSocket connection to '…' failed: Failed to connect` (`Connection
    // ended`).
    scene.expect_ide_errors_so_far(|e| {
        e.contains("ECONNREFUSED") || e.contains("ECONNRESET") || e.contains("Connection failed: ")
    });
    let (_, ready) = scene.ide().wait_line(0, "session ready:");
    assert!(
        ready.contains(&format!("pid {pid}")),
        "the same claude (pid {pid}) should rejoin: {ready}"
    );
    assert_eq!(scene.claude_pid(), pid, "claude was not restarted");

    prompt_until_open_diff(&mut scene);
    scene.wait_file(EDITED);
    scene.wait_screen(FINAL_TEXT);
    scene.assert_stayed_on_loopback();
}
