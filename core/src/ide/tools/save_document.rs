//! `saveDocument {filePath}`: the editor saves the open document; a document that is not
//! open is answered at once.

use std::borrow::Cow;

use super::Tool;
use crate::ide::answer::Answer;
use crate::ide::args::Args;
use crate::ide::catalog::Param;
use crate::ide::outcome::Answered;
use crate::ide::path::PathStyle;
use crate::ide::plan::ToolPlan;
use crate::ide::request::{ToolOutcome, ToolRequest};
use crate::ide::result::ToolResult;
use crate::ide::state::EditorState;

pub(super) struct Spec;

/// The answer to `documentSaved`, as serde_json writes it (the tests hold it to its serde
/// form).
fn saved(path: &str) -> String {
    let mut out = Vec::with_capacity(96 + path.len());
    out.extend_from_slice(br#"{"success":true,"filePath":"#);
    crate::json::push_string(&mut out, path);
    out.extend_from_slice(br#","saved":true,"message":"Document saved successfully"}"#);
    // Escaping cuts and joins only at ASCII bytes: the text stays UTF-8, nothing is lost.
    String::from_utf8_lossy(&out).into_owned()
}

impl Tool for Spec {
    const NAME: &'static str = "saveDocument";
    const DESCRIPTION: &'static str = "Save an open document";
    const PARAMS: &'static [Param] = super::check_document_dirty::FILE_PATH;

    /// `{"success":false,"message":"Document not open: <path>"}` at once for a document the
    /// state does not hold open.
    fn plan<'s>(
        args: &mut Args<'s>,
        state: &'s EditorState,
    ) -> Result<ToolPlan<Answer<'s>>, String> {
        let path = args.path("filePath", state.path_style())?;
        Ok(if state.document(&path).is_none() {
            ToolPlan::Reply(Answer::NotOpen(Cow::Owned(path)))
        } else {
            ToolPlan::Request(ToolRequest::SaveDocument { path })
        })
    }

    /// `documentSaved`: JSON `{"success":true,"filePath","saved":true,"message":"Document
    /// saved successfully"}`.
    fn answer<'a>(
        request: &'a ToolRequest,
        outcome: &'a ToolOutcome,
        _style: PathStyle,
    ) -> Option<Answered<'a>> {
        let (ToolRequest::SaveDocument { path }, ToolOutcome::DocumentSaved) = (request, outcome)
        else {
            return None;
        };
        Some(Answered::Tool(ToolResult::text(saved(path))))
    }
}

#[cfg(test)]
mod tests {
    use serde::Serialize;

    /// The answer to `documentSaved`.
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Saved<'a> {
        success: bool,
        file_path: &'a str,
        saved: bool,
        message: &'a str,
    }

    #[test]
    fn the_answer_is_its_serde_form() {
        for path in ["/w/a.rs", "/w/\"q\"\\é\u{1}"] {
            assert_eq!(
                super::saved(path),
                serde_json::to_string(&Saved {
                    success: true,
                    file_path: path,
                    saved: true,
                    message: "Document saved successfully",
                })
                .unwrap()
            );
        }
    }
}
