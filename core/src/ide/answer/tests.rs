//! Every answer kind against serde_json: the answer shapes as serde derives them (the shapes
//! the read tools used to serialize) are the oracle, byte for byte, for the plain JSON text
//! and for the tool result written with that text escaped into it.

use proptest::prelude::*;
use serde::Serialize;
use serde_json::Value;

use super::*;
use crate::ide::DiagnosticCode;
use crate::ide::event::{Position, Range};
use crate::ide::file_uri;

#[derive(Serialize)]
struct Failure<'a> {
    success: bool,
    message: &'a str,
}

#[derive(Serialize)]
struct UriDiagnostics<'a> {
    uri: String,
    diagnostics: &'a [Diagnostic],
}

#[derive(Serialize)]
struct SelectionAnswer<'a> {
    success: bool,
    #[serde(flatten)]
    selection: &'a SelectionChanged,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Tab<'a> {
    uri: String,
    is_active: bool,
    label: &'a str,
    file_name: &'a str,
    language_id: &'a str,
    is_dirty: bool,
    is_untitled: bool,
}

#[derive(Serialize)]
struct Tabs<'a> {
    tabs: Vec<Tab<'a>>,
}

#[derive(Serialize)]
struct Folder<'a> {
    name: &'a str,
    uri: String,
    path: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Folders<'a> {
    success: bool,
    folders: Vec<Folder<'a>>,
    root_path: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DirtyAnswer<'a> {
    success: bool,
    file_path: &'a str,
    is_dirty: bool,
    is_untitled: bool,
}

/// `answer` gives what serde_json gives for `shape`: as a tool result, and written into a
/// reply.
fn same_as_serde<T: Serialize>(answer: &Answer<'_>, shape: &T) -> Result<(), TestCaseError> {
    let expected = ToolResult::json(shape);
    prop_assert_eq!(&answer.to_tool_result(), &expected);
    let mut written = b"[1,".to_vec();
    answer.write_result(&mut written);
    let expected = format!("[1,{}", serde_json::to_string(&expected).unwrap());
    prop_assert_eq!(String::from_utf8(written).unwrap(), expected);
    Ok(())
}

/// Text with everything JSON escapes, and what it does not: `/`, DEL, non-ASCII, U+2028.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[\\x00-\\x1f\\x7f\"\\\\/a é✻\u{2028}\u{2029}]{0,24}",
    ]
}

/// A normalized path: POSIX, a drive, or neither (an untitled document's name).
fn path() -> impl Strategy<Value = String> {
    (0..3u8, text()).prop_map(|(kind, rest)| match kind {
        0 => format!("/{rest}"),
        1 => format!("C:/{rest}"),
        _ => rest,
    })
}

fn range() -> impl Strategy<Value = Range> {
    (any::<u32>(), any::<u32>(), 0..3u32, 0..3u32).prop_map(|(a, b, c, d)| Range {
        start: Position {
            line: a,
            character: c,
        },
        end: Position {
            line: b,
            character: d,
        },
    })
}

/// Any diagnostic `code`: what sources send (strings, integers) and any other JSON value.
/// A code as serde reads any JSON value but `null` (an odd one kept as serde_json's text).
fn code() -> impl Strategy<Value = DiagnosticCode> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        text().prop_map(Value::from),
    ];
    leaf.prop_recursive(2, 12, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::from),
            prop::collection::btree_map(text(), inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
    .prop_filter_map("null is no code", |value| {
        serde_json::from_value(value).ok()
    })
}

fn diagnostic() -> impl Strategy<Value = Diagnostic> {
    let severity = prop_oneof![
        Just(Severity::Error),
        Just(Severity::Warning),
        Just(Severity::Info),
        Just(Severity::Hint),
    ];
    (
        text(),
        severity,
        range(),
        proptest::option::of(text()),
        proptest::option::of(code()),
    )
        .prop_map(|(message, severity, range, source, code)| Diagnostic {
            message,
            severity,
            range,
            source,
            code,
        })
}

