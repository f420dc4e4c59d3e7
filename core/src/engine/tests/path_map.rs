//! `Config::path_map`: claude's paths on the wire, the editor's at the API, both ways, and a
//! path outside every mapping refused or withheld.

use super::*;

fn mapped(config: &mut Config) {
    config.path_map = vec!["/home/me/proj=/Users/me/proj".into()];
    config.workspace_folders = vec!["/Users/me/proj".into(), "/Users/me/other".into()];
}

fn answers(drained: &Drained, conn: ConnId) -> Vec<String> {
    drained.bytes.get(&conn).map_or_else(Vec::new, |bytes| {
        server_payloads(bytes)
            .into_iter()
            .map(|payload| String::from_utf8(payload).expect("JSON is UTF-8"))
            .collect()
    })
}

/// Runs `bytes` from the client at `now` and returns what followed.
fn send(engine: &mut Engine, conn: ConnId, now: u64, bytes: &[u8]) -> Drained {
    engine.handle_bytes(at(now), conn, bytes).expect("known");
    let mut drained = Drained::default();
    drain(engine, &mut drained);
    drained
}

#[test]
fn a_request_reaches_the_editor_with_its_paths() {
    let (mut engine, conn, _) = connected(mapped);
    let args = r#"{"old_file_path":"/home/me/proj/a.rs","new_file_path":"/home/me/proj/a.rs","new_file_contents":"x","tab_name":"t"}"#;
    let drained = send(&mut engine, conn, 0, &call(1, "openDiff", args));
    let requests: Vec<_> = drained
        .events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::ToolCall { request, .. } => Some(request.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        requests,
        [ToolRequest::OpenDiff {
            old_file_path: "/Users/me/proj/a.rs".into(),
            new_file_path: "/Users/me/proj/a.rs".into(),
            new_file_contents: "x".into(),
            tab_name: "t".into(),
            dirty: false,
        }]
    );
}

#[test]
fn a_request_outside_every_mapping_is_answered_with_the_reason() {
    let (mut engine, conn, _) = connected(mapped);
    let drained = send(
        &mut engine,
        conn,
        0,
        &call(4, "openFile", r#"{"filePath":"/etc/passwd"}"#),
    );
    assert_eq!(tool_calls(&drained), 0, "the editor sees nothing");
    assert_eq!(
        answers(&drained, conn),
        [
            r#"{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"/etc/passwd is outside every path mapping (/home/me/proj=/Users/me/proj): the editor has no name for it"}],"isError":true}}"#
        ]
    );
}

#[test]
fn pushes_and_answers_carry_claudes_paths() {
    let (mut engine, conn, _) = connected(mapped);
    let drained = send(&mut engine, conn, 0, &call(2, "getWorkspaceFolders", "{}"));
    assert_eq!(
        answers(&drained, conn),
        [
            r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"success\":true,\"folders\":[{\"name\":\"proj\",\"uri\":\"file:///home/me/proj\",\"path\":\"/home/me/proj\"}],\"rootPath\":\"/home/me/proj\"}"}]}}"#
        ]
    );
    engine.handle_editor_event(
        at(1_000),
        &EditorEvent::Mention {
            path: "/Users/me/proj/src/a.rs".into(),
            line_start: Some(3),
            line_end: None,
        },
    );
    // Outside: withheld, not guessed.
    engine.handle_editor_event(
        at(1_000),
        &EditorEvent::Mention {
            path: "/Users/me/other/b.rs".into(),
            line_start: None,
            line_end: None,
        },
    );
    // The startup window holds a mention a while (push_schedule.rs): run the timers past it.
    let mut drained = Drained::default();
    drain(&mut engine, &mut drained);
    while let Some(deadline) = engine.poll_timeout().filter(|t| t.as_millis() <= 20_000) {
        engine.handle_timeout(deadline);
        drain(&mut engine, &mut drained);
    }
    assert_eq!(
        answers(&drained, conn),
        [
            r#"{"jsonrpc":"2.0","method":"at_mentioned","params":{"filePath":"/home/me/proj/src/a.rs","lineStart":3}}"#
        ]
    );
}

