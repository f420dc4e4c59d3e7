//! Per-frame snapshots against events: for random sequences of snapshots, an engine fed the
//! snapshots and an engine fed the equivalent editor events (derived here, independently, from
//! the rules in `idelink_core::snapshot`'s docs) produce byte-identical output: every byte to
//! a ready client (the debounced pushes, and the answers of every read tool asked after each
//! frame), every event to the host, and the same lock rewrites. Feeding a snapshot again
//! changes nothing and produces nothing.
#![expect(
    clippy::unwrap_used,
    reason = "a test harness: a broken setup must fail the test loudly"
)]

use idelink_core::host_rules::lock_life;
use idelink_core::ide::FileDiagnostics;
use idelink_core::ide::{Diagnostic, Position, Range, Severity};
use idelink_core::lockfile::LockFile;
use idelink_core::snapshot::{SnapshotActive, SnapshotDocument};
use idelink_core::{
    AuthToken, Config, ConnId, EditorEvent, EditorSnapshot, Engine, Output, Timestamp,
};
use proptest::prelude::*;

const PORT: u16 = 40000;
const TOKEN: &str = "00112233445566778899aabbccddeeff";
const PATHS: [&str; 5] = ["/w/a.cpp", "/w/b.cpp", "/w/c.h", "/v/d.rs", "/w/e.py"];
const READS: [(&str, &str); 6] = [
    ("getOpenEditors", "{}"),
    ("getDiagnostics", "{}"),
    ("getWorkspaceFolders", "{}"),
    ("getCurrentSelection", "{}"),
    ("getLatestSelection", "{}"),
    ("checkDocumentDirty", r#"{"filePath":"/w/b.cpp"}"#),
];

fn client_frame(text: &str) -> Vec<u8> {
    idelink_test_client::client_frame(0x81, text.as_bytes())
}

/// An engine with one ready client, starting with the workspace folder `/w`.
fn session() -> (Engine, ConnId, Vec<u8>) {
    let mut config = Config::new(PORT);
    config.ready_delay_ms = 0;
    config.ws.keepalive_interval_ms = 0;
    config.workspace_folders = vec!["/w".into()];
    let mut engine = Engine::new(config, AuthToken::parse(TOKEN).unwrap());
    let now = Timestamp::ZERO;
    let conn = engine.handle_accept(now);
    let mut hello = idelink_test_client::upgrade_request(PORT, Some(TOKEN), "").into_bytes();
    hello.extend(client_frame(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","version":"2.1.332"}}}"#,
    ));
    hello.extend(client_frame(
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    ));
    engine.handle_bytes(now, conn, &hello).unwrap();
    engine.handle_timeout(now);
    let mut out = Vec::new();
    drain(&mut engine, &mut out);
    (engine, conn, out)
}

/// Every output, as bytes: what went to each client and each event's JSON.
fn drain(engine: &mut Engine, out: &mut Vec<u8>) {
    while let Some(output) = engine.poll_output() {
        match output {
            Output::Transmit { conn } => {
                let bytes = engine.outbound(conn).to_vec();
                engine.handle_sent(conn, bytes.len()).unwrap();
                out.extend(format!("send {}:", conn.as_u64()).bytes());
                out.extend(bytes);
            }
            Output::CloseTransport { conn } => {
                out.extend(format!("close {}", conn.as_u64()).bytes())
            }
            Output::Event(event) => out.extend(serde_json::to_vec(&event).unwrap()),
            other => out.extend(format!("{other:?}").bytes()),
        }
        out.push(b'\n');
    }
}

/// The events a difference stands for, from the documented rules (owned and simple: this is
/// the reference the engine's in-place comparison is checked against).
fn equivalent_events(prev: &EditorSnapshot, next: &EditorSnapshot) -> Vec<EditorEvent> {
    let mut events = Vec::new();
    if prev.workspace_folders != next.workspace_folders {
        events.push(EditorEvent::WorkspaceFoldersChanged {
            folders: next.workspace_folders.clone(),
        });
    }
    let gone = |path: &str| !next.documents.iter().any(|d| d.path == path);
    let closed = |path: &str| prev.documents.iter().any(|d| d.path == path) && gone(path);
    for old in prev.documents.iter().filter(|d| gone(&d.path)) {
        events.push(EditorEvent::DocumentClosed {
            path: old.path.clone(),
        });
    }
    for doc in &next.documents {
        if !prev.documents.contains(doc) {
            events.push(
                serde_json::from_value(serde_json::json!({
                    "type": "documentOpened", "path": doc.path, "languageId": doc.language_id,
                    "isDirty": doc.is_dirty, "isUntitled": doc.is_untitled,
                }))
                .unwrap(),
            );
        }
    }
    match (&prev.active, &next.active) {
        (Some(_), None) => events.push(EditorEvent::NoDocumentActive),
        (_, Some(active)) if prev.active.as_ref() != Some(active) || closed(&active.path) => {
            events.push(EditorEvent::SelectionChanged {
                path: active.path.clone(),
                text: active.text.clone(),
                selection: active.selection,
            });
        }
        _ => {}
    }
    let list = |snapshot: &EditorSnapshot, path: &str| -> Vec<Diagnostic> {
        let file = snapshot.diagnostics.iter().find(|f| f.path == path);
        file.map(|f| f.diagnostics.clone()).unwrap_or_default()
    };
    for old in &prev.diagnostics {
        if !old.diagnostics.is_empty() && list(next, &old.path).is_empty() {
            events.push(EditorEvent::DiagnosticsChanged {
                path: old.path.clone(),
                diagnostics: Vec::new(),
            });
        }
    }
    for file in &next.diagnostics {
        if !file.diagnostics.is_empty() && file.diagnostics != list(prev, &file.path) {
            events.push(EditorEvent::DiagnosticsChanged {
                path: file.path.clone(),
                diagnostics: file.diagnostics.clone(),
            });
        }
    }
    events
}

fn range(line: u32, width: u32) -> Range {
    Range {
        start: Position { line, character: 0 },
        end: Position {
            line,
            character: width,
        },
    }
}

/// Two choices for each part of a snapshot (and the first tab list reversed as a third):
/// frames mix them, so consecutive frames often share some parts and differ in others (the
/// active document kept while its tab closes, the documents kept while the caret moves, the
/// same tabs reordered, ...).
#[derive(Clone, Debug)]
struct Pool {
    documents: [Vec<SnapshotDocument>; 3],
    active: [Option<SnapshotActive>; 2],
    diagnostics: [Vec<FileDiagnostics>; 2],
    folders: [Vec<String>; 2],
}

/// A frame: which pool choice each part takes, how long after the previous frame it comes
/// (the debounce is 100 ms), and whether the read tools are asked after it.
type Frame = ([usize; 4], u64, bool);

impl Pool {
    fn snapshot(&self, [d, a, g, f]: [usize; 4]) -> EditorSnapshot {
        EditorSnapshot {
            documents: self.documents[d].clone(),
            active: self.active[a].clone(),
            diagnostics: self.diagnostics[g].clone(),
            workspace_folders: self.folders[f].clone(),
        }
    }
}

fn documents() -> impl Strategy<Value = Vec<SnapshotDocument>> {
    let flags = (
        prop::option::of(prop::sample::select(vec!["cpp", "rust"])),
        any::<bool>(),
        any::<bool>(),
    );
    (
        Just(PATHS.to_vec()).prop_shuffle(),
        0..=PATHS.len(),
        prop::collection::vec(flags, PATHS.len()),
    )
        .prop_map(|(paths, n, flags)| {
            paths[..n]
                .iter()
                .zip(flags)
                .map(
                    |(path, (language, is_dirty, is_untitled))| SnapshotDocument {
                        path: (*path).to_owned(),
                        language_id: language.map(str::to_owned),
                        is_dirty,
                        is_untitled,
                    },
                )
                .collect()
        })
}

fn active() -> impl Strategy<Value = Option<SnapshotActive>> {
    prop::option::weighted(
        0.8,
        (
            prop::sample::select(PATHS.to_vec()),
            0..3u32,
            prop::sample::select(vec!["", "x", "int y"]),
        ),
    )
    .prop_map(|active| {
        active.map(|(path, line, text)| SnapshotActive {
            path: path.to_owned(),
            text: text.to_owned(),
            selection: range(line, text.len() as u32),
        })
    })
}

fn diagnostics() -> impl Strategy<Value = Vec<FileDiagnostics>> {
    let diagnostic =
        (0..2u32, prop::sample::select(vec!["unused", "shadowed"])).prop_map(|(line, message)| {
            Diagnostic {
                message: message.to_owned(),
                severity: Severity::Warning,
                range: range(line, 1),
                source: Some("clang".to_owned()),
                code: Some(line.into()),
            }
        });
    prop::collection::vec(
        (
            prop::sample::select(PATHS.to_vec()),
            prop::collection::vec(diagnostic, 0..3),
        ),
        0..3,
    )
    .prop_map(|files| {
        let mut out: Vec<FileDiagnostics> = Vec::new();
        for (path, diagnostics) in files {
            if !out.iter().any(|f| f.path == path) {
                out.push(FileDiagnostics {
                    path: path.to_owned(),
                    diagnostics,
                });
            }
        }
        out
    })
}

fn a_pool() -> impl Strategy<Value = Pool> {
    let folders = prop::sample::select(vec![vec![], vec!["/w"], vec!["/w", "/v"], vec!["/v"]])
        .prop_map(|f| f.into_iter().map(str::to_owned).collect::<Vec<String>>());
    (
        [documents(), documents()],
        [active(), active()],
        [diagnostics(), diagnostics()],
        [folders.clone(), folders],
    )
        .prop_map(|([first, second], active, diagnostics, folders)| Pool {
            documents: [first.clone(), second, first.into_iter().rev().collect()],
            active,
            diagnostics,
            folders,
        })
}

fn a_frame() -> impl Strategy<Value = Frame> {
    (
        [0..3usize, 0..2usize, 0..2usize, 0..2usize],
        0..250u64,
        any::<bool>(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn snapshots_and_their_equivalent_events_give_byte_identical_output(
        pool in a_pool(),
        frames in prop::collection::vec(a_frame(), 1..16)
    ) {
        let (mut by_snapshot, conn, hello_a) = session();
        let (mut by_events, _, hello_b) = session();
        prop_assert_eq!(hello_a, hello_b);
        let lock = |folders: &[&str]| LockFile {
            pid: 1,
            workspace_folders: folders.iter().map(|&f| f.to_owned()).collect(),
            ide_name: "Frame".into(),
            auth_token: TOKEN.into(),
            running_in_windows: false,
        };
        let mut lock_a = lock(&["/w"]);
        let mut lock_b = lock(&["/w"]);
        let mut prev = EditorSnapshot {
            workspace_folders: vec!["/w".into()],
            ..EditorSnapshot::default()
        };
        let mut now = 0;
        let mut call_id = 10;
        for (choice, wait, read) in frames {
            let next = pool.snapshot(choice);
            now += wait;
            let at = Timestamp::from_millis(now);
            let (mut out_a, mut out_b) = (Vec::new(), Vec::new());

            let changes = next.with_view(|view| {
                let changes = by_snapshot.handle_snapshot(at, view);
                if let Some(rewritten) = lock_life::rewritten_for_snapshot(&lock_a, view) {
                    lock_a = rewritten;
                }
                changes
            });
            let events = equivalent_events(&prev, &next);
            for event in &events {
                by_events.handle_editor_event(at, event);
                if let Some(rewritten) = lock_life::rewritten_for(&lock_b, event) {
                    lock_b = rewritten;
                }
            }
            prop_assert_eq!(changes.any(), !events.is_empty(), "{:?}", events);
            prop_assert_eq!(
                changes.workspace_folders,
                events.iter().any(|e| matches!(e, EditorEvent::WorkspaceFoldersChanged { .. }))
            );
            prop_assert_eq!(&lock_a, &lock_b);

            // The same snapshot again, as the next frames of an idle editor: nothing at all.
            drain(&mut by_snapshot, &mut out_a);
            drain(&mut by_events, &mut out_b);
            let repeated = next.with_view(|view| by_snapshot.handle_snapshot(at, view));
            prop_assert!(!repeated.any());
            let mut idle = Vec::new();
            drain(&mut by_snapshot, &mut idle);
            prop_assert!(idle.is_empty());

            for engine in [&mut by_snapshot, &mut by_events] {
                engine.handle_timeout(at);
            }
            drain(&mut by_snapshot, &mut out_a);
            drain(&mut by_events, &mut out_b);
            if read {
                let mut frames = Vec::new();
                for (tool, args) in READS {
                    call_id += 1;
                    frames.extend(client_frame(&format!(
                        r#"{{"jsonrpc":"2.0","id":{call_id},"method":"tools/call","params":{{"name":"{tool}","arguments":{args}}}}}"#
                    )));
                }
                by_snapshot.handle_bytes(at, conn, &frames).unwrap();
                by_events.handle_bytes(at, conn, &frames).unwrap();
                drain(&mut by_snapshot, &mut out_a);
                drain(&mut by_events, &mut out_b);
            }
            prop_assert_eq!(
                String::from_utf8_lossy(&out_a),
                String::from_utf8_lossy(&out_b)
            );
            prev = next;
        }
        // The last debounce runs out: the pushes left are the same too.
        let end = Timestamp::from_millis(now + 1000);
        let (mut out_a, mut out_b) = (Vec::new(), Vec::new());
        by_snapshot.handle_timeout(end);
        by_events.handle_timeout(end);
        drain(&mut by_snapshot, &mut out_a);
        drain(&mut by_events, &mut out_b);
        prop_assert_eq!(String::from_utf8_lossy(&out_a), String::from_utf8_lossy(&out_b));
    }
}
