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
use crate::ide::written::{NO_CHANGE_REASON, is_no_change};

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

    /// All four arguments are required strings; the paths non-empty. `dirty` when the
    /// editor's document `old_file_path` has unsaved changes: the CLI read the proposal's base
    /// from disk (its bundled code: `D=(await yE(v)).content` before
    /// `W_s("openDiff",{old_file_path:k,…,new_file_contents:P,…})`, `P` being `D` with the
    /// edits applied).
    fn plan<'s>(
        args: &mut Args<'s>,
        state: &'s EditorState,
    ) -> Result<ToolPlan<Answer<'s>>, String> {
        let style = state.path_style();
        let old_file_path = args.path("old_file_path", style)?;
        let dirty = state
            .document(&old_file_path)
            .is_some_and(|doc| doc.is_dirty);
        Ok(ToolPlan::Request(ToolRequest::OpenDiff {
            old_file_path,
            new_file_path: args.path("new_file_path", style)?,
            new_file_contents: args.string("new_file_contents")?,
            tab_name: args.string("tab_name")?,
            dirty,
        }))
    }

    /// `diffSaved`: `FILE_SAVED` then the final text, unless the accept changes nothing
    /// ([`is_no_change`]: the CLI would take it as "User denied via IDE"), which is answered
    /// like a refusal; `diffRejected`: `DIFF_REJECTED` then the tab name (two items each);
    /// `diffRefused`: an error result holding the reason (the CLI logs `IDE diff view failed:
    /// <reason>` and falls back to its terminal prompt: the real-CLI test
    /// `a_refused_diff_of_a_dirty_document_leaves_the_decision_to_the_terminal`).
    fn answer<'a>(
        request: &'a ToolRequest,
        outcome: &'a ToolOutcome,
        _style: PathStyle,
    ) -> Option<Answered<'a>> {
        let ToolRequest::OpenDiff {
            tab_name,
            new_file_contents,
            ..
        } = request
        else {
            return None;
        };
        let texts = match outcome {
            ToolOutcome::DiffSaved {
                final_text,
                original_text,
            } if is_no_change(original_text.as_deref(), new_file_contents, final_text) => {
                return Some(Answered::Tool(ToolResult::error(NO_CHANGE_REASON)));
            }
            // PROTOCOL §4: accept MUST carry the final text as a second item, or the CLI
            // abandons the IDE diff.
            ToolOutcome::DiffSaved { final_text, .. } => {
                vec![String::from("FILE_SAVED"), final_text.clone()]
            }
            ToolOutcome::DiffRefused { reason } => {
                return Some(Answered::Tool(ToolResult::error(reason.as_str())));
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
