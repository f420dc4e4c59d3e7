//! `openDiff {old_file_path, new_file_path, new_file_contents, tab_name}`: the editor shows
//! the proposed contents as a diff and the call blocks until the user accepts or rejects it.

use super::Tool;
use crate::ide::answer::Answer;
use crate::ide::args::Args;
use crate::ide::catalog::{Param, required};
use crate::ide::outcome::Answered;
use crate::ide::path::PathStyle;
use crate::ide::plan::ToolPlan;
use crate::ide::request::{ToolOutcome, ToolRequest};
use crate::ide::result::ToolResult;
use crate::ide::state::EditorState;

pub(super) struct Spec;

impl Tool for Spec {
    const NAME: &'static str = "openDiff";
    const DESCRIPTION: &'static str = "Show a proposed change to a file as a diff and wait until the user accepts or rejects it";
    const PARAMS: &'static [Param] = &[
        required(
            "old_file_path",
            "string",
            "Absolute path of the current file",
        ),
        required(
            "new_file_path",
            "string",
            "Absolute path the new contents are for",
        ),
        required(
            "new_file_contents",
            "string",
            "The complete proposed contents of the file",
        ),
        required("tab_name", "string", "Unique name of the diff tab"),
    ];

    /// All four arguments are required strings; the paths non-empty.
    fn plan<'s>(
        args: &mut Args<'s>,
        state: &'s EditorState,
    ) -> Result<ToolPlan<Answer<'s>>, String> {
        let style = state.path_style();
        Ok(ToolPlan::Request(ToolRequest::OpenDiff {
            old_file_path: args.path("old_file_path", style)?,
            new_file_path: args.path("new_file_path", style)?,
            new_file_contents: args.string("new_file_contents")?,
            tab_name: args.string("tab_name")?,
        }))
    }

    /// `diffSaved`: `FILE_SAVED` then the final text; `diffRejected`: `DIFF_REJECTED` then
    /// the tab name (two items each).
    fn answer<'a>(
        request: &'a ToolRequest,
        outcome: &'a ToolOutcome,
        _style: PathStyle,
    ) -> Option<Answered<'a>> {
        let ToolRequest::OpenDiff { tab_name, .. } = request else {
            return None;
        };
        let texts = match outcome {
            // PROTOCOL §4: accept MUST carry the final text as a second item, or the CLI
            // abandons the IDE diff.
            ToolOutcome::DiffSaved { final_text } => {
                vec![String::from("FILE_SAVED"), final_text.clone()]
            }
            ToolOutcome::DiffRejected => vec![String::from("DIFF_REJECTED"), tab_name.clone()],
            _ => return None,
        };
        Some(Answered::Tool(ToolResult {
            texts,
            is_error: false,
        }))
    }
}
