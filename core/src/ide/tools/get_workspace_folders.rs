//! `getWorkspaceFolders`: `{"success":true,"folders":[..],"rootPath"}`.

use std::borrow::Cow;

use super::Tool;
use crate::ide::answer::Answer;
use crate::ide::args::Args;
use crate::ide::catalog::Param;
use crate::ide::outcome::Answered;
use crate::ide::path::{PathStyle, normalize_path};
use crate::ide::plan::ToolPlan;
use crate::ide::request::{ToolOutcome, ToolRequest};
use crate::ide::state::EditorState;

pub(super) struct Spec;

impl Tool for Spec {
    const NAME: &'static str = "getWorkspaceFolders";
    const DESCRIPTION: &'static str = "List the workspace folders open in the editor";
    const PARAMS: &'static [Param] = &[];
    const READ: bool = true;

    fn plan<'s>(_: &mut Args<'s>, state: &'s EditorState) -> Result<ToolPlan<Answer<'s>>, String> {
        Ok(ToolPlan::Reply(Answer::Folders(Cow::Borrowed(
            state.workspace_folders(),
        ))))
    }

    fn pull(_: &mut Args<'_>, _: PathStyle) -> Option<Result<ToolRequest, String>> {
        Some(Ok(ToolRequest::GetWorkspaceFolders))
    }

    /// `workspaceFolders`, as the state keeps them: normalized, each once, in the editor's
    /// order.
    fn answer<'a>(
        request: &'a ToolRequest,
        outcome: &'a ToolOutcome,
        style: PathStyle,
    ) -> Option<Answered<'a>> {
        let (ToolRequest::GetWorkspaceFolders, ToolOutcome::WorkspaceFolders { folders }) =
            (request, outcome)
        else {
            return None;
        };
        let mut unique: Vec<String> = Vec::with_capacity(folders.len());
        for folder in folders {
            let folder = normalize_path(folder, style).into_owned();
            if !unique.contains(&folder) {
                unique.push(folder);
            }
        }
        Some(Answered::Read(Answer::Folders(Cow::Owned(unique))))
    }
}