proptest! {
    #[test]
    fn diagnostics_are_written_as_serde_writes_them(
        files in prop::collection::vec(
            (path(), prop::collection::vec(diagnostic(), 0..4)),
            0..4,
        ),
    ) {
        let answer = Answer::Diagnostics(DiagnosticFiles::Listed(
            files.iter().map(|(p, d)| (Cow::Borrowed(p.as_str()), d.as_slice())).collect(),
        ));
        let shape: Vec<UriDiagnostics> = files
            .iter()
            .map(|(p, d)| UriDiagnostics { uri: file_uri(p), diagnostics: d })
            .collect();
        same_as_serde(&answer, &shape)?;
    }

    #[test]
    fn a_selection_is_written_as_serde_writes_it(
        path in path(),
        text in text(),
        range in range(),
    ) {
        let selection = SelectionChanged::new(&path, &text, range);
        let shape = SelectionAnswer { success: true, selection: &selection };
        same_as_serde(&Answer::Selection(Cow::Borrowed(&selection)), &shape)?;
    }

    #[test]
    fn a_document_not_open_is_written_as_serde_writes_it(path in path()) {
        let message = format!("Document not open: {path}");
        let shape = Failure { success: false, message: &message };
        same_as_serde(&Answer::NotOpen(Cow::Borrowed(&path)), &shape)?;
    }

    #[test]
    fn tabs_are_written_as_serde_writes_them(
        tabs in prop::collection::vec(
            (path(), proptest::option::of(text()), any::<[bool; 3]>()),
            0..4,
        ),
    ) {
        let answer = Answer::Tabs(
            tabs.iter()
                .map(|(path, language_id, [is_dirty, is_untitled, is_active])| TabFacts {
                    path: Cow::Borrowed(path),
                    language_id: language_id.as_deref(),
                    is_dirty: *is_dirty,
                    is_untitled: *is_untitled,
                    is_active: *is_active,
                })
                .collect(),
        );
        let shape = Tabs {
            tabs: tabs
                .iter()
                .map(|(path, language_id, [is_dirty, is_untitled, is_active])| Tab {
                    uri: file_uri(path),
                    is_active: *is_active,
                    label: file_name(path),
                    file_name: path,
                    language_id: language_id.as_deref().unwrap_or(UNKNOWN_LANGUAGE),
                    is_dirty: *is_dirty,
                    is_untitled: *is_untitled,
                })
                .collect(),
        };
        same_as_serde(&answer, &shape)?;
    }

    #[test]
    fn folders_are_written_as_serde_writes_them(
        paths in prop::collection::vec(path(), 0..4),
    ) {
        let shape = Folders {
            success: true,
            folders: paths
                .iter()
                .map(|path| Folder { name: file_name(path), uri: file_uri(path), path })
                .collect(),
            root_path: paths.first().map(String::as_str),
        };
        same_as_serde(&Answer::Folders(Cow::Borrowed(&paths)), &shape)?;
    }

    #[test]
    fn a_dirty_flag_is_written_as_serde_writes_it(
        path in path(),
        is_dirty in any::<bool>(),
        is_untitled in any::<bool>(),
    ) {
        let shape = DirtyAnswer { success: true, file_path: &path, is_dirty, is_untitled };
        let answer = Answer::Dirty { path: &path, is_dirty, is_untitled };
        same_as_serde(&answer, &shape)?;
    }
}

#[test]
fn failures_are_written_as_serde_writes_them() {
    for message in ["No active editor found", "a \"quoted\"\\\n message"] {
        let shape = Failure {
            success: false,
            message,
        };
        same_as_serde(&Answer::Failure(message), &shape).unwrap();
    }
}

#[test]
fn structure_is_escaped_once_and_strings_twice() {
    let answer = Answer::Dirty {
        path: "/w/\"q\"\\\n.rs",
        is_dirty: true,
        is_untitled: false,
    };
    let mut out = Vec::new();
    answer.write_result(&mut out);
    assert_eq!(
        String::from_utf8(out).unwrap(),
        r#"{"content":[{"type":"text","text":"{\"success\":true,\"filePath\":\"/w/\\\"q\\\"\\\\\\n.rs\",\"isDirty\":true,\"isUntitled\":false}"}]}"#
    );
}

/// An odd code (here as the forms codec keeps it: its text as the editor gave it) is
/// written as that text, in the answer's JSON and escaped in the tool result carrying it.
#[test]
fn an_odd_code_is_written_as_the_editor_gave_it() {
    let given = r#"{"b": 1.50,"a":"\u0041\n"}"#;
    let diagnostic = Diagnostic {
        message: "m".into(),
        severity: Severity::Error,
        range: Range::default(),
        source: None,
        code: DiagnosticCode::from_json(given),
    };
    let answer = Answer::Diagnostics(DiagnosticFiles::Listed(vec![(
        Cow::Borrowed("/w/a.rs"),
        std::slice::from_ref(&diagnostic),
    )]));
    let expected = format!(
        r#"[{{"uri":"file:///w/a.rs","diagnostics":[{{"message":"m","severity":"Error","range":{{"start":{{"line":0,"character":0}},"end":{{"line":0,"character":0}}}},"code":{given}}}]}}]"#
    );
    assert_eq!(answer.to_tool_result(), ToolResult::text(expected.clone()));
    let mut written = Vec::new();
    answer.write_result(&mut written);
    let carried: Value = serde_json::from_slice(&written).unwrap();
    assert_eq!(carried["content"][0]["text"], Value::from(expected));
}
