//! `closeAllDiffTabs`: the engine closes the diffs it opened for the caller itself and
//! answers `CLOSED_<n>_DIFF_TABS`.

use super::Tool;
use crate::ide::answer::Answer;
use crate::ide::args::Args;
use crate::ide::catalog::Param;
use crate::ide::plan::ToolPlan;
use crate::ide::state::EditorState;

pub(super) struct Spec;

impl Tool for Spec {
    const NAME: &'static str = "closeAllDiffTabs";
    const DESCRIPTION: &'static str = "Close every diff tab opened for this session";
    const PARAMS: &'static [Param] = &[];

    fn plan<'s>(_: &mut Args<'s>, _: &'s EditorState) -> Result<ToolPlan<Answer<'s>>, String> {
        Ok(ToolPlan::CloseAllDiffTabs)
    }
}
