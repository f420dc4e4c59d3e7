use proptest::prelude::*;
use serde_json::value::RawValue;

use super::*;
use crate::ide::{
    EditorEvent, EditorState, OutcomeMismatch, PathStyle, Position, Range, SelectionChanged,
    Severity, ToolOutcome, ToolPlan, ToolRequest, format_outcome, plan, plan_tool_call,
};
use crate::ide::{FileDiagnostics, OpenTab};

/// The plan of read tool `tool` pulled from an editor with paths of `style`; `None` for a
/// tool that is no read tool.
fn plan_pulled_read(
    tool: ToolName,
    arguments: Option<&RawValue>,
    style: PathStyle,
) -> Option<ToolPlan> {
    let state = EditorState::new(style, vec![]);
    tool.is_read().then(|| {
        plan(tool, arguments, &state, ReadSource::Editor, false)
            .map_reply(|answer| answer.to_tool_result())
    })
}

fn raw(arguments: Option<&str>) -> Option<Box<RawValue>> {
    arguments.map(|a| RawValue::from_string(a.to_owned()).unwrap())
}

/// What an editor that holds `state` answers to `request`: the typed outcome, paths in the
/// state's own spelling.
fn editor_answer(request: &ToolRequest, state: &EditorState) -> ToolOutcome {
    let selection = |s: Option<&SelectionChanged>| match s {
        Some(s) => ToolOutcome::Selection {
            path: s.file_path.clone(),
            text: s.text.clone(),
            selection: Range {
                start: s.selection.start,
                end: s.selection.end,
            },
        },
        None => ToolOutcome::NoSelection,
    };
    match request {
        ToolRequest::GetDiagnostics { path } => ToolOutcome::Diagnostics {
            files: state
                .diagnostics()
                .iter()
                .filter(|(p, _)| path.as_ref().is_none_or(|want| want == p))
                .map(|(p, d)| FileDiagnostics {
                    path: p.to_owned(),
                    diagnostics: d.to_vec(),
                })
                .collect(),
        },
        ToolRequest::GetCurrentSelection => selection(state.selection_notification().as_deref()),
        ToolRequest::GetLatestSelection => selection(state.latest_selection()),
        ToolRequest::GetOpenEditors => ToolOutcome::OpenEditors {
            tabs: state
                .documents()
                .iter()
                .map(|d| OpenTab {
                    path: d.path.clone(),
                    language_id: d.language_id.clone(),
                    is_dirty: d.is_dirty,
                    is_untitled: d.is_untitled,
                    is_active: state.active_path() == Some(d.path.as_str()),
                })
                .collect(),
        },
        ToolRequest::GetWorkspaceFolders => ToolOutcome::WorkspaceFolders {
            folders: state.workspace_folders().to_vec(),
        },
        ToolRequest::CheckDocumentDirty { path } => match state.document(path) {
            Some(d) => ToolOutcome::DocumentDirty {
                is_dirty: d.is_dirty,
                is_untitled: d.is_untitled,
            },
            None => ToolOutcome::DocumentNotOpen,
        },
        other => panic!("not a read: {other:?}"),
    }
}

/// The push answer and the pull answer for the same call against the same state, as wire
/// JSON; the pull answer goes through the request's JSON form, as it does in a binding.
fn both_ways(state: &EditorState, tool: ToolName, arguments: Option<&str>) -> (String, String) {
    let args = raw(arguments);
    let pushed = match plan_tool_call(tool, args.as_deref(), state, false) {
        ToolPlan::Reply(result) => serde_json::to_string(&result).unwrap(),
        other => format!("{other:?}"),
    };
    let pulled = match plan_pulled_read(tool, args.as_deref(), state.path_style()).unwrap() {
        ToolPlan::Request(request) => {
            let json = serde_json::to_string(&request).unwrap();
            let request: ToolRequest = serde_json::from_str(&json).unwrap();
            let outcome = editor_answer(&request, state);
            let json = serde_json::to_string(&outcome).unwrap();
            let outcome: ToolOutcome = serde_json::from_str(&json).unwrap();
            let result = format_outcome(&request, &outcome, state.path_style()).unwrap();
            serde_json::to_string(&result).unwrap()
        }
        other => format!("{other:?}"),
    };
    (pushed, pulled)
}

