//! The tracker's events for each kind of difference (the engine's effect of them is the
//! property test's, `core/tests/snapshots.rs`).

use super::*;
use crate::ide::Position;

fn doc(path: &str) -> DocumentView<'_> {
    DocumentView {
        path,
        language_id: Some("cpp"),
        is_dirty: false,
        is_untitled: false,
    }
}

fn caret(path: &str, line: u32) -> ActiveView<'_> {
    let at = Position { line, character: 0 };
    ActiveView {
        path,
        text: "",
        selection: Range { start: at, end: at },
    }
}

fn events(
    tracker: &mut SnapshotTracker,
    next: &Snapshot<'_>,
) -> (Vec<EditorEvent>, SnapshotChanges) {
    let mut out = Vec::new();
    let changes = tracker.update(next, |e| out.push(e));
    (out, changes)
}

fn json(events: &[EditorEvent]) -> Vec<String> {
    events
        .iter()
        .map(|e| serde_json::to_string(e).unwrap())
        .collect()
}

#[test]
fn an_unchanged_snapshot_changes_nothing() {
    let mut tracker = SnapshotTracker::new(&["/w".to_owned()]);
    let docs = [doc("/w/a.cpp"), doc("/w/b.cpp")];
    let snapshot = Snapshot {
        documents: &docs,
        active: Some(caret("/w/a.cpp", 3)),
        diagnostics: &[],
        workspace_folders: &["/w"],
    };
    let (first, changes) = events(&mut tracker, &snapshot);
    assert_eq!(
        json(&first),
        [
            r#"{"type":"documentOpened","path":"/w/a.cpp","languageId":"cpp","isDirty":false,"isUntitled":false}"#,
            r#"{"type":"documentOpened","path":"/w/b.cpp","languageId":"cpp","isDirty":false,"isUntitled":false}"#,
            r#"{"type":"selectionChanged","path":"/w/a.cpp","text":"","selection":{"start":{"line":3,"character":0},"end":{"line":3,"character":0}}}"#,
        ]
    );
    assert!(changes.documents && changes.active && !changes.workspace_folders);
    let (again, changes) = events(&mut tracker, &snapshot);
    assert!(again.is_empty(), "{again:?}");
    assert!(!changes.any());
}

#[test]
fn a_moved_caret_is_one_selection_change() {
    let mut tracker = SnapshotTracker::default();
    let docs = [doc("/w/a.cpp")];
    let at = |line| Snapshot {
        documents: &docs,
        active: Some(caret("/w/a.cpp", line)),
        ..Snapshot::default()
    };
    let _ = events(&mut tracker, &at(1));
    let (moved, changes) = events(&mut tracker, &at(2));
    assert_eq!(
        json(&moved),
        [
            r#"{"type":"selectionChanged","path":"/w/a.cpp","text":"","selection":{"start":{"line":2,"character":0},"end":{"line":2,"character":0}}}"#
        ]
    );
    assert_eq!(
        changes,
        SnapshotChanges {
            active: true,
            ..SnapshotChanges::default()
        }
    );
}

#[test]
fn closing_the_active_document_closes_it_then_says_nothing_is_active() {
    let mut tracker = SnapshotTracker::default();
    let docs = [doc("/w/a.cpp"), doc("/w/b.cpp")];
    let _ = events(
        &mut tracker,
        &Snapshot {
            documents: &docs,
            active: Some(caret("/w/b.cpp", 0)),
            ..Snapshot::default()
        },
    );
    let (closed, _) = events(
        &mut tracker,
        &Snapshot {
            documents: &docs[..1],
            ..Snapshot::default()
        },
    );
    assert_eq!(
        json(&closed),
        [
            r#"{"type":"documentClosed","path":"/w/b.cpp"}"#,
            r#"{"type":"noDocumentActive"}"#
        ]
    );
}

#[test]
fn an_active_document_closed_and_still_named_active_is_selected_again() {
    let mut tracker = SnapshotTracker::default();
    let docs = [doc("/w/a.cpp")];
    let active = Some(caret("/w/a.cpp", 0));
    let _ = events(
        &mut tracker,
        &Snapshot {
            documents: &docs,
            active,
            ..Snapshot::default()
        },
    );
    let (events, changes) = events(
        &mut tracker,
        &Snapshot {
            active,
            ..Snapshot::default()
        },
    );
    assert_eq!(
        json(&events),
        [
            r#"{"type":"documentClosed","path":"/w/a.cpp"}"#,
            r#"{"type":"selectionChanged","path":"/w/a.cpp","text":"","selection":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}}}"#,
        ]
    );
    assert!(changes.documents && changes.active);
}

