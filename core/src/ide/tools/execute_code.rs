//! `executeCode {code}`: the editor asks the user, then runs the code in its kernel. Listed
//! and callable only when the host enables it.

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
    const NAME: &'static str = "executeCode";
    const DESCRIPTION: &'static str = "Run code in the editor's kernel or runtime for the active notebook or file and return its output. The user confirms every call. State persists between calls, so avoid changing it unless the user asks";
    const PARAMS: &'static [Param] = &[required("code", "string", "The code to run")];
    const OPT_IN: bool = true;

    fn plan<'s>(args: &mut Args<'s>, _: &'s EditorState) -> Result<ToolPlan<Answer<'s>>, String> {
        Ok(ToolPlan::Request(ToolRequest::ExecuteCode {
            code: args.string("code")?,
        }))
    }

    /// `codeExecuted`: one text item per output (none for no output).
    fn answer<'a>(
        request: &'a ToolRequest,
        outcome: &'a ToolOutcome,
        _style: PathStyle,
    ) -> Option<Answered<'a>> {
        let (ToolRequest::ExecuteCode { .. }, ToolOutcome::CodeExecuted { outputs }) =
            (request, outcome)
        else {
            return None;
        };
        Some(Answered::Tool(ToolResult {
            texts: outputs.clone(),
            is_error: false,
        }))
    }
}