/// The calls of every read tool checked against a state.
const CALLS: [(ToolName, Option<&str>); 12] = [
    (ToolName::GetDiagnostics, None),
    (
        ToolName::GetDiagnostics,
        Some(r#"{"uri":"file:///w/a.rs"}"#),
    ),
    (
        ToolName::GetDiagnostics,
        Some(r#"{"uri":"file:///w/b c.rs"}"#),
    ),
    (
        ToolName::GetDiagnostics,
        Some(r#"{"uri":"file:///w/none.rs"}"#),
    ),
    (ToolName::GetDiagnostics, Some(r#"{"uri":"/w/a.rs"}"#)),
    (ToolName::GetCurrentSelection, None),
    (ToolName::GetLatestSelection, Some("{}")),
    (ToolName::GetOpenEditors, None),
    (ToolName::GetWorkspaceFolders, None),
    (
        ToolName::CheckDocumentDirty,
        Some(r#"{"filePath":"/w/a.rs"}"#),
    ),
    (
        ToolName::CheckDocumentDirty,
        Some(r#"{"filePath":"/w/b c.rs"}"#),
    ),
    (ToolName::CheckDocumentDirty, Some("{}")),
];

fn diagnostic(message: &str, line: u32) -> crate::ide::Diagnostic {
    let at = Position { line, character: 1 };
    crate::ide::Diagnostic {
        message: message.into(),
        severity: Severity::Warning,
        range: Range { start: at, end: at },
        source: Some("lint".into()),
        code: Some(3.into()),
    }
}

/// An editor event from a small alphabet over three files and two folders.
fn event(kind: u8, file: u8, n: u32) -> EditorEvent {
    let path = ["/w/a.rs", "/w/b c.rs", "/w/../w/a.rs"][usize::from(file % 3)].to_owned();
    let range = Range {
        start: Position {
            line: n,
            character: 0,
        },
        end: Position {
            line: n + n % 2,
            character: n % 3,
        },
    };
    match kind % 9 {
        0 => EditorEvent::DocumentOpened {
            path,
            language_id: (n.is_multiple_of(2)).then(|| "rust".to_owned()),
            is_dirty: n.is_multiple_of(3),
            is_untitled: n.is_multiple_of(5),
        },
        1 => EditorEvent::DocumentClosed { path },
        2 => EditorEvent::DocumentActivated { path },
        3 => EditorEvent::DocumentDirtyChanged {
            path,
            is_dirty: n.is_multiple_of(2),
        },
        4 => EditorEvent::DocumentSaved { path },
        5 => EditorEvent::SelectionChanged {
            path,
            text: "x".repeat(n as usize % 3),
            selection: range,
        },
        6 => EditorEvent::DiagnosticsChanged {
            path,
            diagnostics: (0..n % 3).map(|i| diagnostic("d", i)).collect(),
        },
        7 => EditorEvent::WorkspaceFoldersChanged {
            folders: vec!["/w".into(), "/x/".into(), "/w".into()][..(n % 4) as usize % 3 + 1]
                .to_vec(),
        },
        _ => EditorEvent::DocumentActivated {
            path: "/w/untitled".into(),
        },
    }
}

proptest! {
    #[test]
    fn a_pulled_read_answers_the_bytes_the_state_answers(
        events in proptest::collection::vec((0u8..9, 0u8..3, 0u32..6), 0..24),
    ) {
        let mut state = EditorState::new(PathStyle::Posix, vec!["/w".into()]);
        for (kind, file, n) in events {
            let _ = state.apply(&event(kind, file, n));
            for (tool, arguments) in CALLS {
                let (pushed, pulled) = both_ways(&state, tool, arguments);
                prop_assert_eq!(pushed, pulled, "{} {:?}", tool.as_str(), arguments);
            }
        }
    }
}

#[test]
fn pulled_files_are_sorted_by_path_and_a_path_given_twice_keeps_its_last_diagnostics() {
    let file = |path: &str, message: &str| FileDiagnostics {
        path: path.into(),
        diagnostics: vec![diagnostic(message, 1)],
    };
    let files = vec![
        file("/w/b.rs", "b first"),
        file("/w/a.rs", "a first"),
        file("/w/b.rs", "b last"),
        file("/w/c.rs", "c"),
        file("/w/a.rs", "a last"),
    ];
    let outcome = ToolOutcome::Diagnostics { files };
    let answer = |path: Option<&str>| {
        let request = ToolRequest::GetDiagnostics {
            path: path.map(str::to_owned),
        };
        let result = format_outcome(&request, &outcome, PathStyle::Posix).unwrap();
        let listed: serde_json::Value = serde_json::from_str(&result.texts[0]).unwrap();
        listed
            .as_array()
            .unwrap()
            .iter()
            .map(|file| {
                let messages = file["diagnostics"].as_array().unwrap().iter();
                let messages = messages.map(|d| d["message"].as_str().unwrap().to_owned());
                (file["uri"].as_str().unwrap().to_owned(), messages.collect())
            })
            .collect::<Vec<(String, Vec<String>)>>()
    };
    let one = |uri: &str, message: &str| (uri.to_owned(), vec![message.to_owned()]);
    assert_eq!(
        answer(None),
        [
            one("file:///w/a.rs", "a last"),
            one("file:///w/b.rs", "b last"),
            one("file:///w/c.rs", "c"),
        ]
    );
    assert_eq!(answer(Some("/w/b.rs")), [one("file:///w/b.rs", "b last")]);
    assert_eq!(
        answer(Some("/w/d.rs")),
        [("file:///w/d.rs".to_owned(), vec![])]
    );
}

#[test]
fn windows_paths_from_the_editor_are_normalized_as_events_are() {
    let mut state = EditorState::new(PathStyle::Windows, vec![r"c:\w".into()]);
    for event in [
        r#"{"type":"documentOpened","path":"c:\\w\\a.rs","languageId":"rust"}"#,
        r#"{"type":"selectionChanged","path":"c:\\w\\a.rs","text":"x","selection":{"start":{"line":1,"character":0},"end":{"line":1,"character":1}}}"#,
        r#"{"type":"diagnosticsChanged","path":"c:\\w\\a.rs","diagnostics":[{"message":"m","severity":"Error","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}}}]}"#,
    ] {
        let _ = state.apply(&serde_json::from_str(event).unwrap());
    }
    let request = ToolRequest::GetDiagnostics { path: None };
    let spelled = ToolOutcome::Diagnostics {
        files: vec![FileDiagnostics {
            path: r"c:\w\a.rs".into(),
            diagnostics: state.diagnostics().get("C:/w/a.rs").unwrap().to_vec(),
        }],
    };
    let pulled = format_outcome(&request, &spelled, PathStyle::Windows).unwrap();
    let (pushed, _) = both_ways(&state, ToolName::GetDiagnostics, None);
    assert_eq!(serde_json::to_string(&pulled).unwrap(), pushed);
    let selection = ToolOutcome::Selection {
        path: r"c:\w\a.rs".into(),
        text: "x".into(),
        selection: Range {
            start: Position {
                line: 1,
                character: 0,
            },
            end: Position {
                line: 1,
                character: 1,
            },
        },
    };
    let pulled = format_outcome(
        &ToolRequest::GetCurrentSelection,
        &selection,
        PathStyle::Windows,
    );
    let (pushed, _) = both_ways(&state, ToolName::GetCurrentSelection, None);
    assert_eq!(serde_json::to_string(&pulled.unwrap()).unwrap(), pushed);
    let folders = ToolOutcome::WorkspaceFolders {
        folders: vec![r"c:\w".into(), "C:/w".into()],
    };
    let pulled = format_outcome(
        &ToolRequest::GetWorkspaceFolders,
        &folders,
        PathStyle::Windows,
    );
    let (pushed, _) = both_ways(&state, ToolName::GetWorkspaceFolders, None);
    assert_eq!(serde_json::to_string(&pulled.unwrap()).unwrap(), pushed);
}

#[test]
fn requests_carry_the_arguments_parsed() {
    let plan = |tool, arguments: &str| {
        plan_pulled_read(tool, raw(Some(arguments)).as_deref(), PathStyle::Windows).unwrap()
    };
    assert_eq!(
        plan(
            ToolName::GetDiagnostics,
            r#"{"uri":"file:///c:/w/a%20b.rs"}"#
        ),
        ToolPlan::Request(ToolRequest::GetDiagnostics {
            path: Some("C:/w/a%20b.rs".into())
        })
    );
    assert_eq!(
        plan(ToolName::GetDiagnostics, r#"{"uri":null}"#),
        ToolPlan::Request(ToolRequest::GetDiagnostics { path: None })
    );
    assert_eq!(
        plan(
            ToolName::CheckDocumentDirty,
            r#"{"filePath":"c:\\w\\a.rs"}"#
        ),
        ToolPlan::Request(ToolRequest::CheckDocumentDirty {
            path: "C:/w/a.rs".into()
        })
    );
    assert_eq!(
        plan(ToolName::GetDiagnostics, r#"{"uri":"https://x"}"#),
        ToolPlan::InvalidArguments("argument uri: expected a file:// URI".into())
    );
    assert_eq!(
        plan(ToolName::GetOpenEditors, "[]"),
        ToolPlan::InvalidArguments("arguments: expected an object, got an array".into())
    );
    for tool in ToolName::ALL {
        let read = ReadSources::all(ReadSource::Editor).source(tool) == ReadSource::Editor;
        let planned = plan_pulled_read(tool, None, PathStyle::Posix);
        assert_eq!(planned.is_some(), read, "{}", tool.as_str());
        if let Some(ToolPlan::Request(request)) = planned {
            assert_eq!(request.tool(), tool);
        }
    }
}

#[test]
fn the_json_forms_are_as_documented() {
    let request = ToolRequest::GetDiagnostics {
        path: Some("/w/a.rs".into()),
    };
    assert_eq!(
        serde_json::to_string(&request).unwrap(),
        r#"{"tool":"getDiagnostics","path":"/w/a.rs"}"#
    );
    assert_eq!(
        serde_json::to_string(&ToolRequest::GetDiagnostics { path: None }).unwrap(),
        r#"{"tool":"getDiagnostics"}"#
    );
    assert_eq!(
        serde_json::to_string(&ToolRequest::GetOpenEditors).unwrap(),
        r#"{"tool":"getOpenEditors"}"#
    );
    let tab: ToolOutcome =
        serde_json::from_str(r#"{"outcome":"openEditors","tabs":[{"path":"/w/a.rs"}]}"#).unwrap();
    assert_eq!(
        tab,
        ToolOutcome::OpenEditors {
            tabs: vec![OpenTab {
                path: "/w/a.rs".into(),
                language_id: None,
                is_dirty: false,
                is_untitled: false,
                is_active: false,
            }]
        }
    );
    let dirty: ToolOutcome =
        serde_json::from_str(r#"{"outcome":"documentDirty","isDirty":true}"#).unwrap();
    assert_eq!(
        dirty,
        ToolOutcome::DocumentDirty {
            is_dirty: true,
            is_untitled: false
        }
    );
}

#[test]
fn an_outcome_of_the_wrong_kind_is_a_host_error() {
    let selection = ToolOutcome::Selection {
        path: "/w/a.rs".into(),
        text: String::new(),
        selection: Range::default(),
    };
    let cases = [
        (
            ToolRequest::GetDiagnostics { path: None },
            selection.clone(),
        ),
        (
            ToolRequest::GetCurrentSelection,
            ToolOutcome::DocumentNotOpen,
        ),
        (
            ToolRequest::GetOpenEditors,
            ToolOutcome::WorkspaceFolders { folders: vec![] },
        ),
        (ToolRequest::GetWorkspaceFolders, ToolOutcome::NoSelection),
        (
            ToolRequest::CheckDocumentDirty {
                path: "/w/a.rs".into(),
            },
            selection,
        ),
        (
            ToolRequest::GetLatestSelection,
            ToolOutcome::Diagnostics { files: vec![] },
        ),
        (ToolRequest::GetOpenEditors, ToolOutcome::DocumentSaved),
        (
            ToolRequest::SaveDocument {
                path: "/w/a.rs".into(),
            },
            ToolOutcome::DocumentDirty {
                is_dirty: false,
                is_untitled: false,
            },
        ),
    ];
    for (request, outcome) in cases {
        assert_eq!(
            format_outcome(&request, &outcome, PathStyle::Posix),
            Err(OutcomeMismatch {
                tool: request.tool(),
                outcome: outcome.name(),
            })
        );
    }
    let err = format_outcome(
        &ToolRequest::GetDiagnostics { path: None },
        &ToolOutcome::NoSelection,
        PathStyle::Posix,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "outcome noSelection does not answer tool getDiagnostics"
    );
}

#[test]
fn a_failed_pull_answers_an_error_result_and_only_reads_are_reads() {
    let request = ToolRequest::GetDiagnostics { path: None };
    let failed = ToolOutcome::Failed {
        message: "the language server is starting".into(),
    };
    assert_eq!(
        serde_json::to_string(&format_outcome(&request, &failed, PathStyle::Posix).unwrap())
            .unwrap(),
        r#"{"content":[{"type":"text","text":"the language server is starting"}],"isError":true}"#
    );
    for tool in ToolName::ALL {
        if let Some(ToolPlan::Request(request)) = plan_pulled_read(
            tool,
            Some(&RawValue::from_string(r#"{"filePath":"/a"}"#.into()).unwrap()),
            PathStyle::Posix,
        ) {
            assert!(request.is_read(), "{}", tool.as_str());
        }
    }
    assert!(!ToolRequest::SaveDocument { path: "/a".into() }.is_read());
    assert!(!ToolRequest::ExecuteCode { code: "1".into() }.is_read());
}

/// `ReadSources` as it was: one field per read tool, derived (the oracle of the keyed form).
#[derive(Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
struct Fields {
    get_diagnostics: ReadSource,
    get_current_selection: ReadSource,
    get_latest_selection: ReadSource,
    get_open_editors: ReadSource,
    get_workspace_folders: ReadSource,
    check_document_dirty: ReadSource,
}

impl Fields {
    fn keyed(&self) -> ReadSources {
        let mut sources = ReadSources::default();
        for (tool, source) in [
            (ToolName::GetDiagnostics, self.get_diagnostics),
            (ToolName::GetCurrentSelection, self.get_current_selection),
            (ToolName::GetLatestSelection, self.get_latest_selection),
            (ToolName::GetOpenEditors, self.get_open_editors),
            (ToolName::GetWorkspaceFolders, self.get_workspace_folders),
            (ToolName::CheckDocumentDirty, self.check_document_dirty),
        ] {
            sources.set(tool, source);
        }
        sources
    }
}

proptest! {
    #[test]
    fn read_sources_read_and_write_as_their_fields_did(
        members in prop::collection::vec(
            (
                prop_oneof![
                    prop::sample::select(ToolName::ALL.map(ToolName::as_str).to_vec()),
                    Just("getdiagnostics"),
                ],
                prop_oneof![Just("\"state\""), Just("\"editor\""), Just("\"pull\""), Just("1")],
            ),
            0..5,
        ),
    ) {
        let text = format!(
            "{{{}}}",
            members
                .iter()
                .map(|(name, value)| format!("\"{name}\":{value}"))
                .collect::<Vec<_>>()
                .join(",")
        );
        let ours = serde_json::from_str::<ReadSources>(&text).map_err(|e| e.to_string());
        let theirs = serde_json::from_str::<Fields>(&text).map_err(|e| e.to_string());
        prop_assert_eq!(&ours, &theirs.as_ref().map(Fields::keyed).map_err(Clone::clone));
        if let (Ok(ours), Ok(theirs)) = (ours, theirs) {
            prop_assert_eq!(
                serde_json::to_string(&ours).unwrap(),
                serde_json::to_string(&theirs).unwrap()
            );
        }
    }
}

#[test]
fn only_read_tools_are_pulled() {
    let mut sources = ReadSources::all(ReadSource::Editor);
    for tool in ToolName::ALL {
        let pulled = sources.source(tool) == ReadSource::Editor;
        assert_eq!(pulled, tool.is_read(), "{}", tool.as_str());
    }
    sources.set(ToolName::GetDiagnostics, ReadSource::State);
    assert_eq!(sources.source(ToolName::GetDiagnostics), ReadSource::State);
    sources.set(ToolName::OpenDiff, ReadSource::Editor);
    assert_eq!(sources.source(ToolName::OpenDiff), ReadSource::State);
}
