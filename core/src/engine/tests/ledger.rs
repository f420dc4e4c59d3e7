//! The turn ledger through the engine: the CLI's calls of a turn in accept-edits mode and in
//! the default mode (docs/protocol.md, "A turn's signals"), the held pre-edit answer, the
//! read deadline, undo as compare-and-write, a client leaving mid-edit.

use super::*;
use crate::ledger::{ChangedBy, FileContent, FileWrite, TurnChange, TurnId, UndoTarget};

fn text_of(s: &str) -> FileContent {
    FileContent::Text { text: s.to_owned() }
}

fn on() -> (Engine, ConnId) {
    let (engine, conn, _) = connected(|c| c.ledger = true);
    (engine, conn)
}

/// Feeds `bytes` at `ms`; returns what followed.
fn feed(engine: &mut Engine, ms: u64, conn: ConnId, bytes: &[u8]) -> Drained {
    engine.handle_bytes(at(ms), conn, bytes).unwrap();
    let mut drained = Drained::default();
    drain(engine, &mut drained);
    drained
}

/// The ledger reads asked for, in order.
fn reads(drained: &Drained) -> Vec<(u64, String)> {
    drained
        .events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::LedgerRead { read, path } => Some((*read, path.clone())),
            _ => None,
        })
        .collect()
}

fn changes(drained: &Drained) -> Vec<TurnChange> {
    drained
        .events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::TurnChanged { change } => Some(change.clone()),
            _ => None,
        })
        .collect()
}

fn answer(engine: &mut Engine, ms: u64, read: u64, content: FileContent) -> Drained {
    engine.handle_ledger_read(at(ms), read, &content).unwrap();
    let mut drained = Drained::default();
    drain(engine, &mut drained);
    drained
}

fn replies_of(drained: &Drained, conn: ConnId) -> Vec<String> {
    drained
        .bytes
        .get(&conn)
        .map(|bytes| {
            server_payloads(bytes)
                .into_iter()
                .map(|p| String::from_utf8(p).unwrap())
                .collect()
        })
        .unwrap_or_default()
}

const EMPTY_A: &str = r#"{"jsonrpc":"2.0","id":11,"result":{"content":[{"type":"text","text":"[{\"uri\":\"file:///w/a\",\"diagnostics\":[]}]"}]}}"#;

#[test]
fn an_accept_edits_turn_holds_each_pre_edit_answer_until_the_baseline_is_read() {
    let (mut engine, conn) = on();
    let started = feed(&mut engine, 1, conn, &call(10, "closeAllDiffTabs", "{}"));
    assert_eq!(
        changes(&started),
        [TurnChange::Started {
            turn: TurnId::from_u64(1),
            conn
        }]
    );
    // Before the edit of /w/a: no answer until the host read the file.
    let asked = feed(
        &mut engine,
        2,
        conn,
        &call(11, "getDiagnostics", r#"{"uri":"file:///w/a"}"#),
    );
    assert_eq!(replies_of(&asked, conn), Vec::<String>::new());
    assert_eq!(reads(&asked), [(1, "/w/a".to_owned())]);
    let taken = answer(&mut engine, 3, 1, text_of("one\ntwo\n"));
    assert_eq!(replies_of(&taken, conn), [EMPTY_A]);
    // Claude writes /w/a, then announces the creation of /w/n: /w/a's edit ended.
    let asked = feed(
        &mut engine,
        4,
        conn,
        &call(12, "getDiagnostics", r#"{"uri":"file:///w/n"}"#),
    );
    assert_eq!(
        reads(&asked),
        [(2, "/w/a".to_owned()), (3, "/w/n".to_owned())]
    );
    answer(&mut engine, 5, 2, text_of("one\n2\n"));
    let created = answer(&mut engine, 5, 3, FileContent::Missing);
    assert_eq!(replies_of(&created, conn).len(), 1);
    // After the step's edits: `{}` is answered at once and /w/n is read again.
    let after = feed(&mut engine, 6, conn, &call(13, "getDiagnostics", "{}"));
    assert_eq!(replies_of(&after, conn).len(), 1);
    assert_eq!(reads(&after), [(4, "/w/n".to_owned())]);
    let settled = answer(&mut engine, 7, 4, text_of("fresh\n"));
    assert_eq!(
        changes(&settled),
        [TurnChange::FileChanged {
            turn: TurnId::from_u64(1),
            path: "/w/n".into(),
            revision: 1,
            hunks: 1,
            added: 1,
            removed: 0
        }]
    );
    let turn = engine.ledger().turn(TurnId::from_u64(1)).unwrap();
    let files: Vec<_> = turn
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.added_removed(), f.reviewed, f.changed_by))
        .collect();
    assert_eq!(
        files,
        [
            ("/w/a", (1, 1), false, ChangedBy::Claude),
            ("/w/n", (1, 0), false, ChangedBy::Claude)
        ]
    );
}

