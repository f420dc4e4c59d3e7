//! The read tools answered from the state, through the one planner.

use serde_json::value::RawValue;

use crate::ide::{
    Diagnostic, EditorEvent, EditorState, PathStyle, Position, Range, ReadSource, Severity,
    ToolName, ToolPlan, ToolResult, plan, plan_tool_call, selection_result,
};

fn planned(state: &EditorState, name: &str, arguments: Option<&str>) -> ToolPlan {
    let raw = arguments.map(|a| RawValue::from_string(a.to_owned()).unwrap());
    let tool = ToolName::parse(name).unwrap_or_else(|| panic!("no tool {name}"));
    plan_tool_call(tool, raw.as_deref(), state, false)
}

/// The JSON text inside the answer's only content item.
fn answer(state: &EditorState, name: &str, arguments: Option<&str>) -> String {
    match planned(state, name, arguments) {
        ToolPlan::Reply(result) => {
            // The answer the engine writes in place is byte for byte the planned one.
            let tool = ToolName::parse(name).unwrap();
            let planned = serde_json::to_string(&result).unwrap();
            if let Some(direct) = selection_result(tool, state) {
                let mut out = Vec::new();
                direct.write(&mut out);
                assert_eq!(String::from_utf8(out).unwrap(), planned);
            }
            let raw = arguments.map(|a| RawValue::from_string(a.to_owned()).unwrap());
            match plan(tool, raw.as_deref(), state, ReadSource::State, false) {
                ToolPlan::Reply(answer) => {
                    let mut out = Vec::new();
                    answer.write_result(&mut out);
                    assert_eq!(String::from_utf8(out).unwrap(), planned);
                }
                other => panic!("not an answer: {other:?}"),
            }
            let ToolResult { texts, is_error } = result;
            assert!(!is_error);
            assert_eq!(texts.len(), 1);
            texts.into_iter().next().unwrap()
        }
        other => panic!("not an answer: {other:?}"),
    }
}

fn feed(state: &mut EditorState, events: &[&str]) {
    for event in events {
        let _ = state.apply(&serde_json::from_str(event).unwrap());
    }
}

fn diag(message: &str, severity: Severity, line: u32) -> Diagnostic {
    let at = Position { line, character: 4 };
    Diagnostic {
        message: message.into(),
        severity,
        range: Range { start: at, end: at },
        source: None,
        code: None,
    }
}

fn with_diagnostics(style: PathStyle) -> EditorState {
    let mut state = EditorState::new(style, vec![]);
    let mut with_extras = diag("mismatched types", Severity::Error, 3);
    with_extras.source = Some("rustc".into());
    with_extras.code = Some("E0308".into());
    let _ = state.apply(&EditorEvent::DiagnosticsChanged {
        path: "/w/b.rs".into(),
        diagnostics: vec![with_extras, diag("unused", Severity::Warning, 7)],
    });
    let mut numbered = diag("hint", Severity::Hint, 0);
    numbered.code = Some(7.into());
    let _ = state.apply(&EditorEvent::DiagnosticsChanged {
        path: "/w/a b%20.rs".into(),
        diagnostics: vec![numbered],
    });
    state
}

const B_DIAGNOSTICS: &str = r#"{"uri":"file:///w/b.rs","diagnostics":[{"message":"mismatched types","severity":"Error","range":{"start":{"line":3,"character":4},"end":{"line":3,"character":4}},"source":"rustc","code":"E0308"},{"message":"unused","severity":"Warning","range":{"start":{"line":7,"character":4},"end":{"line":7,"character":4}}}]}"#;
const A_DIAGNOSTICS: &str = r#"{"uri":"file:///w/a b%20.rs","diagnostics":[{"message":"hint","severity":"Hint","range":{"start":{"line":0,"character":4},"end":{"line":0,"character":4}},"code":7}]}"#;