#[test]
fn a_map_that_does_not_parse_refuses_every_path() {
    let (mut engine, conn, _) = connected(|config| config.path_map = vec!["proj".into()]);
    let drained = send(
        &mut engine,
        conn,
        0,
        &call(5, "openFile", r#"{"filePath":"/w/a"}"#),
    );
    assert_eq!(tool_calls(&drained), 0);
    let answer = answers(&drained, conn).concat();
    assert!(
        answer.contains(r#"path mapping \"proj\" (REMOTE=LOCAL): no `=`"#),
        "{answer}"
    );
}

#[test]
fn the_selection_is_pushed_with_claudes_path_and_uri() {
    let (mut engine, conn, _) = connected(mapped);
    let at_char = |character| crate::ide::Position { line: 0, character };
    engine.handle_editor_event(
        at(1_000),
        &EditorEvent::SelectionChanged {
            path: "/Users/me/proj/a.rs".into(),
            text: "fn".into(),
            selection: crate::ide::Range {
                start: at_char(0),
                end: at_char(2),
            },
        },
    );
    let mut drained = Drained::default();
    while let Some(deadline) = engine.poll_timeout().filter(|t| t.as_millis() <= 1_500) {
        engine.handle_timeout(deadline);
        drain(&mut engine, &mut drained);
    }
    // The startup window sends it again until the first call (push_schedule.rs): each the same.
    let pushes = answers(&drained, conn);
    assert!(!pushes.is_empty());
    for push in pushes {
        assert_eq!(
            push,
            r#"{"jsonrpc":"2.0","method":"selection_changed","params":{"text":"fn","filePath":"/home/me/proj/a.rs","fileUrl":"file:///home/me/proj/a.rs","selection":{"start":{"line":0,"character":0},"end":{"line":0,"character":2},"isEmpty":false}}}"#
        );
    }
}

#[test]
fn an_ignore_file_in_the_editors_folder_denies_claudes_spelling_of_its_paths() {
    let policy = crate::policy::ContextPolicy {
        ignore_files: vec![crate::policy::IgnoreFile {
            dir: "/Users/me/proj".into(),
            text: "secret/\n".into(),
        }],
        ..Default::default()
    };
    let (mut engine, conn, _) = connected(|config| {
        mapped(config);
        config.policy = policy.clone();
    });
    let at_char = |character| crate::ide::Position { line: 0, character };
    for path in ["/Users/me/proj/secret/k.txt", "/Users/me/proj/open.txt"] {
        engine.handle_editor_event(
            at(1_000),
            &EditorEvent::SelectionChanged {
                path: path.into(),
                text: "tok".into(),
                selection: crate::ide::Range {
                    start: at_char(0),
                    end: at_char(3),
                },
            },
        );
    }
    engine.handle_editor_event(
        at(1_000),
        &EditorEvent::Mention {
            path: "/Users/me/proj/secret/k.txt".into(),
            line_start: None,
            line_end: None,
        },
    );
    let mut drained = Drained::default();
    while let Some(deadline) = engine.poll_timeout().filter(|t| t.as_millis() <= 20_000) {
        engine.handle_timeout(deadline);
        drain(&mut engine, &mut drained);
    }
    let sent = answers(&drained, conn).concat();
    assert!(!sent.contains("secret"), "{sent}");
    assert!(sent.contains("/home/me/proj/open.txt"), "{sent}");
    assert_eq!(engine.policy(), &policy, "the editor's spelling");
}

#[test]
fn the_file_an_accept_replaced_is_reported_with_the_editors_path() {
    let (mut engine, conn, _) = connected(mapped);
    let args = r#"{"old_file_path":"/home/me/proj/a.rs","new_file_path":"/home/me/proj/a.rs","new_file_contents":"x\n","tab_name":"t"}"#;
    let drained = send(&mut engine, conn, 0, &call(1, "openDiff", args));
    let id = drained
        .events
        .iter()
        .find_map(|e| match e {
            EngineEvent::ToolCall { id, .. } => Some(*id),
            _ => None,
        })
        .expect("the diff reaches the editor");
    let saved = ToolOutcome::DiffSaved {
        final_text: "x\n".into(),
        original_text: None,
    };
    engine
        .handle_tool_outcome(at(10), id, &saved)
        .expect("pending");
    let mut drained = Drained::default();
    drain(&mut engine, &mut drained);
    let replaced: Vec<_> = drained
        .events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::FileReplaced { path, .. } => Some(path.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(replaced, ["/Users/me/proj/a.rs"]);
}
