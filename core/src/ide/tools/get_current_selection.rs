//! `getCurrentSelection`: the active editor's selection (empty at 0:0 when none was seen),
//! or `{"success":false,"message":"No active editor found"}`.

use std::borrow::Cow;

use super::Tool;
use crate::ide::answer::Answer;
use crate::ide::args::Args;
use crate::ide::catalog::Param;
use crate::ide::notification::SelectionChanged;
use crate::ide::outcome::Answered;
use crate::ide::path::{PathStyle, normalize_path};
use crate::ide::plan::ToolPlan;
use crate::ide::request::{ToolOutcome, ToolRequest};
use crate::ide::state::EditorState;

pub(super) struct Spec;

/// The answer when no editor is active.
pub(super) const NO_ACTIVE_EDITOR: &str = "No active editor found";

impl Tool for Spec {
    const NAME: &'static str = "getCurrentSelection";
    const DESCRIPTION: &'static str = "Get the selection in the active editor";
    const PARAMS: &'static [Param] = &[];
    const READ: bool = true;

    fn plan<'s>(_: &mut Args<'s>, state: &'s EditorState) -> Result<ToolPlan<Answer<'s>>, String> {
        Ok(ToolPlan::Reply(current(state)))
    }

    fn pull(_: &mut Args<'_>, _: PathStyle) -> Option<Result<ToolRequest, String>> {
        Some(Ok(ToolRequest::GetCurrentSelection))
    }

    /// `selection`, or `noSelection` when no editor is active.
    fn answer<'a>(
        request: &'a ToolRequest,
        outcome: &'a ToolOutcome,
        style: PathStyle,
    ) -> Option<Answered<'a>> {
        if !matches!(request, ToolRequest::GetCurrentSelection) {
            return None;
        }
        selection_answer(outcome, style, NO_ACTIVE_EDITOR)
    }

    fn in_place(state: &EditorState) -> Option<Answer<'_>> {
        Some(current(state))
    }
}

fn current(state: &EditorState) -> Answer<'_> {
    match state.selection_notification() {
        Some(selection) => Answer::Selection(selection),
        None => Answer::Failure(NO_ACTIVE_EDITOR),
    }
}

/// The answer of either selection tool from the editor's `outcome`: the selection, with the
/// editor's path normalized with `style`, or the failure `none` for `noSelection`.
pub(super) fn selection_answer<'a>(
    outcome: &'a ToolOutcome,
    style: PathStyle,
    none: &'static str,
) -> Option<Answered<'a>> {
    Some(Answered::Read(match outcome {
        ToolOutcome::Selection {
            path,
            text,
            selection,
        } => Answer::Selection(Cow::Owned(SelectionChanged::new(
            &normalize_path(path, style),
            text,
            *selection,
        ))),
        ToolOutcome::NoSelection => Answer::Failure(none),
        _ => return None,
    }))
}
