//! Unsaved buffers and the file on disk (docs/protocol.md, "Unsaved buffers and the file on
//! disk"): the `dirty` flag of an `openDiff` request, the refusal, the accept that changes
//! nothing, and the `fileReplaced` event, byte for byte.

use super::*;

/// Opens `/w/a` in the editor with `dirty`, then has the client call `openDiff` (JSON-RPC id
/// `rpc`) proposing `contents` (JSON-escaped); returns the request handed to the editor.
fn diff_of(
    engine: &mut Engine,
    conn: ConnId,
    rpc: u32,
    dirty: bool,
    contents: &str,
) -> (ToolCallId, ToolRequest) {
    let opened = EditorEvent::DocumentOpened {
        path: "/w/a".into(),
        language_id: None,
        is_dirty: dirty,
        is_untitled: false,
    };
    engine.handle_editor_event(at(1), &opened);
    let args = diff_args(&format!("tab {rpc}"), contents);
    engine
        .handle_bytes(at(2), conn, &call(rpc, "openDiff", &args))
        .unwrap();
    let mut drained = Drained::default();
    drain(engine, &mut drained);
    drained
        .events
        .into_iter()
        .find_map(|e| match e {
            EngineEvent::ToolCall { id, request, .. } => Some((id, request)),
            _ => None,
        })
        .expect("an openDiff request")
}

/// Answers `id` with `outcome`; returns the reply's text and the events that followed.
fn answer(
    engine: &mut Engine,
    conn: ConnId,
    id: ToolCallId,
    outcome: &str,
) -> (String, Vec<EngineEvent>) {
    let outcome: ToolOutcome = serde_json::from_str(outcome).unwrap();
    engine.handle_tool_outcome(at(3), id, &outcome).unwrap();
    let mut drained = Drained::default();
    drain(engine, &mut drained);
    let reply = replies(&drained.bytes[&conn]).concat();
    (reply, drained.events)
}

#[test]
fn an_open_diff_of_a_dirty_document_says_so_and_a_clean_one_says_nothing() {
    let (mut engine, conn, _) = connected(|_| {});
    let (_, dirty) = diff_of(&mut engine, conn, 5, true, "x");
    assert_eq!(
        serde_json::to_string(&dirty).unwrap(),
        r#"{"tool":"openDiff","oldFilePath":"/w/a","newFilePath":"/w/a","newFileContents":"x","tabName":"tab 5","dirty":true}"#
    );
    let (_, clean) = diff_of(&mut engine, conn, 6, false, "x");
    assert_eq!(
        serde_json::to_string(&clean).unwrap(),
        r#"{"tool":"openDiff","oldFilePath":"/w/a","newFilePath":"/w/a","newFileContents":"x","tabName":"tab 6"}"#
    );
}

#[test]
fn a_refused_diff_is_an_error_result_with_the_reason_and_no_file_replaced() {
    let (mut engine, conn, _) = connected(|_| {});
    let (id, _) = diff_of(&mut engine, conn, 5, true, "x");
    let (reply, events) = answer(
        &mut engine,
        conn,
        id,
        r#"{"outcome":"diffRefused","reason":"a has unsaved changes"}"#,
    );
    assert_eq!(
        reply,
        r#"{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"a has unsaved changes"}],"isError":true}}"#
    );
    assert_eq!(events, []);
}

#[test]
fn an_accept_reports_the_bytes_the_cli_writes_with_its_mark_and_line_endings() {
    let (mut engine, conn, _) = connected(|_| {});
    let (id, _) = diff_of(&mut engine, conn, 5, false, r"\ufeffgoodbye\nsecond\n");
    let (reply, events) = answer(
        &mut engine,
        conn,
        id,
        r#"{"outcome":"diffSaved","finalText":"goodbye\nsecond\nthird","originalText":"\ufeffhello\r\nsecond\r\n"}"#,
    );
    assert_eq!(
        reply,
        r#"{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"FILE_SAVED"},{"type":"text","text":"goodbye\nsecond\nthird"}]}}"#
    );
    assert_eq!(
        events,
        [EngineEvent::FileReplaced {
            id,
            path: "/w/a".into(),
            text: "\u{feff}goodbye\r\nsecond\r\nthird".into()
        }]
    );
    assert_eq!(
        serde_json::to_string(&events[0]).unwrap(),
        format!(
            r#"{{"event":"fileReplaced","id":{},"path":"/w/a","text":"﻿goodbye\r\nsecond\r\nthird"}}"#,
            id.as_u64()
        )
    );
}

