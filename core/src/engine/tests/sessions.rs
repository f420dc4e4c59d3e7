//! Session identity and routing on virtual time: `roots/list` asked, answered, failed, timed
//! out, asked again on `list_changed`; pushes routed by rule and by choice; the session list.

use super::*;
use crate::engine::{Routing, SessionChoice, SessionInfo};

const INIT_ROOTS: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"claude-code","version":"2.1.332"}}}"#;
const ROOTS_LIST_1: &str = r#"{"jsonrpc":"2.0","id":1,"method":"roots/list"}"#;
const ROOTS_LIST_2: &str = r#"{"jsonrpc":"2.0","id":2,"method":"roots/list"}"#;

fn roots_answer(id: u64, uris: &[&str]) -> Vec<u8> {
    let roots: Vec<String> = uris.iter().map(|u| format!(r#"{{"uri":"{u}"}}"#)).collect();
    text(&format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"roots":[{}]}}}}"#,
        roots.join(",")
    ))
}

/// A client that declares `roots`, with pid `pid`, through the handshake at `now`; returns its
/// id and the text messages it was sent.
fn rooted_client(
    engine: &mut Engine,
    now: u64,
    pid: u32,
    drained: &mut Drained,
) -> (ConnId, Vec<String>) {
    let conn = engine.handle_accept(at(now));
    let mut bytes = upgrade();
    bytes.extend(text(INIT_ROOTS));
    bytes.extend(text(INITIALIZED));
    bytes.extend(text(&format!(
        r#"{{"jsonrpc":"2.0","method":"ide_connected","params":{{"pid":{pid}}}}}"#
    )));
    engine.handle_bytes(at(now), conn, &bytes).unwrap();
    let mut mine = Drained::default();
    drain(engine, &mut mine);
    let sent = replies(mine.bytes.get(&conn).map_or(&[][..], Vec::as_slice));
    drained.events.extend(mine.events);
    (conn, sent)
}

/// The text messages `conn` is sent by `input`.
fn sent_by(engine: &mut Engine, conn: ConnId, input: impl FnOnce(&mut Engine)) -> Vec<String> {
    input(engine);
    let mut drained = Drained::default();
    drain(engine, &mut drained);
    replies(drained.bytes.get(&conn).map_or(&[][..], Vec::as_slice))
}

fn folders(engine: &Engine, conn: ConnId) -> Option<Vec<String>> {
    let sessions = engine.sessions();
    let session = sessions.iter().find(|s| s.conn == conn)?;
    session.folders.clone()
}

fn list_engine(routing: Routing) -> Engine {
    engine_with(|c| {
        c.session_list = true;
        c.routing = routing;
        c.workspace_folders = vec!["/w".into()];
    })
}

#[test]
fn roots_list_is_asked_after_initialized_and_its_answer_is_the_sessions_folders() {
    let mut engine = list_engine(Routing::Broadcast);
    let mut drained = Drained::default();
    let (conn, sent) = rooted_client(&mut engine, 0, 4242, &mut drained);
    assert_eq!(sent.last().map(String::as_str), Some(ROOTS_LIST_1));
    let answer = roots_answer(
        1,
        &["file:///a/one", "file:///b/tw%C3%B6/", "file:///a/one"],
    );
    engine.handle_bytes(at(10), conn, &answer).unwrap();
    engine.handle_timeout(at(500));
    drain(&mut engine, &mut drained);
    assert_eq!(
        engine.sessions(),
        vec![SessionInfo {
            conn,
            pid: Some(4242),
            folders: Some(vec!["/a/one".into(), "/b/twö".into()]),
            connected_at: 0,
            chosen: false,
        }]
    );
    let reported = drained.events.iter().rev().find_map(|e| match e {
        EngineEvent::SessionsChanged { sessions } => Some(sessions.clone()),
        _ => None,
    });
    assert_eq!(reported, Some(engine.sessions()));
}

#[test]
fn no_roots_list_without_the_capability_or_the_session_list() {
    let mut engine = list_engine(Routing::Broadcast);
    let mut drained = Drained::default();
    let conn = initialized_client(&mut engine, &mut drained);
    let sent = replies(&drained.bytes[&conn]);
    assert!(!sent.iter().any(|m| m.contains("roots/list")), "{sent:?}");
    let mut engine = engine_with(|_| {});
    let (_, sent) = rooted_client(&mut engine, 0, 1, &mut Drained::default());
    assert!(!sent.iter().any(|m| m.contains("roots/list")), "{sent:?}");
}

