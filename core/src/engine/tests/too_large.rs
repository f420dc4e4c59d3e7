//! `max_client_message_bytes`: no message over it reaches the client (the CLI closes its
//! connection on one), byte-exact at the boundary: exactly the limit is sent, one byte more is
//! not, and what goes instead.

use super::*;
use crate::ide::{Diagnostic, Position, Range, Severity};

/// The messages sent to `conn`, as text.
fn sent(drained: &Drained, conn: ConnId) -> Vec<String> {
    drained.bytes.get(&conn).map_or_else(Vec::new, |bytes| {
        server_payloads(bytes)
            .into_iter()
            .map(|payload| String::from_utf8(payload).unwrap())
            .collect()
    })
}

fn too_large_events(drained: &Drained) -> Vec<&EngineEvent> {
    drained
        .events
        .iter()
        .filter(|e| matches!(e, EngineEvent::MessageTooLarge { .. }))
        .collect()
}

/// The texts of the `FileReplaced` events in `drained`.
fn replaced(drained: &Drained) -> Vec<&str> {
    drained
        .events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::FileReplaced { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// `FILE_SAVED` with `text` as the reply to request 3.
fn file_saved(text: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":3,"result":{{"content":[{{"type":"text","text":"FILE_SAVED"}},{{"type":"text","text":"{text}"}}]}}}}"#
    )
}

/// An engine whose client limit is `limit`, with the `openDiff` (proposal `proposal`) of
/// request 3 pending; returns the call's id too.
fn diff_pending(limit: usize, proposal: &str) -> (Engine, ConnId, ToolCallId) {
    let (mut engine, conn, _) = connected(|c| c.max_client_message_bytes = limit);
    engine
        .handle_bytes(at(1), conn, &call(3, "openDiff", &diff_args("t", proposal)))
        .unwrap();
    let mut asked = Drained::default();
    drain(&mut engine, &mut asked);
    let id = tool_call_id(&asked);
    (engine, conn, id)
}

fn accept(engine: &mut Engine, id: ToolCallId, final_text: &str) -> Drained {
    let outcome = ToolOutcome::DiffSaved {
        final_text: final_text.to_owned(),
        original_text: None,
    };
    engine.handle_tool_outcome(at(2), id, &outcome).unwrap();
    let mut answered = Drained::default();
    drain(engine, &mut answered);
    answered
}

#[test]
fn the_default_is_the_clis_16_mib() {
    assert_eq!(Config::new(1).max_client_message_bytes, 16_777_216);
    let config = Config::from_json(r#"{"maxClientMessageBytes":1000}"#).unwrap();
    assert_eq!(config.max_client_message_bytes, 1000);
}

#[test]
fn an_answer_of_exactly_the_limit_is_sent_and_one_byte_more_is_an_error_result() {
    let overhead = file_saved("").len();
    // Room for the error that replaces a bigger answer.
    let limit = overhead + 300;
    // The user edited the proposal: its final text is not the proposal.
    let (mut engine, conn, id) = diff_pending(limit, "proposed");
    let exact = "e".repeat(300);
    let answered = accept(&mut engine, id, &exact);
    assert_eq!(sent(&answered, conn), [file_saved(&exact)]);
    assert_eq!(sent(&answered, conn)[0].len(), limit);
    assert!(too_large_events(&answered).is_empty());
    assert_eq!(replaced(&answered), [exact.as_str()]);

    let (mut engine, conn, id) = diff_pending(limit, "proposed");
    let over = "e".repeat(301);
    let answered = accept(&mut engine, id, &over);
    let bytes = limit + 1;
    assert_eq!(
        sent(&answered, conn),
        [format!(
            r#"{{"jsonrpc":"2.0","id":3,"result":{{"content":[{{"type":"text","text":"idelink: this answer is {bytes} bytes, over the client's limit of {limit} bytes per message (max_client_message_bytes), which would close the connection: it was not sent"}}],"isError":true}}}}"#
        )]
    );
    assert_eq!(
        too_large_events(&answered),
        [&EngineEvent::MessageTooLarge {
            conn: Some(conn),
            message: "openDiff".into(),
            bytes: bytes as u64,
            sent: SentInstead::Error,
        }]
    );
    assert!(answered.closes.is_empty(), "the session stays up");
    // The client was told of no accept, so it writes nothing: no `FileReplaced`.
    assert!(replaced(&answered).is_empty(), "{:?}", answered.events);
}

#[test]
fn an_accept_of_the_proposal_unchanged_over_the_limit_is_tab_closed() {
    let limit = file_saved("").len() + 100;
    let proposal = "p".repeat(101);
    let (mut engine, conn, id) = diff_pending(limit, &proposal);
    let answered = accept(&mut engine, id, &proposal);
    assert_eq!(
        sent(&answered, conn),
        [r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"TAB_CLOSED"}]}}"#]
    );
    assert_eq!(
        too_large_events(&answered),
        [&EngineEvent::MessageTooLarge {
            conn: Some(conn),
            message: "openDiff".into(),
            bytes: (limit + 1) as u64,
            sent: SentInstead::TabClosed,
        }]
    );
    // The CLI reads `TAB_CLOSED` as that accept and writes the proposal.
    assert_eq!(replaced(&answered), [proposal.as_str()]);
    // Within the limit the same accept is FILE_SAVED with its text.
    let proposal = "p".repeat(100);
    let (mut engine, conn, id) = diff_pending(limit, &proposal);
    let answered = accept(&mut engine, id, &proposal);
    assert_eq!(sent(&answered, conn), [file_saved(&proposal)]);
}