#[test]
fn an_accept_of_the_files_own_text_is_refused_not_sent_as_a_denial() {
    let (mut engine, conn, _) = connected(|_| {});
    let (id, _) = diff_of(&mut engine, conn, 5, false, r"goodbye\n");
    let (reply, events) = answer(
        &mut engine,
        conn,
        id,
        r#"{"outcome":"diffSaved","finalText":"hello\n","originalText":"hello\r\n"}"#,
    );
    assert_eq!(
        reply,
        format!(
            r#"{{"jsonrpc":"2.0","id":5,"result":{{"content":[{{"type":"text","text":"{}"}}],"isError":true}}}}"#,
            crate::ide::NO_CHANGE_REASON
        )
    );
    assert!(!reply.contains("FILE_SAVED"));
    assert_eq!(events, []);
}

#[test]
fn an_accept_after_the_editor_saved_the_file_reports_no_file_replaced() {
    for saved in [
        EditorEvent::DocumentSaved {
            path: "/w/a".into(),
        },
        EditorEvent::DocumentDirtyChanged {
            path: "/w/a".into(),
            is_dirty: false,
        },
        // What a snapshot of the saved document hands the engine.
        EditorEvent::DocumentOpened {
            path: "/w/a".into(),
            language_id: None,
            is_dirty: false,
            is_untitled: false,
        },
    ] {
        let (mut engine, conn, _) = connected(|_| {});
        let (id, _) = diff_of(&mut engine, conn, 5, true, "x");
        let (other, _) = diff_of(&mut engine, conn, 6, true, "x");
        engine.handle_editor_event(at(2), &saved);
        let (reply, events) = answer(
            &mut engine,
            conn,
            id,
            r#"{"outcome":"diffSaved","finalText":"x","originalText":"o"}"#,
        );
        assert!(
            reply.contains(r#"{"type":"text","text":"FILE_SAVED"}"#),
            "{reply}"
        );
        assert_eq!(events, [], "after {saved:?}");
        // Both diffs of the file were pending when it was saved.
        let (_, events) = answer(
            &mut engine,
            conn,
            other,
            r#"{"outcome":"diffSaved","finalText":"x","originalText":"o"}"#,
        );
        assert_eq!(events, []);
        // A diff shown after the save is of the saved file again.
        let (later, _) = diff_of(&mut engine, conn, 7, false, "x");
        let (_, events) = answer(
            &mut engine,
            conn,
            later,
            r#"{"outcome":"diffSaved","finalText":"x","originalText":"o"}"#,
        );
        assert_eq!(events.len(), 1, "{events:?}");
    }
}

#[test]
fn file_replaced_follows_the_clients_release() {
    let mut engine = engine_with(|_| {});
    let conn = engine.handle_accept(at(0));
    let mut bytes = upgrade();
    bytes.extend(text(&INIT.replace("2.1.332", "2.1.316")));
    bytes.extend(text(INITIALIZED));
    engine.handle_bytes(at(0), conn, &bytes).unwrap();
    drain(&mut engine, &mut Drained::default());
    let (id, _) = diff_of(&mut engine, conn, 5, false, r"\ufeffgoodbye\nsecond\n");
    let (_, events) = answer(
        &mut engine,
        conn,
        id,
        r#"{"outcome":"diffSaved","finalText":"goodbye\nsecond\nthird","originalText":"\ufeffhello\r\nsecond\r\n"}"#,
    );
    // 2.1.316 puts no mark back and keeps the file's final newline.
    assert_eq!(
        events,
        [EngineEvent::FileReplaced {
            id,
            path: "/w/a".into(),
            text: "goodbye\r\nsecond\r\nthird\r\n".into()
        }]
    );
}