#[test]
fn diagnostics_for_all_files_are_ordered_by_path() {
    let state = with_diagnostics(PathStyle::Posix);
    let all = format!("[{A_DIAGNOSTICS},{B_DIAGNOSTICS}]");
    assert_eq!(answer(&state, "getDiagnostics", None), all);
    assert_eq!(answer(&state, "getDiagnostics", Some("{}")), all);
    assert_eq!(
        answer(&state, "getDiagnostics", Some(r#"{"uri":null}"#)),
        all
    );
    let empty = EditorState::new(PathStyle::Posix, vec![]);
    assert_eq!(answer(&empty, "getDiagnostics", Some("{}")), "[]");
}

#[test]
fn diagnostics_for_one_uri_hold_exactly_that_file() {
    let state = with_diagnostics(PathStyle::Posix);
    let get = |uri: &str| {
        answer(
            &state,
            "getDiagnostics",
            Some(&format!(r#"{{"uri":"{uri}"}}"#)),
        )
    };
    assert_eq!(get("file:///w/b.rs"), format!("[{B_DIAGNOSTICS}]"));
    assert_eq!(get("file:///w/%62.rs"), format!("[{B_DIAGNOSTICS}]"));
    // The raw spelling wins over the decoded one: this file's name holds `%20`.
    assert_eq!(get("file:///w/a b%20.rs"), format!("[{A_DIAGNOSTICS}]"));
    assert_eq!(get("file:///w/a%20b%2520.rs"), format!("[{A_DIAGNOSTICS}]"));
    assert_eq!(
        get("file:///w/clean.rs"),
        r#"[{"uri":"file:///w/clean.rs","diagnostics":[]}]"#
    );
    assert_eq!(
        get("file:///w/new%20file.rs"),
        r#"[{"uri":"file:///w/new file.rs","diagnostics":[]}]"#
    );
}

#[test]
fn diagnostics_uri_on_windows_is_normalized() {
    let mut state = EditorState::new(PathStyle::Windows, vec![]);
    let _ = state.apply(&EditorEvent::DiagnosticsChanged {
        path: r"c:\w\a.rs".into(),
        diagnostics: vec![diag("x", Severity::Info, 1)],
    });
    let expected = r#"[{"uri":"file:///C:/w/a.rs","diagnostics":[{"message":"x","severity":"Info","range":{"start":{"line":1,"character":4},"end":{"line":1,"character":4}}}]}]"#;
    assert_eq!(answer(&state, "getDiagnostics", None), expected);
    for uri in [
        "file:///c:/w/a.rs",
        "file:///C:/w/a.rs",
        r"file://C:\\w\\a.rs",
        "file:///c%3A/w/a.rs",
    ] {
        let args = format!(r#"{{"uri":"{uri}"}}"#);
        assert_eq!(
            answer(&state, "getDiagnostics", Some(&args)),
            expected,
            "{uri}"
        );
    }
}

#[test]
fn diagnostics_refuse_a_bad_uri() {
    let state = with_diagnostics(PathStyle::Posix);
    assert_eq!(
        planned(&state, "getDiagnostics", Some(r#"{"uri":"/w/b.rs"}"#)),
        ToolPlan::InvalidArguments("argument uri: expected a file:// URI".into())
    );
    assert_eq!(
        planned(&state, "getDiagnostics", Some(r#"{"uri":"https://x/y"}"#)),
        ToolPlan::InvalidArguments("argument uri: expected a file:// URI".into())
    );
    assert_eq!(
        planned(&state, "getDiagnostics", Some(r#"{"uri":5}"#)),
        ToolPlan::InvalidArguments("argument uri: expected a string, got a number".into())
    );
}

#[test]
fn only_the_selection_tools_are_answered_in_place() {
    let state = EditorState::new(PathStyle::Posix, vec![]);
    for tool in ToolName::ALL {
        let in_place = selection_result(tool, &state).is_some();
        let selection_tool = matches!(
            tool,
            ToolName::GetCurrentSelection | ToolName::GetLatestSelection
        );
        assert_eq!(in_place, selection_tool, "{}", tool.as_str());
    }
}

#[test]
fn current_selection_follows_the_active_editor() {
    let mut state = EditorState::new(PathStyle::Posix, vec![]);
    assert_eq!(
        answer(&state, "getCurrentSelection", None),
        r#"{"success":false,"message":"No active editor found"}"#
    );
    feed(
        &mut state,
        &[r#"{"type":"documentActivated","path":"/w/a.rs"}"#],
    );
    assert_eq!(
        answer(&state, "getCurrentSelection", Some("{}")),
        r#"{"success":true,"text":"","filePath":"/w/a.rs","fileUrl":"file:///w/a.rs","selection":{"start":{"line":0,"character":0},"end":{"line":0,"character":0},"isEmpty":true}}"#
    );
    feed(
        &mut state,
        &[
            r#"{"type":"selectionChanged","path":"/w/a.rs","text":"let \"x\"","selection":{"start":{"line":2,"character":1},"end":{"line":2,"character":8}}}"#,
        ],
    );
    assert_eq!(
        answer(&state, "getCurrentSelection", None),
        r#"{"success":true,"text":"let \"x\"","filePath":"/w/a.rs","fileUrl":"file:///w/a.rs","selection":{"start":{"line":2,"character":1},"end":{"line":2,"character":8},"isEmpty":false}}"#
    );
    feed(
        &mut state,
        &[r#"{"type":"documentClosed","path":"/w/a.rs"}"#],
    );
    assert_eq!(
        answer(&state, "getCurrentSelection", None),
        r#"{"success":false,"message":"No active editor found"}"#
    );
}

#[test]
fn latest_selection_survives_its_editor_closing() {
    let mut state = EditorState::new(PathStyle::Windows, vec![]);
    assert_eq!(
        answer(&state, "getLatestSelection", None),
        r#"{"success":false,"message":"No selection available"}"#
    );
    feed(
        &mut state,
        &[
            r#"{"type":"selectionChanged","path":"c:\\w\\a.rs","text":"x","selection":{"start":{"line":1,"character":0},"end":{"line":1,"character":1}}}"#,
            r#"{"type":"documentClosed","path":"C:/w/a.rs"}"#,
            r#"{"type":"documentActivated","path":"C:/w/b.rs"}"#,
        ],
    );
    assert_eq!(
        answer(&state, "getLatestSelection", None),
        r#"{"success":true,"text":"x","filePath":"C:/w/a.rs","fileUrl":"file:///C:/w/a.rs","selection":{"start":{"line":1,"character":0},"end":{"line":1,"character":1},"isEmpty":false}}"#
    );
}

#[test]
fn open_editors_in_tab_order() {
    let mut state = EditorState::new(PathStyle::Posix, vec![]);
    assert_eq!(answer(&state, "getOpenEditors", None), r#"{"tabs":[]}"#);
    feed(
        &mut state,
        &[
            r#"{"type":"documentOpened","path":"/w/src/main.rs","languageId":"rust","isDirty":true}"#,
            r#"{"type":"documentOpened","path":"Untitled-1","isUntitled":true}"#,
            r#"{"type":"documentActivated","path":"Untitled-1"}"#,
        ],
    );
    assert_eq!(
        answer(&state, "getOpenEditors", Some("{}")),
        concat!(
            r#"{"tabs":["#,
            r#"{"uri":"file:///w/src/main.rs","isActive":false,"label":"main.rs","fileName":"/w/src/main.rs","languageId":"rust","isDirty":true,"isUntitled":false},"#,
            r#"{"uri":"file://Untitled-1","isActive":true,"label":"Untitled-1","fileName":"Untitled-1","languageId":"plaintext","isDirty":false,"isUntitled":true}"#,
            "]}"
        )
    );
}

#[test]
fn workspace_folders_with_root_path() {
    let state = EditorState::new(
        PathStyle::Windows,
        vec![r"c:\w\proj".into(), "D:/other".into()],
    );
    assert_eq!(
        answer(&state, "getWorkspaceFolders", None),
        r#"{"success":true,"folders":[{"name":"proj","uri":"file:///C:/w/proj","path":"C:/w/proj"},{"name":"other","uri":"file:///D:/other","path":"D:/other"}],"rootPath":"C:/w/proj"}"#
    );
    let none = EditorState::new(PathStyle::Posix, vec![]);
    assert_eq!(
        answer(&none, "getWorkspaceFolders", None),
        r#"{"success":true,"folders":[],"rootPath":null}"#
    );
}

#[test]
fn document_dirty_for_open_and_unknown_documents() {
    let mut state = EditorState::new(PathStyle::Windows, vec![]);
    feed(
        &mut state,
        &[
            r#"{"type":"documentOpened","path":"C:\\w\\a.rs"}"#,
            r#"{"type":"documentDirtyChanged","path":"C:\\w\\a.rs","isDirty":true}"#,
        ],
    );
    assert_eq!(
        answer(
            &state,
            "checkDocumentDirty",
            Some(r#"{"filePath":"c:\\w\\a.rs","extra":1}"#)
        ),
        r#"{"success":true,"filePath":"C:/w/a.rs","isDirty":true,"isUntitled":false}"#
    );
    assert_eq!(
        answer(
            &state,
            "checkDocumentDirty",
            Some(r#"{"filePath":"C:\\w\\b.rs"}"#)
        ),
        r#"{"success":false,"message":"Document not open: C:/w/b.rs"}"#
    );
    assert_eq!(
        planned(&state, "checkDocumentDirty", Some("{}")),
        ToolPlan::InvalidArguments("missing required argument: filePath".into())
    );
    assert_eq!(
        planned(&state, "checkDocumentDirty", Some(r#"{"filePath":["/a"]}"#)),
        ToolPlan::InvalidArguments("argument filePath: expected a string, got an array".into())
    );
}
