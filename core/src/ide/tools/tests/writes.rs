//! The write tools' arguments and the JSON forms of requests and outcomes.

use serde_json::value::RawValue;

use crate::ide::{
    EditorEvent, EditorState, PathStyle, ToolName, ToolOutcome, ToolPlan, ToolRequest, ToolResult,
    plan_tool_call,
};

#[test]
fn the_kept_copy_answers_exactly_as_the_request() {
    let requests = [
        ToolRequest::OpenDiff {
            old_file_path: "/w/a.rs".into(),
            new_file_path: "/w/a.rs".into(),
            new_file_contents: "fn main() {}\n".repeat(1000),
            dirty: true,
            tab_name: "✻ [Claude Code] a.rs (1) ⧉".into(),
        },
        ToolRequest::OpenFile {
            path: "/w/a.rs".into(),
            preview: false,
            start_text: Some("fn".into()),
            end_text: None,
            select_to_end_of_line: false,
            make_frontmost: false,
        },
        ToolRequest::SaveDocument {
            path: "/w/a.rs".into(),
        },
        ToolRequest::ExecuteCode { code: "1+1".into() },
    ];
    let outcomes = [
        ToolOutcome::DiffSaved {
            final_text: "x".into(),
            original_text: None,
        },
        ToolOutcome::DiffRejected,
        ToolOutcome::FileOpened {
            language_id: None,
            line_count: Some(3),
        },
        ToolOutcome::DocumentSaved,
        ToolOutcome::CodeExecuted {
            outputs: vec!["2".into()],
        },
        ToolOutcome::Failed {
            message: "no".into(),
        },
    ];
    for request in &requests {
        let kept = request.for_answering();
        assert_eq!(kept.tool(), request.tool());
        for outcome in &outcomes {
            assert_eq!(
                crate::ide::format_outcome(&kept, outcome, PathStyle::Posix),
                crate::ide::format_outcome(request, outcome, PathStyle::Posix)
            );
        }
        assert_eq!(
            crate::ide::deadline_outcome(&kept, 7),
            crate::ide::deadline_outcome(request, 7)
        );
    }
    let ToolRequest::OpenDiff {
        new_file_contents, ..
    } = requests[0].for_answering()
    else {
        panic!("not a diff");
    };
    assert!(new_file_contents.is_empty());
}

fn plan_in(state: &EditorState, name: &str, arguments: &str) -> ToolPlan {
    let raw = RawValue::from_string(arguments.to_owned()).unwrap();
    let tool = ToolName::parse(name).unwrap_or_else(|| panic!("no tool {name}"));
    plan_tool_call(tool, Some(&raw), state, false)
}

fn plan(style: PathStyle, name: &str, arguments: &str) -> ToolPlan {
    plan_in(&EditorState::new(style, vec![]), name, arguments)
}

fn invalid(message: &str) -> ToolPlan {
    ToolPlan::InvalidArguments(message.into())
}

#[test]
fn open_file_takes_defaults_and_normalizes_the_path() {
    assert_eq!(
        plan(
            PathStyle::Windows,
            "openFile",
            r#"{"filePath":"c:\\w\\a.rs"}"#
        ),
        ToolPlan::Request(ToolRequest::OpenFile {
            path: "C:/w/a.rs".into(),
            preview: false,
            start_text: None,
            end_text: None,
            select_to_end_of_line: false,
            make_frontmost: true,
        })
    );
}

#[test]
fn open_file_passes_every_option() {
    let args = r#"{"filePath":"/w/a\\b.rs","preview":true,"startText":"fn","endText":"}","selectToEndOfLine":true,"makeFrontmost":false,"startLine":3}"#;
    assert_eq!(
        plan(PathStyle::Posix, "openFile", args),
        ToolPlan::Request(ToolRequest::OpenFile {
            path: r"/w/a\b.rs".into(),
            preview: true,
            start_text: Some("fn".into()),
            end_text: Some("}".into()),
            select_to_end_of_line: true,
            make_frontmost: false,
        })
    );
    let empty_texts = r#"{"filePath":"/w/a.rs","startText":"","endText":null}"#;
    let ToolPlan::Request(ToolRequest::OpenFile {
        start_text,
        end_text,
        ..
    }) = plan(PathStyle::Posix, "openFile", empty_texts)
    else {
        panic!("not an openFile request");
    };
    assert_eq!((start_text, end_text), (None, None));
}