fn select(text: &str) -> EditorEvent {
    EditorEvent::SelectionChanged {
        path: "/w/a".into(),
        text: text.into(),
        selection: Range::default(),
    }
}

fn selection_changed(text: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"selection_changed","params":{{"text":"{text}","filePath":"/w/a","fileUrl":"file:///w/a","selection":{{"start":{{"line":0,"character":0}},"end":{{"line":0,"character":0}},"isEmpty":true}}}}}}"#
    )
}

#[test]
fn a_push_of_exactly_the_limit_is_sent_and_one_byte_more_is_not() {
    let limit = selection_changed("").len() + 50;
    let (mut engine, conn, _) = connected(|c| c.max_client_message_bytes = limit);
    engine.handle_timeout(at(1_000)); // ready
    let mut ready = Drained::default();
    drain(&mut engine, &mut ready);

    let exact = "s".repeat(50);
    engine.handle_editor_event(at(1_000), &select(&exact));
    engine.handle_timeout(at(2_000));
    let mut pushed = Drained::default();
    drain(&mut engine, &mut pushed);
    assert_eq!(sent(&pushed, conn), [selection_changed(&exact)]);
    assert_eq!(sent(&pushed, conn)[0].len(), limit);

    engine.handle_editor_event(at(2_000), &select(&"s".repeat(51)));
    engine.handle_timeout(at(3_000));
    let mut dropped = Drained::default();
    drain(&mut engine, &mut dropped);
    assert!(sent(&dropped, conn).is_empty(), "{dropped:?}");
    assert_eq!(
        too_large_events(&dropped),
        [&EngineEvent::MessageTooLarge {
            conn: None,
            message: "selection_changed".into(),
            bytes: (limit + 1) as u64,
            sent: SentInstead::Nothing,
        }]
    );
    assert!(dropped.closes.is_empty());
}

fn mention(name_bytes: usize) -> EditorEvent {
    EditorEvent::Mention {
        path: format!("/w/{}", "m".repeat(name_bytes)),
        line_start: None,
        line_end: None,
    }
}

#[test]
fn a_mention_of_exactly_the_limit_is_sent_and_one_byte_more_is_neither_sent_nor_queued() {
    let limit = 129;
    let (mut engine, conn, _) = connected(|c| c.max_client_message_bytes = limit);
    // Before the client is ready: one waits, the other is dropped at once.
    engine.handle_editor_event(at(1), &mention(60));
    engine.handle_editor_event(at(1), &mention(61));
    let mut early = Drained::default();
    drain(&mut engine, &mut early);
    assert_eq!(
        too_large_events(&early),
        [&EngineEvent::MessageTooLarge {
            conn: None,
            message: "at_mentioned".into(),
            bytes: limit as u64 + 1,
            sent: SentInstead::Nothing,
        }]
    );
    // Ready at 1 s; the mention that waited is held for the start-up window (no tools/list:
    // until its end).
    engine.handle_timeout(at(1_000));
    let mut ready = Drained::default();
    drain(&mut engine, &mut ready);
    assert_eq!(sent(&ready, conn), Vec::<String>::new());
    engine.handle_timeout(at(1_000 + Config::default().startup_window_ms));
    drain(&mut engine, &mut ready);
    let exact = format!(
        r#"{{"jsonrpc":"2.0","method":"at_mentioned","params":{{"filePath":"/w/{}"}}}}"#,
        "m".repeat(60)
    );
    assert_eq!(exact.len(), limit);
    assert_eq!(sent(&ready, conn), [exact]);
}

