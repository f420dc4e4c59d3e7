//! The entry point for a `tools/call`: decide, from the tool name, its arguments and the
//! editor state, whether to answer now, hand a request to the editor, or refuse.

use std::borrow::Cow;

use serde_json::value::RawValue;

use super::answer::Answer;
use super::args::Args;
use super::catalog::ToolName;
use super::read_tools;
use super::request::ToolRequest;
use super::result::ToolResult;
use super::state::EditorState;
use super::write_tools;

/// What the engine does with a `tools/call`. `R` is the answer of a read tool: a
/// [`ToolResult`] for [`plan_tool_call`]; the engine plans with the answer borrowed from the
/// state instead, and writes it straight into the reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolPlan<R = ToolResult> {
    /// Reply now with this result (a read tool, answered from the state).
    Reply(R),
    /// The editor must carry this out and report a [`super::ToolOutcome`]; format the
    /// answer with [`super::format_outcome`].
    Request(ToolRequest),
    /// `close_tab`: the engine resolves or closes that client's diff named `tab_name` (if
    /// any; unknown or closed tabs are fine) and answers `TAB_CLOSED`.
    CloseTab {
        /// The tab to close.
        tab_name: String,
    },
    /// `closeAllDiffTabs`: the engine closes the diffs it opened for that client and
    /// answers `CLOSED_<n>_DIFF_TABS`.
    CloseAllDiffTabs,
    /// `executeCode` while it is disabled: answered as an unknown tool, JSON-RPC error -32602
    /// `unknown tool: executeCode`.
    UnknownTool,
    /// The arguments are unusable: JSON-RPC error -32602 with this message, which names the
    /// argument and the rule it broke.
    InvalidArguments(String),
}

impl<R> ToolPlan<R> {
    /// The same plan with the reply, if it is one, turned by `f`.
    pub(crate) fn map_reply<S>(self, f: impl FnOnce(R) -> S) -> ToolPlan<S> {
        match self {
            ToolPlan::Reply(reply) => ToolPlan::Reply(f(reply)),
            ToolPlan::Request(request) => ToolPlan::Request(request),
            ToolPlan::CloseTab { tab_name } => ToolPlan::CloseTab { tab_name },
            ToolPlan::CloseAllDiffTabs => ToolPlan::CloseAllDiffTabs,
            ToolPlan::UnknownTool => ToolPlan::UnknownTool,
            ToolPlan::InvalidArguments(message) => ToolPlan::InvalidArguments(message),
        }
    }
}

/// Plans the `tools/call` of `tool` (its name parsed once, by the caller: a name that is no
/// tool never gets here) with `arguments` (absent or `null` = none; unknown extra arguments
/// are ignored) against `state`. Paths in the arguments are normalized with the state's path
/// style. `executeCode` exists only when `execute_code_enabled`.
pub fn plan_tool_call(
    tool: ToolName,
    arguments: Option<&RawValue>,
    state: &EditorState,
    execute_code_enabled: bool,
) -> ToolPlan {
    plan_answer(tool, arguments, state, execute_code_enabled)
        .map_reply(|answer| answer.to_tool_result())
}

