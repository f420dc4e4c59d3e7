//! `getLatestSelection`: the last selection seen, even in an editor closed since, or
//! `{"success":false,"message":"No selection available"}`.

use std::borrow::Cow;

use super::Tool;
use super::get_current_selection::selection_answer;
use crate::ide::answer::Answer;
use crate::ide::args::Args;
use crate::ide::catalog::Param;
use crate::ide::outcome::Answered;
use crate::ide::path::PathStyle;
use crate::ide::plan::ToolPlan;
use crate::ide::request::{ToolOutcome, ToolRequest};
use crate::ide::state::EditorState;

pub(super) struct Spec;

/// The answer when no selection was ever made.
pub(super) const NO_SELECTION: &str = "No selection available";

impl Tool for Spec {
    const NAME: &'static str = "getLatestSelection";
    const DESCRIPTION: &'static str =
        "Get the most recent selection, even if its editor is no longer active";
    const PARAMS: &'static [Param] = &[];
    const READ: bool = true;

    fn plan<'s>(_: &mut Args<'s>, state: &'s EditorState) -> Result<ToolPlan<Answer<'s>>, String> {
        Ok(ToolPlan::Reply(latest(state)))
    }

    fn pull(_: &mut Args<'_>, _: PathStyle) -> Option<Result<ToolRequest, String>> {
        Some(Ok(ToolRequest::GetLatestSelection))
    }

    /// `selection`, or `noSelection` when no selection was ever made.
    fn answer<'a>(
        request: &'a ToolRequest,
        outcome: &'a ToolOutcome,
        style: PathStyle,
    ) -> Option<Answered<'a>> {
        if !matches!(request, ToolRequest::GetLatestSelection) {
            return None;
        }
        selection_answer(outcome, style, NO_SELECTION)
    }

    fn in_place(state: &EditorState) -> Option<Answer<'_>> {
        Some(latest(state))
    }
}

fn latest(state: &EditorState) -> Answer<'_> {
    match state.latest_selection() {
        Some(selection) => Answer::Selection(Cow::Borrowed(selection)),
        None => Answer::Failure(NO_SELECTION),
    }
}