#[test]
fn an_error_a_bad_answer_or_a_stranger_id_changes_nothing() {
    let mut engine = list_engine(Routing::Broadcast);
    let (conn, _) = rooted_client(&mut engine, 0, 1, &mut Drained::default());
    engine.handle_timeout(at(500));
    let mut drained = Drained::default();
    drain(&mut engine, &mut drained);
    for bad in [
        r#"{"jsonrpc":"2.0","id":7,"result":{"roots":[{"uri":"file:///x"}]}}"#,
        r#"{"jsonrpc":"2.0","id":"1","result":{"roots":[{"uri":"file:///x"}]}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":[1,2]}"#,
    ] {
        engine.handle_bytes(at(600), conn, &text(bad)).unwrap();
    }
    drain(&mut engine, &mut drained);
    assert_eq!(folders(&engine, conn), None);
    // The bad result ended the request: list_changed asks again, and an error ends that one.
    let sent = sent_by(&mut engine, conn, |e| {
        let changed = r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#;
        e.handle_bytes(at(700), conn, &text(changed)).unwrap();
    });
    assert_eq!(sent, [ROOTS_LIST_2]);
    let error = r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}"#;
    engine.handle_bytes(at(710), conn, &text(error)).unwrap();
    // Roots that are no file:// URIs are skipped; the rest is kept.
    let sent = sent_by(&mut engine, conn, |e| {
        let changed = r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#;
        e.handle_bytes(at(720), conn, &text(changed)).unwrap();
    });
    assert_eq!(sent, [r#"{"jsonrpc":"2.0","id":3,"method":"roots/list"}"#]);
    let mixed = r#"{"jsonrpc":"2.0","id":3,"result":{"roots":[{"uri":"https://x/y"},{"uri":7},{"name":"n"},5,{"uri":"file:///ok","name":"ok"}]}}"#;
    engine.handle_bytes(at(730), conn, &text(mixed)).unwrap();
    drain(&mut engine, &mut drained);
    assert_eq!(folders(&engine, conn), Some(vec!["/ok".into()]));
    assert!(!drained.closes.contains(&conn));
}

#[test]
fn a_roots_list_past_its_deadline_is_given_up_and_its_late_answer_ignored() {
    let mut engine = list_engine(Routing::Broadcast);
    let (conn, _) = rooted_client(&mut engine, 0, 1, &mut Drained::default());
    let deadline = engine.config().roots_timeout_ms;
    assert!(engine.poll_timeout().is_some_and(|t| t <= at(deadline)));
    engine.handle_timeout(at(deadline));
    drain(&mut engine, &mut Drained::default());
    engine
        .handle_bytes(at(deadline + 1), conn, &roots_answer(1, &["file:///late"]))
        .unwrap();
    assert_eq!(folders(&engine, conn), None);
}

#[test]
fn list_changed_while_asking_asks_again_after_the_answer() {
    let mut engine = list_engine(Routing::Broadcast);
    let (conn, _) = rooted_client(&mut engine, 0, 1, &mut Drained::default());
    engine.handle_timeout(at(500));
    drain(&mut engine, &mut Drained::default());
    let changed = text(r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#);
    let sent = sent_by(&mut engine, conn, |e| {
        e.handle_bytes(at(600), conn, &changed).unwrap()
    });
    assert_eq!(
        sent,
        Vec::<String>::new(),
        "one request in flight at a time"
    );
    let sent = sent_by(&mut engine, conn, |e| {
        e.handle_bytes(at(610), conn, &roots_answer(1, &["file:///old"]))
            .unwrap()
    });
    assert_eq!(sent, [ROOTS_LIST_2]);
    engine
        .handle_bytes(
            at(620),
            conn,
            &roots_answer(2, &["file:///new", "file:///more"]),
        )
        .unwrap();
    assert_eq!(
        folders(&engine, conn),
        Some(vec!["/new".into(), "/more".into()])
    );
}

/// Two ready clients (`/a` and `/b`), with pids 1 and 2.
fn two_sessions(routing: Routing) -> (Engine, ConnId, ConnId) {
    let mut engine = list_engine(routing);
    let (one, _) = rooted_client(&mut engine, 0, 1, &mut Drained::default());
    let (two, _) = rooted_client(&mut engine, 0, 2, &mut Drained::default());
    engine
        .handle_bytes(at(1), one, &roots_answer(1, &["file:///a"]))
        .unwrap();
    engine
        .handle_bytes(at(1), two, &roots_answer(1, &["file:///b"]))
        .unwrap();
    engine.handle_timeout(at(500));
    drain(&mut engine, &mut Drained::default());
    (engine, one, two)
}

fn selection_in(path: &str) -> EditorEvent {
    let at = |character| crate::ide::Position { line: 0, character };
    EditorEvent::SelectionChanged {
        path: path.into(),
        text: "x".into(),
        selection: crate::ide::Range {
            start: at(0),
            end: at(1),
        },
    }
}

fn mention_of(path: &str) -> EditorEvent {
    EditorEvent::Mention {
        path: path.into(),
        line_start: None,
        line_end: None,
    }
}

/// Which of `one` and `two` got a message naming `path` after `event` and the debounce.
fn who_gets(
    engine: &mut Engine,
    one: ConnId,
    two: ConnId,
    event: &EditorEvent,
    path: &str,
) -> [bool; 2] {
    thread_local!(static LAST: std::cell::Cell<u64> = const { std::cell::Cell::new(0) });
    // Each call a second after the last on this thread: the debounce is over by the timeout.
    let now = LAST.with(|last| {
        last.set(last.get().max(1_000) + 1_000);
        last.get()
    });
    engine.handle_editor_event(at(now), event);
    engine.handle_timeout(at(now + 500));
    let mut drained = Drained::default();
    drain(engine, &mut drained);
    let got = |conn| {
        drained.bytes.get(&conn).is_some_and(|bytes| {
            replies(bytes)
                .iter()
                .any(|m| m.contains(&format!("\"filePath\":\"{path}\"")))
        })
    };
    [got(one), got(two)]
}

#[test]
fn broadcast_sends_every_push_to_every_session() {
    let (mut engine, one, two) = two_sessions(Routing::Broadcast);
    assert_eq!(
        who_gets(&mut engine, one, two, &selection_in("/a/x.rs"), "/a/x.rs"),
        [true, true]
    );
    assert_eq!(
        who_gets(&mut engine, one, two, &mention_of("/b/y.rs"), "/b/y.rs"),
        [true, true]
    );
}

#[test]
fn roots_routing_sends_a_push_to_the_sessions_whose_folders_hold_the_file() {
    let (mut engine, one, two) = two_sessions(Routing::Roots);
    assert_eq!(
        who_gets(&mut engine, one, two, &selection_in("/a/x.rs"), "/a/x.rs"),
        [true, false]
    );
    assert_eq!(
        who_gets(&mut engine, one, two, &selection_in("/b/y.rs"), "/b/y.rs"),
        [false, true]
    );
    assert_eq!(
        who_gets(&mut engine, one, two, &mention_of("/a/z.rs"), "/a/z.rs"),
        [true, false]
    );
    // `/ab` is not under `/a`: nobody holds it, so the mention waits for a session that does.
    assert_eq!(
        who_gets(&mut engine, one, two, &mention_of("/ab/q.rs"), "/ab/q.rs"),
        [false, false]
    );
}

#[test]
fn chosen_routing_sends_to_the_chosen_session_and_mentions_follow_the_choice_under_any_rule() {
    let (mut engine, one, two) = two_sessions(Routing::Chosen);
    assert_eq!(
        who_gets(&mut engine, one, two, &selection_in("/a/x.rs"), "/a/x.rs"),
        [true, true]
    );
    engine
        .choose_session(at(900), Some(SessionChoice::Pid { pid: 2 }))
        .unwrap();
    assert_eq!(
        who_gets(&mut engine, one, two, &selection_in("/a/y.rs"), "/a/y.rs"),
        [false, true]
    );
    assert!(engine.sessions().iter().any(|s| s.conn == two && s.chosen));
    let (mut engine, one, two) = two_sessions(Routing::Broadcast);
    engine
        .choose_session(at(900), Some(SessionChoice::Conn { conn: one }))
        .unwrap();
    assert_eq!(
        who_gets(&mut engine, one, two, &selection_in("/b/x.rs"), "/b/x.rs"),
        [true, true]
    );
    assert_eq!(
        who_gets(&mut engine, one, two, &mention_of("/b/m.rs"), "/b/m.rs"),
        [true, false]
    );
    assert_eq!(
        engine.choose_session(at(900), Some(SessionChoice::Conn { conn: ConnId(99) })),
        Err(EngineError::UnknownConnection(ConnId(99)))
    );
    assert_eq!(
        engine.session_choice(),
        Some(SessionChoice::Conn { conn: one })
    );
}

#[test]
fn a_mention_for_a_chosen_pid_waits_for_its_session() {
    let mut engine = list_engine(Routing::Broadcast);
    let (other, _) = rooted_client(&mut engine, 0, 1, &mut Drained::default());
    engine.handle_timeout(at(500));
    drain(&mut engine, &mut Drained::default());
    engine
        .choose_session(at(600), Some(SessionChoice::Pid { pid: 77 }))
        .unwrap();
    let sent = sent_by(&mut engine, other, |e| {
        e.handle_editor_event(at(700), &mention_of("/w/m.rs"))
    });
    assert!(!sent.iter().any(|m| m.contains("at_mentioned")), "{sent:?}");
    let mut drained = Drained::default();
    let (bound, _) = rooted_client(&mut engine, 800, 77, &mut drained);
    engine.handle_timeout(at(1_300));
    // The start-up window holds a waiting mention until the client's first tool call.
    engine
        .handle_bytes(at(1_400), bound, &call(9, "getOpenEditors", "{}"))
        .unwrap();
    drain(&mut engine, &mut drained);
    let sent = replies(&drained.bytes[&bound]);
    assert!(sent.iter().any(|m| m.contains("at_mentioned")), "{sent:?}");
    assert!(
        engine
            .sessions()
            .iter()
            .any(|s| s.conn == bound && s.chosen)
    );
}

#[test]
fn a_chosen_connection_that_leaves_clears_the_choice_and_the_list_reports_it() {
    let (mut engine, one, two) = two_sessions(Routing::Chosen);
    engine
        .choose_session(at(900), Some(SessionChoice::Conn { conn: one }))
        .unwrap();
    engine.handle_closed(at(950), one).unwrap();
    let mut drained = Drained::default();
    drain(&mut engine, &mut drained);
    assert_eq!(engine.session_choice(), None);
    let last = drained.events.iter().rev().find_map(|e| match e {
        EngineEvent::SessionsChanged { sessions } => Some(sessions.clone()),
        _ => None,
    });
    assert_eq!(
        last.map(|s| s.iter().map(|s| s.conn).collect::<Vec<_>>()),
        Some(vec![two])
    );
}

#[test]
fn a_sessions_own_pushes_at_readiness_follow_the_rule() {
    let mut engine = engine_with(|c| {
        c.routing = Routing::Roots;
        c.workspace_folders = vec!["/w".into()];
    });
    engine.handle_editor_event(at(0), &selection_in("/b/y.rs"));
    let mut drained = Drained::default();
    let (alpha, _) = rooted_client(&mut engine, 0, 1, &mut drained);
    engine
        .handle_bytes(at(1), alpha, &roots_answer(1, &["file:///a"]))
        .unwrap();
    // Readiness and the start-up repeats (0.5, 1, 2, 4, 8 s) would each send the selection.
    for t in [500, 1_000, 1_500, 2_500, 4_500, 8_500, 16_500] {
        engine.handle_timeout(at(t));
    }
    drain(&mut engine, &mut drained);
    let sent = replies(drained.bytes.get(&alpha).map_or(&[][..], Vec::as_slice));
    assert!(
        !sent.iter().any(|m| m.contains("selection_changed")),
        "a file outside the session's folders: {sent:?}"
    );
}

#[test]
fn a_start_up_repeat_sends_the_sessions_own_last_selection_not_another_sessions() {
    let (mut engine, one, two) = two_sessions(Routing::Roots);
    engine.handle_editor_event(at(600), &selection_in("/a/x.rs"));
    engine.handle_timeout(at(700));
    engine.handle_editor_event(at(800), &selection_in("/b/y.rs"));
    engine.handle_timeout(at(900));
    drain(&mut engine, &mut Drained::default());
    let mut drained = Drained::default();
    for t in [1_000, 1_500, 2_500, 4_500] {
        engine.handle_timeout(at(t));
    }
    drain(&mut engine, &mut drained);
    let of = |conn| replies(drained.bytes.get(&conn).map_or(&[][..], Vec::as_slice));
    let (to_one, to_two) = (of(one), of(two));
    assert!(!to_one.is_empty(), "the repeats of the first session");
    assert!(
        to_one.iter().all(|m| m.contains(r#""filePath":"/a/x.rs""#)),
        "{to_one:?}"
    );
    assert!(
        !to_two.is_empty() && to_two.iter().all(|m| m.contains(r#""filePath":"/b/y.rs""#)),
        "{to_two:?}"
    );
}

#[test]
fn a_start_up_repeat_sends_nothing_the_context_policy_came_to_withhold() {
    let (mut engine, one, two) = two_sessions(Routing::Roots);
    engine.handle_editor_event(at(600), &selection_in("/a/x.rs"));
    engine.handle_timeout(at(700));
    engine.handle_editor_event(at(800), &selection_in("/b/y.rs"));
    engine.handle_timeout(at(900));
    engine.handle_editor_event(at(950), &EditorEvent::SharingPaused { paused: true });
    drain(&mut engine, &mut Drained::default());
    let mut drained = Drained::default();
    for t in [1_000, 1_500, 2_500, 4_500, 8_500, 16_500] {
        engine.handle_timeout(at(t));
    }
    drain(&mut engine, &mut drained);
    for conn in [one, two] {
        let sent = replies(drained.bytes.get(&conn).map_or(&[][..], Vec::as_slice));
        assert!(
            !sent.iter().any(|m| m.contains(".rs")),
            "paused, yet a repeat sent: {sent:?}"
        );
    }
}