fn warning(message: &str) -> Diagnostic {
    Diagnostic {
        message: message.into(),
        severity: Severity::Warning,
        range: Range {
            start: Position::default(),
            end: Position::default(),
        },
        source: None,
        code: None,
    }
}

#[test]
fn a_diagnostics_answer_over_the_limit_is_cut_and_says_so() {
    let diagnostics = |path: &str, messages: &[&str]| EditorEvent::DiagnosticsChanged {
        path: path.into(),
        diagnostics: messages.iter().map(|m| warning(m)).collect(),
    };
    let whole = {
        let (mut engine, conn, _) = connected(|_| {});
        engine.handle_editor_event(at(1), &diagnostics("/w/a", &["one", "two"]));
        engine.handle_editor_event(at(1), &diagnostics("/w/b", &["three"]));
        engine
            .handle_bytes(at(1), conn, &call(5, "getDiagnostics", "{}"))
            .unwrap();
        let mut answered = Drained::default();
        drain(&mut engine, &mut answered);
        sent(&answered, conn).remove(0)
    };
    let one = r#"{\"message\":\"one\",\"severity\":\"Warning\",\"range\":{\"start\":{\"line\":0,\"character\":0},\"end\":{\"line\":0,\"character\":0}}}"#;
    let two = one.replace("one", "two");
    let three = one.replace("one", "three");
    assert_eq!(
        whole,
        format!(
            r#"{{"jsonrpc":"2.0","id":5,"result":{{"content":[{{"type":"text","text":"[{{\"uri\":\"file:///w/a\",\"diagnostics\":[{one},{two}]}},{{\"uri\":\"file:///w/b\",\"diagnostics\":[{three}]}}]"}}]}}}}"#
        )
    );
    // One byte under the whole answer.
    let limit = whole.len() - 1;
    let (mut engine, conn, _) = connected(|c| c.max_client_message_bytes = limit);
    engine.handle_editor_event(at(1), &diagnostics("/w/a", &["one", "two"]));
    engine.handle_editor_event(at(1), &diagnostics("/w/b", &["three"]));
    engine
        .handle_bytes(at(1), conn, &call(5, "getDiagnostics", "{}"))
        .unwrap();
    let mut cut = Drained::default();
    drain(&mut engine, &mut cut);
    let note = format!(
        "idelink: this answer was cut to 2 of 3 diagnostics (1 of 2 entries) to stay within the client's limit of {limit} bytes per message (max_client_message_bytes)"
    );
    let answer = sent(&cut, conn);
    assert_eq!(
        answer,
        [format!(
            r#"{{"jsonrpc":"2.0","id":5,"result":{{"content":[{{"type":"text","text":"[{{\"uri\":\"file:///w/a\",\"diagnostics\":[{one},{two}]}}]"}},{{"type":"text","text":"{note}"}}]}}}}"#
        )]
    );
    assert!(answer[0].len() <= limit);
    assert_eq!(
        too_large_events(&cut),
        [&EngineEvent::MessageTooLarge {
            conn: Some(conn),
            message: "getDiagnostics".into(),
            bytes: whole.len() as u64,
            sent: SentInstead::Truncated,
        }]
    );
}

#[test]
fn a_reply_whose_id_alone_is_over_the_limit_is_not_sent() {
    let (mut engine, conn, _) = connected(|c| c.max_client_message_bytes = 100);
    let id = format!("\"{}\"", "i".repeat(100));
    let request = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
    engine.handle_bytes(at(1), conn, &text(&request)).unwrap();
    let mut drained = Drained::default();
    drain(&mut engine, &mut drained);
    assert!(sent(&drained, conn).is_empty());
    assert_eq!(
        too_large_events(&drained),
        [&EngineEvent::MessageTooLarge {
            conn: Some(conn),
            message: "response".into(),
            bytes: 137,
            sent: SentInstead::Nothing,
        }]
    );
    // The session still answers.
    engine
        .handle_bytes(
            at(2),
            conn,
            &text(r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#),
        )
        .unwrap();
    let mut pong = Drained::default();
    drain(&mut engine, &mut pong);
    assert_eq!(
        sent(&pong, conn),
        [r#"{"jsonrpc":"2.0","id":9,"result":{}}"#]
    );
}
