//! The read tools, answered from [`EditorState`] with no round trip to the editor
//! (docs/protocol.md §4). Every answer is one text item holding compact JSON, an [`Answer`]
//! borrowed from the state and written straight into the reply.
//!
//! A read pulled from the editor ([`super::pull`]) is answered with the same [`Answer`]s, so
//! it is written by the same code, to the same bytes, as one answered from the state.

use std::borrow::Cow;

use super::answer::{Answer, DiagnosticFiles, TabFacts};
use super::args::Args;
use super::catalog::ToolName;
use super::path::{
    PathStyle, normalize_path, path_from_uri, path_from_uri_undecoded, posix_drive_fallback,
};
use super::state::EditorState;

/// The `uri` argument of `getDiagnostics`, if any, as its raw and its percent-decoded path,
/// both normalized.
pub(crate) fn diagnostics_uri(
    args: &mut Args,
    style: PathStyle,
) -> Result<Option<(String, String)>, String> {
    let Some(uri) = args.optional_string("uri")? else {
        return Ok(None);
    };
    let (Some(raw), Some(decoded)) = (
        path_from_uri_undecoded(&uri, style),
        path_from_uri(&uri, style),
    ) else {
        return Err(String::from("argument uri: expected a file:// URI"));
    };
    let raw = normalize_path(raw, style).into_owned();
    let decoded = normalize_path(&decoded, style).into_owned();
    Ok(Some((raw, decoded)))
}

/// `getDiagnostics {uri?}`: `[{uri, diagnostics:[..]}]`. With `uri`, exactly that file (with
/// an empty list when it has none); the raw spelling is looked up before the percent-decoded
/// one, and on the POSIX style both before the drive path `/C:/x` stands for (`C:/x`, what
/// an editor on Windows that kept the default style stores). Without, every file that has diagnostics, ordered by path.
pub(crate) fn get_diagnostics<'s>(
    args: &mut Args,
    state: &'s EditorState,
) -> Result<Answer<'s>, String> {
    let all = state.diagnostics();
    let Some((raw, decoded)) = diagnostics_uri(args, state.path_style())? else {
        return Ok(Answer::Diagnostics(DiagnosticFiles::All(all)));
    };
    let drive = posix_drive_fallback(&decoded)
        .filter(|_| state.path_style() == PathStyle::Posix)
        .and_then(|drive| all.get(drive).map(|found| (drive.to_owned(), found)));
    let file = match (all.get(&raw), all.get(&decoded), drive) {
        (Some(found), _, _) => (Cow::Owned(raw), found),
        (None, Some(found), _) => (Cow::Owned(decoded), found),
        (None, None, Some((drive, found))) => (Cow::Owned(drive), found),
        (None, None, None) => (Cow::Owned(decoded), Default::default()),
    };
    Ok(Answer::Diagnostics(DiagnosticFiles::Listed(vec![file])))
}

/// The answer of `getCurrentSelection` or `getLatestSelection`, borrowed from the state.
#[derive(Debug)]
pub struct SelectionResult<'s>(Answer<'s>);

/// For the tools that read nothing but the selection, `getCurrentSelection` and
/// `getLatestSelection`: their answer borrowed from `state`, to be written with
/// [`SelectionResult::write`] without copying the state (steady-state traffic allocates
/// nothing). `None` for every other tool. Arguments are not read: the caller has checked that
/// they are an object or absent, as decoding a `tools/call` does; with anything else,
/// [`plan_tool_call`](super::plan_tool_call) refuses them.
pub fn selection_result(tool: ToolName, state: &EditorState) -> Option<SelectionResult<'_>> {
    match tool {
        ToolName::GetCurrentSelection => Some(SelectionResult(get_current_selection(state))),
        ToolName::GetLatestSelection => Some(SelectionResult(get_latest_selection(state))),
        _ => None,
    }
}

impl SelectionResult<'_> {
    /// Appends the tool result to `out`: the same bytes as the [`ToolResult`](super::ToolResult)
    /// that [`plan_tool_call`](super::plan_tool_call) answers with for the same tool and state.
    pub fn write(&self, out: &mut Vec<u8>) {
        self.0.write_result(out);
    }
}

