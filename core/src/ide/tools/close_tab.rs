//! `close_tab {tab_name}`: the engine resolves or closes the caller's diff of that name
//! itself (unknown or closed tabs are fine) and answers `TAB_CLOSED`.

use super::Tool;
use crate::ide::answer::Answer;
use crate::ide::args::Args;
use crate::ide::catalog::{Param, required};
use crate::ide::plan::ToolPlan;
use crate::ide::state::EditorState;

pub(super) struct Spec;

impl Tool for Spec {
    const NAME: &'static str = "close_tab";
    const DESCRIPTION: &'static str =
        "Close a tab by its name; unknown or already closed tabs are fine";
    const PARAMS: &'static [Param] = &[required("tab_name", "string", "Name of the tab to close")];

    fn plan<'s>(args: &mut Args<'s>, _: &'s EditorState) -> Result<ToolPlan<Answer<'s>>, String> {
        args.string("tab_name")
            .map(|tab_name| ToolPlan::CloseTab { tab_name })
    }
}