#[test]
fn changed_flags_reopen_the_document_with_them() {
    let mut tracker = SnapshotTracker::default();
    let clean = [doc("/w/a.cpp"), doc("/w/b.cpp")];
    let _ = events(
        &mut tracker,
        &Snapshot {
            documents: &clean,
            ..Snapshot::default()
        },
    );
    let dirty = [
        doc("/w/a.cpp"),
        DocumentView {
            is_dirty: true,
            language_id: None,
            ..doc("/w/b.cpp")
        },
    ];
    let (events, _) = events(
        &mut tracker,
        &Snapshot {
            documents: &dirty,
            ..Snapshot::default()
        },
    );
    assert_eq!(
        json(&events),
        [r#"{"type":"documentOpened","path":"/w/b.cpp","isDirty":true,"isUntitled":false}"#]
    );
}

#[test]
fn folders_are_compared_with_the_engines_starting_folders() {
    let mut tracker = SnapshotTracker::new(&["/w".to_owned()]);
    let (same, changes) = events(
        &mut tracker,
        &Snapshot {
            workspace_folders: &["/w"],
            ..Snapshot::default()
        },
    );
    assert!(same.is_empty() && !changes.any());
    let (more, changes) = events(
        &mut tracker,
        &Snapshot {
            workspace_folders: &["/w", "/v"],
            ..Snapshot::default()
        },
    );
    assert_eq!(
        json(&more),
        [r#"{"type":"workspaceFoldersChanged","folders":["/w","/v"]}"#]
    );
    assert!(changes.workspace_folders);
}

#[test]
fn diagnostics_are_replaced_per_file_and_cleared_when_gone_or_empty() {
    let mut tracker = SnapshotTracker::default();
    let Some(DiagnosticCode::Json(code)) = DiagnosticCode::from_json("1.5") else {
        panic!("1.5 is kept as its text");
    };
    let warning = |message| DiagnosticView {
        message,
        severity: Severity::Warning,
        range: Range::default(),
        source: Some("clang"),
        code: Some(DiagnosticCodeView::Number(42)),
    };
    let one = [warning("unused")];
    let other = [DiagnosticView {
        code: Some(DiagnosticCodeView::Json(&code)),
        ..warning("shadowed")
    }];
    let files = [
        FileDiagnosticsView {
            path: "/w/a.cpp",
            diagnostics: &one,
        },
        FileDiagnosticsView {
            path: "/w/b.cpp",
            diagnostics: &one,
        },
    ];
    let snapshot = |diagnostics| Snapshot {
        diagnostics,
        ..Snapshot::default()
    };
    let (first, _) = events(&mut tracker, &snapshot(&files));
    assert_eq!(
        json(&first),
        [
            r#"{"type":"diagnosticsChanged","path":"/w/a.cpp","diagnostics":[{"message":"unused","severity":"Warning","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"source":"clang","code":42}]}"#,
            r#"{"type":"diagnosticsChanged","path":"/w/b.cpp","diagnostics":[{"message":"unused","severity":"Warning","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"source":"clang","code":42}]}"#,
        ]
    );
    assert!(events(&mut tracker, &snapshot(&files)).0.is_empty());
    let next = [
        FileDiagnosticsView {
            path: "/w/b.cpp",
            diagnostics: &[],
        },
        FileDiagnosticsView {
            path: "/w/c.cpp",
            diagnostics: &other,
        },
    ];
    let (changed, changes) = events(&mut tracker, &snapshot(&next));
    assert_eq!(
        json(&changed),
        [
            r#"{"type":"diagnosticsChanged","path":"/w/a.cpp","diagnostics":[]}"#,
            r#"{"type":"diagnosticsChanged","path":"/w/b.cpp","diagnostics":[]}"#,
            r#"{"type":"diagnosticsChanged","path":"/w/c.cpp","diagnostics":[{"message":"shadowed","severity":"Warning","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"source":"clang","code":1.5}]}"#,
        ]
    );
    assert!(changes.diagnostics && !changes.documents);
    assert!(events(&mut tracker, &snapshot(&next)).0.is_empty());
}

#[test]
fn the_json_form_borrows_into_the_same_snapshot() {
    let owned: EditorSnapshot = serde_json::from_str(
        r#"{"documents":[{"path":"/w/a.rs","languageId":"rust"}],"active":{"path":"/w/a.rs","text":"fn","selection":{"start":{"line":0,"character":0},"end":{"line":0,"character":2}}},"diagnostics":[{"path":"/w/a.rs","diagnostics":[{"message":"m","severity":"Error","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"code":"E1"}]}],"workspaceFolders":["/w"]}"#,
    )
    .unwrap();
    owned.with_view(|view| {
        assert_eq!(
            view.documents,
            [DocumentView {
                path: "/w/a.rs",
                language_id: Some("rust"),
                is_dirty: false,
                is_untitled: false
            }]
        );
        assert_eq!(view.active.unwrap().text, "fn");
        assert_eq!(
            view.diagnostics[0].diagnostics[0].code,
            Some(DiagnosticCodeView::Text("E1"))
        );
        assert_eq!(view.workspace_folders, ["/w"]);
    });
    let empty: EditorSnapshot = serde_json::from_str("{}").unwrap();
    assert_eq!(empty, EditorSnapshot::default());
    assert_eq!(
        serde_json::to_string(&empty).unwrap(),
        r#"{"documents":[],"diagnostics":[],"workspaceFolders":[]}"#
    );
}

#[test]
fn a_reordered_tab_list_applies_nothing() {
    let mut tracker = SnapshotTracker::default();
    let docs = [doc("/w/a.cpp"), doc("/w/b.cpp")];
    let _ = events(
        &mut tracker,
        &Snapshot {
            documents: &docs,
            ..Snapshot::default()
        },
    );
    let swapped = [doc("/w/b.cpp"), doc("/w/a.cpp")];
    let (none, changes) = events(
        &mut tracker,
        &Snapshot {
            documents: &swapped,
            ..Snapshot::default()
        },
    );
    assert!(none.is_empty(), "{none:?}");
    assert!(!changes.any());
}