/// `getCurrentSelection`'s answer when no editor is active.
pub(crate) const NO_ACTIVE_EDITOR: &str = "No active editor found";
/// `getLatestSelection`'s answer when no selection was ever made.
pub(crate) const NO_SELECTION: &str = "No selection available";

/// `getCurrentSelection`: the active editor's selection (empty at 0:0 when none was seen),
/// or `{"success":false,"message":"No active editor found"}`.
pub(crate) fn get_current_selection(state: &EditorState) -> Answer<'_> {
    match state.selection_notification() {
        Some(selection) => Answer::Selection(selection),
        None => Answer::Failure(NO_ACTIVE_EDITOR),
    }
}

/// `getLatestSelection`: the last selection seen, even in an editor closed since, or
/// `{"success":false,"message":"No selection available"}`.
pub(crate) fn get_latest_selection(state: &EditorState) -> Answer<'_> {
    match state.latest_selection() {
        Some(selection) => Answer::Selection(Cow::Borrowed(selection)),
        None => Answer::Failure(NO_SELECTION),
    }
}

/// `getOpenEditors`: the state's documents in tab order.
pub(crate) fn get_open_editors(state: &EditorState) -> Answer<'_> {
    let active = state.active_path();
    Answer::Tabs(
        state
            .documents()
            .iter()
            .map(|doc| TabFacts {
                path: Cow::Borrowed(&doc.path),
                language_id: doc.language_id.as_deref(),
                is_dirty: doc.is_dirty,
                is_untitled: doc.is_untitled,
                is_active: active == Some(doc.path.as_str()),
            })
            .collect(),
    )
}

/// `getWorkspaceFolders`: the state's folders.
pub(crate) fn get_workspace_folders(state: &EditorState) -> Answer<'_> {
    Answer::Folders(Cow::Borrowed(state.workspace_folders()))
}

/// `checkDocumentDirty {filePath}`: `{"success":true,filePath,isDirty,isUntitled}`, or
/// `{"success":false,"message":"Document not open: <path>"}`.
pub(crate) fn check_document_dirty<'s>(
    args: &mut Args<'s>,
    state: &'s EditorState,
) -> Result<Answer<'s>, String> {
    let path = args.borrowed_path("filePath", state.path_style())?;
    Ok(match state.document(&path) {
        Some(doc) => Answer::Dirty {
            path: &doc.path,
            is_dirty: doc.is_dirty,
            is_untitled: doc.is_untitled,
        },
        None => Answer::NotOpen(path),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::value::RawValue;

    use crate::ide::{
        Diagnostic, EditorEvent, PathStyle, Position, Range, Severity, ToolPlan, ToolResult,
        plan_answer, plan_tool_call,
    };

    use super::*;

    fn plan(state: &EditorState, name: &str, arguments: Option<&str>) -> ToolPlan {
        let raw = arguments.map(|a| RawValue::from_string(a.to_owned()).unwrap());
        let tool = ToolName::parse(name).unwrap_or_else(|| panic!("no tool {name}"));
        plan_tool_call(tool, raw.as_deref(), state, false)
    }

    /// The JSON text inside the answer's only content item.
    fn answer(state: &EditorState, name: &str, arguments: Option<&str>) -> String {
        match plan(state, name, arguments) {
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
                match plan_answer(tool, raw.as_deref(), state, false) {
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
            plan(&state, "getDiagnostics", Some(r#"{"uri":"/w/b.rs"}"#)),
            ToolPlan::InvalidArguments("argument uri: expected a file:// URI".into())
        );
        assert_eq!(
            plan(&state, "getDiagnostics", Some(r#"{"uri":"https://x/y"}"#)),
            ToolPlan::InvalidArguments("argument uri: expected a file:// URI".into())
        );
        assert_eq!(
            plan(&state, "getDiagnostics", Some(r#"{"uri":5}"#)),
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
            plan(&state, "checkDocumentDirty", Some("{}")),
            ToolPlan::InvalidArguments("missing required argument: filePath".into())
        );
        assert_eq!(
            plan(&state, "checkDocumentDirty", Some(r#"{"filePath":["/a"]}"#)),
            ToolPlan::InvalidArguments("argument filePath: expected a string, got an array".into())
        );
    }
}
