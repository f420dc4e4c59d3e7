//! `getOpenEditors`: `{"tabs":[..]}`, the open tabs in tab order.

use std::borrow::Cow;

use super::Tool;
use crate::ide::answer::{Answer, TabFacts};
use crate::ide::args::Args;
use crate::ide::catalog::Param;
use crate::ide::outcome::Answered;
use crate::ide::path::{PathStyle, normalize_path};
use crate::ide::plan::ToolPlan;
use crate::ide::request::{ToolOutcome, ToolRequest};
use crate::ide::state::EditorState;

pub(super) struct Spec;

impl Tool for Spec {
    const NAME: &'static str = "getOpenEditors";
    const DESCRIPTION: &'static str = "List the open editor tabs in tab order";
    const PARAMS: &'static [Param] = &[];
    const READ: bool = true;

    /// The state's documents in tab order.
    fn plan<'s>(_: &mut Args<'s>, state: &'s EditorState) -> Result<ToolPlan<Answer<'s>>, String> {
        let active = state.active_path();
        Ok(ToolPlan::Reply(Answer::Tabs(
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
        )))
    }

    fn pull(_: &mut Args<'_>, _: PathStyle) -> Option<Result<ToolRequest, String>> {
        Some(Ok(ToolRequest::GetOpenEditors))
    }

    /// `openEditors`, the editor's paths normalized.
    fn answer<'a>(
        request: &'a ToolRequest,
        outcome: &'a ToolOutcome,
        style: PathStyle,
    ) -> Option<Answered<'a>> {
        let (ToolRequest::GetOpenEditors, ToolOutcome::OpenEditors { tabs }) = (request, outcome)
        else {
            return None;
        };
        Some(Answered::Read(Answer::Tabs(
            tabs.iter()
                .map(|tab| TabFacts {
                    path: normalize_path(&tab.path, style),
                    language_id: tab.language_id.as_deref(),
                    is_dirty: tab.is_dirty,
                    is_untitled: tab.is_untitled,
                    is_active: tab.is_active,
                })
                .collect(),
        )))
    }
}