#[test]
fn a_default_mode_turn_marks_the_edit_of_an_accepted_diff_reviewed() {
    let (mut engine, conn) = on();
    feed(&mut engine, 1, conn, &call(10, "closeAllDiffTabs", "{}"));
    let asked = feed(
        &mut engine,
        2,
        conn,
        &call(3, "openDiff", &diff_args("t", "new")),
    );
    let id = tool_call_id(&asked);
    let saved = ToolOutcome::DiffSaved {
        final_text: "new\n".into(),
        original_text: Some("old\n".into()),
    };
    engine.handle_tool_outcome(at(3), id, &saved).unwrap();
    let asked = feed(
        &mut engine,
        4,
        conn,
        &call(11, "getDiagnostics", r#"{"uri":"file:///w/a"}"#),
    );
    answer(&mut engine, 5, reads(&asked)[0].0, text_of("old\n"));
    let after = feed(&mut engine, 6, conn, &call(13, "getDiagnostics", "{}"));
    answer(&mut engine, 7, reads(&after)[0].0, text_of("new\n"));
    let file = engine
        .ledger()
        .turn(TurnId::from_u64(1))
        .unwrap()
        .file("/w/a")
        .unwrap();
    assert!(file.reviewed);
    assert!(!file.outside_change);
    assert_eq!(file.added_removed(), (1, 1));
}

#[test]
fn a_file_changed_outside_claude_between_baseline_and_edit_end_is_marked() {
    let (mut engine, conn) = on();
    feed(&mut engine, 1, conn, &call(10, "closeAllDiffTabs", "{}"));
    let asked = feed(
        &mut engine,
        2,
        conn,
        &call(3, "openDiff", &diff_args("t", "new")),
    );
    let saved = ToolOutcome::DiffSaved {
        final_text: "new\n".into(),
        original_text: Some("old\n".into()),
    };
    engine
        .handle_tool_outcome(at(3), tool_call_id(&asked), &saved)
        .unwrap();
    let asked = feed(
        &mut engine,
        4,
        conn,
        &call(11, "getDiagnostics", r#"{"uri":"file:///w/a"}"#),
    );
    answer(&mut engine, 5, reads(&asked)[0].0, text_of("old\n"));
    let after = feed(&mut engine, 6, conn, &call(13, "getDiagnostics", "{}"));
    // Someone appended a line after claude wrote its accepted text.
    answer(&mut engine, 7, reads(&after)[0].0, text_of("new\nmine\n"));
    let file = engine
        .ledger()
        .turn(TurnId::from_u64(1))
        .unwrap()
        .file("/w/a")
        .unwrap();
    assert!(file.outside_change);
}

#[test]
fn a_host_that_does_not_read_in_time_gets_the_answer_sent_anyway() {
    let (mut engine, conn) = on();
    feed(&mut engine, 0, conn, &call(10, "closeAllDiffTabs", "{}"));
    let asked = feed(
        &mut engine,
        100,
        conn,
        &call(11, "getDiagnostics", r#"{"uri":"file:///w/a"}"#),
    );
    assert_eq!(engine.poll_timeout(), Some(at(400)));
    assert_eq!(replies_of(&asked, conn).len(), 0);
    engine.handle_timeout(at(400));
    let mut late = Drained::default();
    drain(&mut engine, &mut late);
    assert_eq!(replies_of(&late, conn), [EMPTY_A]);
    let file = engine
        .ledger()
        .turn(TurnId::from_u64(1))
        .unwrap()
        .file("/w/a")
        .unwrap();
    assert_eq!(
        file.baseline,
        FileContent::Unread {
            reason: "the host did not answer within 300 ms".into()
        }
    );
    assert_eq!(
        engine.handle_ledger_read(at(401), reads(&asked)[0].0, &FileContent::Missing),
        Err(EngineError::UnknownLedgerRead(1))
    );
}

#[test]
fn with_the_ledger_off_the_pre_edit_call_is_answered_at_once() {
    let (mut engine, conn, _) = connected(|_| {});
    feed(&mut engine, 1, conn, &call(10, "closeAllDiffTabs", "{}"));
    let asked = feed(
        &mut engine,
        2,
        conn,
        &call(11, "getDiagnostics", r#"{"uri":"file:///w/a"}"#),
    );
    assert_eq!(replies_of(&asked, conn), [EMPTY_A]);
    assert_eq!(reads(&asked), []);
    assert_eq!(engine.ledger().turns().count(), 0);
}

/// A turn where claude changed /w/a from `one\n` to `two\n`.
fn one_edit() -> (Engine, ConnId) {
    let (mut engine, conn) = on();
    feed(&mut engine, 1, conn, &call(10, "closeAllDiffTabs", "{}"));
    let asked = feed(
        &mut engine,
        2,
        conn,
        &call(11, "getDiagnostics", r#"{"uri":"file:///w/a"}"#),
    );
    answer(&mut engine, 3, reads(&asked)[0].0, text_of("one\n"));
    let after = feed(&mut engine, 4, conn, &call(12, "getDiagnostics", "{}"));
    answer(&mut engine, 5, reads(&after)[0].0, text_of("two\n"));
    (engine, conn)
}

#[test]
fn an_undo_is_a_compare_and_write_the_host_reports_back() {
    let (mut engine, _) = one_edit();
    let turn = TurnId::from_u64(1);
    engine
        .ledger_undo(
            at(6),
            &UndoTarget::File {
                turn,
                path: "/w/a".into(),
            },
        )
        .unwrap();
    let mut asked = Drained::default();
    drain(&mut engine, &mut asked);
    let write = FileWrite {
        turn,
        path: "/w/a".into(),
        expected: text_of("two\n"),
        text: Some("one\n".into()),
    };
    assert_eq!(
        asked.events,
        [EngineEvent::LedgerWrite {
            write: 3,
            file: write
        }]
    );
    engine
        .handle_ledger_written(at(7), 3, &text_of("one\n"))
        .unwrap();
    let file = engine.ledger().turn(turn).unwrap().file("/w/a").unwrap();
    assert_eq!(file.current, text_of("one\n"));
    assert_eq!(file.hunks, []);
    assert_eq!(
        engine.handle_ledger_written(at(8), 3, &text_of("one\n")),
        Err(EngineError::UnknownLedgerWrite(3))
    );
}

#[test]
fn an_undo_of_a_file_a_later_turn_changed_is_refused_with_the_reason() {
    let (mut engine, conn) = one_edit();
    feed(&mut engine, 6, conn, &call(20, "closeAllDiffTabs", "{}"));
    let asked = feed(
        &mut engine,
        7,
        conn,
        &call(21, "getDiagnostics", r#"{"uri":"file:///w/a"}"#),
    );
    answer(&mut engine, 8, reads(&asked)[0].0, text_of("two\n"));
    let refused = engine.ledger_undo(
        at(9),
        &UndoTarget::Turn {
            turn: TurnId::from_u64(1),
        },
    );
    assert_eq!(
        refused.map_err(|r| r.to_string()),
        Err("turn 2 changed /w/a after turn 1: undo turn 2's change first".to_owned())
    );
    let mut after = Drained::default();
    drain(&mut engine, &mut after);
    assert_eq!(after.events, []);
}

#[test]
fn a_client_leaving_mid_edit_has_its_file_read_and_its_turn_closed() {
    let (mut engine, conn) = on();
    feed(&mut engine, 1, conn, &call(10, "closeAllDiffTabs", "{}"));
    let asked = feed(
        &mut engine,
        2,
        conn,
        &call(11, "getDiagnostics", r#"{"uri":"file:///w/a"}"#),
    );
    answer(&mut engine, 3, reads(&asked)[0].0, text_of("one\n"));
    engine.handle_closed(at(4), conn).unwrap();
    let mut gone = Drained::default();
    drain(&mut engine, &mut gone);
    assert_eq!(reads(&gone), [(2, "/w/a".to_owned())]);
    assert!(changes(&gone).contains(&TurnChange::Closed {
        turn: TurnId::from_u64(1)
    }));
    answer(&mut engine, 5, 2, FileContent::Missing);
    let file = engine
        .ledger()
        .turn(TurnId::from_u64(1))
        .unwrap()
        .file("/w/a")
        .unwrap();
    assert_eq!(file.current, FileContent::Missing);
    let undo = engine
        .ledger()
        .plan_undo(&UndoTarget::File {
            turn: TurnId::from_u64(1),
            path: "/w/a".into(),
        })
        .unwrap();
    assert_eq!(
        undo[0].expected,
        FileContent::Missing,
        "a deleted file is written again"
    );
}

/// Claude on another machine: `/home/me/proj` there is `/Users/me/proj` here.
fn mapped() -> (Engine, ConnId) {
    let (engine, conn, _) = connected(|c| {
        c.ledger = true;
        c.path_map = vec!["/home/me/proj=/Users/me/proj".into()];
        c.workspace_folders = vec!["/Users/me/proj".into()];
    });
    (engine, conn)
}

#[test]
fn with_a_path_map_the_ledger_reads_writes_and_lists_the_editors_paths() {
    let (mut engine, conn) = mapped();
    feed(&mut engine, 1, conn, &call(10, "closeAllDiffTabs", "{}"));
    let asked = feed(
        &mut engine,
        2,
        conn,
        &call(
            11,
            "getDiagnostics",
            r#"{"uri":"file:///home/me/proj/a.rs"}"#,
        ),
    );
    assert_eq!(reads(&asked), [(1, "/Users/me/proj/a.rs".to_owned())]);
    let taken = answer(&mut engine, 3, 1, text_of("one\n"));
    // Claude's answer names claude's path.
    assert_eq!(
        replies_of(&taken, conn),
        [
            r#"{"jsonrpc":"2.0","id":11,"result":{"content":[{"type":"text","text":"[{\"uri\":\"file:///home/me/proj/a.rs\",\"diagnostics\":[]}]"}]}}"#
        ]
    );
    assert_eq!(
        changes(&taken),
        [TurnChange::FileAdded {
            turn: TurnId::from_u64(1),
            path: "/Users/me/proj/a.rs".into(),
            changed_by: ChangedBy::Claude
        }]
    );
    let after = feed(&mut engine, 4, conn, &call(12, "getDiagnostics", "{}"));
    assert_eq!(reads(&after), [(2, "/Users/me/proj/a.rs".to_owned())]);
    answer(&mut engine, 5, 2, text_of("two\n"));
    // The watcher names the editor's paths; one outside every mapping is left out.
    engine.handle_file_seen(
        at(6),
        "/Users/me/proj/b.rs",
        &text_of("b2\n"),
        &text_of("b\n"),
    );
    engine.handle_file_seen(
        at(6),
        "/Users/me/other/c.rs",
        &text_of("c2\n"),
        &text_of("c\n"),
    );
    let mut seen = Drained::default();
    drain(&mut engine, &mut seen);
    assert_eq!(
        changes(&seen)[0],
        TurnChange::FileAdded {
            turn: TurnId::from_u64(1),
            path: "/Users/me/proj/b.rs".into(),
            changed_by: ChangedBy::SeenOnDisk
        }
    );
    assert_eq!(changes(&seen).len(), 2, "c.rs is left out: {seen:?}");
    let turn = TurnId::from_u64(1);
    let paths: Vec<_> = engine
        .ledger()
        .turn(turn)
        .unwrap()
        .files
        .iter()
        .map(|f| f.path.clone())
        .collect();
    assert_eq!(paths, ["/Users/me/proj/a.rs", "/Users/me/proj/b.rs"]);
    engine
        .ledger_undo(
            at(7),
            &UndoTarget::File {
                turn,
                path: "/Users/me/proj/a.rs".into(),
            },
        )
        .unwrap();
    let mut undo = Drained::default();
    drain(&mut engine, &mut undo);
    assert_eq!(
        undo.events,
        [EngineEvent::LedgerWrite {
            write: 3,
            file: FileWrite {
                turn,
                path: "/Users/me/proj/a.rs".into(),
                expected: text_of("two\n"),
                text: Some("one\n".into()),
            }
        }]
    );
}

#[test]
fn a_pre_edit_path_outside_every_mapping_is_answered_and_left_out() {
    let (mut engine, conn) = mapped();
    feed(&mut engine, 1, conn, &call(10, "closeAllDiffTabs", "{}"));
    let asked = feed(
        &mut engine,
        2,
        conn,
        &call(
            9,
            "getDiagnostics",
            r#"{"uri":"file:///home/me/proj/a.rs"}"#,
        ),
    );
    answer(&mut engine, 3, reads(&asked)[0].0, text_of("a\n"));
    // The next pre-edit call ends a.rs's edit, even when its own file is left out.
    let asked = feed(
        &mut engine,
        4,
        conn,
        &call(11, "getDiagnostics", r#"{"uri":"file:///etc/hosts"}"#),
    );
    assert_eq!(reads(&asked), [(2, "/Users/me/proj/a.rs".to_owned())]);
    assert_eq!(
        replies_of(&asked, conn),
        [
            r#"{"jsonrpc":"2.0","id":11,"result":{"content":[{"type":"text","text":"[{\"uri\":\"file:///etc/hosts\",\"diagnostics\":[]}]"}]}}"#
        ]
    );
    assert_eq!(
        changes(&asked),
        [TurnChange::LeftOut {
            turn: TurnId::from_u64(1),
            path: "/etc/hosts".into(),
            reason: "/etc/hosts is outside every path mapping (/home/me/proj=/Users/me/proj): \
                     the editor has no name for it"
                .into()
        }]
    );
    let files = &engine.ledger().turn(TurnId::from_u64(1)).unwrap().files;
    assert_eq!(files.len(), 1, "only a.rs");
}

#[test]
fn the_ledger_reads_only_inside_the_workspace_folders() {
    let (mut engine, conn, _) = connected(|c| {
        c.ledger = true;
        c.workspace_folders = vec!["/w".into()];
    });
    feed(&mut engine, 1, conn, &call(10, "closeAllDiffTabs", "{}"));
    let mut left_out = Vec::new();
    for (id, uri) in [
        (11, "file:///etc/passwd"),
        (12, "file:///w/../etc/passwd"),
        (13, "file:///wx/a"),
    ] {
        let args = format!(r#"{{"uri":"{uri}"}}"#);
        let asked = feed(&mut engine, 2, conn, &call(id, "getDiagnostics", &args));
        assert_eq!(reads(&asked), [], "{uri} is not read");
        assert_eq!(replies_of(&asked, conn).len(), 1, "{uri} is answered");
        left_out.extend(changes(&asked));
    }
    let reasons: Vec<_> = left_out
        .iter()
        .map(|c| match c {
            TurnChange::LeftOut { reason, .. } => reason.as_str(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        reasons[0],
        "/etc/passwd is outside the workspace folders (/w): the ledger neither reads nor writes it"
    );
    assert_eq!(reasons.len(), 3);
    // A link inside resolving outside: the host answers `outside`, the file is left out.
    let asked = feed(
        &mut engine,
        3,
        conn,
        &call(14, "getDiagnostics", r#"{"uri":"file:///w/link"}"#),
    );
    let reason = "/w/link resolves to /etc/passwd, outside the workspace".to_owned();
    let outside = answer(
        &mut engine,
        4,
        reads(&asked)[0].0,
        FileContent::Outside {
            reason: reason.clone(),
        },
    );
    assert_eq!(replies_of(&outside, conn).len(), 1);
    assert_eq!(
        changes(&outside),
        [TurnChange::LeftOut {
            turn: TurnId::from_u64(1),
            path: "/w/link".into(),
            reason
        }]
    );
    assert_eq!(engine.ledger().turn(TurnId::from_u64(1)).unwrap().files, []);
    engine.handle_file_seen(at(5), "/etc/passwd", &text_of("x\n"), &text_of("y\n"));
    assert_eq!(engine.ledger().turn(TurnId::from_u64(1)).unwrap().files, []);
}
