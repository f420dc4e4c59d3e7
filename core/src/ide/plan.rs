//! The entry point for a `tools/call`: decide, from the tool name, its arguments, where its
//! answer comes from and the editor state, whether to answer now, hand a request to the
//! editor, or refuse. What each tool does is its module's ([`super::tools`]).

use serde_json::value::RawValue;

use super::answer::Answer;
use super::args::Args;
use super::catalog::ToolName;
use super::pull::ReadSource;
use super::request::ToolRequest;
use super::result::ToolResult;
use super::state::EditorState;

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
    plan(
        tool,
        arguments,
        state,
        ReadSource::State,
        execute_code_enabled,
    )
    .map_reply(|answer| answer.to_tool_result())
}

/// [`plan_tool_call`] for a read tool answered from `source` (a pulled read becomes a
/// [`ToolPlan::Request`], its arguments checked as for an answer from the state: the same
/// [`ToolPlan::InvalidArguments`] for the same arguments), the answer borrowed from `state`
/// and `arguments` and unwritten. `source` does not matter for a tool that is no read tool.
pub(crate) fn plan<'s>(
    tool: ToolName,
    arguments: Option<&'s RawValue>,
    state: &'s EditorState,
    source: ReadSource,
    execute_code_enabled: bool,
) -> ToolPlan<Answer<'s>> {
    let entry = tool.entry();
    if entry.opt_in && !execute_code_enabled {
        return ToolPlan::UnknownTool;
    }
    let mut args = match Args::parse(arguments) {
        Ok(args) => args,
        Err(message) => return ToolPlan::InvalidArguments(message),
    };
    let pulled = match source {
        ReadSource::Editor => (entry.pull)(&mut args, state.path_style()),
        ReadSource::State => None,
    };
    let planned = match pulled {
        Some(request) => request.map(ToolPlan::Request),
        None => (entry.plan)(&mut args, state),
    };
    planned.unwrap_or_else(ToolPlan::InvalidArguments)
}

/// The answer of `getCurrentSelection` or `getLatestSelection`, borrowed from the state.
#[derive(Debug)]
pub struct SelectionResult<'s>(Answer<'s>);

/// For the tools that read nothing but the selection, `getCurrentSelection` and
/// `getLatestSelection`: their answer borrowed from `state`, to be written with
/// [`SelectionResult::write`] without copying the state (steady-state traffic allocates
/// nothing). `None` for every other tool. Arguments are not read: the caller has checked that
/// they are an object or absent, as decoding a `tools/call` does; with anything else,
/// [`plan_tool_call`] refuses them.
pub fn selection_result(tool: ToolName, state: &EditorState) -> Option<SelectionResult<'_>> {
    (tool.entry().in_place)(state).map(SelectionResult)
}

/// [`selection_result`]'s answer, unwritten (for the engine's context policy to screen).
pub(crate) fn selection_answer(tool: ToolName, state: &EditorState) -> Option<Answer<'_>> {
    (tool.entry().in_place)(state)
}

impl SelectionResult<'_> {
    /// Appends the tool result to `out`: the same bytes as the [`ToolResult`] that
    /// [`plan_tool_call`] answers with for the same tool and state.
    pub fn write(&self, out: &mut Vec<u8>) {
        self.0.write_result(out);
    }
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