/// [`plan_tool_call`] with a read tool's answer borrowed from `state` and `arguments`,
/// unwritten.
pub(crate) fn plan_answer<'s>(
    tool: ToolName,
    arguments: Option<&'s RawValue>,
    state: &'s EditorState,
    execute_code_enabled: bool,
) -> ToolPlan<Answer<'s>> {
    if tool == ToolName::ExecuteCode && !execute_code_enabled {
        return ToolPlan::UnknownTool;
    }
    let mut args = match Args::parse(arguments) {
        Ok(args) => args,
        Err(message) => return ToolPlan::InvalidArguments(message),
    };
    let args = &mut args;
    let planned = match tool {
        ToolName::OpenFile => write_tools::open_file(args, state).map(ToolPlan::Request),
        ToolName::OpenDiff => write_tools::open_diff(args, state).map(ToolPlan::Request),
        ToolName::CloseTab => args
            .string("tab_name")
            .map(|tab_name| ToolPlan::CloseTab { tab_name }),
        ToolName::CloseAllDiffTabs => Ok(ToolPlan::CloseAllDiffTabs),
        ToolName::GetDiagnostics => read_tools::get_diagnostics(args, state).map(ToolPlan::Reply),
        ToolName::GetCurrentSelection => {
            Ok(ToolPlan::Reply(read_tools::get_current_selection(state)))
        }
        ToolName::GetLatestSelection => {
            Ok(ToolPlan::Reply(read_tools::get_latest_selection(state)))
        }
        ToolName::GetOpenEditors => Ok(ToolPlan::Reply(read_tools::get_open_editors(state))),
        ToolName::GetWorkspaceFolders => {
            Ok(ToolPlan::Reply(read_tools::get_workspace_folders(state)))
        }
        ToolName::CheckDocumentDirty => {
            read_tools::check_document_dirty(args, state).map(ToolPlan::Reply)
        }
        ToolName::SaveDocument => write_tools::save_document(args, state).map(|request| {
            match request {
                // `{"success":false,"message":"Document not open: <path>"}`.
                ToolRequest::SaveDocument { path } if state.document(&path).is_none() => {
                    ToolPlan::Reply(Answer::NotOpen(Cow::Owned(path)))
                }
                request => ToolPlan::Request(request),
            }
        }),
        ToolName::ExecuteCode => write_tools::execute_code(args).map(ToolPlan::Request),
    };
    planned.unwrap_or_else(ToolPlan::InvalidArguments)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::PathStyle;

    fn plan(name: &str, arguments: Option<&str>, execute_code_enabled: bool) -> ToolPlan {
        let state = EditorState::new(PathStyle::Posix, vec![]);
        let raw = arguments.map(|a| RawValue::from_string(a.to_owned()).unwrap());
        let tool = ToolName::parse(name).unwrap_or_else(|| panic!("no tool {name}"));
        plan_tool_call(tool, raw.as_deref(), &state, execute_code_enabled)
    }

    proptest::proptest! {
        #[test]
        fn any_arguments_give_a_plan_without_panicking(
            tool in 0..ToolName::ALL.len(),
            key in "(filePath|uri|tab_name|code|old_file_path|new_file_path|new_file_contents|makeFrontmost|x)",
            value in "(null|true|1|-1\\.5|\"\"|\"[a-zA-Z0-9 /:._%-]*\"|\\[\\]|\\{\\})",
        ) {
            let name = ToolName::ALL[tool].as_str();
            let _ = plan(name, Some(&format!(r#"{{"{key}":{value}}}"#)), true);
            let _ = plan(name, Some(&value), true);
        }
    }

    #[test]
    fn unknown_tools_have_no_name() {
        for name in ["", "closeTab", "getdiagnostics", "tools/list"] {
            assert_eq!(ToolName::parse(name), None, "{name}");
        }
    }

    #[test]
    fn execute_code_exists_only_when_enabled() {
        assert_eq!(
            plan("executeCode", Some(r#"{"code":"1+1"}"#), false),
            ToolPlan::UnknownTool
        );
        assert_eq!(
            plan("executeCode", Some(r#"{"code":"1+1"}"#), true),
            ToolPlan::Request(ToolRequest::ExecuteCode { code: "1+1".into() })
        );
        assert_eq!(
            plan("executeCode", Some("{}"), true),
            ToolPlan::InvalidArguments("missing required argument: code".into())
        );
    }

    #[test]
    fn arguments_must_be_an_object_for_every_tool() {
        for tool in ToolName::ALL {
            assert_eq!(
                plan(tool.as_str(), Some("[]"), true),
                ToolPlan::InvalidArguments("arguments: expected an object, got an array".into()),
                "{}",
                tool.as_str()
            );
        }
    }

    #[test]
    fn close_tab_hands_the_name_to_the_engine() {
        assert_eq!(
            plan(
                "close_tab",
                Some(r#"{"tab_name":"✻ [Claude Code] a.rs (1) ⧉"}"#),
                false
            ),
            ToolPlan::CloseTab {
                tab_name: "✻ [Claude Code] a.rs (1) ⧉".into()
            }
        );
        assert_eq!(
            plan("close_tab", None, false),
            ToolPlan::InvalidArguments("missing required argument: tab_name".into())
        );
        assert_eq!(
            plan("close_tab", Some(r#"{"tab_name":true}"#), false),
            ToolPlan::InvalidArguments(
                "argument tab_name: expected a string, got a boolean".into()
            )
        );
    }

    #[test]
    fn close_all_diff_tabs_ignores_extra_arguments() {
        assert_eq!(
            plan("closeAllDiffTabs", None, false),
            ToolPlan::CloseAllDiffTabs
        );
        assert_eq!(
            plan("closeAllDiffTabs", Some(r#"{"x":1}"#), false),
            ToolPlan::CloseAllDiffTabs
        );
    }
}
