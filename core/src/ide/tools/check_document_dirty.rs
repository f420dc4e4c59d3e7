//! `checkDocumentDirty {filePath}`: `{"success":true,filePath,isDirty,isUntitled}`, or
//! `{"success":false,"message":"Document not open: <path>"}`.

use std::borrow::Cow;

use super::Tool;
use crate::ide::answer::Answer;
use crate::ide::args::Args;
use crate::ide::catalog::{Param, required};
use crate::ide::outcome::Answered;
use crate::ide::path::PathStyle;
use crate::ide::plan::ToolPlan;
use crate::ide::request::{ToolOutcome, ToolRequest};
use crate::ide::state::EditorState;

pub(super) struct Spec;

/// The schema of a tool whose one argument is an open document (`saveDocument` too).
pub(super) const FILE_PATH: &[Param] = &[required(
    "filePath",
    "string",
    "Absolute path of the document",
)];

impl Tool for Spec {
    const NAME: &'static str = "checkDocumentDirty";
    const DESCRIPTION: &'static str = "Check whether an open document has unsaved changes";
    const PARAMS: &'static [Param] = FILE_PATH;
    const READ: bool = true;

    fn plan<'s>(
        args: &mut Args<'s>,
        state: &'s EditorState,
    ) -> Result<ToolPlan<Answer<'s>>, String> {
        let path = args.borrowed_path("filePath", state.path_style())?;
        Ok(ToolPlan::Reply(match state.document(&path) {
            Some(doc) => Answer::Dirty {
                path: &doc.path,
                is_dirty: doc.is_dirty,
                is_untitled: doc.is_untitled,
            },
            None => Answer::NotOpen(path),
        }))
    }

    fn pull(args: &mut Args<'_>, style: PathStyle) -> Option<Result<ToolRequest, String>> {
        Some(
            args.path("filePath", style)
                .map(|path| ToolRequest::CheckDocumentDirty { path }),
        )
    }

    /// `documentDirty`, or `documentNotOpen`.
    fn answer<'a>(
        request: &'a ToolRequest,
        outcome: &'a ToolOutcome,
        _style: PathStyle,
    ) -> Option<Answered<'a>> {
        let ToolRequest::CheckDocumentDirty { path } = request else {
            return None;
        };
        Some(Answered::Read(match outcome {
            ToolOutcome::DocumentDirty {
                is_dirty,
                is_untitled,
            } => Answer::Dirty {
                path,
                is_dirty: *is_dirty,
                is_untitled: *is_untitled,
            },
            ToolOutcome::DocumentNotOpen => Answer::NotOpen(Cow::Borrowed(path)),
            _ => return None,
        }))
    }
}
