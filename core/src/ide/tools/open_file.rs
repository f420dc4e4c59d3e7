//! `openFile {filePath, preview?, startText?, endText?, selectToEndOfLine?, makeFrontmost?}`:
//! the editor opens the file, selecting a range when asked.

use super::Tool;
use crate::ide::answer::{Answer, UNKNOWN_LANGUAGE};
use crate::ide::args::Args;
use crate::ide::catalog::{Param, param, required};
use crate::ide::outcome::Answered;
use crate::ide::path::PathStyle;
use crate::ide::plan::ToolPlan;
use crate::ide::request::{ToolOutcome, ToolRequest};
use crate::ide::result::ToolResult;
use crate::ide::state::EditorState;

pub(super) struct Spec;

/// The answer with `makeFrontmost: false`:
/// `{"success":true,"filePath","languageId","lineCount"}` (`lineCount` `null` when unknown),
/// as serde_json writes it (the tests hold it to its serde form).
fn opened_in_background(path: &str, language_id: &str, line_count: Option<u32>) -> String {
    let mut out = Vec::with_capacity(64 + path.len());
    out.extend_from_slice(br#"{"success":true,"filePath":"#);
    crate::json::push_string(&mut out, path);
    out.extend_from_slice(br#","languageId":"#);
    crate::json::push_string(&mut out, language_id);
    out.extend_from_slice(br#","lineCount":"#);
    match line_count {
        Some(count) => crate::json::push_u64(&mut out, count.into()),
        None => out.extend_from_slice(b"null"),
    }
    out.push(b'}');
    // Escaping cuts and joins only at ASCII bytes: the text stays UTF-8, nothing is lost.
    String::from_utf8_lossy(&out).into_owned()
}

impl Tool for Spec {
    const NAME: &'static str = "openFile";
    const DESCRIPTION: &'static str =
        "Open a file in the editor, optionally selecting a range of its text";
    const PARAMS: &'static [Param] = &[
        required("filePath", "string", "Absolute path of the file to open"),
        param(
            "preview",
            "boolean",
            "Open it as a preview tab (default false)",
        ),
        param(
            "startText",
            "string",
            "Select from the first occurrence of this text",
        ),
        param(
            "endText",
            "string",
            "Extend the selection to the end of the first occurrence of this text after startText",
        ),
        param(
            "selectToEndOfLine",
            "boolean",
            "Extend the selection to the end of the line where it ends (default false)",
        ),
        param(
            "makeFrontmost",
            "boolean",
            "Make the file the active editor (default true); when false the answer is a JSON object describing the file",
        ),
    ];

    /// An empty `startText`/`endText` counts as absent.
    fn plan<'s>(
        args: &mut Args<'s>,
        state: &'s EditorState,
    ) -> Result<ToolPlan<Answer<'s>>, String> {
        let non_empty = |s: Option<String>| s.filter(|s| !s.is_empty());
        Ok(ToolPlan::Request(ToolRequest::OpenFile {
            path: args.path("filePath", state.path_style())?,
            preview: args.optional_bool("preview")?.unwrap_or(false),
            start_text: non_empty(args.optional_string("startText")?),
            end_text: non_empty(args.optional_string("endText")?),
            select_to_end_of_line: args.optional_bool("selectToEndOfLine")?.unwrap_or(false),
            make_frontmost: args.optional_bool("makeFrontmost")?.unwrap_or(true),
        }))
    }

    /// `fileOpened`: text `Opened file: <path>`; with `makeFrontmost: false` JSON
    /// `{"success":true,"filePath","languageId","lineCount"}` (`languageId` `plaintext` and
    /// `lineCount` `null` when unknown).
    fn answer<'a>(
        request: &'a ToolRequest,
        outcome: &'a ToolOutcome,
        _style: PathStyle,
    ) -> Option<Answered<'a>> {
        let (
            ToolRequest::OpenFile {
                path,
                make_frontmost,
                ..
            },
            ToolOutcome::FileOpened {
                language_id,
                line_count,
            },
        ) = (request, outcome)
        else {
            return None;
        };
        Some(Answered::Tool(if *make_frontmost {
            ToolResult::text(format!("Opened file: {path}"))
        } else {
            ToolResult::text(opened_in_background(
                path,
                language_id.as_deref().unwrap_or(UNKNOWN_LANGUAGE),
                *line_count,
            ))
        }))
    }
}

#[cfg(test)]
mod tests {
    use serde::Serialize;

    /// The answer with `makeFrontmost: false`.
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct OpenedInBackground<'a> {
        success: bool,
        file_path: &'a str,
        language_id: &'a str,
        line_count: Option<u32>,
    }

    #[test]
    fn the_background_answer_is_its_serde_form() {
        for (path, language_id, line_count) in [
            ("/w/a.rs", "rust", Some(3)),
            ("/w/\"q\"\\é\u{1}", "unknown", None),
        ] {
            assert_eq!(
                super::opened_in_background(path, language_id, line_count),
                serde_json::to_string(&OpenedInBackground {
                    success: true,
                    file_path: path,
                    language_id,
                    line_count,
                })
                .unwrap()
            );
        }
    }
}
