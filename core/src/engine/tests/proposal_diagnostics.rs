//! Diagnostics of a proposal: an editor event keyed by the `openDiff` call, answered by
//! `getDiagnostics {}` as `_claude_fs_right:<path>` beside the file's own entry, for the
//! client that asked, while the call is pending and after its accept until the file's own
//! diagnostics or the next prompt.

use super::*;
use crate::ide::{Diagnostic, Position, Range, Severity};

fn unused() -> Diagnostic {
    Diagnostic {
        message: "unused".into(),
        severity: Severity::Warning,
        range: Range {
            start: Position {
                line: 1,
                character: 4,
            },
            end: Position {
                line: 1,
                character: 5,
            },
        },
        source: None,
        code: None,
    }
}

const UNUSED: &str = r#"{\"message\":\"unused\",\"severity\":\"Warning\",\"range\":{\"start\":{\"line\":1,\"character\":4},\"end\":{\"line\":1,\"character\":5}}}"#;

fn diagnostics_reply(id: u32, entries: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"[{entries}]"}}]}}}}"#
    )
}

/// The answer to `getDiagnostics` with `args` as request `id`.
fn ask(engine: &mut Engine, conn: ConnId, id: u32, args: &str) -> String {
    engine
        .handle_bytes(at(5), conn, &call(id, "getDiagnostics", args))
        .unwrap();
    let mut drained = Drained::default();
    drain(engine, &mut drained);
    let payloads = server_payloads(&drained.bytes[&conn]);
    String::from_utf8(payloads.last().unwrap().clone()).unwrap()
}

fn report(engine: &mut Engine, id: ToolCallId, list: Vec<Diagnostic>) {
    engine.handle_editor_event(
        at(3),
        &EditorEvent::ProposalDiagnosticsChanged {
            call: id.as_u64(),
            diagnostics: list,
        },
    );
}

/// The editor accepts call `id` with its proposal.
fn accept(engine: &mut Engine, id: ToolCallId) {
    let saved = ToolOutcome::DiffSaved {
        final_text: "x".into(),
        original_text: None,
    };
    engine.handle_tool_outcome(at(4), id, &saved).unwrap();
}

/// One client with the `openDiff` of `/w/a` pending and its proposal's diagnostics reported.
fn reported() -> (Engine, ConnId, ToolCallId) {
    reported_with(|_| {}, vec![unused()])
}

/// [`reported`] with `config` and `list` as the proposal's diagnostics.
fn reported_with(
    config: impl FnOnce(&mut Config),
    list: Vec<Diagnostic>,
) -> (Engine, ConnId, ToolCallId) {
    let (mut engine, conn, _) = connected(config);
    engine
        .handle_bytes(at(1), conn, &call(3, "openDiff", &diff_args("t", "x")))
        .unwrap();
    let mut asked = Drained::default();
    drain(&mut engine, &mut asked);
    let id = tool_call_id(&asked);
    report(&mut engine, id, list);
    (engine, conn, id)
}

const WITH_PROPOSAL: &str = r#"{\"uri\":\"file:///w/a\",\"diagnostics\":[]},{\"uri\":\"_claude_fs_right:/w/a\",\"diagnostics\":[UNUSED]}"#;

fn with_proposal() -> String {
    WITH_PROPOSAL.replace("UNUSED", UNUSED)
}

#[test]
fn every_file_lists_the_pending_proposal_beside_its_file_and_one_file_does_not() {
    let (mut engine, conn, _) = reported();
    assert_eq!(
        ask(&mut engine, conn, 5, "{}"),
        diagnostics_reply(5, &with_proposal())
    );
    assert_eq!(
        ask(&mut engine, conn, 6, r#"{"uri":"file:///w/a"}"#),
        diagnostics_reply(6, r#"{\"uri\":\"file:///w/a\",\"diagnostics\":[]}"#)
    );
    // Another client does not see this client's proposal.
    let mut drained = Drained::default();
    let other = initialized_client(&mut engine, &mut drained);
    assert_eq!(ask(&mut engine, other, 7, "{}"), diagnostics_reply(7, ""));
    // An empty list clears them.
    let id = ToolCallId(1);
    report(&mut engine, id, vec![]);
    assert_eq!(ask(&mut engine, conn, 8, "{}"), diagnostics_reply(8, ""));
}

#[test]
fn an_accepted_proposal_is_listed_until_the_files_own_diagnostics_come() {
    let (mut engine, conn, id) = reported();
    accept(&mut engine, id);
    // The CLI's close_tab, then its baseline and its question after the write.
    engine
        .handle_bytes(at(4), conn, &call(4, "close_tab", r#"{"tab_name":"t"}"#))
        .unwrap();
    assert_eq!(
        ask(&mut engine, conn, 5, "{}"),
        diagnostics_reply(5, &with_proposal())
    );
    engine.handle_editor_event(
        at(6),
        &EditorEvent::DiagnosticsChanged {
            path: "/w/a".into(),
            diagnostics: vec![],
        },
    );
    assert_eq!(ask(&mut engine, conn, 6, "{}"), diagnostics_reply(6, ""));
}

#[test]
fn an_accepted_proposal_is_past_at_the_next_prompt() {
    let (mut engine, conn, id) = reported();
    accept(&mut engine, id);
    engine
        .handle_bytes(at(5), conn, &call(4, "closeAllDiffTabs", "{}"))
        .unwrap();
    assert_eq!(ask(&mut engine, conn, 5, "{}"), diagnostics_reply(5, ""));
}

#[test]
fn a_rejected_proposal_and_an_unknown_call_are_not_listed() {
    let (mut engine, conn, id) = reported();
    engine
        .handle_tool_outcome(at(4), id, &ToolOutcome::DiffRejected)
        .unwrap();
    assert_eq!(ask(&mut engine, conn, 5, "{}"), diagnostics_reply(5, ""));
    report(&mut engine, id, vec![unused()]);
    report(&mut engine, ToolCallId(99), vec![unused()]);
    assert_eq!(ask(&mut engine, conn, 6, "{}"), diagnostics_reply(6, ""));
}

#[test]
fn proposal_diagnostics_are_held_to_max_diagnostics() {
    let (mut engine, conn, id) = reported_with(|c| c.max_diagnostics = 1, vec![unused(), unused()]);
    assert_eq!(ask(&mut engine, conn, 5, "{}"), diagnostics_reply(5, ""));
    report(&mut engine, id, vec![unused()]);
    assert_eq!(
        ask(&mut engine, conn, 6, "{}"),
        diagnostics_reply(6, &with_proposal())
    );
}
