//! The CLI's edges docs/protocol.md §9 states from the CLI's bundled code, driven here where a
//! test can: `MCP_TIMEOUT` bounds the connection, `MCP_TOOL_TIMEOUT` bounds an `openDiff` the
//! editor leaves unanswered (the CLI closes the tab and the user answers in the terminal), and
//! `/clear` closes the IDE connection, which the CLI then opens again by itself.

use crate::PROMPT;
use crate::idelink::Serve;
use idelink_real_claude::scene::{ORIGINAL, Scene};
use idelink_real_claude::{claude, wait};
use serde_json::Value;
use std::time::{Duration, Instant};

/// The `MCP_TOOL_TIMEOUT` of the test, in ms: short, and above the CLI's floor of 1 s.
const TOOL_TIMEOUT_MS: u64 = 4_000;

/// The `MCP_TIMEOUT` of the test, in ms: not the CLI's default (30 000).
const CONNECT_TIMEOUT_MS: u64 = 45_000;

fn is_event(message: &Value, event: &str) -> bool {
    message["method"] == "idelink/event" && message["params"]["event"] == event
}

#[test]
fn mcp_tool_timeout_ends_an_unanswered_open_diff_and_the_terminal_prompt_stays() {
    let Some(claude) = claude::locate(
        "mcp_tool_timeout_ends_an_unanswered_open_diff_and_the_terminal_prompt_stays",
    ) else {
        return;
    };
    let mut scene = Scene::new("tool-timeout", claude, Box::new(Serve));
    let port = scene.serve_sidecar();
    let tool_timeout = TOOL_TIMEOUT_MS.to_string();
    let connect_timeout = CONNECT_TIMEOUT_MS.to_string();
    scene.start_claude_with(
        port,
        &[
            ("MCP_TOOL_TIMEOUT", &tool_timeout),
            ("MCP_TIMEOUT", &connect_timeout),
        ],
    );
    scene.wait_connected();
    let connecting =
        format!("MCP server \"ide\": Starting connection with timeout of {CONNECT_TIMEOUT_MS}ms");
    assert!(
        scene.debug_log().contains(&connecting),
        "MCP_TIMEOUT should bound the IDE connection: no {connecting:?} in the CLI's debug log"
    );

    scene.terminal().submit(PROMPT);
    let call = scene.ide().wait_message("a tool/call openDiff", |m| {
        m["method"] == "tool/call" && m["params"]["request"]["tool"] == "openDiff"
    });
    let asked = Instant::now();
    // Left unanswered: the CLI gives up after MCP_TOOL_TIMEOUT and closes the tab, which
    // the engine reports as the request cancelled.
    let cancelled = scene.ide().wait_message("the openDiff cancelled", |m| {
        is_event(m, "toolCallCancelled") && m["params"]["id"] == call["id"]
    });
    let waited = asked.elapsed();
    assert!(
        waited >= Duration::from_millis(TOOL_TIMEOUT_MS - 1_000),
        "the CLI closed the diff after {waited:?}, before MCP_TOOL_TIMEOUT ({TOOL_TIMEOUT_MS} ms): \
         {cancelled}"
    );
    let failed = format!(
        "Failed to show diff in IDE: MCP server \"ide\" tool \"openDiff\" timed out after {}s",
        TOOL_TIMEOUT_MS / 1_000
    );
    wait::until(&format!("{failed:?} in the CLI's debug log"), || {
        scene.debug_log().contains(&failed).then_some(())
    });
    // The user still has the terminal's permission prompt, and the file is untouched.
    scene.wait_screen("Do you want to make this edit");
    assert_eq!(
        std::fs::read_to_string(&scene.file).unwrap_or_default(),
        ORIGINAL
    );
    scene.assert_stayed_on_loopback();
}

#[test]
fn clear_closes_the_ide_connection_and_the_cli_connects_again() {
    let Some(claude) = claude::locate("clear_closes_the_ide_connection_and_the_cli_connects_again")
    else {
        return;
    };
    let mut scene = Scene::new("clear", claude, Box::new(Serve));
    let port = scene.serve_sidecar();
    scene.start_claude(port);
    scene.wait_connected();
    scene
        .ide()
        .wait_message("sessionReady", |m| is_event(m, "sessionReady"));

    scene.terminal().submit("/clear");
    let closed = scene
        .ide()
        .wait_message("the session closed", |m| is_event(m, "closed"));
    assert_eq!(
        closed["params"]["reason"]["kind"], "peerClosed",
        "/clear: the CLI closes the socket itself: {closed}"
    );
    let since = Instant::now();
    // The CLI connects again by itself: a second session, without /ide.
    wait::until("a new session after /clear", || {
        let ready = scene
            .ide()
            .lines()
            .iter()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|m| is_event(m, "sessionReady"))
            .count();
        (ready > 1).then_some(())
    });
    eprintln!(
        "/clear: a new session {:?} after the close",
        since.elapsed()
    );
    scene.assert_stayed_on_loopback();
}