#[test]
fn open_file_refuses_bad_arguments() {
    let cases = [
        ("{}", "missing required argument: filePath"),
        (r#"{"filePath":""}"#, "argument filePath: must not be empty"),
        (
            r#"{"filePath":1}"#,
            "argument filePath: expected a string, got a number",
        ),
        (
            r#"{"filePath":"/a","preview":"yes"}"#,
            "argument preview: expected a boolean, got a string",
        ),
        (
            r#"{"filePath":"/a","startText":false}"#,
            "argument startText: expected a string, got a boolean",
        ),
        (
            r#"{"filePath":"/a","endText":[]}"#,
            "argument endText: expected a string, got an array",
        ),
        (
            r#"{"filePath":"/a","selectToEndOfLine":0}"#,
            "argument selectToEndOfLine: expected a boolean, got a number",
        ),
        (
            r#"{"filePath":"/a","makeFrontmost":{}}"#,
            "argument makeFrontmost: expected a boolean, got an object",
        ),
    ];
    for (args, message) in cases {
        assert_eq!(
            plan(PathStyle::Posix, "openFile", args),
            invalid(message),
            "{args}"
        );
    }
}

#[test]
fn open_diff_needs_all_four_strings() {
    let args = r#"{"old_file_path":"c:\\w\\a.rs","new_file_path":"C:/w/a.rs","new_file_contents":"","tab_name":"t"}"#;
    assert_eq!(
        plan(PathStyle::Windows, "openDiff", args),
        ToolPlan::Request(ToolRequest::OpenDiff {
            old_file_path: "C:/w/a.rs".into(),
            new_file_path: "C:/w/a.rs".into(),
            new_file_contents: String::new(),
            tab_name: "t".into(),
            dirty: false,
        })
    );
    let full = [
        ("old_file_path", r#""/a""#),
        ("new_file_path", r#""/a""#),
        ("new_file_contents", r#""x""#),
        ("tab_name", r#""t""#),
    ];
    for (left_out, _) in full {
        let args: Vec<String> = full
            .iter()
            .filter(|(k, _)| *k != left_out)
            .map(|(k, v)| format!(r#""{k}":{v}"#))
            .collect();
        let args = format!("{{{}}}", args.join(","));
        assert_eq!(
            plan(PathStyle::Posix, "openDiff", &args),
            invalid(&format!("missing required argument: {left_out}"))
        );
        let wrong = args.replacen('{', &format!(r#"{{"{left_out}":7,"#), 1);
        assert_eq!(
            plan(PathStyle::Posix, "openDiff", &wrong),
            invalid(&format!(
                "argument {left_out}: expected a string, got a number"
            ))
        );
    }
    let empty_path =
        r#"{"old_file_path":"/a","new_file_path":"","new_file_contents":"x","tab_name":"t"}"#;
    assert_eq!(
        plan(PathStyle::Posix, "openDiff", empty_path),
        invalid("argument new_file_path: must not be empty")
    );
}

#[test]
fn save_document_requests_only_open_documents() {
    let mut state = EditorState::new(PathStyle::Windows, vec![]);
    let _ = state.apply(&EditorEvent::DocumentOpened {
        path: r"C:\w\a.rs".into(),
        language_id: None,
        is_dirty: true,
        is_untitled: false,
    });
    assert_eq!(
        plan_in(&state, "saveDocument", r#"{"filePath":"c:/w/a.rs"}"#),
        ToolPlan::Request(ToolRequest::SaveDocument {
            path: "C:/w/a.rs".into()
        })
    );
    assert_eq!(
        plan_in(&state, "saveDocument", r#"{"filePath":"c:\\w\\b.rs"}"#),
        ToolPlan::Reply(ToolResult::text(
            r#"{"success":false,"message":"Document not open: C:/w/b.rs"}"#
        ))
    );
    assert_eq!(
        plan_in(&state, "saveDocument", "{}"),
        invalid("missing required argument: filePath")
    );
}

fn request_round_trip(json: &str) -> ToolRequest {
    let request: ToolRequest = serde_json::from_str(json).unwrap();
    assert_eq!(serde_json::to_string(&request).unwrap(), json);
    request
}

fn outcome_round_trip(json: &str) -> ToolOutcome {
    let outcome: ToolOutcome = serde_json::from_str(json).unwrap();
    assert_eq!(serde_json::to_string(&outcome).unwrap(), json);
    outcome
}

#[test]
fn requests_round_trip_through_their_documented_json() {
    let open = request_round_trip(
        r#"{"tool":"openFile","path":"/w/a.rs","preview":false,"startText":"fn main","endText":"}","selectToEndOfLine":false,"makeFrontmost":true}"#,
    );
    assert_eq!(open.tool(), ToolName::OpenFile);
    let diff = request_round_trip(
        r#"{"tool":"openDiff","oldFilePath":"/w/a.rs","newFilePath":"/w/a.rs","newFileContents":"fn main() {}\n","tabName":"✻ [Claude Code] a.rs (1a2b3c) ⧉"}"#,
    );
    assert_eq!(diff.tool(), ToolName::OpenDiff);
    let save = request_round_trip(r#"{"tool":"saveDocument","path":"/w/a.rs"}"#);
    assert_eq!(save.tool(), ToolName::SaveDocument);
    let exec = request_round_trip(r#"{"tool":"executeCode","code":"print(1)"}"#);
    assert_eq!(exec.tool(), ToolName::ExecuteCode);
}

#[test]
fn open_file_request_defaults_on_input() {
    let open: ToolRequest =
        serde_json::from_str(r#"{"tool":"openFile","path":"/w/a.rs"}"#).unwrap();
    assert_eq!(
        open,
        ToolRequest::OpenFile {
            path: "/w/a.rs".into(),
            preview: false,
            start_text: None,
            end_text: None,
            select_to_end_of_line: false,
            make_frontmost: true,
        }
    );
    assert_eq!(
        serde_json::to_string(&open).unwrap(),
        r#"{"tool":"openFile","path":"/w/a.rs","preview":false,"selectToEndOfLine":false,"makeFrontmost":true}"#
    );
}

#[test]
fn outcomes_round_trip_through_their_documented_json() {
    let all = [
        r#"{"outcome":"fileOpened","languageId":"rust","lineCount":12}"#,
        r#"{"outcome":"diffSaved","finalText":"fn main() {}\n"}"#,
        r#"{"outcome":"diffRejected"}"#,
        r#"{"outcome":"documentSaved"}"#,
        r#"{"outcome":"codeExecuted","outputs":["1"]}"#,
        r#"{"outcome":"failed","message":"permission denied"}"#,
    ];
    for json in all {
        let outcome = outcome_round_trip(json);
        assert!(json.contains(&format!(r#""outcome":"{}""#, outcome.name())));
    }
    assert_eq!(
        outcome_round_trip(r#"{"outcome":"fileOpened"}"#),
        ToolOutcome::FileOpened {
            language_id: None,
            line_count: None
        }
    );
}

#[test]
fn malformed_requests_and_outcomes_are_refused() {
    for json in [
        r#"{"tool":"closeTab","tabName":"x"}"#,
        r#"{"tool":"openDiff","oldFilePath":"/a","newFilePath":"/a","tabName":"t"}"#,
        r#"{"path":"/a"}"#,
    ] {
        assert!(serde_json::from_str::<ToolRequest>(json).is_err(), "{json}");
    }
    for json in [
        r#"{"outcome":"tabClosed"}"#,
        r#"{"outcome":"diffSaved"}"#,
        r#"{"outcome":"fileOpened","lineCount":-1}"#,
    ] {
        assert!(serde_json::from_str::<ToolOutcome>(json).is_err(), "{json}");
    }
}
