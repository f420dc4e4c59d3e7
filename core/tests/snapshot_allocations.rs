//! Per-frame snapshots allocate nothing when nothing changed: a counting allocator measures
//! `handle_snapshot` with an unchanged 200-document snapshot (documents, an active document
//! with a selection, diagnostics, folders) on an engine with a ready client.

use allocation_counter::measure;
use idelink_core::ide::{Position, Range, Severity};
use idelink_core::snapshot::{
    ActiveView, DiagnosticCodeView, DiagnosticView, DocumentView, FileDiagnosticsView, Snapshot,
};
use idelink_core::{AuthToken, Config, Engine, Timestamp};

const PORT: u16 = 40000;
const TOKEN: &str = "00112233445566778899aabbccddeeff";
const DOCUMENTS: usize = 200;
const FRAMES: u64 = 600;

#[test]
fn an_unchanged_200_document_snapshot_allocates_nothing() {
    let mut config = Config::new(PORT);
    config.ready_delay_ms = 0;
    config.ws.keepalive_interval_ms = 0;
    let mut engine = Engine::new(config, AuthToken::parse(TOKEN).unwrap());
    let conn = engine.handle_accept(Timestamp::ZERO);
    let mut hello = idelink_test_client::upgrade_request(PORT, Some(TOKEN), "").into_bytes();
    for text in [
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","version":"2.1.332"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    ] {
        hello.extend(idelink_test_client::client_frame(0x81, text.as_bytes()));
    }
    engine.handle_bytes(Timestamp::ZERO, conn, &hello).unwrap();

    let paths: Vec<String> = (0..DOCUMENTS)
        .map(|i| format!("/home/me/game/scripts/module_{i:03}/behaviour.cpp"))
        .collect();
    let documents: Vec<DocumentView<'_>> = paths
        .iter()
        .enumerate()
        .map(|(i, path)| DocumentView {
            path,
            language_id: Some("cpp"),
            is_dirty: i % 7 == 0,
            is_untitled: false,
        })
        .collect();
    let at = |line, character| Position { line, character };
    let warnings: Vec<DiagnosticView<'_>> = (0..3)
        .map(|line| DiagnosticView {
            message: "unused variable 'speed'",
            severity: Severity::Warning,
            range: Range {
                start: at(line, 4),
                end: at(line, 9),
            },
            source: Some("clang"),
            code: Some(DiagnosticCodeView::Text("-Wunused-variable")),
        })
        .collect();
    let diagnostics: Vec<FileDiagnosticsView<'_>> = paths
        .iter()
        .step_by(10)
        .map(|path| FileDiagnosticsView {
            path,
            diagnostics: &warnings,
        })
        .collect();
    let snapshot = Snapshot {
        documents: &documents,
        active: Some(ActiveView {
            path: &paths[42],
            text: "speed",
            selection: Range {
                start: at(10, 4),
                end: at(10, 9),
            },
        }),
        diagnostics: &diagnostics,
        workspace_folders: &["/home/me/game"],
    };

    let mut now = Timestamp::ZERO;
    let first = engine.handle_snapshot(now, &snapshot);
    assert!(first.documents && first.active && first.diagnostics);
    engine.handle_timeout(now.add_millis(1000));
    while engine.poll_output().is_some() {}

    let frames = measure(|| {
        for _ in 0..FRAMES {
            now = now.add_millis(16);
            let changes = engine.handle_snapshot(now, &snapshot);
            assert!(!changes.any());
            assert!(engine.poll_output().is_none());
        }
    });
    println!(
        "allocations per unchanged {DOCUMENTS}-document snapshot: {:.2}",
        frames.count_total as f64 / FRAMES as f64
    );
    assert_eq!(frames.count_total, 0, "an unchanged snapshot allocated");
}
